// What the MPI collectives (coll_*.cpp) share: buffers in a datatype's
// memory layout, the schedule executor that runs a collective over internal
// point-to-point messages, the offload decision, and the argument checks
// common to several collectives.
//
// Two data models:
//  - data movement (Bcast, Scatter, Gather, Allgather, Alltoall and their
//    v-variants) works on *packed bytes*: a rank packs what it sends with the
//    send datatype and unpacks what it receives with the receive datatype,
//    so differing but matching type signatures work and derived types cost
//    one pack and one unpack;
//  - reductions work on elements *in the datatype's memory layout* (what
//    MPI_Reduce_local and user functions expect), packed only on the wire.
//
// Plain C++17, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "isvp/collective_schedule.h"
#include "mpi_impl.h"

namespace isvp::mpi::coll {

inline bool in_place(const void* buffer) {
    return buffer == MPI_IN_PLACE;
}

/// MPI_ERR_BUFFER when `buffer` is MPI_IN_PLACE where the standard does not
/// allow it; `where` says why ("recvbuf", "sendbuf at a non-root rank").
void refuse_in_place(const void* buffer, const char* what, const char* where = nullptr);
/// MPI_ERR_BUFFER when a send and a receive buffer of a call with data are
/// the same address (the standard's aliasing rule; use MPI_IN_PLACE).
void refuse_alias(const void* send, const void* recv, bool has_data);
/// MPI_ERR_ARG when a counts or displacements array that the call reads is NULL.
void check_array(const int* array, const char* what);
/// check_count for counts[0 .. n), naming the entry ("recvcounts[3]").
void check_counts(const int* counts, int n, const char* what);

/// One side of a data-movement call: its count (MPI_ERR_COUNT), datatype
/// (MPI_ERR_TYPE) and buffer (MPI_ERR_BUFFER: NULL with data, or
/// MPI_IN_PLACE, which `in_place_rule` explains is not allowed here —
/// callers skip the check where it is). `side` "send" or "recv" names the
/// arguments (sendcount, sendtype, sendbuf). Returns the datatype.
const Type& check_side(const void* buffer, int count, MPI_Datatype datatype, const char* side,
                       const char* in_place_rule);
/// The same for a v-variant's side of `n` ranks: counts[0 .. n) and the
/// displacements array named `displs_name` (MPI_ERR_ARG when NULL).
const Type& check_v_side(const void* buffer, const int* counts, const int* displs, const char* displs_name, int n,
                         MPI_Datatype datatype, const char* side, const char* in_place_rule);

/// Byte range [low, high) relative to an element-0 pointer that `count`
/// elements of `type` touch (empty for count 0).
struct Span {
    MPI_Aint low = 0;
    MPI_Aint high = 0;
};
Span span_of(std::size_t count, const Type& type);

/// Storage for `count` elements of `type` in its memory layout: element i
/// is at data() + i * extent, as in a user buffer.
class TypedBuffer {
  public:
    TypedBuffer() = default;
    TypedBuffer(std::size_t count, const Type& type);
    // Moving keeps the vector's storage, so base_ stays valid; a copy would not.
    TypedBuffer(TypedBuffer&&) = default;
    TypedBuffer& operator=(TypedBuffer&&) = default;
    TypedBuffer(const TypedBuffer&) = delete;
    TypedBuffer& operator=(const TypedBuffer&) = delete;
    std::uint8_t* data() const { return base_; }

  private:
    std::vector<std::uint8_t> storage_;
    std::uint8_t* base_ = nullptr;  ///< element 0 (storage_ starts at its lowest byte)
};

/// Pointer to element `index` of a buffer of `type` (byte arithmetic).
inline std::uint8_t* element(void* buffer, std::size_t index, const Type& type) {
    return static_cast<std::uint8_t*>(buffer) + static_cast<MPI_Aint>(index) * type.extent;
}
inline const std::uint8_t* element(const void* buffer, std::size_t index, const Type& type) {
    return static_cast<const std::uint8_t*>(buffer) + static_cast<MPI_Aint>(index) * type.extent;
}

/// Copies the data of `count` elements from one buffer of `type` to another
/// (gaps untouched).
void copy_elements(const void* from, void* to, std::size_t count, const Type& type);
/// Packs `count` elements at `buffer` into `out` (count * type.size bytes).
void pack_into(const void* buffer, std::size_t count, const Type& type, std::uint8_t* out);
/// Unpacks count * type.size bytes at `in` into `count` elements at `buffer`.
void unpack_from(const std::uint8_t* in, std::size_t count, const Type& type, void* buffer);

/// A reduction's op and datatype, and how one combine step is done.
struct Reduction {
    const Op* op = nullptr;
    const Type* type = nullptr;
    /// Fold for make_schedule: Hypercube (the switch's operand order) for
    /// predefined ops, Pairwise (comm-rank order) for user ops.
    Fold fold() const { return op->user ? Fold::Pairwise : Fold::Hypercube; }
    /// local = received op local (left) or local op received (right), for
    /// `count` elements in `type`'s layout; `received` may be overwritten.
    void combine(std::uint8_t* received, std::uint8_t* local, std::size_t count, bool received_left) const;
};

/// A collective's working buffer split into blocks: block b is elements
/// [first[b], first[b+1]) of `base`. With `type` null the elements are bytes
/// (packed data); otherwise elements of `type` in its memory layout.
struct Blocks {
    std::uint8_t* base = nullptr;
    const Type* type = nullptr;
    std::vector<std::size_t> first;  ///< blocks + 1 boundaries, in elements
};

/// Equal blocks: `blocks` blocks of `per_block` elements.
std::vector<std::size_t> equal_blocks(std::size_t blocks, std::size_t per_block);
/// Element boundaries from per-block counts.
std::vector<std::size_t> boundaries(const int* counts, int n, std::size_t scale = 1);
/// `count` elements split as evenly as possible into `blocks` blocks.
std::vector<std::size_t> split_evenly(std::size_t count, std::size_t blocks);

/// Bytes of the blocks `spans` name (what one schedule transfer carries).
std::size_t spans_bytes(const Blocks& blocks, const std::vector<BlockSpan>& spans);
/// The blocks `spans` name, packed in span order (a schedule step's send).
std::vector<std::uint8_t> pack_spans(const Blocks& blocks, const std::vector<BlockSpan>& spans);
/// Applies received packed data (spans_bytes long) to the blocks `spans`
/// name: copies or combines (`reduction` required for combining).
void apply_spans(Blocks& blocks, const std::vector<BlockSpan>& spans, Apply apply, const std::uint8_t* data,
                 const Reduction* reduction);

/// MPICH's algorithm switch points (bytes), the same for a blocking
/// collective and its nonblocking form: Bcast binomial below
/// kBcastLongBytes, scatter + ring allgather from there with at least
/// kBcastLongMinRanks ranks; Allgather(v) recursive doubling below
/// kAllgatherLongBytes (all blocks), ring from there; Allreduce recursive
/// doubling below kAllreduceLongBytes, Rabenseifner's reduce-scatter +
/// allgather from there (with at least one element per rank).
inline constexpr std::size_t kBcastLongBytes = 12288;
inline constexpr int kBcastLongMinRanks = 8;
inline constexpr std::size_t kAllgatherLongBytes = 524288;
inline constexpr std::size_t kAllreduceLongBytes = 2048;

/// MPICH's MPI_Alltoall switch points (MPIR_Alltoall_intra_auto,
/// MPIR_Ialltoall_intra_sched_auto and their CVARs), on the bytes each rank
/// sends to each destination (the packed block), for MPI_Alltoall in
/// software and MPI_Ialltoall (coll_alltoall.cpp, coll_nonblocking_move.cpp):
/// MPI_IN_PLACE the in-place exchange (MPICH's sendrecv_replace loop) at
/// any size; otherwise
/// Bruck's algorithm up to kAlltoallShortBytes
/// (MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE) with at least kAlltoallShortMinRanks
/// ranks, the scattered exchange up to kAlltoallMediumBytes
/// (MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE) with at most kAlltoallThrottle
/// (MPIR_CVAR_ALLTOALL_THROTTLE; 0: all) sends and receives posted at a
/// time, pairwise from there.
inline constexpr std::size_t kAlltoallShortBytes = 256;
inline constexpr int kAlltoallShortMinRanks = 8;
inline constexpr std::size_t kAlltoallMediumBytes = 32768;
inline constexpr int kAlltoallThrottle = 32;

/// MPICH's all-to-all algorithms (MPIR_Alltoall_intra_* and their
/// nonblocking schedules MPIR_Ialltoall_intra_sched_*).
enum class AlltoallAlgorithm { InPlace, Bruck, Scattered, Pairwise };
/// MPICH's choice for `block` bytes per destination on `size` ranks (the
/// same on every member: the arguments are).
inline AlltoallAlgorithm choose_alltoall(bool in_place, std::size_t block, int size) {
    if (in_place) return AlltoallAlgorithm::InPlace;
    if (block <= kAlltoallShortBytes && size >= kAlltoallShortMinRanks) return AlltoallAlgorithm::Bruck;
    if (block <= kAlltoallMediumBytes) return AlltoallAlgorithm::Scattered;
    return AlltoallAlgorithm::Pairwise;
}

/// Runs this rank's `schedule` over internal messages on `tag`: sends pack
/// the blocks as they were before the step, receives copy or combine
/// (`reduction` required for combining steps). A message of the wrong
/// length (ranks disagree on counts or type signatures) is MPI_ERR_TRUNCATE.
void run_schedule(Comm& comm, std::uint32_t tag, const Schedule& schedule, Blocks& blocks,
                  const Reduction* reduction = nullptr);
/// make_schedule + run_schedule with a fresh collective_tag.
void run_collective(Comm& comm, Opcode collective, Algorithm algorithm, Fold fold, int root, Blocks& blocks,
                    const Reduction* reduction = nullptr);

/// Receives exactly `bytes` on an internal tag (MPI_ERR_TRUNCATE otherwise).
void receive_exact(Comm& comm, int source, std::uint32_t tag, void* data, std::size_t bytes);

// ---- offload decision ----------------------------------------------------

/// Whether a data-movement collective of `bytes_per_block` bytes per block
/// (blocks = comm size for the per-rank ones, else 1) goes to the switch.
/// The arguments are equal on every member, so every member decides alike.
/// `note` false: not counted by note_offload (a persistent collective's
/// _init decides; each MPI_Start counts).
bool offload_bytes(Comm& comm, Opcode collective, std::size_t bytes_per_block, bool note = true);
/// Whether an allgather with unequal blocks (`first`: the size + 1 byte
/// offsets of the blocks) goes to the switch: the blocks and their counts
/// table fit one request and the switch takes the whole. Counted by note_offload.
bool offload_unequal_allgather(Comm& comm, const std::vector<std::size_t>& first);
/// The AgLU datatype when a reduction of `count` elements goes to the
/// switch: a predefined op the AgLU supports on a type whose basic elements
/// are one AgLU datatype; nullopt runs in software. Only what every member
/// passes alike decides (the standard matches type signatures, not layouts):
/// a strided or padded layout goes through a packed copy (SwitchData).
std::optional<isvp::Datatype> offload_reduction(Comm& comm, Opcode collective, const Reduction& reduction,
                                                std::size_t count, bool note = true);
/// Elements of the AgLU datatype in `count` elements of `type`.
inline std::size_t aglu_elements(std::size_t count, const Type& type) {
    return count * type.uniform_count;
}
/// The first byte of `count` elements of `type` at `buffer` as the switch
/// reads them, packed: the buffer itself when the type is contiguous, else
/// a packed copy made now into `storage`.
const std::uint8_t* packed_view(const void* buffer, std::size_t count, const Type& type,
                                std::vector<std::uint8_t>& storage);
/// A reduction's contribution and result as the switch reads and writes
/// them, packed: the caller's buffers themselves when the datatype is
/// contiguous, else a packed copy of the input (made now) and a staging
/// area for the output, unpacked into the caller's buffer by finish().
/// `input` and `output` may be the same buffer (MPI_IN_PLACE), or
/// MPI_BOTTOM (null) with a type of absolute addresses; without
/// `with_output` (a Reduce's non-root) output() is null.
class SwitchData {
  public:
    SwitchData(const void* input, std::size_t input_count, void* output, std::size_t output_count, const Type& type,
               bool with_output = true);
    const std::uint8_t* input() const { return input_; }
    std::uint8_t* output() { return output_; }
    /// Unpacks a staged output into the caller's buffer (nothing when contiguous).
    void finish();

  private:
    const Type& type_;
    bool with_output_;              ///< output() is written
    void* destination_;             ///< the caller's output buffer
    std::size_t output_count_;      ///< its elements
    std::vector<std::uint8_t> in_;  ///< packed input (not contiguous)
    std::vector<std::uint8_t> out_;  ///< staged output (not contiguous)
    const std::uint8_t* input_ = nullptr;
    std::uint8_t* output_ = nullptr;
};
/// The first data byte of a contiguous buffer.
inline std::uint8_t* data_start(void* buffer, const Type& type) {
    return static_cast<std::uint8_t*>(buffer) + type.true_lb;
}
inline const std::uint8_t* data_start(const void* buffer, const Type& type) {
    return static_cast<const std::uint8_t*>(buffer) + type.true_lb;
}

/// Records one offload decision. With ISVP_MPI_STATS set (not "0") each rank
/// prints "isvp-mpi: rank R collectives offloaded N of M" at exit: N calls
/// went to the switch out of M decided (MPI_Barrier, Bcast, Scatter, Gather,
/// Allgather, Allgatherv, Alltoall and the reductions that may offload). Returns `offloaded`.
bool note_offload(bool offloaded);

/// The datatype of raw bytes (MPI_BYTE), for packed data.
const Type& byte_type();

// ---- argument checks of each collective (coll_checks.cpp) ---------------------
// Shared by a blocking collective and its nonblocking form; `function`
// ("MPI_Reduce", "MPI_Ireduce") names the call where a message explains a
// rule. They throw Error before anything is sent.

/// MPI_(I)bcast: count, datatype, root, buffer (no MPI_IN_PLACE). Returns the datatype.
const Type& check_bcast(const Comm& comm, const void* buffer, int count, MPI_Datatype datatype, int root,
                        const char* function);
/// A reduction's count (named `count_name`), datatype and op, and the op on the datatype.
Reduction check_reduction(int count, MPI_Datatype datatype, MPI_Op op, const char* count_name = "count");
/// MPI_(I)reduce's buffers: the root's recvbuf (not MPI_IN_PLACE, not
/// sendbuf), a non-root's sendbuf (not MPI_IN_PLACE).
void check_reduce_buffers(const Comm& comm, const void* sendbuf, const void* recvbuf, int count, const Type& type,
                          int root, const char* function);
/// The buffers of a reduction whose every rank gets a result (Allreduce,
/// Reduce_scatter_block, Scan, Exscan): recvbuf not MPI_IN_PLACE (sendbuf may
/// be), not sendbuf. `recv_significant` false: recvbuf is not checked for
/// NULL (rank 0 of Exscan).
void check_result_buffers(const void* sendbuf, const void* recvbuf, int count, const Type& type, const char* function,
                          bool recv_significant = true);
/// Bytes of `count` elements of `type` (packed).
inline std::size_t bytes_of(int count, const Type& type) {
    return static_cast<std::size_t>(count) * type.size;
}
/// MPI_ERR_TRUNCATE when a contribution of `sent` packed bytes exceeds the
/// `block` bytes every member expects.
void check_block(std::size_t sent, std::size_t block, const char* send_what, const char* recv_what);
/// check_block, and MPI_ERR_TRUNCATE too when `sent` falls short of `block`:
/// where this rank's contribution goes to every member as its whole block
/// (Allgather(v)), a short one would reach them padded with zeros.
void check_whole_block(std::size_t sent, std::size_t block, const char* send_what, const char* recv_what);

/// The checked sides of a data-movement collective. A side that is not
/// significant on this rank (or replaced by MPI_IN_PLACE) has no type.
struct MoveArguments {
    const Type* send_type = nullptr;
    const Type* recv_type = nullptr;
    bool keep = false;      ///< MPI_IN_PLACE: this rank's own block stays where it is
    std::size_t block = 0;  ///< packed bytes per rank (equal-count collectives)
};
/// MPI_(I)scatter (the root checks sendbuf; recvbuf may be MPI_IN_PLACE there).
MoveArguments check_scatter(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, const char* function);
/// MPI_(I)gather (the root checks recvbuf; its sendbuf may be MPI_IN_PLACE).
MoveArguments check_gather(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, const char* function);
/// MPI_(I)allgather (sendbuf may be MPI_IN_PLACE).
MoveArguments check_allgather(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              const void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* function);
/// MPI_(I)scatterv (block unused).
MoveArguments check_scatterv(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* displs,
                             MPI_Datatype sendtype, const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             const char* function);
/// MPI_(I)gatherv (block unused).
MoveArguments check_gatherv(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                            int root, const char* function);
/// MPI_(I)allgatherv; sets `first` to the packed byte boundaries of the ranks' blocks.
MoveArguments check_allgatherv(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               const void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                               const char* function, std::vector<std::size_t>& first);
/// MPI_(I)alltoall.
MoveArguments check_alltoall(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             const void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* function);
/// MPI_(I)alltoallv (block unused).
MoveArguments check_alltoallv(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* sdispls,
                              MPI_Datatype sendtype, const void* recvbuf, const int* recvcounts, const int* rdispls,
                              MPI_Datatype recvtype, const char* function);

/// The checked sides of MPI_(I)alltoallw: one datatype per peer (none on
/// the send side with MPI_IN_PLACE).
struct AlltoallwArguments {
    std::vector<const Type*> send_types;
    std::vector<const Type*> recv_types;
    bool keep = false;  ///< MPI_IN_PLACE: the data is taken from recvbuf
};
/// MPI_(I)alltoallw: counts, byte displacements, a datatype per peer, buffers.
AlltoallwArguments check_alltoallw(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* sdispls,
                                   const MPI_Datatype* sendtypes, const void* recvbuf, const int* recvcounts,
                                   const int* rdispls, const MPI_Datatype* recvtypes, const char* function);

/// MPI_(I)reduce_scatter: recvcounts, datatype, op and buffers; returns the
/// reduction and sets `first` to the block boundaries (elements).
Reduction check_reduce_scatter(const Comm& comm, const void* sendbuf, const void* recvbuf, const int* recvcounts,
                               MPI_Datatype datatype, MPI_Op op, const char* function, std::vector<std::size_t>& first);

}  // namespace isvp::mpi::coll
