#include "isvp/qdma_config.h"

#include <sstream>

#include "isvp/packet_format.h"
#include "isvp/register_map.h"

namespace isvp {

namespace {

constexpr unsigned kMaxPacketPayload = 32768;  // CompletionEntry::length is 16 bits
constexpr unsigned kMaxBufferBytes = 16u << 20;



}  // namespace

void QdmaConfig::declare(Parameters& parameters) {
    const QdmaConfig defaults;
    parameters.declare_integer("qdma.packet_payload_bytes", "B", defaults.packet_payload_bytes, 16, kMaxPacketPayload,
                               "network packet payload capacity (power of two)");
    parameters.declare_integer("qdma.queues", "queues", defaults.queues, 1, regmap::kMaxQueues,
                               "QDMA queue pairs (H2C + C2H + CMPT)");
    parameters.declare_integer("qdma.rx_buffer_bytes", "B", defaults.rx_buffer_bytes, 64, kMaxBufferBytes,
                               "receive buffer behind the router's eject port (credits granted at time 0)");
    parameters.declare_integer("qdma.h2c_buffer_bytes", "B", defaults.h2c_buffer_bytes, 64, kMaxBufferBytes,
                               "H2C staging buffer: packet data read from the host ahead of the stream");
    parameters.declare_integer("qdma.descriptor_prefetch", "descriptors", defaults.descriptor_prefetch, 1, 512,
                               "descriptors fetched per DMA read (H2C and C2H)");
    parameters.declare_integer("qdma.stream_bits", "bits", defaults.stream_bits, 64, 4096,
                               "AXI4-Stream width toward the router, bits per cycle (power of two)");
    parameters.declare_real("qdma.clock_mhz", "MHz", defaults.clock_mhz, 1.0, 5000.0, "QDMA stream clock");
}

QdmaConfig QdmaConfig::from(const Parameters& parameters) {
    QdmaConfig config;
    config.packet_payload_bytes = static_cast<unsigned>(parameters.integer("qdma.packet_payload_bytes"));
    config.queues = static_cast<unsigned>(parameters.integer("qdma.queues"));
    config.rx_buffer_bytes = static_cast<unsigned>(parameters.integer("qdma.rx_buffer_bytes"));
    config.h2c_buffer_bytes = static_cast<unsigned>(parameters.integer("qdma.h2c_buffer_bytes"));
    config.descriptor_prefetch = static_cast<unsigned>(parameters.integer("qdma.descriptor_prefetch"));
    config.stream_bits = static_cast<unsigned>(parameters.integer("qdma.stream_bits"));
    config.clock_mhz = parameters.real("qdma.clock_mhz");
    config.validate();
    return config;
}

void QdmaConfig::validate() const {
    if (!is_power_of_two(packet_payload_bytes) || packet_payload_bytes < 16 || packet_payload_bytes > kMaxPacketPayload)
        refuse_parameter("qdma.packet_payload_bytes", "a power of two in [16, 32768] B", packet_payload_bytes);
    if (queues < 1 || queues > regmap::kMaxQueues) refuse_parameter("qdma.queues", "an integer in [1, 64] queues", queues);
    const unsigned packet_phit_bytes = (max_packet_bytes() + kCreditBytes - 1) / kCreditBytes * kCreditBytes;
    if (rx_buffer_bytes < packet_phit_bytes || rx_buffer_bytes > kMaxBufferBytes)
        refuse_parameter("qdma.rx_buffer_bytes",
               "at least one whole network packet (" + std::to_string(packet_phit_bytes) +
                   " B in 32-byte phits for qdma.packet_payload_bytes=" + std::to_string(packet_payload_bytes) +
                   ") and at most " + std::to_string(kMaxBufferBytes) + " B",
               rx_buffer_bytes);
    if (h2c_buffer_bytes < max_packet_bytes() || h2c_buffer_bytes > kMaxBufferBytes)
        refuse_parameter("qdma.h2c_buffer_bytes",
               "at least one whole network packet (" + std::to_string(max_packet_bytes()) + " B) and at most " +
                   std::to_string(kMaxBufferBytes) + " B",
               h2c_buffer_bytes);
    if (descriptor_prefetch < 1 || descriptor_prefetch > 512)
        refuse_parameter("qdma.descriptor_prefetch", "an integer in [1, 512] descriptors", descriptor_prefetch);
    if (!is_power_of_two(stream_bits) || stream_bits < 64 || stream_bits > 4096)
        refuse_parameter("qdma.stream_bits", "a power of two in [64, 4096] bits", stream_bits);
    if (!(clock_mhz >= 1.0 && clock_mhz <= 5000.0)) refuse_parameter("qdma.clock_mhz", "a number in [1, 5000] MHz", clock_mhz);
}

std::uint8_t QdmaConfig::size_code() const {
    return size_code_for(packet_payload_bytes).value_or(0);
}

unsigned QdmaConfig::max_packet_bytes() const {
    return static_cast<unsigned>(kNetworkPacketOverhead) + packet_payload_bytes;
}

}  // namespace isvp
