// host.* and job.* parameters: declaration, reading, validation.
#include "isvp/transport_config.h"

#include <cmath>
#include <sstream>
#include <string>

namespace isvp {

namespace {

constexpr std::int64_t kMinMemoryBytes = 4096;
constexpr std::int64_t kMaxMemoryBytes = std::int64_t{1} << 40;
constexpr double kMaxWriteNs = 1e6;
constexpr double kMaxComputeScale = 1e6;
constexpr double kMaxGraceMs = 600000.0;
constexpr double kMaxHorizonUs = 1e12;
constexpr double kMinSliceNs = 1.0;
constexpr double kMaxSliceNs = 1e9;
constexpr double kMaxSpinWaitUs = 1e6;
constexpr double kMaxWallSeconds = 1e9;   // about 32 years
constexpr double kMaxSimulatedUs = 4e12;  // below kMaxTimePs (2^62 ps) of the scheduler

void require_range(const char* name, double value, double minimum, double maximum, const char* unit) {
    if (value >= minimum && value <= maximum) return;
    std::ostringstream message;
    message << "config: " << name << " must be a number in [" << minimum << ", " << maximum << "] " << unit << ", got "
            << value;
    throw ConfigError(message.str());
}

}  // namespace

void TransportConfig::declare(Parameters& parameters) {
    const TransportConfig defaults;
    parameters.declare_integer("host.memory_bytes", "bytes", static_cast<std::int64_t>(defaults.memory_bytes),
                               kMinMemoryBytes, kMaxMemoryBytes,
                               "DMA-able host memory per rank (remote: one shared-memory segment per rank)");
    parameters.declare_real("host.mmio_write_ns", "ns", defaults.mmio_write_ns, 0.0, kMaxWriteNs,
                            "guest CPU cost of one posted (uncached) BAR0 store");
    parameters.declare_real("host.compute_scale", "", defaults.compute_scale, 0.0, kMaxComputeScale,
                            "simulated time charged per unit of guest CPU time between requests (0 = off)");
    parameters.declare_real("job.kill_grace_ms", "ms", defaults.kill_grace_ms, 0.0, kMaxGraceMs,
                            "wall time between SIGTERM and SIGKILL when guest processes are ended");
    parameters.declare_real("job.deadlock_horizon_us", "us", defaults.deadlock_horizon_us, 0.0, kMaxHorizonUs,
                            "simulated time the platform may run with every rank blocked before the job "
                            "is declared deadlocked (0 = only when the platform runs out of events)");
    parameters.declare_real("job.event_slice_ns", "ns", defaults.event_slice_ns, kMinSliceNs, kMaxSliceNs,
                            "simulated time SystemC runs between checks for signals and guest output "
                            "(responsiveness only; results do not depend on it)");
    parameters.declare_real("job.spin_wait_us", "us", defaults.spin_wait_us, 0.0, kMaxSpinWaitUs,
                            "wall time the scheduler waiting for a request, and a rank waiting for its reply, "
                            "poll before they sleep (latency only; results do not depend on it; 0 = sleep at once)");
    parameters.declare_real("job.stall_notice_s", "s", defaults.stall_notice_s, 0.0, kMaxWallSeconds,
                            "wall time a rank may compute without calling the platform, holding simulated time "
                            "for every rank, before the launcher says so on stderr (repeated; 0 = never)");
    parameters.declare_real("job.timeout_s", "s", defaults.timeout_s, 0.0, kMaxWallSeconds,
                            "wall-clock limit of the job: reaching it ends the job with exit status 124 (0 = none)");
    parameters.declare_real("job.max_simulated_us", "us", defaults.max_simulated_us, 0.0, kMaxSimulatedUs,
                            "simulated-time limit of the job: the platform never runs past it, a job reaching it "
                            "ends with exit status 124 (0 = none)");
    parameters.declare_flag("job.timing_only", defaults.timing_only,
                            "carry no payload bytes: guests neither fill nor check data, the driver copies only "
                            "headers and envelopes, the switches skip arithmetic; simulated times are identical");
}

TransportConfig TransportConfig::from(const Parameters& parameters) {
    TransportConfig config;
    config.memory_bytes = static_cast<std::uint64_t>(parameters.integer("host.memory_bytes"));
    config.mmio_write_ns = parameters.real("host.mmio_write_ns");
    config.compute_scale = parameters.real("host.compute_scale");
    config.kill_grace_ms = parameters.real("job.kill_grace_ms");
    config.deadlock_horizon_us = parameters.real("job.deadlock_horizon_us");
    config.event_slice_ns = parameters.real("job.event_slice_ns");
    config.spin_wait_us = parameters.real("job.spin_wait_us");
    config.stall_notice_s = parameters.real("job.stall_notice_s");
    config.timeout_s = parameters.real("job.timeout_s");
    config.max_simulated_us = parameters.real("job.max_simulated_us");
    config.timing_only = parameters.flag("job.timing_only");
    config.validate();
    return config;
}

void TransportConfig::validate() const {
    if (memory_bytes < static_cast<std::uint64_t>(kMinMemoryBytes) ||
        memory_bytes > static_cast<std::uint64_t>(kMaxMemoryBytes) || memory_bytes % 4096 != 0) {
        throw ConfigError("config: host.memory_bytes must be a multiple of 4096 in [4096, 2^40] bytes, got " +
                          std::to_string(memory_bytes));
    }
    require_range("host.mmio_write_ns", mmio_write_ns, 0.0, kMaxWriteNs, "ns");
    require_range("host.compute_scale", compute_scale, 0.0, kMaxComputeScale, "");
    require_range("job.kill_grace_ms", kill_grace_ms, 0.0, kMaxGraceMs, "ms");
    require_range("job.deadlock_horizon_us", deadlock_horizon_us, 0.0, kMaxHorizonUs, "us");
    require_range("job.event_slice_ns", event_slice_ns, kMinSliceNs, kMaxSliceNs, "ns");
    require_range("job.spin_wait_us", spin_wait_us, 0.0, kMaxSpinWaitUs, "us");
    require_range("job.stall_notice_s", stall_notice_s, 0.0, kMaxWallSeconds, "s");
    require_range("job.timeout_s", timeout_s, 0.0, kMaxWallSeconds, "s");
    require_range("job.max_simulated_us", max_simulated_us, 0.0, kMaxSimulatedUs, "us");
}

std::uint64_t TransportConfig::mmio_write_ps() const {
    return static_cast<std::uint64_t>(std::llround(mmio_write_ns * 1000.0));
}

}  // namespace isvp
