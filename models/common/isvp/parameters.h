// Named, documented, validated parameters.
//
// Every block declares its parameters once — name, unit, default, range or
// accepted values, one-line description — in a Parameters set. A platform is
// a JSON file (nested objects flatten to dotted names) plus `--set key=value`
// overrides; every value is validated when it is set, and a bad one raises a
// ConfigError naming the parameter, the value and what is accepted.
// Configuration is passed in explicitly; there is no global instance.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace isvp {

/// A configuration error a user can fix: the message says what and how.
class ConfigError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Throws the ConfigError every validate() uses:
/// "config: NAME must be ACCEPTED, got VALUE".
[[noreturn]] void refuse_parameter(const std::string& name, const std::string& accepted, double got);

/// A JSON parser's message for a user: without the library's
/// "[json.exception.parse_error.101] " prefix.
std::string plain_json_error(const std::string& what);

/// Follows a JSON parser's callback events to find a key given twice in one
/// object (the parser would keep the last one silently).
class JsonKeyTracker {
  public:
    /// The key, when this event repeats one of its object's keys.
    std::optional<std::string> repeated(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start) {
            keys_.emplace_back();
        } else if (event == Event::object_end) {
            if (!keys_.empty()) keys_.pop_back();
        } else if (event == Event::key && !keys_.empty() && parsed.is_string()) {
            if (!keys_.back().insert(parsed.get<std::string>()).second) return parsed.get<std::string>();
        }
        return std::nullopt;
    }

  private:
    std::vector<std::set<std::string>> keys_;  ///< per open object, its keys so far
};

/// Whether `value` is a non-zero power of two (sizes in bytes, ring entries).
constexpr bool is_power_of_two(std::uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

class Parameters {
  public:
    enum class Kind { Integer, Real, Choice, Text, Flag };

    struct Spec {
        std::string name;         ///< dotted name, e.g. "aglu.impl"
        Kind kind;                ///< value type
        std::string unit;         ///< unit of measure ("cycles", "MHz"); empty if none
        std::string description;  ///< one line for --help and docs
        nlohmann::json default_value;
        double minimum = 0;                ///< inclusive, Integer and Real only
        double maximum = 0;                ///< inclusive, Integer and Real only
        std::vector<std::string> choices;  ///< accepted values, Choice only
    };

    void declare_integer(const std::string& name, const std::string& unit, std::int64_t default_value,
                         std::int64_t minimum, std::int64_t maximum, const std::string& description);
    void declare_real(const std::string& name, const std::string& unit, double default_value, double minimum,
                      double maximum, const std::string& description);
    void declare_choice(const std::string& name, const std::string& default_value,
                        const std::vector<std::string>& choices, const std::string& description);
    void declare_text(const std::string& name, const std::string& default_value, const std::string& description);
    void declare_flag(const std::string& name, bool default_value, const std::string& description);

    /// Reads a JSON platform file; every key must be a declared parameter.
    void load_file(const std::string& path);
    /// Applies a JSON object; `origin` names where it came from in messages.
    void load_json(const nlohmann::json& document, const std::string& origin);
    /// Applies one `key=value` override as given to `--set`.
    void apply_override(std::string_view assignment);

    std::int64_t integer(std::string_view name) const;
    double real(std::string_view name) const;
    /// Value of a Choice or Text parameter.
    std::string text(std::string_view name) const;
    bool flag(std::string_view name) const;

    bool is_declared(std::string_view name) const;
    const std::vector<Spec> specs() const;

    /// One line per parameter: name, value, unit, description.
    void describe(std::ostream& out) const;
    /// Current values as a nested JSON object (for statistics and reports).
    nlohmann::json to_json() const;

  private:
    struct Entry {
        Spec spec;
        nlohmann::json value;
    };

    void declare(Spec spec);
    void assign(const std::string& name, const nlohmann::json& value, const std::string& origin);
    void assign_text(const std::string& name, const std::string& value, const std::string& origin);
    const Entry& entry(std::string_view name, Kind expected) const;
    [[noreturn]] void unknown(const std::string& name, const std::string& origin) const;

    std::map<std::string, Entry, std::less<>> entries_;  ///< declared parameters by name
};

}  // namespace isvp
