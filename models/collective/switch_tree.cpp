#include "isvp/switch_tree.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace isvp {

std::map<int, TreeRole> tree_roles(const NetworkTopology& topology, const AggregationTree& tree, int root_host,
                                   const std::map<unsigned, int>& comm_ranks) {
    const auto rank_of = [&](unsigned host) {
        if (!comm_ranks.empty()) return comm_ranks.at(host);
        return static_cast<int>(std::find(tree.members.begin(), tree.members.end(), host) - tree.members.begin());
    };
    // The comm ranks below each input, as ascending runs.
    const std::function<void(const AggregationInput&, std::vector<int>&)> collect = [&](const AggregationInput& input,
                                                                                        std::vector<int>& ranks) {
        if (input.kind == AggregationInput::Kind::Host) {
            ranks.push_back(rank_of(input.index));
            return;
        }
        for (const AggregationInput& below : tree.vertices.at(input.index).inputs) collect(below, ranks);
    };
    const auto runs_of = [&](const AggregationInput& input) {
        std::vector<int> ranks;
        collect(input, ranks);
        std::sort(ranks.begin(), ranks.end());
        std::vector<BlockSpan> runs;
        for (const int r : ranks) {
            if (!runs.empty() && static_cast<int>(runs.back().first + runs.back().count) == r)
                ++runs.back().count;
            else
                runs.push_back(BlockSpan{static_cast<std::uint32_t>(r), 1});
        }
        return runs;
    };
    const int size = static_cast<int>(tree.members.size());
    const auto vertex_address = [&](int v) {
        return static_cast<int>(
            switch_engine_address(topology, tree.vertices.at(static_cast<std::size_t>(v)).switch_index));
    };
    bool root_is_member = root_host < 0;
    const int root_vertex = tree.root >= 0 ? vertex_address(tree.root) : -1;
    std::map<int, TreeRole> roles;
    for (const unsigned host : tree.members) {
        TreeRole role;
        role.self = static_cast<int>(host);
        const int v = tree.vertex_of(host);
        role.parent = v >= 0 ? vertex_address(v) : -1;
        role.root_vertex = root_vertex;
        role.root_host = root_host;
        role.size = size;
        role.rank = rank_of(host);
        roles[role.self] = role;
        root_is_member = root_is_member || static_cast<int>(host) == root_host;
    }
    if (!root_is_member)
        throw std::invalid_argument("tree roles: root host " + std::to_string(root_host) + " is not a member");
    for (std::size_t v = 0; v < tree.vertices.size(); ++v) {
        const AggregationVertex& vertex = tree.vertices[v];
        TreeRole role;
        role.vertex = true;
        role.self = vertex_address(static_cast<int>(v));
        role.parent = vertex.parent >= 0 ? vertex_address(vertex.parent) : -1;
        role.root_vertex = root_vertex;
        role.root_host = root_host;
        role.size = size;
        for (const AggregationInput& input : vertex.inputs) role.child_ranks.push_back(runs_of(input));
        if (root_host >= 0) {  // Gather: the input the root is below
            const int root_rank = rank_of(static_cast<unsigned>(root_host));
            for (std::size_t i = 0; i < role.child_ranks.size(); ++i)
                for (const BlockSpan& run : role.child_ranks[i])
                    if (root_rank >= static_cast<int>(run.first) && root_rank < static_cast<int>(run.first + run.count))
                        role.root_input = static_cast<int>(i);
        }
        for (const AggregationInput& input : vertex.inputs)
            role.children.push_back(input.kind == AggregationInput::Kind::Host
                                        ? static_cast<int>(input.index)
                                        : vertex_address(static_cast<int>(input.index)));
        roles[role.self] = role;
    }
    return roles;
}

}  // namespace isvp
