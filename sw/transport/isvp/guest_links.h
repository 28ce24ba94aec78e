// GuestLinks: the simulator's end of every rank's link, on one Boost.Asio
// event loop (single-threaded: all callbacks run inside io_context::poll /
// run_one, called by the scheduler between SystemC runs).
//
//   * remote rank — a Unix-domain socket that accepts exactly one
//     connection; fixed-size messages are read asynchronously and checked
//     (magic, version, type, length, rank; Hello first) before the sink sees
//     them. A malformed message is reported as a Violation and nothing more
//     is read from that socket. The peer is checked when it connects
//     (SO_PEERCRED): another user's process, or with expect_peer() one that
//     is not the rank's process nor started by it, gets an Error and is
//     Refused; the socket keeps listening for the rank.
//   * local rank — a LocalChannel; the rank's requests (and its leaving) go
//     to a queue that the scheduler empties with take_local() wherever it
//     polls the event loop, so they reach the sink on the scheduler's
//     thread, in the order they were made. A fiber queues on that thread
//     itself and costs no event-loop traffic; a rank thread also posts one
//     wake-up to the event loop (while none is pending), so a scheduler
//     sleeping in run_one() takes the queue.
//
// Hello is answered here (Welcome); the sink is told the rank attached. Replies and
// refusals (an Error message, then the link closes) go back through reply()
// and refuse(). SystemC-free.
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include "isvp/local_transport.h"
#include "isvp/transport_protocol.h"

namespace isvp::transport {

class GuestLinks {
  public:
    struct Event {
        enum class Kind {
            Attached,   ///< the rank said Hello (its host memory is mapped)
            Request,    ///< a well-formed request (message)
            Left,       ///< the link closed, or the process exited before connecting (detail)
            Violation,  ///< malformed traffic (detail); the link reads no more
            Refused,    ///< a stranger connected to the rank's socket and was sent away (detail)
        };
        Kind kind = Kind::Request;
        Message message;      ///< Request
        std::string detail;   ///< Left, Violation
        std::string failure;  ///< Left: a local rank's program failed with this error (printed already)
    };
    using Sink = std::function<void(int rank, const Event& event)>;

    GuestLinks(boost::asio::io_context& io, int ranks, Sink sink);
    ~GuestLinks();
    GuestLinks(const GuestLinks&) = delete;
    GuestLinks& operator=(const GuestLinks&) = delete;

    /// Remote rank: listens on `socket_path` for its one connection (a
    /// file, or '@name' in the abstract namespace: see socket_address()).
    void listen(int rank, const std::string& socket_path);
    /// Remote rank: only process `pid` (the launched guest), a descendant of
    /// it or a member of its process group may connect as this rank.
    /// Without it, any process of this user may (tests).
    void expect_peer(int rank, pid_t pid);
    /// Local rank: the channel its LocalTransport uses.
    std::shared_ptr<guest::LocalChannel> attach_local(int rank);
    /// Hands what local ranks have queued (requests, leaving) to the sink,
    /// in order; returns how many, and sets `*left` if a rank's leaving was
    /// among them. Call on the event loop's thread.
    std::size_t take_local(bool* left = nullptr);

    void reply(int rank, const Message& reply);
    /// Sends an Error (code, text) and closes the link.
    void refuse(int rank, ErrorCode code, std::uint64_t time_ps, const std::string& text);
    /// Closes the link; the guest's next call fails.
    void close(int rank);

    /// The rank's process exited: if it never connected, report Left once the
    /// event loop has taken every connection that was already made; if it
    /// did, once what it sent has been read (a process it forked may hold
    /// the connection open, so end of file may never come).
    void process_exited(int rank, const std::string& description);

    /// Whether the rank has connected (remote) or attached (local).
    bool connected(int rank) const;

  private:
    struct Link;

    void start_accept(int rank);
    /// Why the process at the other end of `socket` may not be `rank`; "" if it may.
    std::string stranger(int rank, int socket) const;
    /// Sends a stranger an Error saying why, closes it, reports Refused.
    void send_away(int rank, std::unique_ptr<boost::asio::local::stream_protocol::socket> socket,
                   const std::string& why);
    void adopt(int rank);
    void start_read(int rank);
    void receive(int rank, const Message& message);
    void report(int rank, Event::Kind kind, const std::string& detail, const std::string& failure = {});
    /// The rank's process has exited: reads what it sent (`have` bytes of a
    /// message are already in the buffer), then reports it Left.
    void drain_after_exit(int rank, std::size_t have);
    /// A local rank's request, or (left) its leaving without finish().
    struct LocalPost {
        int rank = 0;
        bool left = false;
        Message message;
        std::string failure;  ///< left: its program's error, if it failed
    };
    void queue_local(const LocalPost& post);

    boost::asio::io_context& io_;               ///< the event loop everything runs on
    int ranks_;                                 ///< ranks in the job
    Sink sink_;                                 ///< the scheduler
    std::vector<std::unique_ptr<Link>> links_;  ///< by rank
    std::shared_ptr<bool> alive_;               ///< expires with this object: late local posts are dropped
    std::thread::id loop_thread_;               ///< the event loop's (constructing) thread
    std::mutex local_mutex_;                    ///< guards local_posts_ and wake_posted_
    std::vector<LocalPost> local_posts_;        ///< queued by local ranks, oldest first
    bool wake_posted_ = false;                  ///< a take_local() is posted to the event loop
    std::atomic<bool> local_queued_{false};     ///< local_posts_ is not empty (read without the lock)
    std::vector<LocalPost> local_spare_;        ///< the last batch's storage, reused
};

}  // namespace isvp::transport
