// Fabric: the network of a cluster — one Router per switch of a
// NetworkTopology and one AuroraLink per direction of every cable, built
// from parameters (FabricConfig) and bound (DESIGN §3.1, §3.4-3.6, §9).
// The same class builds the 3D torus (a switch per node, the node on its
// local port), the spine-leaf fat tree and any graph of a topology file.
//
// Abstraction: that of its parts (packet-level, approximately timed). For
// each host it exposes the port of its switch for the platform to bind to
// the host's NIC (the node's collective engine / QDMA side):
//   NIC tx (packet initiator)   -> inject(host)        packet target
//   inject_credit(host)         -> NIC tx credits      credit initiator
//   eject(host)                 -> NIC rx              packet initiator
//   NIC rx credits (initiator)  -> eject_credit(host)  credit target
// Cable ends: port a_port of switch a drives a link into port b_port of
// switch b, and the other link the reverse way. Each link has the cable's
// latency and line rate (aurora.* where the cable gives none).
//
// Not modelled: the host side (QDMA, PCIe: other blocks).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "isvp/aurora_link.h"
#include "isvp/fabric_config.h"
#include "isvp/network_topology.h"
#include "isvp/partition_boundary.h"
#include "isvp/partition_plan.h"
#include "isvp/router.h"

namespace isvp {

/// A packet an Aurora link of the fabric dropped (CRC error in drop mode, or
/// replays exhausted): the link, and what the packet was to the reliable-
/// delivery layer (models/reliable), so a loss can be traced to its link.
struct LinkDrop {
    std::uint32_t from = 0;                             ///< switch the link leaves
    std::uint32_t to = 0;                               ///< switch it enters
    unsigned port = 0;                                  ///< port of `from` it leaves through
    bool sequenced = false;                             ///< carried a reliable-delivery sequence number
    std::uint16_t source = 0;                           ///< its source node (if sequenced)
    std::uint32_t sequence = 0;                         ///< its sequence number (if sequenced)
    std::uint32_t destination = PacketInfo::kUnrouted;  ///< its destination node
};

class Fabric : public sc_core::sc_module {
  public:
    /// Input VCs (ports x VCs, summed over the switches a process holds)
    /// from which its routers give the wake-up scheduler hints
    /// (WakeupScheduler::Hint): below it their records stay in the caches
    /// and describing the hints costs more than it saves. Measured on
    /// tori of 2 VCs (7 ports a switch): a loss at 64 switches, level at
    /// 128 and 256, a gain at 512; this is 256 such switches.
    /// `router.wakeup_hints` = on or off overrides it.
    static constexpr std::size_t kHintedInputVcs = 256 * 7 * 2;

    /// Builds and binds the fabric; throws ConfigError for a bad config.
    Fabric(sc_core::sc_module_name name, const FabricConfig& config);
    /// The same with a routing policy supplied by the caller in place of the
    /// configured one (experiments with policies not registered by name);
    /// null: the configured one.
    Fabric(sc_core::sc_module_name name, const FabricConfig& config, std::shared_ptr<const RoutingPolicy> routing);
    /// Partition `partition` of a distributed simulation (`plan`, which must
    /// outlive the fabric): only the switches it owns are built, with the
    /// links leaving them; cut cables end at boundary() (docs/PARTITIONS.md).
    /// Routers and links of other partitions do not exist here (router(s)
    /// of one throws, link() gives null).
    Fabric(sc_core::sc_module_name name, const FabricConfig& config, const PartitionPlan& plan, unsigned partition);
    /// The general form: `routing` may be null (the configured policy),
    /// `plan` null (the whole fabric).
    Fabric(sc_core::sc_module_name name, const FabricConfig& config, std::shared_ptr<const RoutingPolicy> routing,
           const PartitionPlan* plan, unsigned partition);

    const FabricConfig& config() const { return config_; }
    const NetworkTopology& topology() const { return topology_; }
    const RoutingPolicy& routing() const { return *routing_; }
    /// Hosts (nodes that run a rank) of the network.
    unsigned nodes() const { return topology_.hosts() - topology_.engines(); }
    unsigned switches() const { return topology_.switches(); }

    /// Per endpoint address: a host's NIC, or (FabricConfig::switch_engines)
    /// a switch's collective engine at nodes() + switch index.
    Router::PacketInSocket& inject(unsigned host);          ///< packets from the host's NIC
    Router::CreditOutSocket& inject_credit(unsigned host);  ///< credits back to the host's NIC
    Router::PacketOutSocket& eject(unsigned host);          ///< packets to the host's NIC
    Router::CreditInSocket& eject_credit(unsigned host);    ///< credits from the host's NIC

    Router& router(unsigned switch_index);
    const Router& router(unsigned switch_index) const;
    /// The switch is simulated here (always, unless the fabric is a partition).
    bool owns(unsigned switch_index) const { return routers_.at(switch_index) != nullptr; }
    /// The host's switch is simulated here.
    bool owns_host(unsigned host) const { return owns(topology_.host(host).switch_index); }
    /// The cut cables of a partition; null for a whole fabric.
    PartitionBoundary* boundary() { return boundary_.get(); }
    /// The link leaving switch `switch_index` through `port`; nullptr if
    /// that port has no cable.
    const AuroraLink* link(unsigned switch_index, unsigned port) const;
    /// Name of port `port` of a switch: "xplus" ... "local" on a torus,
    /// "p<port>" elsewhere.
    std::string port_name(unsigned switch_index, unsigned port) const;
    /// "node 3 -> node 7 (xplus)", "leaf0 -> spine1 (p6)".
    std::string describe(const LinkDrop& drop) const;
    /// DESIGN's min_buf for these routers and the slowest cable, bytes.
    std::uint64_t minimum_input_buffer_bytes() const;

    /// The scheduler that wakes the routers; endpoints may share it
    /// (PacketSource::use_scheduler).
    WakeupScheduler& scheduler() { return scheduler_; }
    /// Packets sent over switch-to-switch links so far (the simulator-speed unit).
    std::uint64_t packet_hops() const;
    /// Counters of every router and link; `elapsed` gives utilisations.
    nlohmann::json statistics(const sc_core::sc_time& elapsed) const;
    /// Each link warns about its first `count` drops only (Aurora README).
    void limit_drop_warnings(std::uint64_t count);
    /// Every packet a link dropped so far, in order.
    const std::vector<LinkDrop>& drops() const { return drops_; }

  private:
    /// Switch name in reports: "node N" on a torus, the topology's name elsewhere.
    std::string switch_label(unsigned switch_index) const;
    /// Builds the link from `from`:`from_port` to `to`:`to_port` and binds it.
    void connect(unsigned from, unsigned from_port, unsigned to, unsigned to_port, const AuroraConfig& link,
                 std::uint64_t stream);

    FabricConfig config_;                             ///< parameters
    NetworkTopology topology_;                        ///< switches, cables, hosts
    bool torus_;                                      ///< the torus's names and link numbering
    std::shared_ptr<const RoutingPolicy> routing_;    ///< shared by every router
    WakeupScheduler scheduler_;                       ///< wakes every router (one SC_METHOD)
    std::vector<std::unique_ptr<Router>> routers_;    ///< one per switch; null where another partition has it
    const PartitionPlan* plan_;                       ///< the partitioning, or null for a whole fabric
    std::unique_ptr<PartitionBoundary> boundary_;     ///< cut cables of a partition, else null
    std::vector<std::size_t> first_port_;             ///< [switch]: index of its port 0 in links_
    std::vector<std::unique_ptr<AuroraLink>> links_;  ///< [first_port_[s] + port], null where no cable
    std::vector<LinkDrop> drops_;                     ///< packets the links dropped
};

}  // namespace isvp
