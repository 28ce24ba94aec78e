// The CPUs `--partitions auto` may use: a cgroup's CPU bandwidth limit
// (v2 cpu.max, v1 cfs quota) read on the way from the process's cgroup to
// the root of the hierarchy.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "cpu_budget.h"

using isvp::cli::cgroup_cpu_limit;
using isvp::cli::cpus_of_cfs_quota;
using isvp::cli::cpus_of_cpu_max;
using isvp::cli::mapping_limit_hint;

namespace {

/// A scratch cgroup mount in the temporary folder, removed at the end.
struct FakeMount {
    std::filesystem::path root = std::filesystem::temp_directory_path() / ("isvp_cgroup_" + std::to_string(getpid()));
    FakeMount() { std::filesystem::create_directories(root); }
    ~FakeMount() { std::filesystem::remove_all(root); }
    void write(const std::string& file, const std::string& text) const {
        const std::filesystem::path path = root / file;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }
};

}  // namespace

TEST_CASE("cpu budget: cpu.max and the cfs quota give their quota over their period, rounded up", "[cpu_budget]") {
    CHECK(cpus_of_cpu_max("200000 100000\n") == 2u);
    CHECK(cpus_of_cpu_max("150000 100000") == 2u);
    CHECK(cpus_of_cpu_max("50000 100000") == 1u);
    CHECK_FALSE(cpus_of_cpu_max("max 100000\n"));
    CHECK_FALSE(cpus_of_cpu_max(""));
    CHECK_FALSE(cpus_of_cpu_max("100000"));
    CHECK_FALSE(cpus_of_cpu_max("0 100000"));
    CHECK(cpus_of_cfs_quota("300000\n", "100000\n") == 3u);
    CHECK_FALSE(cpus_of_cfs_quota("-1\n", "100000\n"));
    CHECK_FALSE(cpus_of_cfs_quota("x", "100000"));
}

TEST_CASE("cpu budget: the smallest cgroup v2 limit on the way to the root counts", "[cpu_budget]") {
    const FakeMount mount;
    mount.write("cpu.max", "max 100000\n");
    mount.write("machine/cpu.max", "300000 100000\n");
    mount.write("machine/job/cpu.max", "max 100000\n");
    CHECK(cgroup_cpu_limit(mount.root.string(), "0::/machine/job\n") == 3u);
    mount.write("machine/job/cpu.max", "100000 100000\n");
    CHECK(cgroup_cpu_limit(mount.root.string(), "0::/machine/job\n") == 1u);
    CHECK_FALSE(cgroup_cpu_limit(mount.root.string(), "0::/\n"));
    CHECK_FALSE(cgroup_cpu_limit(mount.root.string(), "0::/elsewhere\n"));
    CHECK(cgroup_cpu_limit(mount.root.string(), "0::machine/job\n") == 1u);  // not absolute: from the root
    mount.write("a:b/cpu.max", "200000 100000\n");
    CHECK(cgroup_cpu_limit(mount.root.string(), "0::/a:b\n") == 2u);  // ':' inside the path
    mount.write("unified/hybrid/cpu.max", "400000 100000\n");
    CHECK(cgroup_cpu_limit(mount.root.string(), "0::/hybrid\n") == 4u);  // v2 beside v1 (hybrid)
    CHECK_FALSE(cgroup_cpu_limit(mount.root.string(), ""));
}

TEST_CASE("cpu budget: a cgroup v1 cpu controller's cfs quota counts", "[cpu_budget]") {
    const FakeMount mount;
    mount.write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    mount.write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    mount.write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
    mount.write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    const std::string self = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/docker/abc\n";
    CHECK(cgroup_cpu_limit(mount.root.string(), self) == 3u);
    CHECK_FALSE(cgroup_cpu_limit(mount.root.string(), "4:cpu,cpuacct:/\n"));
}

TEST_CASE("cpu budget: a process near the kernel's mapping limit is told how to raise it", "[cpu_budget]") {
    CHECK(mapping_limit_hint(1000, 65530).empty());
    CHECK(mapping_limit_hint(62000, 65530).empty());
    const std::string hint = mapping_limit_hint(65000, 65530);
    CHECK_THAT(hint, Catch::Contains("65000 memory mappings, the kernel allows 65530 (vm.max_map_count)"));
    CHECK_THAT(hint, Catch::Contains("sysctl -w vm.max_map_count="));
    CHECK(mapping_limit_hint(5, 0).empty());
}
