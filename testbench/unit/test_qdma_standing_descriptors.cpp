// Standing descriptors (H2C_CONTROL.PREFETCH, the prefetch send path): a
// descriptor is a buffer, and the packet's header says how much of each
// buffer it uses.
#include <catch2/catch.hpp>

#include <array>

#include "isvp/qdma_h2c_framer.h"

using namespace isvp;
using regmap::H2C_EOP;
using regmap::H2C_SDI;
using regmap::H2C_SOP;
using regmap::QueueError;

namespace {

std::array<std::uint8_t, 8> header_bytes(std::uint32_t message_bytes, std::uint16_t rank) {
    const std::uint64_t bits = ProcessorHeader{message_bytes, 0, 0, Opcode::Send, 0, 0, rank}.encode();
    std::array<std::uint8_t, 8> bytes{};
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(bits >> (8 * i));
    return bytes;
}

regmap::H2cDescriptor buffer(std::uint32_t capacity) {
    return {0x1000, capacity, H2C_SDI | H2C_EOP};  // SOP/EOP as written are ignored
}

}  // namespace

TEST_CASE("standing descriptors: a packet smaller than its buffer uses 8 + message_bytes of it") {
    H2cFramer framer(4);
    regmap::H2cDescriptor first = buffer(4096);
    REQUIRE(framer.accept_standing(first) == QueueError::None);
    CHECK(first.flags == (H2C_SOP | H2C_SDI));
    REQUIRE(framer.accept_header(header_bytes(24, 1).data()) == QueueError::None);
    CHECK(framer.described_bytes() == 32);
    CHECK(framer.eop_seen());
}

TEST_CASE("standing descriptors: a packet larger than one buffer fills consecutive buffers, EOP on the last") {
    H2cFramer framer(4);
    regmap::H2cDescriptor first = buffer(1024);
    REQUIRE(framer.accept_standing(first) == QueueError::None);
    REQUIRE(framer.accept_header(header_bytes(2500, 2).data()) == QueueError::None);
    CHECK(framer.described_bytes() == 1024);
    CHECK_FALSE(framer.eop_seen());
    regmap::H2cDescriptor second = buffer(1024);
    REQUIRE(framer.accept_standing(second) == QueueError::None);
    CHECK(second.length == 1024);
    CHECK(second.flags == H2C_SDI);
    regmap::H2cDescriptor third = buffer(1024);
    REQUIRE(framer.accept_standing(third) == QueueError::None);
    CHECK(third.length == 2508 - 2048);
    CHECK(third.flags == (H2C_SDI | H2C_EOP));
    framer.end_packet();
    // The next packet starts in the next buffer.
    regmap::H2cDescriptor next = buffer(1024);
    REQUIRE(framer.accept_standing(next) == QueueError::None);
    CHECK((next.flags & H2C_SOP) != 0);
}

TEST_CASE("standing descriptors: a buffer too small for the header, or over-long, is DescriptorLength") {
    H2cFramer framer(4);
    regmap::H2cDescriptor tiny = buffer(7);
    CHECK(framer.accept_standing(tiny) == QueueError::DescriptorLength);
    regmap::H2cDescriptor huge = buffer(regmap::kMaxDescriptorBytes + 1);
    CHECK(framer.accept_standing(huge) == QueueError::DescriptorLength);
}

TEST_CASE("standing descriptors: a header naming a rank outside the network is PacketHeader") {
    H2cFramer framer(4);
    regmap::H2cDescriptor first = buffer(256);
    REQUIRE(framer.accept_standing(first) == QueueError::None);
    CHECK(framer.accept_header(header_bytes(16, 9).data()) == QueueError::PacketHeader);
}
