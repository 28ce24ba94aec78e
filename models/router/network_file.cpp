// Topology files: the JSON form of a NetworkTopology (format in
// models/router/README.md, "Topology files").
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "isvp/network_topology.h"
#include "isvp/parameters.h"

namespace isvp {

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;  // a large graph is a few MiB
constexpr std::int64_t kMaxPorts = std::numeric_limits<std::uint16_t>::max() - 1;
constexpr std::int64_t kMaxLevel = 1 << 16;
// A topology file nests three levels (links[i].from); far deeper is a
// hostile or broken file, refused while it is read (writing a deep value
// into a message would exhaust the stack).
constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxShown = 80;  // characters of a bad value quoted in a message

/// `value` as a message quotes it: its JSON, cut short.
std::string shown(const nlohmann::json& value) {
    std::string text = value.dump();
    if (text.size() > kMaxShown) text = text.substr(0, kMaxShown - 3) + "...";
    return text;
}

/// Reads one document, naming `origin` and the JSON path in every error.
class TopologyReader {
  public:
    explicit TopologyReader(std::string origin) : prefix_("config: topology " + std::move(origin) + ": ") {}

    [[noreturn]] void refuse(const std::string& what) const { throw ConfigError(prefix_ + what); }

    /// The object at `path`, whose keys must all be in `known`.
    const nlohmann::json& object(const nlohmann::json& value, const std::string& path,
                                 std::initializer_list<const char*> known) const {
        if (!value.is_object()) refuse(path + " must be an object, got " + shown(value));
        for (const auto& [key, ignored] : value.items()) {
            bool accepted = false;
            std::string list;
            for (const char* name : known) {
                accepted = accepted || key == name;
                list += (list.empty() ? "" : ", ") + std::string(name);
            }
            if (!accepted) refuse(path + ": unknown key '" + key + "' (accepted: " + list + ")");
        }
        return value;
    }

    const nlohmann::json& array(const nlohmann::json& parent, const std::string& key) const {
        if (!parent.contains(key)) refuse("missing key '" + key + "' (an array)");
        const nlohmann::json& value = parent.at(key);
        if (!value.is_array()) refuse(key + " must be an array, got " + shown(value));
        return value;
    }

    std::int64_t integer(const nlohmann::json& parent, const std::string& path, const char* key, std::int64_t minimum,
                         std::int64_t maximum) const {
        if (!parent.contains(key)) refuse(path + ": missing key '" + key + "'");
        const nlohmann::json& value = parent.at(key);
        if (!value.is_number_integer() || value.get<std::int64_t>() < minimum || value.get<std::int64_t>() > maximum)
            refuse(path + "." + key + " must be an integer in [" + std::to_string(minimum) + ", " +
                   std::to_string(maximum) + "], got " + shown(value));
        return value.get<std::int64_t>();
    }

    /// An optional positive number; `absent` when the key is missing.
    double number(const nlohmann::json& parent, const std::string& path, const char* key, double absent,
                  bool zero_allowed) const {
        if (!parent.contains(key)) return absent;
        const nlohmann::json& value = parent.at(key);
        if (!value.is_number() || value.get<double>() < 0 || (!zero_allowed && value.get<double>() == 0))
            refuse(path + "." + key + " must be a " + (zero_allowed ? "non-negative" : "positive") + " number, got " +
                   shown(value));
        return value.get<double>();
    }

    std::string text(const nlohmann::json& parent, const std::string& path, const char* key) const {
        if (!parent.contains(key)) refuse(path + ": missing key '" + key + "'");
        const nlohmann::json& value = parent.at(key);
        if (!value.is_string() || value.get<std::string>().empty())
            refuse(path + "." + key + " must be a non-empty string, got " + shown(value));
        return value.get<std::string>();
    }

  private:
    std::string prefix_;  ///< "config: topology ORIGIN: "
};

}  // namespace

NetworkTopology network_from_json(const std::string& json_text, const std::string& origin) {
    const TopologyReader reader(origin);
    nlohmann::json document;
    JsonKeyTracker keys;
    const nlohmann::json::parser_callback_t bounded = [&reader, &keys](int depth, nlohmann::json::parse_event_t event,
                                                                       nlohmann::json& parsed) {
        if (depth > kMaxDepth)
            reader.refuse("nests objects or arrays more than " + std::to_string(kMaxDepth) +
                          " levels deep (a topology file has three: links[i].from)");
        if (const auto key = keys.repeated(event, parsed))
            reader.refuse("the key '" + *key + "' is given twice in one object");
        return true;
    };
    try {
        document = nlohmann::json::parse(json_text, bounded);
    } catch (const nlohmann::json::exception& error) {
        reader.refuse("not valid JSON: " + plain_json_error(error.what()));
    }
    reader.object(document, "the document", {"comment", "switches", "links", "hosts"});

    std::vector<TopologySwitch> switches;
    std::map<std::string, unsigned, std::less<>> by_name;
    std::string first_without_level, first_with_level;
    const nlohmann::json& switch_list = reader.array(document, "switches");
    for (std::size_t i = 0; i < switch_list.size(); ++i) {
        const std::string path = "switches[" + std::to_string(i) + "]";
        const nlohmann::json& entry = reader.object(switch_list[i], path, {"name", "ports", "level"});
        TopologySwitch node;
        node.name = reader.text(entry, path, "name");
        node.ports = static_cast<unsigned>(reader.integer(entry, path, "ports", 1, kMaxPorts));
        const std::string label = path + " ('" + node.name + "')";
        if (entry.contains("level")) {
            node.level = static_cast<unsigned>(reader.integer(entry, path, "level", 0, kMaxLevel));
            if (first_with_level.empty()) first_with_level = label;
        } else if (first_without_level.empty()) {
            first_without_level = label;
        }
        if (!by_name.emplace(node.name, static_cast<unsigned>(i)).second)
            reader.refuse(label + ": switch name '" + node.name + "' is used twice");
        switches.push_back(node);
    }
    if (!first_with_level.empty() && !first_without_level.empty())
        reader.refuse(first_without_level + " has no level but " + first_with_level +
                      " has one: give a level to every switch or to none");

    auto switch_named = [&](const nlohmann::json& entry, const std::string& path, const char* key) {
        const std::string name = reader.text(entry, path, key);
        const auto found = by_name.find(name);
        if (found == by_name.end()) reader.refuse(path + "." + key + ": no switch is named '" + name + "'");
        return found->second;
    };

    std::vector<TopologyCable> cables;
    const nlohmann::json& link_list = reader.array(document, "links");
    for (std::size_t i = 0; i < link_list.size(); ++i) {
        const std::string path = "links[" + std::to_string(i) + "]";
        const nlohmann::json& entry =
            reader.object(link_list[i], path, {"from", "from_port", "to", "to_port", "latency_ns", "bandwidth_gbps"});
        TopologyCable cable;
        cable.a = switch_named(entry, path, "from");
        cable.a_port = static_cast<unsigned>(reader.integer(entry, path, "from_port", 0, kMaxPorts));
        cable.b = switch_named(entry, path, "to");
        cable.b_port = static_cast<unsigned>(reader.integer(entry, path, "to_port", 0, kMaxPorts));
        cable.latency_ns = reader.number(entry, path, "latency_ns", -1, true);
        cable.bandwidth_gbps = reader.number(entry, path, "bandwidth_gbps", -1, false);
        cables.push_back(cable);
    }

    std::vector<HostPort> hosts;
    const nlohmann::json& host_list = reader.array(document, "hosts");
    for (std::size_t i = 0; i < host_list.size(); ++i) {
        const std::string path = "hosts[" + std::to_string(i) + "]";
        const nlohmann::json& entry = reader.object(host_list[i], path, {"switch", "port"});
        HostPort host;
        host.switch_index = switch_named(entry, path, "switch");
        host.port = static_cast<unsigned>(reader.integer(entry, path, "port", 0, kMaxPorts));
        hosts.push_back(host);
    }

    // No levels given: breadth-first from switch 0, the root, which gets the
    // highest level; a switch one cable further down gets one less.
    if (first_with_level.empty() && !switches.empty()) {
        std::vector<unsigned> depth(switches.size(), 0);
        std::vector<bool> reached(switches.size(), false);
        std::deque<unsigned> frontier{0};
        reached[0] = true;
        unsigned deepest = 0;
        while (!frontier.empty()) {
            const unsigned s = frontier.front();
            frontier.pop_front();
            deepest = std::max(deepest, depth[s]);
            for (const TopologyCable& cable : cables)
                for (const auto& [from, to] : {std::pair{cable.a, cable.b}, std::pair{cable.b, cable.a}})
                    if (from == s && to < switches.size() && !reached[to]) {
                        reached[to] = true;
                        depth[to] = depth[s] + 1;
                        frontier.push_back(to);
                    }
        }
        // An unreached switch keeps level 0; the topology refuses it as disconnected.
        for (unsigned s = 0; s < switches.size(); ++s) switches[s].level = reached[s] ? deepest - depth[s] : 0;
    }

    return NetworkTopology("file", origin, std::move(switches), std::move(cables), std::move(hosts));
}

std::string network_to_json(const NetworkTopology& topology) {
    nlohmann::json switches = nlohmann::json::array(), links = nlohmann::json::array(), hosts = nlohmann::json::array();
    for (unsigned s = 0; s < topology.switches(); ++s) {
        const TopologySwitch& node = topology.switch_at(s);
        switches.push_back({{"name", node.name}, {"ports", node.ports}, {"level", node.level}});
    }
    for (const TopologyCable& cable : topology.cables()) {
        nlohmann::json link = {{"from", topology.switch_at(cable.a).name},
                               {"from_port", cable.a_port},
                               {"to", topology.switch_at(cable.b).name},
                               {"to_port", cable.b_port}};
        if (cable.latency_ns >= 0) link["latency_ns"] = cable.latency_ns;
        if (cable.bandwidth_gbps > 0) link["bandwidth_gbps"] = cable.bandwidth_gbps;
        links.push_back(link);
    }
    for (unsigned h = 0; h < topology.hosts(); ++h)
        hosts.push_back(
            {{"switch", topology.switch_at(topology.host(h).switch_index).name}, {"port", topology.host(h).port}});
    const nlohmann::json document = {
        {"comment", "topology " + topology.description()}, {"switches", switches}, {"links", links}, {"hosts", hosts}};
    return document.dump(1) + "\n";
}

NetworkTopology load_network_file(const std::string& path) {
    const std::string origin = "file:" + path;
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw ConfigError("config: topology " + origin + ": is a directory, not a JSON file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError("config: topology " + origin + ": cannot open the file");
    std::string text(kMaxFileBytes + 1, '\0');  // reads at most one byte past the limit
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes)
        throw ConfigError("config: topology " + origin + ": is larger than 16 MiB (a topology is a few KiB)");
    return network_from_json(text, origin);
}

}  // namespace isvp
