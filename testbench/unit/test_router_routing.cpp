// Routing policies: dimension-order routing on tori with dateline VCs.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "isvp/dimension_order_routing.h"
#include "isvp/parameters.h"
#include "isvp/routing_policy.h"
#include "isvp/torus_topology.h"

using namespace isvp;

namespace {

/// One hop of a routed path: the channel a packet takes.
struct Hop {
    std::uint32_t node;  ///< router it leaves
    unsigned port;       ///< output port
    unsigned vc;         ///< VC at the next router
};

/// Follows the policy from `source` until the packet is ejected.
std::vector<Hop> walk(const RoutingPolicy& routing, const TorusTopology& torus, std::uint32_t source,
                      std::uint32_t destination) {
    std::vector<Hop> path;
    std::uint32_t node = source;
    unsigned in_port = TorusTopology::kLocalPort;
    unsigned in_vc = 0;
    for (unsigned guard = 0; guard <= torus.nodes() * 3; ++guard) {
        const auto route = routing.route(node, in_port, in_vc, destination);
        REQUIRE(route);
        if (route->port == TorusTopology::kLocalPort) return path;
        REQUIRE(torus.has_link(route->port));
        path.push_back(Hop{node, route->port, route->vc});
        node = torus.neighbour(node, route->port);
        in_port = TorusTopology::opposite(route->port);
        in_vc = route->vc;
    }
    FAIL("no delivery from " << source << " to " << destination);
    return path;
}

}  // namespace

TEST_CASE("router dor: hop counts equal torus distances for all pairs on several shapes") {
    for (const char* text : {"4x4x4", "3x3x3", "2x2x2", "5x3x2", "8x1x1", "2x1x1", "1x1x1", "1x6x1", "4x2x3"}) {
        const TorusTopology torus(TorusShape::parse(text));
        const auto routing = make_torus_routing("dor", torus, 2);
        for (std::uint32_t a = 0; a < torus.nodes(); ++a)
            for (std::uint32_t b = 0; b < torus.nodes(); ++b) {
                INFO(text << ": " << a << " -> " << b);
                CHECK(walk(*routing, torus, a, b).size() == torus.distance(a, b));
            }
    }
}

TEST_CASE("router dor: corrects x, then y, then z, each the short way round") {
    const TorusTopology torus(TorusShape{4, 4, 4});
    const DimensionOrderRouting routing(torus, 2);
    const auto path = walk(routing, torus, torus.address({{0, 0, 0}}), torus.address({{3, 1, 2}}));
    std::vector<unsigned> ports;
    for (const Hop& hop : path) ports.push_back(hop.port);
    // x: 0 -> 3 is one hop the - way; y: +1; z: 2 is a tie, so +.
    CHECK(ports == std::vector<unsigned>{TorusTopology::port(0, false), TorusTopology::port(1, true),
                                         TorusTopology::port(2, true), TorusTopology::port(2, true)});
}

TEST_CASE("router dor: a packet is ejected at its destination on VC 0") {
    const TorusTopology torus(TorusShape{4, 4, 4});
    const DimensionOrderRouting routing(torus, 2);
    CHECK(routing.route(5, TorusTopology::port(0, false), 1, 5) == RouteDecision{TorusTopology::kLocalPort, 0});
}

TEST_CASE("router dor: VC 0 until the wrap link, VC 1 from the wrap hop on, VC 0 again in a new dimension") {
    const TorusTopology torus(TorusShape{6, 4, 1});
    const DimensionOrderRouting routing(torus, 2);
    // (4,0) -> (1,1): x is a tie (3 either way), so + through 5 -> 0 (wrap) -> 1, then y +1.
    const auto path = walk(routing, torus, torus.address({{4, 0, 0}}), torus.address({{1, 1, 0}}));
    REQUIRE(path.size() == 4);
    CHECK(path[0].vc == 0);  // 4 -> 5
    CHECK(path[1].vc == 1);  // 5 -> 0 crosses the dateline
    CHECK(path[2].vc == 1);  // 0 -> 1 after it
    CHECK(path[3].port == TorusTopology::port(1, true));
    CHECK(path[3].vc == 0);  // y starts again in class 0
}

TEST_CASE("router dor: the - direction crosses its dateline leaving node 0") {
    const TorusTopology torus(TorusShape{5, 1, 1});
    const DimensionOrderRouting routing(torus, 2);
    const auto path = walk(routing, torus, 1, 4);  // 1 -> 0 -> 4
    REQUIRE(path.size() == 2);
    CHECK(path[0].port == TorusTopology::port(0, false));
    CHECK(path[0].vc == 0);
    CHECK(path[1].vc == 1);
}

TEST_CASE("router dor: with 4 VCs dateline class 1 starts at VC 2") {
    const TorusTopology torus(TorusShape{4, 1, 1});
    const DimensionOrderRouting routing(torus, 4);
    CHECK(routing.route(3, TorusTopology::kLocalPort, 0, 0) == RouteDecision{TorusTopology::port(0, true), 2});
}

TEST_CASE("router dor: a destination outside the network has no route") {
    const TorusTopology torus(TorusShape{2, 2, 2});
    const DimensionOrderRouting routing(torus, 2);
    CHECK_FALSE(routing.route(0, TorusTopology::kLocalPort, 0, 8));
    CHECK_FALSE(routing.route(0, TorusTopology::kLocalPort, 0, 65535));
}

TEST_CASE("router dor: the channel dependency graph is acyclic (deadlock freedom)") {
    for (const char* text : {"4x4x4", "3x3x3", "2x2x2", "5x4x1", "6x1x1"}) {
        const TorusTopology torus(TorusShape::parse(text));
        const DimensionOrderRouting routing(torus, 2);
        auto channel = [](const Hop& hop) { return (std::uint64_t{hop.node} * 8 + hop.port) * 2 + hop.vc; };
        std::map<std::uint64_t, std::set<std::uint64_t>> depends;
        for (std::uint32_t a = 0; a < torus.nodes(); ++a)
            for (std::uint32_t b = 0; b < torus.nodes(); ++b) {
                const auto path = walk(routing, torus, a, b);
                for (std::size_t i = 1; i < path.size(); ++i) depends[channel(path[i - 1])].insert(channel(path[i]));
            }
        std::map<std::uint64_t, int> state;  // 0 new, 1 on the stack, 2 done
        bool cycle = false;
        std::function<void(std::uint64_t)> visit = [&](std::uint64_t c) {
            state[c] = 1;
            for (std::uint64_t next : depends[c]) {
                if (state[next] == 1) cycle = true;
                if (state[next] == 0) visit(next);
            }
            state[c] = 2;
        };
        for (const auto& entry : depends)
            if (state[entry.first] == 0) visit(entry.first);
        INFO(text);
        CHECK_FALSE(cycle);
    }
}

TEST_CASE("router routing: policies are chosen by name, unknown names and too few VCs are refused") {
    const TorusTopology torus(TorusShape{4, 4, 4});
    CHECK(make_torus_routing("dor", torus, 2)->name() == "dor");
    CHECK(torus_routing_names() == std::vector<std::string>{"dor"});
    CHECK_THROWS_WITH(make_torus_routing("adaptive", torus, 2),
                      "config: router.routing must be one of dor on a torus, got 'adaptive'");
    CHECK_THROWS_WITH(make_torus_routing("dor", torus, 1),
                      Catch::Contains("router.vcs must be at least 2 for router.routing=dor"));
}
