// The collective engine's SystemC-free pieces (docs/COLLECTIVES.md): the
// request envelope codec, the communicator-table (CT) row codec, per
// collective buffer layouts (what a rank contributes, what it gets back), the
// schedule's transfer layout and the store that reassembles peers' step
// messages. Plain C++17, no timing; CollectiveEngine (collective_engine.h)
// is the sc_module around them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "isvp/collective_schedule.h"
#include "isvp/packet_format.h"
#include "isvp/register_map.h"

namespace isvp {

/// Error codes of a step-0xFF result packet (docs/COLLECTIVES.md, Results).
enum class CollectiveError : std::uint32_t {
    None = 0,
    UnknownContext = 1,   ///< no valid CT row for the context ID
    Unsupported = 2,      ///< (operation, datatype) or algorithm the switch does not run
    Mismatch = 3,         ///< arguments that disagree (contribution size, peers' packets)
    SizeOutsideRow = 4,   ///< communicator size/root/rank inconsistent with the row
};
inline constexpr std::uint8_t kErrorStep = 0xFF;  ///< step field of an error result

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

/// Reassembles peers' step messages per (context, sender comm rank), in
/// arrival order: a sender's step messages to this rank arrive in the order
/// it sends them (deterministic routing keeps one source-destination pair in
/// order), which is the order this rank's schedule receives them — also
/// across successive collectives on one context, since the network header
/// carries no sequence number. Buffers are recycled; no allocation once warm.
class MessageStore {
  public:
    struct Message {
        std::uint8_t step = 0;          ///< the sender's step field
        Opcode opcode = Opcode::Send;   ///< collective the sender runs
        std::uint8_t operation = 0;     ///< its operation, datatype, algorithm
        std::uint8_t datatype = 0;
        std::uint8_t algorithm = 0;
        std::uint32_t bytes = 0;        ///< message_bytes
        std::uint32_t received = 0;     ///< payload bytes in so far
        std::vector<std::uint8_t> data;  ///< the transfer, bytes(data) >= bytes
        bool complete() const { return received >= bytes; }
    };

    enum class AddResult { Ok, Completed, Inconsistent };
    /// Adds one packet's payload. Inconsistent: offset/length outside the
    /// message or header fields that differ from the message's first packet
    /// (the packet is dropped).
    AddResult add(const NetworkPacketView& packet);
    /// The oldest message of (context, sender) if complete; it stays owned
    /// by the store until recycle().
    Message* front_complete(std::uint8_t context, std::uint16_t sender);
    /// Drops the oldest message of (context, sender), recycling its buffer.
    void pop(std::uint8_t context, std::uint16_t sender);
    /// Payload bytes held (received, not yet popped).
    std::uint64_t stored_bytes() const { return stored_bytes_; }
    /// Messages held (complete or not).
    std::size_t messages() const;

  private:
    static std::uint32_t key(std::uint8_t context, std::uint16_t sender) {
        return static_cast<std::uint32_t>(context) << 16 | sender;
    }
    std::unordered_map<std::uint32_t, std::deque<Message>> queues_;  ///< per (context, sender), oldest first
    std::vector<std::vector<std::uint8_t>> spare_;                   ///< recycled data buffers
    std::uint64_t stored_bytes_ = 0;                                 ///< see stored_bytes()
};

}  // namespace isvp
