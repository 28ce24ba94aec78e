// Transport hardening (issue 16), without SystemC: abstract-namespace rank
// sockets, strangers refused by their credentials, the end of simulated time
// on the guest clock, and the watchdog that outlives a killed launcher.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "isvp/guest_clock.h"
#include "isvp/guest_environment.h"
#include "isvp/guest_links.h"
#include "isvp/orphan_watchdog.h"
#include "isvp/shared_memory.h"

using namespace isvp;
using namespace isvp::transport;

namespace {

/// A one-rank host that records what its links report.
struct RecordingHost {
    RecordingHost()
        : work(boost::asio::make_work_guard(io)),
          links(io, 1, [this](int, const GuestLinks::Event& event) { events.push_back(event); }) {}

    /// Runs the event loop while `client` runs on its own thread.
    void serve(const std::function<void()>& client) {
        std::atomic<bool> done{false};
        std::thread thread([&] {
            client();
            done = true;
        });
        while (!done) io.run_one_for(std::chrono::milliseconds(10));
        thread.join();
        for (int i = 0; i < 20; ++i) io.run_one_for(std::chrono::milliseconds(5));
    }

    boost::asio::io_context io;                                                     ///< the event loop
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;  ///< keeps it from stopping
    GuestLinks links;                                                               ///< the host's end
    std::vector<GuestLinks::Event> events;                                          ///< everything reported
};

/// Connects to `path`, sends a Hello for rank 0 of a 1-rank job and returns
/// the type and text of the answer ("closed" if none).
std::pair<MessageType, std::string> hello(const std::string& path) {
    sockaddr_un address{};
    const socklen_t length = guest::socket_address(path, address);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
        ::close(fd);
        return {MessageType::Hello, "cannot connect"};
    }
    Message message;
    message.type = MessageType::Hello;
    message.arg0 = 1;
    message.arg1 = static_cast<std::uint64_t>(::getpid());
    const WireMessage wire = encode(message);
    ::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL);
    std::vector<std::uint8_t> bytes(kMessageBytes + kMaxErrorText);
    std::size_t have = 0;
    for (;;) {
        const ssize_t got = ::recv(fd, bytes.data() + have, bytes.size() - have, 0);
        if (got <= 0) break;
        have += static_cast<std::size_t>(got);
        const Decoded decoded = decode(bytes.data(), Direction::ToGuest);
        if (have >= kMessageBytes && decoded.message && have >= decoded.length) {
            ::close(fd);
            return {decoded.message->type,
                    std::string(bytes.begin() + kMessageBytes, bytes.begin() + static_cast<long>(decoded.length))};
        }
    }
    ::close(fd);
    return {MessageType::Hello, "closed"};
}

bool alive(pid_t pid) {
    return ::kill(pid, 0) == 0;
}

}  // namespace

TEST_CASE("transport hardening: an abstract-namespace socket name has its exact length and no file") {
    sockaddr_un address{};
    const socklen_t length = guest::socket_address("@isvp-1-ab-r0", address);
    CHECK(length == offsetof(sockaddr_un, sun_path) + 13);
    CHECK(address.sun_path[0] == '\0');
    CHECK(std::string(address.sun_path + 1, 12) == "isvp-1-ab-r0");
    CHECK(guest::socket_address("/tmp/x.sock", address) == offsetof(sockaddr_un, sun_path) + 12);
    CHECK_THROWS_WITH(guest::socket_address(std::string(200, 'a'), address), Catch::Contains("too long"));
}

TEST_CASE("transport hardening: a stranger on a rank's socket is refused, the rank itself then attaches") {
    RecordingHost host;
    const std::string path = "@isvp-unit-" + std::to_string(::getpid()) + "-r0";
    host.links.listen(0, path);
    host.links.expect_peer(0, 1);  // the rank's process is init: this test is a stranger
    std::pair<MessageType, std::string> stranger;
    host.serve([&] { stranger = hello(path); });
    CHECK(stranger.first == MessageType::Error);
    CHECK_THAT(stranger.second, Catch::Contains("connection refused: this socket belongs to rank 0") &&
                                    Catch::Contains("pid " + std::to_string(::getpid()) +
                                                    " is not rank 0's process (pid 1) nor one it started"));
    REQUIRE(host.events.size() == 1);
    CHECK(host.events[0].kind == GuestLinks::Event::Kind::Refused);
    CHECK_FALSE(host.links.connected(0));

    host.links.expect_peer(0, ::getpid());  // now this process is the rank's
    std::pair<MessageType, std::string> rank;
    host.serve([&] { rank = hello(path); });
    CHECK(rank.first == MessageType::Welcome);
    CHECK(host.links.connected(0));
    REQUIRE(host.events.size() >= 2);  // then Left: the client hangs up
    CHECK(host.events[1].kind == GuestLinks::Event::Kind::Attached);
}

TEST_CASE("transport hardening: a process the rank started may connect for it") {
    RecordingHost host;
    const std::string path = "@isvp-unit-" + std::to_string(::getpid()) + "-child";
    host.links.listen(0, path);
    host.links.expect_peer(0, ::getpid());  // this process is the rank's; a child of it connects
    int status = -1;
    host.serve([&] {
        const pid_t child = ::fork();
        if (child == 0) ::_exit(hello(path).first == MessageType::Welcome ? 0 : 1);
        ::waitpid(child, &status, 0);
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(host.links.connected(0));
}

TEST_CASE("transport hardening: the guest clock stops at the end of simulated time") {
    guest::GuestClock clock(0, 1000);
    clock.advance(kMaxTimePs - 10);
    CHECK(clock.remaining_ps() == 10);
    clock.charge_posted_write();  // 1000 ps would pass it
    CHECK(clock.now_ps() == kMaxTimePs);
    CHECK(clock.remaining_ps() == 0);

    std::uint64_t cpu_ns = 0;
    guest::GuestClock charged(1e6, 0, [&] { return cpu_ns; });
    charged.advance(kMaxTimePs - 5);
    cpu_ns = 1000000000;  // 1 s of CPU time x 1e6: far past the end
    charged.enter();
    CHECK(charged.now_ps() == kMaxTimePs);
}

TEST_CASE("transport hardening: the watchdog kills a guest's process group when its launcher dies") {
    // A stand-in launcher (a child of this test) starts a guest in its own
    // process group that forks a grandchild, tells its watchdog, and is
    // SIGKILLed: the grandchild must die with it.
    int report[2];
    REQUIRE(::pipe(report) == 0);
    const pid_t launcher = ::fork();
    if (launcher == 0) {
        ::close(report[0]);
        OrphanWatchdog watchdog(4);
        const pid_t guest = ::fork();
        if (guest == 0) {
            ::setpgid(0, 0);
            const pid_t grandchild = ::fork();
            if (grandchild == 0) {
                ::pause();
                ::_exit(0);
            }
            if (::write(report[1], &grandchild, sizeof grandchild) != sizeof grandchild) ::_exit(1);
            ::pause();
            ::_exit(0);
        }
        ::setpgid(guest, guest);
        watchdog.watch(guest);
        ::pause();
        ::_exit(0);
    }
    ::close(report[1]);
    pid_t grandchild = 0;
    REQUIRE(::read(report[0], &grandchild, sizeof grandchild) == sizeof grandchild);
    ::close(report[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the watchdog has read the group
    REQUIRE(alive(grandchild));
    ::kill(launcher, SIGKILL);
    ::waitpid(launcher, nullptr, 0);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        // The grandchild may be a zombie of its (also killed) parent until
        // init reaps it: gone or a zombie both count.
        std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
        std::string line;
        gone = !std::getline(stat, line) || line.substr(line.rfind(')') + 2, 1) == "Z";
    }
    CHECK(gone);
}

TEST_CASE("transport hardening: a released watchdog kills nothing") {
    const pid_t sleeper = ::fork();
    if (sleeper == 0) {
        ::setpgid(0, 0);
        ::pause();
        ::_exit(0);
    }
    ::setpgid(sleeper, sleeper);
    {
        OrphanWatchdog watchdog(1);
        watchdog.watch(sleeper);
    }  // released and reaped here
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(alive(sleeper));
    ::kill(sleeper, SIGKILL);
    ::waitpid(sleeper, nullptr, 0);
}
