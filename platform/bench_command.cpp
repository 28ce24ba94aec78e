// `isvp bench <benchmark>`: benchmarks in local mode (ranks as fibers or threads, job.ranks).
//
//   isvp bench pingpong [--nodes N | --topology T] --sizes A:B|list [--hops H] ...
//     one row per size: size latency_us bandwidth_gbps (see pingpong.h)
//   isvp bench smi --nodes N --test stencil|pingpong|bcast|reduce|...   (bench_smi.cpp)
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>

#include "bench_support.h"
#include "cli.h"
#include "isvp/network_topology.h"
#include "job_platform.h"
#include "partitioning.h"
#include "pingpong.h"
#include "size_list.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

/// The lowest-addressed host other than 0 exactly `hops` switch-to-switch
/// hops from host 0.
unsigned peer_at_hops(const NetworkTopology& topology, unsigned hops) {
    unsigned farthest = 0;
    for (unsigned host = 1; host < topology.hosts(); ++host) {
        const unsigned distance = topology.distance(0, host);
        if (distance == hops) return host;
        farthest = std::max(farthest, distance);
    }
    throw ConfigError("bench pingpong: --hops " + std::to_string(hops) + ": no host is that far from host 0 on " +
                      topology.kind() + " " + topology.description() + " (at most " + std::to_string(farthest) +
                      "); use more --nodes or another --topology");
}

int pingpong(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp bench pingpong options");
    options.add_options()("nodes", whole(2u), "nodes in a ring (topology.torus = Nx1x1)")(
        "topology", po::value<std::string>(),
        "torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH in place of --nodes")(
        "sizes", po::value<std::string>()->default_value("8:4M"), "message sizes: A:B (powers of two) or a,b,c")(
        "hops", whole(1u), "network hops between the two ranks")("iterations", whole(10u), "timed ping-pongs per size")(
        "window", whole(64u), "messages per streamed-bandwidth window (osu_bw: 64)")(
        "json", po::value<std::string>()->value_name("FILE"), "also write the rows and statistics as JSON")(
        "partitions", po::value<std::string>()->value_name("P|auto"),
        "simulate the platform in P processes under mpiexec (docs/PARTITIONS.md); auto: one per CPU, at most one per "
        "32 hosts");
    add_platform_options(options);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp bench pingpong [--nodes N | --topology T] [--sizes A:B|list] [--hops H] [--iterations I]\n"
               "                           [--window W] [--json FILE] [--partitions P|auto] [--config FILE] [--set "
               "key=value]...\n"
               "Ping-pong between rank 0 and the first rank H switch-to-switch hops away (0: a rank on the\n"
               "same switch, e.g. the same fat-tree leaf); prints size latency_us bandwidth_gbps.",
               options, values))
        return 0;
    if (!apply_ring_or_topology(values, parameters, "bench pingpong")) return 0;

    bench::PingPongOptions bench_options;
    if (values.count("json")) check_writable("--json", values["json"].as<std::string>());
    bench_options.sizes = parse_size_list(values["sizes"].as<std::string>());
    for (const std::uint64_t size : bench_options.sizes)
        if (size > guest::kMaxSendBytes)
            throw ConfigError("bench pingpong: --sizes " + std::to_string(size) + " exceeds the driver's " +
                              std::to_string(guest::kMaxSendBytes) + "-byte message limit");
    bench_options.iterations = whole_value<unsigned>(values, "iterations");
    bench_options.window = whole_value<unsigned>(values, "window");
    if (bench_options.iterations == 0) throw ConfigError("bench pingpong: --iterations must be at least 1");
    if (bench_options.window == 0) throw ConfigError("bench pingpong: --window must be at least 1");
    if (bench_options.iterations > 1000000)
        throw ConfigError("bench pingpong: --iterations takes at most 1000000 round trips");
    // A window is sent without the sender blocking once: its posted PIO
    // writes (up to a PIO window's 64-byte lines per message) must stay
    // below what the simulator queues for one rank (1 Mi requests).
    if (bench_options.window > 10000)
        throw ConfigError("bench pingpong: --window takes at most 10000 messages (osu_bw uses 64), got " +
                          std::to_string(bench_options.window));

    PlatformConfig config = PlatformConfig::from(parameters);
    const guest::DriverConfig driver_config = driver_config_from(parameters);
    const NetworkTopology topology = config.fabric.topology();
    if (topology.hosts() < 2)
        throw ConfigError("bench pingpong: " + config.fabric.describe() + " has one host; a ping-pong needs two");
    const unsigned peer = peer_at_hops(topology, whole_value<unsigned>(values, "hops"));

    transport::JobSpec spec;
    spec.ranks = static_cast<int>(peer) + 1;
    spec.config = TransportConfig::from(parameters);
    std::vector<std::string> arguments{"bench", "pingpong"};
    for (int i = 1; i < argc; ++i) arguments.emplace_back(argv[i]);
    const PartitionsRequest request =
        read_partitions("bench pingpong", values, config, static_cast<unsigned>(spec.ranks));
    Partitioning partitioning("bench pingpong", arguments, request, config, spec);
    JobPlatform job(config);
    const KeepForExit keep_for_exit(job, spec);
    std::vector<bench::PingPongRow> rows;
    std::mutex rows_mutex;
    const auto wall_start = std::chrono::steady_clock::now();
    const transport::JobResult result = transport::run_local_job(
        spec, partitioning.wrap(job.builder(), [&] { return job.platform(); }), [&](guest::DeviceTransport& transport) {
            if (transport.rank() != 0 && transport.rank() != static_cast<int>(peer)) return 0;
            guest::Driver driver(transport, driver_config);
            auto mine = bench::run_pingpong(driver, transport, 0, static_cast<int>(peer), bench_options);
            if (!mine.empty()) {
                const std::lock_guard<std::mutex> lock(rows_mutex);
                rows = std::move(mine);
            }
            return 0;
        });
    const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (result.exit_status != 0) {
        std::cerr << "isvp bench pingpong: job failed: " << result.error << "\n";
        std::cerr << transport::describe_rank_ends(result);
    }
    // Partitions: the rows are rank 0's (partition 0); the job's status and
    // end time come from every partition.
    int exit_status = result.exit_status;
    std::uint64_t end_time_ps = result.end_time_ps;
    if (partitioning.active()) {
        std::vector<std::uint64_t> maxima{static_cast<std::uint64_t>(exit_status), end_time_ps};
        partitioning.runtime().max(maxima);
        exit_status = static_cast<int>(maxima[0]);
        end_time_ps = maxima[1];
    }
    const std::string partition_summary = partitioning.summary();
    // Every partition's part, merged at partition 0 (collective: before anyone returns).
    const nlohmann::json platform_statistics =
        values.count("json") && exit_status == 0
            ? partitioning.statistics(*job.platform(), sc_core::sc_time::from_value(end_time_ps))
            : nlohmann::json();
    if (exit_status != 0) return exit_status;
    if (!partitioning.printing()) return 0;

    std::cout << "# ping-pong rank 0 <-> rank " << peer << " (" << topology.distance(0, peer) << " hops, "
              << config.fabric.describe() << describe_driver_paths(driver_config)
              << ")\n# size latency_us bandwidth_gbps\n";
    for (const auto& row : rows)
        std::cout << row.bytes << " " << std::fixed << std::setprecision(3) << row.latency_us << " "
                  << std::setprecision(2) << row.bandwidth_gbps << "\n";
    const double simulated_us = end_time_ps / 1e6;
    std::cout << std::defaultfloat << std::setprecision(6) << "# simulated " << simulated_us << " us in "
              << std::setprecision(3) << wall_seconds << " s wall: " << simulated_us / wall_seconds
              << " simulated us per wall second\n"
              << partition_summary;

    if (values.count("json")) {
        const std::string path = values["json"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("bench pingpong: cannot write --json " + path);
        nlohmann::json json_rows = nlohmann::json::array();
        for (const auto& row : rows)
            json_rows.push_back(
                {{"size", row.bytes}, {"latency_us", row.latency_us}, {"bandwidth_gbps", row.bandwidth_gbps}});
        out << nlohmann::json{{"benchmark", "pingpong"},
                              {"hops", topology.distance(0, peer)},
                              {"peer", peer},
                              {"parameters", parameters.to_json()},
                              {"rows", json_rows},
                              {"simulated_us", simulated_us},
                              {"wall_seconds", wall_seconds},
                              {"partitions", partitioning.active() ? partitioning.runtime().size() : 1u},
                              // Partitioned: every partition's part, merged.
                              {"platform", platform_statistics}}
                   .dump(2)
            << "\n";
    }
    return 0;
}

}  // namespace

int bench_collectives(int argc, char** argv);
int bench_smi(int argc, char** argv);
int bench_fused(int argc, char** argv);

int bench_command(int argc, char** argv) {
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        (argc < 2 ? std::cerr : std::cout)
            << "usage: isvp bench <benchmark> [options]\n\nbenchmarks:\n"
            << "  pingpong       latency and bandwidth between two ranks\n"
            << "  collectives    latency of every collective, offloaded, in software or both, beside the LogGP model\n"
            << "  fused          SmartFuse fused and higher-order collectives (is, fem, pgemm, spmv), offloaded "
               "and in host software, beside the LogcN model\n"
            << "  smi            SMI streaming messages between on-FPGA kernels: stencil, ping-pong, bcast, reduce, "
               "...\n";
        return argc < 2 ? 2 : 0;
    }
    const std::string which = argv[1];
    if (which == "pingpong") return pingpong(argc - 1, argv + 1);
    if (which == "collectives") return bench_collectives(argc - 1, argv + 1);
    if (which == "smi") return bench_smi(argc - 1, argv + 1);
    if (which == "fused") return bench_fused(argc - 1, argv + 1);
    throw ConfigError("bench: unknown benchmark '" + which + "' (known: pingpong, collectives, fused, smi)");
}

}  // namespace isvp::cli
