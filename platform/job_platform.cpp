#include "job_platform.h"

#include "cli.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "isvp/driver_parameters.h"

namespace isvp::cli {

namespace {

// Model state of one node right after bring-up — SystemC processes and
// their stacks, queues, tables — measured as the slope of peak RSS
// (/usr/bin/time -v) of `isvp bench collectives --collectives barrier
// --sizes 8 --iterations 1 --warmup 0` from 4x4x4 (64 MB) over 8x8x4
// (228 MB) to 8x8x8 (455 MB): 0.85 MiB per node, independent of the buffer
// sizes (buffers take memory as they fill). Plus what the rest of the
// process takes (2x2x2: 18 MB).
constexpr std::uint64_t kModelBytesPerNode = 870 * 1024;
constexpr std::uint64_t kProcessBytes = 16 << 20;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// MemAvailable of /proc/meminfo, bytes; none if it cannot be read.
std::optional<std::uint64_t> available_memory() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return std::nullopt;
}

std::string gib(double bytes) {
    char text[32];
    if (bytes < kGiB)
        std::snprintf(text, sizeof text, "%.0f MiB", bytes / (1024.0 * 1024.0));
    else
        std::snprintf(text, sizeof text, "%.1f GiB", bytes / kGiB);
    return text;
}

}  // namespace

void declare_job_parameters(Parameters& parameters) {
    PlatformConfig::declare(parameters);
    TransportConfig::declare(parameters);
    parameters.declare_real("job.memory_limit_gib", "GiB", 0, 0, 1e6,
                            "memory the platform may need; a larger topology is refused before it is built "
                            "(0 = MemAvailable of the machine)");
}

void declare_driver_parameters(Parameters& parameters) {
    guest::declare_driver_parameters(parameters);
}

guest::DriverConfig driver_config_from(const Parameters& parameters) {
    return guest::driver_config_from(parameters);
}

std::string describe_driver_paths(const guest::DriverConfig& config) {
    const guest::DriverConfig defaults;
    if (config.send_path == defaults.send_path && config.completion == defaults.completion) return "";
    std::string text = ", driver send_path=" + std::string(to_string(config.send_path));
    if (config.send_path == guest::SendPath::Pio) text += " (up to " + std::to_string(config.pio_max_bytes) + " B)";
    if (config.send_path == guest::SendPath::Auto)
        text += " (pio up to " + std::to_string(config.pio_max_bytes) + " B)";
    text += " completion=" + std::string(to_string(config.completion));
    if (config.completion == guest::CompletionMode::Hybrid) {
        std::ostringstream poll;
        poll << config.poll_us;
        text += " (poll " + poll.str() + " us)";
    }
    return text;
}

void add_placement_options(boost::program_options::options_description& options) {
    namespace po = boost::program_options;
    options.add_options()("map-by", po::value<std::string>()->value_name("host|switch"),
                          "where the ranks run: host (rank r on host r, the default) or switch (round-robin over the "
                          "switches that have hosts: on a fat tree one rank per leaf in turn)")(
        "rankfile", po::value<std::string>()->value_name("FILE"),
        "each rank's host, Open MPI's rankfile form: lines \"rank R=nodeK\" (or R=+nK, optional slot=0)");
}

RankPlacement placement_from_options(const boost::program_options::variables_map& values, unsigned ranks,
                                     const NetworkTopology& topology, const std::string& command) {
    if (values.count("map-by") && values.count("rankfile"))
        throw ConfigError(command + ": --map-by and --rankfile both place the ranks: give one");
    if (values.count("map-by"))
        return RankPlacement::map_by(values["map-by"].as<std::string>(), ranks, topology, command + ": --map-by");
    if (!values.count("rankfile")) return {};
    const std::string path = values["rankfile"].as<std::string>();
    // A directory opens and reads as empty ("rank 0 has no line" would
    // mislead); a device that never ends (/dev/zero) would be read for ever.
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw ConfigError(command + ": --rankfile " + path + ": is a directory, not a rankfile");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw ConfigError(command + ": --rankfile " + path + ": cannot be read");
    // One line per rank, at most 65,536 ranks: far below this.
    constexpr std::size_t kMaxRankfileBytes = std::size_t{16} << 20;
    std::string text(kMaxRankfileBytes + 1, '\0');  // reads at most one byte past the limit
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(file.gcount()));
    if (text.size() > kMaxRankfileBytes)
        throw ConfigError(command + ": --rankfile " + path +
                          ": is larger than 16 MiB (a rankfile has a line per rank)");
    return RankPlacement::from_rankfile(text, ranks, topology, command + ": --rankfile " + path);
}

std::uint64_t estimated_platform_bytes(const PlatformConfig& config) {
    // What a node's buffers hold when full: router input FIFOs, the QDMA's
    // H2C staging and receive buffers, the collective engine's input buffers,
    // and with reliable delivery its retransmit and transmit buffers.
    const NetworkTopology topology = config.fabric.topology();
    std::uint64_t router_ports = 0;
    for (unsigned s = 0; s < topology.switches(); ++s) router_ports += topology.switch_at(s).ports;
    std::uint64_t buffers =
        config.node.qdma.h2c_buffer_bytes + config.node.qdma.rx_buffer_bytes +
        (std::uint64_t{config.node.collective.host_buffer_phits} + config.node.collective.net_buffer_phits) *
            kRouterPhitBytes;
    if (config.reliable.enabled(config.fabric.aurora.bit_error_rate))
        buffers +=
            config.reliable.retransmit_buffer_bytes + std::uint64_t{config.reliable.tx_buffer_phits} * kRouterPhitBytes;
    // Model state was measured per torus node (a switch of 7 ports and a
    // host); a switch without a host is counted as a node.
    const std::uint64_t units = std::max(topology.hosts(), topology.switches());
    return kProcessBytes + units * kModelBytesPerNode + std::uint64_t{topology.hosts()} * buffers +
           router_ports * config.fabric.router.input_buffer_bytes;
}

JobPlatform::JobPlatform(const PlatformConfig& config) : config_(config) {
    std::uint64_t needed = estimated_platform_bytes(config_);
    // A partition builds its share of the nodes and switches.
    if (config_.partition_plan) needed /= config_.partition_plan->partitions();
    std::string limit;
    double limit_bytes = 0;
    if (config_.memory_limit_gib > 0) {
        limit_bytes = config_.memory_limit_gib * kGiB;
        std::ostringstream text;
        text << "job.memory_limit_gib = " << config_.memory_limit_gib << " GiB";
        limit = text.str() + " (raise it to allow more)";
    } else if (const auto available = available_memory()) {
        limit_bytes = static_cast<double>(*available);
        limit = "the " + gib(limit_bytes) + " available (MemAvailable; set job.memory_limit_gib to override)";
    } else {
        return;  // nothing to compare with
    }
    if (static_cast<double>(needed) > limit_bytes)
        throw ConfigError("topology " + config_.fabric.topology().description() + " (" +
                          std::to_string(config_.fabric.topology().hosts()) + " nodes) needs about " +
                          gib(static_cast<double>(needed)) + " to build, more than " + limit);
}

transport::PlatformBuilder JobPlatform::builder() {
    return [this](const std::vector<transport::HostMemorySpan>& memory,
                  const std::vector<transport::GuestGateway*>& gateways) {
        std::vector<MemorySpan> spans;
        for (const auto& span : memory) spans.push_back({span.data, span.bytes});
        platform_ = std::make_unique<ClusterPlatform>("platform", config_, spans);
        for (std::size_t rank = 0; rank < gateways.size(); ++rank) {
            if (gateways[rank] == nullptr) continue;  // a rank of another partition
            Node& node = platform_->node(config_.placement.node_of(static_cast<unsigned>(rank)));
            gateways[rank]->mmio.bind(node.pcie.host_mmio);
            node.bridge.msi.bind(gateways[rank]->msi);
        }
    };
}

bool JobPlatform::can_keep_for_exit() const {
    return config_.node.aglu.vcd_path.empty();
}

void JobPlatform::keep_for_exit() {
    if (!can_keep_for_exit()) return;
    if (platform_) platform_->finish_trace();
    (void)platform_.release();
    end_process_on_return();
}

}  // namespace isvp::cli
