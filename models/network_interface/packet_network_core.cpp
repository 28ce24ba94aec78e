#include "isvp/packet_network_core.h"

#include "isvp/parameters.h"

namespace isvp {

NetworkFraming::NetworkFraming(std::uint16_t address, std::uint32_t packet_payload_bytes)
    : address_(address), size_code_(0) {
    const std::optional<std::uint8_t> code = size_code_for(packet_payload_bytes);
    if (!code)
        throw ConfigError(
            "network framing: packet payload capacity must be at most 524288 B (16 << 15, the largest "
            "header size code), got " +
            std::to_string(packet_payload_bytes));
    size_code_ = *code;
}

std::uint8_t NetworkFraming::vc_for(const TrafficClass&) const {
    return kInjectVc;
}

NetworkHeader NetworkFraming::network_header(const PacketFrame& frame) const {
    NetworkHeader network;
    network.size_code = size_code_;
    network.opcode = frame.traffic.opcode;
    network.destination = frame.destination;
    network.context_id = frame.traffic.context_id;
    network.operation = frame.traffic.operation;
    network.algorithm = frame.traffic.algorithm;
    network.last =
        frame.last.value_or((frame.offset & kPayloadOffsetMask) + frame.payload_bytes >= frame.carried.message_bytes);
    network.datatype = frame.traffic.datatype;
    network.step = frame.step;
    return network;
}

void NetworkFraming::write_headers(const PacketFrame& frame, std::uint8_t* out) const {
    write_network_packet(network_header(frame), frame.carried, offset_word(frame), nullptr, 0, out);
}

PacketFrame NetworkFraming::frame_of(const NetworkPacketView& packet) {
    PacketFrame frame;
    frame.destination = packet.network.destination;
    frame.traffic = TrafficClass::of(packet.network);
    frame.step = packet.network.step;
    frame.carried = packet.processor;
    frame.offset = packet.offset;
    frame.generation = packet.generation;
    frame.payload_bytes = packet.payload_bytes;
    return frame;
}

namespace {
/// The host endpoint's payload capacity, checked before NetworkFraming is built.
std::uint32_t checked_capacity(std::uint16_t endpoint, std::uint32_t endpoints, std::uint32_t packet_payload_bytes) {
    if (endpoints == 0 || endpoint >= endpoints)
        throw ConfigError("network interface: endpoint " + std::to_string(endpoint) +
                          " must be below the endpoint count " + std::to_string(endpoints) +
                          " (ranks map to nodes one to one)");
    const std::optional<std::uint8_t> code = size_code_for(packet_payload_bytes);
    if (!code || (16u << *code) != packet_payload_bytes)
        throw ConfigError(
            "network interface: packet payload capacity must be a power of two 16..524288 B (16 << the header size "
            "code), got " +
            std::to_string(packet_payload_bytes));
    return packet_payload_bytes;
}
}  // namespace

PacketFraming::PacketFraming(std::uint16_t endpoint, std::uint32_t endpoints, std::uint32_t packet_payload_bytes)
    : endpoints_(endpoints), framing_(endpoint, checked_capacity(endpoint, endpoints, packet_payload_bytes)) {}

PacketFrame PacketFraming::frame(const NetworkRequest& request) const {
    PacketFrame frame;
    frame.destination = endpoint_of_rank(request.header.rank);
    frame.traffic = TrafficClass::of(request.header);
    frame.carried = carried_header(request);
    frame.offset = request.offset;
    frame.payload_bytes = request.payload_bytes;
    frame.last = request.last;
    return frame;
}

ProcessorHeader PacketFraming::carried_header(const NetworkRequest& request) const {
    ProcessorHeader carried = request.header;
    carried.rank = endpoint();  // the source, identity-mapped
    return carried;
}

void SendCredits::grant(std::uint8_t vc, std::uint32_t phits) {
    if (vc >= phits_.size()) phits_.resize(vc + 1u, 0);
    phits_[vc] += phits;
}

bool SendCredits::take(std::uint8_t vc, std::uint32_t phits) {
    if (!space_to_send(vc, phits)) return false;
    phits_[vc] -= phits;
    return true;
}

void CreditLedger::settle(std::uint64_t now) {
    while (!in_flight_.empty() && std::get<0>(in_flight_.top()) <= now) {
        credits_.grant(std::get<1>(in_flight_.top()), std::get<2>(in_flight_.top()));
        in_flight_.pop();
    }
}

std::optional<std::string> ReceiveBuffer::refusal(std::uint8_t vc, std::uint32_t phits) const {
    if (vc == 0 && used_ + phits <= capacity_) return std::nullopt;
    return "a packet of " + std::to_string(phits) + " phits on VC " + std::to_string(vc) + " with " +
           std::to_string(capacity_ - used_) + " phits of credit outstanding on VC 0, the only VC granted";
}

}  // namespace isvp
