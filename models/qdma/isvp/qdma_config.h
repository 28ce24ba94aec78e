// Parameters of the QDMA engine (see models/qdma/README.md). SystemC-free.
#pragma once

#include <cstdint>

#include "isvp/packet_network_core.h"
#include "isvp/parameters.h"

namespace isvp {

struct QdmaConfig {
    unsigned packet_payload_bytes = 1024;  ///< network packet payload capacity, B (power of two)
    unsigned queues = 64;                  ///< queue pairs, <= regmap::kMaxQueues
    unsigned rx_buffer_bytes = 32768;      ///< receive buffer behind the router's eject port, B
    unsigned h2c_buffer_bytes = 32768;     ///< H2C staging buffer: data read ahead of the stream, B
    unsigned descriptor_prefetch = 64;     ///< descriptors fetched per DMA read
    unsigned stream_bits = 512;            ///< AXI4-Stream width toward the router, bits per cycle
    double clock_mhz = 250.0;              ///< stream clock, MHz
    /// job.timing_only (set by the platform, not a qdma.* parameter): the
    /// payload of collective result packets (not error results) is not
    /// written into the C2H buffers; the PCIe link is charged the same.
    bool timing_only = false;
    /// network.flow_train_packets > 1 (set by the platform, not a qdma.*
    /// parameter): the hardware packet payload of which packet_payload_bytes
    /// is a train; messages are cut into trains only as long as they allow
    /// (MessageSegmenter). 0: none.
    std::uint32_t train_payload_bytes = 0;

    /// Bytes per phit of the receive buffer's credits (isvp::kPhitBytes).
    static constexpr unsigned kCreditBytes = 32;
    /// Largest qdma.rx_buffer_bytes and qdma.h2c_buffer_bytes.
    static constexpr unsigned kMaxBufferBytes = 16u << 20;

    /// Declares the qdma.* parameters with their defaults, units and ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates the qdma.* parameters.
    static QdmaConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;

    /// Bytes of the largest network packet (headers + full payload).
    unsigned max_packet_bytes() const;
    /// The same in whole 32-byte credits: the least qdma.rx_buffer_bytes.
    unsigned max_packet_credit_bytes() const;
    unsigned stream_bytes_per_cycle() const { return stream_bits / 8; }
    /// The QDMA's network interface: endpoint `endpoint` of `endpoints`,
    /// this packet size, receive buffer and stream toward the router.
    PacketInterfaceConfig network_interface(std::uint16_t endpoint, std::uint32_t endpoints) const;
};

}  // namespace isvp
