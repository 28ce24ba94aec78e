// Routing over any NetworkTopology from per-switch tables computed at
// start-up (topology.routing), for the fat tree and topology files; the
// torus keeps its own policies (router.routing). No SystemC.
//
//   updown    up*/down* routing (Autonet): a link is "up" toward a higher
//             TopologySwitch::level (ties: toward the lower switch index);
//             a route goes up zero or more times, then down, never up
//             after down. Deadlock-free on any connected graph with one VC:
//             the up channels, ordered by the switch they lead to, and the
//             down channels, ordered likewise, each form an acyclic order,
//             and a dependency only ever goes up -> up, up -> down or
//             down -> down, never down -> up. A packet that came in from a
//             higher switch is going down, so a switch holds two tables:
//             one for packets that may still climb (from a host or a lower
//             switch: the shortest legal route) and one for packets on
//             their way down (the shortest all-down route).
//   shortest  minimal paths (BFS), one table; accepted only when the
//             channel dependency graph over all routes has no cycle (a
//             ring of switches has one), else refused naming the cycle.
//
// Ties among equally short next hops are broken by destination (d-mod-k):
// at a switch of the k-th lowest level the choice is (d / m) mod n, where n
// is the number of candidates and m the product of the largest up-degrees
// of the levels below, so a fat tree spreads destinations over spines (and
// over core switches independently of the aggregation switch chosen).
// Packets to a host leave on VC 0 (the NIC's receive side has one VC);
// between switches a packet keeps its VC — the one it was injected on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "isvp/network_topology.h"
#include "isvp/routing_policy.h"

namespace isvp {

class TableRouting final : public RoutingPolicy {
  public:
    /// Builds the tables; `algorithm` is "updown" or "shortest"; throws
    /// ConfigError naming topology.routing for an unknown name, or the
    /// switches and ports of a dependency cycle ("shortest" on a graph
    /// where minimal routes can deadlock).
    TableRouting(const NetworkTopology& topology, const std::string& algorithm, unsigned vcs);

    std::string_view name() const override { return algorithm_; }
    unsigned ports(std::uint32_t node) const override;
    bool is_host_port(std::uint32_t node, unsigned port) const override;
    std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                       std::uint32_t destination) const override;
    /// A host port never counts as from above: its packets take the
    /// climbing table, whichever host sent them.
    bool host_ports_route_alike() const override { return true; }

    /// The output port a packet for host `destination` injected at switch
    /// `node` takes (the climbing table); what collective forwarding
    /// tables can be filled from.
    unsigned table_port(std::uint32_t node, std::uint32_t destination) const {
        return next_port_.at(node).at(destination);
    }

  private:
    std::string algorithm_;                      ///< updown or shortest
    std::vector<unsigned> ports_;                ///< radix per switch
    std::vector<std::vector<bool>> host_ports_;  ///< [switch][port]: a host is attached
    /// [switch][port]: a packet coming in here came down from a higher
    /// switch (updown only; empty for shortest).
    std::vector<std::vector<bool>> from_above_;
    std::vector<std::vector<std::uint16_t>> next_port_;  ///< [switch][host]: output port (climbing or shortest)
    std::vector<std::vector<std::uint16_t>> down_port_;  ///< [switch][host]: output port going down (updown)
};

/// Routing algorithms topology.routing accepts.
std::vector<std::string> table_routing_names();

/// Follows `policy` from every host to every other host over `topology`
/// and checks the channel dependency graph (channel = switch output port x
/// VC) has no cycle and every route arrives within switches() hops; returns
/// an empty string, or what is wrong ("host 3 cannot reach host 9: ...",
/// "dependency cycle: leaf0 port 6 -> spine1 port 2 -> ..."). A policy
/// whose host ports route alike is followed once per switch with hosts and
/// destination (O(hosts x switches) route() calls), any other once per pair.
std::string check_routes(const NetworkTopology& topology, const RoutingPolicy& policy, unsigned vcs);

}  // namespace isvp
