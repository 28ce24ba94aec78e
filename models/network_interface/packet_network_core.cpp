#include "isvp/packet_network_core.h"

#include "isvp/parameters.h"

namespace isvp {

PacketFraming::PacketFraming(std::uint16_t endpoint, std::uint32_t endpoints, std::uint32_t packet_payload_bytes)
    : endpoint_(endpoint), endpoints_(endpoints), size_code_(0) {
    if (endpoints_ == 0 || endpoint_ >= endpoints_)
        throw ConfigError("network interface: endpoint " + std::to_string(endpoint_) +
                          " must be below the endpoint count " + std::to_string(endpoints_) +
                          " (ranks map to nodes one to one)");
    const std::optional<std::uint8_t> code = size_code_for(packet_payload_bytes);
    if (!code || (16u << *code) != packet_payload_bytes)
        throw ConfigError(
            "network interface: packet payload capacity must be a power of two 16..524288 B (16 << the header size "
            "code), got " +
            std::to_string(packet_payload_bytes));
    size_code_ = *code;
}

std::uint8_t PacketFraming::vc_for(const ProcessorHeader&) const {
    return 0;
}

NetworkHeader PacketFraming::network_header(const NetworkRequest& request) const {
    const ProcessorHeader& header = request.header;
    NetworkHeader network;
    network.size_code = size_code_;
    network.opcode = header.opcode;
    network.destination = endpoint_of_rank(header.rank);
    network.context_id = header.context_id;
    network.operation = header.operation;
    network.algorithm = header.algorithm;
    network.last = request.last;
    network.datatype = header.datatype;
    return network;
}

ProcessorHeader PacketFraming::carried_header(const NetworkRequest& request) const {
    ProcessorHeader carried = request.header;
    carried.rank = endpoint_;  // the source, identity-mapped
    return carried;
}

void PacketFraming::write_headers(const NetworkRequest& request, std::uint8_t* out) const {
    write_network_packet(network_header(request), carried_header(request), request.offset, nullptr, 0, out);
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

std::optional<std::string> ReceiveBuffer::refusal(std::uint8_t vc, std::uint32_t phits) const {
    if (vc == 0 && used_ + phits <= capacity_) return std::nullopt;
    return "a packet of " + std::to_string(phits) + " phits on VC " + std::to_string(vc) + " with " +
           std::to_string(capacity_ - used_) + " phits of credit outstanding on VC 0, the only VC granted";
}

}  // namespace isvp
