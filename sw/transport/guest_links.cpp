// The simulator's end of the ranks' links: Unix-domain sockets and local channels.
#include "isvp/guest_links.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "isvp/guest_environment.h"

namespace isvp::transport {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;

namespace {

/// An abstract-namespace name ('@...') has no file to remove.
bool is_file(const std::string& path) {
    return !path.empty() && path[0] != '@';
}

/// Parent and process group of `pid` from /proc; false if it is gone.
bool parent_and_group(pid_t pid, pid_t& parent, pid_t& group) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const std::size_t close = line.rfind(')');  // the command name may hold anything
    if (close == std::string::npos || close + 2 >= line.size()) return false;
    std::istringstream fields(line.substr(close + 2));
    char state = 0;
    return static_cast<bool>(fields >> state >> parent >> group);
}

/// Whether `pid` is `guest`, in its process group, or descended from it.
bool belongs_to(pid_t pid, pid_t guest) {
    if (pid == guest) return true;
    pid_t parent = 0, group = 0;
    if (!parent_and_group(pid, parent, group)) return false;
    if (group == guest) return true;
    for (int depth = 0; depth < 64 && parent > 1; ++depth) {
        if (parent == guest) return true;
        pid_t ignored = 0;
        if (!parent_and_group(parent, parent, ignored)) return false;
    }
    return false;
}

}  // namespace

struct GuestLinks::Link {
    std::string path;                              ///< socket path (remote), removed once connected
    pid_t guest = 0;                               ///< the rank's process (expect_peer); 0 = any of this user
    std::unique_ptr<stream::acceptor> acceptor;    ///< listening until the rank connects
    std::unique_ptr<stream::socket> peer;          ///< target of the pending asynchronous accept
    std::unique_ptr<stream::socket> socket;        ///< the connected rank (remote)
    std::shared_ptr<guest::LocalChannel> channel;  ///< the rank thread's channel (local)
    WireMessage buffer{};                          ///< the message being read
    bool hello = false;                            ///< Hello answered
    bool reading = false;                          ///< an asynchronous read is wanted
    bool closed = false;                           ///< no more traffic either way
    bool left_reported = false;                    ///< the sink has been told the rank left
    bool process_exited = false;                   ///< the guest's process has exited (drain_after_exit)
    std::string exit_detail;                       ///< how it exited
};

GuestLinks::GuestLinks(asio::io_context& io, int ranks, Sink sink)
    : io_(io),
      ranks_(ranks),
      sink_(std::move(sink)),
      alive_(std::make_shared<bool>(true)),
      loop_thread_(std::this_thread::get_id()) {
    for (int rank = 0; rank < ranks; ++rank) links_.push_back(std::make_unique<Link>());
}

GuestLinks::~GuestLinks() {
    alive_.reset();
    for (auto& link : links_) {
        boost::system::error_code ignored;
        if (link->socket) link->socket->close(ignored);
        if (link->acceptor) link->acceptor->close(ignored);
        if (is_file(link->path)) ::unlink(link->path.c_str());
        if (link->channel) {
            link->channel->close("isvp transport: the simulator has shut down");
            link->channel->connect_host({});  // a late leave() no longer reaches this object
        }
    }
}

void GuestLinks::listen(int rank, const std::string& socket_path) {
    Link& link = *links_.at(static_cast<std::size_t>(rank));
    link.path = socket_path;
    link.acceptor = std::make_unique<stream::acceptor>(io_);
    boost::system::error_code error;
    link.acceptor->open(stream(), error);
    sockaddr_un address{};
    const socklen_t length = guest::socket_address(socket_path, address);
    stream::endpoint endpoint;
    std::memcpy(endpoint.data(), &address, length);
    endpoint.resize(length);  // after the copy: resize() looks at the path's last byte
    if (!error) link.acceptor->bind(endpoint, error);
    if (!error) link.acceptor->listen(4, error);
    if (error)
        throw std::runtime_error("cannot listen for rank " + std::to_string(rank) + " on " + socket_path + ": " +
                                 error.message());
    start_accept(rank);
}

void GuestLinks::expect_peer(int rank, pid_t pid) {
    links_.at(static_cast<std::size_t>(rank))->guest = pid;
}

std::shared_ptr<guest::LocalChannel> GuestLinks::attach_local(int rank) {
    Link& link = *links_.at(static_cast<std::size_t>(rank));
    link.channel = std::make_shared<guest::LocalChannel>();
    link.hello = false;
    guest::LocalChannel::HostHooks hooks;
    hooks.request = [this, rank](const Message& message) { queue_local(LocalPost{rank, false, message, {}}); };
    hooks.left = [this, rank](const std::string& failure) { queue_local(LocalPost{rank, true, {}, failure}); };
    link.channel->connect_host(std::move(hooks));
    return link.channel;
}

void GuestLinks::queue_local(const LocalPost& post) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(local_mutex_);
        local_posts_.push_back(post);
        local_queued_.store(true, std::memory_order_release);
        if (std::this_thread::get_id() != loop_thread_ && !wake_posted_) wake_posted_ = wake = true;
    }
    if (!wake) return;
    std::weak_ptr<bool> alive = alive_;
    asio::post(io_, [this, alive] {
        if (!alive.expired()) take_local();
    });
}

std::size_t GuestLinks::take_local(bool* left) {
    if (!local_queued_.load(std::memory_order_acquire)) return 0;
    std::vector<LocalPost> batch = std::move(local_spare_);  // a nested call finds it empty
    batch.clear();
    {
        std::lock_guard<std::mutex> lock(local_mutex_);
        batch.swap(local_posts_);
        local_queued_.store(false, std::memory_order_relaxed);
        wake_posted_ = false;
    }
    for (const LocalPost& post : batch) {
        Link& link = *links_[static_cast<std::size_t>(post.rank)];
        if (link.closed) continue;
        if (!post.left) {
            receive(post.rank, post.message);
            continue;
        }
        link.closed = true;
        if (left) *left = true;
        if (post.failure.empty())
            report(post.rank, Event::Kind::Left, "its program returned without finish()");
        else
            report(post.rank, Event::Kind::Left, "its program failed (above)", post.failure);
    }
    const std::size_t taken = batch.size();
    local_spare_ = std::move(batch);
    return taken;
}

bool GuestLinks::connected(int rank) const {
    const Link& link = *links_.at(static_cast<std::size_t>(rank));
    return link.socket != nullptr || link.channel != nullptr;
}

void GuestLinks::start_accept(int rank) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    link.peer = std::make_unique<stream::socket>(io_);
    std::weak_ptr<bool> alive = alive_;
    link.acceptor->async_accept(*link.peer, [this, alive, rank](const boost::system::error_code& error) {
        if (alive.expired() || error) return;
        Link& target = *links_[static_cast<std::size_t>(rank)];
        if (target.closed || target.socket) return;
        const std::string why = stranger(rank, target.peer->native_handle());
        if (!why.empty()) {
            send_away(rank, std::move(target.peer), why);
            start_accept(rank);  // the rank itself may still come
            return;
        }
        target.socket = std::move(target.peer);
        adopt(rank);
    });
}

std::string GuestLinks::stranger(int rank, int socket) const {
    const Link& link = *links_[static_cast<std::size_t>(rank)];
    ucred peer{};
    socklen_t size = sizeof peer;
    if (::getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) return "its credentials cannot be read";
    const std::string who = "pid " + std::to_string(peer.pid);
    if (peer.uid != ::geteuid()) return who + " runs as user " + std::to_string(peer.uid) + ", not the job's user";
    if (link.guest > 0 && !belongs_to(peer.pid, link.guest))
        return who + " is not rank " + std::to_string(rank) + "'s process (pid " + std::to_string(link.guest) +
               ") nor one it started";
    return {};
}

void GuestLinks::send_away(int rank, std::unique_ptr<stream::socket> socket, const std::string& why) {
    const std::string text = "connection refused: this socket belongs to rank " + std::to_string(rank) +
                             " of the job of launcher pid " + std::to_string(::getpid()) + "; " + why;
    const std::vector<std::uint8_t> bytes =
        encode_error(static_cast<std::uint32_t>(rank), 0, ErrorCode::Protocol, text);
    boost::system::error_code ignored;
    socket->non_blocking(true, ignored);  // a stranger that does not read cannot stall the simulator
    asio::write(*socket, asio::buffer(bytes), ignored);
    socket->shutdown(stream::socket::shutdown_send, ignored);
    // What it sent already is read and dropped: closing with unread input
    // would reset the connection, and the stranger might not see why.
    std::array<std::uint8_t, 4096> dropped{};
    for (int i = 0; i < 16; ++i) {
        boost::system::error_code error;
        socket->read_some(asio::buffer(dropped), error);
        if (error) break;
    }
    socket->close(ignored);
    Event event;
    event.kind = Event::Kind::Refused;
    event.detail = "refused a connection to its socket: " + why;
    sink_(rank, event);
}

void GuestLinks::adopt(int rank) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    boost::system::error_code ignored;
    link.socket->non_blocking(true, ignored);
    // One connection per rank: stop listening and remove the name.
    link.acceptor->close(ignored);
    if (is_file(link.path)) ::unlink(link.path.c_str());
    link.path.clear();
    link.reading = true;
    start_read(rank);
}

void GuestLinks::start_read(int rank) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    std::weak_ptr<bool> alive = alive_;
    asio::async_read(*link.socket, asio::buffer(link.buffer),
                     [this, alive, rank](const boost::system::error_code& error, std::size_t bytes) {
                         if (alive.expired()) return;
                         Link& target = *links_[static_cast<std::size_t>(rank)];
                         if (target.closed || !target.reading) return;
                         if (error == asio::error::operation_aborted && target.process_exited) {
                             drain_after_exit(rank, bytes);
                             return;
                         }
                         if (error) {
                             target.reading = false;
                             if (error == asio::error::eof && bytes == 0)
                                 report(rank, Event::Kind::Left, "its connection closed without finish()");
                             else if (error == asio::error::eof)
                                 report(rank, Event::Kind::Violation,
                                        "connection closed in the middle of a message (" + std::to_string(bytes) +
                                            " of " + std::to_string(kMessageBytes) + " bytes)");
                             else
                                 report(rank, Event::Kind::Left, "connection error: " + error.message());
                             return;
                         }
                         const Decoded decoded = decode(target.buffer.data(), Direction::ToSimulator);
                         if (!decoded.message) {
                             target.reading = false;
                             report(rank, Event::Kind::Violation, decoded.error);
                             return;
                         }
                         receive(rank, *decoded.message);
                         if (!target.reading || target.closed) return;
                         if (target.process_exited)
                             drain_after_exit(rank, 0);  // the cancel came too late for this read
                         else
                             start_read(rank);
                     });
}

void GuestLinks::receive(int rank, const Message& message) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    auto violation = [&](const std::string& detail) {
        link.reading = false;
        report(rank, Event::Kind::Violation, detail);
    };
    if (message.rank != static_cast<std::uint32_t>(rank))
        return violation("a " + to_string(message.type) + " message claims rank " + std::to_string(message.rank) +
                         " on rank " + std::to_string(rank) + "'s link");
    if (!link.hello) {
        if (message.type != MessageType::Hello)
            return violation("the first message must be Hello, got " + to_string(message.type));
        if (message.arg0 != static_cast<std::uint64_t>(ranks_))
            return violation("Hello for a job of " + std::to_string(message.arg0) + " ranks; this job has " +
                             std::to_string(ranks_));
        link.hello = true;
        Message welcome;
        welcome.type = MessageType::Welcome;
        welcome.rank = static_cast<std::uint32_t>(rank);
        welcome.arg0 = static_cast<std::uint64_t>(ranks_);
        reply(rank, welcome);
        Event attached;
        attached.kind = Event::Kind::Attached;
        attached.message = message;
        sink_(rank, attached);
        return;
    }
    if (message.type == MessageType::Hello) return violation("a second Hello");
    Event event;
    event.kind = Event::Kind::Request;
    event.message = message;
    sink_(rank, event);
}

void GuestLinks::report(int rank, Event::Kind kind, const std::string& detail, const std::string& failure) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    if (link.left_reported) return;
    link.left_reported = true;
    Event event;
    event.kind = kind;
    event.detail = detail;
    event.failure = failure;
    sink_(rank, event);
}

void GuestLinks::reply(int rank, const Message& message) {
    Link& link = *links_.at(static_cast<std::size_t>(rank));
    if (link.closed) return;
    if (link.channel) {
        link.channel->reply(message);
        return;
    }
    if (!link.socket) return;
    const WireMessage wire = encode(message);
    boost::system::error_code error;
    asio::write(*link.socket, asio::buffer(wire), error);
    if (error) {
        // The guest does not take its replies (gone, or not reading): it is
        // treated as having left, reported from the event loop (the caller
        // is the scheduler itself).
        close(rank);
        std::weak_ptr<bool> alive = alive_;
        const std::string detail = "cannot send to it: " + error.message();
        asio::post(io_, [this, alive, rank, detail] {
            if (!alive.expired()) report(rank, Event::Kind::Left, detail);
        });
    }
}

void GuestLinks::refuse(int rank, ErrorCode code, std::uint64_t time_ps, const std::string& text) {
    Link& link = *links_.at(static_cast<std::size_t>(rank));
    if (link.closed) return;
    if (link.channel) {
        Message error;
        error.type = MessageType::Error;
        error.rank = static_cast<std::uint32_t>(rank);
        error.time_ps = time_ps;
        error.arg0 = static_cast<std::uint64_t>(code);
        link.channel->refuse(error, text);
    } else if (link.socket) {
        const std::vector<std::uint8_t> bytes = encode_error(static_cast<std::uint32_t>(rank), time_ps, code, text);
        boost::system::error_code ignored;
        asio::write(*link.socket, asio::buffer(bytes), ignored);
    }
    close(rank);
}

void GuestLinks::close(int rank) {
    Link& link = *links_.at(static_cast<std::size_t>(rank));
    if (link.closed) return;
    link.closed = true;
    link.reading = false;
    boost::system::error_code ignored;
    if (link.socket) {
        link.socket->shutdown(stream::socket::shutdown_both, ignored);
        link.socket->close(ignored);
    }
    if (link.acceptor) link.acceptor->close(ignored);
    if (!link.path.empty()) {
        if (is_file(link.path)) ::unlink(link.path.c_str());
        link.path.clear();
    }
    if (link.channel) link.channel->close("isvp transport: rank " + std::to_string(rank) + ": the job ended");
}

void GuestLinks::process_exited(int rank, const std::string& description) {
    std::weak_ptr<bool> alive = alive_;
    if (links_.at(static_cast<std::size_t>(rank))->channel) return;
    if (connected(rank)) {
        // A process the guest forked may hold its connection open, so end of
        // file may never come: the pending read is cancelled and what the
        // guest sent before it exited is read at once (drain_after_exit).
        Link& link = *links_.at(static_cast<std::size_t>(rank));
        if (link.closed || !link.reading || !link.socket) return;
        link.exit_detail = description;
        link.process_exited = true;
        boost::system::error_code ignored;
        link.socket->cancel(ignored);
        return;
    }
    // Posted: a connection the event loop has already accepted runs its
    // handler first; one still in the backlog is taken here.
    asio::post(io_, [this, alive, rank, description] {
        if (alive.expired()) return;
        Link& link = *links_[static_cast<std::size_t>(rank)];
        if (link.closed || link.socket) return;
        if (link.acceptor && link.acceptor->is_open()) {
            boost::system::error_code error;
            link.acceptor->non_blocking(true, error);
            while (!error) {
                auto socket = std::make_unique<stream::socket>(io_);
                link.acceptor->accept(*socket, error);
                if (error) break;
                const std::string why = stranger(rank, socket->native_handle());
                if (!why.empty()) {
                    send_away(rank, std::move(socket), why);
                    continue;
                }
                link.socket = std::move(socket);
                adopt(rank);
                return;
            }
        }
        report(rank, Event::Kind::Left, description + " before connecting");
        close(rank);
    });
}

void GuestLinks::drain_after_exit(int rank, std::size_t have) {
    Link& link = *links_[static_cast<std::size_t>(rank)];
    // The guest has exited: everything it sent is in the socket now (the
    // socket is non-blocking). Read it all, then the guest has left.
    for (;;) {
        boost::system::error_code error;
        const std::size_t got =
            link.socket->read_some(asio::buffer(link.buffer.data() + have, kMessageBytes - have), error);
        if (error) break;  // would block, end of file, or failed: nothing more will come from the guest
        have += got;
        if (have < kMessageBytes) continue;
        have = 0;
        const Decoded decoded = decode(link.buffer.data(), Direction::ToSimulator);
        if (!decoded.message) {
            link.reading = false;
            report(rank, Event::Kind::Violation, decoded.error);
            return;
        }
        receive(rank, *decoded.message);
        if (link.closed || !link.reading) return;
    }
    if (link.closed || !link.reading) return;
    link.reading = false;
    if (have > 0)
        report(rank, Event::Kind::Violation,
               "connection closed in the middle of a message (" + std::to_string(have) + " of " +
                   std::to_string(kMessageBytes) + " bytes)");
    else
        report(rank, Event::Kind::Left, link.exit_detail);
}

}  // namespace isvp::transport
