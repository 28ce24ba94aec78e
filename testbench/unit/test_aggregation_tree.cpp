// Aggregation trees over a network: root choice, shortest-path edges,
// trimming where a group's width is one, the fixed combining order.
#include <catch2/catch.hpp>

#include <numeric>
#include <set>
#include <stdexcept>

#include "isvp/aggregation_tree.h"
#include "isvp/network_topology.h"

using namespace isvp;

namespace {

FatTreeShape tree_of(unsigned radix, unsigned hosts) {
    FatTreeShape shape;
    shape.radix = radix;
    shape.hosts = hosts;
    return shape;
}

std::vector<unsigned> first_hosts(unsigned count) {
    std::vector<unsigned> hosts(count);
    std::iota(hosts.begin(), hosts.end(), 0u);
    return hosts;
}

/// Every member reaches the root exactly once through the vertices' inputs,
/// every vertex combines two inputs or more in ascending first-member order,
/// and vertices come after their inputs.
void check_well_formed(const AggregationTree& tree) {
    std::multiset<unsigned> seen;
    for (std::size_t v = 0; v < tree.vertices.size(); ++v) {
        const AggregationVertex& vertex = tree.vertices[v];
        REQUIRE(vertex.inputs.size() >= 2);
        unsigned members = 0;
        for (std::size_t i = 0; i < vertex.inputs.size(); ++i) {
            const AggregationInput& input = vertex.inputs[i];
            members += input.members;
            if (i > 0) CHECK(vertex.inputs[i - 1].first_member < input.first_member);
            if (input.kind == AggregationInput::Kind::Host) {
                seen.insert(input.index);
            } else {
                REQUIRE(input.index < v);
                CHECK(tree.vertices[input.index].parent == static_cast<int>(v));
            }
        }
        CHECK(vertex.members == members);
        CHECK(vertex.first_member == vertex.inputs.front().first_member);
    }
    CHECK(std::vector<unsigned>(seen.begin(), seen.end()) == tree.members);
    CHECK(seen.size() == tree.members.size());
    if (tree.root >= 0) {
        CHECK(tree.vertices[static_cast<std::size_t>(tree.root)].parent == -1);
        CHECK(tree.vertices[static_cast<std::size_t>(tree.root)].members == tree.members.size());
    }
}

}  // namespace

TEST_CASE("aggregation tree: all 32 hosts of a radix-8 fat tree reduce at their leaves, then at one spine") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));  // 6 leaves (5 x 6 hosts + 2), 2 spines
    const AggregationTree tree = plan_aggregation_tree(topology, first_hosts(32));
    check_well_formed(tree);
    REQUIRE(tree.root >= 0);
    const AggregationVertex& root = tree.vertices[static_cast<std::size_t>(tree.root)];
    CHECK(topology.switch_at(root.switch_index).name.rfind("spine", 0) == 0);
    CHECK(root.inputs.size() == 6);
    CHECK(tree.vertices.size() == 7);
    CHECK(tree.depth() == 2);
    CHECK(tree.vertices[static_cast<std::size_t>(tree.vertex_of(7))].inputs.size() == 6);   // leaf1: hosts 6..11
    CHECK(tree.vertices[static_cast<std::size_t>(tree.vertex_of(31))].inputs.size() == 2);  // leaf5: hosts 30, 31
}

TEST_CASE("aggregation tree: members on one leaf reduce there, no spine involved") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));
    const AggregationTree tree = plan_aggregation_tree(topology, {9, 7, 6});
    check_well_formed(tree);
    REQUIRE(tree.vertices.size() == 1);
    CHECK(tree.describe(topology) == "leaf1(h6 h7 h9)");
}

TEST_CASE("aggregation tree: a leaf with one member is trimmed, its host feeds the spine directly") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));
    const AggregationTree one_each = plan_aggregation_tree(topology, {0, 6});
    check_well_formed(one_each);
    REQUIRE(one_each.vertices.size() == 1);
    CHECK(one_each.describe(topology) == "spine0(h0 h6)");
    const AggregationTree mixed = plan_aggregation_tree(topology, {0, 1, 6});
    check_well_formed(mixed);
    CHECK(mixed.describe(topology) == "spine0(leaf0(h0 h1) h6)");
}

TEST_CASE("aggregation tree: a group of one host has no vertex") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));
    const AggregationTree tree = plan_aggregation_tree(topology, {5});
    CHECK(tree.root == -1);
    CHECK(tree.vertices.empty());
    CHECK(tree.vertex_of(5) == -1);
    CHECK(tree.depth() == 0);
}

TEST_CASE("aggregation tree: tree_index spreads groups over the spines") {
    const NetworkTopology topology = fat_tree_network(tree_of(16, 64));  // 6 leaves, 4 spines
    std::set<unsigned> roots;
    for (unsigned index = 0; index < 8; ++index) {
        const AggregationTree tree = plan_aggregation_tree(topology, first_hosts(64), index);
        check_well_formed(tree);
        roots.insert(tree.vertices[static_cast<std::size_t>(tree.root)].switch_index);
    }
    CHECK(roots.size() == 4);
}

TEST_CASE("aggregation tree: in a three-level fat tree a group inside one pod stays below the cores") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 64));             // 11 leaves, pods of 4 leaves
    const AggregationTree pod = plan_aggregation_tree(topology, first_hosts(24));  // leaves 0-3: pod 0
    check_well_formed(pod);
    CHECK(topology.switch_at(pod.vertices[static_cast<std::size_t>(pod.root)].switch_index).name.rfind("agg", 0) == 0);
    const AggregationTree all = plan_aggregation_tree(topology, first_hosts(64));
    check_well_formed(all);
    CHECK(topology.switch_at(all.vertices[static_cast<std::size_t>(all.root)].switch_index).name.rfind("core", 0) == 0);
    CHECK(all.depth() == 3);
}

TEST_CASE("aggregation tree: on a torus the tree is rooted at a centre switch and reaches every member") {
    const NetworkTopology topology = torus_network(TorusShape{4, 4, 1});
    const AggregationTree tree = plan_aggregation_tree(topology, first_hosts(16));
    check_well_formed(tree);
    CHECK(tree.depth() <= 4);  // eccentricity of a 4x4 torus node: 2 + 2
}

TEST_CASE("aggregation tree: the plan does not depend on the members' order") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));
    const AggregationTree forward = plan_aggregation_tree(topology, {3, 8, 20, 21, 30});
    const AggregationTree backward = plan_aggregation_tree(topology, {30, 21, 20, 8, 3});
    CHECK(forward.describe(topology) == backward.describe(topology));
}

TEST_CASE("aggregation tree: bad members are refused naming the member") {
    const NetworkTopology topology = fat_tree_network(tree_of(8, 32));
    CHECK_THROWS_WITH(plan_aggregation_tree(topology, {1, 32}), Catch::Contains("member 32 is not a host"));
    CHECK_THROWS_WITH(plan_aggregation_tree(topology, {4, 4}), Catch::Contains("member 4 appears twice"));
    CHECK_THROWS_AS(plan_aggregation_tree(topology, {}), std::invalid_argument);
}
