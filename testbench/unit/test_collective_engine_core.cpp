// Collective engine core: envelope and CT row codecs, layouts, message store.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/collective_core.h"

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
                       std::uint32_t offset, const std::uint8_t* data, std::uint32_t n) {
    NetworkPacketView v;
    v.network.opcode = Opcode::Allreduce;
    v.network.context_id = context;
    v.network.step = step;
    v.processor.rank = sender;
    v.processor.message_bytes = message;
    v.offset = offset;
    v.payload = data;
    v.payload_bytes = n;
    return v;
}
}  // namespace

TEST_CASE("message store reassembles per (context, sender) in order", "[collective][engine]") {
    MessageStore store;
    const std::uint8_t a[4] = {1, 2, 3, 4};
    CHECK(store.add(view(0, 5, 1, 4, 2, a + 2, 2)) == MessageStore::AddResult::Ok);
    CHECK(store.front_complete(0, 5) == nullptr);
    CHECK(store.add(view(0, 5, 1, 4, 0, a, 2)) == MessageStore::AddResult::Completed);
    // The next message from the same sender (a later collective) queues behind.
    CHECK(store.add(view(0, 5, 2, 0, 0, nullptr, 0)) == MessageStore::AddResult::Completed);
    CHECK(store.add(view(0, 5, 1, 4, 8, a, 2)) == MessageStore::AddResult::Inconsistent);
    CHECK(store.stored_bytes() == 4);
    MessageStore::Message* m = store.front_complete(0, 5);
    REQUIRE(m);
    CHECK(m->step == 1);
    CHECK(std::vector<std::uint8_t>(m->data.begin(), m->data.begin() + 4) == std::vector<std::uint8_t>{1, 2, 3, 4});
    store.pop(0, 5);
    CHECK(store.stored_bytes() == 0);
    m = store.front_complete(0, 5);
    REQUIRE(m);
    CHECK(m->bytes == 0);
    store.pop(0, 5);
    CHECK(store.messages() == 0);
    CHECK(store.front_complete(1, 5) == nullptr);
}
