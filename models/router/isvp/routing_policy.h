// Routing as a pluggable policy chosen by name (router.routing), in the
// manner of SST merlin: the router asks the policy for an output port and
// VC and knows nothing of the topology. No SystemC.
//
// A policy is a const, stateless function of (this node, input port, input
// VC, destination): the same inputs always give the same route, so one
// policy object may be shared by every router of a fabric.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isvp {

class TorusTopology;

/// Where a packet goes next.
struct RouteDecision {
    unsigned port = 0;  ///< output port of this router
    unsigned vc = 0;    ///< virtual channel at the receiver behind that port
    bool operator==(const RouteDecision& other) const { return port == other.port && vc == other.vc; }
};

class RoutingPolicy {
  public:
    virtual ~RoutingPolicy() = default;

    /// The name router.routing selects it by.
    virtual std::string_view name() const = 0;
    /// Ports of router `node` (its radix; routers of one network may differ).
    virtual unsigned ports(std::uint32_t node) const = 0;
    /// Whether a host (a node's QDMA side) is attached to `port` of router
    /// `node`: packets leave the network there, and hops are not counted.
    virtual bool is_host_port(std::uint32_t node, unsigned port) const = 0;
    /// Output port and VC at `node` for a packet that came in through
    /// `in_port` on `in_vc`, headed for `destination`; nullopt when the
    /// destination is not a node of the network (a misaddressed packet).
    virtual std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                               std::uint32_t destination) const = 0;
    /// Whether a packet injected by a host (VC 0) gets the same decision at
    /// every host port of its router, for every destination: then the
    /// routes of a switch's hosts are one route, and check_routes follows
    /// it once per switch instead of once per host. False unless the policy
    /// guarantees it.
    virtual bool host_ports_route_alike() const { return false; }
};

/// Policy names router.routing accepts on a torus.
std::vector<std::string> torus_routing_names();

/// The torus policy called `name` for routers with `vcs` virtual channels;
/// throws ConfigError naming router.routing (unknown name) or router.vcs
/// (too few VCs for the policy's deadlock freedom).
std::unique_ptr<RoutingPolicy> make_torus_routing(const std::string& name, const TorusTopology& topology, unsigned vcs);

}  // namespace isvp
