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
//
// On a fabric's WakeupScheduler (use_scheduler) the wake-up is a request to
// that scheduler instead of a notification of the own event — a push on its
// radix heap rather than an entry in the kernel's timed queue — with the
// same times and the same delta cycles: a wake-up for now runs in the next
// delta (WakeupScheduler::request_next_delta). The owner then runs from the
// scheduler's process as well as from its own method (its other events).
#pragma once

#include <systemc>

#include "isvp/sim_now.h"
#include "isvp/wakeup_scheduler.h"

namespace isvp {

class EarliestWake {
  public:
    /// From now on the wake-ups go to `scheduler`, which wakes `owner`.
    void use_scheduler(WakeupScheduler& scheduler, WakeupScheduler::Client& owner) {
        scheduler_ = &scheduler;
        scheduler_id_ = scheduler.attach(owner);
    }
    /// Wakes the owner `delay` from now (zero: in the next delta cycle),
    /// unless it is to wake by then already.
    void at(const sc_core::sc_time& delay) {
        const sc_core::sc_time when = sim_now() + delay;
        if (pending_ && due_ <= when) return;
        due_ = when;
        pending_ = true;
        if (!serving_) post(delay);
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
        if (pending_) post(due_ - sim_now());
    }
    /// The owner was woken by the scheduler but did not run (it had run in
    /// this delta cycle already, from its method): the pending wake-up, if
    /// any, is asked for again (the scheduler has just spent its request).
    void repost() {
        if (pending_ && !serving_) post(due_ - sim_now());
    }
    /// Between woken() and rearm(): the owner runs.
    bool serving() const { return serving_; }
    /// The event the owner's method is sensitive to (notified only without a scheduler).
    const sc_core::sc_event& event() const { return event_; }

  private:
    void post(const sc_core::sc_time& delay) {
        if (scheduler_ == nullptr)
            event_.notify(delay);
        else if (delay == sc_core::SC_ZERO_TIME)
            scheduler_->request_next_delta(scheduler_id_);
        else
            scheduler_->request(scheduler_id_, due_.value());
    }

    sc_core::sc_event event_;               ///< the one notification (no scheduler)
    sc_core::sc_time due_;                  ///< when the pending wake-up is due (pending_)
    WakeupScheduler* scheduler_ = nullptr;  ///< where wake-ups go, or null: event_
    unsigned scheduler_id_ = 0;             ///< the owner's id at scheduler_
    bool pending_ = false;                  ///< a wake-up is asked for (notified unless serving_)
    bool serving_ = false;                  ///< the owner runs: requests wait for rearm()
};

}  // namespace isvp
