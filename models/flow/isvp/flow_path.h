// The path of a packet through a network, as the routers would forward it:
// the same RoutingPolicy (dor on a torus, TableRouting elsewhere) followed
// switch by switch from the source host's port to the destination host's.
// The flow network (FlowNetwork) uses it for a flow's links and latency. No
// SystemC.
#pragma once

#include <vector>

#include "isvp/network_topology.h"
#include "isvp/routing_policy.h"

namespace isvp {

/// One cable a packet crosses: it leaves `switch_index` through `port`.
struct FlowHop {
    unsigned switch_index = 0;  ///< switch the cable leaves
    unsigned port = 0;          ///< its port
    unsigned cable = 0;         ///< index into NetworkTopology::cables()
    bool operator==(const FlowHop& other) const {
        return switch_index == other.switch_index && port == other.port && cable == other.cable;
    }
};

/// The cables from host `source` to host `destination` in order (empty when
/// both hosts sit on one switch), injected on VC 0 as the NICs do. Throws
/// std::runtime_error naming the switch when the policy gives no route,
/// leaves through an unconnected port or a wrong host, or loops (more hops
/// than switches).
std::vector<FlowHop> trace_flow_path(const NetworkTopology& topology, const RoutingPolicy& routing, unsigned source,
                                     unsigned destination);

}  // namespace isvp
