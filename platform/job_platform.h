// The platform of one job: every block's parameters declared in one set, and
// the builder the transport's job runners call to elaborate a ClusterPlatform
// over the ranks' host memory and bind each rank's gateway to its node.
#pragma once

#include <memory>
#include <string>

#include <boost/program_options.hpp>

#include "isvp/cluster_platform.h"
#include "isvp/driver.h"
#include "isvp/job_launcher.h"
#include "isvp/parameters.h"
#include "isvp/transport_config.h"

namespace isvp::cli {

/// Declares the parameters of the platform and of the job's transport.
void declare_job_parameters(Parameters& parameters);

/// The guest driver's send and completion paths (driver.*, docs/PERFORMANCE.md),
/// for the commands whose driver runs inside the simulator (bench pingpong,
/// bench collectives).
void declare_driver_parameters(Parameters& parameters);
guest::DriverConfig driver_config_from(const Parameters& parameters);
/// ", driver send_path=pio completion=poll" for a report's header when the
/// paths differ from the defaults (fetch, msi); empty otherwise, so default
/// reports (and their golden files) read as before.
std::string describe_driver_paths(const guest::DriverConfig& config);

/// `--map-by host|switch` and `--rankfile FILE` (isvp run, bench collectives).
void add_placement_options(boost::program_options::options_description& options);
/// The placement those options give for `ranks` ranks on `topology` (rank r
/// on host r without them); ConfigError prefixed with `command`: both
/// options, an unknown policy, a rankfile that cannot be read or is
/// malformed (RankPlacement), more ranks than hosts.
RankPlacement placement_from_options(const boost::program_options::variables_map& values, unsigned ranks,
                                     const NetworkTopology& topology, const std::string& command);

/// Memory the simulator needs to build and start `config`'s platform,
/// bytes: calibrated model state per node plus the buffers a node fills
/// under load (see the README's "Memory"). Guest processes and the host
/// memory the guests touch come on top.
std::uint64_t estimated_platform_bytes(const PlatformConfig& config);

class JobPlatform {
  public:
    /// Refuses (ConfigError) a platform whose estimated_platform_bytes()
    /// exceed job.memory_limit_gib, or by default the memory the machine
    /// has available: before anything is built, not minutes into it.
    explicit JobPlatform(const PlatformConfig& config);

    /// The callback run_remote_job / run_local_job elaborate the platform with.
    transport::PlatformBuilder builder();
    /// The platform, once built.
    ClusterPlatform* platform() { return platform_.get(); }

    /// Whether the platform may be left to the process's end: nothing of it
    /// writes a file when destroyed except its trace files, which
    /// keep_for_exit() completes. Not with an RTL AgLU waveform (aglu.vcd),
    /// which Verilator closes in its destructor.
    bool can_keep_for_exit() const;
    /// Completes the trace files and gives the platform up (it is never
    /// destroyed), and asks sc_main to end the process once the command
    /// returns (end_process_on_return). For a job run with
    /// JobSpec::keep_for_exit, whose gateways stay alive as well.
    void keep_for_exit();

  private:
    PlatformConfig config_;                      ///< what to build
    std::unique_ptr<ClusterPlatform> platform_;  ///< built by builder(); outlives the job
};

/// For a bench command: the job may be left to the process's end
/// (JobSpec::keep_for_exit, when JobPlatform::can_keep_for_exit), and once
/// the command returns, its report written, the process ends without
/// SystemC's teardown (seconds at 1024 nodes: JobPlatform::keep_for_exit).
class KeepForExit {
  public:
    KeepForExit(JobPlatform& job, transport::JobSpec& spec) : job_(job) {
        spec.keep_for_exit = job.can_keep_for_exit();
    }
    ~KeepForExit() { job_.keep_for_exit(); }
    KeepForExit(const KeepForExit&) = delete;
    KeepForExit& operator=(const KeepForExit&) = delete;

  private:
    JobPlatform& job_;
};

}  // namespace isvp::cli
