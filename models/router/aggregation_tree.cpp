#include "isvp/aggregation_tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

namespace isvp {

namespace {

/// Switches joined to `index` by a cable, ascending, each once.
std::vector<unsigned> neighbours(const NetworkTopology& topology, unsigned index) {
    std::vector<unsigned> result;
    for (unsigned port = 0; port < topology.switch_at(index).ports; ++port) {
        const PortPeer& peer = topology.peer(index, port);
        if (peer.kind == PortPeer::Kind::Switch) result.push_back(peer.index);
    }
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
}

/// The root switch: smallest eccentricity over the member switches, then
/// the highest level, then the tree_index-th in switch order.
unsigned choose_root(const NetworkTopology& topology, const std::vector<unsigned>& member_switches,
                     unsigned tree_index) {
    if (member_switches.size() == 1) return member_switches.front();
    std::vector<unsigned> eccentricity(topology.switches(), 0);
    for (const unsigned from : member_switches) {
        const std::vector<unsigned> distance = topology.switch_distances(from);
        for (unsigned s = 0; s < topology.switches(); ++s) eccentricity[s] = std::max(eccentricity[s], distance[s]);
    }
    const unsigned nearest = *std::min_element(eccentricity.begin(), eccentricity.end());
    unsigned highest = 0;
    for (unsigned s = 0; s < topology.switches(); ++s)
        if (eccentricity[s] == nearest) highest = std::max(highest, topology.switch_at(s).level);
    std::vector<unsigned> candidates;
    for (unsigned s = 0; s < topology.switches(); ++s)
        if (eccentricity[s] == nearest && topology.switch_at(s).level == highest) candidates.push_back(s);
    return candidates[tree_index % candidates.size()];
}

}  // namespace

AggregationTree plan_aggregation_tree(const NetworkTopology& topology, std::vector<unsigned> members,
                                      unsigned tree_index) {
    if (members.empty()) throw std::invalid_argument("aggregation tree: a group needs at least one member host");
    std::sort(members.begin(), members.end());
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (members[i] >= topology.hosts())
            throw std::invalid_argument("aggregation tree: member " + std::to_string(members[i]) +
                                        " is not a host of the " + std::to_string(topology.hosts()) + "-host network");
        if (i > 0 && members[i] == members[i - 1])
            throw std::invalid_argument("aggregation tree: member " + std::to_string(members[i]) + " appears twice");
    }
    AggregationTree tree;
    tree.members = members;

    std::map<unsigned, std::vector<unsigned>> hosts_at;  // switch -> its member hosts, ascending
    for (const unsigned host : members) hosts_at[topology.host(host).switch_index].push_back(host);
    std::vector<unsigned> member_switches;
    for (const auto& entry : hosts_at) member_switches.push_back(entry.first);
    const unsigned root_switch = choose_root(topology, member_switches, tree_index);

    // Every member switch's shortest path to the root; their union.
    const std::vector<unsigned> distance = topology.switch_distances(root_switch);
    std::map<unsigned, std::vector<unsigned>> children;  // switch -> child switches on the tree, ascending
    std::map<unsigned, bool> on_tree{{root_switch, true}};
    for (unsigned at : member_switches) {
        while (!on_tree[at]) {
            on_tree[at] = true;
            unsigned next = at;
            for (const unsigned n : neighbours(topology, at))
                if (distance[n] + 1 == distance[at]) {
                    next = n;  // the lowest-indexed neighbour one step closer
                    break;
                }
            children[next].push_back(at);
            at = next;
        }
    }
    for (auto& entry : children) std::sort(entry.second.begin(), entry.second.end());

    // Bottom up; a switch with a single input passes it on (trimmed).
    const std::function<AggregationInput(unsigned)> build = [&](unsigned at) {
        std::vector<AggregationInput> inputs;
        for (const unsigned host : hosts_at[at]) inputs.push_back({AggregationInput::Kind::Host, host, host, 1});
        for (const unsigned child : children[at]) inputs.push_back(build(child));
        if (inputs.size() == 1) return inputs.front();
        std::sort(inputs.begin(), inputs.end(),
                  [](const AggregationInput& a, const AggregationInput& b) { return a.first_member < b.first_member; });
        AggregationVertex vertex;
        vertex.switch_index = at;
        vertex.first_member = inputs.front().first_member;
        for (const AggregationInput& input : inputs) vertex.members += input.members;
        const auto index = static_cast<unsigned>(tree.vertices.size());
        for (const AggregationInput& input : inputs)
            if (input.kind == AggregationInput::Kind::Vertex)
                tree.vertices[input.index].parent = static_cast<int>(index);
        vertex.inputs = std::move(inputs);
        tree.vertices.push_back(vertex);
        return AggregationInput{AggregationInput::Kind::Vertex, index, tree.vertices[index].first_member,
                                tree.vertices[index].members};
    };
    const AggregationInput top = build(root_switch);
    if (top.kind == AggregationInput::Kind::Vertex) tree.root = static_cast<int>(top.index);
    return tree;
}

unsigned AggregationTree::depth() const {
    unsigned deepest = 0;
    for (const AggregationVertex& vertex : vertices) {
        unsigned levels = 1;
        for (int at = vertex.parent; at >= 0; at = vertices[static_cast<std::size_t>(at)].parent) ++levels;
        deepest = std::max(deepest, levels);
    }
    return deepest;
}

int AggregationTree::vertex_of(unsigned host) const {
    for (std::size_t v = 0; v < vertices.size(); ++v)
        for (const AggregationInput& input : vertices[v].inputs)
            if (input.kind == AggregationInput::Kind::Host && input.index == host) return static_cast<int>(v);
    return -1;
}

std::string AggregationTree::describe(const NetworkTopology& topology) const {
    if (root < 0) return members.empty() ? "" : "h" + std::to_string(members.front());
    const std::function<std::string(unsigned)> text = [&](unsigned v) {
        const AggregationVertex& vertex = vertices[v];
        std::string out = topology.switch_at(vertex.switch_index).name + "(";
        for (std::size_t i = 0; i < vertex.inputs.size(); ++i) {
            const AggregationInput& input = vertex.inputs[i];
            out += (i ? " " : "") +
                   (input.kind == AggregationInput::Kind::Host ? "h" + std::to_string(input.index) : text(input.index));
        }
        return out + ")";
    };
    return text(static_cast<unsigned>(root));
}

}  // namespace isvp
