// The fabric's wake-up scheduler core (models/router/isvp/wakeup_queue.h):
// RadixAgenda pops exactly as TimedAgenda, and WakeupQueue wakes and
// activates exactly as the scheduler before session 15 (one heap entry per
// request), kept here as the reference.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "isvp/timed_agenda.h"
#include "isvp/wakeup_queue.h"

using namespace isvp;

namespace {

constexpr std::uint64_t kNever = WakeupQueue::kNever;

/// WakeupScheduler's logic up to session 14, without SystemC: every request
/// in one heap, superseded entries popped and skipped.
class HeapOfEveryRequest {
  public:
    unsigned attach() {
        due_.push_back(kNever);
        return static_cast<unsigned>(due_.size() - 1);
    }
    std::uint64_t request(unsigned id, std::uint64_t tick) {
        if (tick >= due_[id]) return kNever;
        due_[id] = tick;
        agenda_.push(tick, id);
        if (!running_ && tick < notified_for_) {
            notified_for_ = tick;
            return tick;
        }
        return kNever;
    }
    void start(std::uint64_t /*delta*/) {
        notified_for_ = kNever;
        running_ = true;
    }
    bool next_due(std::uint64_t now, unsigned& id) {
        while (!agenda_.empty() && agenda_.next_time() <= now) {
            const std::uint64_t tick = agenda_.next_time();
            id = agenda_.pop();
            if (due_[id] != tick) continue;
            due_[id] = kNever;
            return true;
        }
        return false;
    }
    std::uint64_t finish() {
        running_ = false;
        if (agenda_.empty()) return kNever;
        notified_for_ = agenda_.next_time();
        return notified_for_;
    }

  private:
    std::vector<std::uint64_t> due_;
    TimedAgenda<unsigned> agenda_;
    std::uint64_t notified_for_ = kNever;
    bool running_ = false;
};

/// A deterministic pseudo-random stream (64-bit LCG, high bits).
class Draw {
  public:
    explicit Draw(std::uint64_t seed) : state_(seed) {}
    std::uint64_t below(std::uint64_t bound) {
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        return (state_ >> 33) % bound;
    }

  private:
    std::uint64_t state_;
};

/// Runs one activation of a queue at `now`; returns the clients woken.
template <typename Queue>
std::vector<unsigned> activate(Queue& queue, std::uint64_t now) {
    std::vector<unsigned> woken;
    queue.start(0);
    unsigned id = 0;
    while (queue.next_due(now, id)) woken.push_back(id);
    CHECK(queue.finish(now) == kNever);
    return woken;
}

}  // namespace

namespace {
/// Pushes and pops a pseudo-random mix for `clients` clients, never earlier
/// than the last pop, and checks every pop against a TimedAgenda fed the same
/// entries. `span` is how far ahead pushes reach; `jumps` adds rare pushes
/// far ahead (high buckets, long moves down).
void check_against_timed_agenda(unsigned clients, std::uint64_t span, bool jumps) {
    Draw draw(clients * 131 + span);
    RadixAgenda agenda;
    TimedAgenda<unsigned> reference;
    std::uint64_t now = 100;
    for (int round = 0; round < 20000; ++round) {
        if (draw.below(5) < 3) {
            std::uint64_t tick = now + draw.below(span);
            if (jumps && draw.below(50) == 0) tick = now + (std::uint64_t{1} << draw.below(62)) + draw.below(span);
            const auto client = static_cast<unsigned>(draw.below(clients));
            agenda.push(tick, client);
            reference.push(tick, client);
        } else if (!reference.empty()) {
            REQUIRE(agenda.next_time() == reference.next_time());
            now = reference.next_time();
            const unsigned next = agenda.next_client();  // who the scheduler prefetches for
            const unsigned popped = agenda.pop();
            REQUIRE(popped == next);
            REQUIRE(popped == reference.pop());
            REQUIRE(agenda.floor() == now);
        }
        REQUIRE(agenda.size() == reference.size());
        REQUIRE(agenda.empty() == reference.empty());
    }
    while (!reference.empty()) {
        REQUIRE(agenda.next_time() == reference.next_time());
        const unsigned next = agenda.next_client();
        const unsigned popped = agenda.pop();
        REQUIRE(popped == next);
        REQUIRE(popped == reference.pop());
    }
    CHECK(agenda.empty());
}
}  // namespace

TEST_CASE("radix agenda: pops the same clients at the same times as a timed agenda, ties in insertion order") {
    // Spans of 1 and 3 ticks make long runs of ties; one client holds every entry.
    for (const unsigned clients : {1u, 3u, 7u, 64u, 300u})
        for (const std::uint64_t span : {1ull, 3ull, 12ull, 5000ull}) check_against_timed_agenda(clients, span, false);
}

TEST_CASE("radix agenda: entries far ahead come down through every bucket in order") {
    for (const unsigned clients : {1u, 5u, 40u}) check_against_timed_agenda(clients, 12, true);
    RadixAgenda agenda;
    agenda.push(~std::uint64_t{0} - 1, 1);  // the top bucket
    agenda.push(5, 2);
    agenda.push(5, 3);
    agenda.push(1ull << 40, 4);
    CHECK(agenda.next_time() == 5);
    CHECK(agenda.pop() == 2);
    agenda.push(5, 5);  // at the last pop's tick: after the entries already there
    CHECK(agenda.pop() == 3);
    CHECK(agenda.pop() == 5);
    CHECK(agenda.next_time() == 1ull << 40);
    CHECK(agenda.pop() == 4);
    CHECK(agenda.pop() == 1);
    CHECK(agenda.empty());
}

TEST_CASE("wake-up queue: the client to prefetch for is the agenda's earliest entry's, superseded or not") {
    WakeupQueue queue;
    CHECK(queue.next_client() == WakeupQueue::kNone);  // empty: nobody
    const unsigned a = queue.attach();
    const unsigned b = queue.attach();
    queue.request(a, 100);
    queue.request(b, 200);
    CHECK(queue.next_client() == a);
    queue.request(b, 50);  // b's entry at 200 stays, superseded
    CHECK(queue.next_client() == b);
    queue.start(0);
    unsigned id = 0;
    REQUIRE(queue.next_due(50, id));
    CHECK(queue.finish(50) == 100);
    CHECK(queue.next_client() == a);
    queue.start(1);
    REQUIRE(queue.next_due(100, id));
    CHECK(queue.finish(100) == 200);
    CHECK(queue.next_client() == b);  // a guess: b's superseded entry wakes nobody
    queue.start(2);
    CHECK_FALSE(queue.next_due(200, id));
    CHECK(queue.finish(200) == kNever);
    CHECK(queue.next_client() == WakeupQueue::kNone);
}

TEST_CASE("wake-up queue: a request for a tick before the last pop wakes at that pop's tick") {
    WakeupQueue queue;
    const unsigned a = queue.attach();
    const unsigned b = queue.attach();
    CHECK(queue.request(a, 100) == 100);
    queue.start(0);
    unsigned id = 0;
    REQUIRE(queue.next_due(100, id));
    CHECK_FALSE(queue.next_due(100, id));
    CHECK(queue.finish(100) == kNever);
    CHECK(queue.request(b, 40) == 100);  // time does not go back
    CHECK(activate(queue, 100) == std::vector<unsigned>{b});
}

TEST_CASE("wake-up queue: a client asking again for a tick wakes at its first request's place") {
    WakeupQueue queue;
    const unsigned a = queue.attach();
    const unsigned b = queue.attach();
    CHECK(queue.request(a, 100) == 100);  // notify for 100
    CHECK(queue.request(a, 50) == 50);    // earlier: notify for 50; a's entry at 100 stays
    CHECK(queue.request(b, 100) == kNever);
    CHECK(queue.request(b, 120) == kNever);  // later than b's pending wake-up: ignored
    queue.start(0);
    unsigned id = 0;
    REQUIRE(queue.next_due(50, id));
    CHECK(id == a);
    CHECK(queue.request(a, 100) == kNever);  // inside the activation: nothing to notify
    CHECK_FALSE(queue.next_due(50, id));
    CHECK(queue.finish(50) == 100);
    // At 100, a wakes before b: its first request for 100 came before b's.
    CHECK(activate(queue, 100) == std::vector<unsigned>{a, b});
    CHECK(queue.pops() == 4);
    CHECK(queue.wakeups() == 3);
}

TEST_CASE("wake-up queue: a superseded request still activates the scheduler at its tick, waking nobody") {
    WakeupQueue queue;
    const unsigned a = queue.attach();
    CHECK(queue.request(a, 200) == 200);
    CHECK(queue.request(a, 150) == 150);
    queue.start(0);
    unsigned id = 0;
    REQUIRE(queue.next_due(150, id));
    CHECK(queue.request(a, 300) == kNever);
    CHECK_FALSE(queue.next_due(150, id));
    CHECK(queue.finish(150) == 200);  // the superseded request's tick, not a's 300
    queue.start(0);
    CHECK_FALSE(queue.next_due(200, id));
    CHECK(queue.finish(200) == 300);
    CHECK(queue.held() == 1);
}

TEST_CASE("wake-up queue: a client deferred to the next delta cycle wakes there, before that delta's due clients") {
    // Delta counts as SystemC's sc_delta_count(): the process runs in 7, then 8.
    WakeupQueue queue;
    const unsigned a = queue.attach();
    const unsigned b = queue.attach();
    const unsigned c = queue.attach();
    CHECK(queue.request(a, 300) == 300);
    CHECK(queue.defer(a, 100, 7));           // from another process in delta 6: notify for the next delta at 100
    CHECK_FALSE(queue.defer(a, 100, 7));     // already deferred
    CHECK(queue.request(a, 200) == kNever);  // later than the deferred wake-up: ignored
    CHECK(queue.request(b, 100) == kNever);  // the delta notification stands
    queue.start(7);
    unsigned id = 0;
    REQUIRE(queue.next_deferred(100, id));
    CHECK(id == a);
    CHECK_FALSE(queue.defer(b, 100, 8));     // b is due now already: it wakes in this delta
    CHECK(queue.defer(c, 100, 8) == false);  // inside the process: finish() says when
    CHECK_FALSE(queue.next_deferred(100, id));
    REQUIRE(queue.next_due(100, id));
    CHECK(id == b);
    CHECK_FALSE(queue.next_due(100, id));
    CHECK(queue.finish(100) == 100);  // c: the next delta cycle
    queue.start(8);
    REQUIRE(queue.next_deferred(100, id));
    CHECK(id == c);
    CHECK_FALSE(queue.next_deferred(100, id));
    CHECK_FALSE(queue.next_due(100, id));
    CHECK(queue.finish(100) == 300);  // a's superseded entry still activates the process at 300
    queue.start(9);
    CHECK_FALSE(queue.next_due(300, id));
    CHECK(queue.finish(300) == kNever);
    CHECK(queue.wakeups() == 3);
}

TEST_CASE(
    "wake-up queue: a client deferred after the timed notification fired, before the process ran, wakes a delta "
    "later") {
    // At 100 the scheduler's timed notification fires in delta 7. Another
    // process runs first in that delta and defers b: b must wake in delta 8,
    // as it would had the scheduler's process run first, not in 7 with a.
    WakeupQueue queue;
    const unsigned a = queue.attach();
    const unsigned b = queue.attach();
    CHECK(queue.request(a, 100) == 100);
    CHECK(queue.defer(b, 100, 8));        // the event is notified for delta 8, over the fired timed one
    CHECK_FALSE(queue.defer(b, 100, 8));  // already deferred
    queue.start(7);
    unsigned id = 0;
    CHECK_FALSE(queue.next_deferred(100, id));  // b waits for delta 8
    REQUIRE(queue.next_due(100, id));
    CHECK(id == a);
    CHECK_FALSE(queue.next_due(100, id));
    CHECK(queue.finish(100) == 100);  // b: the next delta cycle
    queue.start(8);
    REQUIRE(queue.next_deferred(100, id));
    CHECK(id == b);
    CHECK_FALSE(queue.next_deferred(100, id));
    CHECK(queue.finish(100) == kNever);

    // Deferred in delta 9 after the process ran there: delta 10, as before.
    CHECK(queue.defer(a, 100, 10));
    queue.start(10);
    REQUIRE(queue.next_deferred(100, id));
    CHECK(id == a);
    CHECK(queue.finish(100) == kNever);
    CHECK(queue.wakeups() == 3);
}

TEST_CASE("wake-up queue: random request streams wake and activate exactly as the heap of every request") {
    std::uint64_t idle_activations = 0;  // over all seeds: activations that woke nobody
    std::uint64_t repeated_wakeups = 0;  // a client woken twice in one activation
    std::uint64_t skipped = 0;           // superseded entries popped
    for (const std::uint64_t seed : {1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 8ull}) {
        Draw draw(seed);
        const auto clients = static_cast<unsigned>(1 + draw.below(seed < 4 ? 4 : 40));
        const std::uint64_t span = 2 + draw.below(seed % 2 == 0 ? 4 : 40);  // ticks ahead: small spans, many ties
        WakeupQueue queue;
        HeapOfEveryRequest reference;
        for (unsigned c = 0; c < clients; ++c) REQUIRE(queue.attach() == reference.attach());

        std::uint64_t now = 0;
        std::uint64_t pending = kNever;  // the event's notification: an earlier one replaces a later one
        const auto request = [&](unsigned id, std::uint64_t tick) {
            const std::uint64_t notify_for = queue.request(id, tick);
            REQUIRE(notify_for == reference.request(id, tick));
            if (notify_for < pending) pending = notify_for;
        };
        std::uint64_t wakeups = 0;
        for (int round = 0; round < 4000; ++round) {
            if (pending == kNever || draw.below(4) == 0) {  // requests from outside, at now or later
                for (std::uint64_t n = 1 + draw.below(3); n > 0; --n)
                    request(static_cast<unsigned>(draw.below(clients)), now + draw.below(span));
                continue;
            }
            REQUIRE(pending >= now);
            now = pending;
            pending = kNever;
            queue.start(0);
            reference.start(0);
            std::vector<unsigned> woken;
            unsigned id = 0;
            unsigned expected = 0;
            for (;;) {
                const bool due = queue.next_due(now, id);
                REQUIRE(due == reference.next_due(now, expected));
                if (!due) break;
                REQUIRE(id == expected);
                for (const unsigned earlier : woken) repeated_wakeups += earlier == id;
                woken.push_back(id);
                // The woken client (and at times another) asks again, at now or later.
                for (std::uint64_t n = draw.below(3); n > 0; --n) {
                    const auto client = draw.below(4) == 0 ? static_cast<unsigned>(draw.below(clients)) : id;
                    request(client, now + draw.below(span));
                }
            }
            REQUIRE(pending == kNever);  // nothing notifies while the process runs
            const std::uint64_t next = queue.finish(now);
            REQUIRE(next == reference.finish());
            REQUIRE((next == kNever || next > now));
            pending = next;
            wakeups += woken.size();
            idle_activations += woken.empty();
        }
        CHECK(queue.wakeups() == wakeups);
        skipped += queue.pops() - queue.wakeups();
    }
    // The streams reach the cases that fix the order.
    CHECK(idle_activations > 100);
    CHECK(repeated_wakeups > 100);
    CHECK(skipped > 1000);
}
