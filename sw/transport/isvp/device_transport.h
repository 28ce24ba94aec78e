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

    /// The rank's DMA-able host memory: guest-physical address A is
    /// host_memory()[A] for A < host_memory_bytes().
    virtual std::uint8_t* host_memory() = 0;
    virtual std::size_t host_memory_bytes() const = 0;

    /// Posted BAR0 write: returns at once; the guest's clock advances by the
    /// CPU cost of an uncached store, the device sees it a PCIe latency later.
    virtual void mmio_write32(std::uint32_t offset, std::uint32_t value) = 0;
    /// Non-posted BAR0 read: returns the value; the guest's clock advances by
    /// the PCIe round trip.
    virtual std::uint32_t mmio_read32(std::uint32_t offset) = 0;

    /// Blocks until one of the MSI-X vectors in `vector_mask` (bit v for
    /// vector v < 64) has an undelivered interrupt; consumes and returns the
    /// lowest such vector. The guest's clock becomes max(its clock, the time
    /// the interrupt reached the host). Throws TransportError if no interrupt
    /// can ever come (every other rank finished or the job is aborting).
    virtual unsigned wait_interrupt(std::uint64_t vector_mask) = 0;

    /// This rank's clock, simulated picoseconds since the job started.
    virtual std::uint64_t now_ps() = 0;
    /// Charges `ps` of guest computation to this rank's clock.
    virtual void compute(std::uint64_t ps) = 0;

    /// Clean end of this rank (after it, no further requests).
    virtual void finish(int exit_code) = 0;
};

}  // namespace isvp::guest
