// The collective engine's SystemC-free pieces (docs/COLLECTIVES.md): the
// request envelope codec, the communicator-table (CT) row codec, per
// collective buffer layouts (what a rank contributes, what it gets back), the
// schedule's transfer streams mapped onto the buffer, the argument agreement
// record and the store that holds peers' step packets. Plain C++17, no timing; CollectiveEngine (collective_engine.h)
// is the sc_module around them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "isvp/collective_schedule.h"
#include "isvp/packet_format.h"
#include "isvp/peer_table.h"
#include "isvp/register_map.h"
#include "isvp/ring_queue.h"

namespace isvp {

/// Error codes of a step-0xFF result packet (docs/COLLECTIVES.md, Results).
enum class CollectiveError : std::uint32_t {
    None = 0,
    UnknownContext = 1,  ///< no valid CT row for the context ID
    Unsupported = 2,     ///< (operation, datatype) or algorithm the switch does not run
    Mismatch = 3,        ///< arguments that disagree (contribution size, peers' packets)
    SizeOutsideRow = 4,  ///< communicator size/root/rank inconsistent with the row
    Aborted = 5,         ///< a member's CT row was released while the collective ran or was queued
    /// Packets between two members' nodes were lost for good (the reliable
    /// layer gave up): the detail word is source node << 16 | destination
    /// node, or 0 when this member learnt of it from another's agreement record.
    LinkFault = 6,
    /// collective.mode = sharp: an aggregation node failed, or one ended
    /// the operation because a member's packets did not come within
    /// collective.sharp_timeout_us; the detail word is switch index << 16 |
    /// SharpFailure (isvp/sharp_resources.h).
    Sharp = 7,
};
inline constexpr std::uint8_t kErrorStep = 0xFF;   ///< step field of an error result (to the host)
inline constexpr std::uint8_t kAgreeStep = 0xFE;   ///< step field of an argument-agreement packet
inline constexpr std::uint8_t kCreditStep = 0xFD;  ///< step field of a window-credit return
/// Step field of an abort notice: the sender's collective of that sequence
/// was aborted. Payload u32 [14:0] sequence, [23:16] cause (0 or 5: a RELEASE
/// of its CT row; 6: a link fault), and with cause 6 four more u32: the lost
/// packets' source node << 16 | destination node, then FaultedLink (from,
/// to, lost).
inline constexpr std::uint8_t kAbortStep = 0xFC;
inline constexpr std::uint32_t kAbortCauseShift = 16;
inline constexpr std::uint32_t kAbortNoticeBytes = 4;           ///< cause 5
inline constexpr std::uint32_t kLinkFaultAbortNoticeBytes = 20;  ///< causes 6 and 7: detail word, then the faulted link
/// Step packets carry step index + 1; 0xFA and 0xFB are the switch trees'
/// configuration packets (packet_format.h), 0xFC.. above.
inline constexpr std::size_t kMaxScheduleSteps = 0xF9;
/// Bytes of an error result's payload: u32 code, u32 mismatch mask.
inline constexpr std::uint32_t kErrorResultBytes = 8;
/// Error 6's result: u32 code, u32 source node << 16 | destination node, then FaultedLink (from, to, lost).
inline constexpr std::uint32_t kLinkFaultErrorResultBytes = 20;

/// The cable and the count a link fault names (error 6), beside its node
/// pair: the words LINK_FAULT_FROM and LINK_FAULT_TO of the register map
/// (switch and port at each end; NAMED 0: no link reported the drops, or
/// not known here) and the packets lost.
struct FaultedLink {
    std::uint32_t from = 0;  ///< regmap::link_fault_link word: where the lost packets left
    std::uint32_t to = 0;    ///< where they should have entered
    std::uint32_t lost = 0;  ///< packets lost (0: not known here)
};

/// Little-endian u32 fields of the collective packets' payloads.
void store_le32(std::uint8_t* out, std::uint32_t value);
std::uint32_t load_le32(const std::uint8_t* in);

/// The 16-byte request envelope in front of a rank's contribution.
struct CollectiveEnvelope {
    std::uint32_t elements_per_block = 0;  ///< Bcast/Reduce/Allreduce: the count; Barrier: 0
    std::uint16_t size = 0;                ///< communicator size
    std::uint16_t root = 0;                ///< root comm rank
    std::uint16_t global_rank0 = 0;        ///< global rank of comm rank 0
    std::uint16_t global_root = 0;         ///< global rank of the root
    std::uint32_t sequence = 0;            ///< per communicator, counts from 0

    static constexpr std::size_t kBytes = 16;
    void write(std::uint8_t* out) const;  ///< little-endian
    static CollectiveEnvelope read(const std::uint8_t* in);
    bool operator==(const CollectiveEnvelope& other) const;
};

/// One CT row (register_map.h layout, 296 bits). Entry k: the global rank of
/// comm rank (own XOR 2^k) and its tag.
struct CtRow {
    enum Tag : std::uint8_t { Absent = 0, Higher = 1, Lower = 2, Reserved = 3 };
    std::array<std::uint16_t, regmap::kCtEntries> global{};  ///< peer global ranks
    std::array<std::uint8_t, regmap::kCtEntries> tag{};      ///< Tag per entry
    bool valid = false;                                      ///< bit 0 (LOAD sets it)

    using Dwords = std::array<std::uint32_t, regmap::kCtStagingDwords>;
    Dwords encode() const;
    static CtRow decode(const Dwords& dwords);

    /// Own comm rank from the tags (bit k set when peer k is lower); nullopt
    /// if a tag is reserved.
    std::optional<int> own_rank() const;
    /// Whether the tags are exactly those of comm rank `rank` in a
    /// communicator of `size`: entry k present iff rank XOR 2^k < size.
    bool consistent_with(int size, int rank) const;
    /// Global rank of comm rank `peer` if it is a hypercube neighbour held
    /// here (peer = own XOR 2^k with a present entry k).
    std::optional<std::uint16_t> neighbour(int own, int peer) const;
};

/// The row of comm rank `rank` in a communicator whose comm rank i is global
/// rank global_of[i] (the guest's computation, for tests and drivers).
CtRow make_ct_row(int rank, const std::vector<std::uint16_t>& global_of);

/// Bytes of one block: elements_per_block x element size (Barrier: 0).
std::uint64_t block_bytes(Opcode collective, std::uint32_t elements_per_block, Datatype type);
/// Whether the collective combines data (needs a supported (op, dtype)).
bool is_reduction(Opcode collective);
/// The blocks `rank` contributes with its request, as (first, count) of the
/// schedule's buffer; count 0 = nothing. Bcast non-roots may also send nothing.
BlockSpan contribution_span(Opcode collective, int size, int rank, int root);
/// The blocks `rank` gets back as its result; count 0 = a 0-byte result.
BlockSpan result_span(Opcode collective, int size, int rank, int root);
/// Bytes a transfer moves: its spans' blocks, concatenated.
std::uint64_t transfer_bytes(const std::vector<BlockSpan>& spans, std::uint64_t block_bytes);

/// Copies a transfer's spans out of `buffer` into the contiguous `stream`
/// (gather) or back (scatter).
void gather_spans(const std::uint8_t* buffer, const std::vector<BlockSpan>& spans, std::uint64_t block_bytes,
                  std::uint8_t* stream);
void scatter_spans(const std::uint8_t* stream, const std::vector<BlockSpan>& spans, std::uint64_t block_bytes,
                   std::uint8_t* buffer);

/// Byte layout of a collective's buffer: where each block starts. Blocks are
/// equal (block_bytes each) except for Reduce_scatter with unequal counts.
class BlockLayout {
  public:
    BlockLayout() = default;
    static BlockLayout uniform(std::uint32_t blocks, std::uint64_t block_bytes);
    /// One block per entry of `block_bytes`, in order.
    static BlockLayout variable(const std::vector<std::uint64_t>& block_bytes);
    std::uint32_t blocks() const { return blocks_; }
    std::uint64_t offset(std::uint32_t block) const {
        return offsets_.empty() ? block * uniform_ : offsets_[block];
    }
    std::uint64_t size(std::uint32_t block) const { return offset(block + 1) - offset(block); }
    std::uint64_t total() const { return offset(blocks_); }
    /// Bytes of a run of blocks.
    std::uint64_t bytes(const BlockSpan& span) const { return offset(span.first + span.count) - offset(span.first); }

  private:
    std::uint32_t blocks_ = 0;
    std::uint64_t uniform_ = 0;             ///< bytes per block when offsets_ is empty
    std::vector<std::uint64_t> offsets_;    ///< blocks + 1 prefix sums (variable layouts)
};

/// A transfer's byte stream (its spans' blocks concatenated, in order)
/// mapped onto the collective's buffer, so the engine can stream any part
/// of it and ask which buffer bytes a part of the stream covers.
class StreamMap {
  public:
    struct Piece {
        std::uint64_t stream = 0;  ///< first stream byte
        std::uint64_t buffer = 0;  ///< where it lives in the buffer
        std::uint64_t length = 0;
    };
    StreamMap() = default;
    StreamMap(const std::vector<BlockSpan>& spans, const BlockLayout& layout);
    /// A stream that is one contiguous buffer range.
    StreamMap(std::uint64_t buffer, std::uint64_t length);

    std::uint64_t bytes() const { return bytes_; }
    /// The pieces in stream order: a view into the map.
    struct Pieces {
        const Piece* first = nullptr;
        std::size_t count = 0;
        const Piece* begin() const { return first; }
        const Piece* end() const { return first + count; }
        std::size_t size() const { return count; }
        const Piece& operator[](std::size_t i) const { return first[i]; }
    };
    Pieces pieces() const { return {count_ > 1 ? pieces_.data() : &single_, count_}; }
    /// Calls f(buffer offset, length, stream offset) for each buffer range
    /// of stream bytes [from, to), in stream order.
    template <typename F>
    void for_each(std::uint64_t from, std::uint64_t to, F&& f) const {
        for (const Piece& p : pieces()) {
            const std::uint64_t lo = std::max(from, p.stream), hi = std::min(to, p.stream + p.length);
            if (lo < hi) f(p.buffer + (lo - p.stream), hi - lo, lo);
        }
    }
    /// Whether a stream byte at or after `from` lies in buffer bytes [lo, hi).
    bool pending_in(std::uint64_t from, std::uint64_t lo, std::uint64_t hi) const {
        return pending_end(from, lo, hi) != 0;
    }
    /// One past the last stream byte at or after `from` that lies in buffer
    /// bytes [lo, hi); 0 if there is none (the stream must reach it before
    /// those buffer bytes are free of it).
    std::uint64_t pending_end(std::uint64_t from, std::uint64_t lo, std::uint64_t hi) const {
        if (from >= bytes_ || lo >= hi) return 0;
        if (count_ != 1) return pending_end_pieces(from, lo, hi);
        const Piece& p = single_;  // one buffer range: the common case, asked per chunk
        if (p.buffer + p.length <= lo || p.buffer >= hi) return 0;
        const std::uint64_t end = p.stream + (std::min(hi, p.buffer + p.length) - p.buffer);
        return end > from ? end : 0;
    }
    /// Copies stream bytes [from, to) out of `buffer` into `out` / back.
    void gather(const std::uint8_t* buffer, std::uint64_t from, std::uint64_t to, std::uint8_t* out) const;
    void scatter(const std::uint8_t* in, std::uint64_t from, std::uint64_t to, std::uint8_t* buffer) const;

  private:
    std::uint64_t pending_end_pieces(std::uint64_t from, std::uint64_t lo, std::uint64_t hi) const;
    /// Appends a piece (stream order).
    void add(const Piece& piece);
    // Most streams are one buffer range: it is held inline, and the vectors
    // (allocated) only hold streams of several pieces.
    Piece single_;               ///< the piece when there is exactly one
    std::uint32_t count_ = 0;    ///< pieces
    std::vector<Piece> pieces_;  ///< every piece when there are several, stream order; disjoint in the buffer
    std::vector<std::uint32_t> by_buffer_;  ///< with several pieces: their indices sorted by buffer offset
    std::uint64_t bytes_ = 0;
};

/// What every member of a collective must agree on, as the argument
/// agreement exchanges it (docs/COLLECTIVES.md, Mismatched arguments). The
/// opcode, operation, datatype and algorithm travel in the packet headers;
/// the rest is the 16-byte payload of an agreement packet.
struct CollectiveArguments {
    Opcode opcode = Opcode::Barrier;
    std::uint8_t operation = 0, datatype = 0, algorithm = 0;
    std::uint32_t count = 0;     ///< elements per block (unequal counts: a digest of the table)
    std::uint16_t size = 0;      ///< communicator size
    std::uint16_t root = 0;      ///< root comm rank (0 where there is none)
    std::uint32_t sequence = 0;  ///< per communicator
    std::uint32_t errors = 0;    ///< Mismatch bits seen so far by the sender

    static constexpr std::size_t kBytes = 16;
    void write(std::uint8_t* out) const;  ///< the payload part, little-endian
    /// Payload `in` with the header fields of the packet that carried it.
    static CollectiveArguments read(const std::uint8_t* in, Opcode opcode, std::uint8_t operation,
                                    std::uint8_t datatype, std::uint8_t algorithm);
};

/// Bits of an error result's mismatch mask: which arguments disagreed
/// across the members, or which local error a member had.
namespace mismatch {
inline constexpr std::uint32_t kCount = 1u << 0;
inline constexpr std::uint32_t kRoot = 1u << 1;
inline constexpr std::uint32_t kOperation = 1u << 2;
inline constexpr std::uint32_t kDatatype = 1u << 3;
inline constexpr std::uint32_t kCollective = 1u << 4;
inline constexpr std::uint32_t kAlgorithm = 1u << 5;
inline constexpr std::uint32_t kSize = 1u << 6;
inline constexpr std::uint32_t kSequence = 1u << 7;
inline constexpr std::uint32_t kUnsupported = 1u << 8;   ///< a member's switch cannot run it (error 2 there)
inline constexpr std::uint32_t kContribution = 1u << 9;  ///< a member's contribution size disagreed with its arguments
inline constexpr std::uint32_t kRow = 1u << 10;          ///< a member's arguments exceed its CT row or buffer (error 4 there)
inline constexpr std::uint32_t kData = 1u << 11;         ///< a step packet disagreed with the schedule
inline constexpr std::uint32_t kReleased = 1u << 12;     ///< a member's CT row was released: aborted (error 5)
inline constexpr std::uint32_t kLinkFault = 1u << 13;    ///< packets between members were lost: aborted (error 6)
inline constexpr std::uint32_t kSharp = 1u << 14;        ///< a SHArP aggregation node failed or timed out (error 7)
}  // namespace mismatch
/// Bits for the fields in which `theirs` differs from `mine`.
std::uint32_t mismatch_fields(const CollectiveArguments& mine, const CollectiveArguments& theirs);
/// "count, root" — the names of the bits set in `mask`.
std::string describe_mismatch(std::uint32_t mask);

/// Reduce_scatter with unequal counts: a request whose envelope has
/// elements_per_block == kVariableCounts carries `size` u32 counts (one
/// per block) between the envelope and the contribution.
inline constexpr std::uint32_t kVariableCounts = 0xFFFFFFFFu;
/// The digest of a counts table that the agreement compares (FNV-1a).
std::uint32_t counts_digest(const std::vector<std::uint32_t>& counts);

/// Step packets (switch to switch) carry the collective's sequence number
/// mod 2^15 in the replicated processor header's context, operation,
/// datatype and algorithm fields (the network header repeats those).
inline constexpr std::uint32_t kStepSequenceMask = 0x7FFF;
void set_step_sequence(ProcessorHeader& header, std::uint32_t sequence);
std::uint16_t step_sequence(const ProcessorHeader& header);
/// Compares two 15-bit sequence numbers: < 0 when `a` is older than `b`.
int compare_sequence(std::uint16_t a, std::uint16_t b);

/// One step packet held until the step that consumes it runs.
struct HeldPacket {
    std::uint8_t step = 0;  ///< the sender's step field
    Opcode opcode = Opcode::Send;
    std::uint8_t operation = 0, datatype = 0, algorithm = 0;
    std::uint16_t sequence = 0;       ///< 15 bits
    std::uint32_t message_bytes = 0;  ///< the step transfer's bytes
    std::uint32_t offset = 0;         ///< of this packet in the transfer
    const std::uint8_t* payload = nullptr;  ///< its payload bytes, in the packet's own memory (not copied)
    std::uint32_t payload_bytes = 0;
    void* owner = nullptr;  ///< the caller's handle on that memory, kept until the packet is popped
};

/// The FIFO of one (context, sender): a ring that keeps its storage, so
/// holding and popping packets does not allocate once it has grown.
using HeldChannel = RingQueue<HeldPacket>;

/// Step packets per (context, sender comm rank) in arrival order — which is
/// the sender's order (deterministic routing keeps one source-destination
/// pair in order) and the order this rank's schedule consumes them in.
/// Payloads are not copied: the caller keeps the packet's memory (`owner`,
/// e.g. a reference it holds) until pop() hands the owner back.
class ChannelStore {
  public:
    /// Holds one packet (`view` is a step packet; its bytes stay where they are).
    void push(const NetworkPacketView& view, void* owner = nullptr);
    /// The oldest packet of (context, sender), or null.
    HeldPacket* front(std::uint8_t context, std::uint16_t sender) {
        HeldChannel* fifo = channels_[context].find(sender);
        return fifo == nullptr || fifo->empty() ? nullptr : &fifo->front();
    }
    /// Removes the oldest packet of (context, sender); returns its owner (null if none).
    void* pop(std::uint8_t context, std::uint16_t sender);
    /// Packets held for `context` (all senders).
    std::size_t held(std::uint8_t context) const { return held_[context]; }
    /// Packets held for all contexts.
    std::size_t total() const { return total_; }
    /// The FIFO of (context, sender); the reference stays valid (it is
    /// created empty if needed, and never erased).
    HeldChannel& channel(std::uint8_t context, std::uint16_t sender) { return channels_[context].get(sender); }
    /// Senders with packets held for `context`, ascending.
    std::vector<std::uint16_t> senders(std::uint8_t context) const;

  private:
    std::array<PeerTable<HeldChannel>, regmap::kContextCount> channels_;  ///< per context, by sender
    std::array<std::size_t, regmap::kContextCount> held_{};
    std::size_t total_ = 0;
};

/// An endpoint of a collective's packets in messages, when only the number
/// of hosts is known (the guest driver reads NODE_COUNT): "node 5", or
/// "switch 9" for the engine of switch 9 at address hosts + 9
/// (collective.placement = switch; the platform's messages add the
/// topology's name: NetworkTopology::endpoint_label).
std::string endpoint_label(unsigned address, unsigned hosts);

}  // namespace isvp
