// The transport test scenarios (see transport_scenarios.h).
#include "transport_scenarios.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <ostream>
#include <stdexcept>
#include <thread>

namespace isvp::test {

namespace {

using guest::DeviceTransport;
using guest::TransportError;

constexpr std::uint64_t kNs = 1000;
constexpr std::uint64_t kUs = 1000000;

/// Prints "ok   ..." / "FAIL ..." lines into the trace and counts failures.
class Checker {
  public:
    explicit Checker(std::ostream& trace) : trace_(trace) {}
    void expect(bool ok, const std::string& what) {
        if (!ok) ++failures_;
        trace_ << "trace " << (ok ? "ok   " : "FAIL ") << what << "\n";
    }
    void equal(std::uint64_t got, std::uint64_t expected, const std::string& what) {
        expect(got == expected, what + " = " + std::to_string(got) +
                                    (got == expected ? "" : " (expected " + std::to_string(expected) + ")"));
    }
    int exit_code() const { return failures_ == 0 ? 0 : 1; }

  private:
    std::ostream& trace_;  ///< where check lines go
    int failures_ = 0;     ///< failed checks
};

template <typename Call>
bool throws_transport_error(Call call) {
    try {
        call();
    } catch (const TransportError&) {
        return true;
    }
    return false;
}

// One rank alone: every operation's simulated time, exactly.
int timing(DeviceTransport& t, std::uint64_t w, std::ostream& trace) {
    Checker check(trace);
    if (t.rank() != 0) return 0;
    using namespace fake;
    const std::uint64_t msi = kTriggerDelayPs + kMsiLatencyPs;

    std::uint32_t value = t.mmio_read32(TIME_NS);
    check.equal(value, 0, "read at 0 reaches the device at 0 ns");
    check.equal(t.now_ps(), kReadLatencyPs, "a read costs the annotated round trip (ps)");

    const std::uint64_t trigger_at = t.now_ps();
    t.mmio_write32(TRIGGER, 3);
    check.equal(t.now_ps(), trigger_at + w, "a posted write costs host.mmio_write_ns (ps)");
    check.equal(t.wait_interrupt(1u << 3), 3, "the wait returns the triggered vector");
    check.equal(t.now_ps(), trigger_at + msi, "woken when the MSI reaches the host (ps)");

    t.compute(1 * kUs);
    const std::uint64_t slow_at = t.now_ps();
    value = t.mmio_read32(SLOW);
    check.equal(value, (slow_at + kSlowWaitPs) / kNs, "a read that waits inside the device sees the later time");
    check.equal(t.now_ps(), slow_at + kSlowWaitPs + kReadLatencyPs, "... and returns after the wait + latency (ps)");

    t.mmio_write32(TRIGGER, 5);
    t.compute(5 * kUs);
    const std::uint64_t before_wait = t.now_ps();
    check.equal(t.wait_interrupt(1u << 5), 5, "an interrupt that arrived before the wait is delivered");
    check.equal(t.now_ps(), before_wait, "... without moving the clock (ps)");

    t.mmio_write32(TRIGGER, 9);
    t.mmio_write32(TRIGGER, 4);
    t.compute(10 * kUs);
    check.equal(t.wait_interrupt((1u << 9) | (1u << 4)), 4, "the lowest pending vector in the mask comes first");
    check.equal(t.wait_interrupt((1u << 9) | (1u << 4)), 9, "... then the next");

    t.mmio_write32(TRIGGER, 6);
    t.mmio_write32(TRIGGER, 6);
    t.compute(10 * kUs);
    check.equal(t.wait_interrupt(1u << 6), 6, "two MSIs of one vector: first wait");
    check.equal(t.wait_interrupt(1u << 6), 6, "two MSIs of one vector: second wait");

    const std::uint64_t blocked_at = t.now_ps();
    t.mmio_write32(TRIGGER, 7);
    check.equal(t.wait_interrupt(1u << 7), 7, "a blocking wait");
    check.equal(t.now_ps(), blocked_at + msi, "... ends exactly when the MSI arrives (ps)");

    check.equal(t.mmio_read32(COUNTER), 0, "first COUNTER read");
    check.equal(t.mmio_read32(COUNTER), 1, "second COUNTER read");
    t.compute(123457);  // an odd number of ps: the device must see this exact time
    const std::uint64_t odd_at = t.now_ps();
    check.equal(t.mmio_read32(TIME_NS), odd_at / kNs, "a read executes at exactly its timestamp (ns)");

    const std::uint64_t unmapped_at = t.now_ps();
    check.equal(t.mmio_read32(kUnmappedFrom), 0xFFFFFFFFu, "an error response reads as all ones");
    check.equal(t.now_ps(), unmapped_at + kReadLatencyPs, "... after the round trip (ps)");

    check.expect(throws_transport_error([&] { t.mmio_read32(3); }), "an unaligned offset is refused locally");
    check.expect(throws_transport_error([&] { t.mmio_write32(0x10000, 1); }), "an offset beyond BAR0 is refused");
    check.expect(throws_transport_error([&] { t.wait_interrupt(0); }), "an empty wait mask is refused");
    const std::uint64_t still = t.now_ps();
    check.equal(t.now_ps(), still, "now_ps() is stable without compute scale");
    check.equal(t.mmio_read32(SHARED), 0, "the transport still works after refused calls");
    trace << "trace end t=" << t.now_ps() << "\n";
    return check.exit_code();
}

// Many ranks interleaving reads, writes, computation and interrupts: the
// trace (values and times) must be identical in every run and mode.
int multi(DeviceTransport& t, std::uint64_t, std::ostream& trace) {
    using namespace fake;
    const int rank = t.rank();
    const int size = t.size();
    for (unsigned i = 0; i < 24; ++i) {
        t.compute(static_cast<std::uint64_t>(rank + 1) * 37 * kNs * (i % 3 + 1));
        t.mmio_write32(SHARED, static_cast<std::uint32_t>(rank) << 16 | i);
        const std::uint32_t counter = t.mmio_read32(COUNTER);
        trace << "trace i=" << i << " counter=" << counter << " t=" << t.now_ps() << "\n";
        if (i % 4 == 3) {
            const unsigned vector = 8 + (i / 4) % 8;
            t.mmio_write32(KICK, static_cast<std::uint32_t>((rank + 1) % size) << 8 | vector);
            const unsigned woken = t.wait_interrupt(std::uint64_t{1} << vector);
            trace << "trace i=" << i << " woken=" << woken << " t=" << t.now_ps() << "\n";
        }
        const std::uint32_t shared = t.mmio_read32(SHARED);
        const std::uint32_t time_ns = t.mmio_read32(TIME_NS);
        trace << "trace i=" << i << " shared=" << std::hex << shared << std::dec << " device_ns=" << time_ns
              << " t=" << t.now_ps() << "\n";
    }
    return 0;
}

// Two ranks write one register; one of them is slow in wall time. The
// device must apply the writes in simulated-time order regardless.
int race(DeviceTransport& t, int slow_rank, std::ostream& trace) {
    using namespace fake;
    Checker check(trace);
    const int rank = t.rank();
    if (rank > 1) return 0;
    t.compute(rank == 0 ? 100 * kNs : 200 * kNs);
    if (rank == slow_rank) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    t.mmio_write32(SHARED, rank == 0 ? 0xA0 : 0xB1);
    t.compute(1 * kUs - t.now_ps());
    check.equal(t.mmio_read32(SHARED), 0xB1, "rank " + std::to_string(rank) + " reads the later write (0xb1)");
    check.equal(t.mmio_read32(COUNTER), static_cast<std::uint64_t>(rank),
                "simultaneous reads are ordered by rank: rank " + std::to_string(rank) + "'s COUNTER");
    trace << "trace end t=" << t.now_ps() << "\n";
    return check.exit_code();
}

// A blocked rank is woken by another rank's action at an exact time.
int interrupts(DeviceTransport& t, std::uint64_t w, std::ostream& trace) {
    using namespace fake;
    Checker check(trace);
    const std::uint64_t msi = kTriggerDelayPs + kMsiLatencyPs;
    if (t.rank() == 0) {
        check.equal(t.wait_interrupt(1u << 5), 5, "rank 0 is woken by rank 1's kick");
        check.equal(t.now_ps(), 10 * kUs + msi, "... at 10 us + trigger delay + MSI latency (ps)");
        t.mmio_write32(KICK, 1u << 8 | 6);
        check.equal(t.wait_interrupt(1u << 7), 7, "rank 0 is woken again");
        check.equal(t.now_ps(), 10 * kUs + 2 * msi + msi, "... at rank 1's second kick + MSI (ps)");
    } else if (t.rank() == 1) {
        t.compute(10 * kUs);
        t.mmio_write32(KICK, 0u << 8 | 5);
        check.equal(t.wait_interrupt(1u << 6), 6, "rank 1 is woken by rank 0's kick");
        check.equal(t.now_ps(), 10 * kUs + 2 * msi, "... at rank 0's wake-up + MSI (ps)");
        t.mmio_write32(KICK, 0u << 8 | 7);
        check.equal(t.now_ps(), 10 * kUs + 2 * msi + w, "the kick costs one posted write (ps)");
    }
    trace << "trace end t=" << t.now_ps() << "\n";
    return check.exit_code();
}

// Every rank waits for an interrupt nobody sends: each must be told.
int deadlock(DeviceTransport& t, std::ostream& trace) {
    t.compute(static_cast<std::uint64_t>(t.rank()) * kUs);
    try {
        t.wait_interrupt(1u << 2);
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
    trace << "trace FAIL the impossible wait returned\n";
    return 1;
}

// As deadlock, but the platform still has events: each rank's own MSI
// (another vector) is in flight when every rank waits.
int deadlock_late(DeviceTransport& t, std::ostream& trace) {
    t.mmio_write32(fake::TRIGGER, 3);
    return deadlock(t, trace);
}

// Rank 1 crashes mid-job; rank 0 waits for something only rank 1 would cause.
int crash(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() == 1) {
        t.compute(1 * kUs);
        t.mmio_write32(fake::SHARED, 1);
        std::abort();
    }
    if (t.rank() == 0) {
        try {
            t.wait_interrupt(1u << 1);
        } catch (const TransportError& error) {
            trace << "trace told: " << error.what() << "\n";
            return 3;
        }
        trace << "trace FAIL woken although rank 1 crashed\n";
        return 1;
    }
    return 0;
}

// Plays normally for a while (the hostile tests' well-behaved rank).
int survivor(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() != 0) return 0;
    for (unsigned i = 0; i < 10; ++i) {
        t.compute(1 * kUs);
        t.mmio_write32(fake::SHARED, i);
        trace << "trace i=" << i << " shared=" << t.mmio_read32(fake::SHARED) << " t=" << t.now_ps() << "\n";
    }
    trace << "trace survivor done t=" << t.now_ps() << "\n";
    return 0;
}

// Waits for an interrupt only the (hostile) rank 1 could cause.
int waiter(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() != 0) return 0;
    try {
        t.wait_interrupt(1u << 9);
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
    trace << "trace FAIL woken\n";
    return 1;
}

// Connected, every rank says so; rank 0 then reads (never answered: rank 1
// sends nothing) and rank 1, ignoring SIGTERM, sleeps in wall time. The job
// hangs until the launcher is interrupted.
int sleeper(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() == 1) ::signal(SIGTERM, SIG_IGN);
    trace << "trace ready pid=" << ::getpid() << std::endl;
    if (t.rank() == 1)
        std::this_thread::sleep_for(std::chrono::seconds(60));
    else
        t.mmio_read32(fake::TIME_NS);
    return 0;
}

// Rank 1 throws after a read (a local rank: printed, status 1). Rank 0
// blocks in reads inside a catch block meanwhile and then rethrows its own
// exception: ranks as fibers keep each one's exception state apart.
int thrower(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() == 1) {
        t.mmio_read32(fake::TIME_NS);
        throw std::runtime_error("thrower: rank 1 gives up");
    }
    try {
        throw std::runtime_error("rank 0's own exception");
    } catch (const std::exception&) {
        for (int i = 0; i < 3; ++i) trace << "trace read " << t.mmio_read32(fake::TIME_NS) << " t=" << t.now_ps() << "\n";
        try {
            throw;
        } catch (const std::exception& error) {
            trace << "trace rethrown: " << error.what() << "\n";
        }
    }
    return 0;
}

// Rank 0 computes 1.2 s of wall time between two reads, holding simulated
// time for rank 1: the launcher gives a stall notice (job.stall_notice_s);
// the job still ends normally.
int stall(DeviceTransport& t, std::ostream& trace) {
    t.mmio_read32(fake::TIME_NS);
    if (t.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    t.mmio_read32(fake::TIME_NS);
    trace << "trace stall done t=" << t.now_ps() << "\n";
    return 0;
}

// Rank 0 computes for 30 s of wall time without a call, ignoring SIGTERM;
// rank 1 reads (queued behind rank 0). Only a limit or a signal ends it.
int computer(DeviceTransport& t, std::ostream& trace) {
    trace << "trace ready pid=" << ::getpid() << std::endl;
    if (t.rank() == 0) {
        ::signal(SIGTERM, SIG_IGN);
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return 0;
    }
    try {
        t.mmio_read32(fake::TIME_NS);
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
    return 0;
}

// Remote only: rank 1 exits with status 5 without finishing (as MPI_Abort
// does) while rank 0 computes for 30 s, ignoring SIGTERM.
int aborter(DeviceTransport& t, std::ostream& trace) {
    trace << "trace ready pid=" << ::getpid() << std::endl;
    if (t.rank() == 0) {
        ::signal(SIGTERM, SIG_IGN);
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::_Exit(5);
}

// Rank 0 polls a register forever; rank 1 waits for an interrupt that never
// comes. Simulated time advances, nobody is blocked for good: only
// job.max_simulated_us (or a signal) ends it.
int poller(DeviceTransport& t, std::ostream& trace) {
    try {
        if (t.rank() == 0)
            for (;;) t.mmio_read32(fake::COUNTER);
        t.wait_interrupt(1u << 9);
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
    return 0;
}

// Remote only: every rank forks a process that sleeps 30 s (keeping the
// rank's connection and output open). Then each reads and finishes
// ("forker"), or rank 1 exits with status 0 without finishing while rank 0
// waits ("forker-leave").
int forker(DeviceTransport& t, bool leave, std::ostream& trace) {
    const pid_t child = ::fork();
    if (child == 0) {
        ::sleep(30);
        ::_exit(0);
    }
    trace << "trace forked pid=" << child << std::endl;
    if (leave && t.rank() == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::_Exit(0);
    }
    try {
        t.mmio_read32(fake::TIME_NS);
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
    return 0;
}

// The end of simulated time (2^62 ps), 1 us away. Rank 0 asks to compute
// past it: refused with TransportError, its clock unchanged, and it still
// reads and finishes. Rank 1 reads 0.1 us before it: the answer (0.9 us
// later) would come past it, so the job ends at the limit instead.
int end_of_time(DeviceTransport& t, std::ostream& trace) {
    constexpr std::uint64_t kEnd = std::uint64_t{1} << 62;
    constexpr std::uint64_t kMicrosecond = 1000000;
    try {
        if (t.rank() == 0) {
            t.compute(kEnd - kMicrosecond);
            try {
                t.compute(2 * kMicrosecond);
            } catch (const TransportError& error) {
                trace << "trace refused: " << error.what() << "\n";
            }
            trace << "trace clock " << t.now_ps() << "\n";
            t.mmio_read32(fake::TIME_NS);
            trace << "trace answered at " << t.now_ps() << "\n";
            return 0;
        }
        t.compute(kEnd - kMicrosecond / 10);
        t.mmio_read32(fake::TIME_NS);
        trace << "trace FAIL answered at " << t.now_ps() << ", past the end of simulated time\n";
        return 1;
    } catch (const TransportError& error) {
        trace << "trace told: " << error.what() << "\n";
        return 3;
    }
}

// Wall-time cost of the transport: reads (round trips) and posted writes.
int bench(DeviceTransport& t, std::ostream& trace) {
    if (t.rank() != 0) return 0;
    using Clock = std::chrono::steady_clock;
    constexpr int kCount = 20000;
    for (int i = 0; i < 1000; ++i) t.mmio_read32(fake::COUNTER);  // warm-up
    auto start = Clock::now();
    for (int i = 0; i < kCount; ++i) t.mmio_read32(fake::COUNTER);
    const double read_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kCount;
    start = Clock::now();
    for (int i = 0; i < kCount; ++i) t.mmio_write32(fake::SHARED, static_cast<std::uint32_t>(i));
    const double post_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kCount;
    t.mmio_read32(fake::SHARED);  // the simulator has executed every write once this returns
    const double sustained_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kCount;
    trace << "bench mmio_read32 round trip: " << read_us << " us wall\n"
          << "bench mmio_write32 posted, guest side: " << post_us << " us wall\n"
          << "bench mmio_write32 posted, executed by the simulator: " << sustained_us << " us wall\n";
    return 0;
}

}  // namespace

bool is_scenario(const std::string& name) {
    static const char* const kNames[] = {"timing",   "multi",         "race-slow0",   "race-slow1", "interrupts",
                                         "deadlock", "deadlock-late", "crash",        "survivor",   "waiter",
                                         "sleeper",  "bench",         "stall",        "computer",   "aborter",
                                         "poller",   "forker",        "forker-leave", "end-of-time",
                                         "thrower"};
    for (const char* known : kNames)
        if (name == known) return true;
    return false;
}

int run_scenario(const std::string& name, guest::DeviceTransport& transport, std::uint64_t write_cost_ps,
                 std::ostream& trace) {
    if (name == "timing") return timing(transport, write_cost_ps, trace);
    if (name == "multi") return multi(transport, write_cost_ps, trace);
    if (name == "race-slow0") return race(transport, 0, trace);
    if (name == "race-slow1") return race(transport, 1, trace);
    if (name == "interrupts") return interrupts(transport, write_cost_ps, trace);
    if (name == "deadlock") return deadlock(transport, trace);
    if (name == "deadlock-late") return deadlock_late(transport, trace);
    if (name == "crash") return crash(transport, trace);
    if (name == "survivor") return survivor(transport, trace);
    if (name == "waiter") return waiter(transport, trace);
    if (name == "sleeper") return sleeper(transport, trace);
    if (name == "bench") return bench(transport, trace);
    if (name == "stall") return stall(transport, trace);
    if (name == "computer") return computer(transport, trace);
    if (name == "aborter") return aborter(transport, trace);
    if (name == "poller") return poller(transport, trace);
    if (name == "forker") return forker(transport, false, trace);
    if (name == "forker-leave") return forker(transport, true, trace);
    if (name == "end-of-time") return end_of_time(transport, trace);
    if (name == "thrower") return thrower(transport, trace);
    trace << "trace FAIL unknown scenario " << name << "\n";
    return 2;
}

}  // namespace isvp::test
