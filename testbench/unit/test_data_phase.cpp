// DataPhase: a collective's data phase without SystemC. Two members of an
// Allreduce stream their chunks to each other through in-memory channels;
// the test plays the engine's part (the Driver) and checks which actions the
// state machine asks for, in which order, as contribution, packets, credits,
// CGR units and the agreement come in.
#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "isvp/data_phase.h"

using namespace isvp;

namespace {

constexpr std::uint32_t kChunk = 16;  // bytes per packet: 4 int32
constexpr std::uint32_t kCount = 8;   // int32 elements: two chunks

/// One member and the test's engine for it.
struct Member final : DataPhase::Driver {
    int rank = 0;
    DataPhase phase;
    std::int32_t credits = 32;                    ///< window credits toward the peer
    HeldChannel channel;                          ///< the peer's packets to this member
    std::vector<std::vector<std::uint8_t>> wire;  ///< payloads this member sent (kept alive)
    Member* peer = nullptr;
    std::vector<std::string>* log = nullptr;
    bool cgr_free = true;  ///< a CGR unit can be had
    bool waiting = false;  ///< waits for one
    bool agreed = false;   ///< the argument agreement is done
    std::uint32_t error = 0;
    std::vector<std::int32_t> result;  ///< what went back to the host

    Member(int r, std::vector<std::string>& events) : rank(r), log(&events) {
        const Schedule schedule =
            make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling, 2, rank, 0, Fold::Hypercube);
        phase.chunk_bytes = kChunk;
        phase.sequence = 7;
        phase.header_bytes = CollectiveEnvelope::kBytes;
        phase.layout = BlockLayout::uniform(schedule.blocks, kCount * 4);
        phase.build(schedule, contribution_span(Opcode::Allreduce, 2, rank, 0),
                    result_span(Opcode::Allreduce, 2, rank, 0), [this](std::size_t, const Step& s) {
                        DataPhase::StepLinks link;
                        if (s.send) link.credits = &credits;
                        if (s.receive) link.channel = &channel;
                        return link;
                    });
    }
    std::string me() const { return "r" + std::to_string(rank) + " "; }

    /// The host's request bytes [from, to) of envelope + contribution
    /// (element i of rank r is 100 r + i).
    void contribute(std::uint32_t from, std::uint32_t to) {
        std::vector<std::uint8_t> message(CollectiveEnvelope::kBytes + kCount * 4, 0);
        for (std::uint32_t i = 0; i < kCount; ++i) {
            const std::int32_t v = 100 * rank + static_cast<std::int32_t>(i);
            std::memcpy(message.data() + CollectiveEnvelope::kBytes + 4 * i, &v, 4);
        }
        phase.take_contribution(from, message.data() + from, to - from);
    }

    bool stopped() override { return error != 0; }
    void send(std::size_t k) override {
        DataPhase::StepRun& s = phase.steps[k];
        const std::uint64_t from = phase.chunk_begin(s.sent), to = phase.chunk_end(s.sent, s.send.bytes());
        std::vector<std::uint8_t> payload(to - from);
        phase.buffer.gather(s.send, from, to, payload.data());
        HeldPacket p;
        p.step = static_cast<std::uint8_t>(k + 1);
        p.opcode = Opcode::Allreduce;
        p.sequence = phase.sequence;
        p.message_bytes = static_cast<std::uint32_t>(s.send.bytes());
        p.offset = static_cast<std::uint32_t>(from);
        p.payload = payload.data();
        p.payload_bytes = static_cast<std::uint32_t>(to - from);
        wire.push_back(std::move(payload));
        peer->channel.push_back(p);
        log->push_back(me() + "send step " + std::to_string(k + 1) + " chunk " + std::to_string(s.sent));
        phase.chunk_sent(k);
    }
    bool take(std::size_t k) override {
        if (phase.combines(k) && !cgr_free) {
            if (!waiting) log->push_back(me() + "waits for a CGR unit");  // asked again until one frees
            waiting = true;
            return false;
        }
        waiting = false;
        DataPhase::StepRun& s = phase.steps[k];
        const HeldPacket& p = s.channel->front();
        const std::uint64_t from = phase.chunk_begin(s.issued), to = phase.chunk_end(s.issued, s.recv.bytes());
        std::vector<std::int32_t> local((to - from) / 4), received((to - from) / 4);
        phase.buffer.gather(s.recv, from, to, reinterpret_cast<std::uint8_t*>(local.data()));
        std::memcpy(received.data(), p.payload, to - from);
        for (std::size_t i = 0; i < local.size(); ++i) local[i] += received[i];
        phase.buffer.scatter(s.recv, reinterpret_cast<const std::uint8_t*>(local.data()), from, to);
        log->push_back(me() + "take step " + std::to_string(k + 1) + " chunk " + std::to_string(s.issued));
        ++s.issued;
        ++s.applied;  // combined at once (no AgLU latency here)
        s.channel->pop_front();
        ++peer->credits;  // the window credit goes back
        return true;
    }
    bool may_return() override { return agreed; }
    void results_ready() override {
        while (phase.results_sent < phase.results_final) {
            const std::uint64_t from = phase.chunk_begin(phase.results_sent),
                                to = phase.chunk_end(phase.results_sent, phase.result.bytes());
            std::vector<std::int32_t> chunk((to - from) / 4);
            phase.buffer.gather(phase.result, from, to, reinterpret_cast<std::uint8_t*>(chunk.data()));
            result.insert(result.end(), chunk.begin(), chunk.end());
            log->push_back(me() + "result chunk " + std::to_string(phase.results_sent));
            ++phase.results_sent;
        }
    }
    /// Advances and returns the actions it took.
    std::vector<std::string> step() {
        const std::size_t before = log->size();
        phase.advance(*this);
        return std::vector<std::string>(log->begin() + static_cast<std::ptrdiff_t>(before), log->end());
    }
};

using Actions = std::vector<std::string>;

}  // namespace

TEST_CASE("a 2-member allreduce streams chunk by chunk as contribution, packets and credits come",
          "[collective][data_phase]") {
    std::vector<std::string> log;
    Member a(0, log), b(1, log);
    a.peer = &b;
    b.peer = &a;
    b.credits = 1;  // a one-packet window toward rank 0
    REQUIRE(a.phase.steps.size() == 1);
    REQUIRE(a.phase.steps[0].send_chunks == 2);

    // Nothing can go before the host's bytes are in.
    CHECK(a.step().empty());
    // Rank 0's envelope and first chunk: that chunk goes, the second waits.
    a.contribute(0, CollectiveEnvelope::kBytes + kChunk);
    CHECK(a.step() == Actions{"r0 send step 1 chunk 0"});
    // Rank 1's whole contribution: one credit, so one chunk; combining
    // rank 0's first chunk waits for a CGR unit.
    b.contribute(0, CollectiveEnvelope::kBytes + kCount * 4);
    b.cgr_free = false;
    CHECK(b.step() == Actions{"r1 send step 1 chunk 0", "r1 waits for a CGR unit"});
    // Rank 0 combines rank 1's first chunk (its own copy of those bytes has
    // gone); the credit goes back. Its second chunk cannot be combined yet:
    // its own bytes are not in. No result before the agreement.
    CHECK(a.step() == Actions{"r0 take step 1 chunk 0"});
    CHECK(b.credits == 1);
    // A unit is free: rank 1 sends its second chunk with the returned
    // credit, then combines.
    b.cgr_free = true;
    CHECK(b.step() == Actions{"r1 send step 1 chunk 1", "r1 take step 1 chunk 0"});
    // The rest of rank 0's contribution: it sends and then combines chunk 1.
    a.contribute(CollectiveEnvelope::kBytes + kChunk, CollectiveEnvelope::kBytes + kCount * 4);
    CHECK(a.step() == Actions{"r0 send step 1 chunk 1", "r0 take step 1 chunk 1"});
    CHECK(b.step() == Actions{"r1 take step 1 chunk 1"});
    // Results are final but wait for the argument agreement.
    CHECK_FALSE(a.phase.complete());
    a.agreed = b.agreed = true;
    CHECK(a.step() == Actions{"r0 result chunk 0", "r0 result chunk 1"});
    CHECK(b.step() == Actions{"r1 result chunk 0", "r1 result chunk 1"});
    CHECK(a.phase.complete());
    CHECK(b.phase.complete());
    // Element i: (0 + i) + (100 + i), the same on both members.
    for (std::uint32_t i = 0; i < kCount; ++i) {
        CHECK(a.result.at(i) == static_cast<std::int32_t>(100 + 2 * i));
        CHECK(b.result.at(i) == static_cast<std::int32_t>(100 + 2 * i));
    }
}

TEST_CASE("a data phase stops when its collective ends in error", "[collective][data_phase]") {
    std::vector<std::string> log;
    Member a(0, log), b(1, log);
    a.peer = &b;
    b.peer = &a;
    a.contribute(0, CollectiveEnvelope::kBytes + kCount * 4);
    a.error = 1;  // e.g. an abort notice arrived
    CHECK(a.step().empty());
    a.error = 0;
    CHECK(a.step() == Actions{"r0 send step 1 chunk 0", "r0 send step 1 chunk 1"});
}

TEST_CASE("a peer's packet of another collective is not taken", "[collective][data_phase]") {
    std::vector<std::string> log;
    Member a(0, log), b(1, log);
    a.peer = &b;
    b.peer = &a;
    a.contribute(0, CollectiveEnvelope::kBytes + kCount * 4);
    b.contribute(0, CollectiveEnvelope::kBytes + kCount * 4);
    b.phase.sequence = 8;  // rank 1 runs the next collective already
    CHECK(b.step() == Actions{"r1 send step 1 chunk 0", "r1 send step 1 chunk 1"});
    CHECK(a.step() == Actions{"r0 send step 1 chunk 0", "r0 send step 1 chunk 1"});  // nothing taken
    CHECK(a.channel.size() == 2);
}
