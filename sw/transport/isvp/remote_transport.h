// RemoteTransport: a guest rank as its own OS process (DESIGN §4). Requests
// travel over the Unix-domain socket the launcher names in ISVP_SOCKET; host
// memory is the shared-memory segment ISVP_SHM_NAME, mapped here and in the
// simulator. Started outside `isvp run`, from_environment() throws a
// TransportError saying how to start a guest.
//
// Usage in a guest program:
//   auto transport = isvp::guest::RemoteTransport::from_environment();
//   ... driver code on *transport ...
//   transport->finish(0);
// Plain C++17 and POSIX, no SystemC.
#pragma once

#include <chrono>
#include <memory>
#include <variant>

#include "isvp/guest_environment.h"
#include "isvp/message_transport.h"
#include "isvp/shared_memory.h"

namespace isvp::guest {

class RemoteTransport final : public MessageTransport {
  public:
    /// Connects as described by the process environment.
    static std::unique_ptr<RemoteTransport> from_environment();

    /// Maps the host memory, connects and says hello; throws TransportError.
    explicit RemoteTransport(const GuestEnvironment& environment);
    /// Closes the connection (without finish() the simulator sees the rank leave).
    ~RemoteTransport() override;
    RemoteTransport(const RemoteTransport&) = delete;
    RemoteTransport& operator=(const RemoteTransport&) = delete;

    std::uint8_t* host_memory() override {
        return std::visit([](auto& memory) { return memory.data(); }, memory_);
    }
    std::size_t host_memory_bytes() const override {
        return std::visit([](const auto& memory) { return memory.bytes(); }, memory_);
    }

    /// Host memory: the sealed descriptor `isvp run` hands over, or a named
    /// segment (tools that start guests themselves).
    using HostMemory = std::variant<transport::SharedMemorySegment, transport::SealedMemory>;

  private:
    void send(const transport::Message& message) override;
    transport::Message receive(std::string& error_text) override;
    void read_exactly(void* buffer, std::size_t bytes);

    HostMemory memory_;  ///< this rank's host memory (shared with the simulator)
    int socket_ = -1;                        ///< connected Unix-domain stream socket
    std::chrono::nanoseconds spin_wait_;     ///< job.spin_wait_us: polling for a reply before sleeping
};

}  // namespace isvp::guest
