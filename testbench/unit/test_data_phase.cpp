// DataPhase: a collective's data phase without SystemC. Two members of an
// Allreduce stream their chunks to each other through in-memory channels;
// the test plays the engine's part (the Driver) and checks which actions the
// state machine asks for, in which order, as contribution, packets, credits,
// CGR units and the agreement come in.
#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
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
    /// Advances and returns the actions it took. advance() moves all that
    /// can move in one pass: called again at once, it finds nothing.
    std::vector<std::string> step() {
        const std::size_t before = log->size();
        phase.advance(*this);
        const std::size_t after = log->size();
        CHECK_FALSE(phase.advance(*this));
        CHECK(log->size() == after);
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

// ---------------------------------------------------------------------------
// N members, every event in a random order: packets, window credits and AgLU
// completions are delivered one at a time, each member advances after each
// event that reaches it, and advance() must then have moved everything that
// could move (a second call finds nothing: one pass in step order is enough,
// data_phase.h). The results are checked against a plain reduction.

namespace {

struct Cluster;

/// One member of a Cluster: the test's engine for its DataPhase.
struct Node final : DataPhase::Driver {
    Cluster* cluster = nullptr;
    int rank = 0;
    DataPhase phase;
    std::map<int, std::int32_t> credits;  ///< window credits toward each peer
    std::map<int, HeldChannel> channels;  ///< each peer's packets to this member, in order
    std::vector<std::uint8_t> result;     ///< what went back to the host
    bool stopped() override { return false; }
    void send(std::size_t k) override;
    bool take(std::size_t k) override;
    bool may_return() override { return true; }
    void results_ready() override {
        while (phase.results_sent < phase.results_final) {
            const std::uint64_t from = phase.chunk_begin(phase.results_sent),
                                to = phase.chunk_end(phase.results_sent, phase.result.bytes());
            std::vector<std::uint8_t> chunk(to - from);
            phase.buffer.gather(phase.result, from, to, chunk.data());
            result.insert(result.end(), chunk.begin(), chunk.end());
            ++phase.results_sent;
        }
    }
};

/// Something on its way: a packet, a window credit or an AgLU result.
struct Event {
    enum Kind { Packet, Credit, Applied, Contribution } kind;
    int to = 0;    ///< the member it reaches
    int from = 0;  ///< the peer it comes from / is for (Packet, Credit)
    std::size_t step = 0;
    std::uint64_t offset = 0;                          ///< Applied: buffer bytes of the chunk in the step's stream
    std::shared_ptr<std::vector<std::uint8_t>> bytes;  ///< Packet: payload; Applied: the combined chunk
};

struct Cluster {
    Opcode collective;
    int size;
    std::uint32_t block_bytes;
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<std::vector<std::uint8_t>> messages;  ///< each member's request (envelope + contribution)
    std::vector<Event> in_flight;
    std::vector<std::shared_ptr<std::vector<std::uint8_t>>> delivered;  ///< payloads of packets held in channels
    std::mt19937 random;
    std::uint64_t second_advances_that_moved = 0;
    std::uint64_t completions_seen_late = 0;  ///< complete() only after a second advance()

    Cluster(Opcode op, int members, std::uint32_t block, std::uint32_t window, unsigned seed)
        : collective(op), size(members), block_bytes(block), random(seed) {
        for (int r = 0; r < size; ++r) {
            auto node = std::make_unique<Node>();
            node->cluster = this;
            node->rank = r;
            const Schedule schedule = make_schedule(op, default_algorithm(op), size, r, 0, Fold::Hypercube);
            DataPhase& phase = node->phase;
            phase.chunk_bytes = kChunk;
            phase.sequence = 3;
            phase.header_bytes = CollectiveEnvelope::kBytes;
            phase.layout = BlockLayout::uniform(schedule.blocks, block);
            Node* n = node.get();
            phase.build(schedule, contribution_span(op, size, r, 0), result_span(op, size, r, 0),
                        [n, window](std::size_t, const Step& s) {
                            DataPhase::StepLinks link;
                            if (s.send) link.credits = &n->credits.emplace(s.send->peer, window).first->second;
                            if (s.receive) link.channel = &n->channels[s.receive->peer];
                            return link;
                        });
            const BlockSpan mine = contribution_span(op, size, r, 0);
            std::vector<std::uint8_t> message(CollectiveEnvelope::kBytes + std::uint64_t{mine.count} * block, 0);
            for (std::size_t i = CollectiveEnvelope::kBytes; i + 4 <= message.size(); i += 4) {
                const auto v = static_cast<std::int32_t>(1000 * r + i);
                std::memcpy(message.data() + i, &v, 4);
            }
            messages.push_back(std::move(message));
            nodes.push_back(std::move(node));
        }
        // The hosts' bytes come in pieces, in the same random order as the rest.
        for (int r = 0; r < size; ++r)
            for (std::uint64_t at = 0; at < messages[r].size(); at += 24)
                in_flight.push_back(Event{Event::Contribution, r, r, 0, at, nullptr});
    }

    /// Delivers every event, one at a time, in a random order (within a
    /// stream, same_stream, in order).
    void run() {
        while (!in_flight.empty()) {
            std::size_t pick = random() % in_flight.size();
            // The earliest event of the same stream goes first.
            for (std::size_t i = 0; i < pick; ++i)
                if (same_stream(in_flight[i], in_flight[pick])) {
                    pick = i;
                    break;
                }
            const Event e = in_flight[pick];
            in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(pick));
            Node& node = *nodes[e.to];
            deliver(node, e);
            node.phase.advance(node);
            const bool complete = node.phase.complete();  // as the engine asks, after one advance()
            if (node.phase.advance(node)) ++second_advances_that_moved;
            if (node.phase.complete() != complete) ++completions_seen_late;
        }
    }

    /// Streams that stay in order: a member's contribution, one sender's
    /// packets to one member (deterministic routing) and a member's AgLU
    /// results (a pipeline: `applied` counts chunks final in order).
    static bool same_stream(const Event& a, const Event& b) {
        if (a.kind != b.kind || a.to != b.to) return false;
        return a.kind != Event::Credit && (a.kind != Event::Packet || a.from == b.from);
    }

    void deliver(Node& node, const Event& e) {
        DataPhase& phase = node.phase;
        switch (e.kind) {
            case Event::Contribution: {
                const std::vector<std::uint8_t>& message = messages[e.to];
                const std::uint64_t bytes = std::min<std::uint64_t>(24, message.size() - e.offset);
                phase.take_contribution(e.offset, message.data() + e.offset, bytes);
                break;
            }
            case Event::Packet: {
                HeldPacket p;
                p.step = static_cast<std::uint8_t>(e.step + 1);
                p.opcode = collective;
                p.sequence = phase.sequence;
                p.offset = static_cast<std::uint32_t>(e.offset);
                p.payload = e.bytes->data();
                p.payload_bytes = static_cast<std::uint32_t>(e.bytes->size());
                delivered.push_back(e.bytes);  // the payload stays where p points
                node.channels[e.from].push_back(p);
                break;
            }
            case Event::Credit:
                ++node.credits[e.from];
                break;
            case Event::Applied: {
                DataPhase::StepRun& s = phase.steps[e.step];
                phase.buffer.scatter(s.recv, e.bytes->data(), e.offset, e.offset + e.bytes->size());
                ++s.applied;
                break;
            }
        }
    }
};

void Node::send(std::size_t k) {
    DataPhase::StepRun& s = phase.steps[k];
    const std::uint64_t from = phase.chunk_begin(s.sent), to = phase.chunk_end(s.sent, s.send.bytes());
    auto payload = std::make_shared<std::vector<std::uint8_t>>(to - from);
    phase.buffer.gather(s.send, from, to, payload->data());
    cluster->in_flight.push_back(Event{Event::Packet, s.send_peer, rank, k, from, payload});
    phase.chunk_sent(k);
}

bool Node::take(std::size_t k) {
    DataPhase::StepRun& s = phase.steps[k];
    HeldChannel& channel = *s.channel;
    const HeldPacket p = channel.front();
    const std::uint64_t from = phase.chunk_begin(s.issued), to = phase.chunk_end(s.issued, s.recv.bytes());
    REQUIRE(p.offset == from);
    REQUIRE(p.payload_bytes == to - from);
    auto chunk = std::make_shared<std::vector<std::uint8_t>>(p.payload, p.payload + p.payload_bytes);
    const bool combines = phase.combines(k);
    if (combines) {  // local + received, written when the AgLU is done (another event)
        std::vector<std::uint8_t> local(to - from);
        phase.buffer.gather(s.recv, from, to, local.data());
        for (std::size_t i = 0; i + 4 <= local.size(); i += 4) {
            std::int32_t a = 0, b = 0;
            std::memcpy(&a, local.data() + i, 4);
            std::memcpy(&b, chunk->data() + i, 4);
            const std::int32_t sum = a + b;
            std::memcpy(chunk->data() + i, &sum, 4);
        }
    }
    ++s.issued;
    channel.pop_front();
    cluster->in_flight.push_back(Event{Event::Credit, s.recv_peer, rank, k, 0, nullptr});
    if (combines) {
        cluster->in_flight.push_back(Event{Event::Applied, rank, rank, k, from, chunk});
    } else {
        phase.buffer.scatter(s.recv, chunk->data(), from, to);
        ++s.applied;
    }
    return true;
}

/// Element `byte` (a multiple of 4) of member r's contribution.
std::int32_t contributed(int r, std::uint64_t byte) {
    return static_cast<std::int32_t>(1000 * r + CollectiveEnvelope::kBytes + byte);
}

/// The plain reference: what member r's result must hold.
std::vector<std::int32_t> reference(Opcode op, int size, int r, std::uint32_t block) {
    std::vector<std::int32_t> want;
    const std::uint32_t words = block / 4;
    switch (op) {
        case Opcode::Allreduce:
            for (std::uint32_t i = 0; i < words; ++i) {
                std::int32_t sum = 0;
                for (int q = 0; q < size; ++q) sum += contributed(q, 4 * i);
                want.push_back(sum);
            }
            break;
        case Opcode::ReduceScatter:
            for (std::uint32_t i = 0; i < words; ++i) {
                std::int32_t sum = 0;
                for (int q = 0; q < size; ++q) sum += contributed(q, std::uint64_t{block} * r + 4 * i);
                want.push_back(sum);
            }
            break;
        case Opcode::Allgather:
            for (int q = 0; q < size; ++q)
                for (std::uint32_t i = 0; i < words; ++i) want.push_back(contributed(q, 4 * i));
            break;
        case Opcode::Bcast:
            for (std::uint32_t i = 0; i < words; ++i) want.push_back(contributed(0, 4 * i));
            break;
        default:
            break;
    }
    return want;
}

}  // namespace

TEST_CASE("one advance() moves all that can move, whatever the order of packets, credits and AgLU results",
          "[collective][data_phase]") {
    for (const Opcode op : {Opcode::Allreduce, Opcode::ReduceScatter, Opcode::Allgather, Opcode::Bcast})
        for (const int size : {2, 5, 8})
            for (const std::uint32_t block : {4u, 36u, 100u})
                for (const unsigned seed : {1u, 2u, 3u}) {
                    CAPTURE(to_string(op), size, block, seed);
                    Cluster cluster(op, size, block, /*window=*/2, seed);
                    cluster.run();
                    CHECK(cluster.second_advances_that_moved == 0);
                    CHECK(cluster.completions_seen_late == 0);
                    for (int r = 0; r < size; ++r) {
                        CAPTURE(r);
                        const Node& node = *cluster.nodes[r];
                        CHECK(node.phase.complete());
                        const std::vector<std::int32_t> want = reference(op, size, r, block);
                        std::vector<std::int32_t> got(node.result.size() / 4);
                        std::memcpy(got.data(), node.result.data(), got.size() * 4);
                        CHECK(got == want);
                    }
                }
}
