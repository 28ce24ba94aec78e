#include "partitioning.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <sstream>

#include "cpu_budget.h"

namespace isvp::cli {

namespace {

/// Why `config` cannot be partitioned ("" when it can), completing
/// "--partitions does not ...".
std::string unpartitionable(const PlatformConfig& config) {
    if (config.network.model == NetworkModel::Flow)
        return "run with network.model=flow (the flow network has no cut cables to partition at); use one "
               "partition or network.model=packet";
    if (!config.trace.file.empty())
        return "write traces (trace.file): each partition would write the same file; trace a run of one partition";
    if (config.reliable.enabled(config.fabric.aurora.bit_error_rate))
        return "support injected link errors (aurora.bit_error_rate > 0: reliable delivery reports losses across "
               "partitions)";
    if (!config.node.aglu.vcd_path.empty()) return "record the AgLU waveform (aglu.vcd); use one partition";
    return "";
}

}  // namespace

PartitionsRequest read_partitions(const std::string& command, const boost::program_options::variables_map& values,
                                  const PlatformConfig& config, unsigned ranks) {
    if (!values.count("partitions")) return {};
    const std::string text = values["partitions"].as<std::string>();
    if (text != "auto") {
        unsigned count = 0;
        const char* end = text.data() + text.size();
        const auto [last, error] = std::from_chars(text.data(), end, count);
        if (error == std::errc::result_out_of_range && last == end)
            throw ConfigError(command + ": --partitions " + text + " is more than one per switch (" +
                              config.fabric.describe() + " has " + std::to_string(config.fabric.topology().switches()) +
                              ")");
        if (text.empty() || error != std::errc() || last != end)
            throw ConfigError(command + ": --partitions " + text + ": give a number of partitions or 'auto'");
        if (count == 0) throw ConfigError(command + ": --partitions must be at least 1");
        return {true, count};
    }
    // Inside mpiexec's job (even of one process) the job's size decides.
    if (const unsigned launched = PartitionRuntime::launched_size(); launched > 0) return {false, launched};
    const NetworkTopology& topology = config.fabric.topology();
    const unsigned cpus = usable_cpus();
    const unsigned used = std::min(topology.hosts(), std::max(ranks, 1u));
    const std::string why = unpartitionable(config);
    unsigned count = 1;
    std::string reason;
    if (!why.empty()) {
        reason = "partitions do not " + why.substr(0, why.find(';'));
    } else {
        count = std::min({cpus, topology.switches(), std::max(1u, used / kAutoRanksPerPartition)});
        reason = std::to_string(cpus) + (cpus == 1 ? " CPU, " : " CPUs, ") + std::to_string(used) +
                 (used == 1 ? " rank" : " ranks") + " at " + std::to_string(kAutoRanksPerPartition) +
                 " or more per partition, " + std::to_string(topology.switches()) + " switches";
        // Fewer partitions where the plan would not pay or not work: a cut
        // that cannot be planned (a zero-latency cable across it), none at
        // all, or a partition without ranks (placed on the others' hosts).
        std::string fewer;  // why the largest count was not taken
        for (; count > 1; --count) {
            std::string why_not;
            try {
                const PartitionPlan trial(config.fabric, count);
                std::vector<bool> holds_ranks(count, false);
                for (unsigned r = 0; r < used; ++r)  // a placement outside the network is refused later
                    if (const unsigned node = config.placement.node_of(r); node < topology.hosts())
                        holds_ranks[trial.host_owner(node)] = true;
                if (trial.cut_channels() == 0)
                    why_not = "no cable crosses the cut";
                else if (std::find(holds_ranks.begin(), holds_ranks.end(), false) != holds_ranks.end())
                    why_not = "a partition would hold none of the ranks";
            } catch (const ConfigError& error) {
                why_not = error.what();
            }
            if (why_not.empty()) break;
            if (fewer.empty()) fewer = "; not " + std::to_string(count) + ": " + why_not;
        }
        reason += fewer;
    }
    std::cerr << "[isvp] " << command << " --partitions auto: " << count << (count == 1 ? " partition" : " partitions")
              << " (" << reason << ")\n";
    return {false, count};
}

Partitioning::Partitioning(const std::string& command, const std::vector<std::string>& arguments,
                           PartitionsRequest request, PlatformConfig& config, transport::JobSpec& spec) {
    const unsigned launched = PartitionRuntime::launched_size();
    // A job of one started by mpiexec cannot grow: no second mpiexec inside it.
    if (launched == 1 && request.given && request.count > 1)
        throw ConfigError(command + ": --partitions " + std::to_string(request.count) +
                          " but mpiexec started 1 process: give mpiexec -n " + std::to_string(request.count) +
                          " or drop --partitions");
    const unsigned partitions = launched > 0 ? launched : std::max(request.count, 1u);
    if (partitions <= 1) return;
    if (const std::string why = unpartitionable(config); !why.empty())
        throw ConfigError(command + ": --partitions does not " + why);
    // Checked again by the platform, but the partitions are planned by host first.
    const NetworkTopology& topology = config.fabric.topology();
    if (static_cast<unsigned>(spec.ranks) > topology.hosts())
        throw ConfigError("config: " + std::to_string(spec.ranks) + " ranks do not fit the " +
                          std::to_string(topology.hosts()) + "-node " + topology.description() +
                          " (one rank per node)");
    plan_ = std::make_shared<PartitionPlan>(config.fabric, partitions);
    if (launched == 0) PartitionRuntime::relaunch(partitions, arguments, *plan_);
    runtime_ = std::make_unique<PartitionRuntime>(request.given ? request.count : 0);
    config.partition_plan = plan_;
    config.partition = runtime_->rank();
    sync_ = std::make_unique<PartitionSync>(*runtime_, *plan_, plan_->describe(runtime_->rank()));
    // Every partition takes part (it is collective): some may reach the
    // supervisor and others not (partitions on other machines).
    std::vector<std::uint64_t> unsupervised{runtime_->supervised() ? 0u : 1u};
    runtime_->max(unsupervised);
    if (unsupervised[0] != 0) print_partition_map();
    spec.partition = sync_.get();
    // Guest output through isvp's supervisor, whole lines at once.
    if (runtime_->supervised()) {
        spec.out = runtime_->guest_output(false);
        spec.err = runtime_->guest_output(true);
    }
    spec.local_ranks.clear();
    for (int r = 0; r < spec.ranks; ++r)
        spec.local_ranks.push_back(plan_->host_owner(config.placement.node_of(static_cast<unsigned>(r))) ==
                                   runtime_->rank());
}

void Partitioning::print_partition_map() const {
    // Under the user's own mpiexec (or for partitions that cannot reach the
    // supervisor) nobody names a partition that dies, and mpiexec names
    // only its process rank and host: this map says which switches and
    // hosts each process rank owns, and where it runs.
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::vector<std::string> where = runtime_->gather(std::string(host) + " pid " + std::to_string(getpid()));
    if (runtime_->rank() != 0) return;
    for (unsigned k = 0; k < where.size(); ++k)
        std::cerr << "[isvp] " << plan_->describe(k) << " is mpiexec's process rank " << k << " on " << where[k]
                  << "\n";
    std::cerr.flush();
}

transport::PlatformBuilder Partitioning::wrap(transport::PlatformBuilder build,
                                              const std::function<ClusterPlatform*()>& platform) {
    return [this, build = std::move(build), platform](const auto& memory, const auto& gateways) {
        build(memory, gateways);
        if (sync_) sync_->attach(*platform()->fabric().boundary());
    };
}

nlohmann::json Partitioning::statistics(const ClusterPlatform& platform, const sc_core::sc_time& elapsed) {
    nlohmann::json own = platform.statistics(elapsed);
    if (!runtime_) return own;
    const std::vector<std::string> parts = runtime_->gather(own.dump());
    if (!printing()) return nullptr;
    nlohmann::json merged;
    for (const std::string& text : parts) {
        const nlohmann::json part = nlohmann::json::parse(text);
        if (merged.is_null()) {
            merged = part;
            continue;
        }
        merged["simulated_us"] = std::max(merged["simulated_us"].get<double>(), part["simulated_us"].get<double>());
        for (const char* list : {"routers", "links"})
            for (const auto& entry : part["fabric"][list]) merged["fabric"][list].push_back(entry);
        for (const auto& entry : part["nodes"]) merged["nodes"].push_back(entry);
        if (part.contains("switch_engines"))
            for (const auto& [name, entry] : part["switch_engines"].items()) merged["switch_engines"][name] = entry;
        if (part.contains("link_faults"))
            for (const auto& entry : part["link_faults"]) merged["link_faults"].push_back(entry);
    }
    return merged;
}

std::string Partitioning::summary() {
    if (!runtime_) return "";
    // CPU time of this process so far (user + system, microseconds): on a
    // shared machine wall time says little, the busiest partition's CPU time
    // is what bounds the run on dedicated cores.
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto cpu_us = static_cast<std::uint64_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000 +
                        static_cast<std::uint64_t>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    std::vector<std::uint64_t> sums{sync_->statistics().bytes_sent, sync_->statistics().messages, cpu_us};
    std::vector<std::uint64_t> busiest{cpu_us};
    runtime_->sum(sums);
    runtime_->max(busiest);
    std::ostringstream text;
    text << "# partitions: " << runtime_->size() << " (lookahead " << plan_->lookahead_ps() / 1e3 << " ns, "
         << plan_->cut_channels() << " cut channels); " << sync_->statistics().windows << " windows, " << sums[0]
         << " bytes of cut traffic in " << sums[1] << " transfers; partition 0 spent "
         << sync_->statistics().sync_seconds << " s wall synchronising; CPU " << busiest[0] / 1e6
         << " s in the busiest partition, " << sums[2] / 1e6 << " s in all\n";
    return text.str();
}

}  // namespace isvp::cli
