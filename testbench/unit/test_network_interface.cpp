// The packet network adapter's core (models/network_interface): what the
// node's network interface decides for the packet channel — endpoints,
// headers, VC, send credits, receive buffer.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/packet_network_core.h"
#include "isvp/parameters.h"

using namespace isvp;

namespace {

NetworkRequest allreduce_request() {
    NetworkRequest request;
    request.header.message_bytes = 3000;
    request.header.context_id = 9;
    request.header.operation = 3;
    request.header.opcode = Opcode::Allreduce;
    request.header.algorithm = 2;
    request.header.datatype = 8;
    request.header.rank = 5;
    request.offset = 2048;
    request.payload_bytes = 952;
    request.last = true;
    return request;
}

}  // namespace

TEST_CASE("network interface: the network header names the destination's node and copies the traffic class") {
    const PacketFraming framing(1, 8, 1024);
    const NetworkHeader network = framing.network_header(allreduce_request());
    CHECK(network.size_code == 6);  // 16 << 6 = 1024
    CHECK(network.destination == 5);
    CHECK(network.opcode == Opcode::Allreduce);
    CHECK(network.context_id == 9);
    CHECK(network.operation == 3);
    CHECK(network.algorithm == 2);
    CHECK(network.datatype == 8);
    CHECK(network.last);
    CHECK(network.step == 0);
}

TEST_CASE("network interface: the carried processor header names the source endpoint") {
    const PacketFraming framing(3, 8, 1024);
    const ProcessorHeader carried = framing.carried_header(allreduce_request());
    CHECK(carried.rank == 3);
    CHECK(carried.message_bytes == 3000);
    CHECK(carried.opcode == Opcode::Allreduce);
    CHECK(carried.context_id == 9);
}

TEST_CASE("network interface: written headers parse back as a network packet with the payload area behind them") {
    const PacketFraming framing(3, 8, 1024);
    NetworkRequest request = allreduce_request();
    std::vector<std::uint8_t> bytes(PacketFraming::wire_bytes(request.payload_bytes), 0);
    CHECK(bytes.size() == kNetworkPacketOverhead + 952);
    framing.write_headers(request, bytes.data());
    for (std::uint32_t i = 0; i < request.payload_bytes; ++i)
        bytes[kNetworkPacketOverhead + i] = static_cast<std::uint8_t>(i);
    std::string why;
    const auto view = NetworkPacketView::parse(bytes.data(), bytes.size(), &why);
    REQUIRE(view);
    CHECK(view->network.destination == 5);
    CHECK(view->processor.rank == 3);
    CHECK(view->offset == 2048);
    CHECK(view->payload_bytes == 952);
    CHECK(view->payload[951] == static_cast<std::uint8_t>(951));
}

TEST_CASE("network interface: a rank is reachable only below the endpoint count") {
    const PacketFraming framing(0, 4, 1024);
    CHECK(framing.reaches(0));
    CHECK(framing.reaches(3));
    CHECK_FALSE(framing.reaches(4));
    CHECK(framing.endpoint_of_rank(2) == 2);
}

TEST_CASE("network interface: every class of traffic is injected on VC 0") {
    const PacketFraming framing(0, 4, 1024);
    ProcessorHeader header;
    for (const Opcode opcode : {Opcode::Send, Opcode::Allreduce, Opcode::Bcast, Opcode::Barrier}) {
        header.opcode = opcode;
        CHECK(framing.vc_for(header) == 0);
    }
}

TEST_CASE("network interface: a bad endpoint or packet size is refused by name") {
    CHECK_THROWS_WITH(PacketFraming(4, 4, 1024), Catch::Contains("endpoint 4 must be below the endpoint count 4"));
    CHECK_THROWS_WITH(PacketFraming(0, 0, 1024), Catch::Contains("endpoint count 0"));
    CHECK_THROWS_WITH(PacketFraming(0, 4, 1000),
                      Catch::Contains("power of two 16..524288 B (16 << the header size code), got 1000"));
    CHECK_THROWS_WITH(PacketFraming(0, 4, 1u << 20), Catch::Contains("got 1048576"));
}

TEST_CASE("network interface: no space to send before the receiver grants credits") {
    SendCredits credits;
    CHECK(credits.available(0) == 0);
    CHECK_FALSE(credits.space_to_send(0, 1));
    CHECK(credits.space_to_send(0, 0));
}

TEST_CASE("network interface: a send takes the packet's credits of its VC only") {
    SendCredits credits;
    credits.grant(0, 100);
    credits.grant(2, 7);
    CHECK(credits.space_to_send(0, 100));
    CHECK(credits.take(0, 60));
    CHECK(credits.available(0) == 40);
    CHECK_FALSE(credits.space_to_send(0, 41));
    CHECK_FALSE(credits.take(0, 41));
    CHECK(credits.available(0) == 40);  // a refused take takes nothing
    CHECK(credits.available(1) == 0);
    CHECK(credits.available(2) == 7);
    credits.grant(0, 1);
    CHECK(credits.take(0, 41));
    CHECK(credits.available(0) == 0);
}

TEST_CASE("network interface: the receive buffer accepts VC 0 up to its capacity and frees on release") {
    ReceiveBuffer buffer(1024);
    CHECK(buffer.capacity() == 1024);
    CHECK_FALSE(buffer.refusal(0, 1024));
    buffer.occupy(1000);
    CHECK(buffer.used() == 1000);
    CHECK_FALSE(buffer.refusal(0, 24));
    const auto over = buffer.refusal(0, 25);
    REQUIRE(over);
    CHECK_THAT(*over, Catch::Contains("25 phits on VC 0 with 24 phits of credit outstanding"));
    buffer.free(1000);
    CHECK(buffer.used() == 0);
}

TEST_CASE("network interface: the receive buffer refuses a packet on a VC it never granted") {
    const ReceiveBuffer buffer(1024);
    const auto refusal = buffer.refusal(1, 4);
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::Contains("on VC 1"));
    CHECK_THAT(*refusal, Catch::Contains("the only VC granted"));
}
