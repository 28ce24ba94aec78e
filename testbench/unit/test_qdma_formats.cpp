// Byte layout of descriptors, completion entries and status writeback.
#include <catch2/catch.hpp>

#include <array>

#include "isvp/qdma_formats.h"

using namespace isvp;

TEST_CASE("qdma formats: an H2C descriptor is address, length, flags little-endian in 16 bytes") {
    std::array<std::uint8_t, 16> bytes{};
    encode_h2c_descriptor({0x1122334455667788ull, 0x0000FFFFu, regmap::H2C_SOP | regmap::H2C_EOP}, bytes.data());
    CHECK(bytes[0] == 0x88);
    CHECK(bytes[7] == 0x11);
    CHECK(bytes[8] == 0xFF);
    CHECK(bytes[9] == 0xFF);
    CHECK(bytes[12] == 3);
    const auto decoded = decode_h2c_descriptor(bytes.data());
    CHECK(decoded.address == 0x1122334455667788ull);
    CHECK(decoded.length == 0xFFFF);
    CHECK(decoded.flags == 3);
}

TEST_CASE("qdma formats: a C2H descriptor is one little-endian address") {
    std::array<std::uint8_t, 8> bytes{};
    encode_c2h_descriptor({0xABCDEF01ull}, bytes.data());
    CHECK(bytes[0] == 0x01);
    CHECK(bytes[3] == 0xAB);
    CHECK(decode_c2h_descriptor(bytes.data()).address == 0xABCDEF01ull);
}

TEST_CASE("qdma formats: a completion entry keeps header, offset, length and flags in place") {
    std::array<std::uint8_t, 16> bytes{};
    regmap::CompletionEntry entry{0x0102030405060708ull, 0x400, 904, regmap::CMPT_LAST | regmap::CMPT_COLOR};
    encode_completion_entry(entry, bytes.data());
    CHECK(bytes[0] == 0x08);
    CHECK(bytes[9] == 0x04);
    CHECK(bytes[12] == (904 & 0xFF));
    CHECK(bytes[15] == 0x80);  // colour is bit 15
    const auto decoded = decode_completion_entry(bytes.data());
    CHECK(decoded.header == entry.header);
    CHECK(decoded.offset == entry.offset);
    CHECK(decoded.length == entry.length);
    CHECK(decoded.flags == entry.flags);
}

TEST_CASE("qdma formats: status writeback is pidx, cidx, then colour and error flags") {
    std::array<std::uint8_t, 8> bytes{};
    encode_status_writeback({0x1234, 0x0042, kWritebackColour | kWritebackError}, bytes.data());
    CHECK(bytes[0] == 0x34);
    CHECK(bytes[1] == 0x12);
    CHECK(bytes[2] == 0x42);
    CHECK(bytes[4] == 3);
    const auto decoded = decode_status_writeback(bytes.data());
    CHECK(decoded.pidx == 0x1234);
    CHECK(decoded.cidx == 0x42);
    CHECK(decoded.flags == 3);
}
