#include "isvp/kernel_time_step.h"

#include <algorithm>
#include <cassert>

#include "isvp/sim_now.h"

namespace isvp::kernel_time_step {
namespace {

// 2.3.2 to 2.3.4 (2.3.0a and 2.3.1a lack m_initial_delta_count_at_current_time).
#if defined(SC_VERSION_ORIGINATOR) && SC_VERSION_MAJOR == 2 && SC_VERSION_MINOR == 3 && SC_VERSION_PATCH >= 2
#define ISVP_KERNEL_TIME_STEPS 1
using Context = sc_core::sc_simcontext;

// A private member of the kernel's context, by name: explicit instantiation
// may name it, and the friend it defines hands out the member pointer.
template <typename Tag, typename Tag::type Member>
struct Expose {
    friend typename Tag::type member(Tag) { return Member; }
};
#define ISVP_KERNEL_FIELD(Tag, Type, name) \
    struct Tag {                           \
        using type = Type Context::*;      \
        friend type member(Tag);           \
    };                                     \
    template struct Expose<Tag, &Context::name>

ISVP_KERNEL_FIELD(CurrentTime, sc_core::sc_time, m_curr_time);
ISVP_KERNEL_FIELD(ChangeStamp, sc_dt::uint64, m_change_stamp);
ISVP_KERNEL_FIELD(DeltaCount, sc_dt::uint64, m_delta_count);
ISVP_KERNEL_FIELD(DeltaCountAtTime, sc_dt::uint64, m_initial_delta_count_at_current_time);
ISVP_KERNEL_FIELD(ForcedStop, bool, m_forced_stop);
ISVP_KERNEL_FIELD(Paused, bool, m_paused);
ISVP_KERNEL_FIELD(SomethingToTrace, bool, m_something_to_trace);
#undef ISVP_KERNEL_FIELD

template <typename Tag>
auto& field(Context& context) {
    return context.*member(Tag{});
}
#else
#define ISVP_KERNEL_TIME_STEPS 0
#endif

constexpr std::uint64_t kNoHorizon = 0;
/// Tick the running simulate() ends at, or kNoHorizon outside simulate().
/// The kernel triggers the notifications due at that tick but leaves their
/// processes for the next sc_start() ("hold off on the delta for the
/// until_t time"): no step goes to it.
std::uint64_t horizon = kNoHorizon;

/// Records the running sc_start()'s end while it runs.
class Horizon {
  public:
    explicit Horizon(std::uint64_t end) : saved_(horizon) { horizon = end; }
    ~Horizon() { horizon = saved_; }
    Horizon(const Horizon&) = delete;
    Horizon& operator=(const Horizon&) = delete;

  private:
    std::uint64_t saved_;
};

}  // namespace

bool available() {
    return ISVP_KERNEL_TIME_STEPS != 0;
}

void simulate(const sc_core::sc_time& duration, sc_core::sc_starvation_policy policy) {
    const std::uint64_t now = sim_now().value();
    const sc_core::sc_time::value_type room = sc_core::sc_max_time().value() - now;
    const Horizon running(now + std::min(duration.value(), room));
    sc_core::sc_start(duration, policy);
}

void simulate() {
    const Horizon running(sc_core::sc_max_time().value());
    sc_core::sc_start();
}

bool may_advance_to(std::uint64_t tick) {
#if ISVP_KERNEL_TIME_STEPS
    if (tick >= horizon) return false;
    Context& context = *sc_core::sc_get_curr_simcontext();
    if (field<ForcedStop>(context) || field<Paused>(context) || field<SomethingToTrace>(context)) return false;
    // Zero when anything is runnable, notified for the next delta cycle or
    // waiting for its update (so no tick passes); else the time to the
    // earliest timed notification (cancelled ones skipped), or to the end of
    // time.
    const std::uint64_t now = field<CurrentTime>(context).value();
    const sc_core::sc_time to_next = sc_core::sc_time_to_pending_activity(&context);
    return tick > now && tick - now < to_next.value();
#else
    static_cast<void>(tick);
    return false;
#endif
}

void advance_to(std::uint64_t tick) {
#if ISVP_KERNEL_TIME_STEPS
    Context& context = *sc_core::sc_get_curr_simcontext();
    assert(tick > field<CurrentTime>(context).value() && tick < horizon && "advance_to() without may_advance_to()");
    // What crunch() does after an evaluation phase in which a process ran
    // (nothing to update, no delta notification: may_advance_to() checked)...
    ++field<ChangeStamp>(context);
    ++field<DeltaCount>(context);
    // ... and do_timestep() for the next timed notification's time.
    field<CurrentTime>(context) = sim_time(tick);
    ++field<ChangeStamp>(context);
    field<DeltaCountAtTime>(context) = field<DeltaCount>(context);
#else
    static_cast<void>(tick);
#endif
}

}  // namespace isvp::kernel_time_step
