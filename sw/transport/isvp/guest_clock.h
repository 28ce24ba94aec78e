// GuestClock: one rank's local clock in simulated picoseconds (DESIGN §4).
//
// The clock advances only by what the rank does: explicit compute(), the CPU
// cost of a posted store, the simulator's reply times, and — with a compute
// scale s > 0 — s × the thread CPU time the guest spent between transport
// calls (measured with CLOCK_THREAD_CPUTIME_ID, so each local rank thread is
// measured on its own). With s = 0 no CPU time is read and runs are exactly
// repeatable. Plain C++17, no SystemC.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "isvp/transport_protocol.h"

namespace isvp::guest {

class GuestClock {
  public:
    /// Nanoseconds of CPU time consumed so far by the calling thread.
    using CpuClock = std::function<std::uint64_t()>;

    /// `compute_scale`: simulated time per unit of CPU time (0 = not charged);
    /// `write_cost_ps`: clock advance of one posted store. `cpu_clock` is
    /// replaceable for tests; by default the thread CPU-time clock.
    GuestClock(double compute_scale, std::uint64_t write_cost_ps, CpuClock cpu_clock = thread_cpu_ns);

    /// Entering a transport call: charges the CPU time since the last leave().
    void enter();
    /// Leaving a transport call: CPU time from here on is the guest's again.
    void leave();

    std::uint64_t now_ps() const { return now_ps_; }
    /// Simulated time left before the end of simulated time (kMaxTimePs).
    std::uint64_t remaining_ps() const { return transport::kMaxTimePs - now_ps_; }
    /// Adds `ps` (explicit computation; the caller checks remaining_ps()).
    void advance(std::uint64_t ps) { now_ps_ += ps; }
    /// Charges one posted store. Charges the guest did not ask for (this and
    /// measured CPU time) stop at kMaxTimePs rather than pass it.
    void charge_posted_write() { now_ps_ += std::min(write_cost_ps_, remaining_ps()); }
    /// Moves to a reply's time; never backwards.
    void resume_at(std::uint64_t time_ps);

    /// The calling thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID).
    static std::uint64_t thread_cpu_ns();

  private:
    std::uint64_t now_ps_ = 0;       ///< the rank's simulated time
    double compute_scale_;           ///< simulated per CPU time; 0 = off
    std::uint64_t write_cost_ps_;    ///< one posted store
    CpuClock cpu_clock_;             ///< CPU-time source (thread clock)
    std::uint64_t cpu_mark_ns_ = 0;  ///< CPU time at the last leave()
    double carried_ps_ = 0;          ///< sub-picosecond remainder of charged CPU time
};

}  // namespace isvp::guest
