// The --partitions option of the bench commands and of `isvp run` (docs/PARTITIONS.md): one
// place that refuses what partitions do not support, re-starts the command
// under mpiexec, or makes this process one partition of the job.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/program_options/variables_map.hpp>

#include "isvp/cluster_platform.h"
#include "isvp/job_launcher.h"
#include "partition_sync.h"

namespace isvp::cli {

/// --partitions as the user gave it, resolved to a count.
struct PartitionsRequest {
    bool given = false;  ///< a number was given: mpiexec's job must have that size
    unsigned count = 0;  ///< partitions wanted (0: the option was not given)
};

/// Reads --partitions (`values["partitions"]`, a string): a number P ≥ 1, or
/// `auto`: one partition per CPU this process may use (usable_cpus: its
/// affinity and its cgroup's CPU limit), at most one per
/// kAutoRanksPerPartition of the job's `ranks` and one per switch, fewer
/// where the cut cannot be planned, and one where `config` cannot be
/// partitioned. Outside mpiexec `auto` says on stderr what it chose and
/// why; inside, the job's size decides. Throws ConfigError naming a
/// malformed value.
PartitionsRequest read_partitions(const std::string& command, const boost::program_options::variables_map& values,
                                  const PlatformConfig& config, unsigned ranks);

/// `auto` gives each partition at least this many ranks: below it the window
/// exchange costs more than the split saves (docs/PARTITIONS.md, "How many").
inline constexpr unsigned kAutoRanksPerPartition = 32;

class Partitioning {
  public:
    /// `command` ("bench collectives") names the command in messages and,
    /// with `arguments` (its own, after the command's name), is what mpiexec
    /// re-starts. `request`: --partitions (read_partitions). Refuses
    /// unsupported combinations in `config`; with P > 1 outside mpiexec it
    /// re-executes under mpiexec and does not return. Inside an MPI job it
    /// initialises MPI, sets `config` to this partition and `spec` to run
    /// only this partition's ranks.
    Partitioning(const std::string& command, const std::vector<std::string>& arguments, PartitionsRequest request,
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
    /// The platform statistics of the whole platform (ClusterPlatform::statistics)
    /// at partition 0: every partition's part merged in partition order
    /// (nodes, routers and links concatenated, switch engines joined, the
    /// latest simulated time), as one process lists them; empty elsewhere.
    /// Without partitions the platform's own. Collective.
    nlohmann::json statistics(const ClusterPlatform& platform, const sc_core::sc_time& elapsed);
    /// "# partitions: ..." for the report (windows, cut traffic summed over partitions). Collective.
    std::string summary();

  private:
    /// Without isvp's supervisor (the user's own mpiexec): partition 0
    /// prints, on stderr, each partition's switches and hosts with the
    /// process rank, machine and pid that runs it (collective).
    void print_partition_map() const;

    std::shared_ptr<const PartitionPlan> plan_;
    std::unique_ptr<PartitionRuntime> runtime_;
    std::unique_ptr<PartitionSync> sync_;
};

/// A statistics table (isvp/statistics_table.h) of every partition combined
/// at every partition as accumulate_statistics combines one process's
/// blocks: fields summed, "peak_" fields the largest. Collective.
template <class Statistics>
void combine_statistics(const PartitionRuntime& runtime, Statistics& statistics) {
    std::vector<std::uint64_t> sums, peaks;
    Statistics::visit(statistics, [&](const char* key, const auto& value) {
        static_assert(std::is_integral_v<std::decay_t<decltype(value)>>, "integer counters only");
        (std::strstr(key, "peak_") != nullptr ? peaks : sums).push_back(static_cast<std::uint64_t>(value));
    });
    runtime.sum(sums);
    runtime.max(peaks);
    std::size_t sum = 0, peak = 0;
    Statistics::visit(statistics, [&](const char* key, auto& value) {
        value = static_cast<std::decay_t<decltype(value)>>(std::strstr(key, "peak_") != nullptr ? peaks[peak++]
                                                                                                : sums[sum++]);
    });
}

}  // namespace isvp::cli
