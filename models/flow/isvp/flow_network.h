// FlowNetwork: the loosely-timed network of network.model = flow, a sibling
// of Fabric with the same four sockets per host, so NICs (collective engine,
// QDMA), driver and guests do not change (DESIGN §9: another network
// backend behind the same NIC boundary).
//
// Abstraction: flow level, in the manner of SimGrid's CM02/LV08 network
// models. Packets from host s to host d form one stream; while it has a
// packet to send, the stream is one flow of a max-min fair sharing problem
// (MaxMinSolver) over the resources it crosses: the inject port of s, each
// directed cable of the route the routers would take (flow_path.h, from the
// same RoutingPolicy), the eject port of d. The stream drains its packets in
// order at its share; rates are recomputed when a stream starts or stops
// (once per simulated instant, only the connected flows). A stream that runs
// dry inside a message (network header: context, step, opcode; `last` ends
// it) keeps its flow until the message ends (network.flow_hold = message),
// so solves follow messages, not packets. A packet of k
// bytes costs each resource what it costs the packet model: a cable its
// Aurora serialisation S_c(k) (frame overhead included), a port
// X(k) = ceil(phits / router.phits_per_cycle) router cycles; a flow's weight
// on a resource is that cost per byte, a resource's capacity 1 (busy all the
// time).
//
// Timing, with T = 1 / router.clock_mhz, P = router.pipeline_cycles, h
// cables on the route, L_c each cable's latency:
//   * a packet whose head reaches the inject port at t may start draining at
//     t + P T (the first router's pipeline), after the stream's previous
//     packet;
//   * once drained (at its rate) at t_d, its head reaches the destination's
//     NIC at t_d + sum_c (S_c(k) + L_c) + h P T - max(X(k), max_c S_c(k)):
//     what the packet model gives an uncontended packet (store-and-forward
//     at each link, a pipeline per router), with the time it took to drain
//     standing for the bottleneck's serialisation. An uncontended packet
//     therefore arrives exactly when it would in the packet model; its tail
//     follows X(k) later (PacketInfo::tail_after).
//   * credits: the inject port grants each VC router.input_buffer_bytes /
//     router.vcs and gets a packet's credits back when it has drained (one
//     router buffer per source); at the destination the NIC's own credits
//     are honoured as a router output does (packet + margin), and the eject
//     port carries one packet at a time (X(k) each), so ejection-side
//     back-pressure still reaches the stream's packets, after the fact.
//
// Not modelled (see models/flow/README.md): VCs and head-of-line blocking,
// per-hop buffering and back-pressure inside the network (a flow is never
// slowed by a full buffer downstream, only by its share), per-packet
// arbitration (shares are exact fluid max-min), link bit errors
// (network.model = flow refuses aurora.bit_error_rate > 0), router traces.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "isvp/aurora_config.h"
#include "isvp/credit_queue.h"
#include "isvp/fabric_config.h"
#include "isvp/flow_config.h"
#include "isvp/flow_path.h"
#include "isvp/max_min_solver.h"
#include "isvp/network_topology.h"
#include "isvp/packet_channel.h"
#include "isvp/routing_policy.h"
#include "isvp/timed_agenda.h"

namespace isvp {

/// Counters of a FlowNetwork.
struct FlowNetworkStatistics {
    std::uint64_t packets = 0;               ///< packets delivered to a NIC
    std::uint64_t bytes = 0;                 ///< their bytes
    std::uint64_t packet_hops = 0;           ///< cables crossed by them, summed
    std::uint64_t streams = 0;               ///< source -> destination pairs that carried a packet
    std::uint64_t flow_starts = 0;           ///< times a stream became a flow of the sharing problem
    std::uint64_t reweighs = 0;              ///< times a flow took a larger packet's weights
    std::uint64_t holds = 0;                 ///< times a stream ran dry inside a message and kept its flow
    std::uint64_t express = 0;               ///< one-phit messages drained without a flow
    std::uint64_t solves = 0;                ///< max-min recomputations
    std::uint64_t dropped_malformed = 0;     ///< packets that did not parse
    std::uint64_t dropped_misaddressed = 0;  ///< destination not a host of the network
    std::uint64_t dropped_oversized = 0;     ///< larger than the receiving NIC's buffer less the margin
};

class FlowNetwork : public sc_core::sc_module {
  public:
    using PacketInSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
    using CreditOutSocket = tlm_utils::simple_initiator_socket_optional<FlowNetwork>;
    using PacketOutSocket = tlm_utils::simple_initiator_socket_optional<FlowNetwork>;
    using CreditInSocket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

    /// Builds the flow network of the topology `config` describes, routed by
    /// its routing policy; throws ConfigError for a bad config.
    /// `linger_round_trips`: network.flow_linger_round_trips; `hold`:
    /// network.flow_hold.
    /// `train_payload_bytes`: with network.flow_train_packets > 1, the
    /// payload of the hardware packets a longer packet stands for (it costs
    /// what they would, back to back: trains); 0 costs every packet as one.
    FlowNetwork(sc_core::sc_module_name name, const FabricConfig& config, double linger_round_trips = 0,
                FlowHold hold = FlowHold::Message, std::uint32_t train_payload_bytes = 0);

    const FabricConfig& config() const { return config_; }
    const NetworkTopology& topology() const { return topology_; }
    unsigned nodes() const { return topology_.hosts(); }

    PacketInSocket& inject(unsigned host);          ///< packets from the host's NIC
    CreditOutSocket& inject_credit(unsigned host);  ///< credits back to the host's NIC
    PacketOutSocket& eject(unsigned host);          ///< packets to the host's NIC
    CreditInSocket& eject_credit(unsigned host);    ///< credits from the host's NIC

    /// Cables crossed by delivered packets so far (the unit Fabric::packet_hops counts).
    std::uint64_t packet_hops() const { return statistics_.packet_hops; }
    const FlowNetworkStatistics& counters() const;
    /// Counters and per-cable load; `elapsed` gives utilisations.
    nlohmann::json statistics(const sc_core::sc_time& elapsed) const;

  private:
    /// A packet waiting in (or draining from) its stream.
    struct QueuedPacket {
        tlm::tlm_generic_payload* payload = nullptr;  ///< acquired while held
        std::uint64_t ready = 0;                      ///< tick from which it may drain
        std::uint32_t bytes = 0;                      ///< its length
        std::uint32_t phits = 0;                      ///< its size in phits
        std::uint8_t vc = 0;                          ///< VC it came in on (its credits go back there)
        std::uint32_t message = 0;                    ///< its message's key (message_key)
        bool last = true;                             ///< last packet of its message (network header)
    };
    /// The packets from one host to another and their flow.
    struct Stream {
        std::uint32_t source = 0;              ///< host
        std::uint32_t destination = 0;         ///< host
        std::vector<std::uint32_t> cables;     ///< cable index of each hop, in order
        std::vector<std::uint32_t> resources;  ///< inject port, directed cables, eject port
        std::uint64_t latency = 0;             ///< sum of the cables' latencies, ticks
        std::deque<QueuedPacket> queue;        ///< head first
        std::uint32_t flow = kNoFlow;          ///< solver flow id while it is a flow
        std::uint32_t weight_bytes =
            0;                      ///< packet size its flow's weights were computed for (the largest since it joined)
        double rate = 0;            ///< bytes per tick (solver's rate)
        double remaining = 0;       ///< bytes of the head packet not yet drained
        std::uint64_t last = 0;     ///< tick `remaining` was brought up to date
        std::uint32_t version = 0;  ///< invalidates Drained items of older rates
        std::uint32_t retire_version = 0;  ///< invalidates Retire items once it runs again
        bool running = false;              ///< its head packet is draining
        bool idle_listed = false;          ///< in idle_ (its flow may end)
        std::uint32_t cached_bytes = 0;    ///< packet size of cached_after
        std::int64_t cached_after = 0;     ///< drained -> head at the NIC, ticks, for cached_bytes
        std::uint64_t last_due = 0;        ///< due tick of its latest packet (order is kept)
        std::vector<std::uint32_t> open;   ///< keys of messages partly drained (network.flow_hold = message)
    };
    /// A drained packet on its way to (or waiting at) the destination's NIC.
    struct Arrival {
        std::uint64_t due = 0;                        ///< tick its head may leave the eject port
        std::uint64_t sequence = 0;                   ///< ties: drain order
        tlm::tlm_generic_payload* payload = nullptr;  ///< acquired
        std::uint32_t phits = 0;                      ///< size
        std::uint16_t hops = 0;                       ///< cables crossed
        bool operator>(const Arrival& other) const {
            return due != other.due ? due > other.due : sequence > other.sequence;
        }
    };
    /// The destination side of one host: its eject port.
    struct EjectPort {
        std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>>
            arrivals;                    ///< by due, then drain order
        std::int64_t credits = 0;        ///< VC 0 credits of the NIC's buffer, arrived
        std::uint32_t capacity = 0;      ///< most credits ever held: the NIC's buffer
        CreditQueue pending;             ///< VC 0 credits still travelling
        std::uint64_t free_at = 0;       ///< tick the port can start the next packet
        std::uint64_t wake_at = kNever;  ///< tick of the live Eject item on the agenda
        std::uint32_t version = 0;       ///< of the live Eject item (others are stale)
        bool waiting = false;            ///< the next packet waits for the NIC's credits
    };
    /// Load of one resource (cable direction or port) for statistics.
    struct ResourceLoad {
        std::uint64_t packets = 0;
        std::uint64_t bytes = 0;
        std::uint64_t busy = 0;  ///< ticks: summed cost of its packets
    };
    struct AgendaItem {
        enum Kind : std::uint8_t { Activate, Drained, Retire, Eject };
        Kind kind;
        std::uint32_t index;    ///< stream (Activate, Drained) or host (Eject)
        std::uint32_t version;  ///< stream version (Drained), retire version (Retire) or eject port version (Eject)
    };
    /// Forwards blocking transport on one target socket with the host number.
    class HostTarget final : public BlockingTransportTarget {
      public:
        using Handler = void (FlowNetwork::*)(unsigned, tlm::tlm_generic_payload&, sc_core::sc_time&);
        HostTarget(FlowNetwork& network, Handler handler, unsigned host)
            : network_(&network), handler_(handler), host_(host) {}
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            (network_->*handler_)(host_, payload, delay);
        }

      private:
        FlowNetwork* network_;  ///< owner
        Handler handler_;       ///< on_packet or on_credit
        unsigned host_;         ///< host passed along
    };

    static constexpr std::uint32_t kNoFlow = ~0u;
    static constexpr std::uint64_t kNever = ~0ull;

    void start_of_simulation() override;
    void grant_initial_credits();
    void on_packet(unsigned host, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(unsigned host, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void drop(unsigned host, tlm::tlm_generic_payload& payload, std::uint64_t credit_tick, const std::string& why);
    void wake();
    void schedule(std::uint64_t tick, const AgendaItem& item);
    void activate(std::uint32_t stream, std::uint64_t now);
    void drained(std::uint32_t stream, std::uint64_t now);
    /// The stream's head packet starts draining now.
    void start_head(Stream& stream, std::uint64_t now);
    /// Makes the stream a flow of the sharing problem weighted for packets of
    /// `bytes` (replacing its flow if it has one); its rate comes with this
    /// instant's solve. Packets up to that size drain at the flow's rate.
    void weigh(Stream& stream, std::uint32_t index, std::uint32_t bytes);
    /// Whether `packet`, the stream's head, drains without a flow: a message
    /// of one phit on a stream that has none (network.flow_hold = message).
    bool express(const Stream& stream, const QueuedPacket& packet) const;
    /// The head drains in its uncontended bottleneck time, outside the
    /// sharing problem.
    void start_express(Stream& stream, std::uint32_t index, std::uint64_t now);
    /// Hands a packet to the destination's eject port, its head due at `due`.
    void to_eject(Stream& stream, const QueuedPacket& packet, std::uint64_t due, std::uint64_t now);
    void eject_due(unsigned host, std::uint64_t now);
    void schedule_eject(unsigned host, std::uint64_t tick);
    void schedule_drain(Stream& stream, std::uint32_t index, std::uint64_t now);
    std::uint32_t stream_for(unsigned source, unsigned destination);
    std::vector<MaxMinSolver::Use> uses_for(const Stream& stream, std::uint32_t bytes) const;
    std::int64_t after_drain(Stream& stream, std::uint32_t bytes);
    std::uint64_t port_ticks(std::uint32_t phits) const;
    std::uint64_t serialisation_ticks(std::uint32_t cable, std::uint32_t bytes) const;
    /// The hardware packets a packet of `bytes` stands for (one unless it
    /// is a train: network.flow_train_packets).
    struct Train {
        std::uint32_t packets = 1;     ///< hardware packets
        std::uint32_t full_bytes = 0;  ///< each but the last
        std::uint32_t last_bytes = 0;  ///< the last
    };
    Train train_of(std::uint32_t bytes) const;
    /// What a packet of `bytes` costs a port (X) and a cable (S), its
    /// hardware packets back to back.
    std::uint64_t port_cost(std::uint32_t bytes) const;
    std::uint64_t cable_cost(std::uint32_t cable, std::uint32_t bytes) const;
    std::uint32_t cable_resource(unsigned switch_index, unsigned port) const;
    std::uint32_t inject_resource(unsigned host) const { return ports_total_ + host; }
    std::uint32_t eject_resource(unsigned host) const { return ports_total_ + topology_.hosts() + host; }

    FabricConfig config_;                           ///< parameters (router.* and aurora.* give the costs)
    NetworkTopology topology_;                      ///< switches, cables, hosts
    std::shared_ptr<const RoutingPolicy> routing_;  ///< the routers' policy: paths
    std::uint64_t cycle_ = 0;                       ///< router clock period, ticks
    std::uint64_t pipeline_ = 0;                    ///< router.pipeline_cycles x cycle, ticks
    std::uint32_t vc_buffer_phits_ = 0;             ///< credits the inject port grants per VC
    std::vector<AuroraTiming> cable_timing_;        ///< [cable]: frame arithmetic
    std::vector<std::uint64_t> cable_latency_;      ///< [cable]: latency, ticks
    std::vector<std::uint32_t> first_port_;         ///< [switch]: index of its port 0 among all ports
    std::uint32_t ports_total_ = 0;                 ///< switch ports in the network
    double linger_round_trips_ = 0;                 ///< network.flow_linger_round_trips
    FlowHold hold_ = FlowHold::Message;             ///< network.flow_hold
    std::uint32_t train_payload_ = 0;               ///< hardware packet payload of a train; 0: no trains

    std::vector<std::unique_ptr<PacketInSocket>> inject_;          ///< [host]
    std::vector<std::unique_ptr<CreditOutSocket>> inject_credit_;  ///< [host]
    std::vector<std::unique_ptr<PacketOutSocket>> eject_;          ///< [host]
    std::vector<std::unique_ptr<CreditInSocket>> eject_credit_;    ///< [host]
    std::deque<HostTarget> packet_targets_;                        ///< [host]: on_packet
    std::deque<HostTarget> credit_targets_;                        ///< [host]: on_credit
    std::vector<tlm::tlm_fw_transport_if<>*> eject_if_;            ///< [host]: NIC rx, or null
    std::vector<tlm::tlm_fw_transport_if<>*> inject_credit_if_;    ///< [host]: NIC tx credits, or null
    CreditMessage credit_message_;                                 ///< reused for every credit return

    MaxMinSolver solver_;                                            ///< bandwidth sharing
    std::vector<std::uint32_t> flow_owner_;                          ///< [solver flow id]: stream
    std::vector<Stream> streams_;                                    ///< by index
    std::unordered_map<std::uint64_t, std::uint32_t> stream_index_;  ///< source x hosts + destination -> index
    /// [source x hosts + destination]: stream index + 1, 0 for none (up to
    /// kDenseStreamHosts hosts; beyond, stream_index_ alone: a lookup per packet)
    std::vector<std::uint32_t> stream_table_;
    static constexpr unsigned kDenseStreamHosts = 1024;
    std::vector<std::uint32_t> idle_;           ///< streams that stopped running this instant
    std::vector<EjectPort> ejects_;             ///< [host]
    std::vector<ResourceLoad> loads_;           ///< [resource]
    TimedAgenda<AgendaItem> agenda_;            ///< own future work
    sc_core::sc_event wake_event_;              ///< wakes wake()
    std::uint64_t next_wake_ = kNever;          ///< tick wake_event_ is notified for
    std::uint64_t arrival_sequence_ = 0;        ///< orders Arrivals of one tick
    mutable FlowNetworkStatistics statistics_;  ///< counters (solves copied in on demand)
};

}  // namespace isvp
