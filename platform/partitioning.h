// The --partitions option of the bench commands (docs/PARTITIONS.md): one
// place that refuses what partitions do not support, re-starts the command
// under mpiexec, or makes this process one partition of the job.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "isvp/cluster_platform.h"
#include "isvp/job_launcher.h"
#include "partition_sync.h"

namespace isvp::cli {

class Partitioning {
  public:
    /// `command` ("bench collectives") names the command in messages and,
    /// with `arguments` (its own, after the command's name), is what mpiexec
    /// re-starts. `requested`: --partitions (0 = not given). Refuses
    /// unsupported combinations in `config`; with P > 1 outside mpiexec it
    /// re-executes under mpiexec and does not return. Inside an MPI job it
    /// initialises MPI, sets `config` to this partition and `spec` to run
    /// only this partition's ranks.
    Partitioning(const std::string& command, const std::vector<std::string>& arguments, bool given, unsigned requested,
                 PlatformConfig& config, transport::JobSpec& spec);

    /// More than one partition.
    bool active() const { return runtime_ != nullptr; }
    /// This process prints the results (partition 0, or the only process).
    bool printing() const { return !runtime_ || runtime_->rank() == 0; }
    PartitionRuntime& runtime() { return *runtime_; }
    PartitionSync& sync() { return *sync_; }
    const PartitionPlan& plan() const { return *plan_; }
    /// Wraps a platform builder: attaches the synchronisation to the fabric's boundary once built.
    transport::PlatformBuilder wrap(transport::PlatformBuilder build,
                                    const std::function<ClusterPlatform*()>& platform);
    /// "# partitions: ..." for the report (windows, cut traffic summed over partitions). Collective.
    std::string summary();

  private:
    std::shared_ptr<const PartitionPlan> plan_;
    std::unique_ptr<PartitionRuntime> runtime_;
    std::unique_ptr<PartitionSync> sync_;
};

}  // namespace isvp::cli
