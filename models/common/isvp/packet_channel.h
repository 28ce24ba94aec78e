// How network packets move between blocks: QDMA <-> router (inject/eject),
// router <-> Aurora link <-> router. A TLM-2.0 protocol on the generic
// payload with two project extensions; credit-based flow control.
//
// Forward (packets), initiator -> target, b_transport:
//   command  TLM_WRITE_COMMAND
//   data     the encoded network packet (packet_format.h): headers + payload
//   length   its size in bytes; phits = ceil(length / kPhitBytes)
//            (a header-only packet, PacketInfo::header_only, stores only
//            kNetworkPacketOverhead of them: job.timing_only, see there)
//   ext      PacketInfo: virtual channel, trace id
//   delay    the packet's head reaches the receiver at sc_time_stamp() + delay;
//            its tail follows at the sender's serialisation rate (the receiver
//            is told the rate in PacketInfo::tail_after).
// The sender only sends when it holds credits for the whole packet in the
// receiver's VC buffer (virtual cut-through), so the receiver always accepts:
// it must not wait() and must respond TLM_OK_RESPONSE. A receiver that keeps
// the packet calls acquire() and later release(); payloads come from a
// PacketPool (tlm_mm_interface) owned by the block that created the packet.
// A payload with a memory manager on a packet channel is always a pool's
// (packet_info() relies on it); testbenches may also send payloads without
// one, which get a PacketInfo extension attached on first use.
//
// Backward (credits), receiver -> sender, b_transport:
//   command  TLM_IGNORE_COMMAND, no data
//   ext      CreditReturn: VC and phits freed in the receiver's buffer
//   delay    when the credits arrive at the sender
// A credit receiver must not keep the payload after b_transport returns:
// senders reuse one (CreditMessage) for every return.
//
// Start-up: senders start with zero credits. At time 0 (from an SC_METHOD or
// SC_THREAD, not during elaboration) every receiver grants each VC its whole
// buffer through the credit channel, so the two ends never need to share a
// buffer-size parameter.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "isvp/packet_format.h"

namespace isvp {

/// Per-packet side information that is not part of the wire format.
struct PacketInfo : tlm::tlm_extension<PacketInfo> {
    std::uint8_t vc = 0;                       ///< virtual channel at the receiver's input
    std::uint64_t trace_id = 0;                ///< unique per packet, for traces and statistics
    sc_core::sc_time tail_after;               ///< tail arrives this long after the head
    sc_core::sc_time injected;                 ///< when the source injected it (latency statistics)
    std::uint16_t hops = 0;                    ///< router-to-router hops so far
    /// Destination node: the header's, set by the sender that framed the
    /// packet or by the first router that parsed it (packets do not change
    /// in flight), or kUnrouted.
    std::uint32_t destination = kUnrouted;
    static constexpr std::uint32_t kUnrouted = ~0u;
    /// End-to-end reliable delivery (models/reliable): what this packet is to
    /// that layer, its source node and sequence number (data) or cumulative
    /// acknowledgement (ack, nak), the oldest sequence its sender still
    /// delivers and a piggy-backed cumulative ack for the reverse direction
    /// (data). A sideband of the packet (see models/reliable/README.md).
    enum class Reliable : std::uint8_t { None, Data, Ack, Nak } reliable = Reliable::None;
    std::uint16_t reliable_source = 0;
    std::uint32_t reliable_sequence = 0;
    std::uint32_t reliable_base = 0;
    std::uint32_t reliable_ack = 0;
    /// The payload behind the headers is not stored: data_length is the
    /// packet's wire length, but only its kNetworkPacketOverhead header bytes
    /// exist at the data pointer. job.timing_only only, for packets whose
    /// payload nobody on their way reads: the NIC engines' result packets to
    /// the QDMA (whose C2H writes them as timing only) and, on the flow
    /// network without the reliable layer, their step packets (the receiving
    /// engine skips the bytes). Blocks that copy whole packets (CRC-checking
    /// links, the reliable layer, a partition's boundary) never see one
    /// (PacketPool::allocate_header_only).
    bool header_only = false;

    tlm::tlm_extension_base* clone() const override { return new PacketInfo(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const PacketInfo&>(other);
    }
};

/// Credits travelling back to a sender.
struct CreditReturn : tlm::tlm_extension<CreditReturn> {
    std::uint8_t vc = 0;       ///< the VC whose buffer space was freed
    std::uint32_t phits = 0;   ///< how much

    tlm::tlm_extension_base* clone() const override { return new CreditReturn(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const CreditReturn&>(other);
    }
};

/// A free-list of generic payloads with their own byte buffers and a
/// PacketInfo extension attached. Single-threaded, like the SystemC kernel.
///
/// The PacketInfo lives inside the pool's payload object (and is also
/// attached as the TLM extension, so generic code finds it): packet_info()
/// of a pool payload is a fixed offset from the payload, the memory a block
/// touches anyway, instead of a call into the kernel library and two more
/// cache lines per hop.
class PacketPool final : public tlm::tlm_mm_interface {
  public:
    PacketPool() = default;
    PacketPool(const PacketPool&) = delete;
    PacketPool& operator=(const PacketPool&) = delete;
    ~PacketPool() override;

    /// A payload with reference count 1 whose data buffer holds `bytes`,
    /// set up as a packet write (see above) with a reset PacketInfo.
    tlm::tlm_generic_payload* allocate(std::uint32_t bytes);
    /// The same for a packet of `bytes` on the wire of which only the
    /// headers are stored (PacketInfo::header_only): timing only, a packet
    /// costed by its length whose payload nobody reads. Its pool slot keeps
    /// no payload memory, which is what makes a timing-only run's memory
    /// independent of how many packets are in flight times their size.
    tlm::tlm_generic_payload* allocate_header_only(std::uint32_t bytes);
    void free(tlm::tlm_generic_payload* payload) override;

    std::size_t live() const { return live_; }  ///< payloads handed out, not yet freed
    /// Bytes of packet storage held by every slot ever made (their buffers'
    /// capacity; slots are reused, never freed).
    std::size_t stored_bytes() const { return stored_bytes_; }

    /// The PacketInfo of `payload` if it has a memory manager (on a packet
    /// channel that is always a PacketPool, see the protocol above), else null.
    static PacketInfo* info_of(tlm::tlm_generic_payload& payload) {
        return payload.has_mm() ? &static_cast<Slot&>(payload).info : nullptr;
    }
    /// Prefetches where a pool payload's PacketInfo lies (Slot: it follows
    /// the payload), without reading the payload to find out whether it is
    /// one: a hint, harmless for any other payload.
    static void prefetch_info(const tlm::tlm_generic_payload& payload) { __builtin_prefetch(info_address(payload)); }
    /// Where a pool payload's PacketInfo lies (see prefetch_info()).
    static const void* info_address(const tlm::tlm_generic_payload& payload) {
        return reinterpret_cast<const char*>(&payload) + sizeof(tlm::tlm_generic_payload);
    }

  private:
    tlm::tlm_generic_payload* allocate(std::uint32_t bytes, std::uint32_t stored);

    /// A pool payload with its own byte buffer and PacketInfo; every payload
    /// whose memory manager is a PacketPool is a Slot.
    struct Slot : tlm::tlm_generic_payload {
        Slot() { set_extension(&info); }
        ~Slot() override { clear_extension(&info); }  // a member, not the payload's to delete
        PacketInfo info;
        std::vector<unsigned char> bytes;
    };
    /// Where a slot sits in its cache lines. A hop (router, link) reads the
    /// payload's data pointer, length and response status, its memory
    /// manager (has_mm()) and reference count, and the PacketInfo's VC,
    /// tail, hop count and destination. In the generic payload of
    /// Accellera SystemC 2.3.3/2.3.4 (136 bytes) the first three sit at
    /// bytes 24-40 and the memory manager at 120, followed by the reference
    /// count and then the PacketInfo (VC at 144, destination ending at 184):
    /// a slot whose byte 120 starts a cache line gets all of that from two
    /// lines (bytes -8..56 and 120..184), where a slot at malloc's 16-byte
    /// alignment straddles three or four. Another generic-payload layout
    /// only loses the placement, not correctness.
    static constexpr std::size_t kSlotLead = sizeof(tlm::tlm_generic_payload) == 136 ? (64 - 120 % 64) % 64 : 0;
    struct alignas(64) PlacedSlot {
        /// Puts `slot` at kSlotLead within a line (a whole line when that
        /// is 0: an array cannot be empty).
        unsigned char lead[kSlotLead == 0 ? 64 : kSlotLead];
        Slot slot;
    };
    std::vector<std::unique_ptr<PlacedSlot>> all_;  ///< every slot ever made (owns them)
    std::vector<Slot*> free_;                 ///< slots ready for reuse
    std::size_t live_ = 0;
    std::size_t stored_bytes_ = 0;
};

/// Packet info of a packet payload (part of every pool payload; attached on
/// first use to any other payload).
PacketInfo& packet_info_attached(tlm::tlm_generic_payload& payload);
inline PacketInfo& packet_info(tlm::tlm_generic_payload& payload) {
    if (PacketInfo* info = PacketPool::info_of(payload)) return *info;
    return packet_info_attached(payload);
}

/// A block that credits can be handed to directly (see CreditRoute).
class CreditSink {
  public:
    /// `phits` credits for `vc` arrive on its port `port` at tick `arrival`
    /// (>= `now`, the current tick): what its credit target would do with a
    /// CreditReturn arriving then.
    virtual void credits_arrive(unsigned port, std::uint8_t vc, std::uint32_t phits, std::uint64_t arrival,
                                std::uint64_t now) = 0;

  protected:
    ~CreditSink() = default;
};

/// Where credits sent into a target end up when every block on the way only
/// delays them (an Aurora link adds its latency): the sender may hand them to
/// `sink` directly, `delay` ticks later, as the credit DMI of the packet
/// channel. The blocks, their order and every arrival tick are those of the
/// TLM path, so the simulated results are the same; it saves a virtual call,
/// a payload and its extension per block per credit return.
struct CreditRoute {
    CreditSink* sink = nullptr;  ///< the final receiver
    unsigned port = 0;           ///< its port the credits arrive on
    std::uint64_t delay = 0;     ///< ticks the blocks on the way add
};

/// Base of a lightweight packet-channel target: only blocking transport is
/// part of the protocol, so the non-blocking and debug interfaces refuse.
/// Bind one (derived, with b_transport) to a tlm::tlm_target_socket<> where
/// per-packet cost matters: simple_target_socket carries a PEQ, events and
/// maps that a pass-through port does not need.
class BlockingTransportTarget : public tlm::tlm_fw_transport_if<> {
  public:
    /// Fills `route` and returns true when credits sent here may go straight
    /// to a CreditSink (see CreditRoute); false (the default): send them by
    /// b_transport.
    virtual bool credit_route(CreditRoute& route) const {
        (void)route;
        return false;
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase&,
                                       sc_core::sc_time&) override {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
    unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

/// The CreditRoute behind `target` (the interface a credit initiator is
/// bound to), if it offers one; false for null and for other targets.
inline bool credit_route_of(tlm::tlm_fw_transport_if<>* target, CreditRoute& route) {
    const auto* ours = dynamic_cast<const BlockingTransportTarget*>(target);
    return ours != nullptr && ours->credit_route(route);
}

/// A reusable credit-return transaction: a block that returns credits for
/// every packet keeps one, so the hot path allocates nothing (a generic
/// payload's constructor allocates its extension array).
class CreditMessage {
  public:
    CreditMessage() {
        payload_.set_command(tlm::TLM_IGNORE_COMMAND);
        payload_.set_data_length(0);
        payload_.set_extension(&credit_);  // a member beside the payload: one cache line less per return
    }
    ~CreditMessage() { payload_.clear_extension(&credit_); }  // not the payload's to delete
    CreditMessage(const CreditMessage&) = delete;
    CreditMessage& operator=(const CreditMessage&) = delete;

    /// Sends `phits` credits for `vc` through `socket` (an initiator socket
    /// or the interface bound to one), arriving after `delay`.
    template <typename Socket>
    void send(Socket& socket, std::uint8_t vc, std::uint32_t phits, sc_core::sc_time delay) {
        credit_.vc = vc;
        credit_.phits = phits;
        payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(payload_, delay);
    }

  private:
    CreditReturn credit_;               ///< the payload's extension (declared first: outlives payload_)
    tlm::tlm_generic_payload payload_;  ///< reused for every return
};

}  // namespace isvp
