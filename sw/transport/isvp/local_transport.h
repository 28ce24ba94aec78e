// LocalTransport: a guest rank inside the simulator process (DESIGN §4,
// local mode) — a fiber on the simulator's thread or a thread of its own
// (job.ranks) — for large sweeps without one process per rank.
// It sends the same protocol messages as RemoteTransport, through a
// LocalChannel instead of a socket, so the scheduler treats both alike.
//
// LocalChannel is the thread-safe pipe between one rank and the simulator's
// event loop: the guest's requests go to the host's hooks (the host
// forwards them to its event loop), the host's replies wait in a queue for
// the guest. A rank thread sleeps for its reply; a rank fiber (cooperative
// mode) switches to the scheduler instead and is woken by the reply.
// Plain C++17, no SystemC.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "isvp/message_transport.h"
#include "isvp/transport_config.h"

namespace isvp::guest {

class LocalChannel {
  public:
    /// How the host learns of a request, or of the guest leaving. Both are
    /// called on the guest's thread and must hand over to the host's own
    /// thread (e.g. post to its event loop).
    struct HostHooks {
        std::function<void(const transport::Message&)> request;
        /// The guest left: `failure` is its program's error when it failed
        /// (an exception), empty when it returned.
        std::function<void(const std::string& failure)> left;
    };

    /// Host side, before the guest thread starts.
    void connect_host(HostHooks hooks);
    /// Host side, before the guest starts: the guest is a fiber on the
    /// host's own thread. receive() calls `suspend` (switch to the host)
    /// until a reply is there, and every reply or close calls `wake`.
    /// Empty functions: back to a guest thread (after the fiber ended).
    void make_cooperative(std::function<void()> suspend, std::function<void()> wake);

    // --- guest side ---
    /// Throws TransportError if the host has closed the channel.
    void send(const transport::Message& message);
    /// Blocks for the host's next message; an Error's text goes to `error_text`.
    /// A thread polls for up to `spin` of wall time before sleeping
    /// (spin_wait.h); a fiber suspends at once.
    transport::Message receive(std::string& error_text, std::chrono::nanoseconds spin = {});
    /// The guest is done (the local equivalent of closing the socket);
    /// `failure`: its program's error, if it failed. Only the first call counts.
    void leave(const std::string& failure = {});

    // --- host side ---
    void reply(const transport::Message& message);
    /// An Error reply with `text`, then the channel is closed.
    void refuse(const transport::Message& error, const std::string& text);
    /// No more replies: a waiting or later receive() throws with `reason`.
    void close(const std::string& reason);

  private:
    struct Reply {
        transport::Message message;  ///< the reply
        std::string text;            ///< an Error's text
    };

    std::mutex mutex_;                  ///< guards everything below
    std::condition_variable ready_;     ///< a reply arrived or the channel closed
    std::deque<Reply> replies_;         ///< replies the guest has not taken yet
    std::atomic<bool> pending_{false};  ///< replies_ not empty or closed_ (set under the mutex, polled without it)
    bool closed_ = false;               ///< the host closed the channel
    std::string close_reason_;          ///< why, for the guest's TransportError
    bool left_ = false;                 ///< the guest called leave()
    /// The host's receivers (null until connect_host); send() takes a share, not a copy.
    std::shared_ptr<const HostHooks> hooks_;
    std::function<void()> suspend_;     ///< cooperative: the guest fiber's switch to the host
    std::function<void()> wake_;        ///< cooperative: makes the guest fiber runnable
};

class LocalTransport final : public MessageTransport {
  public:
    /// `memory` is the rank's host memory (owned by the caller, as big as
    /// `memory_bytes`); `config` gives host.mmio_write_ns, host.compute_scale
    /// and job.spin_wait_us.
    LocalTransport(std::shared_ptr<LocalChannel> channel, int rank, int size, std::uint8_t* memory,
                   std::size_t memory_bytes, const TransportConfig& config);
    /// Leaves the channel (without finish() the simulator sees the rank leave).
    ~LocalTransport() override;
    LocalTransport(const LocalTransport&) = delete;
    LocalTransport& operator=(const LocalTransport&) = delete;

    std::uint8_t* host_memory() override { return memory_; }
    std::size_t host_memory_bytes() const override { return memory_bytes_; }

  private:
    void send(const transport::Message& message) override;
    transport::Message receive(std::string& error_text) override;

    std::shared_ptr<LocalChannel> channel_;  ///< to the simulator's event loop
    std::uint8_t* memory_;                   ///< host memory (not owned)
    std::size_t memory_bytes_;               ///< its size
    std::chrono::nanoseconds
        spin_wait_;  ///< job.spin_wait_us (scaled by cores / ranks): polling for a reply before sleeping
};

}  // namespace isvp::guest
