#include "isvp/qdma_coalescer.h"

namespace isvp {

void InterruptCoalescer::configure(std::uint32_t count, std::uint32_t timer_ticks, bool enabled) {
    count_ = count == 0 ? 1 : count;
    timer_ticks_ = timer_ticks;
    enabled_ = enabled;
}

bool InterruptCoalescer::due(std::uint64_t now) const {
    if (unsignalled_ == 0) return false;
    if (unsignalled_ >= count_) return true;
    return timer_ticks_ != 0 && now >= deadline();
}

InterruptCoalescer::Decision InterruptCoalescer::try_fire(std::uint64_t now) {
    Decision decision;
    if (enabled_ && armed_ && due(now)) {
        decision.fire = true;
        armed_ = false;
        unsignalled_ = 0;
    }
    return decision;
}

InterruptCoalescer::Decision InterruptCoalescer::on_entry(std::uint64_t now) {
    if (unsignalled_++ == 0) first_ = now;
    Decision decision = try_fire(now);
    if (!decision.fire && unsignalled_ == 1 && timer_ticks_ != 0) decision.timer_at = deadline();
    return decision;
}

InterruptCoalescer::Decision InterruptCoalescer::on_timer(std::uint64_t now) {
    Decision decision = try_fire(now);
    // A timer started for an earlier first entry: wait for the current one.
    if (!decision.fire && unsignalled_ != 0 && timer_ticks_ != 0 && now < deadline()) decision.timer_at = deadline();
    return decision;
}

InterruptCoalescer::Decision InterruptCoalescer::on_arm(std::uint64_t now) {
    armed_ = true;
    return try_fire(now);
}

void InterruptCoalescer::on_all_consumed() {
    unsignalled_ = 0;
}

void InterruptCoalescer::reset() {
    armed_ = false;
    unsignalled_ = 0;
    first_ = 0;
}

}  // namespace isvp
