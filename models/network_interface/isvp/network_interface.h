// NetworkInterface: the boundary between a node's DMA engine (the QDMA) and
// the network, in the shape of SST's SimpleNetwork. The node hands it
// requests (one packet of a message: destination rank, class of traffic,
// payload size and offset), asks whether there is space to send and when
// its link is free, and is told what arrives; it never sees the network's
// headers, virtual channels or credits. One adapter per kind of network
// port implements it (PacketNetworkInterface: the packet channel of the
// router fabric and the flow network, models/network_interface/README.md).
//
//   node (Qdma)                         NetworkInterface (adapter)
//   frame(request)       ------------>  packet with the network's headers
//   fill payload(), send ------------>  VC, credits, link timing, socket
//   on_receive(packet)   <------------  parsed packet, receive buffer held
//   release(packet)      ------------>  buffer space back to the network
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>

#include "isvp/packet_network_core.h"

namespace isvp {

/// A packet framed by the interface for the network. The node fills the
/// payload, then sends or discards it; the carrier stays opaque to it.
struct OutgoingPacket {
    tlm::tlm_generic_payload* carrier = nullptr;  ///< the interface's packet
    std::uint8_t* payload = nullptr;              ///< where the payload_bytes go
    std::uint32_t payload_bytes = 0;              ///< payload it carries
    std::uint32_t wire_bytes = 0;                 ///< the whole packet on the wire, B
    explicit operator bool() const { return carrier != nullptr; }
};

/// A packet the network delivered, held in the interface's receive buffer
/// until the node releases it.
struct IncomingPacket {
    tlm::tlm_generic_payload* carrier = nullptr;  ///< the interface's hold on it
    sc_core::sc_time tail;                        ///< when its last byte has arrived
    std::uint64_t header = 0;                     ///< processor header as received (rank = the source)
    std::uint8_t context_id = 0;                  ///< communicator it belongs to (steering)
    std::uint32_t offset = 0;                     ///< payload offset in the message, B
    /// Payload bytes (the DMA writes from here); null if the packet does not
    /// carry them (PacketInfo::header_only, job.timing_only).
    std::uint8_t* payload = nullptr;
    std::uint32_t payload_bytes = 0;              ///< payload length
    bool last = false;                            ///< last packet of the message
};

/// What the node is told about arrivals (SimpleNetwork's notify-on-receive).
/// Called from the network's b_transport: must not wait.
class NetworkReceiver {
  public:
    virtual ~NetworkReceiver() = default;
    /// A packet arrived; the node releases it when done with it.
    virtual void on_receive(const IncomingPacket& packet) = 0;
    /// A malformed packet arrived and was dropped (`why`).
    virtual void on_malformed(const std::string& why) = 0;
};

class NetworkInterface {
  public:
    virtual ~NetworkInterface() = default;

    /// This node's endpoint in the network (NODE_ADDRESS).
    virtual std::uint16_t endpoint() const = 0;
    /// Endpoints of the network (NODE_COUNT).
    virtual std::uint32_t endpoints() const = 0;
    /// Whether a message may name `rank` as its destination.
    virtual bool reaches(std::uint16_t rank) const = 0;
    /// Bytes a packet of `payload_bytes` takes on the wire.
    virtual std::uint32_t wire_bytes(std::uint32_t payload_bytes) const = 0;

    /// A packet for `request`, its headers written, its payload to fill.
    virtual OutgoingPacket frame(const NetworkRequest& request) = 0;
    /// Gives a framed packet back unsent.
    virtual void discard(OutgoingPacket& packet) = 0;
    /// When the link toward the network is free for the next packet.
    virtual sc_core::sc_time link_free_at() const = 0;
    /// Whether the network has room for `packet` now (SimpleNetwork's spaceToSend).
    virtual bool space_to_send(const OutgoingPacket& packet) const = 0;
    /// Notified when the network makes room (credits arrive).
    virtual const sc_core::sc_event& space_event() const = 0;
    /// Sends `packet` now; only with space_to_send() and the link free.
    /// The packet is the network's afterwards.
    virtual void send(OutgoingPacket& packet) = 0;

    /// Who is told about arrivals (set once, before the simulation runs).
    virtual void set_receiver(NetworkReceiver& receiver) = 0;
    /// The node is done with `packet`: its buffer space goes back to the
    /// network after `delay` (when its data has left).
    virtual void release(const IncomingPacket& packet, const sc_core::sc_time& delay) = 0;
};

}  // namespace isvp
