// A local rank's link to the simulator's event loop.
#include "isvp/local_transport.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "isvp/spin_wait.h"

namespace isvp::guest {

using transport::Message;

void LocalChannel::connect_host(HostHooks hooks) {
    auto shared = std::make_shared<const HostHooks>(std::move(hooks));
    std::lock_guard<std::mutex> lock(mutex_);
    hooks_ = std::move(shared);
}

void LocalChannel::send(const Message& message) {
    // The hooks are called outside the mutex (the host may reply at once);
    // holding them by shared_ptr keeps them alive if connect_host replaces
    // them meanwhile, without copying the std::function (its lambda is
    // larger than the small buffer: a copy allocated on every message).
    std::shared_ptr<const HostHooks> hooks;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) throw TransportError(close_reason_);
        hooks = hooks_;
    }
    if (!hooks || !hooks->request) throw TransportError("isvp transport: local rank channel has no simulator attached");
    hooks->request(message);
}

void LocalChannel::make_cooperative(std::function<void()> suspend, std::function<void()> wake) {
    std::lock_guard<std::mutex> lock(mutex_);
    suspend_ = std::move(suspend);
    wake_ = std::move(wake);
}

Message LocalChannel::receive(std::string& error_text, std::chrono::nanoseconds spin) {
    if (suspend_) {
        // A fiber: the host runs on this thread, so nothing can arrive
        // while the fiber runs; it switches to the host until woken.
        while (!pending_.load(std::memory_order_acquire)) suspend_();
    } else {
        // Poll (without the mutex) before sleeping on the condition variable (spin_wait.h).
        transport::spin_until([this] { return pending_.load(std::memory_order_acquire); }, spin);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !replies_.empty() || closed_; });
    if (replies_.empty()) throw TransportError(close_reason_);
    Reply reply = std::move(replies_.front());
    replies_.pop_front();
    pending_.store(!replies_.empty() || closed_, std::memory_order_release);
    error_text = std::move(reply.text);
    return reply.message;
}

void LocalChannel::leave(const std::string& failure) {
    std::shared_ptr<const HostHooks> hooks;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (left_) return;
        left_ = true;
        hooks = hooks_;
    }
    if (hooks && hooks->left) hooks->left(failure);
}

void LocalChannel::reply(const Message& message) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) return;
        replies_.push_back({message, {}});
        pending_.store(true, std::memory_order_release);
    }
    ready_.notify_all();
    if (wake_) wake_();
}

void LocalChannel::refuse(const Message& error, const std::string& text) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) return;
        replies_.push_back({error, text});
        closed_ = true;
        close_reason_ = "isvp transport: " + text;
        pending_.store(true, std::memory_order_release);
    }
    ready_.notify_all();
    if (wake_) wake_();
}

void LocalChannel::close(const std::string& reason) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) return;
        closed_ = true;
        close_reason_ = reason;
        pending_.store(true, std::memory_order_release);
    }
    ready_.notify_all();
    if (wake_) wake_();
}

namespace {

GuestClock make_clock(const TransportConfig& config) {
    return GuestClock(config.compute_scale, config.mmio_write_ps());
}

/// job.spin_wait_us for one of `ranks` rank threads: scaled by cores / ranks
/// when the job has more rank threads than the machine has cores, so that
/// all ranks together poll no longer than `cores` ranks would (README
/// "Wall-time cost"). A thousand rank threads that each polled for the full
/// budget after every request would take the CPU from the one simulator
/// thread that has to answer them.
std::chrono::nanoseconds rank_spin_budget(const TransportConfig& config, int ranks) {
    const std::chrono::nanoseconds budget = transport::spin_budget(config.spin_wait_us);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (ranks <= static_cast<int>(cores)) return budget;
    return budget * cores / ranks;
}

}  // namespace

LocalTransport::LocalTransport(std::shared_ptr<LocalChannel> channel, int rank, int size, std::uint8_t* memory,
                               std::size_t memory_bytes, const TransportConfig& config)
    : MessageTransport(rank, size, make_clock(config)),
      channel_(std::move(channel)),
      memory_(memory),
      memory_bytes_(memory_bytes),
      spin_wait_(rank_spin_budget(config, size)) {
    attach();
}

LocalTransport::~LocalTransport() {
    channel_->leave();
}

void LocalTransport::send(const Message& message) {
    channel_->send(message);
}

Message LocalTransport::receive(std::string& error_text) {
    return channel_->receive(error_text, spin_wait_);
}

}  // namespace isvp::guest
