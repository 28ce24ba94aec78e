#include "isvp/qdma_config.h"

#include <sstream>

#include "isvp/packet_format.h"
#include "isvp/parameter_table.h"
#include "isvp/register_map.h"

namespace isvp {

namespace {

constexpr unsigned kMaxPacketPayload = 32768;  // CompletionEntry::length is 16 bits

/// The qdma.* parameters, each once (isvp/parameter_table.h).
constexpr auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Integer{"qdma.packet_payload_bytes", "B", 16, kMaxPacketPayload,
                             "network packet payload capacity", true},
              self.packet_payload_bytes);
    parameter(param::Integer{"qdma.queues", "queues", 1, regmap::kMaxQueues, "QDMA queue pairs (H2C + C2H + CMPT)"},
              self.queues);
    parameter(param::Integer{"qdma.rx_buffer_bytes", "B", 64, QdmaConfig::kMaxBufferBytes,
                             "receive buffer behind the router's eject port (credits granted at time 0)"},
              self.rx_buffer_bytes);
    parameter(param::Integer{"qdma.h2c_buffer_bytes", "B", 64, QdmaConfig::kMaxBufferBytes,
                             "H2C staging buffer: packet data read from the host ahead of the stream"},
              self.h2c_buffer_bytes);
    parameter(param::Integer{"qdma.descriptor_prefetch", "descriptors", 1, 512,
                             "descriptors fetched per DMA read (H2C and C2H)"},
              self.descriptor_prefetch);
    parameter(param::Integer{"qdma.stream_bits", "bits", 64, 4096,
                             "AXI4-Stream width toward the router, bits per cycle", true},
              self.stream_bits);
    parameter(param::Real{"qdma.clock_mhz", "MHz", 1.0, 5000.0, "QDMA stream clock"}, self.clock_mhz);
};

}  // namespace

void QdmaConfig::declare(Parameters& parameters) {
    param::declare_table<QdmaConfig>(parameters, kTable);
}

QdmaConfig QdmaConfig::from(const Parameters& parameters) {
    const QdmaConfig config = param::read_table<QdmaConfig>(parameters, kTable);
    config.validate();
    return config;
}

void QdmaConfig::validate() const {
    param::check_table(*this, kTable);
    // Between parameters: the buffers hold at least one whole packet.
    const unsigned packet_phit_bytes = max_packet_credit_bytes();
    if (rx_buffer_bytes < packet_phit_bytes)
        refuse_parameter("qdma.rx_buffer_bytes",
                         "at least one whole network packet (" + std::to_string(packet_phit_bytes) +
                             " B in 32-byte phits for qdma.packet_payload_bytes=" +
                             std::to_string(packet_payload_bytes) + ") and at most " +
                             std::to_string(kMaxBufferBytes) + " B",
                         rx_buffer_bytes);
    if (h2c_buffer_bytes < max_packet_bytes())
        refuse_parameter("qdma.h2c_buffer_bytes",
                         "at least one whole network packet (" + std::to_string(max_packet_bytes()) +
                             " B) and at most " + std::to_string(kMaxBufferBytes) + " B",
                         h2c_buffer_bytes);
}

PacketInterfaceConfig QdmaConfig::network_interface(std::uint16_t endpoint, std::uint32_t endpoints) const {
    static_assert(kCreditBytes == kPhitBytes, "validate() checks the receive buffer in the network's phits");
    PacketInterfaceConfig config;
    config.endpoint = endpoint;
    config.endpoints = endpoints;
    config.packet_payload_bytes = packet_payload_bytes;
    config.receive_buffer_bytes = rx_buffer_bytes;
    config.link_bytes_per_cycle = stream_bytes_per_cycle();
    config.link_clock_mhz = clock_mhz;
    return config;
}

unsigned QdmaConfig::max_packet_bytes() const {
    return static_cast<unsigned>(kNetworkPacketOverhead) + packet_payload_bytes;
}

unsigned QdmaConfig::max_packet_credit_bytes() const {
    return (max_packet_bytes() + kCreditBytes - 1) / kCreditBytes * kCreditBytes;
}

}  // namespace isvp
