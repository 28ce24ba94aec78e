// DeviceTransport: how guest software (driver, MPI shim) reaches its node's
// FPGA and its own host memory. Two implementations, same semantics:
//
//   * remote — the rank is a separate OS process; requests travel over a
//     Unix-domain socket to the simulator; host memory is a shared-memory
//     segment mapped by both sides;
//   * local — the rank is a thread inside the simulator process.
//
// Time (DESIGN §4): each rank has a local clock in simulated picoseconds.
// Every request carries it; the simulator executes requests in (time, rank)
// order and never runs ahead of a rank that could still send an earlier one,
// so a run's simulated times are identical every time. Guest computation
// between requests is charged as measured CPU time × compute scale (0 by
// default: communication only) plus whatever the guest charges explicitly
// with compute().
//
// Plain C++17, no SystemC: guest code never sees the simulator's types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace isvp::guest {

/// The simulator refused a request or the job is ending; `what()` says why.
class TransportError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class DeviceTransport {
  public:
    virtual ~DeviceTransport() = default;

    virtual int rank() const = 0;  ///< this rank, 0 .. size()-1
    virtual int size() const = 0;  ///< ranks in the job
    /// Node (network address) of each rank as the launcher placed them
    /// (`isvp run --map-by/--rankfile`); empty: rank r runs on node r.
    virtual const std::vector<std::uint16_t>& rank_nodes() const {
        static const std::vector<std::uint16_t> identity;
        return identity;
    }

    /// The rank's DMA-able host memory: guest-physical address A is
    /// host_memory()[A] for A < host_memory_bytes().
    virtual std::uint8_t* host_memory() = 0;
    virtual std::size_t host_memory_bytes() const = 0;

    /// Posted BAR0 write: returns at once; the guest's clock advances by the
    /// CPU cost of an uncached store, the device sees it a PCIe latency later.
    virtual void mmio_write32(std::uint32_t offset, std::uint32_t value) = 0;
    /// Write-combined posted writes (a PIO burst, e.g. into a PIO window):
    /// `count` dwords to offsets `offset`, `offset` + 4, ..., issued in order.
    /// The CPU's write-combining buffer flushes each 64-byte line as one
    /// burst, so the guest's clock advances by the cost of one uncached store
    /// per 64-byte line touched (host.mmio_write_ns), not per dword; the
    /// device sees every dword a PCIe latency later, in order. This default
    /// charges per dword (a transport without write combining).
    virtual void mmio_write_combined(std::uint32_t offset, const std::uint32_t* values, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) mmio_write32(offset + static_cast<std::uint32_t>(4 * i), values[i]);
    }
    /// Bytes one write-combining burst covers (a cache line).
    static constexpr std::uint32_t kWriteCombineBytes = 64;
    /// Non-posted BAR0 read: returns the value; the guest's clock advances by
    /// the PCIe round trip.
    virtual std::uint32_t mmio_read32(std::uint32_t offset) = 0;

    /// Blocks until one of the MSI-X vectors in `vector_mask` (bit v for
    /// vector v < 64) has an undelivered interrupt; consumes and returns the
    /// lowest such vector. The guest's clock becomes max(its clock, the time
    /// the interrupt reached the host). Throws TransportError if no interrupt
    /// can ever come (every other rank finished or the job is aborting).
    virtual unsigned wait_interrupt(std::uint64_t vector_mask) = 0;

    /// wait_event's answers besides an MSI-X vector.
    static constexpr unsigned kHostUpdate = 64;  ///< a completion entry or ring status landed in host memory
    static constexpr unsigned kDeadline = 65;    ///< the deadline came first
    /// Like wait_interrupt(vector_mask), and with `host_update` also returns
    /// kHostUpdate at the time a completion entry or ring status written by
    /// the device lands in host memory (once per landing seen since the last
    /// such return: a guest spinning on its completion ring sees the line
    /// change then), and with `deadline_ps` > 0 returns kDeadline at that
    /// time if nothing came first. The clock advances to the answer's time:
    /// a polling guest's CPU time is charged as simulated time.
    virtual unsigned wait_event(std::uint64_t vector_mask, bool host_update, std::uint64_t deadline_ps) {
        if (!host_update && deadline_ps == 0) return wait_interrupt(vector_mask);
        throw TransportError("isvp transport: this transport cannot wait for host-memory updates or deadlines");
    }

    /// Host memory [address, address + bytes) holds nothing anyone reads
    /// before writing it again (staging the device has read, receive buffers
    /// the driver has emptied): its whole pages may go back to the operating
    /// system, so a simulation of many hosts keeps resident only what is in
    /// flight rather than every ring it has ever cycled through. A hint: the
    /// bytes read as zero afterwards; simulated time and results never change.
    virtual void discard_host_memory(std::uint64_t address, std::size_t bytes) {
        (void)address;
        (void)bytes;
    }
    /// This rank's clock, simulated picoseconds since the job started.
    virtual std::uint64_t now_ps() = 0;
    /// Charges `ps` of guest computation to this rank's clock.
    virtual void compute(std::uint64_t ps) = 0;

    /// Clean end of this rank (after it, no further requests).
    virtual void finish(int exit_code) = 0;
};

}  // namespace isvp::guest
