// A switch tree's generation on the wire (models/common/isvp/packet_format.h,
// docs/COLLECTIVES.md "Generations"): a tree configuration carries it in the
// high byte of its slot word, a tree data packet its low 3 bits in the top
// bits of its offset word, and neither changes what the rest reads.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/packet_format.h"

using namespace isvp;

TEST_CASE("tree generation: a configuration carries it beside its slot", "[switch tree]") {
    TreeConfig config;
    config.target = 9;
    config.slot = 0xF8;
    config.generation = 0xA5;
    config.parent = 11;
    config.inputs = {1, 2};
    std::vector<std::uint8_t> bytes(config.bytes());
    config.write(bytes.data());
    CHECK(bytes[2] == 0xF8);  // the slot word: slot, then generation
    CHECK(bytes[3] == 0xA5);
    const std::optional<TreeConfig> read = TreeConfig::read(bytes.data(), bytes.size());
    REQUIRE(read);
    CHECK(read->slot == 0xF8);
    CHECK(read->generation == 0xA5);
    CHECK(read->parent == 11);
    CHECK(read->inputs == config.inputs);
}

TEST_CASE("tree generation: a data packet's offset word carries its low bits, the offset stays", "[switch tree]") {
    NetworkHeader network;
    network.opcode = Opcode::Allreduce;
    network.size_code = 6;  // 1 KiB
    network.step = 1;
    ProcessorHeader processor;
    processor.opcode = Opcode::Allreduce;
    processor.message_bytes = 4096;
    const std::vector<std::uint8_t> payload(1024, 7);
    std::vector<std::uint8_t> packet(kNetworkPacketOverhead + payload.size());
    for (const unsigned generation : {0u, 1u, 5u, 7u, 0xFEu}) {
        write_network_packet(network, processor, tree_offset_word(3072, static_cast<std::uint8_t>(generation)),
                             payload.data(), static_cast<std::uint32_t>(payload.size()), packet.data());
        std::string why;
        const auto view = NetworkPacketView::parse(packet.data(), packet.size(), &why);
        REQUIRE(view);
        CHECK(view->offset == 3072);
        CHECK(view->generation == (generation & 7));
    }
    // Any other packet: generation 0, its offset as written.
    write_network_packet(network, processor, 1024, payload.data(), static_cast<std::uint32_t>(payload.size()),
                         packet.data());
    const auto plain = NetworkPacketView::parse(packet.data(), packet.size(), nullptr);
    REQUIRE(plain);
    CHECK(plain->offset == 1024);
    CHECK(plain->generation == 0);
}
