#include "isvp/parameters.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>

namespace isvp {
namespace {

std::string kind_phrase(const Parameters::Spec& spec) {
    std::ostringstream text;
    const std::string unit = spec.unit.empty() ? "" : " " + spec.unit;
    switch (spec.kind) {
        case Parameters::Kind::Integer: {
            // Bounds are stored as doubles; INT64_MAX rounds up to 2^63, which
            // does not convert back: clamp before converting.
            auto bound = [](double value) {
                constexpr double kLimit = 9223372036854775807.0;  // == 2^63 as a double
                if (value >= kLimit) return std::numeric_limits<std::int64_t>::max();
                if (value <= -kLimit) return std::numeric_limits<std::int64_t>::min();
                return static_cast<std::int64_t>(value);
            };
            text << "an integer in [" << bound(spec.minimum) << ", " << bound(spec.maximum) << "]" << unit;
            break;
        }
        case Parameters::Kind::Real:
            text << "a number in [" << spec.minimum << ", " << spec.maximum << "]" << unit;
            break;
        case Parameters::Kind::Choice: {
            text << "one of ";
            for (std::size_t i = 0; i < spec.choices.size(); ++i) text << (i ? ", " : "") << spec.choices[i];
            break;
        }
        case Parameters::Kind::Text:
            text << "a string";
            break;
        case Parameters::Kind::Flag:
            text << "true or false";
            break;
    }
    return text.str();
}

/// A value as an error message shows it: one line, cut short if long.
std::string shown(const nlohmann::json& value) {
    constexpr std::size_t kShown = 64;
    std::string text = value.dump();
    if (text.size() > kShown) text = text.substr(0, kShown) + "...";
    return text;
}

[[noreturn]] void reject(const Parameters::Spec& spec, const std::string& shown, const std::string& origin) {
    throw ConfigError("config: " + spec.name + " must be " + kind_phrase(spec) + ", got " + shown + " (" + origin +
                      ")");
}

// A platform file is a few KiB nested a few levels deep (`topology.torus`);
// bounds far above that keep a hostile or mistaken file (50,000 nested
// objects, /dev/zero) from exhausting the stack or memory.
constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;
constexpr int kMaxConfigDepth = 32;

std::string too_deep(const std::string& origin) {
    return "config: " + origin + " nests objects or arrays more than " + std::to_string(kMaxConfigDepth) +
           " levels deep (parameter names have a few levels, e.g. topology.torus)";
}

void flatten(const nlohmann::json& node, const std::string& prefix, int depth, const std::string& origin,
             std::vector<std::pair<std::string, nlohmann::json>>& out) {
    if (depth > kMaxConfigDepth) throw ConfigError(too_deep(origin));
    for (const auto& [key, value] : node.items()) {
        const std::string name = prefix.empty() ? key : prefix + "." + key;
        if (value.is_object())
            flatten(value, name, depth + 1, origin, out);
        else
            out.emplace_back(name, value);
    }
}

}  // namespace

void refuse_parameter(const std::string& name, const std::string& accepted, double got) {
    std::ostringstream message;
    message << "config: " << name << " must be " << accepted << ", got " << got;
    throw ConfigError(message.str());
}

void Parameters::declare(Spec spec) {
    if (entries_.count(spec.name)) throw std::logic_error("parameter declared twice: " + spec.name);
    const std::string name = spec.name;
    nlohmann::json value = spec.default_value;
    entries_.emplace(name, Entry{std::move(spec), std::move(value)});
}

void Parameters::declare_integer(const std::string& name, const std::string& unit, std::int64_t default_value,
                                 std::int64_t minimum, std::int64_t maximum, const std::string& description) {
    declare({name,
             Kind::Integer,
             unit,
             description,
             default_value,
             static_cast<double>(minimum),
             static_cast<double>(maximum),
             {}});
}

void Parameters::declare_real(const std::string& name, const std::string& unit, double default_value, double minimum,
                              double maximum, const std::string& description) {
    declare({name, Kind::Real, unit, description, default_value, minimum, maximum, {}});
}

void Parameters::declare_choice(const std::string& name, const std::string& default_value,
                                const std::vector<std::string>& choices, const std::string& description) {
    declare({name, Kind::Choice, "", description, default_value, 0, 0, choices});
}

void Parameters::declare_text(const std::string& name, const std::string& default_value,
                              const std::string& description) {
    declare({name, Kind::Text, "", description, default_value, 0, 0, {}});
}

void Parameters::declare_flag(const std::string& name, bool default_value, const std::string& description) {
    declare({name, Kind::Flag, "", description, default_value, 0, 0, {}});
}

void Parameters::load_file(const std::string& path) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) throw ConfigError("config: " + path + " is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError("config: cannot open " + path);
    // At most one byte more than the limit is read: a device or pipe that
    // never ends (/dev/zero) is refused as promptly as a huge file.
    std::string text(kMaxConfigBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigBytes)
        throw ConfigError("config: " + path + " is larger than " + std::to_string(kMaxConfigBytes >> 20) +
                          " MiB (a platform file is a few KiB)");
    // The parser itself does not recurse; the depth is bounded as it reads,
    // before anything deep is built or walked.
    JsonKeyTracker keys;
    const nlohmann::json::parser_callback_t bounded = [&path, &keys](int depth, nlohmann::json::parse_event_t event,
                                                                     nlohmann::json& parsed) {
        if (depth > kMaxConfigDepth) throw ConfigError(too_deep(path));
        if (const auto key = keys.repeated(event, parsed))
            throw ConfigError("config: " + path + " gives the key '" + *key + "' twice in one object");
        return true;
    };
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text, bounded);  // the whole file: trailing content is an error too
    } catch (const nlohmann::json::exception& error) {    // parse errors, and numbers out of range (1e400)
        throw ConfigError("config: " + path + " is not valid JSON: " + plain_json_error(error.what()));
    }
    load_json(document, path);
}

std::string plain_json_error(const std::string& what) {
    if (what.rfind("[json.exception.", 0) != 0) return what;
    const std::size_t end = what.find("] ");
    return end == std::string::npos ? what : what.substr(end + 2);
}

void Parameters::load_json(const nlohmann::json& document, const std::string& origin) {
    if (!document.is_object()) throw ConfigError("config: " + origin + " must hold a JSON object at the top level");
    std::vector<std::pair<std::string, nlohmann::json>> values;
    flatten(document, "", 1, origin, values);
    // Nested and dotted forms of one name ({"router": {"vcs": 2}, "router.vcs": 4}).
    std::set<std::string> seen;
    for (const auto& [name, value] : values)
        if (!seen.insert(name).second)
            throw ConfigError("config: " + origin + " gives " + name + " twice (nested and as a dotted name)");
    for (const auto& [name, value] : values) assign(name, value, origin);
}

void Parameters::apply_override(std::string_view assignment) {
    const auto equals = assignment.find('=');
    if (equals == std::string_view::npos || equals == 0)
        throw ConfigError("config: --set expects key=value, got '" + std::string(assignment) + "'");
    assign_text(std::string(assignment.substr(0, equals)), std::string(assignment.substr(equals + 1)), "--set");
}

namespace {

/// Levenshtein distance of two short names (a typo is one or two edits).
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string block_of(const std::string& name) {
    return name.substr(0, name.find('.'));
}

}  // namespace

void Parameters::unknown(const std::string& name, const std::string& origin) const {
    // A near miss first (a typo), then the block's own parameters, or the
    // blocks when the block is unknown too: not all hundred names.
    std::vector<std::string> close, in_block;
    std::vector<std::string> blocks;
    for (const auto& [known, entry] : entries_) {
        if (edit_distance(name, known) <= 2) close.push_back(known);
        if (block_of(known) == block_of(name)) in_block.push_back(known);
        if (blocks.empty() || blocks.back() != block_of(known)) blocks.push_back(block_of(known));
    }
    const auto joined = [](const std::vector<std::string>& names, const char* separator) {
        std::string text;
        for (const std::string& n : names) text += (text.empty() ? "" : separator) + n;
        return text;
    };
    std::string message = "config: unknown parameter '" + name + "' (" + origin + ")";
    if (!close.empty()) message += "; did you mean " + joined(close, " or ") + "?";
    if (!in_block.empty())
        message += "; the " + block_of(name) + ".* parameters: " + joined(in_block, " ");
    else
        message += "; no block '" + block_of(name) + "': the blocks are " + joined(blocks, ", ");
    throw ConfigError(message);
}

void Parameters::assign(const std::string& name, const nlohmann::json& value, const std::string& origin) {
    const auto found = entries_.find(name);
    if (found == entries_.end()) unknown(name, origin);
    Entry& target = found->second;
    const Spec& spec = target.spec;
    switch (spec.kind) {
        case Kind::Integer: {
            if (!value.is_number_integer()) reject(spec, shown(value), origin);
            const auto number = value.get<std::int64_t>();
            if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
                reject(spec, shown(value), origin);
            // The bounds are held as doubles: compare there (INT64_MAX as a
            // double is 2^63, which does not convert back to an int64).
            const auto compared = static_cast<double>(number);
            if (compared < spec.minimum || compared > spec.maximum) reject(spec, shown(value), origin);
            target.value = number;
            break;
        }
        case Kind::Real: {
            if (!value.is_number()) reject(spec, shown(value), origin);
            const auto number = value.get<double>();
            if (!std::isfinite(number) || number < spec.minimum || number > spec.maximum)
                reject(spec, shown(value), origin);
            target.value = number;
            break;
        }
        case Kind::Choice: {
            if (!value.is_string()) reject(spec, shown(value), origin);
            const auto text = value.get<std::string>();
            if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
                reject(spec, "'" + text + "'", origin);
            target.value = text;
            break;
        }
        case Kind::Text:
            if (!value.is_string()) reject(spec, shown(value), origin);
            target.value = value;
            break;
        case Kind::Flag:
            if (!value.is_boolean()) reject(spec, shown(value), origin);
            target.value = value;
            break;
    }
}

void Parameters::assign_text(const std::string& name, const std::string& text, const std::string& origin) {
    const auto found = entries_.find(name);
    if (found == entries_.end()) unknown(name, origin);
    const Spec& spec = found->second.spec;
    const std::string shown = "'" + text + "'";
    switch (spec.kind) {
        case Kind::Integer: {
            std::int64_t number = 0;
            std::size_t used = 0;
            try {
                // Decimal, or hexadecimal with 0x; never octal ("010" is ten, as a user means it).
                const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
                number = std::stoll(text, &used, hex ? 16 : 10);
            } catch (const std::exception&) {
                reject(spec, shown, origin);
            }
            if (used != text.size()) reject(spec, shown, origin);
            assign(name, number, origin);
            break;
        }
        case Kind::Real: {
            double number = 0;
            std::size_t used = 0;
            try {
                number = std::stod(text, &used);
            } catch (const std::exception&) {
                reject(spec, shown, origin);
            }
            if (used != text.size() || !std::isfinite(number)) reject(spec, shown, origin);
            assign(name, number, origin);
            break;
        }
        case Kind::Flag: {
            if (text == "true" || text == "1" || text == "on" || text == "yes")
                assign(name, true, origin);
            else if (text == "false" || text == "0" || text == "off" || text == "no")
                assign(name, false, origin);
            else
                reject(spec, shown, origin);
            break;
        }
        case Kind::Choice:
        case Kind::Text:
            assign(name, text, origin);
            break;
    }
}

const Parameters::Entry& Parameters::entry(std::string_view name, Kind expected) const {
    const auto found = entries_.find(name);
    if (found == entries_.end()) throw std::logic_error("parameter not declared: " + std::string(name));
    const Kind kind = found->second.spec.kind;
    const bool textual = expected == Kind::Text && kind == Kind::Choice;
    if (kind != expected && !textual) throw std::logic_error("parameter read as the wrong kind: " + std::string(name));
    return found->second;
}

std::int64_t Parameters::integer(std::string_view name) const {
    return entry(name, Kind::Integer).value.get<std::int64_t>();
}
double Parameters::real(std::string_view name) const {
    return entry(name, Kind::Real).value.get<double>();
}
std::string Parameters::text(std::string_view name) const {
    return entry(name, Kind::Text).value.get<std::string>();
}
bool Parameters::flag(std::string_view name) const {
    return entry(name, Kind::Flag).value.get<bool>();
}

bool Parameters::is_declared(std::string_view name) const {
    return entries_.find(name) != entries_.end();
}

const std::vector<Parameters::Spec> Parameters::specs() const {
    std::vector<Spec> out;
    for (const auto& [name, entry] : entries_) out.push_back(entry.spec);
    return out;
}

void Parameters::describe(std::ostream& out) const {
    // Columns as wide as their longest entry, one space apart.
    auto value_of = [](const Entry& entry) {
        return entry.value.is_string() ? entry.value.get<std::string>() : entry.value.dump();
    };
    std::size_t name_width = 0, value_width = 0, unit_width = 0;
    for (const auto& [name, entry] : entries_) {
        name_width = std::max(name_width, name.size());
        value_width = std::max(value_width, value_of(entry).size());
        unit_width = std::max(unit_width, entry.spec.unit.size());
    }
    for (const auto& [name, entry] : entries_) {
        out << "  " << std::left << std::setw(static_cast<int>(name_width + 1)) << name
            << std::setw(static_cast<int>(value_width + 1)) << value_of(entry)
            << std::setw(static_cast<int>(unit_width + 1)) << entry.spec.unit << entry.spec.description << " ("
            << kind_phrase(entry.spec) << ")\n";
    }
}

nlohmann::json Parameters::to_json() const {
    nlohmann::json document = nlohmann::json::object();
    for (const auto& [name, entry] : entries_)
        document[nlohmann::json::json_pointer("/" + [&] {
            std::string path = name;
            std::replace(path.begin(), path.end(), '.', '/');
            return path;
        }())] = entry.value;
    return document;
}

}  // namespace isvp
