// A rank's simulated clock; optional charging of measured CPU time.
#include "isvp/guest_clock.h"

#include <time.h>

#include <cmath>
#include <utility>

namespace isvp::guest {

GuestClock::GuestClock(double compute_scale, std::uint64_t write_cost_ps, CpuClock cpu_clock)
    : compute_scale_(compute_scale), write_cost_ps_(write_cost_ps), cpu_clock_(std::move(cpu_clock)) {
    if (compute_scale_ > 0) cpu_mark_ns_ = cpu_clock_();
}

void GuestClock::enter() {
    if (compute_scale_ <= 0) return;
    const std::uint64_t cpu_ns = cpu_clock_();
    const std::uint64_t spent_ns = cpu_ns > cpu_mark_ns_ ? cpu_ns - cpu_mark_ns_ : 0;
    cpu_mark_ns_ = cpu_ns;
    carried_ps_ += compute_scale_ * static_cast<double>(spent_ns) * 1000.0;
    const double whole_ps = std::floor(carried_ps_);
    carried_ps_ -= whole_ps;
    if (whole_ps >= static_cast<double>(remaining_ps()))
        now_ps_ = transport::kMaxTimePs;
    else
        now_ps_ += static_cast<std::uint64_t>(whole_ps);
}

void GuestClock::leave() {
    if (compute_scale_ > 0) cpu_mark_ns_ = cpu_clock_();
}

void GuestClock::resume_at(std::uint64_t time_ps) {
    if (time_ps > now_ps_) now_ps_ = time_ps;
}

std::uint64_t GuestClock::thread_cpu_ns() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace isvp::guest
