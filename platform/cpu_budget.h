// How many CPUs this process may keep busy: its affinity mask, capped by the
// CPU bandwidth limit of its control group (a container's `--cpus`, a
// systemd CPUQuota). `--partitions auto` sizes the job by it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace isvp::cli {

/// CPUs a cgroup v2 `cpu.max` line allows ("150000 100000" -> 2, rounded up;
/// "max 100000" -> none); nullopt also for a malformed line.
std::optional<unsigned> cpus_of_cpu_max(std::string_view line);
/// The same for cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` (a
/// quota of -1: none).
std::optional<unsigned> cpus_of_cfs_quota(std::string_view quota, std::string_view period);

/// The smallest CPU limit on the way from this process's cgroup to the root
/// of the hierarchy mounted at `mount` (`/sys/fs/cgroup`), from the text of
/// `/proc/self/cgroup`; nullopt when nothing limits it (or the files are not
/// there). Both cgroup v2 and v1 (the `cpu` controller) are read.
std::optional<unsigned> cgroup_cpu_limit(const std::string& mount, std::string_view proc_self_cgroup);

/// CPUs this process may run on (sched_getaffinity), at most its cgroup's
/// limit; at least 1.
unsigned usable_cpus();

}  // namespace isvp::cli
