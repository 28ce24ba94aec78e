#include "isvp/collective_schedule.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

namespace isvp {
namespace {

constexpr std::array<std::string_view, 4> kAlgorithmNames = {"binomial", "recursive_doubling", "recursive_halving",
                                                             "ring"};

Step send_step(int peer, std::vector<BlockSpan> spans) {
    Step step;
    step.send = Transfer{peer, std::move(spans)};
    return step;
}

Step receive_step(int peer, std::vector<BlockSpan> spans, Apply apply) {
    Step step;
    step.receive = Transfer{peer, std::move(spans)};
    step.apply = apply;
    return step;
}

Step exchange_step(int peer, std::vector<BlockSpan> out, std::vector<BlockSpan> in, Apply apply) {
    Step step;
    step.send = Transfer{peer, std::move(out)};
    step.receive = Transfer{peer, std::move(in)};
    step.apply = apply;
    return step;
}

const std::vector<BlockSpan> kWhole = {BlockSpan{0, 1}};

/// Sorted block indices -> runs of consecutive blocks.
std::vector<BlockSpan> spans_of(const std::vector<std::uint32_t>& blocks) {
    std::vector<BlockSpan> spans;
    for (const std::uint32_t block : blocks) {
        if (!spans.empty() && spans.back().first + spans.back().count == block)
            ++spans.back().count;
        else
            spans.push_back(BlockSpan{block, 1});
    }
    return spans;
}

/// Blocks of the relative ranks [v, v + count) when relative rank v is comm
/// rank (v + root) mod size: one span, or two where the range wraps.
std::vector<BlockSpan> relative_spans(int v, int count, int root, int size) {
    const int first = (v + root) % size;
    const int tail = std::min(count, size - first);
    std::vector<BlockSpan> spans{BlockSpan{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(tail)}};
    if (count > tail) spans.push_back(BlockSpan{0, static_cast<std::uint32_t>(count - tail)});
    return spans;
}

// Non-power-of-two sizes fold the first 2*rem ranks in pairs (MPICH): the
// even rank of each pair hands its data to the odd one and sits out; the
// pof2 remaining ranks ("new ranks") run the power-of-two algorithm.
/// What every fold needs: the largest power of two and how many ranks lie beyond it.
struct FoldShape {
    int size;  ///< communicator size
    int pof2;  ///< largest power of two <= size
    int rem;   ///< size - pof2
    explicit FoldShape(int n) : size(n), pof2(floor_power_of_two(n)), rem(n - floor_power_of_two(n)) {}
};

struct PairwiseFold : FoldShape {
    using FoldShape::FoldShape;
    int new_rank(int rank) const {
        if (rank < 2 * rem) return rank % 2 ? rank / 2 : -1;
        return rank - rem;
    }
    int real_rank(int new_rank) const { return new_rank < rem ? new_rank * 2 + 1 : new_rank + rem; }
    /// The new rank that owns block b (block b belongs to comm rank b).
    int owner(std::uint32_t block) const {
        const int b = static_cast<int>(block);
        return b < 2 * rem ? b / 2 : b - rem;
    }
    /// Blocks of the comm ranks folded into new ranks [first, first + count).
    std::vector<std::uint32_t> blocks_of(int first, int count) const {
        std::vector<std::uint32_t> blocks;
        for (int n = first; n < first + count; ++n) {
            if (n < rem) {
                blocks.push_back(static_cast<std::uint32_t>(2 * n));
                blocks.push_back(static_cast<std::uint32_t>(2 * n + 1));
            } else {
                blocks.push_back(static_cast<std::uint32_t>(n + rem));
            }
        }
        return blocks;
    }
};

std::vector<BlockSpan> all_blocks(int size) {
    return {BlockSpan{0, static_cast<std::uint32_t>(size)}};
}

void bcast_binomial(Schedule& s, int size, int rank, int root) {
    const int v = (rank - root + size) % size;
    int mask = 1;
    while (mask < size) {
        if (v & mask) {
            s.steps.push_back(receive_step((v - mask + root) % size, kWhole, Apply::Copy));
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < size) s.steps.push_back(send_step((v + mask + root) % size, kWhole));
}

// Rooted at comm rank 0 so that every combine keeps rank order; a non-zero
// root then receives the result from rank 0.
void reduce_binomial(Schedule& s, int size, int rank, int root) {
    for (int mask = 1; mask < size; mask <<= 1) {
        if ((rank & mask) == 0) {
            if ((rank | mask) < size) s.steps.push_back(receive_step(rank | mask, kWhole, Apply::CombineRight));
        } else {
            s.steps.push_back(send_step(rank & ~mask, kWhole));
            break;
        }
    }
    if (root != 0) {
        if (rank == 0) s.steps.push_back(send_step(root, kWhole));
        if (rank == root) s.steps.push_back(receive_step(0, kWhole, Apply::Copy));
    }
}

void allreduce_recursive_doubling(Schedule& s, int size, int rank) {
    const PairwiseFold fold(size);
    const int me = fold.new_rank(rank);
    if (rank < 2 * fold.rem) {
        if (rank % 2 == 0)
            s.steps.push_back(send_step(rank + 1, kWhole));
        else
            s.steps.push_back(receive_step(rank - 1, kWhole, Apply::CombineLeft));
    }
    if (me >= 0) {
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int peer = fold.real_rank(me ^ mask);
            s.steps.push_back(
                exchange_step(peer, kWhole, kWhole, peer < rank ? Apply::CombineLeft : Apply::CombineRight));
        }
    }
    if (rank < 2 * fold.rem) {
        if (rank % 2)
            s.steps.push_back(send_step(rank - 1, kWhole));
        else
            s.steps.push_back(receive_step(rank + 1, kWhole, Apply::Copy));
    }
}

// Recursive halving with the mask ascending, so each exchange combines two
// contiguous rank ranges and the result keeps rank order.
void reduce_scatter_recursive_halving(Schedule& s, int size, int rank) {
    const PairwiseFold fold(size);
    const int me = fold.new_rank(rank);
    if (rank < 2 * fold.rem) {
        if (rank % 2 == 0)
            s.steps.push_back(send_step(rank + 1, all_blocks(size)));
        else
            s.steps.push_back(receive_step(rank - 1, all_blocks(size), Apply::CombineLeft));
    }
    if (me >= 0) {
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int partner = me ^ mask;
            const int peer = fold.real_rank(partner);
            std::vector<std::uint32_t> out;
            std::vector<std::uint32_t> in;
            for (std::uint32_t block = 0; block < static_cast<std::uint32_t>(size); ++block) {
                const int owner = fold.owner(block);
                if ((owner ^ me) & (mask - 1)) continue;  // handed off in an earlier step
                ((owner & mask) == (partner & mask) ? out : in).push_back(block);
            }
            s.steps.push_back(exchange_step(peer, spans_of(out), spans_of(in),
                                            peer < rank ? Apply::CombineLeft : Apply::CombineRight));
        }
    }
    if (rank < 2 * fold.rem) {
        const auto own = static_cast<std::uint32_t>(rank);
        if (rank % 2)
            s.steps.push_back(send_step(rank - 1, {BlockSpan{own - 1, 1}}));
        else
            s.steps.push_back(receive_step(rank + 1, {BlockSpan{own, 1}}, Apply::Copy));
    }
}

void allgather_recursive_doubling(Schedule& s, int size, int rank) {
    const PairwiseFold fold(size);
    const int me = fold.new_rank(rank);
    const auto own = static_cast<std::uint32_t>(rank);
    if (rank < 2 * fold.rem) {
        if (rank % 2 == 0)
            s.steps.push_back(send_step(rank + 1, {BlockSpan{own, 1}}));
        else
            s.steps.push_back(receive_step(rank - 1, {BlockSpan{own - 1, 1}}, Apply::Copy));
    }
    if (me >= 0) {
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int partner = me ^ mask;
            const int mine_first = me & ~(mask - 1);
            const int theirs_first = partner & ~(mask - 1);
            s.steps.push_back(exchange_step(fold.real_rank(partner), spans_of(fold.blocks_of(mine_first, mask)),
                                            spans_of(fold.blocks_of(theirs_first, mask)), Apply::Copy));
        }
    }
    if (rank < 2 * fold.rem) {
        if (rank % 2)
            s.steps.push_back(send_step(rank - 1, all_blocks(size)));
        else
            s.steps.push_back(receive_step(rank + 1, all_blocks(size), Apply::Copy));
    }
}

void allgather_ring(Schedule& s, int size, int rank) {
    const int right = (rank + 1) % size;
    const int left = (rank - 1 + size) % size;
    for (int k = 0; k + 1 < size; ++k) {
        const auto out = static_cast<std::uint32_t>((rank - k + size) % size);
        const auto in = static_cast<std::uint32_t>((rank - k - 1 + 2 * size) % size);
        Step step;
        step.send = Transfer{right, {BlockSpan{out, 1}}};
        step.receive = Transfer{left, {BlockSpan{in, 1}}};
        s.steps.push_back(step);
    }
}

void scatter_binomial(Schedule& s, int size, int rank, int root) {
    const int v = (rank - root + size) % size;
    int mask = 1;
    while (mask < size) {
        if (v & mask) {
            s.steps.push_back(receive_step((v - mask + root) % size,
                                           relative_spans(v, std::min(mask, size - v), root, size), Apply::Copy));
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < size)
            s.steps.push_back(send_step((v + mask + root) % size,
                                        relative_spans(v + mask, std::min(mask, size - v - mask), root, size)));
}

void gather_binomial(Schedule& s, int size, int rank, int root) {
    const int v = (rank - root + size) % size;
    for (int mask = 1; mask < size; mask <<= 1) {
        if ((v & mask) == 0) {
            const int child = v | mask;
            if (child < size)
                s.steps.push_back(receive_step((child + root) % size,
                                               relative_spans(child, std::min(mask, size - child), root, size),
                                               Apply::Copy));
        } else {
            s.steps.push_back(
                send_step(((v & ~mask) + root) % size, relative_spans(v, std::min(mask, size - v), root, size)));
            break;
        }
    }
}

/// A schedule with no steps yet and the collective's block count: one block
/// per comm rank where ranks own pieces, else one.
Schedule empty_schedule(Opcode collective, int size) {
    const bool per_rank_blocks = collective == Opcode::Scatter || collective == Opcode::Gather ||
                                 collective == Opcode::Allgather || collective == Opcode::ReduceScatter ||
                                 collective == Opcode::Alltoall;
    Schedule s;
    s.blocks = per_rank_blocks ? static_cast<std::uint32_t>(size) : 1;
    return s;
}

// --- Fold::Hypercube: peers are rank XOR 2^k, comm rank 0 or the root -------

// r >= pof2 pairs with r - pof2 = r XOR pof2; the pof2 lower ranks run the
// power-of-two algorithm, and each r < rem also stands for r + pof2.
struct HypercubeFold : FoldShape {
    using FoldShape::FoldShape;
    /// Blocks of the comm ranks that ranks [first, first + count) stand for.
    std::vector<std::uint32_t> blocks_of(int first, int count) const {
        std::vector<std::uint32_t> blocks;
        for (int n = first; n < first + count; ++n) blocks.push_back(static_cast<std::uint32_t>(n));
        for (int n = first; n < first + count; ++n)
            if (n < rem) blocks.push_back(static_cast<std::uint32_t>(n + pof2));
        return blocks;
    }
    int owner(std::uint32_t block) const {
        const int b = static_cast<int>(block);
        return b < pof2 ? b : b - pof2;
    }
};

void hypercube_fold_in(Schedule& s, const HypercubeFold& fold, int rank, const std::vector<BlockSpan>& out,
                       const std::vector<BlockSpan>& in, Apply apply) {
    if (rank >= fold.pof2) s.steps.push_back(send_step(rank - fold.pof2, out));
    if (rank < fold.rem) s.steps.push_back(receive_step(rank + fold.pof2, in, apply));
}

void hypercube_fold_out(Schedule& s, const HypercubeFold& fold, int rank, const std::vector<BlockSpan>& out,
                        const std::vector<BlockSpan>& in) {
    if (rank < fold.rem) s.steps.push_back(send_step(rank + fold.pof2, out));
    if (rank >= fold.pof2) s.steps.push_back(receive_step(rank - fold.pof2, in, Apply::Copy));
}

void allreduce_hypercube(Schedule& s, int size, int rank) {
    const HypercubeFold fold(size);
    hypercube_fold_in(s, fold, rank, kWhole, kWhole, Apply::CombineRight);
    if (rank < fold.pof2)
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int peer = rank ^ mask;
            s.steps.push_back(
                exchange_step(peer, kWhole, kWhole, peer < rank ? Apply::CombineLeft : Apply::CombineRight));
        }
    hypercube_fold_out(s, fold, rank, kWhole, kWhole);
}

void reduce_scatter_hypercube(Schedule& s, int size, int rank) {
    const HypercubeFold fold(size);
    hypercube_fold_in(s, fold, rank, all_blocks(size), all_blocks(size), Apply::CombineRight);
    if (rank < fold.pof2)
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int peer = rank ^ mask;
            std::vector<std::uint32_t> out;
            std::vector<std::uint32_t> in;
            for (std::uint32_t block = 0; block < static_cast<std::uint32_t>(size); ++block) {
                const int owner = fold.owner(block);
                if ((owner ^ rank) & (mask - 1)) continue;  // handed off in an earlier step
                ((owner & mask) == (peer & mask) ? out : in).push_back(block);
            }
            s.steps.push_back(exchange_step(peer, spans_of(out), spans_of(in),
                                            peer < rank ? Apply::CombineLeft : Apply::CombineRight));
        }
    const auto own = static_cast<std::uint32_t>(rank);
    hypercube_fold_out(s, fold, rank, {BlockSpan{own + static_cast<std::uint32_t>(fold.pof2), 1}}, {BlockSpan{own, 1}});
}

void allgather_hypercube(Schedule& s, int size, int rank) {
    const HypercubeFold fold(size);
    const auto own = static_cast<std::uint32_t>(rank);
    hypercube_fold_in(s, fold, rank, {BlockSpan{own, 1}}, {BlockSpan{own + static_cast<std::uint32_t>(fold.pof2), 1}},
                      Apply::Copy);
    if (rank < fold.pof2)
        for (int mask = 1; mask < fold.pof2; mask <<= 1) {
            const int peer = rank ^ mask;
            std::vector<std::uint32_t> mine = fold.blocks_of(rank & ~(mask - 1), mask);
            std::vector<std::uint32_t> theirs = fold.blocks_of(peer & ~(mask - 1), mask);
            std::sort(mine.begin(), mine.end());
            std::sort(theirs.begin(), theirs.end());
            s.steps.push_back(exchange_step(peer, spans_of(mine), spans_of(theirs), Apply::Copy));
        }
    hypercube_fold_out(s, fold, rank, all_blocks(size), all_blocks(size));
}

/// The Alltoall of sizes that are not a power of two (FoldedAlltoall, below).
void alltoall_folded(Schedule& s, int size, int rank);

/// Alltoall on a power-of-two communicator: the dimension-ordered
/// personalised exchange over the hypercube (peers rank XOR 2^k, which a
/// communicator-table row holds). Block b of the buffer holds, before the
/// step of bit k, the block from source (rank's bits >= k, b's bits < k) to
/// destination (b's bits >= k, rank's bits < k): the contribution (b = the
/// destination) before bit 0, the result (b = the source) after the last.
/// At bit k each rank hands its peer every block whose destination differs
/// from it in bit k — the blocks whose index differs from the rank's in bit
/// k — and takes the peer's into the same blocks (a step sends the buffer as
/// it was before its receive). So every block moves only toward its
/// destination, one dimension at a time, P/2 blocks per step, log2 P steps.
/// Other sizes fold onto the power of two below (alltoall_folded).
void alltoall_hypercube(Schedule& s, int size, int rank) {
    if (floor_power_of_two(size) != size) {
        alltoall_folded(s, size, rank);
        return;
    }
    for (int mask = 1; mask < size; mask <<= 1) {
        std::vector<std::uint32_t> away;
        for (int b = 0; b < size; ++b)
            if ((b & mask) != (rank & mask)) away.push_back(static_cast<std::uint32_t>(b));
        const std::vector<BlockSpan> spans = spans_of(away);
        s.steps.push_back(exchange_step(rank ^ mask, spans, spans, Apply::Copy));
    }
}

/// Alltoall on any other size: rank e = pof2 + i (i < rem) folds onto its
/// hypercube neighbour i, and the pof2 lower ranks run the exchange above
/// with up to four blocks per slot. Slot b of virtual rank v holds, before
/// the step of bit k, the blocks from the real sources of virtual source
/// (v's bits >= k, b's bits < k) to the real destinations of virtual
/// destination (b's bits >= k, v's bits < k); a virtual rank i < rem stands
/// for i and i + pof2, so a slot holds sub-blocks (source lane, destination
/// lane) — lane 1 being the rank pof2 above — and lane 1 exists only where
/// that virtual rank is below rem. Sub-blocks sit at quadrant q of the
/// buffer (4 pof2 blocks: position q pof2 + b); a sub-block's quadrant is
/// fixed from its arrival to its next move:
///   * as the call found it (the contribution, and the partner's copy of
///     e's): q = destination lane + 2 source lane, so block t of the
///     contribution is at t and e's block t at 2 pof2 + t;
///   * received in a step: q = source lane + 2 destination lane, so a result
///     from real source s (destination lane 0) lands at s.
/// Steps: e and i swap the blocks between them (e's contribution but its own
/// block to i; i's block for e to e); the hypercube steps; i hands e the
/// blocks for e. Three sub-blocks never leave slot i of rank i (e to e, and
/// the swapped pair), so they are not in the hypercube steps at all.
class FoldedAlltoall {
  public:
    FoldedAlltoall(int size, int rank) : shape_(size), rank_(rank) {}

    void build(Schedule& s) const {
        const int pof2 = shape_.pof2, size = shape_.size;
        s.blocks = alltoall_buffer_blocks(size);
        if (rank_ >= pof2) {  // e: hands its row to i, takes its results back
            const int i = rank_ - pof2;
            std::vector<std::uint32_t> row, back;
            for (int t = 0; t < size; ++t)
                if (t != rank_) row.push_back(static_cast<std::uint32_t>(t));
            s.steps.push_back(
                exchange_step(i, spans_of(row), {BlockSpan{static_cast<std::uint32_t>(i), 1}}, Apply::Copy));
            for (int t = 0; t < size; ++t)
                if (t != rank_ && t != i) back.push_back(static_cast<std::uint32_t>(t));
            s.steps.push_back(receive_step(i, spans_of(back), Apply::Copy));
            return;
        }
        const int e = rank_ + pof2;
        const bool partner = e < size;
        if (partner) {
            // i's block for e (at e) out; e's row in: its block for i at e
            // (final), the others at 2 pof2 + t (quadrants 2, 3).
            std::vector<std::uint32_t> in;
            for (int t = 0; t < size; ++t) {
                if (t == e) continue;
                in.push_back(static_cast<std::uint32_t>(t == rank_ ? e : 2 * pof2 + t));
            }
            s.steps.push_back(
                exchange_step(e, {BlockSpan{static_cast<std::uint32_t>(e), 1}}, spans_of(in), Apply::Copy));
        }
        int dimensions = 0;
        for (; (1 << dimensions) < pof2; ++dimensions) {
            const int k = dimensions, mask = 1 << k, low = mask - 1, peer = rank_ ^ mask;
            // Out: my slots b whose bit k differs from mine; in: the peer's
            // (bit k differing from its), each into my slot b XOR 2^k, in the
            // peer's wire order. A slot's sub-blocks follow from its virtual
            // source and destination before the step, at its sender.
            std::vector<std::uint32_t> out, in;
            for (int b = 0; b < pof2; ++b) {
                const bool mine = (b & mask) != (rank_ & mask);
                const int holder = mine ? rank_ : peer;
                const int source = (holder & ~low) | (b & low);
                const int destination = (b & ~low) | (holder & low);
                for (const auto& [source_lane, destination_lane] : kLanes) {
                    if (!present(source, source_lane) || !present(destination, destination_lane)) continue;
                    if (mine)
                        out.push_back(position(arrival(b, k), source_lane, destination_lane, b));
                    else
                        in.push_back(position(k, source_lane, destination_lane, b ^ mask));
                }
            }
            s.steps.push_back(exchange_step(peer, spans_of(out), spans_of(in), Apply::Copy));
        }
        if (partner) {
            // The blocks for e (destination lane 1) in source order, but
            // the three that never left slot i.
            std::vector<std::uint32_t> out;
            for (int t = 0; t < size; ++t) {
                const int b = t % pof2;
                if (b == rank_) continue;
                out.push_back(position(arrival(b, dimensions), t >= pof2 ? 1 : 0, 1, b));
            }
            s.steps.push_back(send_step(e, spans_of(out)));
        }
    }

  private:
    static constexpr std::array<std::pair<int, int>, 4> kLanes = {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};

    /// Lane 1 of virtual rank v exists (v stands for v + pof2 too).
    bool present(int v, int lane) const { return lane == 0 || v < shape_.rem; }
    /// The step slot b last arrived here in before step k: the highest bit
    /// below k where b differs from this rank (-1: none, as found).
    int arrival(int b, int k) const {
        const int differ = (b ^ rank_) & ((1 << k) - 1);
        int top = -1;
        for (int bit = 0; bit < k; ++bit)
            if (differ >> bit & 1) top = bit;
        return top;
    }
    std::uint32_t position(int arrived, int source_lane, int destination_lane, int b) const {
        const int q = arrived < 0 ? destination_lane + 2 * source_lane : source_lane + 2 * destination_lane;
        return static_cast<std::uint32_t>(q * shape_.pof2 + b);
    }

    FoldShape shape_;
    int rank_;
};

void alltoall_folded(Schedule& s, int size, int rank) {
    FoldedAlltoall(size, rank).build(s);
}

/// A rooted collective whose root is not comm rank 0 first hands the root's
/// data to rank 0 (Bcast, Scatter): the trees are all rooted at 0.
void root_to_zero(Schedule& s, int rank, int root, const std::vector<BlockSpan>& spans) {
    if (root == 0) return;
    if (rank == root) s.steps.push_back(send_step(0, spans));
    if (rank == 0) s.steps.push_back(receive_step(root, spans, Apply::Copy));
}

void zero_to_root(Schedule& s, int rank, int root, const std::vector<BlockSpan>& spans) {
    if (root == 0) return;
    if (rank == 0) s.steps.push_back(send_step(root, spans));
    if (rank == root) s.steps.push_back(receive_step(0, spans, Apply::Copy));
}

Schedule hypercube_schedule(Opcode collective, Algorithm algorithm, int size, int rank, int root) {
    Schedule s = empty_schedule(collective, size);
    switch (collective) {
        case Opcode::Bcast:
            root_to_zero(s, rank, root, kWhole);
            bcast_binomial(s, size, rank, 0);
            break;
        case Opcode::Reduce:
            reduce_binomial(s, size, rank, root);
            break;
        case Opcode::Allreduce:
        case Opcode::Barrier:
            if (algorithm == Algorithm::BinomialTree) {
                reduce_binomial(s, size, rank, 0);
                bcast_binomial(s, size, rank, 0);
            } else {
                allreduce_hypercube(s, size, rank);
            }
            break;
        case Opcode::ReduceScatter:
            reduce_scatter_hypercube(s, size, rank);
            break;
        case Opcode::Allgather:
            allgather_hypercube(s, size, rank);
            break;
        case Opcode::Alltoall:
            alltoall_hypercube(s, size, rank);
            break;
        case Opcode::Scatter:
            root_to_zero(s, rank, root, all_blocks(size));
            scatter_binomial(s, size, rank, 0);
            break;
        case Opcode::Gather:
            gather_binomial(s, size, rank, 0);
            zero_to_root(s, rank, root, all_blocks(size));
            break;
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
    return s;
}

}  // namespace

std::string_view to_string(Algorithm algorithm) {
    return kAlgorithmNames.at(static_cast<std::size_t>(algorithm));
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
    for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i)
        if (kAlgorithmNames[i] == name) return static_cast<Algorithm>(i);
    return std::nullopt;
}

Algorithm default_algorithm(Opcode collective) {
    switch (collective) {
        case Opcode::Allreduce:
        case Opcode::Allgather:
        case Opcode::Barrier:
        case Opcode::Alltoall:
            return Algorithm::RecursiveDoubling;
        case Opcode::ReduceScatter:
            return Algorithm::RecursiveHalving;
        default:
            return Algorithm::BinomialTree;
    }
}

bool algorithm_supports(Opcode collective, Algorithm algorithm) {
    switch (collective) {
        case Opcode::Bcast:
        case Opcode::Reduce:
        case Opcode::Scatter:
        case Opcode::Gather:
            return algorithm == Algorithm::BinomialTree;
        case Opcode::Allreduce:
        case Opcode::Barrier:
            return algorithm == Algorithm::RecursiveDoubling || algorithm == Algorithm::BinomialTree;
        case Opcode::Allgather:
            return algorithm == Algorithm::RecursiveDoubling || algorithm == Algorithm::Ring;
        case Opcode::ReduceScatter:
            return algorithm == Algorithm::RecursiveHalving;
        case Opcode::Alltoall:
            return algorithm == Algorithm::RecursiveDoubling;
        case Opcode::Send:
        case Opcode::Stream:
            return false;
    }
    return false;
}

std::uint32_t alltoall_buffer_blocks(int size) {
    const int pof2 = floor_power_of_two(size);
    return static_cast<std::uint32_t>(pof2 == size ? size : 4 * pof2);
}

int floor_power_of_two(int n) {
    int power = 1;
    while (power * 2 <= n) power *= 2;
    return power;
}

Schedule make_schedule(Opcode collective, Algorithm algorithm, int size, int rank, int root, Fold fold) {
    if (size < 1 || size > 65536)
        throw std::invalid_argument("schedule: communicator size " + std::to_string(size) + " outside 1..65536");
    if (rank < 0 || rank >= size)
        throw std::invalid_argument("schedule: rank " + std::to_string(rank) + " outside 0.." +
                                    std::to_string(size - 1));
    if (root < 0 || root >= size)
        throw std::invalid_argument("schedule: root " + std::to_string(root) + " outside 0.." +
                                    std::to_string(size - 1));
    if (!algorithm_supports(collective, algorithm))
        throw std::invalid_argument("schedule: " + std::string(to_string(algorithm)) + " does not implement " +
                                    std::string(to_string(collective)));
    if (fold == Fold::Hypercube) {
        if (algorithm == Algorithm::Ring)
            throw std::invalid_argument(
                "schedule: ring needs the ±1 neighbours, which a communicator-table row "
                "does not hold: it runs in software (Fold::Pairwise)");
        return hypercube_schedule(collective, algorithm, size, rank, root);
    }
    Schedule s = empty_schedule(collective, size);
    switch (collective) {
        case Opcode::Bcast:
            bcast_binomial(s, size, rank, root);
            break;
        case Opcode::Reduce:
            reduce_binomial(s, size, rank, root);
            break;
        case Opcode::Allreduce:
        case Opcode::Barrier:
            if (algorithm == Algorithm::BinomialTree) {
                reduce_binomial(s, size, rank, 0);
                bcast_binomial(s, size, rank, 0);
            } else {
                allreduce_recursive_doubling(s, size, rank);
            }
            break;
        case Opcode::ReduceScatter:
            reduce_scatter_recursive_halving(s, size, rank);
            break;
        case Opcode::Allgather:
            if (algorithm == Algorithm::Ring)
                allgather_ring(s, size, rank);
            else
                allgather_recursive_doubling(s, size, rank);
            break;
        case Opcode::Alltoall:  // the same exchange on either fold
            alltoall_hypercube(s, size, rank);
            break;
        case Opcode::Scatter:
            scatter_binomial(s, size, rank, root);
            break;
        case Opcode::Gather:
            gather_binomial(s, size, rank, root);
            break;
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
    return s;
}

bool tree_supports(Opcode collective) {
    switch (collective) {
        case Opcode::Allreduce:
        case Opcode::Reduce:
        case Opcode::Bcast:
        case Opcode::Barrier:
        case Opcode::Gather:
        case Opcode::Allgather:
        case Opcode::Scatter:
        case Opcode::ReduceScatter:
            return true;
        default:
            return false;
    }
}

namespace {
bool per_rank_blocks(Opcode collective) {
    return collective == Opcode::Gather || collective == Opcode::Allgather || collective == Opcode::Scatter ||
           collective == Opcode::ReduceScatter;
}
}  // namespace

std::vector<BlockSpan> tree_subtree_ranks(const TreeRole& role) {
    std::vector<BlockSpan> all;
    for (const std::vector<BlockSpan>& runs : role.child_ranks) all.insert(all.end(), runs.begin(), runs.end());
    std::sort(all.begin(), all.end(), [](const BlockSpan& a, const BlockSpan& b) { return a.first < b.first; });
    std::vector<BlockSpan> merged;
    for (const BlockSpan& run : all) {
        if (!merged.empty() && merged.back().first + merged.back().count == run.first)
            merged.back().count += run.count;
        else
            merged.push_back(run);
    }
    return merged;
}

Schedule make_tree_schedule(Opcode collective, const TreeRole& role) {
    if (!tree_supports(collective))
        throw std::invalid_argument("tree schedule: " + std::string(to_string(collective)) +
                                    " does not run in the switches' tree");
    const bool per_rank = per_rank_blocks(collective);
    if (per_rank && role.size < 1) throw std::invalid_argument("tree schedule: a communicator of no members");
    Schedule s;
    s.blocks = per_rank ? static_cast<std::uint32_t>(role.size) : 1;
    const std::vector<BlockSpan> whole{BlockSpan{0, s.blocks}};
    if ((collective == Opcode::Bcast || collective == Opcode::Scatter) && role.root_host < 0)
        throw std::invalid_argument("tree schedule: a broadcast or scatter needs its root");
    const auto round_trip = [&](int peer, std::vector<BlockSpan> up, std::vector<BlockSpan> down) {
        // send up, take the result coming down
        Step step = send_step(peer, std::move(up));
        step.receive = Transfer{peer, std::move(down)};
        step.apply = Apply::Copy;
        return step;
    };
    if (!role.vertex) {
        if (role.parent < 0) return s;  // a group of one: the contribution is the result
        if (per_rank && (role.rank < 0 || role.rank >= role.size))
            throw std::invalid_argument("tree schedule: comm rank " + std::to_string(role.rank) + " outside " +
                                        std::to_string(role.size) + " members");
        const std::vector<BlockSpan> own{BlockSpan{static_cast<std::uint32_t>(std::max(role.rank, 0)), 1}};
        switch (collective) {
            case Opcode::Bcast:
            case Opcode::Scatter:
                // The root's data goes straight to the root vertex; everyone,
                // the root too, takes its part from its own vertex on the way down.
                if (role.self == role.root_host) s.steps.push_back(send_step(role.root_vertex, whole));
                s.steps.push_back(receive_step(role.parent, collective == Opcode::Bcast ? whole : own, Apply::Copy));
                return s;
            case Opcode::Gather:
                if (role.self == role.root_host)
                    s.steps.push_back(round_trip(role.parent, own, whole));
                else
                    s.steps.push_back(send_step(role.parent, own));
                return s;
            case Opcode::Allgather:
                s.steps.push_back(round_trip(role.parent, own, whole));
                return s;
            case Opcode::ReduceScatter:
                s.steps.push_back(round_trip(role.parent, whole, own));
                return s;
            default:
                // Allreduce, Barrier, Reduce (whose result reaches every member;
                // only the root hands it to its host).
                s.steps.push_back(round_trip(role.parent, whole, whole));
                return s;
        }
    }
    if (role.children.size() < 2) throw std::invalid_argument("tree schedule: a vertex combines two inputs or more");
    if (per_rank && role.child_ranks.size() != role.children.size())
        throw std::invalid_argument("tree schedule: a vertex needs its inputs' comm ranks for " +
                                    std::string(to_string(collective)));
    const bool root = role.parent < 0;
    const std::vector<BlockSpan> mine = per_rank ? tree_subtree_ranks(role) : whole;
    const auto input_blocks = [&](std::size_t i) { return per_rank ? role.child_ranks[i] : whole; };
    switch (collective) {
        case Opcode::Bcast:
        case Opcode::Scatter:
            s.steps.push_back(receive_step(root ? role.root_host : role.parent, mine, Apply::Copy));
            for (std::size_t i = 0; i < role.children.size(); ++i)
                s.steps.push_back(send_step(role.children[i], input_blocks(i)));  // down
            return s;
        case Opcode::Gather:
        case Opcode::Allgather: {
            // Up: each input's blocks in place (gathered in comm-rank order).
            for (std::size_t i = 0; i < role.children.size(); ++i)
                s.steps.push_back(receive_step(role.children[i], input_blocks(i), Apply::Copy));
            if (collective == Opcode::Gather) {
                if (role.root_input >= static_cast<int>(role.children.size()) || (root && role.root_input < 0))
                    throw std::invalid_argument("tree schedule: a gather's root below input " +
                                                std::to_string(role.root_input) + " of " +
                                                std::to_string(role.children.size()));
                if (role.root_input < 0) {  // not on the root's path: up only
                    s.steps.push_back(send_step(role.parent, mine));
                    return s;
                }
            }
            if (!root) s.steps.push_back(round_trip(role.parent, mine, whole));
            for (std::size_t i = 0; i < role.children.size(); ++i)  // down (Gather: toward the root only)
                if (collective == Opcode::Allgather || static_cast<int>(i) == role.root_input)
                    s.steps.push_back(send_step(role.children[i], whole));
            return s;
        }
        default:
            // Up: the inputs in combining order, whatever order they arrive in.
            for (std::size_t i = 0; i < role.children.size(); ++i)
                s.steps.push_back(receive_step(role.children[i], whole, i == 0 ? Apply::Copy : Apply::CombineRight));
            if (!root) s.steps.push_back(round_trip(role.parent, whole, mine));
            for (std::size_t i = 0; i < role.children.size(); ++i)  // down
                s.steps.push_back(
                    send_step(role.children[i], collective == Opcode::ReduceScatter ? input_blocks(i) : whole));
            return s;
    }
}

std::shared_ptr<const Schedule> ScheduleCache::get(Opcode collective, Algorithm algorithm, int size, int rank, int root,
                                                   Fold fold) {
    for (const Entry& e : entries_)
        if (e.schedule && e.collective == collective && e.algorithm == algorithm && e.size == size && e.rank == rank &&
            e.root == root && e.fold == fold)
            return e.schedule;
    auto schedule = std::make_shared<const Schedule>(make_schedule(collective, algorithm, size, rank, root, fold));
    entries_[next_] = Entry{collective, algorithm, size, rank, root, fold, schedule};
    next_ = (next_ + 1) % kEntries;
    return schedule;
}

}  // namespace isvp
