// One parameter table per block (issue 15): a block lists each of its
// parameters once — name, unit, range or choices, one-line description —
// beside the Config field that holds its value, in one generic callable
// (kept in the block's config .cpp):
//
//     constexpr auto kTable = [](auto& self, auto&& parameter) {
//         parameter(param::Integer{"qdma.queues", "queues", 1, 64, "QDMA queue pairs"}, self.queues);
//         ...
//     };
//
// and everything else is derived from it: declaring the parameters in a
// Parameters set (defaults from a default-constructed Config, so
// --list-parameters shows them), reading a Config back, and validating one
// built in code, with one error format for every bad value:
// "config: NAME must be ACCEPTED, got VALUE", ACCEPTED the same phrase the
// Parameters set uses ("an integer in [1, 64] queues", "a power of two in
// [16, 32768] B", "a number in [1, 5000] MHz", "one of retry, drop").
// Constraints between parameters stay in the block's validate(), after
// check_table(), in the same format (refuse_parameter).
// The same pattern as statistics_table.h. SystemC-free.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "isvp/parameters.h"

namespace isvp::param {

/// An integer parameter in [minimum, maximum] (a power of two if asked).
struct Integer {
    const char* name;           ///< dotted name, "qdma.queues"
    const char* unit;           ///< unit, "" if none
    std::int64_t minimum;       ///< inclusive
    std::int64_t maximum;       ///< inclusive
    const char* description;    ///< one line
    bool power_of_two = false;  ///< only powers of two are accepted
};

/// A real parameter in [minimum, maximum].
struct Real {
    const char* name;         ///< dotted name
    const char* unit;         ///< unit, "" if none
    double minimum;           ///< inclusive
    double maximum;           ///< inclusive
    const char* description;  ///< one line
};

/// A parameter with named values, stored as `Value` (an enum, a bool).
template <class Value>
struct Choice {
    const char* name;                                  ///< dotted name
    std::vector<std::pair<std::string, Value>> names;  ///< accepted text and what it means, in listing order
    const char* description;                           ///< one line
};

/// What a parameter accepts, as every error message and listing says it.
inline std::string accepted(const Integer& spec) {
    std::ostringstream text;
    text << (spec.power_of_two ? "a power of two in [" : "an integer in [") << spec.minimum << ", " << spec.maximum
         << "]" << (*spec.unit ? " " : "") << spec.unit;
    return text.str();
}
inline std::string accepted(const Real& spec) {
    std::ostringstream text;
    text << "a number in [" << spec.minimum << ", " << spec.maximum << "]" << (*spec.unit ? " " : "") << spec.unit;
    return text.str();
}
template <class Value>
std::string accepted(const Choice<Value>& spec) {
    std::string text = "one of ";
    for (std::size_t i = 0; i < spec.names.size(); ++i) text += (i ? ", " : "") + spec.names[i].first;
    return text;
}

namespace detail {

struct Declarer {
    Parameters& parameters;
    template <class Field>
    void operator()(const Integer& spec, const Field& value) const {
        parameters.declare_integer(
            spec.name, spec.unit, static_cast<std::int64_t>(value), spec.minimum, spec.maximum,
            spec.power_of_two ? std::string(spec.description) + " (power of two)" : std::string(spec.description));
    }
    void operator()(const Real& spec, double value) const {
        parameters.declare_real(spec.name, spec.unit, value, spec.minimum, spec.maximum, spec.description);
    }
    template <class Value>
    void operator()(const Choice<Value>& spec, const Value& value) const {
        std::vector<std::string> names;
        std::string default_name;
        for (const auto& [text, meaning] : spec.names) {
            names.push_back(text);
            if (meaning == value && default_name.empty()) default_name = text;
        }
        parameters.declare_choice(spec.name, default_name, names, spec.description);
    }
};

struct Reader {
    const Parameters& parameters;
    template <class Field>
    void operator()(const Integer& spec, Field& value) const {
        value = static_cast<Field>(parameters.integer(spec.name));
    }
    void operator()(const Real& spec, double& value) const { value = parameters.real(spec.name); }
    template <class Value>
    void operator()(const Choice<Value>& spec, Value& value) const {
        const std::string text = parameters.text(spec.name);
        for (const auto& [name, meaning] : spec.names)
            if (name == text) value = meaning;
    }
};

struct Checker {
    template <class Field>
    void operator()(const Integer& spec, const Field& value) const {
        static_assert(std::is_integral_v<Field>, "an Integer parameter is held in an integer field");
        bool inside;
        if constexpr (std::is_unsigned_v<Field>)
            inside = (spec.minimum <= 0 || value >= static_cast<std::uint64_t>(spec.minimum)) &&
                     (spec.maximum >= 0 && value <= static_cast<std::uint64_t>(spec.maximum));
        else
            inside = value >= spec.minimum && value <= spec.maximum;
        if (!inside || (spec.power_of_two && !is_power_of_two(static_cast<std::uint64_t>(value))))
            refuse_parameter(spec.name, accepted(spec), static_cast<double>(value));
    }
    void operator()(const Real& spec, double value) const {
        if (!(value >= spec.minimum && value <= spec.maximum)) refuse_parameter(spec.name, accepted(spec), value);
    }
    template <class Value>
    void operator()(const Choice<Value>& spec, const Value& value) const {
        for (const auto& entry : spec.names)
            if (entry.second == value) return;
        if constexpr (std::is_convertible_v<Value, std::string>)
            throw ConfigError(std::string("config: ") + spec.name + " must be " + accepted(spec) + ", got '" +
                              std::string(value) + "'");
        else
            refuse_parameter(spec.name, accepted(spec), static_cast<double>(static_cast<long long>(value)));
    }
};

}  // namespace detail

/// Declares every parameter of `table`, defaults from Config{}.
template <class Config, class Table>
void declare_table(Parameters& parameters, const Table& table) {
    const Config defaults;
    table(defaults, detail::Declarer{parameters});
}

/// Reads every parameter of `table` (no cross-parameter checks).
template <class Config, class Table>
Config read_table(const Parameters& parameters, const Table& table) {
    Config config;
    table(config, detail::Reader{parameters});
    return config;
}

/// Refuses the first field outside its declared range or choices.
template <class Config, class Table>
void check_table(const Config& config, const Table& table) {
    table(config, detail::Checker{});
}

}  // namespace isvp::param
