// Transport wire protocol: layout, round trips, refusal of malformed records.
#include <catch2/catch.hpp>

#include "isvp/transport_protocol.h"

using namespace isvp::transport;

namespace {

Message sample() {
    Message message;
    message.type = MessageType::MmioWrite;
    message.rank = 3;
    message.time_ps = 0x0102030405060708ull;
    message.arg0 = 0x1004;
    message.arg1 = 0xCAFEF00D;
    return message;
}

}  // namespace

TEST_CASE("transport protocol: a message is 40 little-endian bytes") {
    const WireMessage wire = encode(sample());
    REQUIRE(wire.size() == 40);
    CHECK(wire[0] == 'I');
    CHECK(wire[1] == 'S');
    CHECK(wire[2] == 'V');
    CHECK(wire[3] == 'T');
    CHECK(wire[4] == 1);  // version
    CHECK(wire[5] == 0);
    CHECK(wire[6] == static_cast<std::uint8_t>(MessageType::MmioWrite));
    CHECK(wire[8] == 3);    // rank
    CHECK(wire[12] == 40);  // length
    CHECK(wire[16] == 0x08);
    CHECK(wire[23] == 0x01);
    CHECK(wire[24] == 0x04);
    CHECK(wire[25] == 0x10);
    CHECK(wire[32] == 0x0D);
    CHECK(wire[35] == 0xCA);
}

TEST_CASE("transport protocol: encode and decode round trip") {
    const WireMessage wire = encode(sample());
    const Decoded decoded = decode(wire.data(), Direction::ToSimulator);
    REQUIRE(decoded.message);
    CHECK(decoded.length == 40);
    CHECK(decoded.message->type == MessageType::MmioWrite);
    CHECK(decoded.message->rank == 3);
    CHECK(decoded.message->time_ps == 0x0102030405060708ull);
    CHECK(decoded.message->arg0 == 0x1004);
    CHECK(decoded.message->arg1 == 0xCAFEF00D);
}

TEST_CASE("transport protocol: a bad magic is refused naming it") {
    WireMessage wire = encode(sample());
    wire[0] = 'X';
    const Decoded decoded = decode(wire.data(), Direction::ToSimulator);
    CHECK_FALSE(decoded.message);
    CHECK_THAT(decoded.error, Catch::Contains("bad magic") && Catch::Contains("not an isvp guest"));
}

TEST_CASE("transport protocol: another version is refused naming both") {
    WireMessage wire = encode(sample());
    wire[4] = 2;
    const Decoded decoded = decode(wire.data(), Direction::ToSimulator);
    CHECK_FALSE(decoded.message);
    CHECK_THAT(decoded.error, Catch::Contains("protocol version 2") && Catch::Contains("version 1"));
}

TEST_CASE("transport protocol: each direction accepts only its own types") {
    Message reply = sample();
    reply.type = MessageType::ReadReply;
    CHECK_FALSE(decode(encode(reply).data(), Direction::ToSimulator).message);
    CHECK(decode(encode(reply).data(), Direction::ToGuest).message);
    CHECK_FALSE(decode(encode(sample()).data(), Direction::ToGuest).message);
    WireMessage unknown = encode(sample());
    unknown[6] = 77;
    CHECK_THAT(decode(unknown.data(), Direction::ToSimulator).error, Catch::Contains("type 77"));
}

TEST_CASE("transport protocol: a length other than 40 is refused, except an Error's text") {
    const Decoded huge = decode(encode(sample(), 0x7FFFFFFF).data(), Direction::ToSimulator);
    CHECK_FALSE(huge.message);
    CHECK_THAT(huge.error, Catch::Contains("length field 2147483647"));
    CHECK_FALSE(decode(encode(sample(), 39).data(), Direction::ToSimulator).message);

    const std::vector<std::uint8_t> error = encode_error(1, 5, ErrorCode::Deadlock, "nobody will wake you");
    REQUIRE(error.size() == 40 + 20);
    const Decoded decoded = decode(error.data(), Direction::ToGuest);
    REQUIRE(decoded.message);
    CHECK(decoded.message->type == MessageType::Error);
    CHECK(decoded.message->arg0 == static_cast<std::uint64_t>(ErrorCode::Deadlock));
    CHECK(decoded.length == 60);
    CHECK(std::string(error.begin() + 40, error.end()) == "nobody will wake you");
}

TEST_CASE("transport protocol: an Error's text is capped") {
    const std::vector<std::uint8_t> error = encode_error(0, 0, ErrorCode::Protocol, std::string(10000, 'x'));
    CHECK(error.size() == 40 + kMaxErrorText);
    CHECK(decode(error.data(), Direction::ToGuest).message);
}

TEST_CASE("transport protocol: times and vector sets print exactly") {
    CHECK(format_time_ps(0) == "0.000000 us");
    CHECK(format_time_ps(1234567) == "1.234567 us");
    CHECK(format_time_ps(12000000000001ull) == "12000000.000001 us");
    CHECK(describe_vectors((1ull << 2) | (1ull << 5) | (1ull << 63)) == "{2, 5, 63}");
    CHECK(lowest_vector((1ull << 9) | (1ull << 4)) == 4);
}
