// Running a job: N guest ranks against one SystemC platform (DESIGN §4).
//
//   run_remote_job — each rank is its own OS process (`isvp run`): one
//     shared-memory segment per rank as its host memory (host.memory_bytes,
//     a unique name per job), a socket per rank in the abstract namespace
//     (only the rank's process may connect), the guests forked
//     with the caller's environment plus the ISVP_* variables
//     (guest_environment.h), their stdout/stderr passed on line by line to
//     the launcher's (unlabelled as with mpirun, or labelled: JobSpec::label).
//     A program that never connects (not an MPI program) runs as under
//     mpirun: the job ends when every rank has exited. Every child (with what it forked: each guest has its
//     own process group), segment and socket is removed when the function
//     returns — after success, a failure, a guest crash, a job.* limit or a
//     SIGINT/SIGTERM/SIGHUP of the launcher (children get SIGTERM, then
//     SIGKILL after job.kill_grace_ms). A launcher killed outright leaves
//     nothing either: guests die with it, a watchdog ends their groups.
//   run_local_job — each rank runs guest_main on a LocalTransport inside
//     this process: as a fiber on the simulator's thread (job.ranks=fibers,
//     the default: a blocking call switches to the scheduler; rank_fibers.h)
//     or as a thread of its own (job.ranks=threads); host memory is
//     anonymous memory.
//
// The caller supplies the platform: `build` elaborates it over the ranks'
// host memory and binds each rank's gateway (GuestGateway::mmio to the PCIe
// endpoint's host-MMIO target, the host bridge's MSI initiator to
// GuestGateway::msi). The modules must outlive the call; the caller owns
// them (e.g. a unique_ptr the callback fills). SystemC runs one job per
// process: call either function once, before any sc_start.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "isvp/device_transport.h"
#include "isvp/guest_gateway.h"
#include "isvp/guest_processes.h"
#include "isvp/partition_window.h"
#include "isvp/transport_config.h"

namespace isvp::transport {

/// One rank's DMA-able host memory as the simulator maps it: guest-physical
/// address A is data[A] for A < bytes.
struct HostMemorySpan {
    int rank = 0;                  ///< whose memory
    std::uint8_t* data = nullptr;  ///< first byte
    std::size_t bytes = 0;         ///< size
};

/// Elaborates the platform over `memory` and binds `gateways` (index = rank).
using PlatformBuilder =
    std::function<void(const std::vector<HostMemorySpan>& memory, const std::vector<GuestGateway*>& gateways)>;

/// A local rank's program: returns its exit code (finish() is called with it
/// unless the program did).
using GuestMain = std::function<int(guest::DeviceTransport& transport)>;

struct JobSpec {
    int ranks = 1;                          ///< ranks in the job
    std::vector<std::string> command;       ///< remote: program and arguments, the same for every rank
    TransportConfig config;                 ///< host.* and job.* parameters
    std::ostream* out = nullptr;            ///< guests' stdout lines; null = std::cout
    std::ostream* err = nullptr;            ///< guests' stderr lines and "[isvp] " messages; null = std::cerr
    OutputLabel label = OutputLabel::None;  ///< remote: how guest output lines are labelled
    /// remote: the rank started under a debugger (-1: none). Its command is
    /// `debugger` followed by `command`; it keeps the launcher's stdin,
    /// stdout and stderr (its output is not labelled: `label` must be None)
    /// and, if the launcher has the terminal, is the terminal's foreground
    /// process group while it runs. No stall notices are given for it.
    int debug_rank = -1;
    std::vector<std::string> debugger;  ///< remote: the debugger's words, e.g. {"gdb", "--args"}
    /// remote: "[isvp] rank R: pid P" on `err` when each rank connects (P:
    /// the process that said Hello, the one to attach a debugger to).
    bool print_pids = false;
    /// local: when run_local_job returns, the scheduler (its per-rank
    /// gateways, SystemC modules), the event loop and the ranks' host memory
    /// are left in place, not destroyed, for a caller that ends the process
    /// without SystemC's teardown once its output is written (seconds at
    /// 1024 ranks: docs/PERFORMANCE.md, "Simulator speed at 1024 nodes").
    bool keep_for_exit = false;
    /// local: one partition of a distributed simulation (docs/PARTITIONS.md);
    /// only the ranks with local_ranks[r] run (and get host memory) here, the
    /// others count as finished in this process's JobResult. Null: every rank.
    PartitionWindow* partition = nullptr;
    std::vector<bool> local_ranks;  ///< with `partition`: by rank, runs in this process
    /// Node (network address) of each rank, told to the guests (remote:
    /// ISVP_RANK_NODES; local: LocalTransport::set_rank_nodes) so their
    /// drivers address nodes; the PlatformBuilder binds the gateways by the
    /// same map. Empty: rank r on node r.
    std::vector<std::uint16_t> rank_nodes;
    /// Called with the simulated time (ps) every `heartbeat_period`
    /// of wall time while the job runs, on the simulator's thread between
    /// simulation slices (GuestScheduler::on_heartbeat). Zero: never.
    std::chrono::nanoseconds heartbeat_period{0};
    std::function<void(std::uint64_t simulated_ps)> heartbeat;
};

struct RankOutcome {
    int status = -1;                   ///< exit code or 128 + signal (remote); guest_main's result (local)
    bool finished = false;             ///< the rank called finish()
    std::uint64_t finish_time_ps = 0;  ///< its clock at finish()
    std::string ended;                 ///< why it ended otherwise
    std::uint64_t reads = 0;           ///< MMIO reads executed
    std::uint64_t writes = 0;          ///< MMIO writes executed
    std::uint64_t interrupts = 0;      ///< MSIs the rank's gateway received
};

/// Exit status of a job ended by job.timeout_s or job.max_simulated_us (as
/// timeout(1)).
inline constexpr int kLimitExitStatus = 124;

struct JobResult {
    /// 0 if every rank finished and exited 0; else the status of the first
    /// rank noticed failing (128 + signal for a crash), 1 if only the job
    /// itself failed (deadlock, protocol error, a rank that exited 0
    /// without finishing), 128 + signal when the launcher was interrupted,
    /// kLimitExitStatus when a limit ended it. Ranks the launcher itself
    /// ended (SIGTERM/SIGKILL) do not count as failing. A job in which no
    /// rank connected (no MPI program): 0 if every rank exited 0, else the
    /// first non-zero status noticed, as mpirun.
    int exit_status = 0;
    std::string error;               ///< the first job-level error; "" if none
    std::uint64_t end_time_ps = 0;   ///< simulated time when the last rank ended
    std::vector<RankOutcome> ranks;  ///< by rank
};

/// Why the ranks that did not finish ended, one line per distinct reason
/// naming its ranks as runs ("  ranks 0-7: aborted: the platform failed
/// (above)\n"), in the order of each reason's first rank, each line
/// starting with `indent`: ranks ended by one job abort share a line, a
/// rank that failed for a reason of its own keeps its own. "" if none.
std::string describe_rank_ends(const JobResult& result, const std::string& indent = "  ");

JobResult run_remote_job(const JobSpec& spec, const PlatformBuilder& build);
JobResult run_local_job(const JobSpec& spec, const PlatformBuilder& build, const GuestMain& guest_main);

}  // namespace isvp::transport
