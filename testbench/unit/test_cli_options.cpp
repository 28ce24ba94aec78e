// Whole-number command-line options: Boost alone would wrap "-1" round.
#include <catch2/catch.hpp>

#include "cli.h"

namespace po = boost::program_options;
using isvp::ConfigError;
using isvp::cli::whole;
using isvp::cli::whole_value;

namespace {

/// Parses `argument` as the value of --count (a whole(5u) option).
unsigned parse_count(const char* argument) {
    po::options_description options;
    options.add_options()("count", whole(5u), "a count");
    std::vector<const char*> argv = {"test"};
    if (argument != nullptr) {
        argv.push_back("--count");
        argv.push_back(argument);
    }
    po::variables_map values;
    isvp::cli::parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()), "usage", options, values);
    return whole_value<unsigned>(values, "count");
}

}  // namespace

TEST_CASE("cli: a whole-number option takes digits and keeps its default") {
    CHECK(parse_count(nullptr) == 5);
    CHECK(parse_count("0") == 0);
    CHECK(parse_count("4294967295") == 4294967295u);
}

TEST_CASE("cli: a whole-number option refuses a sign, junk and overflow, naming the option") {
    CHECK_THROWS_WITH(parse_count("-1"), Catch::Contains("'-1'") && Catch::Contains("--count") &&
                                             Catch::Contains("not a whole number from 0 to 4294967295"));
    CHECK_THROWS_AS(parse_count("+1"), ConfigError);
    CHECK_THROWS_AS(parse_count("1.5"), ConfigError);
    CHECK_THROWS_AS(parse_count("0x10"), ConfigError);
    CHECK_THROWS_AS(parse_count(""), ConfigError);
    CHECK_THROWS_WITH(parse_count("4294967296"), Catch::Contains("not a whole number"));
}
