// ClusterPlatform: a cluster — the network (network.model = packet: the
// fabric of routers and Aurora links of a torus, fat tree or topology file;
// flow: a FlowNetwork of the same topology) and one Node per host of it —
// built from parameters.
//
// Ranks map to nodes one to one (rank r on node r, host address r); nodes beyond the job's
// ranks get a small local host memory and an IdleHost. The caller binds a
// guest gateway to each rank's node: gateway.mmio -> node(r).pcie.host_mmio,
// node(r).bridge.msi -> gateway.msi.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "isvp/fabric.h"
#include "isvp/flow_config.h"
#include "isvp/node.h"
#include "isvp/parameters.h"
#include "isvp/partition_plan.h"
#include "isvp/pcie_transaction_log.h"
#include "isvp/rank_placement.h"
#include "isvp/switch_engine.h"
#include "isvp/trace_writer.h"
#include "isvp/wakeup_scheduler.h"

namespace isvp {

class FlowNetwork;  // models/flow: only the platform's source needs its definition

/// Every parameter of the platform, from all its blocks.
struct PlatformConfig {
    FabricConfig fabric;         ///< topology.*, router.*, aurora.*
    NetworkModelConfig network;  ///< network.model
    NodeConfig node;             ///< pcie.*, qdma.*
    ReliableConfig reliable;     ///< reliable.*
    TraceConfig trace;           ///< trace.*
    /// job.memory_limit_gib (declared with the job's parameters, absent in
    /// testbenches): memory a job's platform may need, GiB; 0 = what the
    /// machine has available.
    double memory_limit_gib = 0;
    /// A distributed simulation (docs/PARTITIONS.md): the platform is
    /// partition `partition` of `partition_plan` and builds only its
    /// switches and nodes. Null: the whole platform. Not a parameter.
    std::shared_ptr<const PartitionPlan> partition_plan;
    unsigned partition = 0;
    /// Which node each rank runs on (`isvp run --map-by/--rankfile`);
    /// default: rank r on node r. Not a parameter.
    RankPlacement placement;

    static void declare(Parameters& parameters);
    static PlatformConfig from(const Parameters& parameters);
};

/// A rank's host memory as the platform sees it.
struct MemorySpan {
    std::uint8_t* base = nullptr;
    std::size_t bytes = 0;
};

class ClusterPlatform : public sc_core::sc_module {
  public:
    /// `ranks`: host memory of each rank (at most the fabric's node count);
    /// rank r's is node config.placement.node_of(r)'s.
    ClusterPlatform(sc_core::sc_module_name name, const PlatformConfig& config, const std::vector<MemorySpan>& ranks);

    ~ClusterPlatform() override;

    unsigned nodes() const;
    unsigned ranks() const { return ranks_; }
    Node& node(unsigned index);
    /// Node `index` is simulated here (always, unless partitioned).
    bool has_node(unsigned index) const { return nodes_.at(index) != nullptr; }
    /// The routers and links (network.model = packet); throws
    /// std::logic_error under the flow model, which has none.
    Fabric& fabric();
    /// The flow network (network.model = flow), else null.
    FlowNetwork* flow_network() { return flow_.get(); }
    /// The wake-up scheduler of the fabric's blocks (network.model = packet)
    /// or of the NIC engines (flow), or null.
    WakeupScheduler* wakeup_scheduler();
    /// With the flow network: how often its scheduler woke a NIC engine.
    std::uint64_t flow_engine_wakeups() const { return engine_scheduler_ ? engine_scheduler_->wakeups() : 0; }
    const NetworkTopology& topology() const;
    /// Switch-to-switch hops of packets so far (the simulator-speed unit), either model.
    std::uint64_t packet_hops() const;
    /// Packets the links dropped so far (none under the flow model).
    std::size_t link_drops() const { return fabric_ ? fabric_->drops().size() : 0; }

    /// Statistics of every block; `elapsed` gives utilisations.
    nlohmann::json statistics(const sc_core::sc_time& elapsed) const;

    /// The trace being written (trace.file), or null.
    TraceWriter* trace() { return trace_.get(); }
    /// Completes and closes the trace file (also done on destruction).
    void finish_trace();
    /// Whether nodes deliver through ReliableEndpoints (reliable.mode).
    bool reliable() const { return reliable_; }

    /// Losses found by the reliable-delivery layer so far, each named with
    /// the link(s) that dropped the packets: one line each.
    const std::vector<std::string>& losses() const { return losses_; }

  private:
    /// A ReliableEndpoint found lost packets: names the link (a warning,
    /// losses()) and tells both nodes (Node::link_fault); the job goes on —
    /// unless the path made no progress (PacketLoss::no_progress): then an
    /// error naming it ends the job.
    void on_loss(const PacketLoss& loss);

    std::unique_ptr<TraceWriter> trace_;                  ///< trace.file, or null
    std::unique_ptr<PcieTransactionLog> pcie_log_;        ///< trace.pcie, or null (closed before trace_)
    std::unique_ptr<Fabric> fabric_;                      ///< routers and links (network.model = packet), else null
    std::unique_ptr<FlowNetwork> flow_;                   ///< the flow network (network.model = flow), else null
    /// With the flow network: wakes the NIC engines, as the fabric's
    /// scheduler does on a packet network (else null).
    std::unique_ptr<WakeupScheduler> engine_scheduler_;
    unsigned ranks_;                                      ///< nodes that run a rank
    std::vector<std::unique_ptr<Node>> nodes_;            ///< one per fabric node; null where another partition has it
    std::vector<std::unique_ptr<IdleHost>> idle_hosts_;   ///< CPUs of rank-less nodes
    std::vector<std::vector<std::uint8_t>> idle_memory_;  ///< their small host memories
    bool reliable_ = false;                               ///< ReliableEndpoints built
    double bit_error_rate_ = 0.0;                         ///< aurora.bit_error_rate (named when a path is dead)
    std::vector<std::string> losses_;                     ///< what on_loss reported
    /// collective.placement = switch: one engine per switch (at nodes() + switch index).
    std::vector<std::unique_ptr<SwitchCollectiveEngine>> switch_engines_;
    /// Reliable delivery with switch engines: one endpoint per engine, and
    /// each engine and its endpoint by network address (on_loss).
    std::vector<std::unique_ptr<ReliableEndpoint>> switch_endpoints_;
    std::map<unsigned, std::pair<SwitchCollectiveEngine*, ReliableEndpoint*>> engine_at_;
    std::unique_ptr<sc_core::sc_module> kernel_noise_;  ///< test only: ISVP_TEST_KERNEL_NOISE_PS, or null
    std::unique_ptr<sc_core::sc_module> injected_error_;  ///< test only: ISVP_TEST_PLATFORM_ERROR, or null

  public:
    const std::vector<std::unique_ptr<SwitchCollectiveEngine>>& switch_engines() const { return switch_engines_; }
    /// Reliable delivery with switch engines: their endpoints (else empty).
    const std::vector<std::unique_ptr<ReliableEndpoint>>& switch_endpoints() const { return switch_endpoints_; }
};

}  // namespace isvp
