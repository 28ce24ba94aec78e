// PacketNetworkInterface: the NetworkInterface adapter for the packet
// channel (models/common/isvp/packet_channel.h) — what the QDMA's port
// toward the network speaks in every configuration today: to the node's
// collective engine, which passes non-collective packets on to the router
// fabric (network.model=packet) or the flow network (network.model=flow)
// at the same four sockets.
//
// Abstraction: LT, no clock, no thread. It frames each request as a network
// packet (PacketFraming: network header with the destination's node address
// and the header's size code, the processor header with rank := this
// endpoint, the payload offset) in a pooled payload, injects it on the VC of
// its class (0) once the node sees space (credits for all its phits) and
// the link free, paces the AXI4-Stream link (link_bytes_per_cycle at
// link_clock_mhz: a packet occupies ceil(bytes / width) cycles, its tail
// follows cycles - 1 after the head), and tracks credits per VC. On the
// receive side it grants its whole receive buffer on VC 0 at time 0,
// refuses (SC_REPORT_ERROR) a packet that breaks the credit protocol,
// drops a malformed one (the node is told) and returns its credits at its
// tail, and holds every other packet's credits until the node releases it.
//
// Sockets:
//   tx         initiator  network packets to the inject side
//   tx_credit  target     credits from the inject side (any VC)
//   rx         target     network packets from the eject side (VC 0 only)
//   rx_credit  initiator  credits to the eject side (VC 0)
#pragma once

#include <cstdint>
#include <map>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/network_interface.h"
#include "isvp/packet_channel.h"
#include "isvp/packet_network_core.h"
#include "isvp/target_socket.h"

namespace isvp {

class PacketNetworkInterface : public sc_core::sc_module, public NetworkInterface {
  public:
    tlm_utils::simple_initiator_socket<PacketNetworkInterface> tx;         ///< packets to the network (inject)
    isvp::BlockingTargetSocket<PacketNetworkInterface> tx_credit;          ///< credits from the network (inject)
    isvp::BlockingTargetSocket<PacketNetworkInterface> rx;                 ///< packets from the network (eject)
    tlm_utils::simple_initiator_socket<PacketNetworkInterface> rx_credit;  ///< credits to the network (eject)

    /// Throws ConfigError on a bad endpoint or packet size.
    PacketNetworkInterface(sc_core::sc_module_name name, const PacketInterfaceConfig& config);

    std::uint16_t endpoint() const override { return framing_.endpoint(); }
    std::uint32_t endpoints() const override { return framing_.endpoints(); }
    bool reaches(std::uint16_t rank) const override { return framing_.reaches(rank); }
    std::uint32_t wire_bytes(std::uint32_t payload_bytes) const override {
        return PacketFraming::wire_bytes(payload_bytes);
    }
    OutgoingPacket frame(const NetworkRequest& request) override;
    void discard(OutgoingPacket& packet) override;
    sc_core::sc_time link_free_at() const override { return link_free_; }
    bool space_to_send(const OutgoingPacket& packet) const override;
    const sc_core::sc_event& space_event() const override { return credit_event_; }
    void send(OutgoingPacket& packet) override;
    void set_receiver(NetworkReceiver& receiver) override { receiver_ = &receiver; }
    void release(const IncomingPacket& packet, const sc_core::sc_time& delay) override;

    /// Credits held for the inject side's VC 0 (phits).
    std::uint32_t send_credits() const { return credits_.available(0); }
    /// Receive-buffer phits held by packets the node has not released.
    std::uint32_t rx_buffered_phits() const { return receive_buffer_.used(); }

  private:
    void tx_credit_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void rx_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    /// SC_METHOD, once at time 0: the whole receive buffer as credits.
    void grant_rx_credits();
    /// SC_METHOD: credits annotated into the future whose time has come.
    void apply_credit_arrivals();

    PacketFraming framing_;                                          ///< endpoints, headers, VC choice
    sc_core::sc_time clock_period_;                                  ///< one link cycle
    std::uint32_t link_bytes_;                                       ///< bytes per link cycle
    sc_core::sc_time link_free_;                                     ///< the link is busy until then
    SendCredits credits_;                                            ///< inject-side credits per VC
    std::multimap<sc_core::sc_time, CreditReturn> credit_arrivals_;  ///< credits annotated into the future
    ReceiveBuffer receive_buffer_;                                   ///< eject-side buffer, phits
    std::uint64_t next_trace_id_ = 0;                                ///< per-packet trace ids
    PacketPool pool_;                                                ///< outgoing packet payloads
    NetworkReceiver* receiver_ = nullptr;                            ///< told about arrivals
    CreditMessage rx_credit_message_;                                ///< reused for every rx credit return
    sc_core::sc_event credit_event_;                                 ///< tx credits arrived
    sc_core::sc_event credit_arrival_event_;                         ///< the next annotated credit is due
};

}  // namespace isvp
