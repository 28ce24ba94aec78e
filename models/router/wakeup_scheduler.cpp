#include "isvp/wakeup_scheduler.h"

namespace isvp {

namespace {
constexpr std::uint64_t kNever = ~0ull;
}

WakeupScheduler::WakeupScheduler(sc_core::sc_module_name name) : sc_core::sc_module(name), notified_for_(kNever) {
    SC_HAS_PROCESS(WakeupScheduler);
    SC_METHOD(run);
    sensitive << event_;
    dont_initialize();
}

unsigned WakeupScheduler::attach(Client& client) {
    clients_.push_back(&client);
    due_.push_back(kNever);
    return static_cast<unsigned>(clients_.size() - 1);
}

void WakeupScheduler::request(unsigned id, std::uint64_t tick) {
    if (tick >= due_[id]) return;
    due_[id] = tick;
    agenda_.push(tick, id);
    if (!running_ && tick < notified_for_) {
        const std::uint64_t now = sc_core::sc_time_stamp().value();
        notified_for_ = tick;
        event_.notify(sc_core::sc_time::from_value(tick > now ? tick - now : 0));
    }
}

void WakeupScheduler::run() {
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    notified_for_ = kNever;
    running_ = true;  // requests made while clients run are seen by the loop below
    while (!agenda_.empty() && agenda_.next_time() <= now) {
        const std::uint64_t tick = agenda_.next_time();
        const unsigned id = agenda_.pop();
        if (due_[id] != tick) continue;  // superseded by an earlier request, already served
        due_[id] = kNever;
        clients_[id]->wake();
    }
    running_ = false;
    if (!agenda_.empty()) {
        notified_for_ = agenda_.next_time();
        event_.notify(sc_core::sc_time::from_value(notified_for_ - now));
    }
}

}  // namespace isvp
