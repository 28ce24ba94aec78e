// RankPlacement: which host (network address) each MPI rank of a job runs on
// — the rank → endpoint map held as data (DESIGN §9). Plain C++.
//
// By default rank r runs on host r. `isvp run --map-by switch` spreads the
// ranks round-robin over the switches that have hosts (one rank per leaf in
// turn on a fat tree), and `--rankfile FILE` names each rank's host in Open
// MPI's rankfile syntax. The launcher binds rank r's guest to host
// nodes[r]; the guest driver writes node addresses into the network header
// and fills the switch's forwarding table (global rank → node) from the same
// map, which the launcher hands it (ISVP_RANK_NODES).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isvp/network_topology.h"

namespace isvp {

struct RankPlacement {
    /// Host of rank r; empty: rank r on host r (the identity, the default).
    std::vector<std::uint16_t> nodes;

    bool identity() const { return nodes.empty(); }
    unsigned node_of(unsigned rank) const { return nodes.empty() ? rank : nodes.at(rank); }

    /// "host" (rank r on host r) or "switch" (round-robin over the switches
    /// with hosts, by switch index; each switch's hosts by address). Throws
    /// ConfigError naming `option`: an unknown policy, more ranks than hosts.
    static RankPlacement map_by(std::string_view policy, unsigned ranks, const NetworkTopology& topology,
                                const std::string& option = "--map-by");

    /// Open MPI's rankfile: one line per rank, "rank R=HOST [slot=0]", HOST
    /// "nodeK" (the node's name) or "+nK" (the K-th host of the allocation:
    /// the same here), '#' starts a comment. Every rank 0..ranks-1 exactly
    /// once, each host at most once (a node runs one rank). Throws
    /// ConfigError naming `source`, the line and what is wrong.
    static RankPlacement from_rankfile(std::string_view text, unsigned ranks, const NetworkTopology& topology,
                                       const std::string& source);

    /// "rank 0 on node 3, rank 1 on node 0, ..." shortened for reports:
    /// "ranks on nodes 3,0,1,2" (at most `shown` entries, then "...").
    std::string describe(unsigned shown = 16) const;
};

}  // namespace isvp
