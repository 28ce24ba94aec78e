// Benchmark --sizes parsing.
#include <catch2/catch.hpp>

#include "isvp/parameters.h"
#include "size_list.h"

using isvp::ConfigError;
using isvp::cli::parse_size;
using isvp::cli::parse_size_list;

TEST_CASE("sizes: suffixes are binary multiples") {
    CHECK(parse_size("8") == 8);
    CHECK(parse_size("4K") == 4096);
    CHECK(parse_size("4M") == 4u << 20);
    CHECK(parse_size("1G") == 1u << 30);
}

TEST_CASE("sizes: a range gives every power of two between its ends") {
    CHECK(parse_size_list("8:64") == std::vector<std::uint64_t>{8, 16, 32, 64});
    CHECK(parse_size_list("0:4") == std::vector<std::uint64_t>{0, 1, 2, 4});
    CHECK(parse_size_list("5:40") == std::vector<std::uint64_t>{8, 16, 32});
    CHECK(parse_size_list("8:4M").size() == 20);
}

TEST_CASE("sizes: a list is taken as given") {
    CHECK(parse_size_list("1K,8,64K") == std::vector<std::uint64_t>{1024, 8, 65536});
}

TEST_CASE("sizes: malformed values are refused naming the bad part") {
    CHECK_THROWS_WITH(parse_size_list("8:4X"), Catch::Contains("'4X' is not a size"));
    CHECK_THROWS_WITH(parse_size_list("64:8"), Catch::Contains("runs backwards"));
    CHECK_THROWS_WITH(parse_size_list("abc"), Catch::Contains("'abc'"));
    CHECK_THROWS_AS(parse_size_list(""), ConfigError);
}

TEST_CASE("sizes: values beyond 1024G are refused, not wrapped round") {
    CHECK(parse_size("1024G") == std::uint64_t{1} << 40);
    CHECK_THROWS_WITH(parse_size("1025G"), Catch::Contains("larger than the largest size"));
    CHECK_THROWS_WITH(parse_size("17179869184G"), Catch::Contains("larger than the largest size"));
    CHECK_THROWS_WITH(parse_size("99999999999999999999999"), Catch::Contains("larger than the largest size"));
    CHECK(parse_size_list("1G:1024G").size() == 11);
}
