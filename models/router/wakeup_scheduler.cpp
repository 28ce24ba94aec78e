#include "isvp/wakeup_scheduler.h"

namespace isvp {

WakeupScheduler::WakeupScheduler(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    SC_HAS_PROCESS(WakeupScheduler);
    SC_METHOD(run);
    sensitive << event_;
    dont_initialize();
}

unsigned WakeupScheduler::attach(Client& client) {
    clients_.push_back(&client);
    return queue_.attach();
}

void WakeupScheduler::request(unsigned id, std::uint64_t tick) {
    const std::uint64_t notify_for = queue_.request(id, tick);
    if (notify_for == WakeupQueue::kNever) return;
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    event_.notify(sc_core::sc_time::from_value(notify_for > now ? notify_for - now : 0));
}

void WakeupScheduler::run() {
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    queue_.start();  // requests made while clients run are served by the loop below
    unsigned id = 0;
    while (queue_.next_due(now, id)) clients_[id]->wake();
    const std::uint64_t next = queue_.finish();
    if (next != WakeupQueue::kNever) event_.notify(sc_core::sc_time::from_value(next - now));
}

}  // namespace isvp
