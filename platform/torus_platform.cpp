#include "isvp/torus_platform.h"

#include <algorithm>
#include <string>

namespace isvp {

namespace {
/// Host memory of a node without a rank: nothing but what an idle device
/// might be pointed at; its QDMA queues stay disabled.
constexpr std::size_t kIdleMemoryBytes = 64 * 1024;
}  // namespace

void PlatformConfig::declare(Parameters& parameters) {
    TorusFabricConfig::declare(parameters);
    PcieConfig::declare(parameters);
    QdmaConfig::declare(parameters);
    AgluConfig::declare(parameters);
    CollectiveConfig::declare(parameters);
    TraceConfig::declare(parameters);
}

PlatformConfig PlatformConfig::from(const Parameters& parameters) {
    PlatformConfig config;
    config.fabric = TorusFabricConfig::from(parameters);
    config.node.pcie = PcieConfig::from(parameters);
    config.node.qdma = QdmaConfig::from(parameters);
    config.node.aglu = AgluConfig::from(parameters);
    config.node.collective = CollectiveConfig::from(parameters);
    config.trace = TraceConfig::from(parameters);
    // Declared with the job's parameters (TransportConfig); absent when the
    // platform is built without them (testbenches).
    config.node.collective.timing_only =
        parameters.is_declared("job.timing_only") && parameters.flag("job.timing_only");
    if (parameters.is_declared("job.memory_limit_gib"))
        config.memory_limit_gib = parameters.real("job.memory_limit_gib");
    // Blocks validate their own parameters; what only holds across blocks is
    // checked here, or a legal-looking mix deadlocks without saying why.
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
    return config;
}

TorusPlatform::TorusPlatform(sc_core::sc_module_name name, const PlatformConfig& config,
                             const std::vector<MemorySpan>& ranks)
    : sc_core::sc_module(name),
      trace_(config.trace.file.empty() ? nullptr
                                       : std::make_unique<TraceWriter>(config.trace.file, config.trace.max_events)),
      fabric_("fabric", config.fabric),
      ranks_(static_cast<unsigned>(ranks.size())) {
    const unsigned count = fabric_.nodes();
    if (ranks_ > count)
        throw ConfigError("config: " + std::to_string(ranks_) + " ranks do not fit the " + std::to_string(count) +
                          "-node topology.torus (one rank per node)");
    for (unsigned n = 0; n < count; ++n) {
        MemorySpan memory;
        if (n < ranks_) {
            memory = ranks[n];
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
        if (trace_) {
            fabric_.router(n).set_trace(trace_.get(), n + 1, std::to_string(n));
            node.collective.set_trace(trace_.get(), n + 1);
        }
        node.collective.net_out.bind(fabric_.inject(n));
        fabric_.inject_credit(n).bind(node.collective.net_out_credit);
        fabric_.eject(n).bind(node.collective.net_in);
        node.collective.net_in_credit.bind(fabric_.eject_credit(n));
        if (n >= ranks_) {
            const std::string host_name = "idle_host" + std::to_string(n);
            idle_hosts_.push_back(std::make_unique<IdleHost>(host_name.c_str()));
            idle_hosts_.back()->mmio.bind(node.pcie.host_mmio);
            node.bridge.msi.bind(idle_hosts_.back()->msi);
        }
    }
}

void TorusPlatform::finish_trace() {
    if (trace_) trace_->finish();
}

nlohmann::json TorusPlatform::statistics(const sc_core::sc_time& elapsed) const {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& node : nodes_) nodes.push_back(node->statistics());
    return {{"simulated_us", elapsed.to_seconds() * 1e6}, {"fabric", fabric_.statistics(elapsed)}, {"nodes", nodes}};
}

}  // namespace isvp
