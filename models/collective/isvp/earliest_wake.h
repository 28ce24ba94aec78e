// EarliestWake: one timed wake-up for a method process that serves several
// kinds of work, each due at its own time (an engine's run(): its credited
// outputs, the packet tails arriving, the chunks leaving the AgLUs).
//
// With an sc_event per kind, the kernel's timed queue held an entry per
// kind per engine, and every earlier notification left a cancelled entry
// behind in it (SystemC 2.3 removes those only when they reach its top).
// Here the kinds share one event: a request no earlier than the pending
// wake-up is dropped on the spot (SystemC would ignore it too), and those
// made while the owner runs (between woken() and rearm()) are folded into
// one notification at its end. The owner serves every kind that is due
// each time it runs, and each kind asks again for what it still waits for,
// so the process runs at the same times as with one event per kind.
#pragma once

#include <systemc>

namespace isvp {

class EarliestWake {
  public:
    /// Wakes the owner `delay` from now (zero: in the next delta cycle),
    /// unless it is to wake by then already.
    void at(const sc_core::sc_time& delay) {
        const sc_core::sc_time when = sc_core::sc_time_stamp() + delay;
        if (pending_ && due_ <= when) return;
        due_ = when;
        pending_ = true;
        if (!serving_) event_.notify(delay);
    }
    /// The owner has started: the wake-up it ran for is spent; until
    /// rearm(), requests only note the earliest.
    void woken() {
        pending_ = false;
        serving_ = true;
    }
    /// The owner is done: one notification for the earliest request it made.
    void rearm() {
        serving_ = false;
        if (pending_) event_.notify(due_ - sc_core::sc_time_stamp());
    }
    /// The event the owner's method is sensitive to.
    const sc_core::sc_event& event() const { return event_; }

  private:
    sc_core::sc_event event_;  ///< the one notification
    sc_core::sc_time due_;     ///< when the pending wake-up is due (pending_)
    bool pending_ = false;     ///< a wake-up is asked for (notified unless serving_)
    bool serving_ = false;     ///< the owner runs: requests wait for rearm()
};

}  // namespace isvp
