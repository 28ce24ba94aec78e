#include "isvp/switch_tree.h"

#include <stdexcept>
#include <string>

namespace isvp {

std::map<int, TreeRole> tree_roles(const NetworkTopology& topology, const AggregationTree& tree, int root_host) {
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
        for (const AggregationInput& input : vertex.inputs)
            role.children.push_back(input.kind == AggregationInput::Kind::Host
                                        ? static_cast<int>(input.index)
                                        : vertex_address(static_cast<int>(input.index)));
        roles[role.self] = role;
    }
    return roles;
}

}  // namespace isvp
