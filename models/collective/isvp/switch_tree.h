// The aggregation tree of a communicator as the switch-resident collective
// engines run it (collective.placement = switch; docs/COLLECTIVES.md,
// "Switch-resident engines"): every switch of an indirect network has an
// engine at an extra port, network address hosts + switch index; a group's
// tree (plan_aggregation_tree: root, trimming, combining order) gives each
// member host and each combining switch its TreeRole. No SystemC.
#pragma once

#include <cstdint>
#include <map>

#include "isvp/aggregation_tree.h"
#include "isvp/collective_schedule.h"
#include "isvp/network_topology.h"

namespace isvp {

/// Network address of the collective engine of switch `switch_index`.
inline unsigned switch_engine_address(const NetworkTopology& topology, unsigned switch_index) {
    return static_cast<unsigned>(topology.hosts()) + switch_index;
}

/// The switch whose engine plans the trees (SHArP mode: the aggregation
/// manager): the highest switch, the lowest index among equals.
inline unsigned tree_planner_switch(const NetworkTopology& topology) {
    unsigned planner = 0;
    for (unsigned s = 1; s < topology.switches(); ++s)
        if (topology.switch_at(s).level > topology.switch_at(planner).level) planner = s;
    return planner;
}

/// The role of every participant of `tree` (member hosts and vertices) keyed
/// by network address; `root_host`: the root's address for Bcast (-1 for
/// none; it must be a member); `comm_ranks`: each member host's comm rank
/// (empty: its place in tree.members), which gives the hosts' `rank` and the
/// vertices' `child_ranks` (per-rank collectives).
std::map<int, TreeRole> tree_roles(const NetworkTopology& topology, const AggregationTree& tree, int root_host = -1,
                                   const std::map<unsigned, int>& comm_ranks = {});

}  // namespace isvp
