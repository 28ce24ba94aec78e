// H2C descriptor framing checks and message segmentation into network packets.
#include <catch2/catch.hpp>

#include <array>

#include "isvp/qdma_h2c_framer.h"

using namespace isvp;
using regmap::H2C_EOP;
using regmap::H2C_SOP;
using regmap::QueueError;

namespace {

std::array<std::uint8_t, 8> header_bytes(std::uint32_t message_bytes, std::uint16_t rank, unsigned opcode = 0) {
    std::uint64_t bits = ProcessorHeader{message_bytes, 0, 0, Opcode::Send, 0, 0, rank}.encode();
    bits = (bits & ~(0xFull << 38)) | static_cast<std::uint64_t>(opcode) << 38;
    std::array<std::uint8_t, 8> bytes{};
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(bits >> (8 * i));
    return bytes;
}

regmap::H2cDescriptor descriptor(std::uint32_t length, std::uint32_t flags) {
    return {0x1000, length, flags};
}

}  // namespace

TEST_CASE("qdma framer: one SOP|EOP descriptor of 8 + message_bytes frames a packet") {
    H2cFramer framer(4);
    CHECK(framer.accept_descriptor(descriptor(108, H2C_SOP | H2C_EOP)) == QueueError::None);
    CHECK(framer.accept_header(header_bytes(100, 3).data()) == QueueError::None);
    REQUIRE(framer.header());
    CHECK(framer.header()->message_bytes == 100);
    framer.end_packet();
    CHECK_FALSE(framer.in_packet());
}

TEST_CASE("qdma framer: zero or over-long descriptor lengths are DescriptorLength") {
    H2cFramer framer(4);
    CHECK(framer.accept_descriptor(descriptor(0, H2C_SOP | H2C_EOP)) == QueueError::DescriptorLength);
    CHECK(framer.accept_descriptor(descriptor(regmap::kMaxDescriptorBytes + 1, H2C_SOP)) ==
          QueueError::DescriptorLength);
}

TEST_CASE("qdma framer: a packet must start with SOP and contain no second SOP") {
    H2cFramer framer(4);
    CHECK(framer.accept_descriptor(descriptor(108, H2C_EOP)) == QueueError::PacketFraming);
    H2cFramer inside(4);
    CHECK(inside.accept_descriptor(descriptor(8, H2C_SOP)) == QueueError::None);
    CHECK(inside.accept_descriptor(descriptor(100, H2C_SOP | H2C_EOP)) == QueueError::PacketFraming);
}

TEST_CASE("qdma framer: descriptors must add up to exactly 8 + message_bytes, EOP on the last") {
    SECTION("EOP too early") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(50, H2C_SOP | H2C_EOP)) == QueueError::None);
        CHECK(framer.accept_header(header_bytes(100, 0).data()) == QueueError::PacketFraming);
    }
    SECTION("too long") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(200, H2C_SOP | H2C_EOP)) == QueueError::None);
        CHECK(framer.accept_header(header_bytes(100, 0).data()) == QueueError::PacketFraming);
    }
    SECTION("complete without EOP") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(108, H2C_SOP)) == QueueError::None);
        CHECK(framer.accept_header(header_bytes(100, 0).data()) == QueueError::PacketFraming);
    }
    SECTION("a later descriptor overruns") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(60, H2C_SOP)) == QueueError::None);
        CHECK(framer.accept_header(header_bytes(100, 0).data()) == QueueError::None);
        CHECK(framer.accept_descriptor(descriptor(60, H2C_EOP)) == QueueError::PacketFraming);
    }
    SECTION("shorter than its own header") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(4, H2C_SOP | H2C_EOP)) == QueueError::PacketFraming);
    }
    SECTION("split header, then exact") {
        H2cFramer framer(4);
        CHECK(framer.accept_descriptor(descriptor(4, H2C_SOP)) == QueueError::None);
        CHECK(framer.accept_descriptor(descriptor(104, H2C_EOP)) == QueueError::None);
        CHECK(framer.accept_header(header_bytes(100, 0).data()) == QueueError::None);
    }
}

TEST_CASE("qdma framer: reserved opcodes and ranks outside the network are PacketHeader") {
    H2cFramer framer(4);
    CHECK(framer.accept_descriptor(descriptor(108, H2C_SOP | H2C_EOP)) == QueueError::None);
    CHECK(framer.accept_header(header_bytes(100, 0, 12).data()) == QueueError::PacketHeader);
    H2cFramer stream(4);  // opcode 9: kernels' SMI packets, never the host's
    CHECK(stream.accept_descriptor(descriptor(108, H2C_SOP | H2C_EOP)) == QueueError::None);
    CHECK(stream.accept_header(header_bytes(100, 0, 9).data()) == QueueError::PacketHeader);
    H2cFramer rank(4);
    CHECK(rank.accept_descriptor(descriptor(108, H2C_SOP | H2C_EOP)) == QueueError::None);
    CHECK(rank.accept_header(header_bytes(100, 4).data()) == QueueError::PacketHeader);
    H2cFramer last(4);
    CHECK(last.accept_descriptor(descriptor(108, H2C_SOP | H2C_EOP)) == QueueError::None);
    CHECK(last.accept_header(header_bytes(100, 3).data()) == QueueError::None);
}

TEST_CASE("qdma segmenter: full packets then one partial, LAST on the final one") {
    const MessageSegmenter segmenter(1024);
    CHECK(segmenter.packet_count(5000) == 5);
    CHECK(segmenter.packet_count(4096) == 4);
    const PacketPlan third = segmenter.packet(5000, 2);
    CHECK(third.offset == 2048);
    CHECK(third.bytes == 1024);
    CHECK_FALSE(third.last);
    const PacketPlan fifth = segmenter.packet(5000, 4);
    CHECK(fifth.offset == 4096);
    CHECK(fifth.bytes == 904);
    CHECK(fifth.last);
}

TEST_CASE("qdma segmenter: a zero-byte message is one empty last packet") {
    const MessageSegmenter segmenter(1024);
    CHECK(segmenter.packet_count(0) == 1);
    const PacketPlan only = segmenter.packet(0, 0);
    CHECK(only.bytes == 0);
    CHECK(only.last);
}

TEST_CASE("qdma segmenter: trains only as long as leave a message 256 of them (network.flow_train_packets)") {
    const MessageSegmenter segmenter(16384, 1024);          // trains of up to 16 hardware packets of 1 KiB
    CHECK(segmenter.capacity_for(64 * 1024) == 1024);       // 64 hardware packets: no trains
    CHECK(segmenter.capacity_for(512 * 1024 - 1) == 1024);  // just short of 256 trains of 2
    CHECK(segmenter.capacity_for(512 * 1024) == 2048);
    CHECK(segmenter.capacity_for(1024 * 1024) == 4096);
    CHECK(segmenter.capacity_for(4 * 1024 * 1024) == 16384);
    CHECK(segmenter.capacity_for(64 * 1024 * 1024) == 16384);  // never beyond the packet
    CHECK(segmenter.packet_count(1024 * 1024) == 256);
    const PacketPlan last = segmenter.packet(1024 * 1024 + 100, 256);
    CHECK(last.offset == 1024 * 1024);
    CHECK(last.bytes == 100);
    CHECK(last.last);
    CHECK(MessageSegmenter(16384).capacity_for(8) == 16384);  // without trains: the packet size
}
