// Interrupt coalescing and arming of one QDMA queue's interrupt (SystemC-free;
// times are integers in one fixed unit: the shell uses SystemC's resolution).
//
// Events ("entries": completion entries written, or H2C SDI descriptors
// completed) accumulate as un-signalled. The interrupt is due when
//   un-signalled >= count (a count of 0 means 1), or
//   timer ticks > 0 and that many ticks have passed since the first
//   un-signalled entry;
// it fires when it is due, the queue's IRQ_ENABLE is set and the driver has
// armed it (doorbell with IRQ_ARM). Firing disarms and clears the
// un-signalled entries; a due interrupt that is not armed waits for the arm.
// When the driver consumes every entry (its CIDX reaches the PIDX) nothing is
// left to signal and the un-signalled count is cleared.
#pragma once

#include <cstdint>

namespace isvp {

class InterruptCoalescer {
  public:
    /// What the shell must do after an event.
    struct Decision {
        bool fire = false;           ///< raise the interrupt now
        std::uint64_t timer_at = 0;  ///< if non-zero: (re)start the timer for this time
    };

    /// `tick`: one timer tick (regmap::coalesce::kTimerTickNs) in the time
    /// unit of the calls below; the default assumes picoseconds.
    explicit InterruptCoalescer(std::uint64_t tick = 64000) : tick_(tick) {}

    /// Coalescing settings: CMPT_COALESCE fields and the queue's IRQ_ENABLE.
    void configure(std::uint32_t count, std::uint32_t timer_ticks, bool enabled);
    /// One entry written at `now`.
    Decision on_entry(std::uint64_t now);
    /// The timer the shell started has expired at `now`.
    Decision on_timer(std::uint64_t now);
    /// The driver armed the interrupt at `now`.
    Decision on_arm(std::uint64_t now);
    /// The driver has consumed every entry.
    void on_all_consumed();
    /// Queue reset: disarmed, nothing un-signalled.
    void reset();

    bool armed() const { return armed_; }
    std::uint32_t unsignalled() const { return unsignalled_; }
    bool due(std::uint64_t now) const;

  private:
    Decision try_fire(std::uint64_t now);
    std::uint64_t deadline() const { return first_ + static_cast<std::uint64_t>(timer_ticks_) * tick_; }

    std::uint64_t tick_;             ///< one timer tick
    std::uint32_t count_ = 1;        ///< entries per interrupt (>= 1)
    std::uint32_t timer_ticks_ = 0;  ///< ticks after the first un-signalled entry; 0 = off
    bool enabled_ = false;           ///< IRQ_ENABLE
    bool armed_ = false;             ///< the driver armed the interrupt
    std::uint32_t unsignalled_ = 0;  ///< entries since the last interrupt
    std::uint64_t first_ = 0;        ///< when the first un-signalled entry was written
};

}  // namespace isvp
