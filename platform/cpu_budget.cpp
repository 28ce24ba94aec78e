#include "cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace isvp::cli {

namespace {

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<long long> number(std::string_view text) {
    text = trimmed(text);
    long long value = 0;
    const auto [last, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || last != text.data() + text.size()) return std::nullopt;
    return value;
}

/// ⌈quota / period⌉ CPUs, at least 1; nullopt unless both are positive.
std::optional<unsigned> cpus_of(std::optional<long long> quota, std::optional<long long> period) {
    if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
    return static_cast<unsigned>(std::max<long long>(1, (*quota + *period - 1) / *period));
}

std::optional<std::string> read_text(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The directory of `cgroup` under `mount`, and each of its parents up to
/// `mount` (included). A path that is not absolute is taken from the root.
std::vector<std::string> up_to_mount(const std::string& mount, std::string_view cgroup) {
    std::string path(trimmed(cgroup));
    if (!path.empty() && path.front() != '/') path.insert(path.begin(), '/');
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::vector<std::string> directories;
    for (;;) {
        directories.push_back(mount + path);
        if (path.empty()) break;
        path.erase(path.rfind('/'));  // there is one: the path starts with '/'
    }
    return directories;
}

void keep_smaller(std::optional<unsigned>& limit, std::optional<unsigned> candidate) {
    if (candidate && (!limit || *candidate < *limit)) limit = candidate;
}

}  // namespace

std::optional<unsigned> cpus_of_cpu_max(std::string_view line) {
    line = trimmed(line);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    return cpus_of(number(line.substr(0, space)), number(line.substr(space + 1)));
}

std::optional<unsigned> cpus_of_cfs_quota(std::string_view quota, std::string_view period) {
    return cpus_of(number(quota), number(period));
}

std::optional<unsigned> cgroup_cpu_limit(const std::string& mount, std::string_view proc_self_cgroup) {
    std::optional<unsigned> limit;
    std::istringstream lines{std::string(proc_self_cgroup)};
    for (std::string line; std::getline(lines, line);) {
        // hierarchy-ID:controller-list:cgroup-path
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string_view cgroup = std::string_view(line).substr(second + 1);
        if (line.compare(0, first, "0") == 0 && controllers.empty()) {  // v2 (hybrid systems mount it at unified/)
            for (const std::string& base : {mount, mount + "/unified"})
                for (const std::string& directory : up_to_mount(base, cgroup))
                    if (const auto text = read_text(directory + "/cpu.max"))
                        keep_smaller(limit, cpus_of_cpu_max(*text));
            continue;
        }
        std::istringstream names(controllers);
        for (std::string name; std::getline(names, name, ',');) {
            if (name != "cpu") continue;
            for (const std::string& base : {mount + "/" + controllers, mount + "/cpu"})
                for (const std::string& directory : up_to_mount(base, cgroup)) {
                    const auto quota = read_text(directory + "/cpu.cfs_quota_us");
                    const auto period = read_text(directory + "/cpu.cfs_period_us");
                    if (quota && period) keep_smaller(limit, cpus_of_cfs_quota(*quota, *period));
                }
        }
    }
    return limit;
}

unsigned usable_cpus() {
    unsigned cpus = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&set));
    if (cpus == 0) cpus = std::thread::hardware_concurrency();
    if (const auto self = read_text("/proc/self/cgroup"))
        if (const auto limit = cgroup_cpu_limit("/sys/fs/cgroup", *self)) cpus = std::min(cpus, *limit);
    return std::max(1u, cpus);
}

std::string mapping_limit_hint(std::size_t mappings, std::size_t limit) {
    if (limit == 0 || mappings * 20 < limit * 19) return "";
    return "this process holds " + std::to_string(mappings) + " memory mappings, the kernel allows " +
           std::to_string(limit) +
           " (vm.max_map_count): every SystemC thread and every rank's fiber stack takes two; raise the limit "
           "(sysctl -w vm.max_map_count=262144) or split the platform (--partitions)";
}

std::string mapping_limit_hint() {
    std::ifstream maps("/proc/self/maps");
    std::size_t mappings = 0;
    for (std::string line; std::getline(maps, line);) ++mappings;
    const auto limit = read_text("/proc/sys/vm/max_map_count");
    const auto value = limit ? number(*limit) : std::nullopt;
    return value && *value > 0 ? mapping_limit_hint(mappings, static_cast<std::size_t>(*value)) : "";
}

}  // namespace isvp::cli
