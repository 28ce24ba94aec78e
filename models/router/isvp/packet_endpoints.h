// PacketSource and PacketSink: small traffic endpoints that speak the packet
// channel (packet_channel.h) in place of a QDMA, for network testbenches and
// benchmarks.
//
// Abstraction: packet-level, approximately timed, event-driven.
//   * PacketSource injects network packets in request order (a queue, like
//     one QDMA H2C queue), each when its time has come, its own serialiser
//     is free (phits_per_cycle at clock_mhz) and it holds credits for the
//     whole packet on the request's VC. Payload bytes follow a pattern of
//     the packet's trace id so the sink can verify them.
//   * PacketSink accepts packets, verifies headers and payload bytes, checks
//     that the sender never overran its buffer, records arrivals and returns
//     credits when the packet has drained (immediately at its tail, or at a
//     configured drain rate to model a slow consumer).
// Not modelled: descriptor rings, PCIe, the processor-to-network packet
// conversion (one request = one network packet).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/credit_queue.h"
#include "isvp/packet_channel.h"
#include "isvp/packet_format.h"
#include "isvp/ring_queue.h"
#include "isvp/target_socket.h"
#include "isvp/timed_agenda.h"
#include "isvp/wakeup_scheduler.h"

namespace isvp {

/// One network packet a PacketSource is to inject.
struct PacketRequest {
    sc_core::sc_time time;            ///< earliest injection time
    std::uint32_t destination = 0;    ///< node address (may be outside the network, to test drops)
    std::uint32_t payload_bytes = 0;  ///< bytes after the 18-byte headers
    std::uint8_t vc = 0;              ///< VC at the router's inject port
    bool malformed = false;           ///< write non-zero reserved header bits (the packet will not parse)
};

/// A packet as the sink saw it.
struct PacketArrival {
    std::uint64_t trace_id = 0;  ///< PacketSource's id: source node << 40 | sequence
    std::uint32_t source = 0;    ///< source node (processor header rank)
    std::uint32_t bytes = 0;     ///< whole packet
    std::uint16_t hops = 0;      ///< router-to-router hops
    std::uint8_t vc = 0;         ///< VC it arrived on
    sc_core::sc_time injected;   ///< when the source sent it
    sc_core::sc_time head;       ///< head arrival
    sc_core::sc_time tail;       ///< tail arrival
};

class PacketSource : public sc_core::sc_module, private WakeupScheduler::Client {
  public:
    tlm_utils::simple_initiator_socket<PacketSource> out;     ///< packets to a router input
    isvp::BlockingTargetSocket<PacketSource> credit_in;       ///< credits from it

    /// `generator` (optional) is asked for the next request whenever the
    /// queue is empty and returns false when it has no more.
    using Generator = std::function<bool(PacketRequest&)>;

    PacketSource(sc_core::sc_module_name name, std::uint32_t node, unsigned vcs, double clock_mhz = 250.0,
                 unsigned phits_per_cycle = 2);

    /// Queues a request; requests go out in the order added.
    void add(const PacketRequest& request) { queue_.push_back(request); }
    void set_generator(Generator generator) { generator_ = std::move(generator); }
    /// Wake through `scheduler` (a fabric's) instead of an event of its own:
    /// with hundreds of sources, their pending events made every timed
    /// notification in the kernel's queue a walk down a heap of hundreds.
    /// Call before the simulation starts. Same-tick order then follows the
    /// scheduler's request order instead of the kernel's (a zero-delay
    /// wake runs in the same activation): the torus benches' output was
    /// identical at the default router parameters, which was checked, not
    /// argued (with router.pipeline_cycles = 1 a head is ready on arrival).
    void use_scheduler(WakeupScheduler& scheduler);

    std::uint64_t sent() const { return sent_; }
    std::uint64_t pending() const { return queue_.size(); }
    /// Credits held for `vc`, including those still on their way back.
    std::int64_t credits(unsigned vc) const;
    std::uint32_t node() const { return node_; }

    /// Writes the payload pattern of packet `trace_id`: 8-byte words that
    /// differ for every (trace id, word index).
    static void fill_payload(std::uint64_t trace_id, std::uint8_t* payload, std::uint32_t bytes);
    /// Index of the first byte that differs from the pattern; -1 if none.
    static std::int64_t payload_mismatch(std::uint64_t trace_id, const std::uint8_t* payload, std::uint32_t bytes);

  private:
    void on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void step();
    void wake() override { step(); }
    /// Runs step() at `tick` (>= now), through the scheduler or wake_.
    void wake_at(std::uint64_t tick, std::uint64_t now);
    bool next_request();  ///< makes sure the queue has a head if any is left
    void send(const PacketRequest& request);

    std::uint32_t node_;                    ///< this endpoint's node address (source rank)
    unsigned vcs_;                          ///< VCs of the router input
    sc_core::sc_time cycle_;                ///< one cycle of the injection clock
    unsigned phits_per_cycle_;              ///< injection datapath width
    PacketPool pool_;                       ///< payloads (freed by the last holder)
    RingQueue<PacketRequest> queue_;        ///< requests not yet sent
    Generator generator_;                   ///< further requests on demand
    std::vector<std::int64_t> credits_;     ///< per VC, usable now
    std::vector<CreditQueue> pending_;      ///< per VC, credits still travelling
    bool waiting_for_credits_ = false;      ///< the head request waits for a credit that is not announced yet
    sc_core::sc_time free_at_;              ///< own serialiser free
    sc_core::sc_event wake_;                ///< next time something may be sent (without a scheduler)
    WakeupScheduler* scheduler_ = nullptr;  ///< wakes step() instead of wake_, if set
    unsigned client_ = 0;                   ///< id at scheduler_
    std::uint64_t sequence_ = 0;            ///< packets made so far
    std::uint64_t sent_ = 0;                ///< packets sent
};

class PacketSink : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<PacketSink> in;                  ///< packets from a router output
    tlm_utils::simple_initiator_socket<PacketSink> credit_out;  ///< credits to it

    /// A sink at node `node` whose `vcs` VC buffers hold `buffer_phits`
    /// each; `drain_gbps` = 0 frees a packet when its tail is in, otherwise
    /// packets drain one after another at that rate.
    PacketSink(sc_core::sc_module_name name, std::uint32_t node, unsigned vcs, std::uint32_t buffer_phits,
               double drain_gbps = 0.0);

    /// Record every arrival (off by default: counters only).
    void keep_arrivals(bool keep) { keep_arrivals_ = keep; }
    const std::vector<PacketArrival>& arrivals() const { return arrivals_; }

    std::uint64_t packets() const { return packets_; }
    std::uint64_t bytes() const { return bytes_; }
    std::uint64_t hops() const { return hops_; }
    /// Packets that were misdelivered, did not parse or had wrong bytes.
    std::uint64_t errors() const { return errors_; }
    /// Arrivals that found their VC buffer without room (credit violation).
    std::uint64_t overruns() const { return overruns_; }
    /// Most phits ever held in one VC buffer.
    std::uint32_t peak_occupancy() const { return peak_occupancy_; }
    sc_core::sc_time latency_sum() const { return latency_sum_; }  ///< injection -> tail, summed
    sc_core::sc_time latency_max() const { return latency_max_; }
    sc_core::sc_time last_tail() const { return last_tail_; }
    const std::string& first_error() const { return first_error_; }

  private:
    void on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void grant_initial_credits();
    void fail(const std::string& what);

    std::uint32_t node_;                                ///< destination address this sink serves
    unsigned vcs_;                                      ///< VCs it grants credits for
    std::uint32_t buffer_phits_;                        ///< per VC buffer
    double drain_gbps_;                                 ///< consumer rate; 0 = instant
    bool keep_arrivals_ = false;                        ///< record every arrival
    std::vector<PacketArrival> arrivals_;               ///< recorded arrivals
    std::vector<std::uint32_t> occupancy_;              ///< per VC, phits held at the last arrival
    std::vector<TimedAgenda<std::uint32_t>> releases_;  ///< per VC, phits freed at future ticks
    sc_core::sc_time drained_at_;                       ///< consumer busy until
    std::uint64_t packets_ = 0;                         ///< packets received
    std::uint64_t bytes_ = 0;                           ///< their bytes
    std::uint64_t hops_ = 0;                            ///< their hops, summed
    std::uint64_t errors_ = 0;                          ///< bad packets
    std::uint64_t overruns_ = 0;                        ///< credit violations
    std::uint32_t peak_occupancy_ = 0;                  ///< phits
    sc_core::sc_time latency_sum_;                      ///< summed latency
    sc_core::sc_time latency_max_;                      ///< worst latency
    sc_core::sc_time last_tail_;                        ///< latest tail arrival
    std::string first_error_;                           ///< description of the first bad packet
    CreditMessage credit_message_;                      ///< reused for every credit return
};

}  // namespace isvp
