// The machine's limits a large platform meets: how many CPUs this process
// may keep busy (its affinity mask, capped by the CPU bandwidth limit of its
// control group: a container's `--cpus`, a systemd CPUQuota), by which
// `--partitions auto` sizes the job; and the kernel's limit on memory
// mappings, which thousands of SystemC threads and rank fibers reach.
#pragma once

#include <cstddef>
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

/// What to tell a user whose run failed for lack of resources while the
/// process holds `mappings` of the `limit` memory mappings the kernel allows
/// (vm.max_map_count): "" unless it is within 5 % of the limit.
std::string mapping_limit_hint(std::size_t mappings, std::size_t limit);
/// mapping_limit_hint for this process now (/proc/self/maps, /proc/sys/vm/max_map_count).
std::string mapping_limit_hint();

}  // namespace isvp::cli
