// ReliableEndpoint: end-to-end reliable delivery between a node and the
// network (models/reliable/README.md). It sits on the node's side of the
// router's local port, so every packet a node injects — point-to-point
// messages from the QDMA and the collective engine's packets alike — goes
// through it:
//
//   CollectiveEngine.net_out --> from_node       to_network --> Router.inject
//   CollectiveEngine.net_out_credit <-- from_node_credit   to_network_credit <-- Router.inject_credit
//   CollectiveEngine.net_in <-- to_node          from_network <-- Router.eject
//   CollectiveEngine.net_in_credit --> to_node_credit      from_network_credit --> Router.eject_credit
//
// Sender: each packet gets the next sequence number of its destination node
// and a copy is kept in a bounded retransmit buffer until the destination
// acknowledges it (cumulative ack). When the oldest unacknowledged packet to
// a node has waited reliable.timeout_ns (doubling per retransmission), or the
// receiver reports a gap (nak), everything unacknowledged to that node is
// sent again (go-back-N). After reliable.max_retransmissions the oldest
// packet is declared lost and the loss observer is told; each loss says how
// many packets to that node were lost since one was last acknowledged, and
// reaching reliable.max_losses_in_a_row marks the path dead (no_progress).
// Receiver: a packet carrying the next expected sequence of its source goes
// to the node; a duplicate is dropped; a packet beyond a gap is dropped
// (a nak goes back once per go-back round) unless its sender has given the
// gap up (the packet's base says so; the sender reported the loss), and
// delivery resumes after the gap.
// Every data packet carries the cumulative ack for its destination's
// packets (piggy-backed); an ack packet goes back when none has within
// reliable.ack_delay_ns of a delivered packet.
// With reliable.max_retransmissions = 0 (detection only) the receiver does
// not wait for missing packets: it delivers what arrives in order and
// reports the gap at once.
//
// Abstraction: packet-level, approximately timed; the layer adds no latency
// to a packet that is not waiting (cut-through, the output serialises at
// the router's port rate). The sequence fields travel as packet sideband
// (PacketInfo::reliable*): their wire bytes are not charged.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/packet_channel.h"
#include "isvp/packet_network_core.h"
#include "isvp/reliable_config.h"
#include "isvp/target_socket.h"

namespace isvp {

/// Counters of one node's layer.
struct ReliableStatistics {
    /// Every field once, with its JSON key (isvp/statistics_table.h).
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("data_packets", self.data_packets);
        field("retransmissions", self.retransmissions);
        field("timeouts", self.timeouts);
        field("acks_sent", self.acks_sent);
        field("naks_sent", self.naks_sent);
        field("acks_received", self.acks_received);
        field("duplicates", self.duplicates);
        field("out_of_order", self.out_of_order);
        field("delivered", self.delivered);
        field("lost_sent", self.lost_sent);
        field("lost_received", self.lost_received);
        field("peak_buffer_bytes", self.peak_buffer_bytes);
    }

    std::uint64_t data_packets = 0;       ///< packets sent for the first time
    std::uint64_t retransmissions = 0;    ///< packets sent again
    std::uint64_t timeouts = 0;           ///< retransmission timer expiries
    std::uint64_t acks_sent = 0;          ///< cumulative acks sent
    std::uint64_t naks_sent = 0;          ///< gap reports sent
    std::uint64_t acks_received = 0;      ///< acks and naks received
    std::uint64_t duplicates = 0;         ///< received packets already delivered, dropped
    std::uint64_t out_of_order = 0;       ///< received packets beyond a gap, dropped (sent again later)
    std::uint64_t delivered = 0;          ///< packets handed to the node in order
    std::uint64_t lost_sent = 0;          ///< packets to other nodes declared lost here
    std::uint64_t lost_received = 0;      ///< packets from other nodes found missing here
    std::uint64_t peak_buffer_bytes = 0;  ///< most bytes held for retransmission at once
};

/// A loss one endpoint found: packets from `source` to `destination`, the
/// first missing sequence number, and who noticed.
struct PacketLoss {
    std::uint16_t source = 0;
    std::uint16_t destination = 0;
    std::uint32_t first_sequence = 0;
    std::uint64_t packets = 0;         ///< how many
    bool at_sender = false;            ///< declared by the sender (retransmissions exhausted or timed out)
    unsigned retransmissions = 0;      ///< the sender's retransmissions of the first one
    std::vector<std::uint8_t> packet;  ///< at the sender: the lost packet as first sent (its headers say what it was)
    /// At the sender: packets to the destination declared lost since one was
    /// last acknowledged, this one included.
    unsigned lost_in_a_row = 0;
    /// At the sender: lost_in_a_row reached reliable.max_losses_in_a_row —
    /// nothing gets through to the destination: the job cannot go on.
    bool no_progress = false;
};

class ReliableEndpoint : public sc_core::sc_module {
  public:
    using Target = isvp::BlockingTargetSocket<ReliableEndpoint>;
    using Initiator = tlm_utils::simple_initiator_socket<ReliableEndpoint>;

    Target from_node;               ///< packets the node sends
    Initiator from_node_credit;     ///< credits back to the node's output
    Initiator to_network;           ///< packets to the router's inject port
    Target to_network_credit;       ///< credits from it
    Target from_network;            ///< packets from the router's eject port
    Initiator from_network_credit;  ///< credits to it
    Initiator to_node;              ///< in-order packets to the node
    Target to_node_credit;          ///< credits from the node's input

    /// `node`, `nodes`: this node's address and the network's size; `cycle`,
    /// `phits_per_cycle`: the output's serialisation rate (the router port's).
    ReliableEndpoint(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes, const ReliableConfig& config,
                     sc_core::sc_time cycle, unsigned phits_per_cycle);

    const ReliableStatistics& statistics() const { return statistics_; }
    /// Called for every loss this endpoint finds (the platform names the link).
    void set_loss_observer(std::function<void(const PacketLoss&)> observer) { observer_ = std::move(observer); }
    /// The packet to `destination` with `sequence` while it is held for
    /// retransmission (empty when acknowledged or never sent): what a loss
    /// the receiver found was (the platform asks the sender's endpoint).
    std::vector<std::uint8_t> held_packet(std::uint16_t destination, std::uint32_t sequence) const;

  private:
    /// A packet sent and not yet acknowledged.
    struct Held {
        std::uint32_t sequence = 0;
        std::vector<std::uint8_t> bytes;  ///< the packet as first sent
        std::uint64_t trace_id = 0;
        sc_core::sc_time injected;  ///< when the node first injected it (latency statistics)
    };
    /// Per remote node: the sender's and the receiver's state.
    struct Peer {
        std::uint32_t next_sequence = 0;  ///< sender: next number to give out
        std::deque<Held> unacked;         ///< sender: sent, not acknowledged, by sequence
        unsigned retries = 0;             ///< sender: retransmissions of unacked.front()
        sc_core::sc_time deadline;        ///< sender: when unacked.front() times out
        sc_core::sc_time went_back_at{sc_core::sc_max_time()};  ///< sender: when it last sent everything again
        std::uint32_t expected = 0;       ///< receiver: next sequence to deliver
        /// The cumulative ack this node owes the peer as run() sees it:
        /// `expected` a delta cycle after each packet (Feedback::AckOwed).
        std::uint32_t ack_value = 0;
        bool ack_due = false;             ///< receiver: an ack is owed
        sc_core::sc_time ack_at;          ///< receiver: when it goes at the latest
        bool nak_sent = false;            ///< receiver: a nak for `expected` went out
        /// receiver: highest sequence dropped beyond the gap since that nak; a
        /// lower one means the sender went back and the gap is still open.
        std::uint32_t beyond_gap = 0;
        /// sender: packets to the node declared lost since one was last
        /// acknowledged (reliable.max_losses_in_a_row: the path makes no progress)
        unsigned lost_in_a_row = 0;
    };
    /// A packet waiting for the output.
    struct Outgoing {
        tlm::tlm_generic_payload* packet = nullptr;  ///< acquired
        std::uint32_t phits = 0;
        std::uint16_t destination = 0;
        bool fresh = false;  ///< from the node (needs a sequence and retransmit-buffer room; credits go back)
        sc_core::sc_time ready;          ///< its head is here (fresh)
        std::uint64_t visible_from = 0;  ///< the delta count from which run() may send it (fresh)
    };
    /// What a packet or credit from the router tells run(), which acts on it
    /// from the next delta cycle on (see run()).
    struct Feedback {
        enum class Kind : std::uint8_t {
            Credit,   ///< `value` inject credits (VC 0), usable now
            Ack,      ///< the peer acknowledged everything below `value`
            Nak,      ///< the peer asks for `value` again (after acking below it); `at`: when it came
            AckOwed,  ///< a packet from the peer arrived: ack `value` by `at`
            NakOwed,  ///< a packet from the peer came beyond a gap at `value`: nak it now
        } kind;
        std::uint16_t peer = 0;
        std::uint32_t value = 0;
        sc_core::sc_time at;
        std::uint64_t visible_from = 0;
    };

    void grant_initial_credits();
    void on_from_node(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_network_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_from_network(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_node_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    /// The endpoint's one process (SC_METHOD on wake_ and timer_): what the
    /// router told it in earlier delta cycles, then the timers, then the
    /// output.
    void run();
    void apply(const Feedback& feedback);
    /// Sends what may go now.
    void drain(sc_core::sc_time now, std::uint64_t delta);
    /// Retransmission timers and ack deadlines that are due.
    void on_timer(sc_core::sc_time now);
    void arm_timer(sc_core::sc_time at);
    void acknowledged(std::uint16_t peer, std::uint32_t cumulative);
    void go_back(std::uint16_t peer);
    void give_up_oldest(std::uint16_t peer);
    /// An ack or nak to `peer` for `sequence`.
    void queue_control(std::uint16_t peer, PacketInfo::Reliable kind, std::uint32_t sequence);
    /// A fresh packet holding a retransmission of `held`.
    tlm::tlm_generic_payload* copy_of(const Held& held);
    sc_core::sc_time timeout_of(unsigned retries) const;

    std::uint16_t node_;            ///< this node's address
    NetworkFraming framing_;        ///< headers of its acks and naks (no payload: the 16-byte size code)
    ReliableConfig config_;         ///< parameters
    sc_core::sc_time cycle_;        ///< output clock period
    unsigned phits_per_cycle_;      ///< output width
    sc_core::sc_time timeout_;      ///< reliable.timeout_ns
    sc_core::sc_time ack_delay_;    ///< reliable.ack_delay_ns
    std::vector<Peer> peers_;       ///< by node address
    std::deque<Outgoing> control_;  ///< acks and naks: go first
    std::deque<Outgoing> resend_;   ///< retransmissions: before new packets
    std::deque<Outgoing> fresh_;    ///< packets from the node, in order
    std::deque<Feedback> inbox_;    ///< from the router's side, in arrival order, for run()
    std::int64_t credits_ = 0;      ///< router inject credits (VC 0) usable now
    std::priority_queue<std::pair<sc_core::sc_time, std::uint32_t>,
                        std::vector<std::pair<sc_core::sc_time, std::uint32_t>>, std::greater<>>
        arriving_;                                       ///< credits in flight
    sc_core::sc_time free_at_;                           ///< output serialiser free
    std::uint64_t held_bytes_ = 0;                       ///< bytes in the retransmit buffer
    sc_core::sc_event wake_;                             ///< re-run run()
    sc_core::sc_event timer_;                            ///< re-run run() for the timers
    sc_core::sc_time timer_at_ = sc_core::SC_ZERO_TIME;  ///< when timer_ fires (if timer_armed_)
    bool timer_armed_ = false;
    PacketPool pool_;                                  ///< acks, naks and retransmitted copies
    CreditMessage node_credit_;                        ///< credits to the node's output
    CreditMessage network_credit_;                     ///< credits to the router's eject port
    std::uint64_t next_trace_id_ = 0;                  ///< for the layer's own packets
    ReliableStatistics statistics_;                    ///< counters
    std::function<void(const PacketLoss&)> observer_;  ///< told of every loss
};

}  // namespace isvp
