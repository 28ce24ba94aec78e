// Tree generations of the switch-resident engines
// (models/collective/isvp/tree_generation.h): a vertex acts only on the abort
// notices of the group it is configured for; a freed communicator's late
// notice, framed with its older generation, is ignored.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "isvp/collective_core.h"
#include "isvp/packet_network_core.h"
#include "isvp/tree_generation.h"

using namespace isvp;

namespace {

/// The abort notice a member's NIC engine (host 3) sends to its vertex
/// (switch engine 66) for the group of `generation` on context 4.
std::vector<std::uint8_t> abort_notice(std::uint8_t generation) {
    PacketFrame frame;
    frame.destination = 66;
    frame.traffic.opcode = Opcode::Allreduce;
    frame.traffic.context_id = 4;
    frame.step = kAbortStep;
    frame.carried.opcode = Opcode::Allreduce;
    frame.carried.context_id = 4;
    frame.carried.rank = 3;
    frame.carried.message_bytes = kAbortNoticeBytes;
    frame.payload_bytes = kAbortNoticeBytes;
    frame.generation = generation;
    std::vector<std::uint8_t> bytes(NetworkFraming::wire_bytes(frame.payload_bytes), 0);
    NetworkFraming(3, 1024).write_headers(frame, bytes.data());
    return bytes;
}

}  // namespace

TEST_CASE("tree generation: a vertex acts only on the abort notices of its own generation") {
    CHECK(takes_abort_notice(5, 5));
    CHECK_FALSE(takes_abort_notice(5, 4));  // the freed group's late notice
    CHECK_FALSE(takes_abort_notice(5, 6));
    CHECK(takes_abort_notice(13, 13 & kTreeGenerationBits));  // only the low bits travel
    CHECK_FALSE(takes_abort_notice(13, 4));
}

TEST_CASE("tree generation: an abort notice carries its group's generation in the offset word, offset 0") {
    const std::vector<std::uint8_t> bytes = abort_notice(14);
    const auto view = NetworkPacketView::parse(bytes.data(), bytes.size(), nullptr);
    REQUIRE(view);
    CHECK(view->network.step == kAbortStep);
    CHECK(view->offset == 0);
    CHECK(view->generation == (14 & kTreeGenerationBits));
    CHECK(view->payload_bytes == kAbortNoticeBytes);
    CHECK(takes_abort_notice(14, view->generation));        // the same group's vertex
    CHECK_FALSE(takes_abort_notice(15, view->generation));  // the next group's on the slot ignores it
}
