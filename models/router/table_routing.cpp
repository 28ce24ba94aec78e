#include "isvp/table_routing.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <numeric>

#include "isvp/parameters.h"

namespace isvp {

namespace {

constexpr std::uint16_t kNoPort = std::numeric_limits<std::uint16_t>::max();
constexpr unsigned kUnreached = std::numeric_limits<unsigned>::max();
constexpr std::string_view kUpDown = "updown";
constexpr std::string_view kShortest = "shortest";

/// Whether switch `a` is above switch `b` in the up*/down* order.
bool is_above(const NetworkTopology& topology, unsigned a, unsigned b) {
    const unsigned level_a = topology.switch_at(a).level;
    const unsigned level_b = topology.switch_at(b).level;
    return level_a > level_b || (level_a == level_b && a < b);
}

/// The d-mod-k divisor per switch: the product of the largest up-degrees of
/// the levels below its own (see table_routing.h).
std::vector<std::uint64_t> tie_divisors(const NetworkTopology& topology) {
    std::vector<unsigned> levels;  // distinct levels, lowest first
    for (unsigned s = 0; s < topology.switches(); ++s) levels.push_back(topology.switch_at(s).level);
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    std::vector<std::size_t> rank(topology.switches());  // index of each switch's level in `levels`
    std::vector<std::uint64_t> up_degree(levels.size(), 1);
    for (unsigned s = 0; s < topology.switches(); ++s) {
        rank[s] = std::lower_bound(levels.begin(), levels.end(), topology.switch_at(s).level) - levels.begin();
        std::uint64_t up = 0;
        for (unsigned port = 0; port < topology.switch_at(s).ports; ++port) {
            const PortPeer& peer = topology.peer(s, port);
            up += peer.kind == PortPeer::Kind::Switch && is_above(topology, peer.index, s);
        }
        up_degree[rank[s]] = std::max(up_degree[rank[s]], up);
    }
    std::vector<std::uint64_t> divisor_of_rank(levels.size(), 1);
    for (std::size_t r = 1; r < levels.size(); ++r)  // capped: past 2^16 hosts a larger divisor changes nothing
        divisor_of_rank[r] = std::min<std::uint64_t>(divisor_of_rank[r - 1] * up_degree[r - 1], 1u << 20);
    std::vector<std::uint64_t> divisors;
    for (unsigned s = 0; s < topology.switches(); ++s) divisors.push_back(divisor_of_rank[rank[s]]);
    return divisors;
}

/// A cable from a switch to another, as seen from the first.
struct SwitchLink {
    std::uint16_t port;  ///< the switch's port
    unsigned peer;       ///< the switch at the far end
    bool up;             ///< the far switch is above this one (up*/down*)
};

/// Every switch's cables to other switches, in port order: what the table
/// computation walks once per target switch, without asking the topology
/// for each port's peer and both levels again.
std::vector<std::vector<SwitchLink>> switch_links(const NetworkTopology& topology) {
    std::vector<std::vector<SwitchLink>> links(topology.switches());
    for (unsigned s = 0; s < topology.switches(); ++s)
        for (unsigned port = 0; port < topology.switch_at(s).ports; ++port) {
            const PortPeer& peer = topology.peer(s, port);
            if (peer.kind == PortPeer::Kind::Switch)
                links[s].push_back({static_cast<std::uint16_t>(port), peer.index, is_above(topology, peer.index, s)});
        }
    return links;
}

/// Fewest cables from every switch to `target`, using only cables for
/// which `allowed(link)` holds, `link` seen from the switch the hop ends at.
template <typename Allowed>
std::vector<unsigned> distances_to(const std::vector<std::vector<SwitchLink>>& links, unsigned target,
                                   Allowed allowed) {
    std::vector<unsigned> distance(links.size(), kUnreached);
    std::deque<unsigned> frontier{target};
    distance[target] = 0;
    while (!frontier.empty()) {
        const unsigned to = frontier.front();
        frontier.pop_front();
        for (const SwitchLink& link : links[to]) {
            if (distance[link.peer] != kUnreached || !allowed(link)) continue;
            distance[link.peer] = distance[to] + 1;
            frontier.push_back(link.peer);
        }
    }
    return distance;
}

}  // namespace

std::vector<std::string> table_routing_names() {
    return {std::string(kUpDown), std::string(kShortest)};
}

TableRouting::TableRouting(const NetworkTopology& topology, const std::string& algorithm, unsigned vcs)
    : algorithm_(algorithm) {
    if (algorithm != kUpDown && algorithm != kShortest)
        throw ConfigError("config: topology.routing must be one of updown, shortest, got '" + algorithm + "'");
    const bool updown = algorithm == kUpDown;
    const unsigned switches = topology.switches();
    for (unsigned s = 0; s < switches; ++s) {
        const unsigned radix = topology.switch_at(s).ports;
        if (radix >= kNoPort)
            throw ConfigError("config: topology " + topology.description() + ": switch " + topology.switch_at(s).name +
                              " has " + std::to_string(radix) + " ports, routing tables hold at most 65534");
        ports_.push_back(radix);
        host_ports_.emplace_back(radix);
        if (updown) from_above_.emplace_back(radix);
        for (unsigned port = 0; port < radix; ++port) {
            const PortPeer& peer = topology.peer(s, port);
            host_ports_[s][port] = peer.kind == PortPeer::Kind::Host;
            if (updown) from_above_[s][port] = peer.kind == PortPeer::Kind::Switch && is_above(topology, peer.index, s);
        }
    }
    next_port_.assign(switches, std::vector<std::uint16_t>(topology.hosts(), kNoPort));
    if (updown) down_port_ = next_port_;

    // Switches from the top of the up*/down* order down: a climbing route's
    // length at a switch depends on those of the switches above it.
    std::vector<unsigned> top_down(switches);
    std::iota(top_down.begin(), top_down.end(), 0u);
    std::sort(top_down.begin(), top_down.end(), [&](unsigned a, unsigned b) { return is_above(topology, a, b); });
    const std::vector<std::uint64_t> divisors = tie_divisors(topology);

    std::vector<std::vector<unsigned>> hosts_on(switches);
    for (unsigned h = 0; h < topology.hosts(); ++h) hosts_on[topology.host(h).switch_index].push_back(h);
    const std::vector<std::vector<SwitchLink>> links = switch_links(topology);

    std::vector<std::uint16_t> climbing, descending;  // per switch and target, reused
    for (unsigned target = 0; target < switches; ++target) {
        if (hosts_on[target].empty()) continue;
        // down[s]: all-down route length; climb[s]: shortest legal route
        // while climbing is still allowed (updown); shortest: both BFS.
        std::vector<unsigned> down, climb;
        if (updown) {
            // A hop from the far switch down to this one.
            down = distances_to(links, target, [](const SwitchLink& link) { return link.up; });
            climb = down;
            for (unsigned s : top_down)
                for (const SwitchLink& link : links[s])
                    if (link.up && climb[link.peer] != kUnreached) climb[s] = std::min(climb[s], climb[link.peer] + 1);
        } else {
            climb = distances_to(links, target, [](const SwitchLink&) { return true; });
        }

        const auto only_engines = [&](unsigned sw) {
            return std::all_of(hosts_on[sw].begin(), hosts_on[sw].end(),
                               [&](unsigned h) { return topology.is_engine(h); });
        };
        for (unsigned s = 0; s < switches; ++s) {
            // Switch engines need routes to and from hosts and along the
            // tree, not between two top switches (spine to spine): those
            // pairs stay without a route (kNoPort: the router drops).
            if (climb[s] == kUnreached && only_engines(s) && only_engines(target)) continue;
            if (climb[s] == kUnreached)
                throw ConfigError("config: topology " + topology.description() + ": topology.routing=" + algorithm +
                                  " finds no route from switch " + topology.switch_at(s).name + " to switch " +
                                  topology.switch_at(target).name +
                                  " (up*/down* needs every switch to reach a common higher switch: check the levels)");
            // Candidate ports of equal, shortest length, in port order.
            climbing.clear();
            descending.clear();
            if (s != target)
                for (const SwitchLink& link : links[s]) {
                    const bool goes_up = updown && link.up;
                    // Under updown a step down commits the packet to an all-down route.
                    const unsigned after = updown && !goes_up ? down[link.peer] : climb[link.peer];
                    if (after != kUnreached && after + 1 == climb[s]) climbing.push_back(link.port);
                    if (updown && !goes_up && down[s] != kUnreached && down[link.peer] + 1 == down[s])
                        descending.push_back(link.port);
                }
            for (unsigned h : hosts_on[target]) {
                auto pick = [&](const std::vector<std::uint16_t>& candidates) {
                    if (s == target) return static_cast<std::uint16_t>(topology.host(h).port);
                    if (candidates.empty()) return kNoPort;
                    return candidates[(h / divisors[s]) % candidates.size()];
                };
                next_port_[s][h] = pick(climbing);
                if (updown) down_port_[s][h] = pick(descending);
            }
        }
    }

    if (!updown) {
        const std::string problem = check_routes(topology, *this, vcs);
        if (!problem.empty())
            throw ConfigError("config: topology " + topology.description() +
                              ": topology.routing=shortest can deadlock here (" + problem +
                              "); use topology.routing=updown");
    }
}

unsigned TableRouting::ports(std::uint32_t node) const {
    return node < ports_.size() ? ports_[node] : 0;
}

bool TableRouting::is_host_port(std::uint32_t node, unsigned port) const {
    return node < host_ports_.size() && port < host_ports_[node].size() && host_ports_[node][port];
}

std::optional<RouteDecision> TableRouting::route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                                 std::uint32_t destination) const {
    if (node >= next_port_.size() || destination >= next_port_[node].size()) return std::nullopt;
    std::uint16_t port = next_port_[node][destination];
    // A packet that came down from a higher switch may not climb again. Every
    // packet routed by these tables finds a down route there; anything else
    // (it cannot happen) falls back to the climbing table.
    if (!from_above_.empty() && in_port < from_above_[node].size() && from_above_[node][in_port] &&
        down_port_[node][destination] != kNoPort)
        port = down_port_[node][destination];
    if (port == kNoPort) return std::nullopt;
    return RouteDecision{port, host_ports_[node][port] ? 0u : in_vc};
}

// Routing policies are stateless functions of (switch, input port, input VC,
// destination), and an input port with its VC is the output channel of the
// switch behind it. So per destination each channel leads to one next
// channel: walking every source once per destination, and never a channel
// twice, finds every dependency in O(sources x channels). A source is a
// host, or with host_ports_route_alike() a switch: its hosts' routes are one
// route from their first hop on, so one walk per switch and destination
// stands for all of them — O(switches x hosts) route() calls in all, where
// one walk per host pair made O(hosts^2) (9 s at 16,384 fat-tree hosts).
std::string check_routes(const NetworkTopology& topology, const RoutingPolicy& policy, unsigned vcs) {
    const unsigned switches = topology.switches();
    const unsigned hosts = topology.hosts();
    std::vector<std::uint32_t> base(switches + 1, 0);  // channel = base[s] + port * vcs + vc
    for (unsigned s = 0; s < switches; ++s) base[s + 1] = base[s] + topology.switch_at(s).ports * vcs;
    const std::uint32_t channels = base[switches];
    auto label = [&](std::uint32_t channel) {
        const unsigned s =
            static_cast<unsigned>(std::upper_bound(base.begin(), base.end(), channel) - base.begin() - 1);
        const unsigned offset = channel - base[s];
        return topology.port_label(s, offset / vcs) + " vc " + std::to_string(offset % vcs);
    };

    // Groups of hosts whose routes to any destination are one walk, by
    // their lowest host: every host alone, or (alike) the hosts of a switch
    // together. A switch engine walks alone all the same: it alone may lack
    // a route (to another engine) that the switch's hosts must have.
    std::vector<std::vector<unsigned>> groups;
    {
        const bool alike = policy.host_ports_route_alike();
        std::vector<unsigned> group_of_switch(switches, kUnreached);
        for (unsigned h = 0; h < hosts; ++h) {
            const unsigned s = topology.host(h).switch_index;
            if (!alike || topology.is_engine(h)) {
                groups.push_back({h});
            } else if (group_of_switch[s] == kUnreached) {
                group_of_switch[s] = static_cast<unsigned>(groups.size());
                groups.push_back({h});
            } else {
                groups[group_of_switch[s]].push_back(h);
            }
        }
    }

    std::vector<std::vector<std::uint32_t>> depends(channels);
    std::vector<std::uint32_t> seen_for(channels, kUnreached);  // destination whose walk reached the channel
    std::vector<unsigned> hops_left(channels, kUnreached);      // cables from the channel's far end; unset: on path
    std::vector<std::uint32_t> path;
    // Follows the route from host a to host d; returns what is wrong with
    // it, or an empty string.
    const auto walk = [&](unsigned a, unsigned d) -> std::string {
        const auto pair = [&] {
            return "host " + std::to_string(a) + " cannot reach host " + std::to_string(d) + ": ";
        };
        unsigned node = topology.host(a).switch_index;
        unsigned in_port = topology.host(a).port;
        unsigned in_vc = 0;
        path.clear();
        unsigned tail_hops = 0;  // cables beyond the end of `path`
        for (;;) {
            const auto decision = policy.route(node, in_port, in_vc, d);
            // Switch engines need no route to each other (TableRouting).
            if (!decision && topology.is_engine(a) && topology.is_engine(d)) {
                // Its channels lead nowhere for d: later walks must follow them again.
                for (const std::uint32_t channel : path) seen_for[channel] = kUnreached;
                return "";
            }
            if (!decision) return pair() + topology.switch_at(node).name + " has no route for it";
            if (decision->port >= topology.switch_at(node).ports)
                return pair() + topology.switch_at(node).name + " sends it to port " + std::to_string(decision->port) +
                       ", beyond its " + std::to_string(topology.switch_at(node).ports) + " ports";
            const PortPeer& peer = topology.peer(node, decision->port);
            if (peer.kind == PortPeer::Kind::None)
                return pair() + topology.port_label(node, decision->port) + " has nothing attached";
            if (peer.kind == PortPeer::Kind::Host) {
                if (peer.index != d)
                    return pair() + topology.port_label(node, decision->port) + " delivers it to host " +
                           std::to_string(peer.index);
                break;
            }
            if (decision->vc >= vcs)
                return pair() + topology.port_label(node, decision->port) + " sends it on VC " +
                       std::to_string(decision->vc) + ", the routers have " + std::to_string(vcs);
            const std::uint32_t channel = base[node] + decision->port * vcs + decision->vc;
            if (!path.empty()) depends[path.back()].push_back(channel);
            if (seen_for[channel] == d) {
                if (hops_left[channel] == kUnreached) return pair() + "it loops through " + label(channel);
                tail_hops = hops_left[channel] + 1;
                break;
            }
            seen_for[channel] = d;
            hops_left[channel] = kUnreached;
            path.push_back(channel);
            node = peer.index;
            in_port = peer.port;
            in_vc = decision->vc;
        }
        for (auto channel = path.rbegin(); channel != path.rend(); ++channel) hops_left[*channel] = tail_hops++;
        if (tail_hops > switches)
            return pair() + "its route crosses " + std::to_string(tail_hops) + " cables, more than the " +
                   std::to_string(switches) + " switches";
        return "";
    };

    // Per destination, the groups in the order of the host that walks for
    // each (its lowest one but the destination): the first problem found is
    // that of the lowest source host, as when every pair was walked in order.
    std::vector<unsigned> group_of_host(hosts);
    for (unsigned g = 0; g < groups.size(); ++g)
        for (const unsigned h : groups[g]) group_of_host[h] = g;
    for (unsigned d = 0; d < hosts; ++d) {
        const unsigned own = group_of_host[d];
        const std::vector<unsigned>& own_hosts = groups[own];
        // The destination's own group walks from its next host, if it has one.
        const bool own_moves = own_hosts.front() == d;
        const unsigned own_start = own_moves && own_hosts.size() > 1 ? own_hosts[1] : kUnreached;
        bool own_walked = own_start == kUnreached;
        for (unsigned g = 0; g < groups.size(); ++g) {
            if (!own_walked && own_start < groups[g].front()) {
                own_walked = true;
                if (std::string problem = walk(own_start, d); !problem.empty()) return problem;
            }
            if (g == own && own_moves) continue;
            if (std::string problem = walk(groups[g].front(), d); !problem.empty()) return problem;
        }
        if (!own_walked)
            if (std::string problem = walk(own_start, d); !problem.empty()) return problem;
    }

    // Depth-first search for a cycle in the channel dependency graph.
    for (auto& next : depends) {
        std::sort(next.begin(), next.end());
        next.erase(std::unique(next.begin(), next.end()), next.end());
    }
    enum : std::uint8_t { kNew, kOpen, kDone };
    std::vector<std::uint8_t> state(channels, kNew);
    std::vector<std::pair<std::uint32_t, std::size_t>> stack;  // channel, next dependency to follow
    for (std::uint32_t root = 0; root < channels; ++root) {
        if (state[root] != kNew) continue;
        stack.emplace_back(root, 0);
        state[root] = kOpen;
        while (!stack.empty()) {
            auto& [channel, next] = stack.back();
            if (next == depends[channel].size()) {
                state[channel] = kDone;
                stack.pop_back();
                continue;
            }
            const std::uint32_t successor = depends[channel][next++];
            if (state[successor] == kOpen) {
                std::string cycle = "dependency cycle: ";
                auto first = std::find_if(stack.begin(), stack.end(),
                                          [&](const auto& entry) { return entry.first == successor; });
                for (auto entry = first; entry != stack.end(); ++entry) cycle += label(entry->first) + " -> ";
                return cycle + label(successor);
            }
            if (state[successor] == kNew) {
                state[successor] = kOpen;
                stack.emplace_back(successor, 0);
            }
        }
    }
    return "";
}

}  // namespace isvp
