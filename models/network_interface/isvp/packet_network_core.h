// The packet network adapter's functional core (SystemC-free): what the
// node's network interface decides for the packet channel of
// models/common/isvp/packet_channel.h — which endpoint a rank is, the
// network header and replicated processor header of each packet, the
// virtual channel of a class of traffic, the send credits per VC and the
// receive buffer's accounting. PacketNetworkInterface
// (isvp/packet_network_interface.h) adds sockets, time and events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isvp/packet_format.h"

namespace isvp {

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

    std::uint16_t endpoint() const { return endpoint_; }
    std::uint32_t endpoints() const { return endpoints_; }
    /// Whether a message may name `rank` as its destination.
    bool reaches(std::uint16_t rank) const { return rank < endpoints_; }
    /// The node address of a rank's endpoint. Identity: rank r is node r.
    std::uint16_t endpoint_of_rank(std::uint16_t rank) const { return rank; }
    /// The virtual channel a packet of this class of traffic is injected on.
    /// Every class shares VC 0 at the inject port: the routers pick the VCs
    /// of the network themselves (dateline, up/down), the engine its own.
    std::uint8_t vc_for(const ProcessorHeader& header) const;
    /// The network header of `request`'s packet.
    NetworkHeader network_header(const NetworkRequest& request) const;
    /// The processor header the packet carries: the message's, with
    /// rank := this endpoint (the receiver sees the source).
    ProcessorHeader carried_header(const NetworkRequest& request) const;
    /// Bytes of the packet on the wire: headers and payload.
    static std::uint32_t wire_bytes(std::uint32_t payload_bytes) {
        return static_cast<std::uint32_t>(kNetworkPacketOverhead) + payload_bytes;
    }
    /// Writes `request`'s headers into `out` (room for wire_bytes()); the
    /// payload area behind them is left for the node to fill.
    void write_headers(const NetworkRequest& request, std::uint8_t* out) const;

  private:
    std::uint16_t endpoint_;   ///< this node's endpoint (node address)
    std::uint32_t endpoints_;  ///< endpoints of the network
    std::uint8_t size_code_;   ///< header size code of the packet payload capacity
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
