// GuestClock: explicit time, posted-write cost, scaled CPU time.
#include <catch2/catch.hpp>

#include "isvp/guest_clock.h"

using isvp::guest::GuestClock;

TEST_CASE("guest clock: without a compute scale only explicit time counts") {
    int cpu_reads = 0;
    GuestClock clock(0.0, 50000, [&] {
        ++cpu_reads;
        return std::uint64_t{1000000};
    });
    clock.enter();
    clock.advance(7);
    clock.charge_posted_write();
    clock.leave();
    CHECK(clock.now_ps() == 50007);
    CHECK(cpu_reads == 0);  // no CPU-time reads at all: runs repeat exactly
}

TEST_CASE("guest clock: CPU time between calls is charged times the scale") {
    std::uint64_t cpu_ns = 1000;
    GuestClock clock(2.0, 0, [&] { return cpu_ns; });
    cpu_ns += 300;  // guest computes 300 ns of CPU time
    clock.enter();
    CHECK(clock.now_ps() == 600000);
    cpu_ns += 50;  // inside the transport call: not charged
    clock.leave();
    cpu_ns += 1;
    clock.enter();
    CHECK(clock.now_ps() == 602000);
}

TEST_CASE("guest clock: sub-picosecond remainders accumulate") {
    std::uint64_t cpu_ns = 0;
    GuestClock clock(0.0004, 0, [&] { return cpu_ns; });  // 0.4 ps per ns
    for (int i = 0; i < 5; ++i) {
        cpu_ns += 1;
        clock.enter();
        clock.leave();
    }
    CHECK(clock.now_ps() == 2);
}

TEST_CASE("guest clock: a reply never moves the clock backwards") {
    GuestClock clock(0.0, 0);
    clock.advance(1000);
    clock.resume_at(400);
    CHECK(clock.now_ps() == 1000);
    clock.resume_at(2500);
    CHECK(clock.now_ps() == 2500);
}

TEST_CASE("guest clock: the thread CPU clock moves with work") {
    const std::uint64_t before = GuestClock::thread_cpu_ns();
    volatile std::uint64_t sink = 0;
    for (int i = 0; i < 2000000; ++i) sink = sink + static_cast<std::uint64_t>(i);
    CHECK(GuestClock::thread_cpu_ns() > before);
}
