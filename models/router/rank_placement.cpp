#include "isvp/rank_placement.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include "isvp/parameters.h"

namespace isvp {

namespace {

/// Hosts that may run a rank: every endpoint but the switch engines.
unsigned rank_hosts(const NetworkTopology& topology) {
    return topology.hosts() - topology.engines();
}

void check_fits(unsigned ranks, const NetworkTopology& topology, const std::string& what) {
    if (ranks > rank_hosts(topology))
        throw ConfigError(what + ": " + std::to_string(ranks) + " ranks do not fit the " +
                          std::to_string(rank_hosts(topology)) + " hosts of " + topology.description() +
                          " (one rank per host)");
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

/// A whole decimal number, or nothing.
std::optional<unsigned> number(std::string_view text) {
    unsigned value = 0;
    if (text.empty() || text.size() > 9) return std::nullopt;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

RankPlacement RankPlacement::map_by(std::string_view policy, unsigned ranks, const NetworkTopology& topology,
                                    const std::string& option) {
    check_fits(ranks, topology, option + " " + std::string(policy));
    if (policy == "host") return {};
    if (policy != "switch")
        throw ConfigError(option + ": '" + std::string(policy) +
                          "' is not a placement (host: rank r on host r, the default; switch: round-robin over "
                          "the switches that have hosts)");
    std::vector<std::vector<unsigned>> by_switch;
    for (unsigned s = 0; s < topology.switches(); ++s) {
        std::vector<unsigned> hosts;
        for (const unsigned h : topology.hosts_on(s))
            if (h < rank_hosts(topology)) hosts.push_back(h);
        if (!hosts.empty()) by_switch.push_back(std::move(hosts));
    }
    RankPlacement placement;
    for (std::size_t turn = 0; placement.nodes.size() < ranks; ++turn)
        for (const auto& hosts : by_switch)
            if (turn < hosts.size() && placement.nodes.size() < ranks)
                placement.nodes.push_back(static_cast<std::uint16_t>(hosts[turn]));
    bool identity = true;
    for (unsigned r = 0; r < ranks; ++r) identity = identity && placement.nodes[r] == r;
    if (identity) placement.nodes.clear();
    return placement;
}

RankPlacement RankPlacement::from_rankfile(std::string_view text, unsigned ranks, const NetworkTopology& topology,
                                           const std::string& source) {
    check_fits(ranks, topology, source);
    const unsigned hosts = rank_hosts(topology);
    constexpr unsigned kUnset = ~0u;
    std::vector<unsigned> node_of(ranks, kUnset);
    std::vector<unsigned> line_of_node(hosts, 0);
    unsigned line_number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        ++line_number;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        line = trim(line);
        if (line.empty()) continue;
        const std::string at = source + " line " + std::to_string(line_number) + ": ";
        const auto malformed = [&] {
            return ConfigError(at + "'" + std::string(line) + "' is not 'rank R=nodeK [slot=0]' (or R=+nK)");
        };
        if (line.substr(0, 4) != "rank" || line.size() < 5 || !std::isspace(static_cast<unsigned char>(line[4])))
            throw malformed();
        std::string_view rest = trim(line.substr(5));
        const std::size_t equals = rest.find('=');
        if (equals == std::string_view::npos) throw malformed();
        const auto rank = number(trim(rest.substr(0, equals)));
        rest = trim(rest.substr(equals + 1));
        const std::size_t space = rest.find_first_of(" \t");
        const std::string_view host = rest.substr(0, space);
        const std::string_view slot = space == std::string_view::npos ? std::string_view{} : trim(rest.substr(space));
        if (!rank) throw malformed();
        std::optional<unsigned> node;
        if (host.substr(0, 4) == "node")
            node = number(host.substr(4));
        else if (host.substr(0, 2) == "+n")
            node = number(host.substr(2));
        if (!node)
            throw ConfigError(at + "host '" + std::string(host) + "' is not nodeK or +nK (hosts are node0..node" +
                              std::to_string(hosts - 1) + ")");
        if (!slot.empty() && slot != "slot=0")
            throw ConfigError(at + "'" + std::string(slot) + "': a node runs one rank, so its only slot is slot=0");
        if (*rank >= ranks)
            throw ConfigError(at + "rank " + std::to_string(*rank) + " is not a rank of this job (" +
                              std::to_string(ranks) + " ranks: 0.." + std::to_string(ranks - 1) + ")");
        if (*node >= hosts)
            throw ConfigError(at + "node " + std::to_string(*node) + " is not a host of " + topology.description() +
                              " (node0..node" + std::to_string(hosts - 1) + ")");
        if (node_of[*rank] != kUnset) throw ConfigError(at + "rank " + std::to_string(*rank) + " is placed twice");
        if (line_of_node[*node] != 0)
            throw ConfigError(at + "node " + std::to_string(*node) + " already runs a rank (line " +
                              std::to_string(line_of_node[*node]) + "); a node runs one rank");
        node_of[*rank] = *node;
        line_of_node[*node] = line_number;
    }
    RankPlacement placement;
    bool identity = true;
    for (unsigned r = 0; r < ranks; ++r) {
        if (node_of[r] == kUnset)
            throw ConfigError(source + ": rank " + std::to_string(r) + " has no line (every rank 0.." +
                              std::to_string(ranks - 1) + " needs one)");
        placement.nodes.push_back(static_cast<std::uint16_t>(node_of[r]));
        identity = identity && node_of[r] == r;
    }
    if (identity) placement.nodes.clear();
    return placement;
}

std::string RankPlacement::describe(unsigned shown) const {
    if (nodes.empty()) return "rank r on node r";
    std::ostringstream text;
    text << "ranks on nodes ";
    for (std::size_t r = 0; r < nodes.size() && r < shown; ++r) text << (r ? "," : "") << nodes[r];
    if (nodes.size() > shown) text << ",...";
    return text.str();
}

}  // namespace isvp
