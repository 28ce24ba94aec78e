#include "isvp/cluster_platform.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "isvp/flow_network.h"
#include "isvp/register_map.h"
#include "isvp/statistics_table.h"
#include "isvp/switch_tree.h"

namespace isvp {

namespace {
/// Host memory of a node without a rank: nothing but what an idle device
/// might be pointed at; its QDMA queues stay disabled.
constexpr std::size_t kIdleMemoryBytes = 64 * 1024;
/// With reliable delivery, drops each link reports with a warning (then counts only).
constexpr std::uint64_t kReportedDropsPerLink = 3;

/// Test only (environment ISVP_TEST_KERNEL_NOISE_PS = a period in ps): a
/// method that does nothing but notify itself every period. It changes no
/// block of the model, only the SystemC kernel's event-queue history and so
/// the order in which the kernel runs processes due at one time and delta;
/// results must not change (docs/PARTITIONS.md, "Determinism"; CTest
/// determinism_kernel_noise_*).
class KernelNoise : public sc_core::sc_module {
  public:
    KernelNoise(sc_core::sc_module_name name, const sc_core::sc_time& period) : sc_module(name), period_(period) {
        SC_HAS_PROCESS(KernelNoise);
        SC_METHOD(tick);
        sensitive << event_;
    }

  private:
    void tick() { event_.notify(period_); }
    sc_core::sc_time period_;  ///< between two notifications
    sc_core::sc_event event_;  ///< its own
};

std::unique_ptr<sc_core::sc_module> make_kernel_noise() {
    const char* text = std::getenv("ISVP_TEST_KERNEL_NOISE_PS");
    if (text == nullptr || *text == '\0') return nullptr;
    char* end = nullptr;
    const unsigned long long period = std::strtoull(text, &end, 10);
    if (*end != '\0' || period == 0)
        throw ConfigError(std::string("ISVP_TEST_KERNEL_NOISE_PS must be a positive number of ps, got '") + text + "'");
    return std::make_unique<KernelNoise>("kernel_noise", sc_core::sc_time::from_value(period));
}
/// Test only (environment ISVP_TEST_PLATFORM_ERROR = "P:T", a partition and
/// a time in ps): partition P (0 without partitions) fails at T as a model
/// does when it meets an error it cannot go on from (SC_REPORT_ERROR in one
/// of its processes), to check how a job ends then, in one process and in
/// several (CTest partition_platform_error_*).
class InjectedPlatformError : public sc_core::sc_module {
  public:
    InjectedPlatformError(sc_core::sc_module_name name, const sc_core::sc_time& at) : sc_module(name) {
        SC_HAS_PROCESS(InjectedPlatformError);
        SC_METHOD(fire);
        sensitive << event_;
        dont_initialize();
        event_.notify(at);
    }

  private:
    void fire() { SC_REPORT_ERROR("isvp/test", "a platform error injected by a test (ISVP_TEST_PLATFORM_ERROR)"); }
    sc_core::sc_event event_;
};

std::unique_ptr<sc_core::sc_module> make_injected_platform_error(unsigned partition) {
    const char* text = std::getenv("ISVP_TEST_PLATFORM_ERROR");
    if (text == nullptr || *text == '\0') return nullptr;
    char* end = nullptr;
    const unsigned long failing = std::strtoul(text, &end, 10);
    unsigned long long at = 0;
    if (*end == ':') at = std::strtoull(end + 1, &end, 10);
    if (*end != '\0' || at == 0)
        throw ConfigError(std::string("ISVP_TEST_PLATFORM_ERROR must be PARTITION:PS (a time > 0 in ps), got '") +
                          text + "'");
    if (failing != partition) return nullptr;
    return std::make_unique<InjectedPlatformError>("injected_error", sc_core::sc_time::from_value(at));
}
}  // namespace

namespace {
/// network.flow_train_packets = n > 1 (flow model): the NICs' packets carry
/// n hardware packets' payload and every buffer that holds packets holds n
/// times the bytes, so a buffer or window of k packets is one of k trains
/// (a result batch keeps its bytes: CollectiveEngine::result_batch_chunks);
/// the flow network costs each train as its n hardware packets.
void scale_for_trains(PlatformConfig& config) {
    const unsigned n = config.network.train_packets;
    if (config.network.model != NetworkModel::Flow || n <= 1) return;
    CollectiveConfig& collective = config.node.collective;
    QdmaConfig& qdma = config.node.qdma;
    constexpr std::uint64_t kLargestPayload = 16384;  // collective.packet_payload_bytes' largest
    // One hardware packet size: the flow network costs every train by it.
    if (collective.packet_payload_bytes != qdma.packet_payload_bytes)
        throw ConfigError("config: network.flow_train_packets=" + std::to_string(n) +
                          " needs one hardware packet size, but collective.packet_payload_bytes=" +
                          std::to_string(collective.packet_payload_bytes) +
                          " and qdma.packet_payload_bytes=" + std::to_string(qdma.packet_payload_bytes) +
                          " differ: set them alike or leave network.flow_train_packets at 1");
    const std::uint64_t hardware = collective.packet_payload_bytes;
    if (hardware * n > kLargestPayload)
        throw ConfigError("config: network.flow_train_packets=" + std::to_string(n) + " makes trains of " +
                          std::to_string(hardware * n) + " payload bytes (packets of " + std::to_string(hardware) +
                          "), more than one packet can carry (" + std::to_string(kLargestPayload) +
                          "): lower it to at most " +
                          std::to_string(std::max<std::uint64_t>(1, kLargestPayload / hardware)));
    config.network.train_payload_bytes = collective.packet_payload_bytes;
    collective.train_payload_bytes = collective.packet_payload_bytes;
    qdma.train_payload_bytes = qdma.packet_payload_bytes;
    collective.packet_payload_bytes *= n;
    qdma.packet_payload_bytes *= n;
    // The QDMA's read-ahead and receive buffers cover a DMA round trip: four
    // times their bytes do as well as n times (same rows on the 256-node
    // 4 MiB Allreduce and the ping-pong; fewer than two trains serialise the
    // queue), without n times the memory.
    // (At most the largest buffer a QDMA has: one set near it holds many trains.)
    const unsigned buffers = std::min(n, 4u);
    qdma.rx_buffer_bytes = std::min(qdma.rx_buffer_bytes * buffers, QdmaConfig::kMaxBufferBytes);
    qdma.h2c_buffer_bytes = std::min(qdma.h2c_buffer_bytes * buffers, QdmaConfig::kMaxBufferBytes);
    // Each must still hold a whole train. QdmaConfig::validate would refuse
    // the scaled value, which the user never set: say what was set instead.
    for (const auto& [name, scaled, needed] :
         {std::tuple{"qdma.rx_buffer_bytes", qdma.rx_buffer_bytes, qdma.max_packet_credit_bytes()},
          std::tuple{"qdma.h2c_buffer_bytes", qdma.h2c_buffer_bytes, qdma.max_packet_bytes()}})
        if (scaled < needed)
            throw ConfigError("config: " + std::string(name) + "=" + std::to_string(scaled / buffers) +
                              " cannot hold a train with network.flow_train_packets=" + std::to_string(n) + " (" +
                              std::to_string(needed) + " B; trains scale it by " + std::to_string(buffers) + " to " +
                              std::to_string(scaled) + " B): set it to at least " +
                              std::to_string((needed + buffers - 1) / buffers) +
                              " or lower network.flow_train_packets");
    collective.host_buffer_phits *= n;
    collective.net_buffer_phits *= n;
    collective.early_buffer_bytes *= n;
    config.fabric.router.input_buffer_bytes *= n;
    config.reliable.tx_buffer_phits *= n;  // reliable.mode=on: it holds packets too
    config.reliable.retransmit_buffer_bytes *= n;
    config.fabric.validate();
}
}  // namespace

void PlatformConfig::declare(Parameters& parameters) {
    FabricConfig::declare(parameters);
    NetworkModelConfig::declare(parameters);
    PcieConfig::declare(parameters);
    QdmaConfig::declare(parameters);
    AgluConfig::declare(parameters);
    CollectiveConfig::declare(parameters);
    KernelConfig::declare(parameters);
    ReliableConfig::declare(parameters);
    TraceConfig::declare(parameters);
}

PlatformConfig PlatformConfig::from(const Parameters& parameters) {
    PlatformConfig config;
    config.fabric = FabricConfig::from(parameters);
    config.network = NetworkModelConfig::from(parameters, config.fabric);
    config.node.pcie = PcieConfig::from(parameters);
    config.node.qdma = QdmaConfig::from(parameters);
    config.node.aglu = AgluConfig::from(parameters);
    config.node.collective = CollectiveConfig::from(parameters);
    config.node.kernel = KernelConfig::from(parameters);
    config.reliable = ReliableConfig::from(parameters);
    config.trace = TraceConfig::from(parameters);
    // Declared with the job's parameters (TransportConfig); absent when the
    // platform is built without them (testbenches).
    config.node.collective.timing_only =
        parameters.is_declared("job.timing_only") && parameters.flag("job.timing_only");
    // collective.placement = switch: an engine at an extra port of every
    // switch of an indirect network (docs/COLLECTIVES.md, "Switch-resident engines").
    // collective.mode = sharp: SHArP-style aggregation nodes in the switches'
    // engines (docs/COLLECTIVES.md, "SHArP mode"): switch placement implied.
    if (config.node.collective.sharp()) {
        if (config.fabric.kind == "torus")
            throw ConfigError(
                "config: collective.mode=sharp needs an indirect network (topology.kind fattree or file): SHArP's "
                "aggregation nodes sit in the switches of a fat tree; a torus has no switch between the nodes");
        const int fault = config.node.collective.sharp_fault_switch;
        if (fault >= 0 && static_cast<unsigned>(fault) >= config.fabric.topology().switches())
            throw ConfigError("config: collective.sharp_fault_switch must be a switch of the network (0.." +
                              std::to_string(config.fabric.topology().switches() - 1) + " or -1), got " +
                              std::to_string(fault));
        config.node.collective.placement = "switch";
    }
    if (config.node.collective.placement == "switch") {
        if (config.network.model == NetworkModel::Flow)
            throw ConfigError(
                "config: collective.placement=switch does not run with network.model=flow (the flow network has no "
                "engine ports on its switches); use network.model=packet or collective.placement=nic");
        if (config.fabric.kind == "torus")
            throw ConfigError(
                "config: collective.placement=switch needs an indirect network (topology.kind fattree or file); "
                "on a torus every switch's engine is its node's (placement=nic)");
        config.fabric.switch_engines = true;
        config.fabric.validate();
    }
    config.node.qdma.timing_only = config.node.collective.timing_only;
    // Step packets header-only: only where nothing on their way copies them
    // whole (the flow network does not; the reliable layer keeps a copy of
    // every packet it sends).
    config.node.collective.header_only_step_packets = config.node.collective.timing_only &&
                                                      config.network.model == NetworkModel::Flow &&
                                                      !config.reliable.enabled(config.fabric.aurora.bit_error_rate);
    scale_for_trains(config);
    if (parameters.is_declared("job.memory_limit_gib"))
        config.memory_limit_gib = parameters.real("job.memory_limit_gib");
    // Blocks validate their own parameters; what only holds across blocks is
    // checked here, or a legal-looking mix deadlocks without saying why.
    // The engines' result packets land in the host's receive buffers, which
    // the driver sizes to one QDMA packet (PACKET_BYTES): a larger one stops
    // the queue (BufferTooSmall) at the first collective.
    if (config.node.collective.packet_payload_bytes > config.node.qdma.packet_payload_bytes)
        throw ConfigError("config: collective.packet_payload_bytes=" +
                          std::to_string(config.node.collective.packet_payload_bytes) +
                          " is larger than qdma.packet_payload_bytes=" +
                          std::to_string(config.node.qdma.packet_payload_bytes) +
                          ": a collective's result packets must fit the host's receive buffers, one QDMA packet "
                          "each; set collective.packet_payload_bytes to at most " +
                          std::to_string(config.node.qdma.packet_payload_bytes));
    const auto largest = static_cast<std::uint32_t>(std::max<std::size_t>(
        config.node.qdma.max_packet_bytes(), kNetworkPacketOverhead + config.node.collective.packet_payload_bytes));
    const unsigned limit = config.fabric.router.max_packet_phits();
    if (phits_of(largest) > limit)
        throw ConfigError(
            "config: qdma.packet_payload_bytes=" + std::to_string(config.node.qdma.packet_payload_bytes) +
            " / collective.packet_payload_bytes=" + std::to_string(config.node.collective.packet_payload_bytes) +
            " make packets of " + std::to_string(phits_of(largest)) + " phits, but a router VC holds at most " +
            std::to_string(limit) + " (router.input_buffer_bytes / router.vcs, less " +
            "router.flow_control_margin_phits): lower the packet size or raise the buffer");
    if (config.reliable.enabled(config.fabric.aurora.bit_error_rate) &&
        config.reliable.retransmit_buffer_bytes < largest)
        throw ConfigError(
            "config: reliable.retransmit_buffer_bytes=" + std::to_string(config.reliable.retransmit_buffer_bytes) +
            " cannot hold one packet of " + std::to_string(largest) + " bytes");
    // The node's network output is credited with reliable.tx_buffer_phits:
    // fewer than one packet's and nothing is ever sent (a deadlock).
    if (config.reliable.enabled(config.fabric.aurora.bit_error_rate) &&
        config.reliable.tx_buffer_phits < phits_of(largest))
        throw ConfigError("config: reliable.tx_buffer_phits=" + std::to_string(config.reliable.tx_buffer_phits) +
                          " cannot hold one packet of " + std::to_string(phits_of(largest)) + " phits (" +
                          std::to_string(largest) +
                          " bytes: qdma.packet_payload_bytes / "
                          "collective.packet_payload_bytes); give at least that");
    return config;
}

ClusterPlatform::ClusterPlatform(sc_core::sc_module_name name, const PlatformConfig& config,
                                 const std::vector<MemorySpan>& ranks)
    : sc_core::sc_module(name),
      trace_(config.trace.file.empty() ? nullptr
                                       : std::make_unique<TraceWriter>(config.trace.file, config.trace.max_events)),
      fabric_(config.network.model == NetworkModel::Packet
                  ? std::make_unique<Fabric>("fabric", config.fabric, nullptr, config.partition_plan.get(),
                                             config.partition)
                  : nullptr),
      flow_(config.network.model == NetworkModel::Flow
                ? std::make_unique<FlowNetwork>("flow_network", config.fabric, config.network.linger_round_trips,
                                                config.network.hold, config.network.train_payload_bytes)
                : nullptr),
      engine_scheduler_(flow_ ? std::make_unique<WakeupScheduler>("engine_scheduler") : nullptr),
      ranks_(static_cast<unsigned>(ranks.size())),
      reliable_(config.reliable.enabled(config.fabric.aurora.bit_error_rate)),
      bit_error_rate_(config.fabric.aurora.bit_error_rate) {
    if (engine_scheduler_) engine_scheduler_->take_time_steps(config.fabric.router.scheduler_time_steps);
    kernel_noise_ = make_kernel_noise();
    injected_error_ = make_injected_platform_error(config.partition_plan ? config.partition : 0);
    const unsigned count = nodes();
    // Drops are routine when they are recovered: each link names its first few.
    if (reliable_ && fabric_) fabric_->limit_drop_warnings(kReportedDropsPerLink);
    if (ranks_ > count)
        throw ConfigError("config: " + std::to_string(ranks_) + " ranks do not fit the " + std::to_string(count) +
                          "-node " + topology().description() + " (one rank per node)");
    if (!config.placement.identity() && config.placement.nodes.size() != ranks_)
        throw ConfigError("config: a rank placement of " + std::to_string(config.placement.nodes.size()) +
                          " ranks for a job of " + std::to_string(ranks_));
    // The rank each node runs, if any.
    constexpr unsigned kNoRank = ~0u;
    std::vector<unsigned> rank_on(count, kNoRank);
    for (unsigned r = 0; r < ranks_; ++r) {
        const unsigned n = config.placement.node_of(r);
        if (n >= count || rank_on[n] != kNoRank)
            throw ConfigError("config: rank " + std::to_string(r) + " placed on node " + std::to_string(n) +
                              (n >= count ? ", not a node of the network" : ", which already runs a rank"));
        rank_on[n] = r;
    }
    // The node's NIC side (collective engine, or its reliable endpoint) meets
    // the network at the same four sockets whichever model it is.
    const auto bind_network = [this](auto& network, unsigned n, auto& to_network, auto& to_network_credit,
                                     auto& from_network, auto& from_network_credit) {
        to_network.bind(network.inject(n));
        network.inject_credit(n).bind(to_network_credit);
        network.eject(n).bind(from_network);
        from_network_credit.bind(network.eject_credit(n));
    };
    const auto bind_host = [&](unsigned n, auto& to_network, auto& to_network_credit, auto& from_network,
                               auto& from_network_credit) {
        if (fabric_)
            bind_network(*fabric_, n, to_network, to_network_credit, from_network, from_network_credit);
        else
            bind_network(*flow_, n, to_network, to_network_credit, from_network, from_network_credit);
    };
    pcie_log_ = PcieTransactionLog::open(config.trace, count, trace_.get());
    // Reliable delivery reaches every network address: the hosts and, with
    // switch-resident engines, the engines after them (hosts + switch index).
    const unsigned addresses = count + (config.fabric.switch_engines ? topology().switches() : 0);
    for (unsigned n = 0; n < count; ++n) {
        if (fabric_ && !fabric_->owns_host(n)) {  // another partition simulates it
            nodes_.push_back(nullptr);
            continue;
        }
        MemorySpan memory;
        if (rank_on[n] != kNoRank) {
            memory = ranks[rank_on[n]];
            if (memory.bytes > kMsiWindowBase)
                throw ConfigError("config: host.memory_bytes=" + std::to_string(memory.bytes) +
                                  " reaches the host bridge's MSI window at 0xFEE00000; at most " +
                                  std::to_string(kMsiWindowBase) + " bytes");
        } else {
            idle_memory_.emplace_back(kIdleMemoryBytes);
            memory = {idle_memory_.back().data(), kIdleMemoryBytes};
        }
        const std::string node_name = "node" + std::to_string(n);
        // One waveform file: only node 0's switch records its AgLU (aglu.vcd).
        NodeConfig node_config = config.node;
        if (n != 0) node_config.aglu.vcd_path.clear();
        nodes_.push_back(std::make_unique<Node>(node_name.c_str(), node_config, static_cast<std::uint16_t>(n),
                                                static_cast<std::uint16_t>(count), memory.base, memory.bytes));
        Node& node = *nodes_.back();
        node.pcie.set_transaction_log(pcie_log_.get(), n);
        // The engine's timed wake-ups on the routers' scheduler (with the
        // flow network, on one of their own): a push on its heap instead of
        // an entry in the kernel's timed queue (same times).
        if (fabric_) node.collective.use_scheduler(fabric_->scheduler());
        if (engine_scheduler_) node.collective.use_scheduler(*engine_scheduler_);
        // Trace process n + 1 is node n: its engine and, on a torus, its router.
        if (trace_) node.collective.set_trace(trace_.get(), n + 1);
        if (reliable_) {
            const std::string endpoint_name = "reliable" + std::to_string(n);
            const RouterConfig& router = config.fabric.router;
            node.reliable = std::make_unique<ReliableEndpoint>(
                endpoint_name.c_str(), static_cast<std::uint16_t>(n), addresses, config.reliable,
                sc_core::sc_time(1000.0 / router.clock_mhz, sc_core::SC_NS), router.phits_per_cycle);
            ReliableEndpoint& endpoint = *node.reliable;
            endpoint.set_loss_observer([this](const PacketLoss& loss) { on_loss(loss); });
            node.collective.net_out.bind(endpoint.from_node);
            endpoint.from_node_credit.bind(node.collective.net_out_credit);
            bind_host(n, endpoint.to_network, endpoint.to_network_credit, endpoint.from_network,
                      endpoint.from_network_credit);
            endpoint.to_node.bind(node.collective.net_in);
            node.collective.net_in_credit.bind(endpoint.to_node_credit);
        } else {
            bind_host(n, node.collective.net_out, node.collective.net_out_credit, node.collective.net_in,
                      node.collective.net_in_credit);
        }
        if (rank_on[n] == kNoRank) {
            const std::string host_name = "idle_host" + std::to_string(n);
            idle_hosts_.push_back(std::make_unique<IdleHost>(host_name.c_str()));
            idle_hosts_.back()->mmio.bind(node.pcie.host_mmio);
            node.bridge.msi.bind(idle_hosts_.back()->msi);
        }
    }
    if (config.fabric.switch_engines) {
        // Trees are planned by the engine of the highest switch (lowest index among equals).
        const NetworkTopology& network = fabric_->topology();
        auto plain = std::make_shared<const NetworkTopology>(config.fabric.topology());
        const unsigned planner = tree_planner_switch(network);
        for (unsigned s = 0; s < network.switches(); ++s) {
            // Partitions: a switch's engine is at its router, in the
            // partition that owns the switch; the others reach it, and it
            // them, by packets over the cut cables like any host.
            if (!fabric_->owns(s)) continue;
            const std::string engine_name = "switch_engine_" + network.switch_at(s).name;
            switch_engines_.push_back(std::make_unique<SwitchCollectiveEngine>(
                engine_name.c_str(), plain, s, s == planner, config.node.aglu, config.node.collective));
            SwitchCollectiveEngine& engine = *switch_engines_.back();
            const unsigned address = engine.address();
            if (reliable_) {  // between the engine and its router port, as a NIC's
                const std::string endpoint_name = "reliable_" + network.switch_at(s).name;
                const RouterConfig& router = config.fabric.router;
                switch_endpoints_.push_back(std::make_unique<ReliableEndpoint>(
                    endpoint_name.c_str(), static_cast<std::uint16_t>(address), addresses, config.reliable,
                    sc_core::sc_time(1000.0 / router.clock_mhz, sc_core::SC_NS), router.phits_per_cycle));
                ReliableEndpoint& endpoint = *switch_endpoints_.back();
                endpoint.set_loss_observer([this](const PacketLoss& loss) { on_loss(loss); });
                engine.net_out.bind(endpoint.from_node);
                endpoint.from_node_credit.bind(engine.net_out_credit);
                endpoint.to_network.bind(fabric_->inject(address));
                fabric_->inject_credit(address).bind(endpoint.to_network_credit);
                fabric_->eject(address).bind(endpoint.from_network);
                endpoint.from_network_credit.bind(fabric_->eject_credit(address));
                endpoint.to_node.bind(engine.net_in);
                engine.net_in_credit.bind(endpoint.to_node_credit);
                engine_at_[address] = {&engine, &endpoint};
                continue;
            }
            engine.net_out.bind(fabric_->inject(address));
            fabric_->inject_credit(address).bind(engine.net_out_credit);
            fabric_->eject(address).bind(engine.net_in);
            engine.net_in_credit.bind(fabric_->eject_credit(address));
        }
        const auto planner_address = static_cast<std::uint16_t>(switch_engine_address(*plain, planner));
        for (auto& node : nodes_)
            if (node) node->collective.enable_switch_tree(planner_address, count, plain);
    }
    if (trace_ && fabric_) {  // the flow model has no routers to trace
        // A switch without a node of its own (fat tree, file) is a process
        // of its own after the nodes'.
        const NetworkTopology& topology = fabric_->topology();
        const bool torus = topology.kind() == "torus";
        for (unsigned s = 0; s < topology.switches(); ++s)
            if (fabric_->owns(s))
                fabric_->router(s).set_trace(trace_.get(), torus ? s + 1 : count + 1 + s,
                                             torus ? std::to_string(s) : topology.switch_at(s).name);
    }
}

ClusterPlatform::~ClusterPlatform() = default;

unsigned ClusterPlatform::nodes() const {
    return fabric_ ? fabric_->nodes() : flow_->nodes();
}

const NetworkTopology& ClusterPlatform::topology() const {
    return fabric_ ? fabric_->topology() : flow_->topology();
}

std::uint64_t ClusterPlatform::packet_hops() const {
    return fabric_ ? fabric_->packet_hops() : flow_->packet_hops();
}

WakeupScheduler* ClusterPlatform::wakeup_scheduler() {
    if (fabric_) return &fabric_->scheduler();
    return engine_scheduler_.get();
}

Fabric& ClusterPlatform::fabric() {
    if (!fabric_) throw std::logic_error("ClusterPlatform::fabric: network.model=flow has no routers and links");
    return *fabric_;
}

void ClusterPlatform::on_loss(const PacketLoss& loss) {
    // Which links dropped these packets (their error status): at least the
    // last drop of each lost sequence number names the culprit.
    std::map<std::string, std::uint64_t> links;
    std::map<std::pair<std::uint32_t, unsigned>, std::uint64_t> cables;  // by (switch, port) they leave
    if (fabric_)
        for (const LinkDrop& drop : fabric_->drops())
            if (drop.sequenced && drop.source == loss.source && drop.destination == loss.destination &&
                drop.sequence - loss.first_sequence < loss.packets) {
                ++links[fabric_->describe(drop)];
                ++cables[{drop.from, drop.port}];
            }
    // The cable the guests are told of (LINK_FAULT_FROM/TO): the one that
    // dropped most of them, ties to the lowest switch and port.
    std::uint32_t from_word = 0, to_word = 0;
    const auto most = std::max_element(cables.begin(), cables.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most != cables.end()) {
        namespace ll = regmap::link_fault_link;
        const auto [from_switch, from_port] = most->first;
        const PortPeer& far = fabric_->topology().peer(from_switch, from_port);
        const std::uint32_t others = static_cast<std::uint32_t>(
            std::min<std::size_t>(cables.size() - 1, ll::OTHER_LINKS.mask() >> ll::OTHER_LINKS.shift));
        from_word =
            ll::SWITCH.make(from_switch) | ll::PORT.make(from_port) | ll::OTHER_LINKS.make(others) | ll::NAMED.make(1);
        // On a torus switch i is node i and ports 0..5 are +x ... -z: the
        // guests can name the cable by nodes and direction.
        const std::string port = fabric_->port_name(from_switch, from_port);
        static constexpr const char* kDirections[] = {"xplus", "xminus", "yplus", "yminus", "zplus", "zminus"};
        std::uint32_t direction = 0;
        for (std::uint32_t d = 0; d < 6; ++d)
            if (port == kDirections[d]) direction = d + 1;
        to_word =
            ll::SWITCH.make(far.index) | ll::PORT.make(far.port) | ll::DIRECTION.make(direction) | ll::NAMED.make(1);
    }
    std::string named;
    for (const auto& [link, count] : links)
        named +=
            (named.empty() ? "" : ", ") + link + " (" + std::to_string(count) + " drop" + (count == 1 ? "" : "s") + ")";
    // No link dropped them: their acknowledgements were lost or came after
    // the timeout (a reliable.timeout_ns shorter than a round trip).
    const std::string dropped =
        named.empty() ? "no link reported dropping them (acknowledgements lost or late: is reliable.timeout_ns "
                        "shorter than a round trip?)"
                      : "dropped by link " + named;
    const std::string what =
        "link fault: " + std::to_string(loss.packets) + " packet" + (loss.packets == 1 ? "" : "s") + " from " +
        topology().endpoint_label(loss.source) + " to " + topology().endpoint_label(loss.destination) + " lost" +
        (loss.at_sender ? " after " + std::to_string(loss.retransmissions) + " retransmission" +
                              (loss.retransmissions == 1 ? "" : "s") + " (reliable.max_retransmissions)"
                        : " (found missing by the receiver; reliable.max_retransmissions = 0)") +
        "; " + dropped;
    if (loss.no_progress) {
        // Nothing gets through to that node: recovery would retransmit (and
        // the guests re-probe) for ever, each loss a fresh event, so no
        // deadlock check could end the job. End it here, naming the path.
        std::ostringstream dead;
        dead << "link fault: no progress from " << topology().endpoint_label(loss.source) << " to "
             << topology().endpoint_label(loss.destination) << ": " << loss.lost_in_a_row
             << " packets in a row lost, none acknowledged in between (reliable.max_losses_in_a_row = "
             << loss.lost_in_a_row << "); the last one lost after " << loss.retransmissions << " retransmission"
             << (loss.retransmissions == 1 ? "" : "s") << " (reliable.max_retransmissions), " << dropped
             << "; with aurora.bit_error_rate = " << bit_error_rate_
             << " the path loses (nearly) every packet: the job cannot go on";
        losses_.push_back(dead.str());
        SC_REPORT_ERROR("isvp/reliable", dead.str().c_str());
        return;
    }
    losses_.push_back(what);
    // The job goes on: the operations the packets belonged to fail at both
    // ends (collective error 6, the driver's LINK_FAULT), the pair is resynchronised.
    SC_REPORT_WARNING("isvp/reliable", what.c_str());
    // Either end may be a switch-resident engine (collective.placement = switch).
    const auto endpoint = [&](std::uint16_t address) -> ReliableEndpoint* {
        if (address < nodes_.size()) return nodes_[address] ? nodes_[address]->reliable.get() : nullptr;
        const auto it = engine_at_.find(address);
        return it == engine_at_.end() ? nullptr : it->second.second;
    };
    std::vector<std::vector<std::uint8_t>> packets;
    if (loss.at_sender)
        packets.push_back(loss.packet);
    else if (ReliableEndpoint* sender = endpoint(loss.source))
        // found missing by the receiver: its sender still holds them until the gap is acknowledged
        for (std::uint64_t k = 0; k < loss.packets; ++k)
            packets.push_back(
                sender->held_packet(loss.destination, loss.first_sequence + static_cast<std::uint32_t>(k)));
    const FaultedLink link{from_word, to_word,
                           static_cast<std::uint32_t>(std::min<std::uint64_t>(loss.packets, 0xFFFFFFFFu))};
    for (const std::uint16_t end : {loss.source, loss.destination}) {
        const std::uint16_t peer = end == loss.source ? loss.destination : loss.source;
        if (end < nodes_.size()) {
            if (nodes_[end]) nodes_[end]->link_fault(loss, packets, from_word, to_word);
        } else if (const auto it = engine_at_.find(end); it != engine_at_.end()) {
            for (const std::vector<std::uint8_t>& packet : packets)
                it->second.first->link_fault(peer, loss.source, loss.destination, packet, link);
            if (packets.empty()) it->second.first->link_fault(peer, loss.source, loss.destination, {}, link);
        }
    }
}

Node& ClusterPlatform::node(unsigned index) {
    Node* node = nodes_.at(index).get();
    if (node == nullptr)
        throw std::logic_error("platform: node " + std::to_string(index) + " is simulated by another partition");
    return *node;
}

void ClusterPlatform::finish_trace() {
    if (pcie_log_) pcie_log_->finish();
    if (trace_) trace_->finish();
}

nlohmann::json ClusterPlatform::statistics(const sc_core::sc_time& elapsed) const {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& node : nodes_)
        if (node) nodes.push_back(node->statistics());
    nlohmann::json out = {{"simulated_us", elapsed.to_seconds() * 1e6},
                          {"fabric", fabric_ ? fabric_->statistics(elapsed) : flow_->statistics(elapsed)},
                          {"nodes", nodes}};
    if (!switch_engines_.empty()) {
        nlohmann::json engines = nlohmann::json::object();
        for (const auto& engine : switch_engines_) engines[engine->name()] = statistics_json(engine->statistics());
        out["switch_engines"] = engines;
    }
    if (!switch_endpoints_.empty()) {  // reliable delivery: the engines' endpoints, as a node's "reliable"
        nlohmann::json endpoints = nlohmann::json::object();
        for (const auto& endpoint : switch_endpoints_)
            endpoints[endpoint->name()] = statistics_json(endpoint->statistics());
        out["switch_engine_reliable"] = endpoints;
    }
    if (!losses_.empty()) out["link_faults"] = losses_;
    return out;
}

}  // namespace isvp
