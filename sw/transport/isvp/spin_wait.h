// spin_until: bounded busy-waiting before a blocking wait, for the
// transport's round trips (README "Wall-time cost").
//
// A read or a wait is a hand-over between two threads: the rank sends and
// waits, the scheduler wakes, executes, replies and waits, the rank wakes.
// Each wake-up of a sleeping thread costs the operating system's wake-up
// latency, which is large on a virtual machine when the sleeper's vCPU has
// gone idle: the vCPU halted, and waking it goes through the hypervisor
// (measured: 40-55 us per round trip with both sides sleeping, against
// 2-5 us locally when neither does). So each side first polls for a short,
// bounded time (job.spin_wait_us) and sleeps only if nothing came. The CPU
// is yielded between polls, so a poller gives way to a thread waiting for
// its CPU. Only wall time depends on this; simulated results never do.
// Plain C++17, no SystemC.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

namespace isvp::transport {

/// job.spin_wait_us as a duration (negative values count as zero).
inline std::chrono::nanoseconds spin_budget(double microseconds) {
    return std::chrono::nanoseconds(microseconds > 0 ? static_cast<std::int64_t>(microseconds * 1e3) : 0);
}

/// Calls `ready()` until it returns true, yielding the CPU between calls,
/// for at most `budget` of wall time. Returns whether `ready()` succeeded;
/// a zero budget calls it once.
template <typename Ready>
bool spin_until(Ready&& ready, std::chrono::nanoseconds budget) {
    using Clock = std::chrono::steady_clock;
    if (ready()) return true;
    if (budget <= std::chrono::nanoseconds::zero()) return false;
    const Clock::time_point deadline = Clock::now() + budget;
    do {
        std::this_thread::yield();
        if (ready()) return true;
    } while (Clock::now() < deadline);
    return false;
}

}  // namespace isvp::transport
