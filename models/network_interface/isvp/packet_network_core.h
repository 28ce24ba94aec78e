// The packet network adapter's functional core (SystemC-free): what a
// sender on the packet channel of models/common/isvp/packet_channel.h
// decides about a packet before it leaves — its network header and
// replicated processor header (NetworkFraming, the one place headers are
// composed), the virtual channel it is injected on, the send credits per VC
// (with returns still in flight: CreditLedger) — and, for a node's host
// endpoint, which endpoint a rank is and the receive buffer's accounting
// (PacketFraming, ReceiveBuffer). PacketNetworkInterface
// (isvp/packet_network_interface.h) adds sockets, time and events for the
// node; the collective engines (models/collective) and the kernel unit
// (models/kernel) frame their packets through NetworkFraming too.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "isvp/packet_format.h"

namespace isvp {

/// The class of traffic of a packet: the network header's fields the
/// network's switches look at besides size, destination, last and step.
struct TrafficClass {
    Opcode opcode = Opcode::Send;
    std::uint8_t context_id = 0;
    std::uint8_t operation = 0;
    std::uint8_t algorithm = 0;
    std::uint8_t datatype = 0;

    static TrafficClass of(const NetworkHeader& header) {
        return {header.opcode, header.context_id, header.operation, header.algorithm, header.datatype};
    }
    static TrafficClass of(const ProcessorHeader& header) {
        return {header.opcode, header.context_id, header.operation, header.algorithm, header.datatype};
    }
};

/// Everything one network packet's headers say, as its sender states it: a
/// node's host endpoint (through PacketFraming) or an engine endpoint (a
/// collective engine at a node or a switch, a kernel unit).
struct PacketFrame {
    /// Network address it goes to: a host endpoint (node address) or an
    /// engine endpoint (a switch engine: hosts + switch index; Topology).
    std::uint16_t destination = 0;
    TrafficClass traffic;  ///< what the switches see
    /// Network-only field: the collective schedule step, a tree's slot + 1,
    /// an SMI port, or a control kind (kCreditStep, kAbortStep, ...); 0 for a
    /// host's packet.
    std::uint8_t step = 0;
    ProcessorHeader carried;      ///< the processor header the packet carries, as the receiver should see it
    std::uint32_t offset = 0;     ///< payload offset in the message, B (< 2^29)
    std::uint8_t generation = 0;  ///< a switch tree's generation: its low bits ride the offset word (tree_offset_word)
    std::uint32_t payload_bytes = 0;  ///< payload bytes it carries
    /// Last packet of the message; unset: derived, offset + payload_bytes
    /// reaching carried.message_bytes.
    std::optional<bool> last;
};

/// Composes the headers of the packets one sender puts on the packet
/// channel and chooses their VC. Every model that sends network packets
/// frames them here; packet_format.h stays the wire format.
class NetworkFraming {
  public:
    /// The VC every class of traffic is injected on: the routers pick the
    /// VCs of the network themselves (dateline, up/down).
    static constexpr std::uint8_t kInjectVc = 0;

    /// `address`: the sender's network address (a host endpoint, or an
    /// engine endpoint); `packet_payload_bytes`: the payload capacity
    /// announced in the header's size code (the smallest code whose
    /// capacity 16 << code holds it). Throws ConfigError when no size code
    /// holds it (above 524288 B).
    NetworkFraming(std::uint16_t address, std::uint32_t packet_payload_bytes);

    std::uint16_t address() const { return address_; }
    std::uint8_t size_code() const { return size_code_; }
    /// The virtual channel a packet of this class of traffic is injected on
    /// (kInjectVc for every class today).
    std::uint8_t vc_for(const TrafficClass& traffic) const;
    std::uint8_t vc_for(const PacketFrame& frame) const { return vc_for(frame.traffic); }
    /// The network header of `frame`'s packet.
    NetworkHeader network_header(const PacketFrame& frame) const;
    /// The offset word (offset, and a tree's generation in the top bits).
    static std::uint32_t offset_word(const PacketFrame& frame) {
        return tree_offset_word(frame.offset, frame.generation);
    }
    /// Bytes of a packet on the wire: headers and payload.
    static std::uint32_t wire_bytes(std::uint32_t payload_bytes) {
        return static_cast<std::uint32_t>(kNetworkPacketOverhead) + payload_bytes;
    }
    /// Its length in phits (what it takes of the receiver's credits).
    static std::uint32_t wire_phits(std::uint32_t payload_bytes) { return phits_of(wire_bytes(payload_bytes)); }
    /// Writes `frame`'s headers into `out` (room for wire_bytes()); the
    /// payload area behind them is left for the sender to fill.
    void write_headers(const PacketFrame& frame, std::uint8_t* out) const;
    /// The frame of a packet already framed (to send it again): its
    /// destination, class, step, carried header, offset and generation;
    /// `last` derived as for any frame.
    static PacketFrame frame_of(const NetworkPacketView& packet);

  private:
    std::uint16_t address_;   ///< the sender's network address
    std::uint8_t size_code_;  ///< header size code of the packet payload capacity
};

/// One packet of a message, as the node asks the network to carry it (the
/// role of SST SimpleNetwork's Request).
struct NetworkRequest {
    /// The message's processor header: `rank` is the destination, the other
    /// fields (opcode, context, operation, algorithm, datatype) its class of
    /// traffic and what the network's switches need to see.
    ProcessorHeader header;
    std::uint32_t offset = 0;         ///< this packet's payload offset in the message, B
    std::uint32_t payload_bytes = 0;  ///< payload bytes it carries
    bool last = false;                ///< last packet of the message
};

/// Parameters of a packet network interface (the QDMA's: QdmaConfig::network_interface).
struct PacketInterfaceConfig {
    std::uint16_t endpoint = 0;                  ///< this node's endpoint (node address)
    std::uint32_t endpoints = 1;                 ///< endpoints of the network
    std::uint32_t packet_payload_bytes = 1024;   ///< payload capacity in the header's size code, B
    std::uint32_t receive_buffer_bytes = 32768;  ///< receive buffer behind the eject port, B (granted at start)
    std::uint32_t link_bytes_per_cycle = 64;     ///< stream toward the network, B per cycle
    double link_clock_mhz = 250.0;               ///< its clock, MHz
};

/// How the packet adapter frames requests: endpoints, header, VC.
class PacketFraming {
  public:
    /// `endpoint`: this node's endpoint (its node address; its rank, ranks
    /// being identity-mapped); `endpoints`: endpoints of the network;
    /// `packet_payload_bytes`: payload capacity announced in the header's
    /// size code (a power of two 16..524288). Throws ConfigError when
    /// `endpoint` is not below `endpoints` or the capacity has no size code.
    PacketFraming(std::uint16_t endpoint, std::uint32_t endpoints, std::uint32_t packet_payload_bytes);

    std::uint16_t endpoint() const { return framing_.address(); }
    std::uint32_t endpoints() const { return endpoints_; }
    /// Whether a message may name `rank` as its destination.
    bool reaches(std::uint16_t rank) const { return rank < endpoints_; }
    /// The node address of a rank's endpoint. Identity: rank r is node r.
    std::uint16_t endpoint_of_rank(std::uint16_t rank) const { return rank; }
    /// The virtual channel a packet of this class of traffic is injected on
    /// (NetworkFraming::vc_for: every class shares VC 0 at the inject port).
    std::uint8_t vc_for(const ProcessorHeader& header) const { return framing_.vc_for(TrafficClass::of(header)); }
    /// What `request`'s packet says: to the rank's node, the message's class
    /// of traffic, step 0, the carried header, offset and last.
    PacketFrame frame(const NetworkRequest& request) const;
    /// The network header of `request`'s packet.
    NetworkHeader network_header(const NetworkRequest& request) const {
        return framing_.network_header(frame(request));
    }
    /// The processor header the packet carries: the message's, with
    /// rank := this endpoint (the receiver sees the source).
    ProcessorHeader carried_header(const NetworkRequest& request) const;
    /// Bytes of the packet on the wire: headers and payload.
    static std::uint32_t wire_bytes(std::uint32_t payload_bytes) { return NetworkFraming::wire_bytes(payload_bytes); }
    /// Writes `request`'s headers into `out` (room for wire_bytes()); the
    /// payload area behind them is left for the node to fill.
    void write_headers(const NetworkRequest& request, std::uint8_t* out) const {
        framing_.write_headers(frame(request), out);
    }

  private:
    std::uint32_t endpoints_;  ///< endpoints of the network
    NetworkFraming framing_;   ///< the headers, at this node's endpoint
};

/// Credits for the receiver's buffer behind the inject port, per VC, in
/// phits (packet_channel.h: a sender starts with none, the receiver grants).
class SendCredits {
  public:
    /// Credits the receiver returned (or granted at start) for `vc`.
    void grant(std::uint8_t vc, std::uint32_t phits);
    /// Whether a packet of `phits` may be sent on `vc` now.
    bool space_to_send(std::uint8_t vc, std::uint32_t phits) const { return available(vc) >= phits; }
    /// Takes a packet's credits; false (and nothing taken) if there are too few.
    bool take(std::uint8_t vc, std::uint32_t phits);
    std::uint32_t available(std::uint8_t vc) const { return vc < phits_.size() ? phits_[vc] : 0; }

  private:
    std::vector<std::uint32_t> phits_;  ///< credits held per VC
};

/// A sender's credits per VC with the returns still in flight: a credit
/// annotated with a delay counts from when it arrives. What an engine's
/// credited output port keeps (CreditedOutPort). Times are the owner's
/// integer time unit (SystemC's ps values).
class CreditLedger {
  public:
    /// A return (or grant) of `phits` on `vc` that counts from `due`.
    void arrive(std::uint8_t vc, std::uint32_t phits, std::uint64_t due) { in_flight_.emplace(due, vc, phits); }
    /// A return that counts now.
    void grant(std::uint8_t vc, std::uint32_t phits) { credits_.grant(vc, phits); }
    /// Counts every return due by `now`.
    void settle(std::uint64_t now);
    /// When the next return in flight is due; nullopt when none is.
    std::optional<std::uint64_t> next_due() const {
        return in_flight_.empty() ? std::nullopt : std::optional<std::uint64_t>(std::get<0>(in_flight_.top()));
    }
    bool space_to_send(std::uint8_t vc, std::uint32_t phits) const { return credits_.space_to_send(vc, phits); }
    /// Takes a packet's credits on its VC; false (nothing taken) if too few.
    bool take(std::uint8_t vc, std::uint32_t phits) { return credits_.take(vc, phits); }
    std::uint32_t available(std::uint8_t vc) const { return credits_.available(vc); }

  private:
    using Return = std::tuple<std::uint64_t, std::uint8_t, std::uint32_t>;              ///< (due, vc, phits)
    SendCredits credits_;                                                               ///< usable now, per VC
    std::priority_queue<Return, std::vector<Return>, std::greater<Return>> in_flight_;  ///< earliest due first
};

/// The receive buffer behind the eject port: one VC (0), `capacity` phits,
/// all granted at start; a packet holds its phits until the node releases it.
class ReceiveBuffer {
  public:
    explicit ReceiveBuffer(std::uint32_t capacity_phits) : capacity_(capacity_phits) {}
    std::uint32_t capacity() const { return capacity_; }
    std::uint32_t used() const { return used_; }
    /// Why a packet of `phits` on `vc` breaks the credit protocol, or
    /// nullopt when it may be accepted.
    std::optional<std::string> refusal(std::uint8_t vc, std::uint32_t phits) const;
    /// An accepted packet takes its phits.
    void occupy(std::uint32_t phits) { used_ += phits; }
    /// A released packet frees them (returned to the sender as credits).
    void free(std::uint32_t phits) { used_ -= phits; }

  private:
    std::uint32_t capacity_;  ///< phits granted to the sender at start
    std::uint32_t used_ = 0;  ///< held by packets not yet released
};

}  // namespace isvp
