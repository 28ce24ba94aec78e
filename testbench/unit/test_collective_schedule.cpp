// Collective schedules, executed for every rank of a communicator by an
// in-memory message-passing executor and checked against the direct
// definition of each collective. Reductions use composition of affine maps,
// an associative but non-commutative operation: a schedule that combined out
// of rank order would give a different answer.
#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <random>

#include "isvp/collective_schedule.h"

using namespace isvp;

namespace {

// f(x) = a x + b, packed as a << 32 | b; (f op g)(x) = f(g(x)).
std::uint64_t compose(std::uint64_t f, std::uint64_t g) {
    const auto fa = static_cast<std::uint32_t>(f >> 32), fb = static_cast<std::uint32_t>(f);
    const auto ga = static_cast<std::uint32_t>(g >> 32), gb = static_cast<std::uint32_t>(g);
    return static_cast<std::uint64_t>(fa * ga) << 32 | static_cast<std::uint32_t>(fa * gb + fb);
}

using Block = std::vector<std::uint64_t>;
using Buffer = std::vector<Block>;

// The operation the executor reduces with: non-commutative composition for
// the rank-order schedules (Fold::Pairwise), wrapping addition for the
// switch's (Fold::Hypercube), which promise a fixed but not a rank order.
Block combine(const Block& left, const Block& right, Fold fold) {
    Block out(left.size());
    for (std::size_t i = 0; i < left.size(); ++i)
        out[i] = fold == Fold::Hypercube ? left[i] + right[i] : compose(left[i], right[i]);
    return out;
}

// Runs every rank's schedule to completion; FIFO mailboxes per (source,
// destination) as MPI's non-overtaking order. Fails on a deadlock.
std::vector<Buffer> execute(Opcode collective, Algorithm algorithm, int size, int root, std::vector<Buffer> buffers,
                            Fold fold) {
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < size; ++rank)
        schedules.push_back(make_schedule(collective, algorithm, size, rank, root, fold));
    std::map<std::pair<int, int>, std::deque<std::vector<Block>>> mailbox;
    std::vector<std::size_t> next(size, 0);
    std::vector<bool> sent(size, false);
    for (bool progress = true; progress;) {
        progress = false;
        for (int rank = 0; rank < size; ++rank) {
            while (next[rank] < schedules[rank].steps.size()) {
                const Step& step = schedules[rank].steps[next[rank]];
                if (step.send && !sent[rank]) {
                    std::vector<Block> message;
                    for (const BlockSpan& span : step.send->spans)
                        for (std::uint32_t b = span.first; b < span.first + span.count; ++b)
                            message.push_back(buffers[rank].at(b));
                    mailbox[{rank, step.send->peer}].push_back(std::move(message));
                    sent[rank] = true;
                }
                if (step.receive) {
                    auto& queue = mailbox[{step.receive->peer, rank}];
                    if (queue.empty()) break;
                    std::vector<Block> message = std::move(queue.front());
                    queue.pop_front();
                    std::size_t i = 0;
                    for (const BlockSpan& span : step.receive->spans)
                        for (std::uint32_t b = span.first; b < span.first + span.count; ++b) {
                            Block& local = buffers[rank].at(b);
                            const Block& in = message.at(i++);
                            REQUIRE(in.size() == local.size());
                            if (step.apply == Apply::Copy) local = in;
                            if (step.apply == Apply::CombineLeft) local = combine(in, local, fold);
                            if (step.apply == Apply::CombineRight) local = combine(local, in, fold);
                        }
                    REQUIRE(i == message.size());
                }
                sent[rank] = false;
                ++next[rank];
                progress = true;
            }
        }
    }
    for (int rank = 0; rank < size; ++rank) {
        INFO("rank " << rank << " stuck at step " << next[rank]);
        REQUIRE(next[rank] == schedules[rank].steps.size());
    }
    for (const auto& [route, queue] : mailbox) REQUIRE(queue.empty());
    return buffers;
}

// Every rank's buffer: `blocks` blocks; block b holds (b % 3) elements, so
// some blocks are empty and sizes differ (the v-variants and unequal counts).
std::vector<Buffer> random_buffers(int size, std::uint32_t blocks, std::mt19937_64& random) {
    std::vector<Buffer> buffers(size, Buffer(blocks));
    for (auto& buffer : buffers)
        for (std::uint32_t b = 0; b < blocks; ++b) {
            buffer[b].resize(blocks == 1 ? 3 : b % 3);
            for (auto& element : buffer[b]) element = random();
        }
    return buffers;
}

Block ordered_reduction(const std::vector<Buffer>& buffers, std::uint32_t block, Fold fold) {
    Block result = buffers[0][block];
    for (std::size_t rank = 1; rank < buffers.size(); ++rank) result = combine(result, buffers[rank][block], fold);
    return result;
}

void check(Opcode collective, Algorithm algorithm, int size, int root, Fold fold = Fold::Pairwise) {
    INFO(to_string(collective) << " " << to_string(algorithm) << " size " << size << " root " << root
                               << (fold == Fold::Hypercube ? " hypercube" : " pairwise"));
    std::mt19937_64 random(static_cast<std::uint64_t>(size) * 1000 + root);
    const std::uint32_t blocks = make_schedule(collective, algorithm, size, 0, root, fold).blocks;
    const auto input = random_buffers(size, blocks, random);
    const auto output = execute(collective, algorithm, size, root, input, fold);
    if (fold == Fold::Hypercube) {
        // Every peer is one a communicator-table row or the envelope names.
        for (int rank = 0; rank < size; ++rank)
            for (const Step& step : make_schedule(collective, algorithm, size, rank, root, fold).steps)
                for (const auto* transfer : {step.send ? &*step.send : nullptr, step.receive ? &*step.receive : nullptr}) {
                    if (!transfer) continue;
                    const int distance = transfer->peer ^ rank;
                    const bool neighbour = distance != 0 && (distance & (distance - 1)) == 0;
                    INFO("rank " << rank << " peer " << transfer->peer);
                    CHECK((neighbour || transfer->peer == 0 || transfer->peer == root));
                }
    }
    for (int rank = 0; rank < size; ++rank) {
        INFO("rank " << rank);
        switch (collective) {
            case Opcode::Bcast: CHECK(output[rank][0] == input[root][0]); break;
            case Opcode::Reduce:
                if (rank == root) CHECK(output[rank][0] == ordered_reduction(input, 0, fold));
                break;
            case Opcode::Allreduce:
            case Opcode::Barrier: CHECK(output[rank][0] == ordered_reduction(input, 0, fold)); break;
            case Opcode::ReduceScatter: CHECK(output[rank][rank] == ordered_reduction(input, rank, fold)); break;
            case Opcode::Allgather:
                for (int b = 0; b < size; ++b) CHECK(output[rank][b] == input[b][b]);
                break;
            case Opcode::Scatter: CHECK(output[rank][rank] == input[root][rank]); break;
            case Opcode::Gather:
                if (rank == root)
                    for (int b = 0; b < size; ++b) CHECK(output[rank][b] == input[b][b]);
                break;
            case Opcode::Send:
            case Opcode::Stream:
            case Opcode::Alltoall:  // its own test case: equal blocks
                break;
        }
    }
}

const std::vector<Opcode> kCollectives = {Opcode::Bcast,     Opcode::Reduce, Opcode::Allreduce,
                                          Opcode::Scatter,   Opcode::Gather, Opcode::Allgather,
                                          Opcode::ReduceScatter, Opcode::Barrier};

std::vector<Algorithm> algorithms_for(Opcode collective) {
    std::vector<Algorithm> out;
    for (int a = 0; a < 4; ++a)
        if (algorithm_supports(collective, static_cast<Algorithm>(a))) out.push_back(static_cast<Algorithm>(a));
    return out;
}

}  // namespace

TEST_CASE("collective schedule: every collective and algorithm is correct for sizes 1 to 40, every root") {
    for (const Opcode collective : kCollectives)
        for (const Algorithm algorithm : algorithms_for(collective))
            for (int size = 1; size <= 40; ++size)
                for (int root = 0; root < size; root += (size > 8 ? 7 : 1)) check(collective, algorithm, size, root);
}

TEST_CASE("collective schedule: large and odd communicators up to 1024 ranks") {
    for (const Opcode collective : kCollectives)
        for (const Algorithm algorithm : algorithms_for(collective))
            for (const int size : {63, 64, 65, 100, 127, 128, 255, 257, 1024}) check(collective, algorithm, size, size / 3);
}

TEST_CASE("collective schedule: the switch's hypercube schedules are correct and use only row peers") {
    for (const Opcode collective : kCollectives)
        for (const Algorithm algorithm : algorithms_for(collective)) {
            if (algorithm == Algorithm::Ring) continue;
            for (int size = 1; size <= 24; ++size)
                for (int root = 0; root < size; root += (size > 8 ? 5 : 1))
                    check(collective, algorithm, size, root, Fold::Hypercube);
            for (const int size : {63, 100, 128, 257}) check(collective, algorithm, size, size / 3, Fold::Hypercube);
        }
    CHECK_THROWS_WITH(make_schedule(Opcode::Allgather, Algorithm::Ring, 8, 0, 0, Fold::Hypercube),
                      Catch::Contains("runs in software"));
}

TEST_CASE("collective schedule: default algorithms follow the design table") {
    CHECK(default_algorithm(Opcode::Allreduce) == Algorithm::RecursiveDoubling);
    CHECK(default_algorithm(Opcode::Bcast) == Algorithm::BinomialTree);
    CHECK(default_algorithm(Opcode::ReduceScatter) == Algorithm::RecursiveHalving);
    CHECK(default_algorithm(Opcode::Barrier) == Algorithm::RecursiveDoubling);
    CHECK(algorithm_supports(Opcode::Allgather, Algorithm::Ring));
    CHECK_FALSE(algorithm_supports(Opcode::Bcast, Algorithm::Ring));
}

TEST_CASE("collective schedule: recursive doubling takes log2 steps on powers of two") {
    const Schedule schedule = make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling, 64, 5);
    CHECK(schedule.steps.size() == 6);
    for (const Step& step : schedule.steps) CHECK(step.send->peer == step.receive->peer);
}

TEST_CASE("collective schedule: bad arguments are refused naming them") {
    CHECK_THROWS_WITH(make_schedule(Opcode::Bcast, Algorithm::BinomialTree, 4, 4), Catch::Contains("rank 4"));
    CHECK_THROWS_WITH(make_schedule(Opcode::Bcast, Algorithm::BinomialTree, 4, 0, 9), Catch::Contains("root 9"));
    CHECK_THROWS_WITH(make_schedule(Opcode::Bcast, Algorithm::Ring, 4, 0),
                      Catch::Contains("ring does not implement bcast"));
    CHECK_THROWS_WITH(make_schedule(Opcode::Reduce, Algorithm::BinomialTree, 0, 0), Catch::Contains("size 0"));
}

TEST_CASE("collective schedule: alltoall is a dimension-ordered hypercube exchange on power-of-two sizes") {
    for (const Fold fold : {Fold::Pairwise, Fold::Hypercube})
        for (int size = 1; size <= 256; size *= 2) {
            INFO("size " << size);
            // Rank r's block d (for rank d): two elements naming (r, d).
            std::vector<Buffer> input(static_cast<std::size_t>(size), Buffer(static_cast<std::size_t>(size)));
            for (int r = 0; r < size; ++r)
                for (int d = 0; d < size; ++d)
                    input[r][d] = Block{static_cast<std::uint64_t>(r) << 32 | static_cast<std::uint32_t>(d),
                                        static_cast<std::uint64_t>(r * 1000 + d)};
            const auto output = execute(Opcode::Alltoall, Algorithm::RecursiveDoubling, size, 0, input, fold);
            for (int r = 0; r < size; ++r)
                for (int s = 0; s < size; ++s) CHECK(output[r][s] == input[s][r]);
            int log2 = 0;
            while ((1 << log2) < size) ++log2;
            for (int rank = 0; rank < size; ++rank) {
                const Schedule schedule =
                    make_schedule(Opcode::Alltoall, Algorithm::RecursiveDoubling, size, rank, 0, fold);
                CHECK(schedule.blocks == static_cast<std::uint32_t>(size));
                REQUIRE(schedule.steps.size() == static_cast<std::size_t>(log2));
                for (std::size_t k = 0; k < schedule.steps.size(); ++k) {
                    const Step& step = schedule.steps[k];
                    const int bit = 1 << k;
                    // One hypercube neighbour per step, dimension by dimension, half the blocks each way.
                    REQUIRE(step.send);
                    REQUIRE(step.receive);
                    CHECK(step.send->peer == (rank ^ bit));
                    CHECK(step.receive->peer == (rank ^ bit));
                    CHECK(step.apply == Apply::Copy);
                    std::uint32_t blocks = 0;
                    for (const BlockSpan& span : step.send->spans) {
                        blocks += span.count;
                        // Only blocks still headed across this dimension: their index differs in bit k.
                        for (std::uint32_t b = span.first; b < span.first + span.count; ++b)
                            CHECK((static_cast<int>(b) & bit) != (rank & bit));
                    }
                    CHECK(blocks == static_cast<std::uint32_t>(size / 2));
                    CHECK(step.send->spans == step.receive->spans);
                }
            }
        }
    CHECK(default_algorithm(Opcode::Alltoall) == Algorithm::RecursiveDoubling);
    CHECK_FALSE(algorithm_supports(Opcode::Alltoall, Algorithm::Ring));
    CHECK_FALSE(tree_supports(Opcode::Alltoall));
}

TEST_CASE(
    "collective schedule: alltoall on other sizes folds the ranks above the power of two onto hypercube "
    "neighbours") {
    for (const Fold fold : {Fold::Pairwise, Fold::Hypercube})
        for (int size = 3; size <= 70; ++size) {
            const int pof2 = floor_power_of_two(size);
            if (pof2 == size) continue;
            INFO("size " << size);
            const std::uint32_t blocks = alltoall_buffer_blocks(size);
            CHECK(blocks == static_cast<std::uint32_t>(4 * pof2));
            // Rank r's block d (for rank d): two elements naming (r, d); the
            // rest of the buffer (scratch) starts as garbage.
            std::vector<Buffer> input(static_cast<std::size_t>(size), Buffer(blocks, Block{0xDEAD, 0xBEEF}));
            for (int r = 0; r < size; ++r)
                for (int d = 0; d < size; ++d)
                    input[r][d] = Block{static_cast<std::uint64_t>(r) << 32 | static_cast<std::uint32_t>(d),
                                        static_cast<std::uint64_t>(r * 1000 + d)};
            const auto output = execute(Opcode::Alltoall, Algorithm::RecursiveDoubling, size, 0, input, fold);
            for (int r = 0; r < size; ++r)
                for (int s = 0; s < size; ++s) {
                    INFO("rank " << r << " block from " << s);
                    CHECK(output[r][s] == input[s][r]);
                }
            int log2 = 0;
            while ((1 << log2) < pof2) ++log2;
            for (int rank = 0; rank < size; ++rank) {
                INFO("rank " << rank);
                const Schedule schedule =
                    make_schedule(Opcode::Alltoall, Algorithm::RecursiveDoubling, size, rank, 0, fold);
                CHECK(schedule.blocks == blocks);
                // The fold (rank pof2 + i with i: in, then out) around the log2 pof2 hypercube steps.
                const bool folds = (rank ^ pof2) < size;
                CHECK(schedule.steps.size() == (rank >= pof2 ? 2u : static_cast<std::size_t>(log2) + (folds ? 2 : 0)));
                for (const Step& step : schedule.steps)
                    for (const auto* t : {step.send ? &*step.send : nullptr, step.receive ? &*step.receive : nullptr}) {
                        if (!t) continue;
                        const int distance = t->peer ^ rank;
                        CHECK((distance != 0 && (distance & (distance - 1)) == 0));  // a CT row's neighbour
                        CHECK(t->peer < size);
                        for (const BlockSpan& span : t->spans) CHECK(span.first + span.count <= blocks);
                    }
            }
        }
    CHECK(alltoall_buffer_blocks(8) == 8);
    CHECK(alltoall_buffer_blocks(1) == 1);
}
