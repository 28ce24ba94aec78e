#include "isvp/wakeup_scheduler.h"

#include "isvp/sim_now.h"

namespace isvp {

WakeupScheduler::WakeupScheduler(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    SC_HAS_PROCESS(WakeupScheduler);
    SC_METHOD(run);
    sensitive << event_;
    dont_initialize();
}

unsigned WakeupScheduler::attach(Client& client, const void* hot, unsigned hot_lines) {
    clients_.push_back(Attached{&client, static_cast<const char*>(hot), hot ? hot_lines : 0});
    hints_.emplace_back();
    return queue_.attach();
}

void WakeupScheduler::request(unsigned id, std::uint64_t tick) {
    const std::uint64_t now = sim_now().value();
    // For now, from another process: the next delta cycle, whether or not
    // this scheduler's process is still to run in this one.
    if (tick <= now && !queue_.running()) return request_next_delta(id);
    const std::uint64_t notify_for = queue_.request(id, tick);
    if (notify_for == WakeupQueue::kNever) return;
    event_.notify(sim_time(notify_for > now ? notify_for - now : 0));
}

void WakeupScheduler::request_next_delta(unsigned id) {
    if (queue_.defer(id, sim_now().value(), next_delta_count())) event_.notify(sc_core::SC_ZERO_TIME);
}

// Inline in run(), always: GCC finds a function of prefetches alone free of
// side effects and drops every call to it (as it did to this one, which
// left the 512-node bench without its prefetches: docs/PERFORMANCE.md,
// "Session 31"). CTest speed_prefetches_kept_* check the binaries.
[[gnu::always_inline]] inline void WakeupScheduler::prefetch_next() const {
    const unsigned after = queue_.next_client();
    if (after == WakeupQueue::kNone) return;
    const Attached& next_client = clients_[after];
    __builtin_prefetch(next_client.client);  // its vtable pointer, for wake()
    for (unsigned line = 0; line < next_client.hot_lines; ++line)
        __builtin_prefetch(next_client.hot + kCacheLineBytes * line);
    if (hints_on_)
        for (const void* line : hints_[after].lines) {
            if (line == nullptr) break;
            __builtin_prefetch(line);
        }
}

void WakeupScheduler::run() {
    ++kernel_runs_;
    std::uint64_t now = sim_now().value();
    for (;;) {
        queue_.start(sc_core::sc_delta_count());  // requests made while clients run are served by the loop below
        unsigned id = 0;
        while (queue_.next_deferred(now, id)) clients_[id].client->wake();
        while (queue_.next_due(now, id)) clients_[id].client->wake();
        const std::uint64_t next = queue_.finish(now);
        if (next == WakeupQueue::kNever) return;
        prefetch_next();
        // The kernel's next step would be to `next` for this process alone:
        // take it here, as the kernel would (kernel_time_step.h).
        if (next > now && time_steps_ && kernel_time_step::may_advance_to(next)) {
            kernel_time_step::advance_to(next);
            ++own_steps_;
            now = next;
            continue;
        }
        event_.notify(sim_time(next - now));
        return;
    }
}

}  // namespace isvp
