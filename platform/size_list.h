// `--sizes` for the benchmarks: "A:B" is every power of two from A to B
// (A and B rounded into the range, both ends included when they are powers of
// two), "a,b,c" is an explicit list; K, M, G suffixes are binary (1K = 1024).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace isvp::cli {

/// Parses one size: digits with an optional K/M/G suffix, at most 1024G.
/// Throws ConfigError.
std::uint64_t parse_size(const std::string& text);
/// Parses a `--sizes` value. Throws ConfigError naming the bad part.
std::vector<std::uint64_t> parse_size_list(const std::string& text);

}  // namespace isvp::cli
