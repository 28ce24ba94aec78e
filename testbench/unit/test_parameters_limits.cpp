// Parameters: platform files that are too deep or too large are refused with
// one line, before they can exhaust the stack or memory (issue 16).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "isvp/parameters.h"

using namespace isvp;

namespace {

Parameters example() {
    Parameters parameters;
    parameters.declare_integer("router.vcs", "VCs", 2, 1, 16, "virtual channels per port");
    return parameters;
}

/// `{"a": {"a": ... VALUE ... }}` nested `levels` deep, written to a file.
std::string nested_file(const std::string& name, int levels, const std::string& open, const std::string& close) {
    const std::string path = std::string(P_tmpdir) + "/isvp_limits_" + name + ".json";
    std::ofstream out(path);
    out << "{\"a\": ";
    for (int i = 1; i < levels; ++i) out << open;
    out << "1";
    for (int i = 1; i < levels; ++i) out << close;
    out << "}";
    return path;
}

}  // namespace

TEST_CASE("parameters: a file nested 50,000 objects deep is refused, not a stack overflow") {
    Parameters parameters = example();
    const std::string path = nested_file("deep_objects", 50000, "{\"a\": ", "}");
    CHECK_THROWS_WITH(parameters.load_file(path),
                      Catch::Contains(path) && Catch::Contains("nests objects or arrays more than 32 levels deep"));
    std::remove(path.c_str());
}

TEST_CASE("parameters: a value nested 50,000 arrays deep is refused") {
    Parameters parameters = example();
    const std::string path = nested_file("deep_arrays", 50000, "[", "]");
    CHECK_THROWS_WITH(parameters.load_file(path), Catch::Contains("more than 32 levels deep"));
    std::remove(path.c_str());
}

TEST_CASE("parameters: 32 levels are read, 33 are refused") {
    Parameters parameters = example();
    const std::string ok = nested_file("depth32", 32, "{\"a\": ", "}");
    CHECK_THROWS_WITH(parameters.load_file(ok), Catch::Contains("unknown parameter 'a.a.a."));
    const std::string deep = nested_file("depth33", 33, "{\"a\": ", "}");
    CHECK_THROWS_WITH(parameters.load_file(deep), Catch::Contains("more than 32 levels deep"));
    std::remove(ok.c_str());
    std::remove(deep.c_str());
}

TEST_CASE("parameters: a JSON document built 50,000 objects deep is refused by load_json") {
    Parameters parameters = example();
    nlohmann::json document = nlohmann::json::object();
    nlohmann::json* level = &document;
    for (int i = 0; i < 50000; ++i) level = &(*level)["a"];
    *level = 1;
    CHECK_THROWS_WITH(parameters.load_json(document, "generated"),
                      Catch::Contains("config: generated nests objects or arrays more than 32 levels deep"));
}

TEST_CASE("parameters: an endless file (/dev/zero) is refused promptly, after at most 16 MiB") {
    Parameters parameters = example();
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(parameters.load_file("/dev/zero"),
                      Catch::Equals("config: /dev/zero is larger than 16 MiB (a platform file is a few KiB)"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("parameters: a long wrong value is shown cut short in the error") {
    Parameters parameters = example();
    nlohmann::json list = nlohmann::json::array();
    for (int i = 0; i < 100000; ++i) list.push_back(i);
    try {
        parameters.load_json({{"router", {{"vcs", list}}}}, "p.json");
        FAIL("accepted a list as an integer");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        CHECK(message.size() < 300);
        CHECK_THAT(message, Catch::Contains("router.vcs must be an integer") && Catch::Contains("...") &&
                                Catch::Contains("(p.json)"));
    }
}

TEST_CASE("parameters: an integer parameter bounded by INT64_MAX takes values in range") {
    // The bounds are kept as doubles; INT64_MAX becomes 2^63, which cast back
    // to an int64 wrapped to INT64_MIN and refused every value (aurora.seed=2).
    Parameters parameters;
    parameters.declare_integer("aurora.seed", "", 1, 0, INT64_MAX, "seed");
    parameters.apply_override("aurora.seed=2");
    CHECK(parameters.integer("aurora.seed") == 2);
    parameters.apply_override("aurora.seed=9223372036854775807");
    CHECK(parameters.integer("aurora.seed") == INT64_MAX);
    CHECK_THROWS(parameters.apply_override("aurora.seed=-1"));
    CHECK_THROWS(parameters.apply_override("aurora.seed=9223372036854775808"));
}
