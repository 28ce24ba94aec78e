// `isvp bench fused`: the SmartFuse fused and higher-order collectives
// (docs/FUSED.md) on the platform (local ranks, one per node), each
// pattern measured the ways the MPI shim can run it, beside the LogcN-style
// model (models/loggp/isvp/logcn_model.h):
//   is     Allreduce -> CGRA op -> Alltoall (NAS IS bucket counts), int32
//   fem    Allgather of counts -> prefix sum -> Allgatherv (FEM), doubles
//   pgemm  MPIX_Pgemm: GEMM in the CGRA at ingress -> reduce-scatter, doubles
//   spmv   MPIX_Spmv_band: banded SpMV at ingress -> reduce-scatter, doubles
// Ways (--offload both; on: fused only; off: software only):
//   fused     what MPIX_* does with offload on: fully fused in the switch when
//             it can, else semi-fused, else the plain calls (the path column)
//   semi      is, fem: the first collective and its op in the switch, the
//             second collective a separate call (MPIX_Allreduce_op /
//             MPIX_Allgather_op followed by the plain call)
//   unfused   the plain collectives in the switch, the op or kernel on the host
//   software  offload off: the driver's host software collectives (the
//             engine's schedules; the MPI shim's software MPI_Alltoall is
//             MPICH's algorithm by size instead: docs/PERFORMANCE.md), the op
//             on the host
// Times: each call starts after a barrier; the row is the average over the
// timed iterations of the maximum over ranks (the JSON adds the ranks' entry
// skew and the time from the last rank's start: docs/REPORTS.md; with
// --aligned-start every rank starts at the same simulated time, StartLine).
// The calls go to the driver's Collectives directly, as `isvp bench
// collectives` does (no MPI shim around them). With --check every result is compared with a plain C++
// reference computed on each rank (integers; the doubles are small integers
// or copied values, so every summation order gives the same bits).
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "bench_support.h"
#include "cli.h"
#include "isvp/cgra.h"
#include "isvp/collective_schedule.h"
#include "isvp/collectives.h"
#include "isvp/logcn_model.h"
#include "isvp/statistics_table.h"
#include "job_platform.h"
#include "size_list.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

enum class Pattern { Is, Fem, Pgemm, Spmv };

struct PatternInfo {
    const char* name;
    Pattern pattern;
    std::uint64_t default_size;  ///< without --sizes
    const char* size_is;         ///< what a size counts
};

const PatternInfo kPatterns[] = {
    {"is", Pattern::Is, 4, "int32 elements per rank block (the op array is N blocks)"},
    {"fem", Pattern::Fem, 4, "doubles per rank"},
    {"pgemm", Pattern::Pgemm, 128, "matrix dimension n (n x n x n doubles; a multiple of the node count)"},
    {"spmv", Pattern::Spmv, 64, "matrix rows (= columns) per rank"},
};

enum Way : std::size_t { kFused = 0, kSemi = 1, kUnfused = 2, kSoftware = 3, kWays = 4 };
const char* const kWayNames[kWays] = {"fused", "semi", "unfused", "software"};

bool has_semi(Pattern p) {
    return p == Pattern::Is || p == Pattern::Fem;
}

/// The path a call took, as MPIX_Fused_last_offloaded / MPIX_Hoc_last_offloaded
/// report it: 2 fully fused (for pgemm, spmv: the kernel and its
/// reduce-scatter in the switch), 1 semi-fused, 0 the fallback.
const char* path_name(int path) {
    return path == 2 ? "fully" : path == 1 ? "semi" : "fallback";
}

/// Why a fused call took `path` rather than the fully fused one, or empty.
/// `reductions_only`: the switches offload Allreduce, Reduce and Barrier only
/// (SHArP mode, ACCEL_CAPABILITIES.REDUCTIONS_ONLY).
std::string fused_reason(Pattern pattern, int path, bool offload, bool reductions_only) {
    if (path == 2) return {};
    if (!offload) return "offload off";
    if (reductions_only) {
        const std::string why =
            "the switches offload reductions only (collective.mode=sharp: ACCEL_CAPABILITIES.REDUCTIONS_ONLY)";
        switch (pattern) {
            case Pattern::Is:
                return why +
                       ": the engine chains no alltoall; the allreduce and its op in the switches, the "
                       "alltoall in host software";
            case Pattern::Fem:
                return why +
                       ": no allgather in the switches; the counts, the prefix sum and the data in host "
                       "software";
            case Pattern::Pgemm:
            case Pattern::Spmv:
                return why +
                       ": no reduce-scatter in the switches; the kernel on the host, the reduce-scatter in "
                       "host software";
        }
    }
    return "the evaluator's rule or the switch's buffer (docs/FUSED.md)";
}

std::vector<PatternInfo> parse_patterns(const std::string& text) {
    if (text == "all") return {std::begin(kPatterns), std::end(kPatterns)};
    std::vector<PatternInfo> chosen;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        const PatternInfo* found = nullptr;
        for (const PatternInfo& p : kPatterns)
            if (item == p.name) found = &p;
        if (!found) throw ConfigError("bench fused: unknown pattern '" + item + "' (known: is, fem, pgemm, spmv, all)");
        chosen.push_back(*found);
    }
    if (chosen.empty()) throw ConfigError("bench fused: --patterns names no pattern");
    return chosen;
}

// Inputs: small integers, known to every rank (each computes its reference).
std::int32_t is_input(int rank, std::size_t i) {
    return static_cast<std::int32_t>((static_cast<std::size_t>(rank) + i) % 7);
}
double matrix_a(std::size_t i, std::size_t t) {
    return static_cast<double>(static_cast<int>((i * 3 + t * 5) % 7) - 3);
}
double matrix_b(std::size_t t, std::size_t j) {
    return static_cast<double>(static_cast<int>((t * 2 + j * 7) % 5) - 2);
}
double band_entry(std::size_t row, std::size_t column) {
    return static_cast<double>(static_cast<int>((row * 3 + column * 5) % 9) - 4);
}
double vector_x(std::size_t g) {
    return static_cast<double>(static_cast<int>(g % 5) - 2);
}
double fem_value(int rank, std::size_t i) {
    return rank * 1000.0 + static_cast<double>(i) + 0.25;
}

/// The IS op: x = x * 3 + rank, then an inclusive prefix sum, on 4 lanes
/// (fused_bench's program).
const std::vector<std::uint32_t> kIsProgramWords = {
    0xC6u << 24 | 1u << 20 | 0u << 16 | 4u << 8 | 3u, 3, 3, 0, 1 | 1u << 8, 0, 0, 6, 0, 0};

cgra::Program decoded(const std::vector<std::uint32_t>& words) {
    return *cgra::decode(words, cgra::Limits{cgra::kMaxInstructions, 64}).program;
}

cgra::Program prefix_sum_program() {
    cgra::Program p;
    p.type = cgra::ElementType::Int32;
    p.instructions.push_back({cgra::CgraOpcode::PrefixSum, cgra::CgraOperand::Immediate, 0});
    return p;
}

cgra::Program ingress_program(Pattern pattern, std::uint64_t size, int ranks, unsigned halfwidth) {
    cgra::Program p;
    p.type = cgra::ElementType::Double;
    if (pattern == Pattern::Pgemm) {
        const std::uint64_t kl = size / static_cast<std::uint64_t>(ranks);
        p.instructions.push_back({cgra::CgraOpcode::Gemm, cgra::CgraOperand::Immediate, size | kl << 16 | size << 32});
    } else {
        p.instructions.push_back(
            {cgra::CgraOpcode::SpmvBand, cgra::CgraOperand::Immediate, size | std::uint64_t{halfwidth} << 32});
    }
    return p;
}

/// One rank's buffers, inputs and reference for one pattern and size.
class Case {
  public:
    Case(Pattern pattern, std::uint64_t size, unsigned halfwidth, int rank, int ranks)
        : pattern_(pattern), size_(size), halfwidth_(halfwidth), rank_(rank), ranks_(ranks) {
        const auto n = static_cast<std::size_t>(ranks);
        const auto r = static_cast<std::size_t>(rank);
        switch (pattern) {
            case Pattern::Is: {
                program_ = decoded(kIsProgramWords);
                words_ = kIsProgramWords;
                const std::size_t count = size * n;
                ints_in_.resize(count);
                for (std::size_t i = 0; i < count; ++i) ints_in_[i] = is_input(rank, i);
                // Reference: op[i] = prefix sum of (total_i * 3 + rank); block
                // q of the alltoall's result is rank q's op block `rank`.
                std::vector<std::int32_t> totals(count);
                for (std::size_t i = 0; i < count; ++i)
                    for (int q = 0; q < ranks; ++q) totals[i] += is_input(q, i);
                want_op_.resize(count);
                want_out_.resize(count);
                for (std::size_t q = 0; q < n; ++q) {
                    std::int32_t running = 0;
                    for (std::size_t i = 0; i < count; ++i) {
                        running += totals[i] * 3 + static_cast<std::int32_t>(q);
                        if (q == r) want_op_[i] = running;
                        if (i / size == r) want_out_[q * size + i % size] = running;
                    }
                }
                ints_op_.resize(count);
                ints_out_.resize(count);
                break;
            }
            case Pattern::Fem:
                program_ = prefix_sum_program();
                words_ = cgra::encode(program_);
                doubles_in_.resize(size);
                for (std::size_t i = 0; i < size; ++i) doubles_in_[i] = fem_value(rank, i);
                ints_op_.resize(n);
                doubles_out_.resize(size * n);
                break;
            case Pattern::Pgemm: {
                program_ = ingress_program(pattern, size, ranks, halfwidth);
                words_ = cgra::encode(program_);
                const std::size_t kl = size / n, rows = size / n;
                doubles_in_.resize(size * kl + kl * size);
                for (std::size_t i = 0; i < size; ++i)
                    for (std::size_t t = 0; t < kl; ++t) doubles_in_[i * kl + t] = matrix_a(i, r * kl + t);
                for (std::size_t t = 0; t < kl; ++t)
                    for (std::size_t j = 0; j < size; ++j)
                        doubles_in_[size * kl + t * size + j] = matrix_b(r * kl + t, j);
                want_doubles_.assign(rows * size, 0.0);
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t j = 0; j < size; ++j) {
                        double sum = 0;
                        for (std::size_t t = 0; t < size; ++t) sum += matrix_a(r * rows + i, t) * matrix_b(t, j);
                        want_doubles_[i * size + j] = sum;
                    }
                doubles_out_.resize(rows * size);
                break;
            }
            case Pattern::Spmv: {
                program_ = ingress_program(pattern, size, ranks, halfwidth);
                words_ = cgra::encode(program_);
                const std::size_t w = halfwidth, width = 2 * w + 1, cols = size, rows = size * n;
                doubles_in_.resize(cols * width + cols);
                for (std::size_t j = 0; j < cols; ++j) {
                    const std::size_t g = r * cols + j;
                    for (std::size_t d = 0; d < width; ++d)  // row g + d - w (outside: ignored by the kernel)
                        doubles_in_[j * width + d] = band_entry(g + d - w, g);
                    doubles_in_[cols * width + j] = vector_x(g);
                }
                want_doubles_.assign(cols, 0.0);
                for (std::size_t i = 0; i < cols; ++i) {
                    const std::size_t row = r * cols + i;
                    double sum = 0;
                    for (std::size_t g = row >= w ? row - w : 0; g <= row + w && g < rows; ++g)
                        sum += band_entry(row, g) * vector_x(g);
                    want_doubles_[i] = sum;
                }
                doubles_out_.resize(cols);
                break;
            }
        }
    }

    /// Bytes of the request's operands of an ingress kernel.
    std::uint64_t input_bytes() const { return doubles_in_.size() * sizeof(double); }

    /// One call the way `way` runs it: `offloaded` and `software` are the
    /// driver's Collectives with and without the switch. Returns the path.
    int run(Way way, guest::Collectives& offloaded, guest::Collectives& software) {
        guest::Collectives& coll = way == kSoftware ? software : offloaded;
        guest::Communicator& world = coll.world();
        std::fill(ints_op_.begin(), ints_op_.end(), -1);
        std::fill(ints_out_.begin(), ints_out_.end(), -1);
        std::fill(doubles_out_.begin(), doubles_out_.end(), -1.0);
        const auto n = static_cast<std::size_t>(ranks_);
        switch (pattern_) {
            case Pattern::Is: {
                const std::size_t count = size_ * n;
                if (way == kFused &&
                    coll.fused_allreduce_alltoall(world, ints_in_.data(), ints_op_.data(), ints_out_.data(), count,
                                                  Datatype::Int32, Operation::Sum, words_))
                    return 2;
                bool in_switch = false;
                if (way == kFused || way == kSemi) {
                    in_switch = coll.fused(world, Opcode::Allreduce, ints_in_.data(), ints_op_.data(), count,
                                           Datatype::Int32, Operation::Sum, words_, true);
                } else {
                    coll.allreduce(world, ints_in_.data(), ints_op_.data(), count, Datatype::Int32, Operation::Sum);
                    cgra::run_program(program_, reinterpret_cast<std::uint8_t*>(ints_op_.data()), count * 4, rank_,
                                      ranks_);
                }
                coll.alltoall(world, ints_op_.data(), ints_out_.data(), size_, Datatype::Int32);
                return in_switch ? 1 : 0;
            }
            case Pattern::Fem: {
                const auto count = static_cast<std::int32_t>(size_);
                if (way == kFused) {
                    const int path = coll.fused_allgather_allgatherv(world, count, ints_op_.data(), doubles_in_.data(),
                                                                     doubles_out_.data(), Datatype::Float64, words_);
                    if (path > 0) return path;
                }
                bool in_switch = false;
                if (way == kFused || way == kSemi) {
                    in_switch = coll.fused(world, Opcode::Allgather, &count, ints_op_.data(), 1, Datatype::Int32,
                                           std::nullopt, words_, true);
                } else {
                    coll.allgather(world, &count, ints_op_.data(), 1, Datatype::Int32);
                    cgra::run_program(program_, reinterpret_cast<std::uint8_t*>(ints_op_.data()), n * 4, rank_, ranks_);
                }
                std::vector<std::size_t> counts(n);
                for (std::size_t i = 0; i < n; ++i)
                    counts[i] = static_cast<std::size_t>(ints_op_[i] - (i == 0 ? 0 : ints_op_[i - 1]));
                coll.allgatherv(world, doubles_in_.data(), doubles_out_.data(), counts, Datatype::Float64);
                return in_switch ? 1 : 0;
            }
            case Pattern::Pgemm:
            case Pattern::Spmv: {
                const std::size_t count = doubles_out_.size();
                if (way == kFused && coll.ingress_reduce_scatter(world, doubles_in_.data(), input_bytes(),
                                                                 doubles_out_.data(), count, Datatype::Float64, words_))
                    return 2;
                // The host baseline: the same kernel on the host, then the sums.
                std::vector<double> partial(count * n);
                cgra::run_ingress(program_, reinterpret_cast<const std::uint8_t*>(doubles_in_.data()),
                                  reinterpret_cast<std::uint8_t*>(partial.data()), rank_, ranks_);
                coll.reduce_scatter_block(world, partial.data(), doubles_out_.data(), count, Datatype::Float64,
                                          Operation::Sum);
                return 0;
            }
        }
        return 0;
    }

    /// Whether the last call's results equal the reference (bit for bit).
    bool matches() const {
        switch (pattern_) {
            case Pattern::Is:
                return ints_op_ == want_op_ && ints_out_ == want_out_;
            case Pattern::Fem:
                for (int q = 0; q < ranks_; ++q) {
                    const auto at = static_cast<std::size_t>(q);
                    if (ints_op_[at] != static_cast<std::int32_t>((at + 1) * size_)) return false;
                    for (std::size_t i = 0; i < size_; ++i) {
                        const double want = fem_value(q, i);
                        if (std::memcmp(&doubles_out_[at * size_ + i], &want, sizeof(double)) != 0) return false;
                    }
                }
                return true;
            case Pattern::Pgemm:
            case Pattern::Spmv:
                return std::memcmp(doubles_out_.data(), want_doubles_.data(), doubles_out_.size() * sizeof(double)) ==
                       0;
        }
        return false;
    }

  private:
    Pattern pattern_;
    std::uint64_t size_;
    unsigned halfwidth_;
    int rank_, ranks_;
    cgra::Program program_;                                   ///< the op or ingress kernel
    std::vector<std::uint32_t> words_;                        ///< its words
    std::vector<std::int32_t> ints_in_, ints_op_, ints_out_;  ///< is: input, op output, alltoall; fem: ends in ints_op_
    std::vector<std::int32_t> want_op_, want_out_;            ///< is: reference
    std::vector<double> doubles_in_, doubles_out_;            ///< fem: data, gathered; pgemm, spmv: operands, block
    std::vector<double> want_doubles_;                        ///< pgemm, spmv: reference block
};

/// Bytes the switch's buffer must hold for a pattern's largest collective.
std::uint64_t buffer_bytes(Pattern pattern, std::uint64_t size, int ranks) {
    const auto n = static_cast<std::uint64_t>(ranks);
    switch (pattern) {
        case Pattern::Is:
            return std::max(size * n * 4, size * 4 * alltoall_buffer_blocks(ranks));
        case Pattern::Fem:
            return size * n * 8;
        case Pattern::Pgemm:
            return size * size * 8;
        case Pattern::Spmv:
            return size * n * 8;
    }
    return 0;
}

/// Refuses a size the pattern cannot run with, naming why.
void check_size(const PatternInfo& info, std::uint64_t size, int ranks, unsigned halfwidth, std::uint64_t max_buffer) {
    const std::string what = std::string("bench fused: ") + info.name + " size " + std::to_string(size);
    if (size == 0 || size > (1u << 20)) throw ConfigError(what + ": sizes are " + info.size_is + ", 1 .. 1048576");
    const auto n = static_cast<std::uint64_t>(ranks);
    if (info.pattern == Pattern::Pgemm) {
        if (size % n != 0)
            throw ConfigError(what + ": n must be a multiple of the " + std::to_string(ranks) + " nodes");
        if (size > 0xFFFF) throw ConfigError(what + ": n must be at most 65535 (the CGRA's GEMM fields)");
    }
    const std::uint64_t bytes = buffer_bytes(info.pattern, size, ranks);
    if (bytes > max_buffer)
        throw ConfigError(what + " on " + std::to_string(ranks) + " nodes needs a " + std::to_string(bytes) +
                          "-byte switch buffer; collective.max_buffer_bytes is " + std::to_string(max_buffer) +
                          " (use smaller --sizes)");
    std::uint64_t request = 0;  // an ingress request's operands
    if (info.pattern == Pattern::Pgemm) request = 2 * size * (size / n) * 8;
    if (info.pattern == Pattern::Spmv) request = (size * (2 * std::uint64_t{halfwidth} + 1) + size) * 8;
    if (request + 16 > kMaxMessageBytes)  // and the 16-byte collective envelope
        throw ConfigError(what + ": the kernel's request of " + std::to_string(request) +
                          " bytes exceeds the message limit " + std::to_string(kMaxMessageBytes));
}

/// --aligned-start: every rank enters a timed call at the same simulated
/// time, T = the latest barrier exit + kAlignStepPs. No simulated message
/// could tell the ranks T before T (a rank learns the last exit only after
/// it happened), so the ranks — threads of this process — post their exit
/// times here, outside the simulation, and wait in simulated time
/// (DeviceTransport::wait_event with a deadline: no request reaches the
/// platform's blocks) in steps of kAlignStepPs until every exit is posted,
/// then until T. Why every rank reaches T and never passes it: the
/// simulator runs in time order and does not pass a running rank (the
/// conservative synchronisation, sync_core.h), so when a rank wakes at w
/// every exit before w has been posted (a rank posts before its next
/// request); its first wake at or after the last exit E is at most
/// E + kAlignStepPs = T (one tie at w = E may hide E: the next wake is T).
/// T depends only on the exit times: runs repeat bit for bit.
class StartLine {
  public:
    /// One step of a waiting rank [ps]: the gap between the last barrier exit and T.
    static constexpr std::uint64_t kAlignStepPs = 1'000'000;

    explicit StartLine(int ranks) : ranks_(ranks) {}

    /// Rank's `round`-th aligned start (every rank calls it once per round,
    /// rounds in the same order): returns T, the rank's clock on return.
    std::uint64_t align(guest::DeviceTransport& transport, std::uint64_t round) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            Round& r = rounds_[round];
            ++r.posted;
            r.latest = std::max(r.latest, transport.now_ps());
        }
        for (;;) {
            std::optional<std::uint64_t> target;
            {
                const std::lock_guard<std::mutex> lock(mutex_);
                const Round& r = rounds_[round];
                if (r.posted == ranks_) target = r.latest + kAlignStepPs;
            }
            const std::uint64_t now = transport.now_ps();
            if (!target) {
                transport.wait_event(0, false, now + kAlignStepPs);
                continue;
            }
            if (now > *target)
                throw std::logic_error("bench fused: --aligned-start: rank " + std::to_string(transport.rank()) +
                                       " is at " + std::to_string(now) + " ps, past the start " +
                                       std::to_string(*target) + " ps");
            if (now < *target) transport.wait_event(0, false, *target);
            return *target;
        }
    }

  private:
    struct Round {
        int posted = 0;            ///< ranks whose barrier exit is in
        std::uint64_t latest = 0;  ///< the latest of them [ps]
    };
    std::mutex mutex_;                       ///< the ranks' threads post and read concurrently
    std::map<std::uint64_t, Round> rounds_;  ///< by round
    int ranks_;                              ///< ranks in the job
};

}  // namespace

int bench_fused(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp bench fused options");
    options.add_options()("topology", po::value<std::string>(),
                          "torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH (default: topology.* "
                          "of the platform); one rank per host")(
        "patterns", po::value<std::string>()->default_value("all"), "comma-separated: is, fem, pgemm, spmv, or all")(
        "sizes", po::value<std::string>(),
        "per pattern: is int32 elements per rank block, fem doubles per rank, pgemm the matrix dimension n, spmv "
        "rows per rank; A:B (powers of two) or a,b,c (default: is 4, fem 4, pgemm 128, spmv 64)")(
        "halfwidth", whole(4u), "spmv: the band's half-bandwidth w (0..255)")(
        "iterations", whole(1u), "timed calls per pattern, size and way")("warmup", whole(1u), "untimed calls first")(
        "offload", po::value<std::string>()->default_value("both"),
        "on: the fused call only; off: host software only; both: fused, semi-fused, unfused and host software")(
        "check", "verify every result against a plain C++ reference; print 'mismatch' and fail on a difference")(
        "aligned-start",
        "every rank enters each call at the same simulated time (1 us after the barrier's last exit): no entry skew "
        "from the calls before")("progress", "print a progress line on stderr (default: when stderr is a terminal)")(
        "json", po::value<std::string>()->value_name("FILE"), "also write the rows, the model and the parameters");
    add_platform_options(options);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp bench fused [--topology T] [--patterns is,fem,pgemm,spmv] [--sizes A:B|list]\n"
               "        [--halfwidth W] [--iterations N] [--warmup N] [--offload on|off|both] [--check]\n"
               "        [--aligned-start] [--progress] [--json FILE] [--set k=v]...\n"
               "The SmartFuse fused and higher-order collectives (docs/FUSED.md), one row per pattern and\n"
               "size: the simulated time of each way (fused: as MPIX_* runs it with offload on; semi: the\n"
               "first collective and its op in the switch, the second a separate call; unfused: the\n"
               "switch's plain collectives, the op on the host; software: offload off), the speed-up of\n"
               "fused over software, the path the fused call took (fully, semi, fallback) and the\n"
               "LogcN-style model (models/loggp/isvp/logcn_model.h, docs/REPORTS.md) of the fused and\n"
               "software ways. Time: average over the timed iterations of the maximum over ranks; it\n"
               "includes the ranks' entry skew the calls before leave, unless --aligned-start.",
               options, values))
        return 0;
    apply_config_option(values, parameters);
    if (values.count("topology"))
        apply_topology_option(parameters, values["topology"].as<std::string>(), "bench fused: --topology");
    if (!apply_platform_options(values, parameters)) return 0;
    if (parameters.flag("job.timing_only"))
        throw ConfigError(
            "bench fused: job.timing_only carries no payload, but the fused calls' second phase "
            "depends on the first one's results; drop it");
    const bool check = values.count("check") > 0;
    const bool aligned_start = values.count("aligned-start") > 0;
    const std::string offload_text = values["offload"].as<std::string>();
    const Passes passes = Passes::parse(offload_text, "bench fused");
    if (values.count("json")) check_writable("--json", values["json"].as<std::string>());
    const std::vector<PatternInfo> patterns = parse_patterns(values["patterns"].as<std::string>());
    std::optional<std::vector<std::uint64_t>> sizes;
    if (values.count("sizes")) sizes = parse_size_list(values["sizes"].as<std::string>());
    const unsigned halfwidth = whole_value<unsigned>(values, "halfwidth");
    if (halfwidth > 255) throw ConfigError("bench fused: --halfwidth must be 0..255, got " + std::to_string(halfwidth));
    const unsigned iterations = whole_value<unsigned>(values, "iterations");
    const unsigned warmup = whole_value<unsigned>(values, "warmup");
    if (iterations == 0) throw ConfigError("bench fused: --iterations must be at least 1");
    if (iterations > 10000 || warmup > 10000)
        throw ConfigError("bench fused: --iterations and --warmup take at most 10000 calls each");

    PlatformConfig config = PlatformConfig::from(parameters);
    const guest::DriverConfig base_driver_config = driver_config_from(parameters);
    const NetworkTopology topology = config.fabric.topology();
    transport::JobSpec spec;
    spec.ranks = static_cast<int>(topology.hosts());
    spec.config = TransportConfig::from(parameters);
    spec.config.end_on_early_exit = true;
    if (aligned_start && spec.config.compute_scale != 0)
        throw ConfigError(
            "bench fused: --aligned-start needs host.compute_scale 0 (the guests' CPU time, charged as simulated "
            "time, would move the ranks' starts apart again)");
    const int ranks = spec.ranks;
    if (ranks < 2) throw ConfigError("bench fused: " + config.fabric.describe() + " has one host; it needs two");

    struct Row {
        PatternInfo info;
        std::uint64_t size = 0;
        std::vector<std::uint64_t> ps[kWays];  ///< per timed iteration: max over ranks
        /// Per timed iteration, over ranks: the earliest and latest start
        /// (barrier exit) and the latest end, in simulated ps.
        std::vector<std::uint64_t> first_start[kWays], last_start[kWays], last_end[kWays];
        int path[kWays] = {-1, -1, -1, -1};  ///< the path rank 0's calls took (the last one)
        std::uint64_t input_bytes = 0;       ///< pgemm, spmv: the request's operands
    };
    std::vector<Row> rows;
    for (const PatternInfo& info : patterns)
        for (const std::uint64_t size : sizes ? *sizes : std::vector<std::uint64_t>{info.default_size}) {
            check_size(info, size, ranks, halfwidth, config.node.collective.max_buffer_bytes);
            Row row;
            row.info = info;
            row.size = size;
            for (auto& times : row.ps) times.assign(iterations, 0);
            for (auto& times : row.first_start) times.assign(iterations, std::numeric_limits<std::uint64_t>::max());
            for (auto& times : row.last_start) times.assign(iterations, 0);
            for (auto& times : row.last_end) times.assign(iterations, 0);
            rows.push_back(row);
        }
    std::vector<Way> ways;
    if (passes.offload) ways.push_back(kFused);
    if (passes.offload && passes.software) ways.insert(ways.end(), {kSemi, kUnfused});
    if (passes.software) ways.push_back(kSoftware);
    std::size_t row_runs = 0;
    for (const Row& row : rows)
        for (const Way way : ways) row_runs += way != kSemi || has_semi(row.info.pattern);

    JobPlatform job(config);
    const KeepForExit keep_for_exit(job, spec);
    const bool show_progress = values.count("progress") > 0 || isatty(STDERR_FILENO) != 0;
    Progress progress("bench fused", show_progress, static_cast<double>(row_runs), row_runs);
    std::mutex mutex;
    StartLine start_line(ranks);
    bool reductions_only = false;  // the switches' capabilities, as rank 0's driver read them
    bool mismatch = false;
    std::string mismatch_what;
    const auto wall_start = std::chrono::steady_clock::now();
    const transport::JobResult result = transport::run_local_job(
        spec,
        [&, build = job.builder()](const std::vector<transport::HostMemorySpan>& memory,
                                   const std::vector<transport::GuestGateway*>& gateways) {
            build(memory, gateways);
            progress.phase("platform built");
        },
        [&](guest::DeviceTransport& transport) {
            guest::DriverConfig driver_config = base_driver_config;
            driver_config.offload = passes.offload;
            guest::Driver driver(transport, driver_config);
            guest::Collectives offloaded(driver, true);
            guest::Collectives software(driver, false);
            const int rank = transport.rank(), size = transport.size();
            if (rank == 0) {
                const std::lock_guard<std::mutex> lock(mutex);
                reductions_only = driver.accelerator().reductions_only;
            }
            bool ok = true;
            std::uint64_t round = 0;  // --aligned-start: calls so far
            // Pattern by pattern, its ways one after the other (what ran
            // before a call can change its time: docs/REPORTS.md).
            for (Row& row : rows)
                for (const Way way : ways) {
                    if (way == kSemi && !has_semi(row.info.pattern)) continue;
                    Case call(row.info.pattern, row.size, halfwidth, rank, size);
                    guest::Collectives& coll = way == kSoftware ? software : offloaded;
                    for (unsigned it = 0; it < warmup + iterations; ++it) {
                        coll.barrier(coll.world());
                        if (aligned_start) start_line.align(transport, round++);
                        const std::uint64_t start = transport.now_ps();
                        const int path = call.run(way, offloaded, software);
                        const std::uint64_t took = transport.now_ps() - start;
                        const bool good = !check || call.matches();
                        const std::lock_guard<std::mutex> lock(mutex);
                        if (!good && ok)
                            mismatch_what = std::string(row.info.name) + " size " + std::to_string(row.size) + " " +
                                            kWayNames[way] + " on rank " + std::to_string(rank);
                        ok = ok && good;
                        if (rank == 0) row.path[way] = path;
                        if (it >= warmup) {
                            const unsigned at = it - warmup;
                            row.ps[way][at] = std::max(row.ps[way][at], took);
                            row.first_start[way][at] = std::min(row.first_start[way][at], start);
                            row.last_start[way][at] = std::max(row.last_start[way][at], start);
                            row.last_end[way][at] = std::max(row.last_end[way][at], start + took);
                        }
                        if (rank == 0) row.input_bytes = call.input_bytes();
                    }
                    if (rank == 0)
                        progress.row_done(
                            std::string(row.info.name) + "/" + std::to_string(row.size) + "/" + kWayNames[way], 1.0);
                }
            const std::lock_guard<std::mutex> lock(mutex);
            if (!ok) mismatch = true;
            return ok ? 0 : 1;
        });
    const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!result.error.empty() || (result.exit_status != 0 && !mismatch)) {
        std::cerr << "isvp bench fused: job failed: " << result.error << "\n";
        std::cerr << transport::describe_rank_ends(result);
        return result.exit_status ? result.exit_status : 1;
    }

    const loggp::Parameters loggp_parameters = loggp::derive(loggp_figures(config, spec.config, base_driver_config));
    const loggp::Model collectives_model(loggp_parameters, topology, config.fabric.routing(topology), ranks);
    const CollectiveConfig& engine = config.node.collective;
    loggp::CgraFigures cgra_figures;
    cgra_figures.clock_mhz = engine.clock_mhz;
    cgra_figures.processing_elements = engine.cgra_pes;
    cgra_figures.lanes = engine.cgra_lanes;
    cgra_figures.cycles_per_vector = engine.cgra_cycles_per_vector;
    cgra_figures.pe_latency_cycles = engine.cgra_pe_latency_cycles;
    // Switch-resident engines: the model follows the switches' trees
    // (collective.placement = switch; SHArP mode offloads reductions only).
    const loggp::Engines engines = engine.sharp()                 ? loggp::Engines::Sharp
                                   : engine.placement == "switch" ? loggp::Engines::Switch
                                                                  : loggp::Engines::Nic;
    const loggp::LogcnModel model(collectives_model, cgra_figures, engines);

    std::cout << "# " << ranks << " ranks on " << config.fabric.describe() << ", offload " << offload_text
              << ", fused and higher-order collectives" << describe_driver_paths(base_driver_config) << "; "
              << iterations << " timed + " << warmup << " warm-up iterations" << (check ? ", results checked" : "")
              << (aligned_start ? ", aligned start" : "") << "\n";
    const bool both = passes.offload && passes.software;
    if (both)
        std::cout << "# pattern nodes  size    fused_us   semi_us  unfused_us  software_us  speedup  path      "
                     "logcn_fused_us  logcn_software_us  diff_fused  diff_software\n";
    else
        std::cout << "# pattern nodes  size    latency_us  path      logcn_us  diff\n";
    nlohmann::json json_rows = nlohmann::json::array();
    for (const Row& row : rows) {
        const auto average_us = [&](Way way) {
            std::uint64_t total = 0;
            for (const std::uint64_t d : row.ps[way]) total += d;
            return static_cast<double>(total) / 1e6 / iterations;
        };
        double model_fused = 0, model_software = 0;
        loggp::LogcnPrediction terms;
        switch (row.info.pattern) {
            case Pattern::Is:
                terms = model.is_fused(row.size, decoded(kIsProgramWords));
                model_software = model.is_software_us(row.size);
                break;
            case Pattern::Fem:
                terms = model.fem_fused(row.size);
                model_software = model.fem_software_us(row.size);
                break;
            case Pattern::Pgemm:
            case Pattern::Spmv: {
                const std::uint64_t block = row.info.pattern == Pattern::Pgemm
                                                ? row.size / static_cast<std::uint64_t>(ranks) * row.size
                                                : row.size;
                terms = model.ingress(ingress_program(row.info.pattern, row.size, ranks, halfwidth), row.input_bytes,
                                      block * 8);
                model_software = model.ingress_software_us(block * 8);
                break;
            }
        }
        model_fused = terms.total;
        nlohmann::json json_row{
            {"pattern", row.info.name},
            {"nodes", ranks},
            {"size", row.size},
            {"logcn_fused_us", model_fused},
            {"logcn_software_us", model_software},
            {"logcn_path", path_name(terms.path)},
            {"logcn_terms",
             {{"collectives_us", terms.collectives}, {"compute_us", terms.compute}, {"chained_us", terms.chained}}}};
        // The barrier before a call leaves the ranks' starts apart by however
        // the calls before it ended (docs/REPORTS.md); these two separate
        // that entry skew from the call itself.
        const auto average_between_us = [&](const std::vector<std::uint64_t>& from,
                                            const std::vector<std::uint64_t>& to) {
            std::uint64_t total = 0;
            for (unsigned i = 0; i < iterations; ++i) total += to[i] - from[i];
            return static_cast<double>(total) / 1e6 / iterations;
        };
        for (const Way way : ways)
            if (way != kSemi || has_semi(row.info.pattern)) {
                const std::string name = kWayNames[way];
                json_row[name + "_entry_skew_us"] = average_between_us(row.first_start[way], row.last_start[way]);
                json_row[name + "_after_last_entry_us"] = average_between_us(row.last_start[way], row.last_end[way]);
                json_row[name + "_us"] = average_us(way);
                json_row[name + "_path"] = path_name(row.path[way]);
            }
        const std::string reason =
            passes.offload ? fused_reason(row.info.pattern, row.path[kFused], true, reductions_only) : "";
        if (!reason.empty()) json_row["fused_reason"] = reason;
        std::ostringstream line;
        line << std::left << std::setw(10) << row.info.name << std::setw(6) << ranks << std::setw(8) << row.size
             << std::right << std::fixed << std::setprecision(3);
        if (both) {
            const double fused = average_us(kFused), software_us = average_us(kSoftware);
            json_row["speedup"] = software_us / fused;
            json_row["diff_fused"] = (fused - model_fused) / model_fused;
            json_row["diff_software"] = (software_us - model_software) / model_software;
            std::ostringstream semi;
            if (has_semi(row.info.pattern))
                semi << std::fixed << std::setprecision(3) << average_us(kSemi);
            else
                semi << "-";
            line << std::setw(10) << fused << std::setw(10) << semi.str() << std::setw(12) << average_us(kUnfused)
                 << std::setw(13) << software_us << std::setw(8) << std::setprecision(2) << software_us / fused << "x"
                 << "  " << std::left << std::setw(9) << path_name(row.path[kFused]) << std::right
                 << std::setprecision(3) << std::setw(14) << model_fused << std::setw(19) << model_software
                 << std::setw(12) << percent(fused, model_fused) << std::setw(15)
                 << percent(software_us, model_software);
        } else {
            const Way way = passes.offload ? kFused : kSoftware;
            const double latency = average_us(way), modelled = passes.offload ? model_fused : model_software;
            json_row["latency_us"] = latency;
            line << std::setw(12) << latency << "  " << std::left << std::setw(9) << path_name(row.path[way])
                 << std::right << std::setw(9) << modelled << std::setw(6) << percent(latency, modelled);
        }
        std::cout << line.str() << "\n";
        json_rows.push_back(json_row);
    }
    for (const nlohmann::json& row : json_rows)
        if (row.contains("fused_reason"))
            std::cout << "# " << row["pattern"].get<std::string>() << " size " << row["size"].get<std::uint64_t>()
                      << ": fused path " << row["fused_path"].get<std::string>() << ": "
                      << row["fused_reason"].get<std::string>() << "\n";
    // collective.placement = switch: which collectives went through the
    // switches' trees (every way's, warm-up included).
    if (job.platform() && !job.platform()->switch_engines().empty()) {
        CollectiveStatistics nics;
        for (unsigned n = 0; n < job.platform()->nodes(); ++n)
            if (job.platform()->has_node(n))
                accumulate_statistics(nics, job.platform()->node(n).collective.statistics());
        SwitchEngineStatistics switches;
        for (const auto& e : job.platform()->switch_engines()) accumulate_statistics(switches, e->statistics());
        std::cout << "# switch placement: " << nics.tree_collectives << " rank calls through the switches' trees, "
                  << nics.tree_not_offloaded << " on the NIC engines (the tree does not run them), " << nics.cgra_runs
                  << " CGRA runs; switch engines took part in " << switches.collectives << " collectives\n";
    }
    std::cout << std::defaultfloat << std::setprecision(6) << "# simulated " << result.end_time_ps / 1e6 << " us in "
              << std::setprecision(3) << wall_seconds << " s wall\n";
    if (check && !mismatch) std::cout << "# check: every result equals the C++ reference\n";
    if (mismatch) std::cout << "mismatch: a fused call's result differs from the reference (" << mismatch_what << ")\n";
    if (values.count("json")) {
        const std::string path = values["json"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("bench fused: cannot write --json " + path);
        out << nlohmann::json{{"benchmark", "fused"},
                              {"build_commit", build_commit()},
                              {"ranks", ranks},
                              {"topology", topology.description()},
                              {"offload", offload_text},
                              {"iterations", iterations},
                              {"warmup", warmup},
                              {"aligned_start", aligned_start},
                              {"halfwidth", halfwidth},
                              {"parameters", parameters.to_json()},
                              {"logcn",
                               {{"engines", engines == loggp::Engines::Sharp    ? "sharp"
                                            : engines == loggp::Engines::Switch ? "switch"
                                                                                : "nic"},
                                {"agreement_us", model.agreement_us()},
                                {"o_s_us", loggp_parameters.o_s},
                                {"o_r_us", loggp_parameters.o_r},
                                {"L_router_us", loggp_parameters.L_router},
                                {"hop_us", loggp_parameters.hop},
                                {"G_link_us_per_byte", loggp_parameters.G_link},
                                {"G_pcie_us_per_byte", loggp_parameters.G_pcie},
                                {"cgra_clock_mhz", cgra_figures.clock_mhz}}},
                              {"rows", json_rows},
                              {"check", check},
                              {"mismatch", mismatch},
                              {"simulated_us", result.end_time_ps / 1e6},
                              {"wall_seconds", wall_seconds}}
                   .dump(2)
            << "\n";
    }
    return mismatch ? 1 : 0;
}

}  // namespace isvp::cli
