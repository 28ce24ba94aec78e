// host.* and job.* parameters: declaration, reading, validation.
#include "isvp/transport_config.h"

#include <cmath>
#include <string>

#include "isvp/parameter_table.h"

namespace isvp {

namespace {

constexpr std::int64_t kMinMemoryBytes = 4096;
// Host memory ends below the host bridge's MSI window (regmap::kMsiWindowBase).
constexpr std::int64_t kMaxMemoryBytes = 0xFEE00000;
constexpr double kMaxWriteNs = 1e6;
constexpr double kMaxComputeScale = 1e6;
constexpr double kMaxGraceMs = 600000.0;
constexpr double kMaxHorizonUs = 1e12;
constexpr double kMinSliceNs = 1.0;
constexpr double kMaxSliceNs = 1e9;
constexpr double kMaxSpinWaitUs = 1e6;
constexpr double kMaxWallSeconds = 1e9;   // about 32 years
constexpr double kMaxSimulatedUs = 4e12;  // below kMaxTimePs (2^62 ps) of the scheduler
constexpr std::int64_t kMinFiberStackKib = 64;
constexpr std::int64_t kMaxFiberStackKib = std::int64_t{1} << 20;  // 1 GiB

/// The host.* and job.* parameters, each once (isvp/parameter_table.h).
constexpr auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Integer{"host.memory_bytes", "bytes", kMinMemoryBytes, kMaxMemoryBytes,
                             "DMA-able host memory per rank (remote: one shared-memory segment per rank)"},
              self.memory_bytes);
    parameter(
        param::Real{"host.mmio_write_ns", "ns", 0.0, kMaxWriteNs, "guest CPU cost of one posted (uncached) BAR0 store"},
        self.mmio_write_ns);
    parameter(param::Real{"host.compute_scale", "", 0.0, kMaxComputeScale,
                          "simulated time charged per unit of guest CPU time between requests (0 = off)"},
              self.compute_scale);
    parameter(param::Real{"job.kill_grace_ms", "ms", 0.0, kMaxGraceMs,
                          "wall time between SIGTERM and SIGKILL when guest processes are ended"},
              self.kill_grace_ms);
    parameter(param::Real{"job.deadlock_horizon_us", "us", 0.0, kMaxHorizonUs,
                          "simulated time the platform may run with every rank blocked before the job "
                          "is declared deadlocked (0 = only when the platform runs out of events)"},
              self.deadlock_horizon_us);
    parameter(param::Real{"job.event_slice_ns", "ns", kMinSliceNs, kMaxSliceNs,
                          "simulated time SystemC runs between checks for signals and guest output "
                          "(responsiveness only; results do not depend on it)"},
              self.event_slice_ns);
    parameter(param::Real{"job.spin_wait_us", "us", 0.0, kMaxSpinWaitUs,
                          "wall time the scheduler waiting for a request, and a rank waiting for its reply, "
                          "poll before they sleep (latency only; results do not depend on it; 0 = sleep at once)"},
              self.spin_wait_us);
    parameter(param::Real{"job.stall_notice_s", "s", 0.0, kMaxWallSeconds,
                          "wall time a rank may compute without calling the platform, holding simulated time "
                          "for every rank, before the launcher says so on stderr (repeated; 0 = never)"},
              self.stall_notice_s);
    parameter(param::Real{"job.timeout_s", "s", 0.0, kMaxWallSeconds,
                          "wall-clock limit of the job: reaching it ends the job with exit status 124 (0 = none)"},
              self.timeout_s);
    parameter(param::Real{"job.max_simulated_us", "us", 0.0, kMaxSimulatedUs,
                          "simulated-time limit of the job: the platform never runs past it, a job reaching it "
                          "ends with exit status 124 (0 = none)"},
              self.max_simulated_us);
    parameter(param::Flag{"job.timing_only",
                          "carry no payload bytes: guests neither fill nor check data, the driver copies only "
                          "headers and envelopes, the switches skip arithmetic; simulated times are identical"},
              self.timing_only);
    parameter(param::Choice<LocalRanks>{"job.ranks",
                                        {{"fibers", LocalRanks::Fibers}, {"threads", LocalRanks::Threads}},
                                        "how the ranks of a local job (isvp bench) run: fibers on the simulator's "
                                        "thread (a blocking call switches to the scheduler) or one OS thread each"},
              self.local_ranks);
    parameter(param::Integer{"job.fiber_stack_kib", "KiB", kMinFiberStackKib, kMaxFiberStackKib,
                             "stack of each local rank's fiber (job.ranks=fibers; a guard region below it "
                             "makes an overflow a crash, not corruption)"},
              self.fiber_stack_kib);
};

}  // namespace

void TransportConfig::declare(Parameters& parameters) {
    param::declare_table<TransportConfig>(parameters, kTable);
}

TransportConfig TransportConfig::from(const Parameters& parameters) {
    const TransportConfig config = param::read_table<TransportConfig>(parameters, kTable);
    config.validate();
    return config;
}

void TransportConfig::validate() const {
    // Host memory is whole 4 KiB pages (the guest maps it page by page).
    if (memory_bytes % 4096 != 0)
        refuse_parameter("host.memory_bytes", "a multiple of 4096 in [4096, 4276092928 (the MSI window)] bytes",
                         static_cast<double>(memory_bytes));
    param::check_table(*this, kTable);
}

std::uint64_t TransportConfig::mmio_write_ps() const {
    return static_cast<std::uint64_t>(std::llround(mmio_write_ns * 1000.0));
}

}  // namespace isvp
