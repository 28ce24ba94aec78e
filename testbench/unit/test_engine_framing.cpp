// NetworkFraming (models/network_interface): the one place a network
// packet's headers are composed and its VC chosen, for a node's host
// endpoint (through PacketFraming) and for the engines — a collective engine
// at a node or a switch, a kernel unit; and CreditLedger, the per-VC send
// credits of an engine's credited output port (CreditedOutPort).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "isvp/packet_network_core.h"
#include "isvp/parameters.h"

using namespace isvp;

namespace {

/// A switch engine (address 70 behind 64 hosts) sends a tree data packet.
PacketFrame tree_data_frame() {
    PacketFrame frame;
    frame.destination = 71;  // another switch engine
    frame.traffic = {Opcode::Allreduce, 7, 2, 1, 9};
    frame.step = 3;  // the tree's slot + 1
    frame.carried.message_bytes = 4096;
    frame.carried.opcode = Opcode::Allreduce;
    frame.carried.context_id = 7;
    frame.carried.rank = 70;  // the sender, as the receiver should see it
    frame.offset = 3072;
    frame.generation = 13;  // low 3 bits (5) ride the offset word
    frame.payload_bytes = 1024;
    return frame;
}

std::vector<std::uint8_t> written(const NetworkFraming& framing, const PacketFrame& frame) {
    std::vector<std::uint8_t> bytes(NetworkFraming::wire_bytes(frame.payload_bytes), 0xEE);
    framing.write_headers(frame, bytes.data());
    return bytes;
}

}  // namespace

TEST_CASE("engine framing: the network header carries an engine's destination, class, step and size code") {
    const NetworkFraming framing(70, 1024);
    CHECK(framing.address() == 70);
    const NetworkHeader network = framing.network_header(tree_data_frame());
    CHECK(network.size_code == 6);  // 16 << 6 = 1024
    CHECK(network.destination == 71);
    CHECK(network.opcode == Opcode::Allreduce);
    CHECK(network.context_id == 7);
    CHECK(network.operation == 2);
    CHECK(network.algorithm == 1);
    CHECK(network.datatype == 9);
    CHECK(network.step == 3);
    CHECK(network.last);  // 3072 + 1024 reaches the 4096-byte message
}

TEST_CASE("engine framing: last is derived from offset and message size unless the sender states it") {
    const NetworkFraming framing(0, 1024);
    PacketFrame frame = tree_data_frame();
    frame.offset = 2048;
    CHECK_FALSE(framing.network_header(frame).last);
    frame.offset = 3072;
    frame.generation = 7;  // the generation bits do not count as offset
    CHECK(framing.network_header(frame).last);
    frame.last = false;  // a kernel's stream packet says it itself
    CHECK_FALSE(framing.network_header(frame).last);
    frame.offset = 0;
    frame.last = true;
    CHECK(framing.network_header(frame).last);
}

TEST_CASE("engine framing: the carried header is written as given, the tree generation in the offset word") {
    const NetworkFraming framing(70, 1024);
    std::vector<std::uint8_t> bytes = written(framing, tree_data_frame());
    CHECK(bytes.size() == kNetworkPacketOverhead + 1024);
    std::string why;
    const auto view = NetworkPacketView::parse(bytes.data(), bytes.size(), &why);
    REQUIRE(view);
    CHECK(view->processor.rank == 70);  // not replaced by the engine's address rule of a host endpoint
    CHECK(view->processor.message_bytes == 4096);
    CHECK(view->offset == 3072);
    CHECK(view->generation == (13 & 7));
    CHECK(view->payload_bytes == 1024);
    CHECK(bytes[kNetworkPacketOverhead] == 0xEE);  // the payload area is left to the sender
    CHECK(NetworkFraming::offset_word(tree_data_frame()) == tree_offset_word(3072, 13));
}

TEST_CASE("engine framing: a packet without a generation has the plain offset in its word") {
    PacketFrame frame = tree_data_frame();
    frame.generation = 0;
    CHECK(NetworkFraming::offset_word(frame) == 3072);
}

TEST_CASE("engine framing: every class of traffic of every sender is injected on the inject VC") {
    const NetworkFraming engine(70, 1024);
    const PacketFraming host(3, 8, 1024);
    for (unsigned code = 0; code < kOpcodeCount; ++code) {
        TrafficClass traffic;
        traffic.opcode = *opcode_from_code(code);
        CHECK(engine.vc_for(traffic) == NetworkFraming::kInjectVc);
        ProcessorHeader header;
        header.opcode = traffic.opcode;
        CHECK(host.vc_for(header) == engine.vc_for(TrafficClass::of(header)));
    }
    CHECK(NetworkFraming::kInjectVc == 0);
}

TEST_CASE("engine framing: a host endpoint's packet is framed by the same code as an engine's") {
    const PacketFraming host(3, 8, 1024);
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
    const PacketFrame frame = host.frame(request);
    CHECK(frame.destination == 5);
    CHECK(frame.carried.rank == 3);
    CHECK(frame.step == 0);
    CHECK(frame.generation == 0);
    std::vector<std::uint8_t> by_host(PacketFraming::wire_bytes(952), 0);
    host.write_headers(request, by_host.data());
    std::vector<std::uint8_t> by_engine_code(NetworkFraming::wire_bytes(952), 0);
    NetworkFraming(3, 1024).write_headers(frame, by_engine_code.data());
    CHECK(by_host == by_engine_code);
}

TEST_CASE("engine framing: a packet framed again from its parsed view is the same packet") {
    const NetworkFraming framing(70, 1024);
    const std::vector<std::uint8_t> first = written(framing, tree_data_frame());
    const auto view = NetworkPacketView::parse(first.data(), first.size(), nullptr);
    REQUIRE(view);
    const PacketFrame again = NetworkFraming::frame_of(*view);
    CHECK(again.destination == 71);
    CHECK(again.step == 3);
    CHECK(again.generation == (13 & 7));
    CHECK(written(framing, again) == first);
}

TEST_CASE("engine framing: the size code is the smallest holding the payload capacity, a larger one is refused") {
    CHECK(NetworkFraming(0, 8).size_code() == 0);  // a kernel's small stream packets: 16 B capacity
    CHECK(NetworkFraming(0, 1000).size_code() == 6);
    CHECK(NetworkFraming(0, 1024).size_code() == 6);
    CHECK(NetworkFraming(0, 524288).size_code() == 15);
    CHECK_THROWS_WITH(NetworkFraming(0, 524289), Catch::Contains("524288") && Catch::Contains("524289"));
    CHECK(NetworkFraming::wire_phits(14) == 1);  // 18 + 14 = 32 B
    CHECK(NetworkFraming::wire_phits(15) == 2);
}

TEST_CASE("credit ledger: credits count per VC and a packet takes them on its own VC only") {
    CreditLedger ledger;
    ledger.grant(0, 10);
    ledger.grant(2, 4);
    CHECK(ledger.space_to_send(0, 10));
    CHECK_FALSE(ledger.space_to_send(1, 1));  // never granted
    CHECK_FALSE(ledger.space_to_send(2, 5));
    CHECK(ledger.take(2, 3));
    CHECK(ledger.available(2) == 1);
    CHECK(ledger.available(0) == 10);
    CHECK_FALSE(ledger.take(0, 11));  // too few: nothing taken
    CHECK(ledger.available(0) == 10);
}

TEST_CASE("credit ledger: a return in flight counts from its due time, earliest first") {
    CreditLedger ledger;
    CHECK_FALSE(ledger.next_due());
    ledger.arrive(1, 6, 500);
    ledger.arrive(0, 3, 200);
    ledger.arrive(0, 2, 900);
    REQUIRE(ledger.next_due());
    CHECK(*ledger.next_due() == 200);
    ledger.settle(199);
    CHECK(ledger.available(0) == 0);
    ledger.settle(500);  // both due by then; the VC 1 return stays on VC 1
    CHECK(ledger.available(0) == 3);
    CHECK(ledger.available(1) == 6);
    CHECK(*ledger.next_due() == 900);
    ledger.settle(1000);
    CHECK(ledger.available(0) == 5);
    CHECK_FALSE(ledger.next_due());
}
