// The network graph: validation, the torus and fat-tree builders.
#include <catch2/catch.hpp>

#include <set>

#include "isvp/network_topology.h"
#include "isvp/parameters.h"
#include "isvp/torus_topology.h"

using namespace isvp;

namespace {

/// Ports of switch `s` with a cable or a host on them.
unsigned used_ports(const NetworkTopology& topology, unsigned s) {
    unsigned used = 0;
    for (unsigned port = 0; port < topology.switch_at(s).ports; ++port)
        used += topology.peer(s, port).kind != PortPeer::Kind::None;
    return used;
}

/// Switches whose name starts with `prefix`.
unsigned count_named(const NetworkTopology& topology, const std::string& prefix) {
    unsigned count = 0;
    for (unsigned s = 0; s < topology.switches(); ++s) count += topology.switch_at(s).name.rfind(prefix, 0) == 0;
    return count;
}

/// Two switches joined by one cable (ports 1 and 0), one host each on port 0 / 1.
NetworkTopology pair_of_switches(std::vector<TopologyCable> cables, std::vector<HostPort> hosts,
                                 std::vector<TopologySwitch> switches = {{"a", 2, 0}, {"b", 2, 0}}) {
    return NetworkTopology("file", "test", std::move(switches), std::move(cables), std::move(hosts));
}

}  // namespace

TEST_CASE("network topology: the torus graph has TorusTopology's neighbours, ports and hosts") {
    for (const char* text : {"4x4x4", "2x2x2", "5x3x2", "4x1x1", "2x1x1", "1x1x1", "1x6x1"}) {
        INFO(text);
        const TorusShape shape = TorusShape::parse(text);
        const TorusTopology torus(shape);
        const NetworkTopology graph = torus_network(shape);
        CHECK(graph.kind() == "torus");
        CHECK(graph.description() == text);
        REQUIRE(graph.switches() == torus.nodes());
        REQUIRE(graph.hosts() == torus.nodes());
        unsigned links = 0;
        for (std::uint32_t n = 0; n < torus.nodes(); ++n) {
            CHECK(graph.switch_at(n).ports == TorusTopology::kPorts);
            CHECK(graph.switch_at(n).level == 0);
            CHECK(graph.host(n).switch_index == n);
            CHECK(graph.host(n).port == TorusTopology::kLocalPort);
            CHECK(graph.is_host_port(n, TorusTopology::kLocalPort));
            for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port) {
                const PortPeer& peer = graph.peer(n, port);
                if (!torus.has_link(port)) {
                    CHECK(peer.kind == PortPeer::Kind::None);
                    continue;
                }
                ++links;
                CHECK(peer.kind == PortPeer::Kind::Switch);
                CHECK(peer.index == torus.neighbour(n, port));
                CHECK(peer.port == TorusTopology::opposite(port));
            }
        }
        CHECK(graph.cables().size() * 2 == links);  // one cable per + port
        for (std::uint32_t a = 0; a < torus.nodes(); ++a)
            for (std::uint32_t b = 0; b < torus.nodes(); b += 3) CHECK(graph.distance(a, b) == torus.distance(a, b));
    }
}

TEST_CASE("network topology: a torus dimension of size 2 has two distinct cables between the same pair") {
    const NetworkTopology graph = torus_network(TorusShape{2, 1, 1});
    REQUIRE(graph.cables().size() == 2);
    const PortPeer& plus = graph.peer(0, TorusTopology::port(0, true));
    const PortPeer& minus = graph.peer(0, TorusTopology::port(0, false));
    CHECK(plus.index == 1);
    CHECK(minus.index == 1);
    CHECK(plus.cable != minus.cable);
}

TEST_CASE("fat tree shape: radix=R,hosts=N[,oversubscription=S] parses in any order and prints back") {
    const FatTreeShape shape = FatTreeShape::parse("hosts=128,radix=28");
    CHECK(shape.radix == 28);
    CHECK(shape.hosts == 128);
    CHECK(shape.oversubscription == 3);
    CHECK(shape.to_string() == "radix=28,hosts=128,oversubscription=3");
    CHECK(FatTreeShape::parse("radix=8,hosts=32,oversubscription=1").oversubscription == 1);
}

TEST_CASE("fat tree shape: malformed text is refused naming topology.fattree and what is wrong") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"radix=8", "hosts is missing"},
        {"hosts=8", "radix is missing"},
        {"radix=8,hosts=0", "hosts is not a positive integer"},
        {"radix=8,hosts=x", "hosts is not a positive integer"},
        {"radix=8,hosts=32,speed=3", "unknown key 'speed'"},
        {"radix=8,radix=16,hosts=32", "radix is given twice"},
        {"radix=8,hosts=99999999", "hosts is over 65536"},
        {"radix=8;hosts=32", "radix is not a positive integer"},
        {"radix8,hosts=32", "is not key=value"},
        {"", "is not key=value"},
        {"radix=8,hosts=32,", "is not key=value"},
    };
    for (const auto& [text, why] : cases) {
        INFO(text);
        CHECK_THROWS_AS(FatTreeShape::parse(text), ConfigError);
        CHECK_THROWS_WITH(FatTreeShape::parse(text), Catch::StartsWith("config: topology.fattree must be") &&
                                                         Catch::Contains(why) &&
                                                         Catch::Contains("got '" + std::string(text) + "'"));
    }
}

TEST_CASE("fat tree shape: 3:1 splits radix 8, 16, 28 into 6/2, 12/4, 21/7 downlinks/uplinks") {
    for (const auto& [radix, down] : std::vector<std::pair<unsigned, unsigned>>{{8, 6}, {16, 12}, {28, 21}}) {
        const FatTreeShape shape{radix, 32, 3};
        CHECK(shape.leaf_downlinks() == down);
        CHECK(shape.leaf_uplinks() == radix - down);
    }
    CHECK(FatTreeShape{8, 32, 1}.leaf_downlinks() == 4);
    CHECK(FatTreeShape{2, 32, 3}.leaf_uplinks() == 1);
}

TEST_CASE("fat tree: two levels with one cable from every leaf to every spine for radix 8, 16, 28") {
    struct Case {
        unsigned radix, hosts, leaves, spines;
    };
    for (const Case& c : std::vector<Case>{{8, 32, 6, 2},
                                           {16, 32, 3, 4},
                                           {16, 64, 6, 4},
                                           {16, 128, 11, 4},
                                           {28, 32, 2, 7},
                                           {28, 64, 4, 7},
                                           {28, 128, 7, 7}}) {
        INFO("radix " << c.radix << " hosts " << c.hosts);
        const FatTreeShape shape{c.radix, c.hosts, 3};
        const NetworkTopology tree = fat_tree_network(shape);
        CHECK(tree.kind() == "fattree");
        CHECK(tree.description() == "fattree:" + shape.to_string());
        REQUIRE(tree.switches() == c.leaves + c.spines);
        CHECK(count_named(tree, "leaf") == c.leaves);
        CHECK(count_named(tree, "spine") == c.spines);
        CHECK(tree.cables().size() == c.leaves * c.spines);
        const unsigned down = shape.leaf_downlinks();
        for (unsigned h = 0; h < c.hosts; ++h) {
            CHECK(tree.host(h).switch_index == h / down);
            CHECK(tree.host(h).port == h % down);
        }
        for (unsigned leaf = 0; leaf < c.leaves; ++leaf) {
            CHECK(tree.switch_at(leaf).name == "leaf" + std::to_string(leaf));
            CHECK(tree.switch_at(leaf).level == 0);
            std::set<unsigned> spines;
            for (unsigned port = down; port < c.radix; ++port) {
                REQUIRE(tree.peer(leaf, port).kind == PortPeer::Kind::Switch);
                spines.insert(tree.peer(leaf, port).index);
            }
            CHECK(spines.size() == c.spines);  // every uplink to a different spine
        }
        for (unsigned s = c.leaves; s < tree.switches(); ++s) {
            CHECK(tree.switch_at(s).name == "spine" + std::to_string(s - c.leaves));
            CHECK(tree.switch_at(s).level == 1);
            CHECK(used_ports(tree, s) == c.leaves);
        }
        CHECK(tree.distance(0, c.hosts - 1) == (c.leaves > 1 ? 2u : 0u));
    }
}

TEST_CASE("fat tree: one leaf keeps its spines (the shape does not change with the host count)") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 4, 3});
    CHECK(tree.switches() == 3);
    CHECK(count_named(tree, "spine") == 2);
    CHECK(used_ports(tree, 0) == 4 + 2);
    CHECK(tree.hosts_on(0) == std::vector<unsigned>{0, 1, 2, 3});
    CHECK(tree.hosts_on(1).empty());
}

TEST_CASE("fat tree: more leaves than a spine's radix take three levels (pods and cores)") {
    struct Case {
        unsigned radix, hosts, leaves, aggs, cores;
    };
    // radix 8: 6 hosts per leaf, pods of 4 leaves with 2 aggregation
    // switches each, 2 groups of 4 core switches.
    for (const Case& c : std::vector<Case>{{8, 64, 11, 6, 8}, {8, 128, 22, 12, 8}, {8, 192, 32, 16, 8}}) {
        INFO("radix " << c.radix << " hosts " << c.hosts);
        const NetworkTopology tree = fat_tree_network(FatTreeShape{c.radix, c.hosts, 3});
        REQUIRE(tree.switches() == c.leaves + c.aggs + c.cores);
        CHECK(count_named(tree, "leaf") == c.leaves);
        CHECK(count_named(tree, "agg") == c.aggs);
        CHECK(count_named(tree, "core") == c.cores);
        CHECK(tree.cables().size() == c.leaves * 2 + c.aggs * 4);
        const unsigned pods = c.aggs / 2;
        for (unsigned s = 0; s < tree.switches(); ++s) {
            const TopologySwitch& node = tree.switch_at(s);
            INFO(node.name);
            if (s < c.leaves) {
                CHECK(node.level == 0);
                CHECK(used_ports(tree, s) == std::min(6u, c.hosts - 6 * s) + 2);
            } else if (s < c.leaves + c.aggs) {
                CHECK(node.level == 1);
                CHECK(node.name.rfind("agg", 0) == 0);
            } else {
                CHECK(node.level == 2);
                CHECK(used_ports(tree, s) == pods);  // one port per pod
            }
        }
        // Hosts of different pods are 4 cables apart: leaf, agg, core, agg, leaf.
        CHECK(tree.distance(0, c.hosts - 1) == 4);
        CHECK(tree.distance(0, 6) == 2);  // leaf0 -> agg -> leaf1, same pod
    }
}

TEST_CASE("fat tree: what cannot be built is refused naming topology.fattree") {
    CHECK_THROWS_WITH(fat_tree_network(FatTreeShape{1, 4, 3}),
                      Catch::StartsWith("config: topology.fattree") && Catch::Contains("leaves no uplink"));
    CHECK_THROWS_WITH(fat_tree_network(FatTreeShape{8, 193, 3}),
                      Catch::StartsWith("config: topology.fattree") &&
                          Catch::Contains("three levels of radix-8 switches reach at most 192 hosts"));
    CHECK_NOTHROW(fat_tree_network(FatTreeShape{8, 192, 3}));
    CHECK_NOTHROW(fat_tree_network(FatTreeShape{2, 2, 3}));
}

TEST_CASE("network topology: a port beyond a switch's radix is refused naming the switch and port") {
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {{0, 0}, {1, 2}}),
                      "config: topology test: host 1: switch b has no port 2 (radix 2, ports 0..1)");
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 5}}, {{0, 0}, {1, 1}}),
                      "config: topology test: cable 0: switch b has no port 5 (radix 2, ports 0..1)");
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {{0, 0}, {4, 1}}),
                      Catch::Contains("host 1 names switch 4, there are 2"));
}

TEST_CASE("network topology: a port used twice is refused naming both users") {
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {{0, 0}, {1, 0}}),
                      "config: topology test: b port 0 is used twice: by cable 0 and by host 1");
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}, {0, 1, 1, 1}}, {{0, 0}}),
                      Catch::Contains("a port 1 is used twice: by cable 0 and by cable 1"));
}

TEST_CASE("network topology: a switch not connected to the rest is refused naming it") {
    CHECK_THROWS_WITH(pair_of_switches({}, {{0, 0}, {1, 1}}),
                      "config: topology test: switch b is not connected to switch a (no path of cables)");
}

TEST_CASE("network topology: a refused cable latency or bandwidth is shown as a short number") {
    // std::to_string wrote 1e300 with 301 digits and 1e-300 as 0.000000.
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0, 1e300, -1}}, {{0, 0}}),
                      "config: topology test: cable 0 needs a latency in [0, 1e6] ns, got 1e+300");
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0, 2e6, -1}}, {{0, 0}}),
                      "config: topology test: cable 0 needs a latency in [0, 1e6] ns, got 2e+06");
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0, -1, 0}}, {{0, 0}}),
                      "config: topology test: cable 0 needs a positive bandwidth, got 0 Gb/s");
}

TEST_CASE("network topology: no hosts, self cables, bad cable timing and duplicate names are refused") {
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {}), "config: topology test: has no hosts");
    CHECK_THROWS_WITH(pair_of_switches({{0, 0, 0, 1}}, {{1, 0}}), Catch::Contains("cable 0 joins switch a to itself"));
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0, -1, 0}}, {{0, 0}}),
                      Catch::Contains("cable 0 needs a positive bandwidth"));
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0, 2e6, -1}}, {{0, 0}}),
                      Catch::Contains("cable 0 needs a latency in [0, 1e6] ns"));
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {{0, 0}}, {{"a", 2, 0}, {"a", 2, 0}}),
                      Catch::Contains("switches 0 and 1 are both named 'a'"));
    CHECK_THROWS_WITH(pair_of_switches({{0, 1, 1, 0}}, {{0, 0}}, {{"a", 2, 0}, {"b", 0, 0}}),
                      Catch::Contains("switch b has no ports"));
    const NetworkTopology fine = pair_of_switches({{0, 1, 1, 0, 0, 50}}, {{0, 0}, {1, 1}});
    CHECK(fine.peer(0, 1).kind == PortPeer::Kind::Switch);
    CHECK(fine.port_label(1, 1) == "b port 1");
    CHECK(fine.distance(0, 1) == 1);
}
