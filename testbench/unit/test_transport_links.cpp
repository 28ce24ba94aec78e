// Remote and local transports against the simulator's links (no SystemC):
// a small "echo" host answers reads and waits, so the guest-side semantics
// (clock, replies, refusals, shared host memory) are checked end to end.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "isvp/guest_links.h"
#include "isvp/local_transport.h"
#include "isvp/remote_transport.h"
#include "isvp/shared_memory.h"

using namespace isvp;
using namespace isvp::transport;

namespace {

/// A one-rank host: answers reads with offset * 2 after 100 ps and waits
/// with their lowest vector after 5 ps (or refuses reads when told to),
/// and records everything it sees.
class EchoHost {
  public:
    explicit EchoHost(int ranks = 1)
        : work(boost::asio::make_work_guard(io)),
          links(io, ranks, [this](int rank, const GuestLinks::Event& event) { handle(rank, event); }) {}

    void handle(int rank, const GuestLinks::Event& event) {
        events.push_back(event);
        if (event.kind != GuestLinks::Event::Kind::Request) return;
        Message reply = event.message;
        switch (event.message.type) {
            case MessageType::MmioRead:
                if (refuse_reads) {
                    links.refuse(rank, ErrorCode::Protocol, event.message.time_ps, "no reads today");
                    return;
                }
                reply.type = MessageType::ReadReply;
                reply.time_ps += 100;
                reply.arg1 = event.message.arg0 * 2;
                links.reply(rank, reply);
                break;
            case MessageType::WaitInterrupt:
                reply.type = MessageType::InterruptReply;
                reply.time_ps += 5;
                reply.arg0 = lowest_vector(event.message.arg0);
                links.reply(rank, reply);
                break;
            default:
                break;
        }
    }

    /// Runs the event loop until `guest` (run on its own thread) returns.
    void serve(const std::function<void()>& guest) {
        std::atomic<bool> done{false};
        std::thread thread([&] {
            guest();
            done = true;
        });
        while (!done) io.run_one_for(std::chrono::milliseconds(10));
        thread.join();
        for (int i = 0; i < 20; ++i) io.run_one_for(std::chrono::milliseconds(5));
    }

    std::vector<Message> request_messages() const {
        std::vector<Message> messages;
        for (const auto& event : events)
            if (event.kind == GuestLinks::Event::Kind::Request) messages.push_back(event.message);
        return messages;
    }

    std::vector<MessageType> requests() const {
        std::vector<MessageType> types;
        for (const auto& event : events)
            if (event.kind == GuestLinks::Event::Kind::Request) types.push_back(event.message.type);
        return types;
    }

    boost::asio::io_context io;                                                     ///< the event loop
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;  ///< keeps it from stopping
    GuestLinks links;                                                               ///< the host's ends
    std::vector<GuestLinks::Event> events;                                          ///< everything the sink saw
    bool refuse_reads = false;                                                      ///< answer reads with an Error
};

/// A private directory for sockets, removed afterwards.
struct TempDirectory {
    TempDirectory() {
        char pattern[] = "/tmp/isvp-unit-XXXXXX";
        path = ::mkdtemp(pattern);
    }
    ~TempDirectory() { std::filesystem::remove_all(path); }
    std::string path;  ///< the directory
};

guest::GuestEnvironment environment_for(const std::string& socket, const std::string& segment) {
    guest::GuestEnvironment environment;
    environment.socket_path = socket;
    environment.shm_name = segment;
    environment.shm_bytes = 1u << 16;
    environment.rank = 0;
    environment.size = 1;
    environment.mmio_write_ns = 50;
    return environment;
}

std::string segment_name(const std::string& what) {
    return "isvp-unit-" + std::to_string(::getpid()) + "-" + what;
}

}  // namespace

TEST_CASE("transport links: a remote rank's requests, replies, clock and shared memory") {
    TempDirectory directory;
    const std::string socket = directory.path + "/rank0.sock";
    SharedMemorySegment memory = SharedMemorySegment::create(segment_name("remote"), 1u << 16);
    EchoHost host;
    host.links.listen(0, socket);
    std::uint32_t value = 0;
    unsigned vector = 0;
    std::uint64_t after_read = 0;
    std::uint64_t after_wait = 0;
    host.serve([&] {
        guest::RemoteTransport transport(environment_for(socket, memory.name()));
        transport.host_memory()[100] = 0x5A;
        transport.mmio_write32(0x20, 7);      // clock 0 -> 50 ns
        value = transport.mmio_read32(0x40);  // at 50 ns, answered at +100 ps
        after_read = transport.now_ps();
        vector = transport.wait_interrupt(0x30);  // lowest of {4, 5}
        after_wait = transport.now_ps();
        transport.finish(0);
    });
    CHECK(memory.data()[100] == 0x5A);  // the guest's host memory is the simulator's
    CHECK(value == 0x80);
    CHECK(after_read == 50000 + 100);
    CHECK(vector == 4);
    CHECK(after_wait == 50100 + 5);
    CHECK(host.requests() == std::vector<MessageType>{MessageType::MmioWrite, MessageType::MmioRead,
                                                      MessageType::WaitInterrupt, MessageType::Finish});
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Attached);
    const std::vector<Message> requests = host.request_messages();
    CHECK(requests[0].time_ps == 0);
    CHECK(requests[0].arg1 == 7);
    CHECK(requests[1].time_ps == 50000);
    CHECK_FALSE(std::filesystem::exists(socket));  // removed once the rank connected
}

TEST_CASE("transport links: a refusal reaches the guest as TransportError, and sticks") {
    TempDirectory directory;
    const std::string socket = directory.path + "/rank0.sock";
    SharedMemorySegment memory = SharedMemorySegment::create(segment_name("refusal"), 1u << 16);
    EchoHost host;
    host.refuse_reads = true;
    host.links.listen(0, socket);
    std::string first;
    std::string second;
    host.serve([&] {
        guest::RemoteTransport transport(environment_for(socket, memory.name()));
        try {
            transport.mmio_read32(0);
        } catch (const guest::TransportError& error) {
            first = error.what();
        }
        try {
            transport.mmio_write32(0, 1);
        } catch (const guest::TransportError& error) {
            second = error.what();
        }
        transport.finish(1);  // does nothing, does not throw
    });
    CHECK(first == "isvp transport: rank 0: no reads today");
    CHECK(second == first);
}

TEST_CASE("transport links: garbage on a socket is a violation, not a request") {
    TempDirectory directory;
    const std::string socket = directory.path + "/rank0.sock";
    EchoHost host;
    host.links.listen(0, socket);
    host.serve([&] {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
        REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
        const std::string garbage(40, 'z');
        REQUIRE(::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL) == 40);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ::close(fd);
    });
    REQUIRE(host.events.size() == 1);
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Violation);
    CHECK_THAT(host.events[0].detail, Catch::Contains("bad magic 0x7a7a7a7a"));
}

TEST_CASE("transport links: a process that never connected is reported as left") {
    TempDirectory directory;
    EchoHost host;
    host.links.listen(0, directory.path + "/rank0.sock");
    host.links.process_exited(0, "its process exited with status 127");
    host.io.run_one_for(std::chrono::milliseconds(100));
    REQUIRE(host.events.size() == 1);
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Left);
    CHECK(host.events[0].detail == "its process exited with status 127 before connecting");
}

TEST_CASE("transport links: a local rank has the same semantics through its channel") {
    EchoHost host;
    const std::shared_ptr<guest::LocalChannel> channel = host.links.attach_local(0);
    std::vector<std::uint8_t> memory(4096);
    TransportConfig config;
    config.mmio_write_ns = 50;
    std::uint32_t value = 0;
    std::uint64_t after_read = 0;
    host.serve([&] {
        guest::LocalTransport transport(channel, 0, 1, memory.data(), memory.size(), config);
        transport.mmio_write32(0x20, 7);
        value = transport.mmio_read32(0x40);
        after_read = transport.now_ps();
        transport.finish(0);
    });
    CHECK(value == 0x80);
    CHECK(after_read == 50100);
    CHECK(host.requests() ==
          std::vector<MessageType>{MessageType::MmioWrite, MessageType::MmioRead, MessageType::Finish});
}

TEST_CASE("transport links: a closed local channel fails the guest's next call") {
    EchoHost host;
    const std::shared_ptr<guest::LocalChannel> channel = host.links.attach_local(0);
    std::vector<std::uint8_t> memory(4096);
    std::string failure;
    host.serve([&] {
        guest::LocalTransport transport(channel, 0, 1, memory.data(), memory.size(), TransportConfig());
        host.links.close(0);  // the job ends under the rank's feet
        try {
            transport.mmio_read32(0);
        } catch (const guest::TransportError& error) {
            failure = error.what();
        }
    });
    CHECK_THAT(failure, Catch::Contains("rank 0: the job ended"));
}

TEST_CASE("transport links: a local rank on the loop's thread queues without the event loop") {
    // A fiber runs on the scheduler's thread: its requests wait in the
    // links' queue for take_local(), in order, and cost the event loop
    // nothing (each poll of it is an epoll_wait).
    EchoHost host;
    const std::shared_ptr<guest::LocalChannel> channel = host.links.attach_local(0);
    Message hello;
    hello.type = MessageType::Hello;
    hello.arg0 = 1;
    Message write;
    write.type = MessageType::MmioWrite;
    write.arg0 = 0x20;
    channel->send(hello);
    channel->send(write);
    channel->leave();
    CHECK(host.io.poll() == 0);
    CHECK(host.events.empty());
    CHECK(host.links.take_local() == 3);
    REQUIRE(host.events.size() == 3);
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Attached);
    CHECK(host.events[1].kind == GuestLinks::Event::Kind::Request);
    CHECK(host.events[1].message.arg0 == 0x20);
    CHECK(host.events[2].kind == GuestLinks::Event::Kind::Left);
    CHECK(host.links.take_local() == 0);
}

TEST_CASE("transport links: a local rank thread's request wakes a sleeping event loop") {
    EchoHost host;
    const std::shared_ptr<guest::LocalChannel> channel = host.links.attach_local(0);
    std::thread rank([&] {
        Message hello;
        hello.type = MessageType::Hello;
        hello.arg0 = 1;
        channel->send(hello);
    });
    // One wake-up for the queue, which its handler takes.
    CHECK(host.io.run_one_for(std::chrono::seconds(10)) == 1);
    rank.join();
    REQUIRE(host.events.size() == 1);
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Attached);
    CHECK(host.links.take_local() == 0);
}
