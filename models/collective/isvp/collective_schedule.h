// Collective schedules: for one rank of a communicator, the sequence of
// steps — send these blocks to that peer, receive those blocks from another,
// copy or combine them in a fixed operand order — that together implement a
// collective with a given algorithm. Plain C++17, no SystemC, no timing.
//
// The same schedules drive the in-switch collective engine (DESIGN §3.5) and
// the host-based software algorithms, and are checked here against a direct
// reference by an in-memory executor for every communicator size.
//
// Data model: the collective's buffer is a sequence of blocks. Rooted and
// all-to-all collectives that move per-rank pieces (Scatter, Gather,
// Allgather, Reduce_scatter) have one block per comm rank (block i belongs to
// rank i; block sizes may differ) — Alltoall too, block i being the one for
// rank i before and the one from rank i after; the others (Bcast, Reduce, Allreduce,
// Barrier) have a single block. A step's send reads the buffer as it was
// before the step's receive is applied.
//
// Determinism: every combine names which operand is left (result = left op
// right). Reductions are combined in comm-rank order — contiguous ranges of
// lower ranks on the left — so results do not depend on arrival order, are
// bit-identical on every rank of an Allreduce, and are correct for
// associative non-commutative operations (Reduce, Allreduce).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "isvp/packet_format.h"

namespace isvp {

/// Algorithm bits of the packet headers (2 bits).
enum class Algorithm : std::uint8_t {
    BinomialTree = 0,
    RecursiveDoubling = 1,
    RecursiveHalving = 2,
    Ring = 3,
};
std::string_view to_string(Algorithm algorithm);
std::optional<Algorithm> parse_algorithm(std::string_view name);

/// DESIGN §3.5's default in-switch algorithm for each collective.
Algorithm default_algorithm(Opcode collective);
/// Whether `algorithm` implements `collective` here.
bool algorithm_supports(Opcode collective, Algorithm algorithm);

/// A run of consecutive blocks.
struct BlockSpan {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    bool operator==(const BlockSpan& other) const { return first == other.first && count == other.count; }
};

/// What a received transfer does to the local blocks.
enum class Apply : std::uint8_t {
    Copy,          ///< overwrite the local blocks
    CombineLeft,   ///< local = received op local (the peer holds lower ranks)
    CombineRight,  ///< local = local op received (the peer holds higher ranks)
};

struct Transfer {
    int peer = -1;                 ///< comm rank
    std::vector<BlockSpan> spans;  ///< which blocks, in this order on the wire
};

struct Step {
    std::optional<Transfer> send;     ///< sent from the buffer as it was before this step
    std::optional<Transfer> receive;  ///< then received and applied
    Apply apply = Apply::Copy;        ///< how `receive` is applied
};

/// How a schedule folds a communicator whose size is not a power of two,
/// and which peers it may use.
enum class Fold : std::uint8_t {
    /// MPICH's: pairs (2i, 2i+1) of the first 2·rem ranks fold; reductions
    /// keep comm-rank order (correct for non-commutative operations). For
    /// host software.
    Pairwise,
    /// The switch's: rank r >= 2^⌊log2 P⌋ folds onto r XOR 2^⌊log2 P⌋, so every
    /// peer is comm rank XOR 2^k, comm rank 0 or the root — exactly what a
    /// communicator-table row and the request envelope provide. Operand order
    /// is still fixed (deterministic, identical on every Allreduce rank) but
    /// not rank order: for commutative operations, as the hardware's are.
    Hypercube,
};

struct Schedule {
    std::uint32_t blocks = 1;  ///< blocks in the buffer
    std::vector<Step> steps;
};

/// The schedule of `rank` in a communicator of `size` ranks for `collective`
/// rooted at `root` (ignored where there is none). Throws std::invalid_argument
/// for bad arguments or an algorithm that does not implement the collective
/// (with Fold::Hypercube, Ring: it needs the ±1 neighbours).
Schedule make_schedule(Opcode collective, Algorithm algorithm, int size, int rank, int root = 0,
                       Fold fold = Fold::Pairwise);

/// make_schedule's schedules, shared: a switch's engine asks for the same few
/// on every call (its argument agreement's, its collectives'), and each new
/// one allocates a vector per step and transfer. Keeps the last kEntries
/// argument sets asked for (the oldest is replaced); the schedules are
/// immutable and stay valid while a caller holds them. Throws as make_schedule.
class ScheduleCache {
  public:
    static constexpr std::size_t kEntries = 4;
    std::shared_ptr<const Schedule> get(Opcode collective, Algorithm algorithm, int size, int rank, int root = 0,
                                        Fold fold = Fold::Pairwise);

  private:
    struct Entry {
        Opcode collective = Opcode::Barrier;
        Algorithm algorithm = Algorithm::BinomialTree;
        int size = 0, rank = 0, root = 0;
        Fold fold = Fold::Pairwise;
        std::shared_ptr<const Schedule> schedule;  ///< null: unused
    };
    std::array<Entry, kEntries> entries_;
    std::size_t next_ = 0;  ///< entry replaced next
};

/// One participant's place in a collective's aggregation tree when the
/// switches run it (collective.placement = switch; docs/COLLECTIVES.md,
/// "Switch-resident engines"): a member host's NIC engine or the engine of a
/// switch that combines. Peers are network addresses (hosts 0..N-1, switch
/// engines above), not comm ranks.
struct TreeRole {
    bool vertex = false;        ///< a switch engine (else a member host)
    std::vector<int> children;  ///< vertex: its inputs' addresses, in combining order (ascending first member)
    /// Vertex: the vertex above (-1 at the root). Host: the vertex it sends
    /// its contribution to and takes the result from (-1: a group of one).
    int parent = -1;
    int root_vertex = -1;  ///< the tree's root vertex (-1: a group of one)
    /// Bcast: the root host's address (a host compares it with `self`; the
    /// root vertex takes the data from it). Ignored by the others.
    int root_host = -1;
    int self = -1;  ///< own address
    /// Per-rank collectives (Gather, Allgather, Scatter, Reduce_scatter: one
    /// block per comm rank): the communicator size, a host's comm rank, and
    /// a vertex's inputs' members as runs of comm ranks (ascending; one list
    /// per input, in the order of `children`).
    int size = 1;
    int rank = -1;
    std::vector<std::vector<BlockSpan>> child_ranks;
    /// Gather, a vertex: the index in `children` of the input the root is
    /// below (-1: not below this vertex). Its packets up say so (the
    /// members' Gather packets carry "root below" as their operation, 1 or 0).
    int root_input = -1;
};

/// Whether the switches' tree runs `collective`: all eight do (Reduce_scatter
/// with equal counts only: the switches do not know unequal blocks; a caller
/// with unequal counts runs it on the NIC engines' hypercube schedules).
bool tree_supports(Opcode collective);

/// The comm ranks below a vertex: its inputs' runs merged, ascending.
std::vector<BlockSpan> tree_subtree_ranks(const TreeRole& role);

/// The steps of one participant of an aggregation tree. One block:
///   * Allreduce, Barrier (zero bytes), Reduce: a vertex takes its inputs in
///     combining order (the first copied, the others combined on the right,
///     so the result does not depend on arrival order), sends the result to
///     its parent and takes the root's result back, then sends it to every
///     input; a host sends its contribution to its vertex and takes the
///     result (Reduce: every member gets it, only the root returns it to its
///     host — the way down costs what Allreduce's does);
///   * Bcast: the root host sends its data to the root vertex, which sends it
///     down; every vertex takes it from its parent and sends it to its
///     inputs; every host (the root too) takes it from its vertex.
/// One block per comm rank (`size` blocks; a vertex's "own" blocks are its
/// members', tree_subtree_ranks):
///   * Gather, Allgather: gathered on the way up — a vertex copies each
///     input's blocks, sends its own blocks to its parent and takes the whole
///     vector back, sends the whole vector to every input; a host sends its
///     block and takes the whole vector. Gather: only toward the root — a
///     vertex without the root below it sends its blocks up and is done, one
///     with it takes the whole vector back and sends it to `root_input`
///     only; only the root host takes the vector;
///   * Scatter: the root host sends every block to the root vertex; a vertex
///     takes its own blocks from its parent (the root vertex: from the root
///     host) and sends each input its members' blocks; a host takes its block;
///   * Reduce_scatter: reduced on the way up as Allreduce (the whole vector,
///     the same combining order); a vertex takes its own blocks back from its
///     parent and sends each input its members' blocks; a host takes its block.
/// Throws std::invalid_argument for a collective tree_supports refuses or an
/// inconsistent role.
Schedule make_tree_schedule(Opcode collective, const TreeRole& role);

/// Blocks of the buffer the Alltoall schedules use on `size` ranks: size on
/// a power of two; 4 x the largest power of two below otherwise (the folded
/// exchange's scratch: collective_schedule.cpp). The contribution and the
/// result are blocks 0 .. size - 1 either way.
std::uint32_t alltoall_buffer_blocks(int size);

/// The largest power of two <= n (n >= 1).
int floor_power_of_two(int n);

}  // namespace isvp
