// MessageTransport: the DeviceTransport semantics (device_transport.h) on
// top of the request/reply messages of transport_protocol.h. RemoteTransport
// (socket) and LocalTransport (in-process channel) only move the messages;
// clock, argument checks, reply checks and error handling live here, so a
// remote and a local rank behave identically.
//
// Timing: a request carries the rank's clock when it is issued. A posted
// write then charges host.mmio_write_ns locally and returns; a read or a
// wait blocks for the simulator's reply, and the clock becomes the reply's
// time. Once the simulator ends the rank (an Error reply, or the connection
// closing) every further call throws the same TransportError; finish()
// then does nothing.
//
// One rank, one thread: a transport is not shared between threads.
// Plain C++17, no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "isvp/device_transport.h"
#include "isvp/guest_clock.h"
#include "isvp/transport_protocol.h"

namespace isvp::guest {

class MessageTransport : public DeviceTransport {
  public:
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    const std::vector<std::uint16_t>& rank_nodes() const override { return rank_nodes_; }
    /// The launcher's placement: node of each rank (empty: rank r on node r).
    void set_rank_nodes(std::vector<std::uint16_t> nodes) { rank_nodes_ = std::move(nodes); }

    void mmio_write32(std::uint32_t offset, std::uint32_t value) override;
    unsigned wait_event(std::uint64_t vector_mask, bool host_update, std::uint64_t deadline_ps) override;
    void mmio_write_combined(std::uint32_t offset, const std::uint32_t* values, std::size_t count) override;
    std::uint32_t mmio_read32(std::uint32_t offset) override;
    unsigned wait_interrupt(std::uint64_t vector_mask) override;
    std::uint64_t now_ps() override;
    void compute(std::uint64_t ps) override;
    void finish(int exit_code) override;
    /// madvise: MADV_REMOVE (shared-memory segment), else MADV_DONTNEED.
    void discard_host_memory(std::uint64_t address, std::size_t bytes) override;

    /// finish() was called.
    bool finished() const { return finished_; }
    /// Why the simulator ended this rank; empty while the transport is usable.
    const std::string& failure() const { return failure_; }

  protected:
    MessageTransport(int rank, int size, GuestClock clock);

    /// Hello / Welcome; derived constructors call it once the link is up.
    void attach();

    /// Moves one message to the simulator; throws TransportError if it cannot.
    virtual void send(const transport::Message& message) = 0;
    /// The simulator's next message; for an Error its text goes to `error_text`.
    /// Throws TransportError if the link is gone.
    virtual transport::Message receive(std::string& error_text) = 0;

  private:
    transport::Message request(transport::MessageType type, std::uint64_t arg0, std::uint64_t arg1 = 0);
    transport::Message exchange(const transport::Message& request, transport::MessageType reply_type);
    void require_usable(const char* operation) const;
    void check_offset(const char* operation, std::uint32_t offset) const;
    [[noreturn]] void fail(const std::string& reason);

    int rank_;               ///< this rank
    int size_;               ///< ranks in the job
    std::vector<std::uint16_t> rank_nodes_;  ///< node of each rank (empty: rank r on node r)
    GuestClock clock_;       ///< the rank's simulated time
    bool finished_ = false;  ///< finish() done: no more requests
    bool discard_removes_ = true;  ///< MADV_REMOVE still worth trying (the memory is shared)
    std::string failure_;    ///< set once the simulator ended the rank
};

}  // namespace isvp::guest
