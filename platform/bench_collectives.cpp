// `isvp bench collectives`: OSU-style latency of every collective on the
// platform (local ranks, one per node: fibers or threads, job.ranks), offloaded to the switches, in
// host software, or both, with the LogGP model (models/loggp) beside each
// simulated figure. Latency = average over the timed iterations of the
// maximum over ranks of each rank's time in the call; every call (warm-up
// and timed) starts after a barrier of the implementation being measured.
// With --check every result is compared with a plain C++ reference
// computed independently on each rank; with --timing-only no payload is
// produced or checked (job.timing_only; /work/notes contract: identical
// simulated times).
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include "bench_support.h"
#include "cli.h"
#include "isvp/aurora_config.h"
#include "isvp/collective_schedule.h"
#include "isvp/collectives.h"
#include "isvp/flow_network.h"
#include "isvp/loggp_model.h"
#include "isvp/sharp_resources.h"
#include "isvp/statistics_table.h"
#include "isvp/wakeup_scheduler.h"
#include "job_platform.h"
#include "partitioning.h"
#include "size_list.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

const std::vector<std::pair<std::string, Opcode>> kCollectives = {{"bcast", Opcode::Bcast},
                                                                  {"reduce", Opcode::Reduce},
                                                                  {"allreduce", Opcode::Allreduce},
                                                                  {"scatter", Opcode::Scatter},
                                                                  {"gather", Opcode::Gather},
                                                                  {"allgather", Opcode::Allgather},
                                                                  {"reduce_scatter", Opcode::ReduceScatter},
                                                                  {"barrier", Opcode::Barrier}};
/// By name only, not in "all" (whose rows, and their simulated times, stay
/// the eight of DESIGN §3.5): the engine's Alltoall (docs/FUSED.md).
const std::pair<std::string, Opcode> kAlltoall = {"alltoall", Opcode::Alltoall};

std::vector<std::pair<std::string, Opcode>> parse_collectives(const std::string& text) {
    if (text == "all") return kCollectives;
    std::vector<std::pair<std::string, Opcode>> chosen;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        bool found = false;
        if (item == kAlltoall.first) {
            chosen.push_back(kAlltoall);
            found = true;
        }
        for (const auto& entry : kCollectives)
            if (entry.first == item) {
                chosen.push_back(entry);
                found = true;
            }
        if (!found)
            throw ConfigError("bench collectives: unknown collective '" + item +
                              "' (known: bcast, reduce, allreduce, scatter, gather, allgather, reduce_scatter, "
                              "barrier, alltoall, or all: all but alltoall)");
    }
    if (chosen.empty()) throw ConfigError("bench collectives: --collectives names no collective");
    return chosen;
}

bool per_rank_blocks(Opcode collective) {
    return collective == Opcode::Scatter || collective == Opcode::Gather || collective == Opcode::Allgather ||
           collective == Opcode::ReduceScatter || collective == Opcode::Alltoall;
}

/// Input element i of `rank` in iteration `iteration`: known to every rank,
/// so each can compute the reference for itself.
std::int32_t input(int rank, std::size_t i, unsigned iteration) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(rank) * 1000003u +
                                     static_cast<std::uint32_t>(i) * 7919u + iteration * 104729u);
}

/// Bytes of the pages of [data, data + bytes) in RAM (mincore; `data`
/// page-aligned).
std::uint64_t resident_bytes_of(void* data, std::size_t bytes) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> pages((bytes + page - 1) / page);
    if (::mincore(data, bytes, pages.data()) != 0) return 0;
    std::uint64_t resident = 0;
    for (const unsigned char p : pages) resident += (p & 1u) ? page : 0;
    return resident;
}

/// Zero-filled memory that takes no RAM until a page is touched (an
/// anonymous mapping), and can say how much of it has been.
class LazyArray {
  public:
    explicit LazyArray(std::size_t elements) : bytes_(std::max<std::size_t>(elements, 1) * sizeof(std::int32_t)) {
        void* at = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (at == MAP_FAILED)
            throw std::runtime_error("bench collectives: cannot map a " + std::to_string(bytes_) + "-byte buffer");
        data_ = static_cast<std::int32_t*>(at);
    }
    ~LazyArray() { ::munmap(data_, bytes_); }
    LazyArray(const LazyArray&) = delete;
    LazyArray& operator=(const LazyArray&) = delete;
    std::int32_t* get() const { return data_; }
    /// Bytes of pages in RAM (mincore): what using the buffer cost.
    std::uint64_t resident_bytes() const { return resident_bytes_of(data_, bytes_); }

  private:
    std::size_t bytes_;
    std::int32_t* data_ = nullptr;
};

/// One rank's buffers for one collective and size. With --timing-only
/// nothing (guest, driver) touches them, so they take no memory.
struct Buffers {
    std::size_t send_count = 0, recv_count = 0;
    LazyArray send, recv;
    Buffers(Opcode collective, std::size_t count, int size)
        : send_count(collective == Opcode::Scatter || collective == Opcode::ReduceScatter ||
                             collective == Opcode::Alltoall
                         ? count * static_cast<std::size_t>(size)
                         : count),
          recv_count(collective == Opcode::Gather || collective == Opcode::Allgather || collective == Opcode::Alltoall
                         ? count * static_cast<std::size_t>(size)
                         : count),
          send(send_count),
          recv(recv_count) {}
};

/// Runs one collective call; with `check`, fills the inputs first and
/// compares the result with the definition (false on a mismatch).
bool run_and_check(guest::Collectives& coll, Opcode collective, int rank, int size, std::size_t count,
                   unsigned iteration, bool check, Buffers& buffers) {
    guest::Communicator& world = coll.world();
    std::int32_t* send = buffers.send.get();
    std::int32_t* recv = buffers.recv.get();
    if (check)
        for (std::size_t i = 0; i < buffers.send_count; ++i) send[i] = input(rank, i, iteration);
    const Datatype type = Datatype::Int32;
    switch (collective) {
        case Opcode::Bcast:
            if (check) std::copy(send, send + count, recv);
            coll.bcast(world, recv, count, type, 0);
            break;
        case Opcode::Reduce:
            coll.reduce(world, send, recv, count, type, Operation::Sum, 0);
            break;
        case Opcode::Allreduce:
            coll.allreduce(world, send, recv, count, type, Operation::Sum);
            break;
        case Opcode::Scatter:
            coll.scatter(world, send, recv, count, type, 0);
            break;
        case Opcode::Gather:
            coll.gather(world, send, recv, count, type, 0);
            break;
        case Opcode::Allgather:
            coll.allgather(world, send, recv, count, type);
            break;
        case Opcode::ReduceScatter:
            coll.reduce_scatter_block(world, send, recv, count, type, Operation::Sum);
            break;
        case Opcode::Alltoall:
            coll.alltoall(world, send, recv, count, type);
            break;
        case Opcode::Barrier:
            coll.barrier(world);
            return true;
        case Opcode::Send:
        case Opcode::Stream:
            return true;
    }
    if (!check) return true;
    auto sum_over_ranks = [&](std::size_t i) {
        std::uint32_t sum = 0;
        for (int r = 0; r < size; ++r) sum += static_cast<std::uint32_t>(input(r, i, iteration));
        return static_cast<std::int32_t>(sum);
    };
    for (std::size_t i = 0; i < buffers.recv_count; ++i) {
        std::int32_t expected = recv[i];
        switch (collective) {
            case Opcode::Bcast:
                expected = input(0, i, iteration);
                break;
            case Opcode::Reduce:
                if (rank != 0) return true;
                expected = sum_over_ranks(i);
                break;
            case Opcode::Allreduce:
                expected = sum_over_ranks(i);
                break;
            case Opcode::Scatter:
                expected = input(0, rank * count + i, iteration);
                break;
            case Opcode::Gather:
                if (rank != 0) return true;
                expected = input(static_cast<int>(i / count), i % count, iteration);
                break;
            case Opcode::Allgather:
                expected = input(static_cast<int>(i / count), i % count, iteration);
                break;
            case Opcode::ReduceScatter:
                expected = sum_over_ranks(rank * count + i);
                break;
            case Opcode::Alltoall:  // block s from rank s: its block for this rank
                expected = input(static_cast<int>(i / count), rank * count + i % count, iteration);
                break;
            default:
                break;
        }
        if (recv[i] != expected) return false;
    }
    return true;
}

/// Bytes a row moves, for the progress estimate: the collective buffer plus
/// a fixed cost worth 16 KiB.
double row_weight(Opcode collective, std::uint64_t size, int ranks) {
    const double blocks = per_rank_blocks(collective) ? ranks : 1;
    return 16384.0 + static_cast<double>(size) * blocks;
}

}  // namespace

int bench_collectives(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp bench collectives options");
    options.add_options()("topology", po::value<std::string>(),
                          "torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH (default: topology.* "
                          "of the platform); one rank per host, up to 1024 nodes and more")(
        "collectives", po::value<std::string>()->default_value("all"),
        "comma-separated list, or all (the eight of DESIGN 3.5; alltoall by name only)")(
        "sizes", po::value<std::string>()->default_value("8:64K"),
        "bytes per rank: A:B (powers of two) or a,b,c; per rank block for scatter, gather, allgather and "
        "reduce_scatter")("iterations", whole(5u), "timed calls per collective and size")(
        "warmup", whole(1u), "untimed calls first")("aglu", po::value<std::string>(),
                                                    "AgLU implementation in the switches: tlm or rtl (aglu.impl)")(
        "offload", po::value<std::string>()->default_value("on"),
        "on: switches where they can; off: host software; both: each row measured both ways, side by side")(
        "check", "verify every result against a plain C++ reference; print 'mismatch' and fail on a difference")(
        "timing-only",
        "carry no payload bytes (job.timing_only): buffers neither filled nor checked; same simulated times")(
        "vcd", po::value<std::string>()->value_name("FILE"),
        "record the RTL AgLU waveform of node 0's switch (needs --aglu rtl; aglu.vcd)")(
        "progress", "print a progress line on stderr (default: when stderr is a terminal)")(
        "progress-every", po::value<double>()->default_value(30.0, "30")->value_name("S"),
        "with progress lines, also every S s of wall time while a row runs: its simulated time and packet-hops so "
        "far (0: only when a row ends)")("json", po::value<std::string>()->value_name("FILE"),
                                         "also write the rows, the model and the parameters as JSON")(
        "partitions", po::value<std::string>()->value_name("P|auto"),
        "simulate the platform in P processes under mpiexec, each a contiguous block of switches (docs/PARTITIONS.md); "
        "identical rows. auto: one per CPU, at most one per 32 hosts. Started by mpiexec -n P already: P is the job's "
        "size");
    add_placement_options(options);
    add_platform_options(options);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp bench collectives [--topology torus:XxYxZ|fattree:radix=R,hosts=N|file:PATH]\n"
               "        [--collectives LIST] [--sizes A:B|list]\n"
               "        [--iterations N] [--warmup N] [--aglu tlm|rtl] [--offload on|off|both] [--check]\n"
               "        [--timing-only] [--vcd FILE] [--progress] [--progress-every S] [--json FILE]\n"
               "        [--partitions P|auto] [--set k=v]...\n"
               "One row per collective and size. Latency: every call starts after a barrier; each rank\n"
               "times its own call; the row is the average over the timed iterations (after --warmup\n"
               "untimed ones) of the maximum over ranks, as the OSU benchmarks report. Beside it the\n"
               "LogGP model (models/loggp, docs/REPORTS.md) and the relative difference (simulated -\n"
               "model) / model. Columns: collective size latency_us loggp_us diff with --offload on|off;\n"
               "collective size offload_us software_us speedup loggp_offload_us loggp_software_us\n"
               "diff_offload diff_software with --offload both.",
               options, values))
        return 0;
    apply_config_option(values, parameters);
    if (values.count("topology"))
        apply_topology_option(parameters, values["topology"].as<std::string>(), "bench collectives: --topology");
    if (values.count("aglu")) parameters.apply_override("aglu.impl=" + values["aglu"].as<std::string>());
    if (!apply_platform_options(values, parameters)) return 0;
    const bool check = values.count("check") > 0;
    // --timing-only is job.timing_only=true, however it was given (--set, --config).
    if (values.count("timing-only")) parameters.apply_override("job.timing_only=true");
    const bool timing_only = parameters.flag("job.timing_only");
    if (timing_only && check)
        throw ConfigError(
            "bench collectives: --check compares results, but --timing-only (job.timing_only) carries "
            "no payload to compare; drop one of them");
    if (values.count("vcd")) {
        if (parameters.text("aglu.impl") != "rtl")
            throw ConfigError(
                "bench collectives: --vcd records the RTL AgLU's waveform; add --aglu rtl (aglu.impl is " +
                parameters.text("aglu.impl") + ")");
        parameters.apply_override("aglu.vcd=" + values["vcd"].as<std::string>());
    }
    const std::string offload_text = values["offload"].as<std::string>();
    const Passes passes = Passes::parse(offload_text, "bench collectives");
    if (values.count("json")) check_writable("--json", values["json"].as<std::string>());
    const auto collectives = parse_collectives(values["collectives"].as<std::string>());
    const auto sizes = parse_size_list(values["sizes"].as<std::string>());
    const unsigned iterations = whole_value<unsigned>(values, "iterations");
    const std::chrono::nanoseconds progress_every =
        heartbeat_period(values["progress-every"].as<double>(), "bench collectives: --progress-every", true);
    const unsigned warmup = whole_value<unsigned>(values, "warmup");
    if (iterations == 0) throw ConfigError("bench collectives: --iterations must be at least 1");
    if (iterations > 1000000 || warmup > 1000000)
        throw ConfigError("bench collectives: --iterations and --warmup take at most 1000000 calls each");
    // Rows are int32 SUM reductions and int32 blocks: a size must be a whole
    // number of elements (the row would otherwise move a different size
    // from the one it is labelled with).
    for (const std::uint64_t size : sizes)
        if (size == 0 || size % sizeof(std::int32_t) != 0)
            throw ConfigError("bench collectives: --sizes " + std::to_string(size) +
                              ": sizes are bytes of int32 elements per rank, a positive multiple of 4");

    PlatformConfig config = PlatformConfig::from(parameters);
    const guest::DriverConfig base_driver_config = driver_config_from(parameters);
    transport::JobSpec spec;
    const NetworkTopology topology = config.fabric.topology();
    spec.ranks = static_cast<int>(topology.hosts());
    spec.config = TransportConfig::from(parameters);
    // A rank whose collective fails (e.g. a link fault, error 6) leaves: the
    // job ends then, as under mpirun, rather than its peers waiting for it.
    spec.config.end_on_early_exit = true;
    const int ranks = spec.ranks;
    config.placement = placement_from_options(values, static_cast<unsigned>(ranks), topology, "bench collectives");
    spec.rank_nodes = config.placement.nodes;

    // A row's buffer must fit the switch's collective buffer (the software
    // path's message limit is larger): refuse it here, not mid-run.
    const std::uint64_t max_buffer = config.node.collective.max_buffer_bytes;
    for (const auto& collective : collectives)
        for (const std::uint64_t size : sizes) {
            std::uint64_t blocks = per_rank_blocks(collective.second) ? static_cast<std::uint64_t>(ranks) : 1;
            if (collective.second == Opcode::Alltoall) blocks = alltoall_buffer_blocks(ranks);  // and its scratch
            const std::uint64_t count = std::max<std::uint64_t>(1, size / sizeof(std::int32_t));
            if (collective.second != Opcode::Barrier && count * sizeof(std::int32_t) * blocks > max_buffer)
                throw ConfigError("bench collectives: " + collective.first + " of " + std::to_string(size) +
                                  " bytes per rank on " + std::to_string(ranks) + " ranks needs a " +
                                  std::to_string(count * sizeof(std::int32_t) * blocks) +
                                  "-byte buffer; collective.max_buffer_bytes is " + std::to_string(max_buffer) +
                                  " (use smaller --sizes)");
        }

    // Partitions (docs/PARTITIONS.md): refused combinations first, then this
    // process is either re-started under mpiexec or one partition of the job.
    std::vector<std::string> arguments{"bench", "collectives"};
    for (int i = 1; i < argc; ++i) arguments.emplace_back(argv[i]);
    const PartitionsRequest request =
        read_partitions("bench collectives", values, config, static_cast<unsigned>(spec.ranks));
    Partitioning partitioning("bench collectives", arguments, request, config, spec);
    PartitionRuntime* const runtime = partitioning.active() ? &partitioning.runtime() : nullptr;
    const bool printing = partitioning.printing();  // partition 0 prints the rows

    // Rows: collective x size (barrier: one row, size 0).
    struct Row {
        std::size_t collective = 0;
        std::uint64_t size = 0;                              ///< as given (0 for barrier)
        std::size_t count = 0;                               ///< int32 elements per rank block
        std::vector<std::uint64_t> offload_ps, software_ps;  ///< per timed iteration: max over ranks
        /// Per timed iteration: earliest and latest start over ranks (how far
        /// apart the barrier before the call released them).
        std::vector<std::pair<std::uint64_t, std::uint64_t>> offload_starts, software_starts;
        /// Wall clock (ns, steady clock), over ranks: the earliest start of
        /// the first timed call and the latest end of the last one.
        std::pair<std::int64_t, std::int64_t> offload_wall{INT64_MAX, INT64_MIN}, software_wall{INT64_MAX, INT64_MIN};
    };
    std::vector<Row> rows;
    double total_weight = 0;
    for (std::size_t c = 0; c < collectives.size(); ++c) {
        const Opcode collective = collectives[c].second;
        for (const std::uint64_t size : sizes) {
            Row row;
            row.collective = c;
            row.size = collective == Opcode::Barrier ? 0 : size;
            row.count = collective == Opcode::Barrier ? 0 : std::max<std::size_t>(1, size / sizeof(std::int32_t));
            row.offload_ps.assign(iterations, 0);
            row.software_ps.assign(iterations, 0);
            row.offload_starts.assign(iterations, {UINT64_MAX, 0});
            row.software_starts.assign(iterations, {UINT64_MAX, 0});
            rows.push_back(row);
            total_weight += row_weight(collective, row.count * 4, ranks) * (passes.offload + passes.software);
            if (collective == Opcode::Barrier) break;  // one row: size does not apply
        }
    }

    JobPlatform job(config);
    const KeepForExit keep_for_exit(job, spec);
    const bool show_progress = values.count("progress") > 0 || isatty(STDERR_FILENO) != 0;
    Progress progress("bench collectives", show_progress, total_weight,
                      rows.size() * (passes.offload + passes.software));
    std::mutex mutex;
    // The row rank 0 is in, for the heartbeat of a long row ("" between rows).
    std::string running_row;
    if (show_progress && progress_every.count() > 0) {
        spec.heartbeat_period = progress_every;
        spec.heartbeat = [&](std::uint64_t simulated_ps) {
            // Bring-up has phase lines of its own; another partition's rank 0 prints.
            const std::lock_guard<std::mutex> lock(mutex);
            if (running_row.empty()) return;
            // A partition holds part of the network: its packet-hops would be a part too.
            std::optional<std::uint64_t> hops;
            if (!partitioning.active() && job.platform()) hops = job.platform()->packet_hops();
            progress.running(running_row, simulated_ps, hops);
        };
    }
    const transport::PlatformBuilder build_platform = partitioning.wrap(
        [&, build = job.builder()](const std::vector<transport::HostMemorySpan>& memory,
                                   const std::vector<transport::GuestGateway*>& gateways) {
            build(memory, gateways);
            progress.phase("platform built");
        },
        [&] { return job.platform(); });
    bool mismatch = false;
    std::uint64_t offloaded = 0, software = 0;
    // Payload memory, max over nodes: the guest buffers' pages in RAM (after
    // each row), the driver's largest payload buffer and data bytes staged.
    // And the rank's host memory in RAM at its end: rings, staging, C2H
    // buffers (the guest's own buffers are unmapped by then).
    std::uint64_t guest_resident = 0, driver_payload_buffer = 0, driver_staged = 0, host_resident = 0;
    const auto wall_start = std::chrono::steady_clock::now();
    const auto wall_ns = [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    };
    const transport::JobResult result =
        transport::run_local_job(spec, build_platform, [&](guest::DeviceTransport& transport) {
            guest::DriverConfig driver_config = base_driver_config;
            driver_config.offload = passes.offload;
            driver_config.timing_only = timing_only;
            guest::Driver driver(transport, driver_config);
            // Two instances on one driver, both using only the world
            // communicator: the offloaded one uploads the world's CT row; the
            // software one never touches the switch. Their reserved message
            // tags repeat (same context, sequences from 0), which is safe
            // because the passes run one after the other and every message of
            // a call is consumed within that call.
            guest::Collectives offloaded_coll(driver, true);
            guest::Collectives software_coll(driver, false);
            const int rank = transport.rank(), size = transport.size();
            bool ok = true;
            for (const bool offload : {true, false}) {
                if (offload ? !passes.offload : !passes.software) continue;
                guest::Collectives& coll = offload ? offloaded_coll : software_coll;
                for (Row& row : rows) {
                    const Opcode collective = collectives[row.collective].second;
                    const std::string row_name = collectives[row.collective].first + "/" + std::to_string(row.size) +
                                                 (offload ? "/offload" : "/software");
                    if (rank == 0) {
                        const std::lock_guard<std::mutex> lock(mutex);
                        running_row = row_name;
                    }
                    Buffers buffers(collective, row.count, size);
                    for (unsigned it = 0; it < warmup + iterations; ++it) {
                        coll.barrier(coll.world());
                        if (rank == 0 && it == 0 && &row == &rows.front() && offload == passes.offload)
                            progress.phase("first barrier done (drivers up, CT rows uploaded)");
                        const std::uint64_t start = transport.now_ps();
                        const std::int64_t wall_begin = it == warmup ? wall_ns() : 0;
                        ok = run_and_check(coll, collective, rank, size, row.count, it, check, buffers) && ok;
                        const std::uint64_t took = transport.now_ps() - start;
                        if (it >= warmup) {
                            const std::int64_t wall_end = it + 1 == warmup + iterations ? wall_ns() : INT64_MIN;
                            const std::lock_guard<std::mutex> lock(mutex);
                            auto& wall = offload ? row.offload_wall : row.software_wall;
                            if (it == warmup) wall.first = std::min(wall.first, wall_begin);
                            wall.second = std::max(wall.second, wall_end);
                            auto& slot = (offload ? row.offload_ps : row.software_ps)[it - warmup];
                            slot = std::max(slot, took);
                            auto& starts = (offload ? row.offload_starts : row.software_starts)[it - warmup];
                            starts = {std::min(starts.first, start), std::max(starts.second, start)};
                        }
                    }
                    const std::uint64_t resident = buffers.send.resident_bytes() + buffers.recv.resident_bytes();
                    {
                        const std::lock_guard<std::mutex> lock(mutex);
                        guest_resident = std::max(guest_resident, resident);
                    }
                    if (rank == 0) {
                        const std::lock_guard<std::mutex> lock(mutex);
                        progress.row_done(row_name, row_weight(collective, row.count * 4, size));
                        running_row.clear();
                    }
                }
            }
            const std::uint64_t host = resident_bytes_of(transport.host_memory(), transport.host_memory_bytes());
            const std::lock_guard<std::mutex> lock(mutex);
            host_resident = std::max(host_resident, host);
            if (!ok) mismatch = true;
            offloaded += offloaded_coll.offloaded_calls() + software_coll.offloaded_calls();
            driver_payload_buffer = std::max(driver_payload_buffer, driver.largest_payload_buffer());
            driver_staged = std::max(driver_staged, driver.data_bytes_staged());
            software += offloaded_coll.software_calls() + software_coll.software_calls();
            return ok ? 0 : 1;
        });
    const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    // Wall time in the timed calls, without bring-up, warm-ups and the rows'
    // set-up: what a per-iteration speed figure divides (docs/PERFORMANCE.md).
    std::uint64_t timed_wall_ns = 0;
    unsigned timed_calls = 0;
    for (const Row& row : rows)
        for (const auto& wall : {row.offload_wall, row.software_wall})
            if (wall.second >= wall.first) {
                timed_wall_ns += static_cast<std::uint64_t>(wall.second - wall.first);
                timed_calls += iterations;
            }
    // Simulator speed: packets over router-to-router links, and SystemC delta cycles.
    std::uint64_t packet_hops = job.platform() ? job.platform()->packet_hops() : 0;
    std::uint64_t delta_cycles = sc_core::sc_delta_count();
    // Of the wake-up scheduler's time steps, those it took itself
    // (router.scheduler_time_steps) and those the kernel did.
    std::uint64_t own_steps = 0;
    std::uint64_t kernel_activations = 0;
    if (job.platform())
        if (const WakeupScheduler* scheduler = job.platform()->wakeup_scheduler()) {
            own_steps = scheduler->own_time_steps();
            kernel_activations = scheduler->kernel_activations();
        }
    // What the switches did with received step bytes: copied, combined by the
    // AgLUs, or skipped (job.timing_only) -- what proves timing-only skips the work.
    CollectiveStatistics engine;
    std::uint64_t packet_pool = 0;  // max over nodes: the NIC engine's packet storage
    if (job.platform())
        for (unsigned n = 0; n < job.platform()->nodes(); ++n) {
            if (!job.platform()->has_node(n)) continue;
            accumulate_statistics(engine, job.platform()->node(n).collective.statistics());
            packet_pool = std::max<std::uint64_t>(packet_pool, job.platform()->node(n).collective.packet_pool_bytes());
        }
    // collective.placement = switch: what the switches' engines did (their
    // step bytes count with the NICs' above).
    SwitchEngineStatistics switches;
    const bool with_switch_engines = job.platform() && !job.platform()->switch_engines().empty();
    if (with_switch_engines)
        for (const auto& e : job.platform()->switch_engines()) {
            const SwitchEngineStatistics& counted = e->statistics();
            accumulate_statistics(switches, counted);
            engine.bytes_copied += counted.bytes_copied;
            engine.bytes_combined += counted.bytes_combined;
            engine.bytes_skipped += counted.bytes_skipped;
            engine.aglu_cycles += counted.aglu_cycles;
        }
    // End-to-end reliable delivery (reliable.mode), when the platform has it:
    // what recovering from the links' drops cost.
    ReliableStatistics reliable;
    std::uint64_t link_drops = 0;
    const bool with_reliable = job.platform() && job.platform()->reliable();
    if (with_reliable) {
        link_drops = job.platform()->link_drops();
        for (unsigned n = 0; n < job.platform()->nodes(); ++n) {
            accumulate_statistics(reliable, job.platform()->node(n).reliable->statistics());
        }
        for (const auto& endpoint : job.platform()->switch_endpoints())  // collective.placement=switch
            accumulate_statistics(reliable, endpoint->statistics());
    }
    const bool failed = !result.error.empty() || (result.exit_status != 0 && !mismatch);
    if (failed) {
        std::cerr << "isvp bench collectives: "
                  << (runtime ? "partition " + std::to_string(runtime->rank()) + ": " : std::string())
                  << "job failed: " << result.error << "\n";
        std::cerr << transport::describe_rank_ends(result);
    }
    std::uint64_t end_time_ps = result.end_time_ps;
    int exit_status = failed ? (result.exit_status ? result.exit_status : 1) : 0;
    if (runtime) {
        // Every partition's part of the rows and counters, to partition 0.
        std::vector<std::uint64_t> maxima, minima;
        for (const Row& row : rows)
            for (unsigned i = 0; i < iterations; ++i) {
                maxima.insert(maxima.end(), {row.offload_ps[i], row.software_ps[i], row.offload_starts[i].second,
                                             row.software_starts[i].second});
                minima.insert(minima.end(), {row.offload_starts[i].first, row.software_starts[i].first});
            }
        maxima.insert(maxima.end(),
                      {std::uint64_t{mismatch}, end_time_ps, static_cast<std::uint64_t>(exit_status), guest_resident,
                       driver_payload_buffer, driver_staged, host_resident, packet_pool, timed_wall_ns, timed_calls});
        std::vector<std::uint64_t> sums{offloaded, software, packet_hops, delta_cycles};
        // Every node's and switch engine's counters, as one process sums them.
        combine_statistics(*runtime, engine);
        if (with_switch_engines) combine_statistics(*runtime, switches);
        runtime->max(maxima);
        runtime->min(minima);
        runtime->sum(sums);
        std::size_t at = 0, low = 0;
        for (Row& row : rows)
            for (unsigned i = 0; i < iterations; ++i) {
                row.offload_ps[i] = maxima[at++];
                row.software_ps[i] = maxima[at++];
                row.offload_starts[i].second = maxima[at++];
                row.software_starts[i].second = maxima[at++];
                row.offload_starts[i].first = minima[low++];
                row.software_starts[i].first = minima[low++];
            }
        mismatch = maxima[at++] != 0;
        end_time_ps = maxima[at++];
        exit_status = static_cast<int>(maxima[at++]);
        guest_resident = maxima[at++];
        driver_payload_buffer = maxima[at++];
        driver_staged = maxima[at++];
        host_resident = maxima[at++];
        packet_pool = maxima[at++];
        timed_wall_ns = maxima[at++];  // the partitions run in step: the slowest one's
        timed_calls = static_cast<unsigned>(maxima[at++]);
        offloaded = sums[0];
        software = sums[1];
        packet_hops = sums[2];
        delta_cycles = sums[3];
    }
    const std::string partition_summary = partitioning.summary();  // collective: before anyone returns
    if (exit_status != 0 && (failed || !mismatch)) return exit_status;
    if (!printing) return mismatch ? 1 : 0;

    const loggp::Parameters loggp_parameters = loggp::derive(loggp_figures(config, spec.config, base_driver_config));
    const loggp::Model model(loggp_parameters, topology, config.fabric.routing(topology), ranks,
                             config.placement.nodes);
    const auto average_us = [&](const std::vector<std::uint64_t>& ps) {
        std::uint64_t total = 0;
        for (const std::uint64_t d : ps) total += d;
        return static_cast<double>(total) / 1e6 / iterations;
    };
    const auto average_skew_us = [&](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& starts) {
        std::uint64_t total = 0;
        for (const auto& s : starts) total += s.second - s.first;
        return static_cast<double>(total) / 1e6 / iterations;
    };

    std::cout << "# " << ranks << " ranks on " << config.fabric.describe()
              << (config.placement.identity() ? "" : " (" + config.placement.describe() + ")") << ", offload "
              << offload_text << ", aglu "
              << parameters.text("aglu.impl") << ", int32 (SUM for reductions)"
              << describe_driver_paths(base_driver_config) << (timing_only ? ", timing only (no payload)" : "") << "; "
              << iterations << " timed + " << warmup << " warm-up iterations\n";
    const bool both = passes.offload && passes.software;
    if (both)
        std::cout << "# collective     size      offload_us  software_us  speedup  loggp_offload_us  "
                     "loggp_software_us  diff_offload  diff_software\n";
    else
        std::cout << "# collective     size      latency_us  loggp_us  diff\n";
    nlohmann::json json_rows = nlohmann::json::array();
    // Switch-resident engines: the model follows the switches' trees.
    const loggp::Path tree_or_nic = config.node.collective.placement == "switch" || config.node.collective.sharp()
                                        ? loggp::Path::OffloadTree
                                        : loggp::Path::OffloadStreamed;
    for (const Row& row : rows) {
        const std::string& name = collectives[row.collective].first;
        const Opcode collective = collectives[row.collective].second;
        // SHArP mode offloads only the reductions: the others run in host software.
        const loggp::Path offload_path =
            config.node.collective.sharp() && !sharp_offloads(collective) ? loggp::Path::Software : tree_or_nic;
        const std::uint64_t bytes = row.count * sizeof(std::int32_t);
        nlohmann::json json_row{{"collective", name}, {"size", row.size}};
        std::ostringstream line;
        line << std::left << std::setw(16) << name << std::setw(10) << row.size << std::right << std::fixed
             << std::setprecision(3);
        double offload_us = 0, software_us = 0;
        if (passes.offload) {
            offload_us = average_us(row.offload_ps);
            const double skew = average_skew_us(row.offload_starts);
            json_row["offload_release_skew_us"] = skew;
            const double modelled = model.latency_us(collective, bytes, offload_path);
            json_row["offload_us"] = offload_us;
            json_row["loggp_offload_us"] = modelled;
            json_row["loggp_offload_store_and_forward_us"] =
                model.latency_us(collective, bytes, loggp::Path::OffloadStoreAndForward);
            json_row["diff_offload"] = (offload_us - modelled) / modelled;
            json_row["note_offload"] =
                loggp::explain_difference(model, collective, bytes, true, offload_us, skew, 0.25, offload_path);
        }
        if (passes.software) {
            software_us = average_us(row.software_ps);
            const double skew = average_skew_us(row.software_starts);
            json_row["software_release_skew_us"] = skew;
            const double modelled = model.latency_us(collective, bytes, loggp::Path::Software);
            json_row["software_us"] = software_us;
            json_row["loggp_software_us"] = modelled;
            json_row["diff_software"] = (software_us - modelled) / modelled;
            json_row["note_software"] = loggp::explain_difference(model, collective, bytes, false, software_us, skew);
        }
        if (both) {
            const double speedup = software_us / offload_us;
            json_row["speedup"] = speedup;
            line << std::setw(10) << offload_us << std::setw(13) << software_us << std::setw(8) << std::setprecision(2)
                 << speedup << "x" << std::setprecision(3) << std::setw(18)
                 << json_row["loggp_offload_us"].get<double>() << std::setw(19)
                 << json_row["loggp_software_us"].get<double>() << std::setw(14)
                 << percent(offload_us, json_row["loggp_offload_us"]) << std::setw(15)
                 << percent(software_us, json_row["loggp_software_us"]);
        } else {
            const double latency = passes.offload ? offload_us : software_us;
            const double modelled = json_row[passes.offload ? "loggp_offload_us" : "loggp_software_us"];
            json_row["latency_us"] = latency;
            line << std::setw(10) << latency << std::setw(10) << modelled << std::setw(6) << percent(latency, modelled);
        }
        std::cout << line.str() << "\n";
        json_rows.push_back(json_row);
    }
    std::cout << std::defaultfloat << "# " << offloaded << " calls offloaded, " << software
              << " in software (barriers between iterations included); simulated " << end_time_ps / 1e6 << " us in "
              << std::setprecision(3) << wall_seconds << " s wall\n"
              << "# simulator: " << packet_hops << " packet-hops (" << std::setprecision(3)
              << packet_hops / wall_seconds / 1e6 << " M/s), " << delta_cycles << " delta cycles ("
              << delta_cycles / wall_seconds / 1e6 << " M/s; the wake-up scheduler took " << own_steps
              << " time steps itself, SystemC ran it " << kernel_activations
              << " times), wall time includes guest ranks and bring-up";
    if (timed_calls > 0)
        std::cout << "; the " << timed_calls << " timed calls took " << timed_wall_ns / 1e9 << " s wall, "
                  << timed_wall_ns / 1e9 / timed_calls
                  << " s each (from the first's start to the last's end, the barriers between them included)";
    std::cout << "\n"
              << "# engines: received step bytes " << engine.bytes_copied << " copied, " << engine.bytes_combined
              << " combined, " << engine.bytes_skipped << " skipped (timing-only); " << engine.aglu_cycles
              << " AgLU cycles\n"
              << "# payload memory, max over nodes (bytes): guest buffers resident " << guest_resident
              << ", driver largest payload buffer " << driver_payload_buffer << ", driver data staged " << driver_staged
              << ", engine buffers peak " << engine.peak_buffer_bytes << ", host memory resident at the end "
              << host_resident << "\n";
    if (with_switch_engines)
        std::cout << "# switch placement: " << engine.tree_collectives << " rank calls through the switches' trees, "
                  << engine.tree_not_offloaded << " on the NIC engines (the tree does not run them), "
                  << engine.tree_joins << " tree joins, " << switches.trees_planned
                  << " trees planned; switch engines took part in " << switches.collectives << " collectives, combined "
                  << switches.bytes_combined << " bytes, dropped " << switches.dropped << " packets\n";
    std::cout << partition_summary;
    if (const FlowNetwork* flow = job.platform() ? job.platform()->flow_network() : nullptr) {
        // What the flow model's cost follows: solves per packet (docs/PERFORMANCE.md).
        const FlowNetworkStatistics& counted = flow->counters();
        std::cout << "# flow network: " << counted.packets << " packets, " << counted.streams << " streams, "
                  << counted.flow_starts << " flow starts, " << counted.reweighs << " re-weighed, " << counted.holds
                  << " held inside a message, " << counted.express << " without a flow (one phit), " << counted.solves
                  << " max-min solves, " << job.platform()->flow_engine_wakeups() << " engine wake-ups\n";
    }
    if (with_reliable)
        std::cout << "# reliable delivery: links dropped " << link_drops << " packets; " << reliable.data_packets
                  << " packets sent, " << reliable.retransmissions << " retransmitted (" << reliable.timeouts
                  << " timeouts, " << reliable.naks_sent << " naks), " << reliable.acks_sent << " acks, "
                  << reliable.duplicates << " duplicates and " << reliable.out_of_order
                  << " out-of-order packets dropped, " << reliable.lost_sent + reliable.lost_received << " lost\n";
    if (mismatch) std::cout << "mismatch: a collective result differs from the reference\n";
    if (values.count("json")) {
        const std::string path = values["json"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("bench collectives: cannot write --json " + path);
        const nlohmann::json model_json{{"o_s_us", loggp_parameters.o_s},
                                        {"o_r_us", loggp_parameters.o_r},
                                        {"g_us", loggp_parameters.g},
                                        {"L_router_us", loggp_parameters.L_router},
                                        {"hop_us", loggp_parameters.hop},
                                        {"G_us_per_byte", loggp_parameters.G},
                                        {"G_link_us_per_byte", loggp_parameters.G_link},
                                        {"G_pcie_us_per_byte", loggp_parameters.G_pcie},
                                        {"G_engine_us_per_byte", loggp_parameters.G_engine},
                                        {"G_aglu_us_per_byte", loggp_parameters.G_aglu},
                                        {"G_cgr_us_per_byte", loggp_parameters.G_cgr},
                                        {"aglu_latency_us", loggp_parameters.aglu_latency},
                                        {"device_fixed_us", loggp_parameters.device_fixed}};
        nlohmann::json document{{"benchmark", "collectives"},
                                {"build_commit", build_commit()},
                                {"ranks", ranks},
                                {"topology", topology.description()},
                                {"topology_kind", topology.kind()},
                                {"offload", offload_text},
                                {"timing_only", timing_only},
                                {"iterations", iterations},
                                {"warmup", warmup},
                                {"parameters", parameters.to_json()},
                                {"loggp", model_json},
                                {"rows", json_rows},
                                {"check", check},
                                {"mismatch", mismatch},
                                {"simulated_us", end_time_ps / 1e6},
                                {"wall_seconds", wall_seconds},
                                {"timed_wall_seconds", timed_wall_ns / 1e9},
                                {"partitions", runtime ? runtime->size() : 1u},
                                {"packet_hops", packet_hops},
                                {"delta_cycles", delta_cycles},
                                {"engine", statistics_json(engine)},
                                {"engine_packet_pool_bytes", packet_pool},  // max over nodes
                                {"payload_memory",
                                 {{"guest_buffers_resident_bytes", guest_resident},
                                  {"driver_largest_payload_buffer_bytes", driver_payload_buffer},
                                  {"driver_data_staged_bytes", driver_staged},
                                  {"engine_buffers_peak_bytes", engine.peak_buffer_bytes},
                                  {"host_memory_resident_bytes", host_resident}}}};
        if (!config.placement.identity()) document["rank_nodes"] = config.placement.nodes;  // host of each rank
        if (with_reliable) {
            document["reliable"] = statistics_json(reliable);
            document["reliable"]["link_drops"] = link_drops;
            document["reliable"]["lost"] = reliable.lost_sent + reliable.lost_received;
        }
        if (with_switch_engines) document["switch_engines"] = statistics_json(switches);
        out << document.dump(2) << "\n";
    }
    return mismatch ? 1 : 0;
}

}  // namespace isvp::cli
