// A guest process's link to the simulator: Unix-domain socket + shared memory.
#include "isvp/remote_transport.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "isvp/spin_wait.h"

namespace isvp::guest {

using transport::Message;

namespace {

RemoteTransport::HostMemory map_memory(const GuestEnvironment& environment) {
    try {
        if (environment.shm_fd >= 0) return transport::SealedMemory::adopt(environment.shm_fd, environment.shm_bytes);
        return transport::SharedMemorySegment::open(environment.shm_name, environment.shm_bytes);
    } catch (const transport::SharedMemoryError& error) {
        throw TransportError(std::string("isvp transport: rank ") + std::to_string(environment.rank) +
                             ": cannot map host memory: " + error.what());
    }
}

GuestClock make_clock(const GuestEnvironment& environment) {
    return GuestClock(environment.compute_scale, static_cast<std::uint64_t>(environment.mmio_write_ns * 1000.0 + 0.5));
}

std::string system_error(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

}  // namespace

std::unique_ptr<RemoteTransport> RemoteTransport::from_environment() {
    return std::make_unique<RemoteTransport>(GuestEnvironment::from_process());
}

RemoteTransport::RemoteTransport(const GuestEnvironment& environment)
    : MessageTransport(environment.rank, environment.size, make_clock(environment)),
      memory_(map_memory(environment)),
      spin_wait_(transport::spin_budget(environment.spin_wait_us)) {
    set_rank_nodes(environment.rank_nodes);
    const std::string prefix = "isvp transport: rank " + std::to_string(environment.rank) + ": ";
    sockaddr_un address{};
    socklen_t length = 0;
    try {
        length = socket_address(environment.socket_path, address);
    } catch (const TransportError& error) {
        throw TransportError(prefix + error.what());
    }
    socket_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (socket_ < 0) throw TransportError(system_error(prefix + "socket()"));
    if (::connect(socket_, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
        const std::string message =
            system_error(prefix + "cannot connect to the simulator at " + environment.socket_path);
        ::close(socket_);
        socket_ = -1;
        throw TransportError(message);
    }
    try {
        attach();
    } catch (...) {
        ::close(socket_);
        socket_ = -1;
        throw;
    }
}

RemoteTransport::~RemoteTransport() {
    if (socket_ >= 0) ::close(socket_);
}

void RemoteTransport::send(const Message& message) {
    const transport::WireMessage wire = transport::encode(message);
    std::size_t sent = 0;
    while (sent < wire.size()) {
        const ssize_t result = ::send(socket_, wire.data() + sent, wire.size() - sent, MSG_NOSIGNAL);
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0)
            throw TransportError(system_error("isvp transport: rank " + std::to_string(rank()) +
                                              ": the simulator closed the connection"));
        sent += static_cast<std::size_t>(result);
    }
}

void RemoteTransport::read_exactly(void* buffer, std::size_t bytes) {
    auto* out = static_cast<std::uint8_t*>(buffer);
    std::size_t received = 0;
    while (received < bytes) {
        const ssize_t result = ::recv(socket_, out + received, bytes - received, 0);
        if (result < 0 && errno == EINTR) continue;
        if (result == 0)
            throw TransportError("isvp transport: rank " + std::to_string(rank()) +
                                 ": the simulator closed the connection (the job ended)");
        if (result < 0) throw TransportError(system_error("isvp transport: rank " + std::to_string(rank()) + ": recv"));
        received += static_cast<std::size_t>(result);
    }
}

Message RemoteTransport::receive(std::string& error_text) {
    // Poll before the blocking read sleeps (spin_wait.h). Readable, closed,
    // failed or interrupted all end the polling: the read handles each.
    transport::spin_until(
        [this] {
            pollfd readable{socket_, POLLIN, 0};
            return ::poll(&readable, 1, 0) != 0;
        },
        spin_wait_);
    transport::WireMessage wire{};
    read_exactly(wire.data(), wire.size());
    const transport::Decoded decoded = transport::decode(wire.data(), transport::Direction::ToGuest);
    if (!decoded.message)
        throw TransportError("isvp transport: rank " + std::to_string(rank()) +
                             ": malformed message from the simulator: " + decoded.error);
    if (decoded.message->type == transport::MessageType::Error) {
        error_text.assign(decoded.length - transport::kMessageBytes, '\0');
        if (!error_text.empty()) read_exactly(error_text.data(), error_text.size());
    }
    return *decoded.message;
}

}  // namespace isvp::guest
