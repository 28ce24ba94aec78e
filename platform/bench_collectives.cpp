// `isvp bench collectives`: OSU-style latency of every collective on the
// platform (ranks as threads, one per node), offloaded to the switches where
// they support it. Latency = the maximum over ranks of each rank's time in
// the call, averaged over the timed iterations; every timed call starts after
// a barrier. With --check every result is compared with a plain C++
// reference computed independently on each rank.
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>

#include "cli.h"
#include "isvp/collectives.h"
#include "job_platform.h"
#include "size_list.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

const std::vector<std::pair<std::string, Opcode>> kCollectives = {
    {"bcast", Opcode::Bcast},         {"reduce", Opcode::Reduce},   {"allreduce", Opcode::Allreduce},
    {"scatter", Opcode::Scatter},     {"gather", Opcode::Gather},   {"allgather", Opcode::Allgather},
    {"reduce_scatter", Opcode::ReduceScatter}, {"barrier", Opcode::Barrier}};

std::vector<std::pair<std::string, Opcode>> parse_collectives(const std::string& text) {
    if (text == "all") return kCollectives;
    std::vector<std::pair<std::string, Opcode>> chosen;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        bool found = false;
        for (const auto& entry : kCollectives)
            if (entry.first == item) {
                chosen.push_back(entry);
                found = true;
            }
        if (!found)
            throw ConfigError("bench collectives: unknown collective '" + item +
                              "' (known: bcast, reduce, allreduce, scatter, gather, allgather, reduce_scatter, "
                              "barrier, or all)");
    }
    return chosen;
}

/// Input element i of `rank` in iteration `iteration`: known to every rank,
/// so each can compute the reference for itself.
std::int32_t input(int rank, std::size_t i, unsigned iteration) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(rank) * 1000003u +
                                     static_cast<std::uint32_t>(i) * 7919u + iteration * 104729u);
}

/// Runs one collective call on every rank and checks the result against the
/// definition; returns false on a mismatch.
bool run_and_check(guest::Collectives& coll, Opcode collective, int rank, int size, std::size_t count,
                   unsigned iteration, bool check) {
    guest::Communicator& world = coll.world();
    const std::size_t all = count * static_cast<std::size_t>(size);
    std::vector<std::int32_t> send(collective == Opcode::Scatter || collective == Opcode::ReduceScatter ? all : count);
    std::vector<std::int32_t> recv(collective == Opcode::Gather || collective == Opcode::Allgather ? all : count);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = input(rank, i, iteration);
    const Datatype type = Datatype::Int32;
    switch (collective) {
        case Opcode::Bcast:
            recv = send;
            coll.bcast(world, recv.data(), count, type, 0);
            break;
        case Opcode::Reduce: coll.reduce(world, send.data(), recv.data(), count, type, Operation::Sum, 0); break;
        case Opcode::Allreduce: coll.allreduce(world, send.data(), recv.data(), count, type, Operation::Sum); break;
        case Opcode::Scatter: coll.scatter(world, send.data(), recv.data(), count, type, 0); break;
        case Opcode::Gather: coll.gather(world, send.data(), recv.data(), count, type, 0); break;
        case Opcode::Allgather: coll.allgather(world, send.data(), recv.data(), count, type); break;
        case Opcode::ReduceScatter:
            coll.reduce_scatter_block(world, send.data(), recv.data(), count, type, Operation::Sum);
            break;
        case Opcode::Barrier: coll.barrier(world); return true;
        case Opcode::Send: return true;
    }
    if (!check) return true;
    auto sum_over_ranks = [&](std::size_t i) {
        std::uint32_t sum = 0;
        for (int r = 0; r < size; ++r) sum += static_cast<std::uint32_t>(input(r, i, iteration));
        return static_cast<std::int32_t>(sum);
    };
    for (std::size_t i = 0; i < recv.size(); ++i) {
        std::int32_t expected = recv[i];
        switch (collective) {
            case Opcode::Bcast: expected = input(0, i, iteration); break;
            case Opcode::Reduce:
                if (rank != 0) return true;
                expected = sum_over_ranks(i);
                break;
            case Opcode::Allreduce: expected = sum_over_ranks(i); break;
            case Opcode::Scatter: expected = input(0, rank * count + i, iteration); break;
            case Opcode::Gather:
                if (rank != 0) return true;
                expected = input(static_cast<int>(i / count), i % count, iteration);
                break;
            case Opcode::Allgather: expected = input(static_cast<int>(i / count), i % count, iteration); break;
            case Opcode::ReduceScatter: expected = sum_over_ranks(rank * count + i); break;
            default: break;
        }
        if (recv[i] != expected) return false;
    }
    return true;
}

}  // namespace

int bench_collectives(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    po::options_description options("isvp bench collectives options");
    options.add_options()
        ("topology", po::value<std::string>(), "torus:XxYxZ (default: topology.torus of the platform)")
        ("collectives", po::value<std::string>()->default_value("all"), "comma-separated list, or all")
        ("sizes", po::value<std::string>()->default_value("8:64K"), "bytes per rank: A:B (powers of two) or a,b,c")
        ("iterations", po::value<unsigned>()->default_value(5), "timed calls per collective and size")
        ("warmup", po::value<unsigned>()->default_value(1), "untimed calls first")
        ("aglu", po::value<std::string>(), "AgLU implementation in the switches: tlm or rtl (aglu.impl)")
        ("offload", po::value<std::string>()->default_value("on"), "on: switches where they can; off: software")
        ("check", "verify every result against a plain C++ reference; print 'mismatch' and fail on a difference")
        ("json", po::value<std::string>()->value_name("FILE"), "also write the rows as JSON");
    add_platform_options(options);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp bench collectives [--topology torus:XxYxZ] [--collectives LIST] [--sizes A:B|list]\n"
               "        [--iterations N] [--aglu tlm|rtl] [--offload on|off] [--check] [--json FILE] [--set k=v]...\n"
               "One row per collective and size: collective size latency_us (max over ranks, as OSU reports).",
               options, values))
        return 0;
    if (values.count("topology")) {
        const std::string topology = values["topology"].as<std::string>();
        if (topology.rfind("torus:", 0) != 0)
            throw ConfigError("bench collectives: --topology must be torus:XxYxZ, got '" + topology + "'");
        parameters.apply_override("topology.torus=" + topology.substr(6));
    }
    if (values.count("aglu")) parameters.apply_override("aglu.impl=" + values["aglu"].as<std::string>());
    if (!apply_platform_options(values, parameters)) return 0;
    const std::string offload_text = values["offload"].as<std::string>();
    if (offload_text != "on" && offload_text != "off")
        throw ConfigError("bench collectives: --offload must be on or off, got '" + offload_text + "'");
    const bool offload = offload_text == "on";
    const auto collectives = parse_collectives(values["collectives"].as<std::string>());
    const auto sizes = parse_size_list(values["sizes"].as<std::string>());
    const unsigned iterations = values["iterations"].as<unsigned>();
    const unsigned warmup = values["warmup"].as<unsigned>();
    const bool check = values.count("check") > 0;
    if (iterations == 0) throw ConfigError("bench collectives: --iterations must be at least 1");

    const PlatformConfig config = PlatformConfig::from(parameters);
    transport::JobSpec spec;
    spec.ranks = static_cast<int>(config.fabric.shape.nodes());
    spec.config = TransportConfig::from(parameters);
    JobPlatform job(config);

    // duration[collective][size] = sum over iterations of the max over ranks.
    std::vector<std::vector<std::vector<std::uint64_t>>> durations(
        collectives.size(), std::vector<std::vector<std::uint64_t>>(sizes.size(), std::vector<std::uint64_t>(iterations, 0)));
    std::mutex mutex;
    bool mismatch = false;
    std::uint64_t offloaded = 0, software = 0;
    const auto wall_start = std::chrono::steady_clock::now();
    const transport::JobResult result =
        transport::run_local_job(spec, job.builder(), [&](guest::DeviceTransport& transport) {
            guest::DriverConfig driver_config;
            driver_config.offload = offload;
            guest::Driver driver(transport, driver_config);
            guest::Collectives coll(driver, offload);
            const int rank = transport.rank(), size = transport.size();
            bool ok = true;
            for (std::size_t c = 0; c < collectives.size(); ++c) {
                const Opcode collective = collectives[c].second;
                for (std::size_t s = 0; s < sizes.size(); ++s) {
                    const std::size_t count =
                        collective == Opcode::Barrier ? 0 : std::max<std::size_t>(1, sizes[s] / sizeof(std::int32_t));
                    for (unsigned it = 0; it < warmup + iterations; ++it) {
                        coll.barrier(coll.world());
                        const std::uint64_t start = transport.now_ps();
                        ok = run_and_check(coll, collective, rank, size, count, it, check) && ok;
                        const std::uint64_t took = transport.now_ps() - start;
                        if (it >= warmup) {
                            const std::lock_guard<std::mutex> lock(mutex);
                            auto& slot = durations[c][s][it - warmup];
                            slot = std::max(slot, took);
                        }
                    }
                    if (collective == Opcode::Barrier) break;  // one row: size does not apply
                }
            }
            const std::lock_guard<std::mutex> lock(mutex);
            if (!ok) mismatch = true;
            offloaded += coll.offloaded_calls();
            software += coll.software_calls();
            return ok ? 0 : 1;
        });
    const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!result.error.empty() || (result.exit_status != 0 && !mismatch)) {
        std::cerr << "isvp bench collectives: job failed: " << result.error << "\n";
        for (std::size_t r = 0; r < result.ranks.size(); ++r)
            if (!result.ranks[r].ended.empty()) std::cerr << "  rank " << r << ": " << result.ranks[r].ended << "\n";
        return result.exit_status ? result.exit_status : 1;
    }

    std::cout << "# " << spec.ranks << " ranks on torus " << parameters.text("topology.torus") << ", offload "
              << offload_text << ", aglu " << parameters.text("aglu.impl") << ", int32 (SUM for reductions)\n"
              << "# collective size latency_us\n";
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t c = 0; c < collectives.size(); ++c)
        for (std::size_t s = 0; s < sizes.size(); ++s) {
            const bool barrier = collectives[c].second == Opcode::Barrier;
            std::uint64_t total = 0;
            for (const std::uint64_t d : durations[c][s]) total += d;
            const double latency_us = total / 1e6 / iterations;
            const std::uint64_t size = barrier ? 0 : sizes[s];
            std::cout << collectives[c].first << " " << size << " " << std::fixed << std::setprecision(3)
                      << latency_us << "\n";
            rows.push_back({{"collective", collectives[c].first}, {"size", size}, {"latency_us", latency_us}});
            if (barrier) break;
        }
    std::cout << std::defaultfloat << "# " << offloaded << " calls offloaded, " << software
              << " in software (barriers between iterations included); simulated " << result.end_time_ps / 1e6
              << " us in " << std::setprecision(3) << wall_seconds << " s wall\n";
    if (mismatch) std::cout << "mismatch: a collective result differs from the reference\n";
    if (values.count("json")) {
        const std::string path = values["json"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("bench collectives: cannot write --json " + path);
        out << nlohmann::json{{"benchmark", "collectives"}, {"ranks", spec.ranks},      {"offload", offload},
                              {"parameters", parameters.to_json()}, {"rows", rows},     {"check", check},
                              {"mismatch", mismatch},  {"wall_seconds", wall_seconds}}
                   .dump(2)
            << "\n";
    }
    return mismatch ? 1 : 0;
}

}  // namespace isvp::cli
