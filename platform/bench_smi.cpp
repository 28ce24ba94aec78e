// `isvp bench smi`: SMI streaming messages between on-FPGA kernels
// (models/kernel, docs/SMI.md) in local mode: every rank's host starts the
// test's kernel on its FPGA, the kernels talk over SMI channels, the hosts
// wait and read the results, which are checked against plain C++ references.
//
//   isvp bench smi --nodes N --test stencil|stencil2d|pingpong|bcast|reduce|scatter_gather|stream|errors [...]
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "bench_support.h"
#include "cli.h"
#include "isvp/driver.h"
#include "isvp/kernel_context.h"
#include "isvp/kernels.h"
#include "isvp/smi_kernels.h"
#include "job_platform.h"
#include "size_list.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

using guest::KernelOutcome;
using guest::Kernels;
using namespace smi_examples;

/// What every rank's host did: per rank the outcomes of its launches, or the error.
struct RankRecord {
    std::vector<KernelOutcome> outcomes;
    std::vector<std::string> errors;  ///< launches that failed, in order (tests "errors")
};

struct SmiOptions {
    std::string test;
    unsigned count = 0;
    unsigned iterations = 0;
    unsigned root = 0;
    SMI_Op op = SMI_ADD;
    SMI_Datatype type = SMI_INT;
    unsigned pop_cycles = 0;
    unsigned peer = 1;
    std::vector<std::uint64_t> sizes;
};

double us(std::uint64_t ps) {
    return ps / 1e6;
}

/// One rank's host program for the test.
void run_rank(guest::DeviceTransport& transport, const SmiOptions& o, RankRecord& record) {
    Kernels kernels(transport);
    const int me = transport.rank();
    auto run = [&](std::uint32_t id, std::initializer_list<std::uint64_t> args) {
        try {
            kernels.launch(id, args);
            record.outcomes.push_back(kernels.wait());
        } catch (const guest::DriverError& error) {
            record.outcomes.push_back({});
            record.errors.push_back(error.what());
        }
    };
    if (o.test == "stencil") {
        run(kKernelStencil, {o.count, o.iterations});
    } else if (o.test == "stencil2d") {
        run(kKernelStencil2D, {o.count, o.iterations});
    } else if (o.test == "pingpong") {
        if (me != 0 && me != static_cast<int>(o.peer)) return;
        for (const std::uint64_t bytes : o.sizes) {
            const std::uint64_t elements = bytes / 8;
            run(kKernelPingPong, {o.peer, elements, SMI_DOUBLE, o.iterations, 0});
            run(kKernelPingPong, {o.peer, elements, SMI_DOUBLE, o.iterations, 1});
        }
    } else if (o.test == "bcast") {
        run(kKernelBcast, {o.count, o.root});
    } else if (o.test == "reduce") {
        run(kKernelReduce, {o.count, o.root, static_cast<std::uint64_t>(o.op), static_cast<std::uint64_t>(o.type)});
    } else if (o.test == "scatter_gather") {
        run(kKernelScatterGather, {o.count, o.root});
    } else if (o.test == "stream") {
        run(kKernelStream, {o.count, o.pop_cycles});
    } else if (o.test == "errors") {
        // Each refused or failed launch leaves the FPGA usable for the next.
        run(99, {});                                       // unknown id
        run(kKernelPingPong, {0, 1, SMI_INT, 1, 0});       // responder 0: bad argument 0
        run(kKernelMismatch, {8, SMI_INT, 16, SMI_INT});   // counts differ
        run(kKernelMismatch, {8, SMI_INT, 8, SMI_FLOAT});  // datatypes differ
        // And then a good launch, which a second launch on rank 0 cannot disturb.
        try {
            kernels.launch(kKernelStream, {5000, 0});
            if (me == 0) {
                try {
                    kernels.launch(kKernelStream, {5000, 0});
                } catch (const guest::DriverError& error) {
                    record.errors.push_back(error.what());
                }
            }
            record.outcomes.push_back(kernels.wait());
        } catch (const guest::DriverError& error) {
            record.outcomes.push_back({});
            record.errors.push_back(error.what());
        }
    }
}

int report(const SmiOptions& o, const std::vector<RankRecord>& records, unsigned ranks, JobPlatform& job) {
    bool ok = true;
    auto check = [&](bool good, const std::string& what) {
        std::cout << "# check: " << what << (good ? ": ok" : ": FAILED") << "\n";
        ok = ok && good;
    };
    auto max_time = [&](std::size_t launch, unsigned result) {
        std::uint64_t t = 0;
        for (const RankRecord& r : records)
            if (launch < r.outcomes.size()) t = std::max(t, r.outcomes[launch].results[result]);
        return t;
    };
    bool any_error = false;
    if (o.test != "errors")
        for (unsigned r = 0; r < ranks; ++r)
            for (const std::string& e : records[r].errors) {
                std::cout << "# rank " << r << ": " << e << "\n";
                any_error = true;
            }
    if (any_error) return 1;
    std::cout << std::fixed;
    if (o.test == "stencil") {
        const std::vector<std::uint64_t> want = stencil_reference(ranks, o.count, o.iterations);
        bool same = true;
        for (unsigned r = 0; r < ranks; ++r) same = same && records[r].outcomes.at(0).results[0] == want[r];
        std::cout << "# nodes points_per_rank iterations time_us\n"
                  << ranks << " " << o.count << " " << o.iterations << " " << std::setprecision(3) << us(max_time(0, 1))
                  << "\n";
        check(same, "every rank's block equals the serial C++ stencil bit for bit");
    } else if (o.test == "stencil2d") {
        const std::vector<std::uint64_t> want = stencil2d_reference(ranks, o.count, o.iterations);
        bool same = true;
        for (unsigned r = 0; r < ranks; ++r) same = same && records[r].outcomes.at(0).results[0] == want[r];
        const unsigned rx = stencil2d_ranks_x(ranks);
        std::cout << "# nodes ranks_grid tile iterations time_us\n"
                  << ranks << " " << rx << "x" << ranks / rx << " " << o.count << "x" << o.count << " " << o.iterations
                  << " " << std::setprecision(3) << us(max_time(0, 1)) << "\n";
        check(same, "every rank's tile equals the serial C++ 2D stencil bit for bit");
    } else if (o.test == "pingpong") {
        std::cout << "# SMI ping-pong kernel rank 0 <-> kernel rank " << o.peer << " (SMI_DOUBLE elements)\n"
                  << "# size latency_us bandwidth_gbps\n";
        const RankRecord& r0 = records[0];
        for (std::size_t s = 0; s < o.sizes.size(); ++s) {
            const std::uint64_t bytes = o.sizes[s];
            const double latency = us(r0.outcomes.at(2 * s).results[0]) / (2.0 * o.iterations);
            const double stream_ps = static_cast<double>(r0.outcomes.at(2 * s + 1).results[0]);
            const double gbps = stream_ps > 0 ? 8.0 * bytes * o.iterations / (stream_ps * 1e-12) / 1e9 : 0;
            std::cout << bytes << " " << std::setprecision(3) << latency << " " << std::setprecision(2) << gbps << "\n";
        }
    } else if (o.test == "bcast" || o.test == "scatter_gather") {
        std::uint64_t wrong = 0;
        for (const RankRecord& r : records) wrong += r.outcomes.at(0).results[0];
        std::cout << "# nodes count root time_us\n"
                  << ranks << " " << o.count << " " << o.root << " " << std::setprecision(3) << us(max_time(0, 1))
                  << "\n";
        check(wrong == 0, o.test == "bcast" ? "every rank received the root's elements"
                                            : "every rank received its block and the root gathered them back");
    } else if (o.test == "reduce") {
        const std::uint64_t want = reduce_reference(ranks, o.count, o.op, o.type);
        std::cout << "# nodes count root time_us\n"
                  << ranks << " " << o.count << " " << o.root << " " << std::setprecision(3) << us(max_time(0, 1))
                  << "\n";
        check(records[o.root].outcomes.at(0).results[0] == want,
              "the root's result equals the C++ reduction (operands in rank order)");
    } else if (o.test == "stream") {
        const KernelStatistics& sender = job.platform()->node(0).kernel.statistics();
        const KernelStatistics& receiver = job.platform()->node(1).kernel.statistics();
        const std::uint32_t window = job.platform()->node(1).kernel.window_packets();
        std::cout << "# count cycles_per_pop sender_us receiver_us sender_stall_cycles peak_buffered_packets\n"
                  << o.count << " " << o.pop_cycles << " " << std::setprecision(3)
                  << us(records[0].outcomes.at(0).results[1]) << " " << us(records[1].outcomes.at(0).results[1]) << " "
                  << sender.stall_cycles << " " << receiver.peak_buffered_packets << "\n";
        check(records[1].outcomes.at(0).results[0] == stream_reference(o.count),
              "the receiver popped every element, in order (no loss)");
        check(receiver.peak_buffered_packets <= window,
              "the receiver never held more than kernel.window_packets packets of the channel");
        if (o.pop_cycles > 1) check(sender.stall_cycles > 0, "the sender stalled on credits (back-pressure)");
    } else if (o.test == "errors") {
        for (unsigned r = 0; r < std::min(ranks, 2u); ++r)
            for (const std::string& e : records[r].errors) std::cout << "# rank " << r << ": " << e << "\n";
        auto has = [&](unsigned r, std::size_t i, const std::string& text) {
            return i < records[r].errors.size() && records[r].errors[i].find(text) != std::string::npos;
        };
        check(has(0, 0, "no kernel with id 99") && has(1, 0, "no kernel with id 99"), "unknown kernel id refused");
        check(has(0, 1, "refused argument 0 (responder)"), "bad argument refused, naming it");
        check(has(1, 2, "counts differ") && has(0, 2, "a peer refused"), "count mismatch: both ends fail, named");
        check(has(1, 3, "datatypes differ") && has(0, 3, "a peer refused"), "datatype mismatch: both ends fail");
        check(has(0, 4, "is still running"), "a second launch while a kernel runs is refused");
        check(records[0].errors.size() == 5 && records[1].errors.size() == 4 &&
                  records[1].outcomes.at(4).results[0] == stream_reference(5000),
              "after the errors, a new launch runs correctly");
    }
    return ok ? 0 : 1;
}

int bench_smi_main(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp bench smi options");
    options.add_options()("nodes", whole(2u), "nodes in a ring (topology.torus = Nx1x1)")(
        "topology", po::value<std::string>(), "torus:XxYxZ, fattree:... or file:PATH in place of --nodes")(
        "test", po::value<std::string>()->default_value("stencil"),
        "stencil, stencil2d, pingpong, bcast, reduce, scatter_gather, stream or errors")(
        "count", whole(0u),
        "elements: points per rank (stencil), tile side (stencil2d), per call (bcast/reduce), per rank "
        "(scatter_gather), "
        "streamed (stream); 0: the test's default")("iterations", whole(0u),
                                                    "stencil steps / ping-pongs per size; 0: default")(
        "root", whole(0u), "root rank of bcast, reduce, scatter_gather")(
        "op", po::value<std::string>()->default_value("add"), "reduce: add, max or min")(
        "datatype", po::value<std::string>()->default_value("int"), "reduce: int or double")(
        "pop-cycles", whole(8u), "stream: the receiver's cycles per pop (a slow consumer)")(
        "peer", whole(1u), "pingpong: the responder rank")("sizes", po::value<std::string>()->default_value("8:64K"),
                                                           "pingpong: message sizes, bytes");
    add_platform_options(options);
    po::variables_map values;
    if (!parse(
            argc, argv,
            "usage: isvp bench smi [--nodes N | --topology T] --test "
            "stencil|stencil2d|pingpong|bcast|reduce|scatter_gather|"
            "stream|errors\n"
            "                      [--count C] [--iterations I] [--root R] [--op add|max|min] [--datatype int|double]\n"
            "                      [--pop-cycles P] [--peer P] [--sizes A:B] [--config FILE] [--set key=value]...\n"
            "Every rank's host starts the test's kernel on its FPGA; the kernels exchange data over SMI channels\n"
            "(docs/SMI.md); results are checked against plain C++ references (# check lines; exit 1 if one fails).",
            options, values))
        return 0;
    if (!apply_ring_or_topology(values, parameters, "bench smi")) return 0;

    SmiOptions o;
    o.test = values["test"].as<std::string>();
    static const std::map<std::string, std::pair<unsigned, unsigned>> kDefaults = {
        {"stencil", {256, 20}}, {"stencil2d", {16, 10}},     {"pingpong", {0, 10}}, {"bcast", {1024, 0}},
        {"reduce", {1024, 0}},  {"scatter_gather", {64, 0}}, {"stream", {4096, 0}}, {"errors", {0, 0}}};
    const auto test = kDefaults.find(o.test);
    if (test == kDefaults.end())
        throw ConfigError(
            "bench smi: --test '" + o.test +
            "' is not one of stencil, stencil2d, pingpong, bcast, reduce, scatter_gather, stream, errors");
    o.count = whole_value<unsigned>(values, "count");
    if (o.count == 0) o.count = test->second.first;
    o.iterations = whole_value<unsigned>(values, "iterations");
    if (o.iterations == 0) o.iterations = test->second.second;
    o.root = whole_value<unsigned>(values, "root");
    o.pop_cycles = whole_value<unsigned>(values, "pop-cycles");
    o.peer = whole_value<unsigned>(values, "peer");
    const std::string op = values["op"].as<std::string>();
    if (op != "add" && op != "max" && op != "min")
        throw ConfigError("bench smi: --op must be add, max or min, got '" + op + "'");
    o.op = op == "add" ? SMI_ADD : op == "max" ? SMI_MAX : SMI_MIN;
    const std::string type = values["datatype"].as<std::string>();
    if (type != "int" && type != "double")
        throw ConfigError("bench smi: --datatype must be int or double, got '" + type + "'");
    o.type = type == "int" ? SMI_INT : SMI_DOUBLE;
    o.sizes = parse_size_list(values["sizes"].as<std::string>());
    // The ping-pong moves SMI_DOUBLE elements, at most 2^24 per message (the
    // kernel's limit): a row must move the size it is labelled with.
    for (const std::uint64_t size : o.sizes)
        if (size == 0 || size % 8 != 0 || size / 8 > (1u << 24))
            throw ConfigError("bench smi: --sizes " + std::to_string(size) +
                              ": ping-pong sizes are bytes of 8-byte SMI_DOUBLE elements, a positive multiple of 8 "
                              "up to 128M");
    if (o.count > (1u << 24)) throw ConfigError("bench smi: --count must be at most 16777216");
    if (o.test == "stencil2d" && o.count > 512)
        throw ConfigError("bench smi: --count (the stencil2d tile side) must be at most 512, got " +
                          std::to_string(o.count));
    if (o.iterations > 1000000) throw ConfigError("bench smi: --iterations must be at most 1000000");
    // The stream kernel's own limit (kernel_catalog.cpp), refused before anything runs.
    if (o.pop_cycles > 100000)
        throw ConfigError("bench smi: --pop-cycles must be at most 100000 (the stream kernel's cycles per pop), got " +
                          std::to_string(o.pop_cycles));

    const PlatformConfig config = PlatformConfig::from(parameters);
    const NetworkTopology topology = config.fabric.topology();
    const unsigned ranks = topology.hosts();
    if (o.root >= ranks)
        throw ConfigError("bench smi: --root " + std::to_string(o.root) + " outside the " + std::to_string(ranks) +
                          " ranks");
    if (o.peer == 0 || o.peer >= ranks)
        throw ConfigError("bench smi: --peer must be a rank 1.." + std::to_string(ranks - 1));
    if (o.test == "scatter_gather" && static_cast<std::uint64_t>(o.count) * ranks > (1u << 24))
        throw ConfigError("bench smi: --count x ranks must be at most 16777216 for scatter_gather");

    transport::JobSpec spec;
    spec.ranks = static_cast<int>(ranks);
    spec.config = TransportConfig::from(parameters);
    JobPlatform job(config);
    std::vector<RankRecord> records(ranks);
    const auto wall_start = std::chrono::steady_clock::now();
    const transport::JobResult result =
        transport::run_local_job(spec, job.builder(), [&](guest::DeviceTransport& transport) {
            run_rank(transport, o, records[static_cast<unsigned>(transport.rank())]);
            return 0;
        });
    const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (result.exit_status != 0) {
        std::cerr << "isvp bench smi: job failed: " << result.error << "\n";
        std::cerr << transport::describe_rank_ends(result);
        return result.exit_status;
    }
    std::cout << "# SMI " << o.test << " on " << ranks << " FPGAs (" << config.fabric.describe() << ", kernel clock "
              << config.node.kernel.clock_mhz << " MHz)\n";
    const int status = report(o, records, ranks, job);
    const double simulated_us = result.end_time_ps / 1e6;
    std::cout << std::defaultfloat << std::setprecision(6) << "# simulated " << simulated_us << " us in "
              << std::setprecision(3) << wall_seconds << " s wall\n";
    return status;
}

}  // namespace

int bench_smi(int argc, char** argv) {
    return bench_smi_main(argc, argv);
}

}  // namespace isvp::cli
