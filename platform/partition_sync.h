// A distributed simulation over the system's MPI (docs/PARTITIONS.md): this
// process's place among the partitions, and the windowed conservative
// synchronisation of its platform partition with the others.
//
// The only code of the simulator that uses the system's MPI (Open MPI or
// MPICH, `libopenmpi-dev`); it is one translation unit of its own
// (partition_mpi.cpp), since the guest MPI shim has an mpi.h of its own and
// the two must never meet. This header does not include mpi.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isvp/partition_boundary.h"
#include "isvp/partition_plan.h"
#include "isvp/partition_window.h"
#include "partition_monitor.h"

namespace isvp::cli {

/// MPI as this process uses it: one simulator process per partition.
class PartitionRuntime {
  public:
    /// Processes of the MPI job that started this process (the launcher's
    /// environment: OMPI_COMM_WORLD_SIZE, PMI_SIZE, MPI_LOCALNRANKS); 0 when
    /// not under mpiexec (`mpiexec -n 1` gives 1: inside a job of one).
    static unsigned launched_size();
    /// Runs `mpiexec -n partitions <this program> <arguments>` (ISVP_MPIEXEC
    /// overrides the command) under supervise_partitions, which names a
    /// partition of `plan` that dies, and exits with its status; returns only
    /// on failure (throws).
    [[noreturn]] static void relaunch(unsigned partitions, const std::vector<std::string>& arguments,
                                      const PartitionPlan& plan);

    /// MPI_Init; `expected` (0 = any) must be the job's size.
    explicit PartitionRuntime(unsigned expected);
    ~PartitionRuntime();  ///< MPI_Finalize
    PartitionRuntime(const PartitionRuntime&) = delete;
    PartitionRuntime& operator=(const PartitionRuntime&) = delete;

    unsigned rank() const { return rank_; }
    /// Whether isvp's supervisor watches this job (PartitionMonitorClient::supervised).
    bool supervised() const;
    /// Where the guests' output goes so that the supervisor prints it
    /// (PartitionMonitorClient::guest_output); null without a supervisor.
    std::ostream* guest_output(bool is_stderr) { return monitor_ ? monitor_->guest_output(is_stderr) : nullptr; }
    unsigned size() const { return size_; }
    /// Ends every partition now (MPI_Abort) after printing `why` on stderr
    /// with this partition named: a partition that failed cannot take part
    /// in synchronisation any more, and the others must not wait for it.
    [[noreturn]] void fail(const std::string& where, const std::string& why) const;

    /// Element-wise maximum / minimum / sum over every partition, in place.
    void max(std::vector<std::uint64_t>& values) const;
    void min(std::vector<std::uint64_t>& values) const;
    void sum(std::vector<std::uint64_t>& values) const;
    /// Every partition's `text`, in partition order, at partition 0 (empty
    /// elsewhere). Collective.
    std::vector<std::string> gather(const std::string& text) const;

  private:
    unsigned rank_ = 0;
    unsigned size_ = 1;
    std::unique_ptr<PartitionMonitorClient> monitor_;  ///< tells the supervisor (if any) how this partition ends
};

/// Counters of the synchronisation, for docs/PERFORMANCE.md.
struct SyncStatistics {
    std::uint64_t windows = 0;     ///< synchronisations
    std::uint64_t bytes_sent = 0;  ///< cut traffic sent to other partitions
    std::uint64_t messages = 0;    ///< non-empty partition-to-partition transfers
    double sync_seconds = 0;       ///< wall time inside the exchange (waiting for others included)
};

/// Windowed conservative synchronisation (transport::PartitionWindow): the
/// window is [start, start + lookahead); at its end the cut traffic goes to
/// its partitions (MPI_Alltoall of counts, MPI_Alltoallv of bytes) and is
/// delivered, then one MPI_Allreduce agrees on the earliest next activity
/// (the next window starts there: idle time is skipped), on whether any rank
/// is live and on an abort.
class PartitionSync final : public transport::PartitionWindow {
  public:
    PartitionSync(PartitionRuntime& runtime, const PartitionPlan& plan, std::string where);
    /// The fabric's boundary, once the platform is built.
    void attach(PartitionBoundary& boundary) { boundary_ = &boundary; }

    unsigned partition() const override { return runtime_.rank(); }
    unsigned partitions() const override { return runtime_.size(); }
    std::uint64_t bound_ps() const override { return bound_ps_; }
    Agreement synchronise(const std::function<Report()>& report) override;
    [[noreturn]] void fail(const std::string& why) override { runtime_.fail(where_, why); }

    const SyncStatistics& statistics() const { return statistics_; }

  private:
    PartitionRuntime& runtime_;
    std::uint64_t lookahead_ps_;             ///< smallest latency of a cut cable
    std::uint64_t bound_ps_;                 ///< exclusive end of the current window
    PartitionBoundary* boundary_ = nullptr;  ///< the fabric's cut cables here
    std::string where_;                      ///< "partition 1 (switches ..., hosts ...)"
    bool test_failure_ = false;              ///< ISVP_TEST_PARTITION_FAIL names this partition: fail at window 20
    SyncStatistics statistics_;
};

}  // namespace isvp::cli
