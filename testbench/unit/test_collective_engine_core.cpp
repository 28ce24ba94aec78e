// Collective engine core: envelope and CT row codecs, layouts, stream maps,
// the agreement record and the channel store.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/collective_core.h"
#include "isvp/peer_table.h"

using namespace isvp;

TEST_CASE("collective envelope round-trips little-endian", "[collective][engine]") {
    CollectiveEnvelope e{0x01020304u, 7, 3, 0x1234, 0xBEEF, 0xA0B0C0D0u};
    std::uint8_t bytes[CollectiveEnvelope::kBytes];
    e.write(bytes);
    CHECK(bytes[0] == 0x04);
    CHECK(bytes[4] == 7);
    CHECK(bytes[10] == 0xEF);
    CHECK(CollectiveEnvelope::read(bytes) == e);
}

TEST_CASE("CT rows encode, decode and give back the own comm rank", "[collective][engine]") {
    for (int size = 1; size <= 9; ++size) {
        std::vector<std::uint16_t> globals;
        for (int r = 0; r < size; ++r) globals.push_back(static_cast<std::uint16_t>(1000 + 37 * r));
        for (int r = 0; r < size; ++r) {
            CtRow row = make_ct_row(r, globals);
            row.valid = true;
            const CtRow back = CtRow::decode(row.encode());
            CHECK(back.valid);
            CHECK(back.global == row.global);
            CHECK(back.tag == row.tag);
            REQUIRE(back.own_rank());
            CHECK(*back.own_rank() == r);
            CHECK(back.consistent_with(size, r));
            for (int k = 0; (1 << k) < 2 * size; ++k) {
                const int peer = r ^ (1 << k);
                if (peer < size) CHECK(back.neighbour(r, peer) == globals[static_cast<std::size_t>(peer)]);
                else CHECK_FALSE(back.neighbour(r, peer));
            }
        }
    }
    CtRow::Dwords dwords{};
    CHECK(CtRow::decode(dwords).own_rank() == 0);
    dwords[0] = 3u << 24;  // entry 0 tag bits [25:24] = 3: reserved
    CHECK_FALSE(CtRow::decode(dwords).own_rank());
}

TEST_CASE("contribution and result layouts", "[collective][engine]") {
    CHECK(contribution_span(Opcode::Gather, 4, 2, 0) == BlockSpan{2, 1});
    CHECK(contribution_span(Opcode::Scatter, 4, 1, 0).count == 0);
    CHECK(contribution_span(Opcode::ReduceScatter, 4, 1, 0) == BlockSpan{0, 4});
    CHECK(result_span(Opcode::Reduce, 4, 1, 2).count == 0);
    CHECK(result_span(Opcode::Reduce, 4, 2, 2) == BlockSpan{0, 1});
    CHECK(result_span(Opcode::Allgather, 4, 1, 0) == BlockSpan{0, 4});
    CHECK(result_span(Opcode::Scatter, 4, 3, 0) == BlockSpan{3, 1});
    CHECK(block_bytes(Opcode::Barrier, 10, Datatype::Int32) == 0);
    CHECK(block_bytes(Opcode::Allreduce, 10, Datatype::Float64) == 80);
    std::vector<std::uint8_t> buffer = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<std::uint8_t> stream(4);
    const std::vector<BlockSpan> spans = {{3, 1}, {0, 1}};
    gather_spans(buffer.data(), spans, 2, stream.data());
    CHECK(stream == std::vector<std::uint8_t>{6, 7, 0, 1});
    stream = {9, 9, 8, 8};
    scatter_spans(stream.data(), spans, 2, buffer.data());
    CHECK(buffer == std::vector<std::uint8_t>{8, 8, 2, 3, 4, 5, 9, 9});
}

namespace {
NetworkPacketView view(std::uint8_t context, std::uint16_t sender, std::uint8_t step, std::uint32_t message,
                       std::uint32_t offset, const std::uint8_t* data, std::uint32_t n, std::uint32_t sequence) {
    NetworkPacketView v;
    v.network.opcode = Opcode::Allreduce;
    v.network.context_id = context;
    v.network.step = step;
    v.processor.rank = sender;
    v.processor.message_bytes = message;
    set_step_sequence(v.processor, sequence);
    v.offset = offset;
    v.payload = data;
    v.payload_bytes = n;
    return v;
}
}  // namespace

TEST_CASE("channel store keeps step packets per (context, sender) in arrival order, without copying them",
          "[collective][engine]") {
    ChannelStore store;
    const std::uint8_t a[4] = {1, 2, 3, 4};
    int owner = 0;
    store.push(view(0, 5, 1, 4, 0, a, 2, 7), &owner);
    store.push(view(0, 5, 1, 4, 2, a + 2, 2, 7));
    store.push(view(0, 6, 2, 0, 0, nullptr, 0, 8));
    store.push(view(1, 5, 3, 4, 0, a, 4, 0x8001));
    CHECK(store.held(0) == 3);
    CHECK(store.held(1) == 1);
    CHECK(store.senders(0) == std::vector<std::uint16_t>{5, 6});
    HeldPacket* p = store.front(0, 5);
    REQUIRE(p);
    CHECK(p->sequence == 7);
    CHECK(p->owner == &owner);
    CHECK(std::vector<std::uint8_t>(p->payload, p->payload + p->payload_bytes) == std::vector<std::uint8_t>{1, 2});
    CHECK(store.pop(0, 5) == &owner);  // handed back: the caller releases the packet
    p = store.front(0, 5);
    REQUIRE(p);
    CHECK(p->offset == 2);
    CHECK(std::vector<std::uint8_t>(p->payload, p->payload + p->payload_bytes) == std::vector<std::uint8_t>{3, 4});
    CHECK(p->payload == a + 2);  // not copied
    store.pop(0, 5);
    CHECK(store.front(0, 5) == nullptr);
    CHECK(store.front(1, 5)->sequence == 1);  // 15 bits
    CHECK(store.held(0) == 1);
}

TEST_CASE("peer tables make an entry on first use, keep its address and visit entries by ascending id",
          "[collective][engine]") {
    PeerTable<std::int32_t> table;
    CHECK(table.find(9) == nullptr);
    std::int32_t& nine = table.get(9, 32);  // made from the initial value
    CHECK(nine == 32);
    nine = 5;
    table.get(700, 32);
    table.get(3, 32);
    CHECK(&table.get(9, 32) == &nine);  // found, not made again
    CHECK(table.get(9, 32) == 5);
    CHECK(table.find(9) == &nine);  // growing the table did not move it
    CHECK(table.find(4) == nullptr);
    std::vector<std::uint16_t> visited;
    table.for_each([&](std::uint16_t peer, std::int32_t&) { visited.push_back(peer); });
    CHECK(visited == std::vector<std::uint16_t>{3, 9, 700});
    table.clear();
    CHECK(table.find(9) == nullptr);
}

TEST_CASE("step sequence numbers ride in the replicated header and compare modulo 2^15", "[collective][engine]") {
    for (const std::uint32_t s : {0u, 1u, 31u, 32u, 0x1234u, 0x7FFFu, 0x8000u, 0xFFFFFFFFu}) {
        ProcessorHeader h;
        set_step_sequence(h, s);
        CHECK(step_sequence(h) == (s & kStepSequenceMask));
        CHECK(ProcessorHeader::decode(h.encode()).has_value());
    }
    CHECK(compare_sequence(5, 5) == 0);
    CHECK(compare_sequence(4, 5) < 0);
    CHECK(compare_sequence(6, 5) > 0);
    CHECK(compare_sequence(0, 0x7FFF) > 0);  // wrapped: 0 follows 0x7FFF
    CHECK(compare_sequence(0x7FFF, 0) < 0);
}

TEST_CASE("stream maps follow spans through uniform and unequal block layouts", "[collective][engine]") {
    const BlockLayout uniform = BlockLayout::uniform(4, 8);
    CHECK(uniform.total() == 32);
    CHECK(uniform.offset(3) == 24);
    const BlockLayout variable = BlockLayout::variable({4, 0, 12, 8});
    CHECK(variable.total() == 24);
    CHECK(variable.offset(2) == 4);
    CHECK(variable.size(1) == 0);
    CHECK(variable.bytes(BlockSpan{1, 2}) == 12);

    // Blocks 3 then 0..1 of the unequal layout: stream [0,8) is buffer
    // [16,24), stream [8,12) buffer [0,4) (block 1 is empty).
    const StreamMap map({BlockSpan{3, 1}, BlockSpan{0, 2}}, variable);
    CHECK(map.bytes() == 12);
    REQUIRE(map.pieces().size() == 2);
    CHECK(map.pieces()[1].buffer == 0);
    CHECK(map.pieces()[1].stream == 8);
    CHECK(map.pending_in(0, 0, 4));     // buffer [0,4) is stream [8,12)
    CHECK(map.pending_in(11, 3, 4));    // stream byte 11 is buffer byte 3
    CHECK_FALSE(map.pending_in(12, 0, 24));
    CHECK_FALSE(map.pending_in(0, 4, 16));  // block 2 is not in the stream
    CHECK(map.pending_in(7, 16, 24));
    CHECK_FALSE(map.pending_in(8, 16, 24));
    // Adjacent spans are one buffer range: one piece.
    const StreamMap merged({BlockSpan{1, 1}, BlockSpan{2, 2}}, uniform);
    REQUIRE(merged.pieces().size() == 1);
    CHECK(merged.pieces()[0].buffer == 8);
    CHECK(merged.pieces()[0].length == 24);
    CHECK(merged.pending_end(0, 16, 20) == 12);  // buffer [16,20) is stream [8,12)
    // One buffer range (pending_end's fast path): stream [0,16) is buffer [8,24).
    const StreamMap one(8, 16);
    CHECK(one.pending_end(0, 0, 8) == 0);    // before it
    CHECK(one.pending_end(0, 24, 32) == 0);  // after it
    CHECK(one.pending_end(0, 10, 12) == 4);  // buffer [10,12) is stream [2,4)
    CHECK(one.pending_end(4, 10, 12) == 0);  // the stream is past it
    CHECK(one.pending_end(3, 0, 100) == 16);
    CHECK(one.pending_end(16, 0, 100) == 0);  // the stream is done

    std::vector<std::uint8_t> buffer(24);
    for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>(i);
    std::vector<std::uint8_t> stream(5);
    map.gather(buffer.data(), 6, 11, stream.data());
    CHECK(stream == std::vector<std::uint8_t>{22, 23, 0, 1, 2});
    const std::vector<std::uint8_t> in = {90, 91, 92};
    map.scatter(in.data(), 7, 10, buffer.data());
    CHECK(buffer[23] == 90);
    CHECK(buffer[0] == 91);
    CHECK(buffer[1] == 92);
}

TEST_CASE("argument agreement records round-trip and name what differs", "[collective][engine]") {
    CollectiveArguments a;
    a.opcode = Opcode::Allreduce;
    a.operation = 1;
    a.datatype = 2;
    a.algorithm = 1;
    a.count = 1000;
    a.size = 8;
    a.root = 0;
    a.sequence = 12;
    a.errors = mismatch::kUnsupported;
    std::uint8_t bytes[CollectiveArguments::kBytes];
    a.write(bytes);
    const CollectiveArguments b = CollectiveArguments::read(bytes, a.opcode, 1, 2, 1);
    CHECK(b.count == 1000);
    CHECK(b.errors == mismatch::kUnsupported);
    CHECK(mismatch_fields(a, b) == 0);
    CollectiveArguments c = a;
    c.count = 999;
    c.root = 3;
    c.datatype = 3;
    CHECK(mismatch_fields(a, c) == (mismatch::kCount | mismatch::kRoot | mismatch::kDatatype));
    CHECK(describe_mismatch(mismatch::kCount | mismatch::kRoot) == "count, root");
    CHECK(describe_mismatch(mismatch::kOperation) == "operation");
    CHECK(counts_digest({1, 2, 3}) != counts_digest({1, 3, 2}));
}
