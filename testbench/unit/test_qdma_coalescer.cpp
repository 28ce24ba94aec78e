// CMPT interrupt coalescing and arming (times in picoseconds, 64 ns ticks).
#include <catch2/catch.hpp>

#include "isvp/qdma_coalescer.h"

using namespace isvp;

namespace {
constexpr std::uint64_t kNs = 1000;
}

TEST_CASE("qdma coalescer: COUNT entries fire an armed, enabled interrupt") {
    InterruptCoalescer coalescer;
    coalescer.configure(4, 0, true);
    coalescer.on_arm(0);
    CHECK_FALSE(coalescer.on_entry(10 * kNs).fire);
    CHECK_FALSE(coalescer.on_entry(20 * kNs).fire);
    CHECK_FALSE(coalescer.on_entry(30 * kNs).fire);
    CHECK(coalescer.on_entry(40 * kNs).fire);
    CHECK_FALSE(coalescer.armed());
    CHECK(coalescer.unsignalled() == 0);
}

TEST_CASE("qdma coalescer: COUNT 0 means every entry") {
    InterruptCoalescer coalescer;
    coalescer.configure(0, 0, true);
    coalescer.on_arm(0);
    CHECK(coalescer.on_entry(1).fire);
}

TEST_CASE("qdma coalescer: the timer starts at the first un-signalled entry and fires when due") {
    InterruptCoalescer coalescer;
    coalescer.configure(16, 10, true);
    coalescer.on_arm(0);
    const auto first = coalescer.on_entry(100 * kNs);
    CHECK_FALSE(first.fire);
    CHECK(first.timer_at == 100 * kNs + 640 * kNs);
    CHECK(coalescer.on_entry(200 * kNs).timer_at == 0);  // already running
    CHECK(coalescer.on_timer(740 * kNs).fire);
}

TEST_CASE("qdma coalescer: a stale timer restarts for the current first entry") {
    InterruptCoalescer coalescer;
    coalescer.configure(2, 10, true);
    coalescer.on_arm(0);
    coalescer.on_entry(0);
    CHECK(coalescer.on_entry(100 * kNs).fire);  // count reached before the timer
    coalescer.on_arm(200 * kNs);
    const auto restarted = coalescer.on_entry(300 * kNs);
    CHECK(restarted.timer_at == 940 * kNs);
    const auto stale = coalescer.on_timer(640 * kNs);  // the first timer expiring late
    CHECK_FALSE(stale.fire);
    CHECK(stale.timer_at == 940 * kNs);
    CHECK(coalescer.on_timer(940 * kNs).fire);
}

TEST_CASE("qdma coalescer: a due interrupt waits for the arm, then fires at once") {
    InterruptCoalescer coalescer;
    coalescer.configure(1, 0, true);
    CHECK_FALSE(coalescer.on_entry(0).fire);
    CHECK(coalescer.due(0));
    CHECK(coalescer.on_arm(50 * kNs).fire);
    CHECK_FALSE(coalescer.on_arm(60 * kNs).fire);  // nothing new
}

TEST_CASE("qdma coalescer: IRQ_ENABLE off never fires") {
    InterruptCoalescer coalescer;
    coalescer.configure(1, 0, false);
    coalescer.on_arm(0);
    CHECK_FALSE(coalescer.on_entry(0).fire);
    coalescer.configure(1, 0, true);
    CHECK(coalescer.on_arm(10).fire);
}

TEST_CASE("qdma coalescer: consuming every entry leaves nothing to signal") {
    InterruptCoalescer coalescer;
    coalescer.configure(1, 0, true);
    coalescer.on_entry(0);
    coalescer.on_all_consumed();
    CHECK_FALSE(coalescer.on_arm(10).fire);
}
