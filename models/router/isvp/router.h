// Router: the virtual-channel packet router of one FPGA (DESIGN §3.5).
//
// Abstraction: packet-level, approximately timed, event-driven model of the
// classic 4-stage pipeline — route computation (RC), VC allocation (VA),
// switch allocation (SA), switch traversal (ST) — with virtual cut-through
// and credit flow control (packet_channel.h). Nothing runs per cycle: the
// router wakes only when a packet head becomes ready, an output or input
// frees up, or awaited credits arrive; an idle router costs nothing.
//
// Ports are generic (a torus node has 7: six network ports and the local
// inject/eject port; a fat-tree switch may have more). Port i has an input
// side — `in(i)` packet target + `credit_out(i)` credit initiator — and an
// output side — `out(i)` packet initiator + `credit_in(i)` credit target.
// Unused ports may stay unbound.
//
// Timing, with T = 1 / router.clock_mhz and P = router.pipeline_cycles:
//   * a packet whose head arrives at t may win VA and SA from t + (P-1) T;
//     its head leaves one cycle (ST) after winning, so zero-load latency
//     head in -> head out is P cycles;
//   * an output (and the input it reads from) then carries the packet for
//     ceil(phits / router.phits_per_cycle) cycles, and never lets the tail
//     go earlier than one cycle after the tail came in (cut-through);
//   * the input buffer's credits go back upstream when the tail has left.
// Allocation: the head packet of each input VC requests the output port and
// output VC the routing policy (router.routing) named. It is eligible when
// the output is free, its input port is not already sending (one crossbar
// input per port) and the downstream VC holds credits for the whole packet
// plus router.flow_control_margin_phits (on/off back-pressure: an output
// stops below that threshold and resumes above it). VA: a round-robin
// arbiter per output VC over the eligible input VCs; SA: a round-robin
// arbiter per output over the VA winners.
//
// Bad traffic: an unparsable packet, a destination outside the network, or a
// packet larger than the downstream VC buffer less the margin is dropped,
// counted and reported (SC_REPORT_WARNING); its buffer credits go back
// upstream. A sender that overruns a VC buffer or names a VC the router does
// not have is a modelling bug (SC_REPORT_ERROR).
//
// Not modelled: flit-level wormhole switching, speculative allocation,
// separate input/output arbitration rounds within one cycle, output FIFOs,
// the collective accelerator (CCM, collectors, CGR units), power.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/credit_queue.h"
#include "isvp/packet_channel.h"
#include "isvp/ring_queue.h"
#include "isvp/round_robin_arbiter.h"
#include "isvp/router_config.h"
#include "isvp/routing_policy.h"
#include "isvp/timed_agenda.h"
#include "isvp/trace_writer.h"
#include "isvp/wakeup_scheduler.h"

namespace isvp {

/// Counters of one router port.
struct RouterPortStatistics {
    /// Every field once, with its JSON key (isvp/statistics_table.h).
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("packets_in", self.packets_in);
        field("phits_in", self.phits_in);
        field("packets_out", self.packets_out);
        field("phits_out", self.phits_out);
        field("stall_ns", self.stall_time);
        field("busy_ns", self.busy_time);
    }

    std::uint64_t packets_in = 0;   ///< packets accepted on the input side
    std::uint64_t phits_in = 0;     ///< their phits
    std::uint64_t packets_out = 0;  ///< packets sent on the output side
    std::uint64_t phits_out = 0;    ///< their phits
    sc_core::sc_time stall_time;    ///< summed over packets sent here: ready for allocation -> won it
    sc_core::sc_time busy_time;     ///< output carrying packets (head out -> tail out)
};

/// Packets the router dropped, by reason.
struct RouterDropStatistics {
    /// Every field once, with its JSON key (isvp/statistics_table.h).
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("dropped_malformed", self.malformed);
        field("dropped_misaddressed", self.misaddressed);
        field("dropped_oversized", self.oversized);
    }

    std::uint64_t malformed = 0;     ///< network packet did not parse
    std::uint64_t misaddressed = 0;  ///< destination is not a node of the network
    std::uint64_t oversized = 0;     ///< larger than the downstream VC buffer less the margin
};

// CreditSink is a public base so that a downstream router recognises its
// upstream neighbour behind a CreditRoute (dynamic_cast) and returns
// credits into its output VC's record directly (InputPort::credit_vcs).
class Router : public sc_core::sc_module, private WakeupScheduler::Client, public CreditSink {
  public:
    static constexpr unsigned kMaxVcs = 16;  ///< router.vcs at most
    using PacketInSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
    using CreditOutSocket = tlm_utils::simple_initiator_socket_optional<Router>;
    using PacketOutSocket = tlm_utils::simple_initiator_socket_optional<Router>;
    using CreditInSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

    /// Router `node` of the network, with routing->ports(node) ports.
    /// `port_names` (optional, one per port) name the sockets, e.g.
    /// "in_xplus"; by default ports are named by number. With a `scheduler`
    /// (shared by the routers of a fabric) the router is woken through it;
    /// without, it has its own SC_METHOD and event.
    Router(sc_core::sc_module_name name, const RouterConfig& config, std::shared_ptr<const RoutingPolicy> routing,
           std::uint32_t node, const std::vector<std::string>& port_names = {}, WakeupScheduler* scheduler = nullptr);

    unsigned ports() const { return ports_; }
    std::uint32_t node() const { return node_; }
    const RouterConfig& config() const { return config_; }

    PacketInSocket& in(unsigned port);           ///< packets from upstream
    CreditOutSocket& credit_out(unsigned port);  ///< credits to upstream
    PacketOutSocket& out(unsigned port);         ///< packets to downstream
    CreditInSocket& credit_in(unsigned port);    ///< credits from downstream

    /// Counters of `port` now (a copy: the router keeps them with the port's state).
    RouterPortStatistics port_statistics(unsigned port) const;
    const RouterDropStatistics& drop_statistics() const { return drops_; }
    /// Packets held in input buffers now.
    std::size_t buffered_packets() const;
    /// Credits of an output VC, including those still travelling back.
    std::int64_t output_credits(unsigned port, unsigned vc) const;
    /// Whether the credits of input `port` go straight to the upstream
    /// router (a CreditRoute was found at start of simulation) rather than
    /// by b_transport.
    bool credits_direct(unsigned port) const { return port < ports_ && inputs_[port].credit_sink != nullptr; }

    /// Records every packet leaving an output port as a trace event on
    /// process `pid` ("switch <label>"), thread = port; null stops recording.
    void set_trace(TraceWriter* writer, std::uint32_t pid, const std::string& label);

  private:
    /// A packet in an input VC buffer.
    /// 32 bytes, aligned: a FIFO slot never straddles two cache lines (its
    /// PacketInfo is looked up again at departure, where the payload is
    /// touched anyway).
    struct alignas(32) BufferedPacket {
        tlm::tlm_generic_payload* payload = nullptr;  ///< acquired while buffered (its pool owns it at shutdown)
        std::uint64_t ready = 0;                      ///< tick from which it may win VA/SA
        std::uint64_t tail = 0;                       ///< tick its tail is fully in
        std::uint32_t phits = 0;                      ///< size in phits
        std::uint16_t out_port = 0;                   ///< route computation result
        std::uint8_t out_vc = 0;                      ///< VC at the downstream input
    };
    static_assert(sizeof(BufferedPacket) == 32, "a FIFO slot within one cache line");
    /// Forwards blocking transport on in(port) to on_packet, or on
    /// credit_in(port) to on_credit (see BlockingTransportTarget). 16 bytes
    /// plus the port: the packet target lives in its InputPort record,
    /// which the arrival touches anyway.
    template <bool kCredits>
    class PortTarget final : public BlockingTransportTarget {
      public:
        PortTarget() = default;
        PortTarget(Router& router, unsigned port) { attach(router, port); }
        void attach(Router& router, unsigned port) {
            router_ = &router;
            port_ = port;
        }
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            if constexpr (kCredits)
                router_->on_credit(port_, payload, delay);
            else
                router_->on_packet(port_, payload, delay);
        }
        /// Credits into credit_in(port) may be handed to the router directly.
        bool credit_route(CreditRoute& route) const override {
            if constexpr (kCredits) {
                route.sink = router_;
                route.port = port_;
                route.delay = 0;
                return true;
            } else {
                (void)route;
                return false;
            }
        }

      private:
        Router* router_ = nullptr;  ///< owner
        unsigned port_ = 0;         ///< port number passed along
    };
    using PacketTarget = PortTarget<false>;
    using CreditTarget = PortTarget<true>;

    // Per-hop state, laid out so that a hop touches few cache lines: what
    // one event reads or writes of a port or VC sits in one record (two
    // lines at most), counters included; records are aligned to lines.
    /// An input VC's packets in arrival order, in one line: the head packet
    /// (what allocation and departure read) in the record itself, the ones
    /// behind it in a ring. A packet arriving at an empty VC, the common
    /// case below saturation, touches no ring slot.
    struct alignas(64) InputVc {
        RingQueue<BufferedPacket> behind;  ///< packets after the head
        std::uint32_t occupancy = 0;       ///< phits held (<= VC buffer)
        std::uint32_t packets = 0;         ///< packets held, the head included
        BufferedPacket head;               ///< the first packet, if packets > 0

        bool empty() const { return packets == 0; }
        std::size_t size() const { return packets; }
        const BufferedPacket& front() const { return head; }
        void push_back(const BufferedPacket& packet) {
            if (packets++ == 0)
                head = packet;
            else
                behind.push_back(packet);
        }
        void pop_front() {
            if (--packets == 0) return;
            head = behind.front();
            behind.pop_front();
        }
    };
    static_assert(sizeof(InputVc) == 64, "an input VC and its head packet: one cache line");
    struct OutputVc;
    struct alignas(64) InputPort {
        // What an arrival touches (one line)...
        PacketTarget packet_target;    ///< what in(port) is bound to
        std::uint64_t packets_in = 0;  ///< statistics: packets accepted here
        std::uint64_t phits_in = 0;    ///< statistics: their phits
        // ... and what allocation and departure touch (the next).
        alignas(64) std::uint64_t free_at = 0;                ///< tick its crossbar input can start the next packet
        tlm::tlm_fw_transport_if<>* credit_out_if = nullptr;  ///< bound credit receiver, or null
        CreditSink* credit_sink = nullptr;  ///< where credit_out_if's credits end up, if direct (CreditRoute)
        /// When credit_sink is a router with as many VCs: its output VCs of
        /// credit_port, so that a credit return writes that output VC's
        /// record and touches nothing else of the upstream router unless a
        /// packet there waits for credits (credits_to()).
        OutputVc* credit_vcs = nullptr;
        std::uint32_t credit_delay = 0;  ///< ticks they take on the way there
        std::uint16_t credit_port = 0;   ///< the sink's port they arrive on
        bool wake_pending = false;       ///< an InputFree item is on the agenda
    };
    static_assert(sizeof(InputPort) == 128, "an arrival line and an allocation line per input port");
    struct alignas(64) OutputVc {
        std::int64_t credits = 0;       ///< usable now (arrived)
        std::uint32_t capacity = 0;     ///< most credits ever held: the downstream VC buffer
        bool waiting = false;           ///< a head packet waits for credits here
        RoundRobinArbiter va_arbiter;   ///< VA over the input VCs that want this output VC
        std::uint64_t wake_at = ~0ull;  ///< tick of the earliest CreditsDue item on the agenda
        CreditQueue pending;            ///< credits still travelling back
    };
    static_assert(sizeof(OutputVc) == 64, "what a credit return and a fold touch: one cache line");
    /// What a hop reads and writes of an output port, in one line. The
    /// input VCs whose ready head wants the port are one word of bits for a
    /// router with up to 64 of them (a torus router with up to 9 VCs; 14 by
    /// default); a larger router keeps them in wide_requests_ instead
    /// (requested()). The arbiters are four bytes each (RoundRobinArbiter).
    struct alignas(64) OutputPort {
        std::uint64_t free_at = 0;                     ///< tick it can start the next packet
        std::uint64_t requests = 0;  ///< input VCs whose ready head wants this port (bit per requester)
        tlm::tlm_fw_transport_if<>* out_if = nullptr;  ///< bound receiver, or null
        std::uint64_t packets_out = 0;                 ///< statistics: packets sent here
        std::uint64_t phits_out = 0;                   ///< statistics: their phits
        std::uint64_t stall_ticks = 0;                 ///< statistics: summed ready -> won allocation
        std::uint64_t busy_ticks = 0;                  ///< statistics: summed head out -> tail out
        RoundRobinArbiter switch_arbiter;              ///< SA over input VCs
        bool wake_pending = false;                     ///< an OutputFree item is on the agenda
        bool to_host = false;                          ///< a host is attached (hops not counted here)
    };
    static_assert(sizeof(OutputPort) == 64, "what a hop touches of an output port: one cache line");
    /// Own future work; see TimedAgenda.
    struct AgendaItem {
        enum Kind : std::uint8_t { HeadReady, OutputFree, InputFree, CreditsDue };
        // No default member initializers: inside the router's definition
        // they would leave the type not yet default-constructible, and the
        // agenda would not pack it (timed_agenda_detail::kPacked).
        AgendaItem() : kind(HeadReady), vc(0), port(0) {}
        AgendaItem(Kind what, std::uint16_t at_port, std::uint8_t at_vc) : kind(what), vc(at_vc), port(at_port) {}
        Kind kind;
        std::uint8_t vc;     ///< input VC (HeadReady) or output VC (CreditsDue)
        std::uint16_t port;  ///< input port (HeadReady, InputFree) or output port
    };
    static_assert(timed_agenda_detail::kPacked<AgendaItem>,
                  "packs with its insertion number into one word (timed_agenda.h)");

    void start_of_simulation() override;
    void on_packet(unsigned port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(unsigned port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void credits_arrive(unsigned port, std::uint8_t vc, std::uint32_t phits, std::uint64_t arrival,
                        std::uint64_t now) final;  // final: send_credits() may bypass it (credits_to)
    /// credits_arrive() for a checked VC whose record is `output`.
    void credits_to(OutputVc& output, unsigned port, std::uint8_t vc, std::uint32_t phits, std::uint64_t arrival,
                    std::uint64_t now);
    void grant_initial_credits();
    void wake() override;
    void handle(const AgendaItem& item, std::uint64_t now);
    void allocate(std::uint64_t now);
    void allocate_output(unsigned port, std::uint64_t now);
    void depart(unsigned port, unsigned requester, std::uint64_t now);
    void drop_oversized(unsigned requester, std::uint64_t now, std::uint32_t downstream_phits);
    /// The next packet of an input VC (if any) starts requesting.
    void advance_input(unsigned requester, std::uint64_t now);
    void fold_credits(OutputVc& vc, std::uint64_t now);
    void wait_for_credits(unsigned port, unsigned vc, std::uint64_t now);
    /// Adds `item` to the agenda at `tick`; `now` is the current tick.
    void schedule(std::uint64_t tick, const AgendaItem& item, std::uint64_t now);
    /// Asks to be woken at `tick` for `item`, the agenda's earliest then
    /// (through the scheduler or the own event).
    void request_wake(std::uint64_t tick, const AgendaItem& item, std::uint64_t now);
    /// Adds to `hint` the records that handling `item`, and the allocation
    /// and departure it leads to, will read (WakeupScheduler::Hint).
    void describe_wake(const AgendaItem& item, WakeupScheduler::Hint& hint) const;
    /// The lines a packet handed to `output`'s receiver reads of it first:
    /// a link's record is two (AuroraLink::Path); none without a receiver.
    static std::array<const void*, 2> receiver_lines(const OutputPort& output);
    /// Adds those of a departure of `requester`'s head packet to `hint`.
    void hint_departure(WakeupScheduler::Hint& hint, unsigned requester) const;
    void trace_departure(unsigned port, const BufferedPacket& packet, std::uint64_t head_out, std::uint64_t tail_out);
    void drop_on_arrival(unsigned port, unsigned vc, std::uint32_t phits, const sc_core::sc_time& credit_delay,
                         std::uint64_t trace_id, const std::string& why);
    void send_credits(unsigned port, unsigned vc, std::uint32_t phits, std::uint64_t at_tick, std::uint64_t now);
    OutputVc& output_vc(unsigned port, unsigned vc) { return output_vcs_[port * vcs_ + vc]; }
    /// Lines 1-4 of the members below, from vcs_: what a wake-up reads first.
    static constexpr unsigned kHotLines = 4;
    // The requests of an output port: a word in its record, or a RequestSet
    // in wide_requests_ for a router with more than 64 input VCs (decided by
    // requesters_, in the hot line, not by the pointer, in a cold one).
    bool wide() const { return requesters_ > 64; }
    void add_request(unsigned port, unsigned requester) {
        if (wide())
            wide_requests_[port].set(requester);
        else
            outputs_[port].requests |= std::uint64_t{1} << requester;
    }
    void withdraw_request(unsigned port, unsigned requester) {
        if (wide())
            wide_requests_[port].reset(requester);
        else
            outputs_[port].requests &= ~(std::uint64_t{1} << requester);
    }
    bool requested(unsigned port) const { return wide() ? wide_requests_[port].any() : outputs_[port].requests != 0; }
    /// The only requester of `port`, if there is exactly one.
    std::optional<unsigned> single_request(unsigned port) const {
        return wide() ? wide_requests_[port].single() : request_bits::only(outputs_[port].requests);
    }
    template <typename Visit>
    void for_each_request(unsigned port, Visit&& visit) const {
        if (wide()) {
            wide_requests_[port].for_each(visit);
            return;
        }
        request_bits::for_each(outputs_[port].requests, 0, visit);
    }
    std::string port_label(unsigned port) const;

    // Read on every event: together, at the front (the record arrays are
    // plain arrays for that). Line 1 serves an arrival (and holds the input
    // VC count allocation reads); the agenda with its four inline entries
    // (96 bytes, session 20) and the allocation scalars take the next two
    // lines, where the agenda alone took one line before and its entries
    // lived in separate storage; the wake-up fields take the fourth. The
    // scheduler prefetches all kHotLines before a wake-up (attach()).
    // Line 1: arrival.
    alignas(64) unsigned vcs_ = 0;          ///< router.vcs
    unsigned ports_ = 0;                    ///< number of ports
    std::uint32_t node_;                    ///< this router's network address
    std::uint32_t vc_buffer_phits_ = 0;     ///< credits each input VC grants
    std::uint64_t pipeline_ticks_ = 0;      ///< head in -> eligible for VA/SA: (pipeline_cycles - 1) cycles
    const RoutingPolicy* route_ = nullptr;  ///< routing_, for the per-packet call
    std::unique_ptr<InputVc[]> input_vcs_;  ///< [port * vcs + vc]
    std::unique_ptr<InputPort[]> inputs_;   ///< per port (not movable: sockets are bound to its targets)
    WakeupScheduler* scheduler_;            ///< shared wake-ups, or null: own event
    unsigned scheduler_id_ = 0;             ///< this router's id at scheduler_
    std::uint16_t requesters_ = 0;          ///< input VCs: ports x VCs (wide() when above 64)
    // Lines 2-3: the agenda and what allocation reads.
    alignas(64) TimedAgenda<AgendaItem, 0, 4> agenda_;  ///< own future work, the first four items inline
    std::uint64_t next_wake_ = ~0ull;             ///< tick a wake-up is requested for
    std::uint64_t cycle_ = 0;                     ///< clock period, ticks
    std::uint32_t phits_per_cycle_ = 0;           ///< router.phits_per_cycle
    std::uint32_t margin_phits_ = 0;              ///< router.flow_control_margin_phits
    std::unique_ptr<OutputVc[]> output_vcs_;      ///< [port * vcs + vc]
    // Line 4: wake-up.
    alignas(64) std::unique_ptr<OutputPort[]> outputs_;  ///< per port
    unsigned allocation_start_ = 0;                      ///< output allocated first next time (rotates)
    unsigned oversized_count_ = 0;                       ///< requesters in oversized_ (this line, not the vector's)
    TraceWriter* trace_ = nullptr;                       ///< packet timeline, or null (off)
    RequestSet dirty_outputs_;                           ///< outputs to (re)allocate now
    CreditMessage credit_message_;          ///< reused for every credit return

    RouterConfig config_;                           ///< parameters
    std::shared_ptr<const RoutingPolicy> routing_;  ///< route computation (router.routing)
    std::vector<std::string> port_names_;           ///< for socket names and reports

    std::vector<std::unique_ptr<PacketInSocket>> in_;           ///< per port
    std::vector<std::unique_ptr<CreditOutSocket>> credit_out_;  ///< per port
    std::vector<std::unique_ptr<PacketOutSocket>> out_;         ///< per port
    std::vector<std::unique_ptr<CreditInSocket>> credit_in_;    ///< per port
    std::deque<CreditTarget> credit_targets_;                   ///< what credit_in(i) is bound to (deque: never moves)

    sc_core::sc_event wake_event_;           ///< own wake-up (no scheduler): fires at the agenda's earliest item
    std::unique_ptr<RequestSet[]> wide_requests_;  ///< per output port, for more than 64 input VCs; else null
    std::vector<RequestSet> vc_candidates_;  ///< scratch: eligible requesters per output VC
    RequestSet va_winners_;                  ///< scratch: one VA winner per output VC
    std::vector<unsigned> oversized_;        ///< scratch: requesters to drop, the first oversized_count_

    std::uint32_t trace_pid_ = 0;   ///< this switch's process in the trace
    double ps_per_tick_ = 1.0;      ///< SystemC time resolution in ps

    RouterDropStatistics drops_;                         ///< drops by reason
};

}  // namespace isvp
