// The PIO (inline) send path: a processor packet written by the host straight
// into a queue's BAR0 window (register_map.h, PIO(q)) becomes network packets
// with no descriptor fetch and no DMA read. Posted writes arrive in order, a
// PCIe latency after the host issued them; the write that completes the
// packet queues it for the emit stage at once.
#include <algorithm>
#include <string>

#include "isvp/qdma.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/qdma";
}

void Qdma::write_pio(unsigned q, std::uint32_t window_offset, std::uint32_t value) {
    PioState& pio = queue_at(q).pio;
    if (window_offset == 0) {
        // Offset 0 always starts a packet; one left unfinished is refused.
        if (pio.fill != 0)
            refuse_pio(q, pio.fill - 4,
                       "packet abandoned after " + std::to_string(pio.fill) + " bytes by a write at offset 0");
        pio = PioState{};
    } else if (pio.discarding) {
        return;  // the rest of a refused packet
    } else if (window_offset != pio.fill) {
        refuse_pio(q, window_offset,
                   "write at window offset " + std::to_string(window_offset) + " where offset " +
                       std::to_string(pio.fill) + " was next (PIO packets are written in ascending dwords from 0)");
        return;
    }
    for (int i = 0; i < 4; ++i) pio.bytes[window_offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
    pio.fill += 4;
    if (pio.fill < ProcessorHeader::kBytes) return;
    const auto header = ProcessorHeader::read(pio.bytes.data());
    if (!header || !network_.reaches(header->rank) || header->opcode == Opcode::Stream) {
        refuse_pio(q, window_offset,
                   !header ? std::string("processor header has a reserved opcode")
                   : header->opcode == Opcode::Stream
                       ? std::string("processor header has opcode stream (on-FPGA kernels' packets only)")
                       : "processor header names rank " + std::to_string(header->rank) + " of " +
                             std::to_string(network_.endpoints()));
        return;
    }
    const std::uint64_t total = ProcessorHeader::kBytes + static_cast<std::uint64_t>(header->message_bytes);
    if (total > regmap::PIO_STRIDE) {
        refuse_pio(q, window_offset,
                   "processor packet of " + std::to_string(total) + " bytes does not fit the " +
                       std::to_string(regmap::PIO_STRIDE) + "-byte window");
        return;
    }
    if (pio.fill >= total) send_pio(q);
}

void Qdma::refuse_pio(unsigned q, std::uint32_t window_offset, const std::string& why) {
    queue_at(q).pio = PioState{};
    queue_at(q).pio.discarding = true;  // until the next write at offset 0
    error_queue_ = q;
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": PIO packet on queue " + std::to_string(q) +
                                    " refused and discarded: " + why)
                                       .c_str());
    global_error(regmap::error_status::PIO, regmap::PIO(q) + window_offset);
}

void Qdma::send_pio(unsigned q) {
    Queue& queue = queue_at(q);
    const auto header = *ProcessorHeader::read(queue.pio.bytes.data());
    const std::uint8_t* payload = queue.pio.bytes.data() + ProcessorHeader::kBytes;
    const std::uint32_t count = segmenter_.packet_count(header.message_bytes);
    for (std::uint32_t index = 0; index < count; ++index) {
        const PacketPlan plan = segmenter_.packet(header.message_bytes, index);
        OutgoingPacket packet = network_.frame(NetworkRequest{header, plan.offset, plan.bytes, plan.last});
        std::copy(payload + plan.offset, payload + plan.offset + plan.bytes, packet.payload);
        H2cItem item;
        item.kind = H2cItem::Kind::Packet;
        item.queue = q;
        item.epoch = queue.h2c.epoch;
        item.at = sim_now();
        item.packet = packet;
        item.window_bytes = 0;  // not read through the staging buffer
        h2c_items_.push_back(std::move(item));
    }
    h2c_item_event_.notify(sc_core::SC_ZERO_TIME);
    queue.pio = PioState{};
}

}  // namespace isvp
