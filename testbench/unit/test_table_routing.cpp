// Routing tables over any network graph: up*/down* and shortest paths,
// d-mod-k spreading, and the route checker (reachability, deadlock freedom).
#include <catch2/catch.hpp>

#include <functional>
#include <set>

#include "isvp/network_topology.h"
#include "isvp/parameters.h"
#include "isvp/routing_policy.h"
#include "isvp/table_routing.h"
#include "isvp/torus_topology.h"

using namespace isvp;

namespace {

/// One switch-to-switch hop of a route.
struct Hop {
    unsigned from;  ///< switch it leaves
    unsigned port;  ///< output port
    unsigned vc;    ///< VC at the next switch
    unsigned to;    ///< switch it reaches
};

/// Follows `routing` from host `source` (injected on `vc`) to its delivery.
std::vector<Hop> walk(const RoutingPolicy& routing, const NetworkTopology& topology, unsigned source,
                      unsigned destination, unsigned vc = 0) {
    std::vector<Hop> path;
    unsigned node = topology.host(source).switch_index;
    unsigned in_port = topology.host(source).port;
    for (unsigned guard = 0; guard <= topology.switches(); ++guard) {
        const auto route = routing.route(node, in_port, vc, destination);
        REQUIRE(route);
        const PortPeer& peer = topology.peer(node, route->port);
        if (peer.kind == PortPeer::Kind::Host) {
            CHECK(peer.index == destination);
            CHECK(route->vc == 0);
            return path;
        }
        REQUIRE(peer.kind == PortPeer::Kind::Switch);
        path.push_back(Hop{node, route->port, route->vc, peer.index});
        node = peer.index;
        in_port = peer.port;
        vc = route->vc;
    }
    FAIL("no delivery from host " << source << " to host " << destination);
    return path;
}

/// A ring of `n` switches with 3 ports: 0 clockwise, 1 anticlockwise, 2 host.
NetworkTopology ring(unsigned n, std::vector<unsigned> levels = {}) {
    std::vector<TopologySwitch> switches;
    std::vector<TopologyCable> cables;
    std::vector<HostPort> hosts;
    for (unsigned s = 0; s < n; ++s) {
        switches.push_back({"r" + std::to_string(s), 3, levels.empty() ? 0 : levels[s]});
        cables.push_back({s, 0, (s + 1) % n, 1});
        hosts.push_back({s, 2});
    }
    return NetworkTopology("file", "ring", switches, cables, hosts);
}

/// A policy that cannot reach host 1 (to test the checker).
class BrokenRouting final : public RoutingPolicy {
  public:
    explicit BrokenRouting(const TableRouting& inner) : inner_(inner) {}
    std::string_view name() const override { return "broken"; }
    unsigned ports(std::uint32_t node) const override { return inner_.ports(node); }
    bool is_host_port(std::uint32_t node, unsigned port) const override { return inner_.is_host_port(node, port); }
    std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                       std::uint32_t destination) const override {
        if (destination == 1) return std::nullopt;
        return inner_.route(node, in_port, in_vc, destination);
    }

  private:
    const TableRouting& inner_;  ///< the working policy it wraps
};

/// A policy's routes with some decisions changed (to test the checker),
/// claiming host_ports_route_alike() or not: the checker must find the same
/// with one walk per switch as with one per host pair.
class TamperedRouting final : public RoutingPolicy {
  public:
    using Tamper = std::function<std::optional<RouteDecision>(std::uint32_t node, std::uint32_t destination,
                                                              std::optional<RouteDecision> decision)>;
    TamperedRouting(const RoutingPolicy& inner, bool alike, Tamper tamper)
        : inner_(inner), alike_(alike), tamper_(std::move(tamper)) {}
    std::string_view name() const override { return "tampered"; }
    unsigned ports(std::uint32_t node) const override { return inner_.ports(node); }
    bool is_host_port(std::uint32_t node, unsigned port) const override { return inner_.is_host_port(node, port); }
    std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                       std::uint32_t destination) const override {
        return tamper_(node, destination, inner_.route(node, in_port, in_vc, destination));
    }
    bool host_ports_route_alike() const override { return alike_; }

  private:
    const RoutingPolicy& inner_;  ///< the working policy it wraps
    bool alike_;                  ///< what host_ports_route_alike() says
    Tamper tamper_;               ///< changes a decision, or keeps it
};

}  // namespace

TEST_CASE("check routes: one walk per switch finds what a walk per host pair finds, problems included") {
    // Two levels (6 leaves of 6 hosts, spines 6 and 7), three levels, and
    // switch engines (engine-to-engine pairs without a route are accepted).
    const std::vector<NetworkTopology> networks = {fat_tree_network(FatTreeShape{8, 32, 3}),
                                                   fat_tree_network(FatTreeShape{4, 16, 1}),
                                                   with_switch_engines(fat_tree_network(FatTreeShape{8, 32, 3}))};
    for (const NetworkTopology& network : networks) {
        const TableRouting routing(network, "updown", 2);
        CHECK(routing.host_ports_route_alike());
        const unsigned leaf0 = network.host(0).switch_index;
        const unsigned top_level = network.switch_at(network.switches() - 1).level;  // spines or cores
        const auto top = [&](std::uint32_t node) { return network.switch_at(node).level == top_level; };
        const std::vector<std::pair<const char*, TamperedRouting::Tamper>> tampers = {
            {"none", [](std::uint32_t, std::uint32_t, auto decision) { return decision; }},
            {"no route at the top for host 13",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 return top(node) && d == 13 ? std::nullopt : decision;
             }},
            {"host 0's leaf delivers host 0's packets to host 1 (whose walk comes first)",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 if (node == leaf0 && d == 0) decision->port = network.host(1).port;
                 return decision;
             }},
            {"no route anywhere to host 0 but on its leaf",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 return d == 0 && node != leaf0 ? std::nullopt : decision;
             }},
            {"host 5 unreachable from its own leaf only",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 return d == 5 && node == network.host(5).switch_index && decision && !network.is_engine(d) &&
                                network.peer(node, decision->port).kind == PortPeer::Kind::Host
                            ? std::nullopt
                            : decision;
             }},
            {"a VC beyond the routers' at the top",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 if (top(node) && d == 9 && decision) decision->vc = 3;
                 return decision;
             }},
            {"every packet for host 7 climbs back to the top: a loop",
             [&](std::uint32_t node, std::uint32_t d, auto decision) {
                 if (d != 7 || !decision) return decision;
                 for (unsigned port = 0; port < network.switch_at(node).ports; ++port) {
                     const PortPeer& peer = network.peer(node, port);
                     if (peer.kind == PortPeer::Kind::Switch && peer.index != node &&
                         network.switch_at(peer.index).level != network.switch_at(node).level)
                         return std::optional<RouteDecision>(RouteDecision{port, decision->vc});
                 }
                 return decision;
             }},
        };
        for (const auto& [what, tamper] : tampers) {
            INFO(network.description() << ": " << what);
            const std::string per_switch = check_routes(network, TamperedRouting(routing, true, tamper), 2);
            const std::string per_pair = check_routes(network, TamperedRouting(routing, false, tamper), 2);
            CHECK(per_switch == per_pair);
            CHECK(per_switch.empty() == (std::string(what) == "none"));
        }
    }
}

TEST_CASE("table routing: updown reaches every pair without a dependency cycle on torus-like graphs") {
    for (const char* text : {"4x4x4", "3x3x3", "2x2x2", "5x1x1", "4x3x2", "1x1x1"}) {
        INFO(text);
        const NetworkTopology graph = torus_network(TorusShape::parse(text));
        const TableRouting routing(graph, "updown", 1);
        CHECK(routing.name() == "updown");
        CHECK(check_routes(graph, routing, 1).empty());
    }
}

TEST_CASE("table routing: updown on fat trees of every radix is minimal, reaches every pair, no cycle") {
    for (unsigned radix : {2u, 3u, 4u, 8u, 16u, 28u})
        for (unsigned hosts : {2u, 7u, 32u, 64u, 128u}) {
            const FatTreeShape shape{radix, hosts, 3};
            if (hosts > shape.leaf_downlinks() * radix * (radix / 2)) continue;  // beyond three levels
            INFO(shape.to_string());
            const NetworkTopology tree = fat_tree_network(shape);
            const TableRouting routing(tree, "updown", 2);
            CHECK(check_routes(tree, routing, 2).empty());
            for (unsigned a = 0; a < hosts; a += 5)
                for (unsigned b = 0; b < hosts; ++b) CHECK(walk(routing, tree, a, b).size() == tree.distance(a, b));
        }
}

TEST_CASE("table routing: updown never climbs after going down") {
    const NetworkTopology graph = torus_network(TorusShape{4, 4, 1});
    const TableRouting routing(graph, "updown", 1);
    auto climbs = [&](const Hop& hop) { return hop.to < hop.from; };  // all level 0: lower index is higher
    for (unsigned a = 0; a < graph.hosts(); ++a)
        for (unsigned b = 0; b < graph.hosts(); ++b) {
            bool went_down = false;
            for (const Hop& hop : walk(routing, graph, a, b)) {
                INFO(a << " -> " << b << " at switch " << hop.from);
                CHECK_FALSE((went_down && climbs(hop)));
                went_down = went_down || !climbs(hop);
            }
        }
}

TEST_CASE("table routing: shortest on a ring is refused naming a dependency cycle") {
    CHECK_THROWS_WITH(TableRouting(ring(5), "shortest", 2),
                      Catch::StartsWith("config: topology ring: topology.routing=shortest can deadlock here "
                                        "(dependency cycle: r") &&
                          Catch::Contains(" port ") && Catch::Contains("use topology.routing=updown"));
    const NetworkTopology torus = torus_network(TorusShape{4, 4, 1});
    CHECK_THROWS_WITH(TableRouting(torus, "shortest", 2), Catch::Contains("dependency cycle: node"));
    // The same ring with up*/down* is fine.
    CHECK(check_routes(ring(5), TableRouting(ring(5), "updown", 1), 1).empty());
}

TEST_CASE("table routing: shortest on a fat tree is accepted and minimal") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 128, 3});
    const TableRouting routing(tree, "shortest", 2);
    CHECK(routing.name() == "shortest");
    CHECK(check_routes(tree, routing, 2).empty());
    for (unsigned b = 0; b < tree.hosts(); ++b) CHECK(walk(routing, tree, 3, b).size() == tree.distance(3, b));
}

TEST_CASE("table routing: dimension-order routing on the torus graph passes the same check") {
    for (const char* text : {"4x4x4", "2x2x2", "5x3x1"}) {
        INFO(text);
        const TorusShape shape = TorusShape::parse(text);
        const auto dor = make_torus_routing("dor", TorusTopology(shape), 2);
        CHECK(check_routes(torus_network(shape), *dor, 2).empty());
    }
}

TEST_CASE("table routing: d-mod-k spreads one leaf's routes over the spines") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{16, 64, 3});  // 12 hosts per leaf, 4 spines
    const TableRouting routing(tree, "updown", 2);
    std::set<unsigned> spines;
    for (unsigned destination = 12; destination < 24; ++destination) {  // the hosts of leaf1
        const auto path = walk(routing, tree, 0, destination);
        REQUIRE(path.size() == 2);
        spines.insert(path[0].to);
        CHECK(path[0].to == 6 + destination % 4);  // spine d mod 4
    }
    CHECK(spines.size() == 4);
}

TEST_CASE("table routing: three levels spread over cores independently of the aggregation switch") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 128, 3});  // 2 aggs per pod, 8 cores
    const TableRouting routing(tree, "updown", 2);
    std::set<unsigned> cores;
    for (unsigned destination = 64; destination < 128; ++destination) {  // hosts in other pods than host 0
        const auto path = walk(routing, tree, 0, destination);
        REQUIRE(path.size() == 4);
        cores.insert(path[1].to);
    }
    CHECK(cores.size() == 8);
}

TEST_CASE("table routing: to a host VC 0, between switches the VC the packet was injected on") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 32, 3});
    const TableRouting routing(tree, "updown", 2);
    const auto path = walk(routing, tree, 0, 31, 1);
    REQUIRE(path.size() == 2);
    for (const Hop& hop : path) CHECK(hop.vc == 1);
    // Host 1 sits on leaf0 port 1: from leaf0 straight out, VC 0.
    CHECK(routing.route(0, 0, 1, 1) == RouteDecision{1, 0});
    CHECK(routing.is_host_port(0, 5));
    CHECK_FALSE(routing.is_host_port(0, 6));
    CHECK(routing.ports(0) == 8);
    CHECK(routing.ports(6) == 8);
}

TEST_CASE("table routing: a destination beyond the hosts has no route") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 32, 3});
    const TableRouting routing(tree, "updown", 2);
    CHECK_FALSE(routing.route(0, 0, 0, 32));
    CHECK_FALSE(routing.route(0, 0, 0, 65535));
}

TEST_CASE("table routing: unknown algorithms are refused naming topology.routing") {
    CHECK(table_routing_names() == std::vector<std::string>{"updown", "shortest"});
    CHECK_THROWS_WITH(TableRouting(ring(3), "adaptive", 2),
                      "config: topology.routing must be one of updown, shortest, got 'adaptive'");
}

TEST_CASE("table routing: levels that leave no up*/down* route are refused naming the switches") {
    // r1 is lowest: r0 -> r2 would have to go down to r1 and up again.
    std::vector<TopologySwitch> switches = {{"r0", 3, 1}, {"r1", 3, 0}, {"r2", 3, 1}};
    const NetworkTopology line("file", "line", switches, {{0, 0, 1, 1}, {1, 0, 2, 1}}, {{0, 2}, {2, 2}});
    CHECK_THROWS_WITH(
        TableRouting(line, "updown", 1),
        Catch::Contains("topology.routing=updown finds no route from switch") && Catch::Contains("check the levels"));
}

TEST_CASE("check routes: a policy that cannot reach a host is reported naming the hosts and switch") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 32, 3});
    const TableRouting routing(tree, "updown", 2);
    const BrokenRouting broken(routing);
    CHECK(check_routes(tree, broken, 2) == "host 0 cannot reach host 1: leaf0 has no route for it");
}

TEST_CASE("check routes: a VC beyond the routers' is reported naming the port") {
    const NetworkTopology pair = torus_network(TorusShape{2, 1, 1});
    const auto dor = make_torus_routing("dor", TorusTopology(TorusShape{2, 1, 1}), 4);  // dateline class on VC 2
    CHECK(check_routes(pair, *dor, 4).empty());
    CHECK(check_routes(pair, *dor, 2) ==
          "host 1 cannot reach host 0: node1 port 0 sends it on VC 2, the routers have 2");
}
