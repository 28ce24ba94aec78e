// PartitionPlan: which simulator process (partition) owns which switches and
// hosts of a NetworkTopology when one platform is simulated by several
// processes (docs/PARTITIONS.md). Plain C++.
//
// Partition k owns the contiguous block of switches [k·S/P, (k+1)·S/P) by
// switch index, and a host belongs to the partition of its switch; any
// topology (torus, fat tree, file) is cut the same way. A cable whose ends
// lie in two partitions is cut: each direction becomes a channel whose
// packets and credits cross between the processes. The lookahead of the
// conservative synchronisation is the smallest latency of a cut cable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isvp/fabric_config.h"
#include "isvp/network_topology.h"

namespace isvp {

/// One direction of a cut cable: from switch `from` port `from_port` to
/// switch `to` port `to_port`. Its id (index in PartitionPlan::channels())
/// is 2 · cable + (0 for a → b, 1 for b → a).
struct CutChannel {
    unsigned cable = 0;            ///< cable index in the topology
    unsigned from = 0;             ///< sending switch
    unsigned from_port = 0;        ///< its port
    unsigned to = 0;               ///< receiving switch
    unsigned to_port = 0;          ///< its port
    std::uint64_t latency_ps = 0;  ///< the cable's latency (credits travel back in it)
    bool cut = false;              ///< the two ends are in different partitions
};

class PartitionPlan {
  public:
    /// Cuts `config`'s topology into `partitions` contiguous blocks of
    /// switches. Throws ConfigError naming the problem: fewer switches than
    /// partitions, or a cut cable of zero latency (no lookahead).
    PartitionPlan(const FabricConfig& config, unsigned partitions);

    unsigned partitions() const { return partitions_; }
    unsigned switch_owner(unsigned switch_index) const { return switch_owner_.at(switch_index); }
    unsigned host_owner(unsigned host) const { return host_owner_.at(host); }
    /// Every cable direction by channel id (cut or not).
    const std::vector<CutChannel>& channels() const { return channels_; }
    /// Channel id of the direction leaving `switch_index` through `port` (a cable end).
    unsigned channel_from(const NetworkTopology& topology, unsigned switch_index, unsigned port) const;
    /// Cut channels (both directions of every cut cable).
    std::size_t cut_channels() const { return cut_count_; }
    /// Smallest latency of a cut cable, ps (the synchronisation's lookahead);
    /// 0 with one partition.
    std::uint64_t lookahead_ps() const { return lookahead_ps_; }
    /// "partition 1 (switches 16..31, hosts 16..31)".
    std::string describe(unsigned partition) const;

  private:
    unsigned partitions_;
    std::vector<unsigned> switch_owner_;  ///< by switch
    std::vector<unsigned> host_owner_;    ///< by host
    std::vector<CutChannel> channels_;    ///< by channel id
    std::size_t cut_count_ = 0;           ///< channels with cut set
    std::uint64_t lookahead_ps_ = 0;      ///< min latency of a cut cable
};

}  // namespace isvp
