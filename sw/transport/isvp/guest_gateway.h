// GuestGateway: one rank's host CPU as the platform sees it (DESIGN §4).
//
// Abstraction: loosely timed, blocking transport. The GuestScheduler hands
// the gateway the rank's requests at exactly their timestamps; the gateway
// executes them in SystemC process context (an SC_THREAD, so targets may
// wait()):
//   * MmioWrite — a 4-byte TLM write on `mmio`, issued at the request time
//     with zero delay. Posted: the annotated delay is the target's business
//     (an endpoint applies the write a PCIe latency later); nothing returns.
//   * MmioRead  — a 4-byte TLM read; the reply time is the time b_transport
//     returned plus its annotated delay. An error response reads as
//     0xFFFFFFFF, as a PCIe completer abort does.
//   * WaitInterrupt — answered at once if a vector in the mask has an
//     undelivered interrupt, else when one arrives. With kWaitHostUpdate in
//     arg1 also (as kHostUpdateVector) when a host-memory update notification
//     from the PCIe endpoint has arrived since the last such answer (one
//     flag, not a count: a polling guest looks at the whole ring; the
//     notifications are dropped until the rank's first such wait, so a rank
//     that never polls runs exactly as without them); with a
//     deadline in arg1, at the deadline (kDeadlineVector) if nothing came.
// MSI-X messages arrive on `msi` as 4-byte TLM writes whose data is the
// vector number (little-endian); an interrupt sent at t with annotated delay
// d reaches the host at t + d. Every MSI is delivered once (counted per
// vector; two MSIs of one vector wake two waits). An answered read or wait is
// passed to the completion sink and ends the current sc_start (sc_pause), so
// the scheduler can hand the reply to the rank before time moves on.
// Not modelled: the host CPU's caches, interrupt latency inside the host OS.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/target_socket.h"
#include "isvp/transport_protocol.h"

namespace isvp::transport {

class GuestGateway : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<GuestGateway> mmio;  ///< BAR0 reads and writes out (to the PCIe endpoint)
    isvp::BlockingTargetSocket<GuestGateway> msi;           ///< MSI-X messages in: 4-byte writes, data = vector

    /// Receives the reply to a read or wait, inside SystemC context.
    using CompletionSink = std::function<void(int rank, const Message& reply)>;

    GuestGateway(sc_core::sc_module_name name, int rank, CompletionSink sink);

    int rank() const { return rank_; }

    /// Queues a request (MmioWrite, MmioRead, WaitInterrupt) for execution
    /// now; called between sc_start runs, at sc_time_stamp() == its time.
    void execute(const Message& request);
    /// The rank is gone: forget its wait (interrupts keep being counted).
    void cancel();

    /// Statistics.
    std::uint64_t reads() const { return reads_; }
    std::uint64_t writes() const { return writes_; }
    std::uint64_t interrupts() const { return interrupts_; }
    std::uint64_t mmio_errors() const { return mmio_errors_; }
    /// MSIs dropped because their vector was illegal (guest-programmed).
    std::uint64_t dropped_msis() const { return dropped_msis_; }

  private:
    void serve();
    void deliver_arrivals();
    void wait_deadline();
    void msi_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    std::uint32_t access(tlm::tlm_command command, std::uint64_t offset, std::uint32_t value, sc_core::sc_time& delay);
    bool try_wake();
    void complete(MessageType type, std::uint64_t time_ps, std::uint64_t arg0, std::uint64_t arg1);

    int rank_;                                                ///< the rank this gateway serves
    CompletionSink sink_;                                     ///< the scheduler
    std::deque<Message> inbox_;                               ///< requests not executed yet
    sc_core::sc_event request_event_;                         ///< inbox_ got a request
    std::multimap<sc_core::sc_time, unsigned> in_flight_;     ///< MSIs on their way: arrival time -> vector
    sc_core::sc_event arrival_event_;                         ///< the earliest in-flight MSI arrives
    std::array<std::uint32_t, kInterruptVectors> pending_{};  ///< arrived, undelivered MSIs per vector
    std::uint64_t wait_mask_ = 0;                             ///< vectors the rank waits for
    bool waiting_ = false;                                    ///< a WaitInterrupt is outstanding
    bool wait_host_update_ = false;                           ///< it also wakes on a host-memory update
    bool host_update_ = false;                                ///< a completion landed since the last such wake
    bool host_updates_wanted_ = false;                        ///< the rank has waited for one: keep them
    sc_core::sc_event deadline_event_;                        ///< the outstanding wait's deadline
    std::uint64_t reads_ = 0;                                 ///< statistics: MMIO reads executed
    std::uint64_t writes_ = 0;                                ///< statistics: MMIO writes executed
    std::uint64_t interrupts_ = 0;                            ///< statistics: MSIs received
    std::uint64_t mmio_errors_ = 0;                           ///< statistics: MMIO accesses answered with an error
    std::uint64_t dropped_msis_ = 0;                          ///< statistics: MSIs with an illegal vector, dropped
    /// Reused by every access: constructing a generic payload allocates its
    /// extension array (one malloc and free per MMIO access otherwise).
    tlm::tlm_generic_payload payload_;
};

/// Simulated picoseconds of an sc_time (the scheduler requires a 1 ps resolution).
std::uint64_t to_ps(const sc_core::sc_time& time);
sc_core::sc_time from_ps(std::uint64_t time_ps);

}  // namespace isvp::transport
