#include "isvp/qdma_h2c_framer.h"

#include <algorithm>

namespace isvp {

using regmap::QueueError;

void H2cFramer::reset() {
    in_packet_ = false;
    eop_seen_ = false;
    standing_ = false;
    described_bytes_ = 0;
    header_.reset();
}

QueueError H2cFramer::accept_standing(regmap::H2cDescriptor& descriptor) {
    if (descriptor.length < ProcessorHeader::kBytes || descriptor.length > regmap::kMaxDescriptorBytes)
        return QueueError::DescriptorLength;
    descriptor.flags &= regmap::H2C_SDI;
    if (!in_packet_) {
        // The first buffer holds the whole header (capacity >= 8); its used
        // length is known once the header is (accept_header trims it).
        reset();
        in_packet_ = true;
        standing_ = true;
        described_bytes_ = descriptor.length;
        descriptor.flags |= regmap::H2C_SOP;
        return QueueError::None;
    }
    const std::uint64_t expected = ProcessorHeader::kBytes + static_cast<std::uint64_t>(header_->message_bytes);
    descriptor.length =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(descriptor.length, expected - described_bytes_));
    described_bytes_ += descriptor.length;
    if (described_bytes_ == expected) {
        eop_seen_ = true;
        descriptor.flags |= regmap::H2C_EOP;
    }
    return QueueError::None;
}

QueueError H2cFramer::accept_descriptor(const regmap::H2cDescriptor& descriptor) {
    if (descriptor.length == 0 || descriptor.length > regmap::kMaxDescriptorBytes) return QueueError::DescriptorLength;
    const bool sop = descriptor.flags & regmap::H2C_SOP;
    const bool eop = descriptor.flags & regmap::H2C_EOP;
    if (in_packet_ == sop) return QueueError::PacketFraming;  // SOP missing, or SOP inside a packet
    if (sop) reset();
    in_packet_ = true;
    eop_seen_ = eop;
    described_bytes_ += descriptor.length;
    if (!header_) {
        // Before the header is known only its own size can be checked.
        if (eop && described_bytes_ < ProcessorHeader::kBytes) return QueueError::PacketFraming;
        return QueueError::None;
    }
    return check_total();
}

QueueError H2cFramer::accept_header(const std::uint8_t* header_bytes) {
    const auto header = ProcessorHeader::read(header_bytes);
    if (!header) return QueueError::PacketHeader;                           // reserved opcode
    if (header->opcode == Opcode::Stream) return QueueError::PacketHeader;  // kernels' packets only
    if (header->rank >= endpoints_) return QueueError::PacketHeader;
    header_ = header;
    if (standing_) {
        const std::uint64_t expected = ProcessorHeader::kBytes + static_cast<std::uint64_t>(header_->message_bytes);
        described_bytes_ = std::min(described_bytes_, expected);
        eop_seen_ = described_bytes_ == expected;
    }
    return check_total();
}

QueueError H2cFramer::check_total() const {
    const std::uint64_t expected = ProcessorHeader::kBytes + static_cast<std::uint64_t>(header_->message_bytes);
    if (described_bytes_ > expected) return QueueError::PacketFraming;
    if (eop_seen_ != (described_bytes_ == expected)) return QueueError::PacketFraming;
    return QueueError::None;
}

PacketPlan MessageSegmenter::packet(std::uint32_t message_bytes, std::uint32_t index) const {
    PacketPlan plan;
    const std::uint32_t capacity = capacity_for(message_bytes);
    plan.offset = index * capacity;
    plan.bytes = message_bytes > plan.offset ? std::min(capacity, message_bytes - plan.offset) : 0;
    plan.last = index + 1 >= packet_count(message_bytes);
    return plan;
}

}  // namespace isvp
