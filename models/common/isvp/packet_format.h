// Packet formats: the one definition shared by models, RTL wrappers and the
// guest driver (DESIGN §3.5).
//
// Processor packet (host <-> switch, through QDMA): an 8-byte ProcessorHeader
// followed by the message payload. On the way in (H2C) its rank field is the
// destination (point-to-point) or root (collectives); on the way out (C2H) the
// switch has replaced it with the source rank, as a NIC's receive completion
// names the sender.
//
// Network packet (switch <-> switch): the ingress packet converter cuts a
// processor packet into network packets of at most 16 << size_code payload
// bytes, each laid out as
//
//   [0, 6)    NetworkHeader        size code, opcode, destination node, ...
//   [6, 14)   ProcessorHeader      replicated; rank = source rank
//   [14, 18)  payload byte offset  of this packet within the message (LE,
//             bits [28:0]); bits [31:29]: a switch tree's generation on
//             data and abort notices (kTreeGenerationShift; else 0)
//   [18, ...) payload              full packets except possibly the last
//
// so long messages stream packet by packet and never block other traffic.
// All multi-byte fields are little-endian. Bit layouts below are normative.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isvp/reduction_types.h"

namespace isvp {

/// Collective opcode (4 bits) in both headers.
enum class Opcode : std::uint8_t {
    Send = 0,  ///< point-to-point message
    Bcast = 1,
    Reduce = 2,
    Allreduce = 3,
    Scatter = 4,
    Gather = 5,
    Allgather = 6,
    ReduceScatter = 7,
    Barrier = 8,
    /// SMI streaming message between on-FPGA kernels (models/kernel,
    /// docs/SMI.md): data, credits or an abort of one channel. Kernels send
    /// it; the host cannot (the QDMA refuses it), the collective engine
    /// passes it between the router and the node's kernel unit.
    Stream = 9,
    /// Personalised all-to-all exchange (block j of rank i ends as block i
    /// of rank j). The collective engine runs it as the chained stage of a
    /// fully fused CGRA program (CGRA_ARM_THEN = 10; docs/FUSED.md) on
    /// power-of-two communicators: a dimension-ordered hypercube exchange.
    Alltoall = 10,
};
inline constexpr unsigned kOpcodeCount = 11;
std::string_view to_string(Opcode opcode);
std::optional<Opcode> opcode_from_code(unsigned code);

/// A collective result whose processor header carries this datatype is an
/// error: its 4-byte payload is the error code (docs/COLLECTIVES.md). The
/// completion entry the driver sees holds the processor header but not the
/// network header's step, so the mark must be in the processor header.
inline constexpr std::uint8_t kErrorResultDatatype = 0xF;

/// A Send whose processor header carries this datatype is length only
/// (timing only, job.timing_only): its first kLengthOnlyReadBytes bytes (the
/// driver's envelope) are meaningful, the rest is not carried, and the
/// device need not write it into host memory.
inline constexpr std::uint8_t kLengthOnlyDatatype = 0xF;
inline constexpr std::uint32_t kLengthOnlyReadBytes = 16;
/// Of a length-only message's bytes from `offset` on, how many are carried
/// (those of the envelope): what the QDMA reads and writes of them.
constexpr std::uint32_t length_only_carried_bytes(std::uint32_t offset) {
    return offset < kLengthOnlyReadBytes ? kLengthOnlyReadBytes - offset : 0;
}

/// Largest message one processor packet can carry: the 29-bit size field.
inline constexpr std::uint32_t kMaxMessageBytes = (1u << 29) - 1;

/// The 8-byte processor packet header.
///   [28:0]  message size in bytes      [33:29] context ID (32 communicators)
///   [37:34] operation                  [41:38] opcode
///   [43:42] algorithm bits             [47:44] datatype
///   [63:48] rank: destination/root on H2C, source on C2H
struct ProcessorHeader {
    std::uint32_t message_bytes = 0;  ///< payload bytes that follow, < 2^29
    std::uint8_t context_id = 0;      ///< communicator, < 32
    std::uint8_t operation = 0;       ///< Operation code, reductions only
    Opcode opcode = Opcode::Send;
    std::uint8_t algorithm = 0;   ///< 2 bits: which in-switch algorithm
    std::uint8_t datatype = 0;    ///< Datatype code, reductions only
    std::uint16_t rank = 0;       ///< see above

    static constexpr std::size_t kBytes = 8;
    std::uint64_t encode() const;
    /// Decodes; nullopt if the opcode is reserved.
    static std::optional<ProcessorHeader> decode(std::uint64_t bits);
    void write(std::uint8_t* out) const;
    static std::optional<ProcessorHeader> read(const std::uint8_t* in);
    bool operator==(const ProcessorHeader& other) const;
};

/// The 6-byte network packet header.
///   [3:0]   size code: payload capacity 16 << code bytes
///   [7:4]   opcode                     [23:8]  destination node address
///   [28:24] context ID                 [32:29] operation
///   [34:33] algorithm bits             [35]    last packet of the message
///   [39:36] datatype                   [47:40] step: the collective
///   schedule step this packet belongs to (docs/COLLECTIVES.md); zero for send
struct NetworkHeader {
    std::uint8_t size_code = 0;
    Opcode opcode = Opcode::Send;
    std::uint16_t destination = 0;  ///< node address (see Topology), not a rank
    std::uint8_t context_id = 0;
    std::uint8_t operation = 0;
    std::uint8_t algorithm = 0;
    bool last = false;
    std::uint8_t datatype = 0;
    std::uint8_t step = 0;  ///< collective schedule step; 0 for send

    static constexpr std::size_t kBytes = 6;
    std::uint64_t encode() const;  ///< the low 48 bits
    static std::optional<NetworkHeader> decode(std::uint64_t bits);
    void write(std::uint8_t* out) const;
    static std::optional<NetworkHeader> read(const std::uint8_t* in);
    std::uint32_t payload_capacity() const { return 16u << size_code; }
};

/// Bytes per phit: the router's datapath width (DESIGN §3.5, 256 bits);
/// buffers and credits count in phits.
inline constexpr std::uint32_t kPhitBytes = 32;
constexpr std::uint32_t phits_of(std::uint32_t bytes) { return (bytes + kPhitBytes - 1) / kPhitBytes; }

/// Bytes in front of a network packet's payload.
inline constexpr std::size_t kNetworkPacketOverhead = NetworkHeader::kBytes + ProcessorHeader::kBytes + 4;

/// Trains (network.flow_train_packets, flow model only): a train is as
/// long as leaves `bytes` (a message, a collective's block) this many of
/// them, so each pipeline stage's train is a small part of the transfer.
inline constexpr std::uint64_t kTrainsPerTransfer = 256;
/// Payload per packet for a transfer of `bytes` when a packet may carry up
/// to `largest` bytes as a train of hardware packets of `hardware` bytes:
/// `hardware` times the largest power of two that leaves kTrainsPerTransfer
/// trains, `largest` without trains (`hardware` 0). The NIC engine and the
/// QDMA cut alike (CollectiveEngine::chunk_bytes_for, MessageSegmenter).
constexpr std::uint32_t train_payload_for(std::uint64_t bytes, std::uint32_t hardware, std::uint32_t largest) {
    if (hardware == 0 || hardware >= largest) return largest;
    std::uint32_t payload = hardware;
    while (payload * 2 <= largest && bytes >= std::uint64_t{payload} * 2 * kTrainsPerTransfer) payload *= 2;
    return payload;
}

/// Smallest size code whose capacity holds `bytes` (0..15); used to encode
/// the configured network packet size.
std::optional<std::uint8_t> size_code_for(std::uint32_t bytes);

/// The offset word's top bits (a message is shorter than 2^29 bytes, so an
/// offset needs 29): on data packets and abort notices of a switch engine's
/// tree (collective.placement = switch), the low bits of the tree's generation
/// (TreeConfig::generation), so a vertex tells a new communicator's packets
/// from an older one's on the same (context, slot).
inline constexpr unsigned kTreeGenerationShift = 29;
inline constexpr std::uint32_t kPayloadOffsetMask = (1u << kTreeGenerationShift) - 1;
/// The offset word of a tree data packet: `offset` and `generation`'s low 3 bits.
constexpr std::uint32_t tree_offset_word(std::uint32_t offset, std::uint8_t generation) {
    return (offset & kPayloadOffsetMask) | static_cast<std::uint32_t>(generation) << kTreeGenerationShift;
}

/// A decoded view of one network packet held in a byte buffer.
struct NetworkPacketView {
    NetworkHeader network;
    ProcessorHeader processor;
    std::uint32_t offset = 0;          ///< payload's byte offset in the message (bits [28:0] of its word)
    std::uint8_t generation = 0;       ///< bits [31:29] of that word: a tree data packet's generation (low bits)
    const std::uint8_t* payload = nullptr;
    std::uint32_t payload_bytes = 0;

    /// Parses `bytes`; nullopt (with `error` set) if malformed: short buffer,
    /// reserved opcode, payload longer than the capacity or past the message.
    static std::optional<NetworkPacketView> parse(const std::uint8_t* bytes, std::size_t length, std::string* error);
};

/// Writes one network packet into `out` (room for kNetworkPacketOverhead +
/// payload_bytes); returns the bytes written.
std::size_t write_network_packet(const NetworkHeader& network, const ProcessorHeader& processor, std::uint32_t offset,
                                 const std::uint8_t* payload, std::uint32_t payload_bytes, std::uint8_t* out);

}  // namespace isvp
// --- Switch-resident collective engines (collective.placement = switch) ---
// docs/COLLECTIVES.md, "Switch-resident engines". Network packets with a
// collective opcode whose step field is one of these configure the
// aggregation trees; payloads little-endian.

/// Step field of a tree join: a member's NIC engine tells the planner (one
/// switch engine) that it takes part in the communicator of this context.
inline constexpr std::uint8_t kTreeJoinStep = 0xFA;
/// Step field of a tree configuration: the planner tells a participant
/// (a member's NIC engine or a switch engine) its place in the tree.
inline constexpr std::uint8_t kTreeConfigStep = 0xFB;

/// The operation field of a tree join's network header: 0 joins; this one
/// leaves (collective.mode = sharp: the member's communicator was freed; the
/// planner gives the group's resources back when every member left).
inline constexpr std::uint8_t kTreeLeaveOperation = 1;
/// The datatype field of a tree join's (and leave's) network header: the
/// member's join number on the context, mod 16 (a leave repeats its join's).
/// A join or leave its NIC sent again after the reliable layer gave it up,
/// though it had arrived, is known by it and ignored at the planner.
inline constexpr std::uint8_t kTreeJoinNumbers = 16;

/// Payload of a tree join (8 bytes): the member's communicator and itself.
struct TreeJoin {
    std::uint16_t size = 0;          ///< communicator size
    std::uint16_t comm_rank = 0;     ///< the member's comm rank
    std::uint16_t host = 0;          ///< its network address
    std::uint16_t global_rank0 = 0;  ///< global rank of comm rank 0: names the group among those sharing the context

    static constexpr std::size_t kBytes = 8;
    void write(std::uint8_t* out) const;
    static TreeJoin read(const std::uint8_t* in);
};

/// Payload of a tree configuration (10 + 2 x inputs bytes): u16 target, u16
/// slot (bits [7:0]) and generation (bits [15:8]), u16 parent, u16 root vertex, u16 inputs count, then the inputs' u16
/// addresses; for a vertex then the members' comm ranks (what per-rank
/// collectives — Gather, Allgather, Scatter, Reduce_scatter — move): u16
/// communicator size, and per input u16 runs count then the runs (u16 first
/// comm rank, u16 count), ascending. A switch engine that gets one for
/// another target forwards it there (the planner relays through a leaf what
/// up*/down* cannot route from one top switch to another).
struct TreeConfig {
    static constexpr std::uint16_t kNone = 0xFFFF;  ///< no parent / no root vertex
    /// collective.mode = sharp: the aggregation manager gave the group no
    /// tree (an AN out of tree slots or buffers, or failed); its members run
    /// its collectives on the NIC engines.
    static constexpr std::uint8_t kSharpFallbackSlot = 0xFF;
    std::uint16_t target = 0;           ///< the participant it configures
    std::uint8_t slot = 0;              ///< the tree's number on its context (step field of its data packets - 1)
    /// The planner's count of the groups it configured on this (context,
    /// slot), mod 256: every participant of one group gets the same. Data
    /// packets and abort notices carry its low 3 bits (tree_offset_word),
    /// agreement records to an engine bits [15:8] of their slot word; a vertex
    /// takes in only its generation's (ignores others' aborts) and holds other
    /// data until its next configuration, which takes its own, drops the rest.
    std::uint8_t generation = 0;
    std::uint16_t parent = kNone;       ///< vertex above (a host: the vertex it sends to); kNone: none
    std::uint16_t root_vertex = kNone;  ///< the tree's root vertex; kNone: a group of one
    std::vector<std::uint16_t> inputs;  ///< a vertex's inputs in combining order; empty for a host
    /// A run of consecutive comm ranks.
    struct Run {
        std::uint16_t first = 0, count = 0;
    };
    std::uint16_t size = 0;                     ///< vertex: communicator size (0: no member runs follow the inputs)
    std::vector<std::vector<Run>> input_ranks;  ///< vertex: per input, its members' comm ranks (with `size`)

    static constexpr std::size_t kHeaderBytes = 10;
    std::size_t bytes() const;
    void write(std::uint8_t* out) const;
    /// nullopt when `length` does not match the inputs count it gives.
    static std::optional<TreeConfig> read(const std::uint8_t* in, std::size_t length);
};
