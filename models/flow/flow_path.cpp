#include "isvp/flow_path.h"

#include <stdexcept>
#include <string>

namespace isvp {

std::vector<FlowHop> trace_flow_path(const NetworkTopology& topology, const RoutingPolicy& routing, unsigned source,
                                     unsigned destination) {
    const auto fail = [&](const std::string& why) {
        throw std::runtime_error("flow path from host " + std::to_string(source) + " to host " +
                                 std::to_string(destination) + ": " + why);
    };
    if (source >= topology.hosts() || destination >= topology.hosts())
        fail("not a host of the " + std::to_string(topology.hosts()) + "-host network");
    std::vector<FlowHop> hops;
    unsigned at = topology.host(source).switch_index;
    unsigned in_port = topology.host(source).port;
    unsigned vc = 0;
    for (;;) {
        const auto decision = routing.route(at, in_port, vc, destination);
        if (!decision) fail("switch " + topology.switch_at(at).name + " has no route");
        const PortPeer& peer = topology.peer(at, decision->port);
        if (peer.kind == PortPeer::Kind::Host) {
            if (peer.index != destination)
                fail("switch " + topology.switch_at(at).name + " delivers it to host " + std::to_string(peer.index));
            return hops;
        }
        if (peer.kind != PortPeer::Kind::Switch)
            fail("switch " + topology.switch_at(at).name + " sends it through unconnected port " +
                 std::to_string(decision->port));
        if (hops.size() >= topology.switches()) fail("the route loops (more hops than switches)");
        hops.push_back(FlowHop{at, decision->port, peer.cable});
        at = peer.index;
        in_port = peer.port;
        vc = decision->vc;
    }
}

}  // namespace isvp
