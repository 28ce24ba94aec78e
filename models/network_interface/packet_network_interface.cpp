#include "isvp/packet_network_interface.h"
#include "isvp/sim_now.h"

#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/network_interface";
}

PacketNetworkInterface::PacketNetworkInterface(sc_core::sc_module_name name, const PacketInterfaceConfig& config)
    : sc_core::sc_module(name),
      tx("tx"),
      tx_credit("tx_credit"),
      rx("rx"),
      rx_credit("rx_credit"),
      framing_(config.endpoint, config.endpoints, config.packet_payload_bytes),
      clock_period_(1.0 / config.link_clock_mhz, sc_core::SC_US),
      link_bytes_(config.link_bytes_per_cycle),
      receive_buffer_(config.receive_buffer_bytes / kPhitBytes) {
    tx_credit.register_b_transport(this, &PacketNetworkInterface::tx_credit_b_transport);
    rx.register_b_transport(this, &PacketNetworkInterface::rx_b_transport);
    SC_HAS_PROCESS(PacketNetworkInterface);
    SC_METHOD(grant_rx_credits);  // runs once at time 0
    SC_METHOD(apply_credit_arrivals);
    sensitive << credit_arrival_event_;
    dont_initialize();
}

// ---------------------------------------------------------------------------
// Sending

OutgoingPacket PacketNetworkInterface::frame(const NetworkRequest& request) {
    OutgoingPacket packet;
    packet.wire_bytes = PacketFraming::wire_bytes(request.payload_bytes);
    packet.carrier = pool_.allocate(packet.wire_bytes);
    framing_.write_headers(request, packet.carrier->get_data_ptr());
    packet_info(*packet.carrier).vc = framing_.vc_for(request.header);
    packet.payload = packet.carrier->get_data_ptr() + kNetworkPacketOverhead;
    packet.payload_bytes = request.payload_bytes;
    return packet;
}

void PacketNetworkInterface::discard(OutgoingPacket& packet) {
    if (packet.carrier) packet.carrier->release();
    packet = OutgoingPacket{};
}

bool PacketNetworkInterface::space_to_send(const OutgoingPacket& packet) const {
    return credits_.space_to_send(packet_info(*packet.carrier).vc, phits_of(packet.wire_bytes));
}

void PacketNetworkInterface::send(OutgoingPacket& packet) {
    tlm::tlm_generic_payload& carrier = *packet.carrier;
    const std::uint32_t phits = phits_of(packet.wire_bytes);
    const std::uint32_t cycles = (packet.wire_bytes + link_bytes_ - 1) / link_bytes_;
    const sc_core::sc_time now = sim_now();
    PacketInfo& info = packet_info(carrier);
    const std::uint8_t vc = info.vc;
    if (!credits_.take(vc, phits))
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": send without credits for a " + std::to_string(phits) +
                                      "-phit packet on VC " + std::to_string(vc) + " (ask space_to_send first)")
                                         .c_str());
    info.trace_id = static_cast<std::uint64_t>(framing_.endpoint()) << 40 | next_trace_id_++;
    info.injected = now;
    info.tail_after = clock_period_ * static_cast<double>(cycles - 1);
    info.hops = 0;
    link_free_ = now + clock_period_ * static_cast<double>(cycles);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tx->b_transport(carrier, delay);
    if (!carrier.is_response_ok())
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": the network refused a packet it had granted credits "
                                               "for (packet_channel.h: a receiver with credits must accept)")
                            .c_str());
    carrier.release();
    packet = OutgoingPacket{};
}

void PacketNetworkInterface::tx_credit_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": tx_credit transaction without a CreditReturn extension").c_str());
        return;
    }
    if (delay == sc_core::SC_ZERO_TIME) {
        credits_.grant(credit->vc, credit->phits);
        credit_event_.notify(sc_core::SC_ZERO_TIME);
    } else {
        const sc_core::sc_time at = sim_now() + delay;
        credit_arrivals_.emplace(at, *credit);
        credit_arrival_event_.notify(credit_arrivals_.begin()->first - sim_now());
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void PacketNetworkInterface::apply_credit_arrivals() {
    const sc_core::sc_time now = sim_now();
    while (!credit_arrivals_.empty() && credit_arrivals_.begin()->first <= now) {
        const CreditReturn& credit = credit_arrivals_.begin()->second;
        credits_.grant(credit.vc, credit.phits);
        credit_arrivals_.erase(credit_arrivals_.begin());
        credit_event_.notify(sc_core::SC_ZERO_TIME);
    }
    if (!credit_arrivals_.empty()) credit_arrival_event_.notify(credit_arrivals_.begin()->first - now);
}

// ---------------------------------------------------------------------------
// Receiving

void PacketNetworkInterface::grant_rx_credits() {
    rx_credit_message_.send(rx_credit, 0, receive_buffer_.capacity(), sc_core::SC_ZERO_TIME);
}

void PacketNetworkInterface::rx_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    const std::uint32_t phits = phits_of(length);
    const PacketInfo& info = packet_info(payload);
    const std::optional<std::string> refusal = payload.get_command() != tlm::TLM_WRITE_COMMAND
                                                   ? std::optional<std::string>("a packet that is not a write")
                                                   : receive_buffer_.refusal(info.vc, phits);
    if (refusal) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": rx received " + *refusal +
                                      " (packet_channel.h: send only with credits)")
                                         .c_str());
        return;
    }
    if (receiver_ == nullptr) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": a packet arrived before a receiver was set").c_str());
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const sc_core::sc_time tail = sim_now() + delay + info.tail_after;
    std::string why;
    const auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &why);
    if (!view) {
        receiver_->on_malformed(why);
        rx_credit_message_.send(rx_credit, 0, phits, tail - sim_now());
        return;
    }
    receive_buffer_.occupy(phits);
    payload.acquire();
    IncomingPacket packet;
    packet.carrier = &payload;
    packet.tail = tail;
    packet.header = view->processor.encode();
    packet.context_id = view->network.context_id;
    packet.offset = view->offset;
    packet.payload = info.header_only ? nullptr : payload.get_data_ptr() + kNetworkPacketOverhead;
    packet.payload_bytes = view->payload_bytes;
    packet.last = view->network.last;
    receiver_->on_receive(packet);
}

void PacketNetworkInterface::release(const IncomingPacket& packet, const sc_core::sc_time& delay) {
    const std::uint32_t phits = phits_of(static_cast<std::uint32_t>(packet.carrier->get_data_length()));
    receive_buffer_.free(phits);
    rx_credit_message_.send(rx_credit, 0, phits, delay);
    packet.carrier->release();
}

}  // namespace isvp
