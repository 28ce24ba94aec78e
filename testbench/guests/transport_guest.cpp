// The transport tests' remote guest program: `transport_guest SCENARIO`,
// started by the launcher (isvp run / transport_job_tb --mode remote).
//
// SCENARIO is one of transport_scenarios.h, or `hostile-VARIANT`: then rank
// 1 is a hostile client that speaks raw bytes on its socket (garbage, wrong
// magic/version/type/length/rank, time going backwards, offsets outside
// BAR0, ...) and prints what the simulator answers, while rank 0 plays the
// well-behaved `survivor` (or, for hostile-waiter, `waiter`).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "isvp/guest_environment.h"
#include "isvp/remote_transport.h"
#include "isvp/transport_protocol.h"
#include "transport_scenarios.h"

namespace {

using namespace isvp::transport;
using isvp::guest::GuestEnvironment;

/// A raw connection to the simulator, for the hostile client.
class RawClient {
  public:
    explicit RawClient(const GuestEnvironment& environment)
        : rank_(static_cast<std::uint32_t>(environment.rank)), size_(static_cast<std::uint64_t>(environment.size)) {
        sockaddr_un address{};
        const socklen_t length = isvp::guest::socket_address(environment.socket_path, address);
        socket_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
        if (::connect(socket_, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
            std::perror("hostile: connect");
            std::exit(4);
        }
    }
    ~RawClient() { ::close(socket_); }

    Message make(MessageType type, std::uint64_t time_ps = 0, std::uint64_t arg0 = 0, std::uint64_t arg1 = 0) const {
        Message message;
        message.type = type;
        message.rank = rank_;
        message.time_ps = time_ps;
        message.arg0 = arg0;
        message.arg1 = arg1;
        return message;
    }
    void send_bytes(const std::uint8_t* bytes, std::size_t length) {
        if (::send(socket_, bytes, length, MSG_NOSIGNAL) != static_cast<ssize_t>(length))
            std::cout << "hostile: send failed: " << std::strerror(errno) << std::endl;
    }
    void send(const WireMessage& wire) { send_bytes(wire.data(), wire.size()); }
    void send(const Message& message) { send(encode(message)); }
    void hello() {
        send(make(MessageType::Hello, 0, size_, static_cast<std::uint64_t>(::getpid())));
        print_replies(1);
    }
    /// Prints up to `count` messages from the simulator (all until EOF if < 0).
    void print_replies(int count) {
        for (int i = 0; count < 0 || i < count; ++i) {
            WireMessage wire{};
            if (!read(wire.data(), wire.size())) {
                std::cout << "hostile saw the connection close" << std::endl;
                return;
            }
            const Decoded decoded = decode(wire.data(), Direction::ToGuest);
            if (!decoded.message) {
                std::cout << "hostile got garbage: " << decoded.error << std::endl;
                return;
            }
            if (decoded.message->type == MessageType::Error) {
                std::string text(decoded.length - kMessageBytes, '\0');
                read(text.data(), text.size());
                std::cout << "hostile got error: " << text << std::endl;
            } else {
                std::cout << "hostile got " << to_string(decoded.message->type) << std::endl;
            }
        }
    }
    void close_write() { ::shutdown(socket_, SHUT_WR); }

  private:
    bool read(void* buffer, std::size_t bytes) {
        auto* out = static_cast<std::uint8_t*>(buffer);
        std::size_t done = 0;
        while (done < bytes) {
            const ssize_t result = ::recv(socket_, out + done, bytes - done, 0);
            if (result <= 0) return false;
            done += static_cast<std::size_t>(result);
        }
        return true;
    }

    std::uint32_t rank_;  ///< rank from the environment
    std::uint64_t size_;  ///< ranks in the job
    int socket_ = -1;     ///< connected stream socket
};

void patch16(WireMessage& wire, std::size_t at, std::uint16_t value) {
    wire[at] = static_cast<std::uint8_t>(value);
    wire[at + 1] = static_cast<std::uint8_t>(value >> 8);
}
void patch32(WireMessage& wire, std::size_t at, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) wire[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
}

int hostile(const std::string& variant, const GuestEnvironment& environment) {
    RawClient client(environment);
    const Message hello = client.make(MessageType::Hello, 0, static_cast<std::uint64_t>(environment.size), 1);
    if (variant == "garbage" || variant == "waiter") {
        if (variant == "waiter") client.hello();
        WireMessage wire;
        wire.fill(0x5A);
        client.send(wire);
    } else if (variant == "magic") {
        WireMessage wire = encode(hello);
        patch32(wire, 0, 0x12345678);
        client.send(wire);
    } else if (variant == "version") {
        WireMessage wire = encode(hello);
        patch16(wire, 4, 99);
        client.send(wire);
    } else if (variant == "length") {
        client.send(encode(hello, 0x7FFFFFFF));
    } else if (variant == "type") {
        client.hello();
        WireMessage wire = encode(client.make(MessageType::MmioRead));
        patch16(wire, 6, 77);
        client.send(wire);
    } else if (variant == "direction") {
        client.hello();
        client.send(client.make(MessageType::ReadReply));
    } else if (variant == "rank") {
        Message wrong = hello;
        wrong.rank = 0;
        client.send(wrong);
    } else if (variant == "nohello") {
        client.send(client.make(MessageType::MmioRead, 0, isvp::test::fake::TIME_NS));
    } else if (variant == "backwards") {
        client.hello();
        client.send(client.make(MessageType::MmioWrite, 5000, isvp::test::fake::SHARED, 7));
        client.send(client.make(MessageType::MmioRead, 1000, isvp::test::fake::SHARED));
    } else if (variant == "future") {
        client.hello();
        client.send(client.make(MessageType::MmioRead, std::uint64_t{1} << 63, isvp::test::fake::SHARED));
    } else if (variant == "offset") {
        client.hello();
        client.send(client.make(MessageType::MmioRead, 0, 0x20000));
    } else if (variant == "unaligned") {
        client.hello();
        client.send(client.make(MessageType::MmioWrite, 0, 0x3, 1));
    } else if (variant == "truncated") {
        client.hello();
        const WireMessage wire = encode(client.make(MessageType::MmioRead, 0, isvp::test::fake::SHARED));
        client.send_bytes(wire.data(), 7);
        client.close_write();
    } else if (variant == "whilewaiting") {
        client.hello();
        // One send: both records arrive together, so the simulator sees the
        // read before it could execute (or answer) the wait.
        const WireMessage wait = encode(client.make(MessageType::WaitInterrupt, 0, 1u << 9));
        const WireMessage read = encode(client.make(MessageType::MmioRead, 0, isvp::test::fake::SHARED));
        std::array<std::uint8_t, 2 * kMessageBytes> both{};
        std::copy(wait.begin(), wait.end(), both.begin());
        std::copy(read.begin(), read.end(), both.begin() + kMessageBytes);
        client.send_bytes(both.data(), both.size());
    } else {
        std::cout << "hostile: unknown variant " << variant << std::endl;
        return 2;
    }
    client.print_replies(-1);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " SCENARIO   (started by the isvp launcher)\n";
        return 2;
    }
    std::string scenario = argv[1];
    try {
        const GuestEnvironment environment = GuestEnvironment::from_process();
        if (scenario.rfind("hostile-", 0) == 0) {
            const std::string variant = scenario.substr(8);
            if (environment.rank == 1) return hostile(variant, environment);
            scenario = variant == "waiter" ? "waiter" : "survivor";
        }
        if (!isvp::test::is_scenario(scenario)) {
            std::cerr << "transport_guest: unknown scenario " << scenario << "\n";
            return 2;
        }
        isvp::guest::RemoteTransport transport(environment);
        const auto write_cost_ps = static_cast<std::uint64_t>(environment.mmio_write_ns * 1000.0 + 0.5);
        const int code = isvp::test::run_scenario(scenario, transport, write_cost_ps, std::cout);
        std::cout.flush();
        transport.finish(code);
        return code;
    } catch (const isvp::guest::TransportError& error) {
        std::cout.flush();
        std::cerr << "transport_guest: " << error.what() << "\n";
        return 2;
    }
}
