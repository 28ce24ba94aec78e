#pragma once
// Statistics structs that export themselves. Each block's counters struct
// lists every field once, in a member template
//
//     template <class Self, class Visitor>
//     static void visit(Self& self, Visitor&& field) {
//         field("dma_reads", self.dma_reads);
//         ...
//     }
//
// giving the JSON key and the member. The same list writes `--stats` /
// `bench --json` (statistics_json below) and is checked by
// testbench/systemc/statistics_tables_tb.cpp, which fails when a field of the
// struct is missing from the list. Keys: counters as plain names; times as
// `_ps` (integer picoseconds) or, for sc_time members, `_ns` (double
// nanoseconds, written by statistics_json).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace isvp {

/// One statistics value as JSON: integers as they are; anything else is an
/// sc_time (duck-typed, so this header needs no SystemC), in nanoseconds.
template <class Value>
nlohmann::json statistic_json(const Value& value) {
    if constexpr (std::is_arithmetic_v<Value>)
        return value;
    else
        return value.to_seconds() * 1e9;
}

/// Every field of `statistics` under its key, in table order.
template <class Statistics>
nlohmann::json statistics_json(const Statistics& statistics) {
    nlohmann::json out = nlohmann::json::object();
    Statistics::visit(statistics, [&out](const char* key, const auto& value) { out[key] = statistic_json(value); });
    return out;
}

/// Adds every field of `counted` to `total` (a whole platform's counters
/// from its blocks'); fields whose key contains "peak_" take the larger.
/// The table is the one list of fields, so a counter added to it is summed
/// without touching the callers.
template <class Statistics>
void accumulate_statistics(Statistics& total, const Statistics& counted) {
    std::vector<const void*> fields;  // counted's fields, in table order
    Statistics::visit(counted, [&fields](const char*, const auto& value) { fields.push_back(&value); });
    std::size_t index = 0;
    Statistics::visit(total, [&](const char* key, auto& value) {
        const auto& add = *static_cast<const std::remove_reference_t<decltype(value)>*>(fields[index++]);
        if (std::strstr(key, "peak_") != nullptr)
            value = std::max(value, add);
        else
            value += add;
    });
}

}  // namespace isvp
