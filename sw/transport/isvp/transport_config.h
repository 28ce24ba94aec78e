// Parameters of the guest host (host.*) and of a job's launcher and
// scheduler (job.*): declared once with name, unit, default, range and
// description (see sw/transport/README.md). Plain C++17, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>

#include "isvp/parameters.h"

namespace isvp {

/// How the ranks of a local job run (job.ranks).
enum class LocalRanks {
    Fibers,   ///< coroutines on the simulator's thread: a blocking call switches to the scheduler
    Threads,  ///< one OS thread each: a blocking call sleeps until the scheduler's thread wakes it
};

struct TransportConfig {
    std::uint64_t memory_bytes = 256ull << 20;  ///< host.memory_bytes: DMA-able host memory per rank, bytes
    double mmio_write_ns = 50.0;       ///< host.mmio_write_ns: guest CPU cost of one uncached (posted) store, ns
    double compute_scale = 0.0;        ///< host.compute_scale: simulated s per s of guest CPU time (0 = off)
    double kill_grace_ms = 2000.0;     ///< job.kill_grace_ms: SIGTERM to SIGKILL of guest processes, wall ms
    double deadlock_horizon_us = 1e6;  ///< job.deadlock_horizon_us: all ranks blocked this long = deadlock
    double event_slice_ns = 10000.0;   ///< job.event_slice_ns: SystemC run between event-loop checks
    double spin_wait_us = 50.0;        ///< job.spin_wait_us: wall time a waiting side polls before it sleeps
    double stall_notice_s = 10.0;      ///< job.stall_notice_s: wall s a rank may stay silent before a notice (0 = off)
    double timeout_s = 0.0;            ///< job.timeout_s: wall-clock limit of the job, s (0 = none)
    double max_simulated_us = 0.0;     ///< job.max_simulated_us: simulated-time limit of the job, us (0 = none)
    bool timing_only = false;          ///< job.timing_only: no payload bytes are produced, moved or checked
    LocalRanks local_ranks = LocalRanks::Fibers;  ///< job.ranks: local ranks as fibers or threads (remote: unused)
    std::uint64_t fiber_stack_kib = 1024;         ///< job.fiber_stack_kib: stack of a local rank's fiber, KiB
    /// Not a parameter; set by `isvp run` (mpirun semantics): a rank that
    /// leaves without finish() — MPI_Finalize — ends the whole job.
    bool end_on_early_exit = false;

    /// Declares the host.* and job.* parameters with defaults, units, ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates them.
    static TransportConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;

    /// host.mmio_write_ns in picoseconds (rounded to nearest).
    std::uint64_t mmio_write_ps() const;
    /// job.fiber_stack_kib in bytes.
    std::size_t fiber_stack_bytes() const { return static_cast<std::size_t>(fiber_stack_kib) << 10; }
};

}  // namespace isvp
