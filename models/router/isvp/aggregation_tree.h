// The aggregation tree of a group of hosts over a network: which switches
// combine whose data, in which fixed order, toward which root — the
// structure both in-switch reduction designs use on indirect networks
// (MPI-FPGA's leaf/spine reduction, SHArP's aggregation trees and groups).
// No SystemC.
//
// Planning, for the hosts of a group (a communicator's members):
//   * root: among the switches whose farthest member switch is nearest
//     (smallest eccentricity over the members' switches), the highest level
//     first, then the `tree_index`-th in switch order (modulo their count),
//     so trees of different groups spread over the spines of a fat tree;
//     members on one switch give that switch;
//   * edges: each member's switch joins the root along a shortest path
//     (toward the root, the lowest-indexed neighbour one step closer), the
//     union of the paths is the tree;
//   * trimming: a switch with a single input (one member host, or one child
//     switch) combines nothing and is left out — its input goes straight to
//     the switch above, as SHArP trims a group's sub-tree where its width
//     becomes one. Every vertex left combines two inputs or more; a group of
//     one host has no vertex.
// Order: a vertex combines its inputs in ascending order of their lowest
// member host, whatever order they arrive in, so floating-point results are
// the same run after run and on every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isvp/network_topology.h"

namespace isvp {

/// One input of a vertex: a member host or a vertex below.
struct AggregationInput {
    enum class Kind : std::uint8_t { Host, Vertex };
    Kind kind = Kind::Host;
    unsigned index = 0;         ///< host address or vertex index
    unsigned first_member = 0;  ///< lowest member host it carries (the combining order)
    unsigned members = 0;       ///< member hosts it carries
    bool operator==(const AggregationInput& other) const {
        return kind == other.kind && index == other.index && first_member == other.first_member &&
               members == other.members;
    }
};

/// A switch that combines data of the group.
struct AggregationVertex {
    unsigned switch_index = 0;             ///< where it sits
    std::vector<AggregationInput> inputs;  ///< at least two, in combining order
    int parent = -1;                       ///< vertex it sends its result to; -1 at the root
    unsigned first_member = 0;             ///< lowest member host below it
    unsigned members = 0;                  ///< member hosts below it
};

struct AggregationTree {
    std::vector<unsigned> members;            ///< the group's hosts, ascending
    std::vector<AggregationVertex> vertices;  ///< bottom up: every vertex after its inputs
    int root = -1;                            ///< index of the root vertex; -1 for a group of one host

    /// Vertices on the longest path from a member host to the root.
    unsigned depth() const;
    /// The vertex a member host sends its data to (-1 for a group of one).
    int vertex_of(unsigned host) const;
    /// "spine1(leaf0(h0 h1) leaf1(h6 h7))": for reports and test messages.
    std::string describe(const NetworkTopology& topology) const;
};

/// Plans the tree of `members` (host addresses, any order) over `topology`;
/// throws std::invalid_argument naming the member when one is not a host of
/// the network or appears twice, or when `members` is empty.
AggregationTree plan_aggregation_tree(const NetworkTopology& topology, std::vector<unsigned> members,
                                      unsigned tree_index = 0);

}  // namespace isvp
