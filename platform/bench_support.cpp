// Pieces the collective benchmarks share (bench_support.h).
#include "bench_support.h"

#include <sys/resource.h>
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "isvp/aurora_config.h"
#include "isvp/fabric_config.h"

namespace isvp::cli {

bool apply_ring_or_topology(const boost::program_options::variables_map& values, Parameters& parameters,
                            const std::string& command) {
    const auto apply_ring = [&] {
        const unsigned nodes = whole_value<unsigned>(values, "nodes");
        if (nodes < 2) throw ConfigError(command + ": --nodes must be at least 2, got " + std::to_string(nodes));
        if (nodes > 65536)  // what topology.torus takes: the destination field has 16 bits
            throw ConfigError(command +
                              ": --nodes takes at most 65536 nodes (the destination field has 16 bits), got " +
                              std::to_string(nodes));
        parameters.apply_override("topology.kind=torus");
        parameters.apply_override("topology.torus=" + std::to_string(nodes) + "x1x1");
    };
    if (values.count("topology") && !values["nodes"].defaulted())
        throw ConfigError(command + ": give --nodes (a ring) or --topology, not both");
    if (!values.count("topology")) apply_ring();
    apply_config_option(values, parameters);
    if (values.count("topology"))
        apply_topology_option(parameters, values["topology"].as<std::string>(), command + ": --topology");
    else if (!values["nodes"].defaulted())
        apply_ring();
    return apply_platform_options(values, parameters);
}

/// The LogGP inputs of this platform (models/loggp/isvp/loggp_model.h).
loggp::PlatformFigures loggp_figures(const PlatformConfig& config, const TransportConfig& transport,
                                     const guest::DriverConfig& driver) {
    loggp::PlatformFigures f;
    switch (driver.send_path) {
        case guest::SendPath::Fetch:
            f.send_path = loggp::SendPath::Fetch;
            break;
        case guest::SendPath::Prefetch:
            f.send_path = loggp::SendPath::Prefetch;
            break;
        case guest::SendPath::Pio:
            f.send_path = loggp::SendPath::Pio;
            break;
        case guest::SendPath::Auto:
            f.send_path = loggp::SendPath::Auto;
            break;
    }
    f.pio_max_bytes = driver.pio_max_bytes;
    f.poll = driver.completion != guest::CompletionMode::Msi;
    f.poll_interval_ns = driver.poll_interval_ns;
    f.host_post_ns = transport.mmio_write_ns;
    const PcieConfig& pcie = config.node.pcie;
    f.pcie_latency_ns = pcie.latency_ns;
    f.pcie_dma_gbytes_per_s =
        pcie.tlp_gbytes_per_s() * pcie.max_payload_bytes / (pcie.max_payload_bytes + pcie.tlp_overhead_bytes);
    f.router_clock_mhz = config.fabric.router.clock_mhz;
    f.router_pipeline_cycles = config.fabric.router.pipeline_cycles;
    const AuroraConfig& aurora = config.fabric.aurora;
    f.link_latency_ns = aurora.latency_ns;
    f.link_data_rate_gbps = aurora.data_rate_gbps();
    f.link_frame_overhead_bytes = AuroraTiming(aurora).frame_overhead_bytes();
    f.link_max_frame_bytes = aurora.max_frame_bytes;
    // The machine's packets: trains (network.flow_train_packets) are how the
    // flow model simulates them, not a different packet size.
    const QdmaConfig& qdma = config.node.qdma;
    f.packet_payload_bytes = qdma.train_payload_bytes > 0 ? qdma.train_payload_bytes : qdma.packet_payload_bytes;
    f.engine_clock_mhz = config.node.collective.clock_mhz;
    f.engine_phits_per_cycle = config.node.collective.phits_per_cycle;
    f.aglu_clock_mhz = config.node.aglu.clock_mhz;
    f.aglu_pipeline_stages = config.node.aglu.pipeline_stages;
    f.cgr_aglus = config.node.collective.cgr_aglus;
    return f;
}

Passes Passes::parse(const std::string& text, const std::string& command) {
    if (text == "on") return {true, false};
    if (text == "off") return {false, true};
    if (text == "both") return {true, true};
    throw ConfigError(command + ": --offload must be on, off or both, got '" + text + "'");
}

Progress::Progress(const std::string& command, bool enabled, double total_weight, std::size_t rows)
    : command_(command),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0),
      total_(total_weight),
      rows_(rows),
      start_(std::chrono::steady_clock::now()) {}

void Progress::phase(const std::string& what) {
    if (!enabled_) return;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::cerr << (tty_ ? "\r\033[K" : "") << command_ << ": " << what << ", " << std::fixed << std::setprecision(2)
              << elapsed << " s elapsed, " << seconds(usage.ru_utime) + seconds(usage.ru_stime) << " CPU s\n"
              << std::flush;
}

void Progress::row_done(const std::string& what, double weight) {
    done_ += weight;
    ++row_;
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = done_ > 0 ? elapsed * (total_ - done_) / done_ : 0;
    std::ostringstream line;
    line << command_ << ": " << what << " " << row_ << " of " << rows_ << ", " << std::fixed << std::setprecision(1)
         << elapsed << " s elapsed, ~" << left << " s left";
    line << (tty_ && row_ < rows_ ? "" : "\n");
    std::cerr << (tty_ ? "\r\033[K" : "") + line.str() << std::flush;
}

void Progress::running(const std::string& what, std::uint64_t simulated_ps, std::optional<std::uint64_t> hops) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string line = command_ + ": " + what + " running, " + heartbeat_figures(simulated_ps, hops, elapsed);
    std::cerr << (tty_ ? "\r\033[K" : "") + line + (tty_ ? "" : "\n")
              << std::flush;  // one write: partitions share stderr
}

std::string percent(double simulated, double modelled) {
    std::ostringstream out;
    out << std::showpos << std::fixed << std::setprecision(0) << 100.0 * (simulated - modelled) / modelled << "%";
    return out.str();
}

}  // namespace isvp::cli
