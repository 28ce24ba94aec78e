// SwitchCollectiveEngine: the collective engine of a fat-tree (or
// topology-file) switch, at an extra port of its router
// (collective.placement = switch; docs/COLLECTIVES.md, "Switch-resident
// engines"). It is a vertex of the communicators' aggregation trees:
//
//   Router.out(engine port) --> net_in      net_out --> Router.in(engine port)
//   Router.credit_in <-- net_in_credit      net_out_credit <-- Router.credit_out
//
// Its network address is hosts + switch index. What it learns by packets:
// members' tree joins (at the planner, one engine of the network), which it
// answers by planning the group's tree (plan_aggregation_tree over the
// network it is built into) and sending every vertex and every member its
// configuration; a vertex stores its row per (context, slot): inputs in
// combining order, parent. Then per collective — started by the first data
// packet of the next sequence — it runs the vertex's tree schedule
// (make_tree_schedule) with the same DataPhase, receive windows, credits,
// CGR units and AgLUs (TLM or RTL) as the NIC engines: inputs combined in
// the fixed order whatever order they arrive in, the result sent up, the
// root's result sent down, streamed chunk by chunk.
//
// The argument agreement runs through the same tree: members send their
// records (step kAgreeStep, the tree's slot after the record) to their
// vertex; a vertex combines its inputs' records (the first input's fields,
// every input's mismatch bits and the fields that differ from the first),
// sends the result up, and sends the root's result down to every input; a
// non-zero mask ends the collective here too (its packets discarded, their
// credits returned).
//
// Aborts: a member's abort notice (its row released while the collective
// ran, step kAbortStep with the tree's slot in bits [31:24]) ends the
// collective at the vertex — its state, CGR unit and held packets freed,
// later packets of it discarded with their credits returned — and goes on
// to every other neighbour in the tree, so it reaches every member; each
// participant passes it on once.
//
// Link faults (reliable delivery, aurora.bit_error_rate > 0): a packet
// lost for good between this engine and a neighbour ends the collective it
// belonged to with error 6 round the tree (link_fault()).
//
// Abstraction: packet-level, approximately timed, as CollectiveEngine.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aglu_engine.h"
#include "isvp/cgr_pool.h"
#include "isvp/chunk_combiner.h"
#include "isvp/collective_core.h"
#include "isvp/collective_engine.h"
#include "isvp/credited_port.h"
#include "isvp/data_phase.h"
#include "isvp/network_topology.h"
#include "isvp/packet_channel.h"
#include "isvp/sharp_resources.h"
#include "isvp/target_socket.h"

namespace isvp {

/// Counters of a switch-resident engine.
struct SwitchEngineStatistics {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("collectives", self.collectives);
        field("joins", self.joins);
        field("trees_planned", self.trees_planned);
        field("configurations", self.configurations);
        field("configurations_relayed", self.configurations_relayed);
        field("dropped", self.dropped);
        field("step_packets_sent", self.step_packets_sent);
        field("credit_packets", self.credit_packets);
        field("aglu_cycles", self.aglu_cycles);
        field("bytes_copied", self.bytes_copied);
        field("bytes_combined", self.bytes_combined);
        field("bytes_skipped", self.bytes_skipped);
        field("cgr_waits", self.cgr_waits);
        field("peak_held_packets", self.peak_held_packets);
        field("agreement_packets", self.agreement_packets);
        field("disagreements", self.disagreements);
        field("stale", self.stale);
        field("sharp_operations", self.sharp_operations);
        field("sharp_peak_buffers", self.sharp_peak_buffers);
        field("sharp_groups_admitted", self.sharp_groups_admitted);
        field("sharp_groups_fallback", self.sharp_groups_fallback);
        field("sharp_faults", self.sharp_faults);
        field("sharp_timeouts", self.sharp_timeouts);
        field("sharp_error_notices", self.sharp_error_notices);
        field("sharp_absorbed", self.sharp_absorbed);
        field("sharp_groups_queued", self.sharp_groups_queued);
        field("sharp_groups_released", self.sharp_groups_released);
        field("abort_notices", self.abort_notices);
        field("groups_admitted", self.groups_admitted);
        field("groups_fallback", self.groups_fallback);
        field("groups_released", self.groups_released);
        field("leaves_overtaken", self.leaves_overtaken);
        field("link_faults", self.link_faults);
        field("setup_resent", self.setup_resent);
        field("setup_duplicates", self.setup_duplicates);
        field("held_for_configuration", self.held_for_configuration);
        field("older_generation", self.older_generation);
        field("late_leaves_forgotten", self.late_leaves_forgotten);
    }
    std::uint64_t collectives = 0;             ///< collectives this vertex took part in
    std::uint64_t joins = 0;                   ///< tree joins received (planner)
    std::uint64_t trees_planned = 0;           ///< groups whose tree this planner computed
    std::uint64_t configurations = 0;          ///< vertex configurations stored here
    std::uint64_t configurations_relayed = 0;  ///< configurations forwarded for the planner
    std::uint64_t dropped = 0;                 ///< packets refused (malformed, beyond the windows, disagreeing)
    std::uint64_t step_packets_sent = 0;       ///< data packets to children and parent
    std::uint64_t credit_packets = 0;          ///< window credits returned
    std::uint64_t aglu_cycles = 0;             ///< AgLU vectors issued
    std::uint64_t bytes_copied = 0;            ///< received bytes copied (first input, way down)
    std::uint64_t bytes_combined = 0;          ///< received bytes combined by the AgLUs
    std::uint64_t bytes_skipped = 0;           ///< job.timing_only: neither copied nor combined
    std::uint64_t cgr_waits = 0;               ///< a tree had a chunk to combine and no free CGR unit
    std::size_t peak_held_packets = 0;         ///< most data packets held at once
    std::uint64_t agreement_packets = 0;       ///< argument-agreement records sent
    std::uint64_t disagreements = 0;           ///< collectives a non-zero agreement mask ended here (root vertex)
    std::uint64_t stale = 0;                   ///< data packets of collectives the agreement ended, discarded
    // collective.mode = sharp (docs/COLLECTIVES.md, "SHArP mode"):
    std::uint64_t sharp_operations = 0;       ///< operations whose state this AN held (a buffer each)
    std::uint64_t sharp_peak_buffers = 0;     ///< most operation buffers in use at once here
    std::uint64_t sharp_groups_admitted = 0;  ///< planner: groups given a tree (resources on every AN)
    std::uint64_t sharp_groups_fallback = 0;  ///< planner: groups given none (they run without SHArP)
    std::uint64_t sharp_faults = 0;           ///< this AN failed (collective.sharp_fault_switch)
    std::uint64_t sharp_timeouts = 0;         ///< operations this AN ended after collective.sharp_timeout_us
    std::uint64_t sharp_error_notices = 0;    ///< error-7 notices sent to the trees' members and vertices
    std::uint64_t sharp_absorbed = 0;         ///< packets that reached this AN after it failed
    std::uint64_t sharp_groups_queued = 0;    ///< planner: groups that waited for resources (sharp_queue_us)
    std::uint64_t sharp_groups_released = 0;  ///< planner: groups whose resources every member's leave gave back
    std::uint64_t abort_notices = 0;          ///< abort notices passed on round the trees (a member's, an AN's)
    // mode = offload (SHArP mode counts these as sharp_groups_*):
    std::uint64_t groups_admitted = 0;  ///< planner: groups given rows on every engine of their tree
    std::uint64_t groups_fallback = 0;  ///< planner: groups given none (collective.switch_max_trees): NIC engines
    std::uint64_t groups_released = 0;  ///< planner: groups whose rows every member's tree leave gave back
    /// planner, both modes: members' leaves a new communicator's join under
    /// the same key overtook (the group was given back at that join)
    std::uint64_t leaves_overtaken = 0;
    // Reliable delivery (aurora.bit_error_rate > 0): packets of this engine lost for good.
    std::uint64_t link_faults = 0;   ///< losses that ended a tree's collective here (error 6 round the tree)
    std::uint64_t setup_resent = 0;  ///< lost tree joins/configurations this engine sent again
    /// planner: joins and leaves that came twice (their NIC sent them again
    /// after the reliable layer gave them up, though they had arrived), ignored
    std::uint64_t setup_duplicates = 0;
    /// data packets and agreement records of a tree's next generation (a new
    /// communicator on its context and slot) held until its configuration came
    std::uint64_t held_for_configuration = 0;
    /// data packets and agreement records of an older generation than the
    /// tree's configuration (a freed communicator's), discarded
    std::uint64_t older_generation = 0;
    /// planner: overtaken leaves that had not come by their member's next
    /// join under the key (lost: a resent one is known by its join number), forgotten
    std::uint64_t late_leaves_forgotten = 0;
};

class SwitchCollectiveEngine : public sc_core::sc_module {
  public:
    using Target = isvp::BlockingTargetSocket<SwitchCollectiveEngine>;
    using Initiator = tlm_utils::simple_initiator_socket<SwitchCollectiveEngine>;

    Target net_in;            ///< packets from the router's engine port
    Initiator net_in_credit;  ///< credits back to it
    Initiator net_out;        ///< packets into the router's engine port
    Target net_out_credit;    ///< credits from it

    /// `topology`: the network without engines (hosts 0..N-1), whose switch
    /// `switch_index` this engine serves at address N + switch_index;
    /// `planner`: this engine plans the trees (answers tree joins). Its CGR
    /// has `radix` vectorised AgLUs (R x 4 64-bit) and
    /// collective.switch_cgr_units units.
    SwitchCollectiveEngine(sc_core::sc_module_name name, std::shared_ptr<const NetworkTopology> topology,
                           unsigned switch_index, bool planner, const AgluConfig& aglu, const CollectiveConfig& config);
    ~SwitchCollectiveEngine() override;

    std::uint16_t address() const { return address_; }
    /// The reliable layer gave up packets between this engine and `peer`
    /// (`source` -> `destination`; `lost`: the packet, when its sender still
    /// had it; `link`: the cable, as the NICs are told). The tree collective
    /// it belonged to (or, unknown, every running one exchanging with
    /// `peer`) ends here with error 6 and a cause-6 notice goes round its
    /// tree to every member; a lost tree configuration this engine sent goes
    /// again (docs/COLLECTIVES.md, "Link faults through the switch engines").
    void link_fault(std::uint16_t peer, std::uint16_t source, std::uint16_t destination,
                    const std::vector<std::uint8_t>& lost, const FaultedLink& link);
    const SwitchEngineStatistics& statistics() const { return statistics_; }

  private:
    /// The collective a tree runs now.
    struct Run : DataPhase {
        bool running = false;
        NetworkHeader header;  ///< opcode, operation, datatype, algorithm (from its first packet)
        AgluLanes aglus;
        std::deque<std::pair<sc_core::sc_time, std::size_t>> combining;  ///< (final at, step)
    };
    /// The argument agreement of one collective at a vertex.
    struct Agreement {
        std::vector<std::optional<CollectiveArguments>> inputs;  ///< per input, its record
        bool sent_up = false;                                    ///< the combined record went to the parent
    };
    /// One tree this switch is a vertex of: (context, slot).
    struct Tree {
        std::uint8_t context = 0, slot = 0;
        unsigned owner = 0;           ///< CGR pool owner index
        bool configured = false;      ///< its configuration came
        std::uint8_t generation = 0;  ///< its configuration's (TreeConfig::generation)
        TreeRole role;
        ChannelStore held;                       ///< data packets per sender, arrival order
        std::optional<std::uint16_t> last_done;  ///< sequence of the last collective finished
        Run run;
        std::map<std::uint32_t, Agreement> agreements;  ///< per sequence, records still to combine
        std::deque<std::uint16_t> failed;               ///< recent sequences the agreement ended (15 bits)
        // collective.mode = sharp:
        bool sharp_failed = false;              ///< an AN of the tree failed: its packets are discarded
        std::optional<std::uint16_t> notified;  ///< newest sequence whose abort or error notice went round
        sc_core::sc_time last_packet;           ///< a data packet of the running operation last came
        /// Agreement records and data packets of another generation than the
        /// configuration's (held packets): the next configuration takes in
        /// its own generation's and discards the others.
        std::deque<std::pair<NetworkPacketView, tlm::tlm_generic_payload*>> early_records, early_data;
    };
    /// A group the planner collects joins for.
    struct Group {
        std::uint16_t size = 0;
        std::map<std::uint16_t, std::uint16_t> hosts;        ///< comm rank -> host address
        std::map<std::uint16_t, std::uint8_t> join_numbers;  ///< comm rank -> its join's number (kTreeJoinNumbers)
        std::uint8_t slot = 0;                               ///< its tree's number on the context
        bool has_slot = false;
        // collective.mode = sharp:
        std::set<std::uint16_t> left;  ///< comm ranks whose communicator was freed (tree leaves, both modes)
    };
    struct Incoming {
        sc_core::sc_time at;
        std::uint64_t order;
        tlm::tlm_generic_payload* packet = nullptr;
        NetworkPacketView view;
        bool operator>(const Incoming& o) const { return at != o.at ? at > o.at : order > o.order; }
    };

    void grant_initial_credits();
    void on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { port_.receive_credit(p, d); }
    /// The engine's one process: all its work due now, in a fixed order.
    void run();
    void on_incoming();
    void on_combined();
    void on_cgr_free();
    void flush_credits();
    void packet(const NetworkPacketView& view, tlm::tlm_generic_payload& payload);
    /// A data packet of the tree's configured generation, taken in.
    void data_packet(Tree& t, const NetworkPacketView& view, tlm::tlm_generic_payload& payload);
    void join(const NetworkPacketView& view);
    /// Every member of group `key` joined: plans its tree, has the SHArP
    /// manager admit it (not when `admitted`: the manager's queue did) and
    /// configures every participant. False when the group got no tree (yet).
    bool form_group(std::uint8_t context, std::uint32_t key, bool admitted);
    void configure(const NetworkPacketView& view);
    /// Applies a vertex configuration (from a packet, or the planner's own).
    void store_configuration(std::uint8_t context, const TreeConfig& config);
    Tree& tree(std::uint8_t context, std::uint8_t slot);
    void progress(Tree& t);
    void end_run(Tree& t);
    bool start(Tree& t);
    void send_chunk(Tree& t, std::size_t k);
    void take_chunk(Tree& t, std::size_t k, HeldPacket& p);
    void finish(Tree& t);
    /// An agreement record; `payload` (null when replayed) is held while
    /// the record waits for its tree's configuration.
    void agreement_record(const NetworkPacketView& view, tlm::tlm_generic_payload* payload);
    void send_record(Tree& t, std::uint16_t to, const CollectiveArguments& record);
    /// The generation an agreement record to an engine carries (bits [15:8] of its slot word).
    static std::uint8_t record_generation(const NetworkPacketView& view) {
        return static_cast<std::uint8_t>(load_le32(view.payload + CollectiveArguments::kBytes) >> 8);
    }
    /// The agreement ended collective `sequence` with a non-zero mask.
    void fail(Tree& t, std::uint16_t sequence);
    bool failed(const Tree& t, std::uint16_t sequence) const;
    /// Discards held packets of failed collectives (credits returned).
    void discard_failed(Tree& t);
    void owe_credit(Tree& t, std::uint16_t sender);
    void send_credits(Tree& t, std::uint16_t sender, std::uint32_t count);
    /// Sends a tree configuration (step 0xFB) for `context` to `destination`
    /// (config.target, or the leaf that relays it).
    void send_configuration(std::uint8_t context, std::uint16_t destination, const TreeConfig& config);
    /// A control packet (credits, configuration, abort notice) of `bytes`
    /// payload on `context` from this engine: Barrier class, `step`,
    /// carried rank = this engine's address.
    PacketFrame control_frame(std::uint8_t context, std::uint16_t destination, std::uint8_t step,
                              std::uint32_t bytes) const;
    /// Frames one packet of frame.payload_bytes and queues it with `data`.
    void emit(const PacketFrame& frame, const std::uint8_t* data, bool urgent);
    /// Allocates one packet framed by `framing_` and queues it on its VC;
    /// returns where its payload goes (to be filled before the next event).
    std::uint8_t* emit_packet(const PacketFrame& frame, bool urgent);
    void drop(const std::string& why);
    /// "node 5", "switch 9 (spine0)": a packet's sender or receiver in messages.
    std::string label(std::uint16_t address) const { return topology_->endpoint_label(address); }
    /// An abort or error notice (step kAbortStep) for one of this switch's trees.
    void abort_notice(const NetworkPacketView& view);
    /// Ends the tree's collective `sequence` here (and the tree, for an AN
    /// fault): `notice` (its first word's bits [31:24] the tree's slot) to
    /// every neighbour but `from`, the collective's state and held packets
    /// freed, its later packets discarded.
    void end_operation(Tree& t, std::uint16_t sequence, const std::uint8_t* notice, std::uint32_t bytes, int from);
    // collective.mode = sharp (switch_engine_sharp.cpp)
    /// Planner: reserves the group's resources on its tree's ANs; false when
    /// the manager cannot: the group waits in the manager's queue
    /// (sharp_queue_us) or every member is told to fall back.
    bool sharp_admit(std::uint8_t context, std::uint32_t group, const std::vector<unsigned>& members,
                     const std::vector<unsigned>& vertices);
    /// Planner: a member's communicator was freed; the last one gives the
    /// group's resources back (its rows on every engine, its slot; SHArP:
    /// also its buffers) and serves the waiting groups.
    void leave(const NetworkPacketView& view);
    /// Planner: a new communicator's join under `key` found the group `g`
    /// complete with leaves still to come: the group is given back now (its
    /// resources, groups_released) and its missing leaves are noted as late.
    void replace_group(std::uint32_t key, Group& g);
    /// Planner: the waiting groups that fit now get their trees, in the order they came.
    void sharp_serve_queue();
    /// Planner: the queue's wake-up at its earliest deadline.
    void sharp_arm_queue();
    /// Planner: tells every member of group `key` to run without SHArP.
    void sharp_fall_back(std::uint8_t context, std::uint32_t key, const std::string& why);
    /// Planner: waiting groups whose sharp_queue_us ran out fall back.
    void on_sharp_queue();
    /// A packet for a switch engine in SHArP mode: true when consumed here
    /// (the AN failed, an error notice, a failed tree's late packet).
    bool sharp_packet(const NetworkPacketView& view);
    void sharp_data_arrived(Tree& t);
    /// Ends the tree's operation `sequence` (and the tree, for a fault):
    /// notices to every neighbour but `from`, state and held packets freed.
    void sharp_end_operation(Tree& t, std::uint16_t sequence, std::uint32_t detail);
    void sharp_discard_stale(Tree& t);
    void on_sharp_fault();
    void on_sharp_timeout();
    static std::uint16_t tree_key(std::uint8_t context, std::uint8_t slot) {
        return static_cast<std::uint16_t>(context << 8 | slot);
    }
    static std::uint64_t peer_key(const Tree& t, std::uint16_t peer) {
        return static_cast<std::uint64_t>(tree_key(t.context, t.slot)) << 16 | peer;
    }

    std::shared_ptr<const NetworkTopology> topology_;     ///< the network without engines (the planner's map)
    unsigned switch_index_;                               ///< the switch it sits in
    std::uint16_t address_;                               ///< hosts + switch_index
    bool planner_;                                        ///< answers tree joins
    CollectiveConfig config_;                             ///< collective.* (windows, chunks, clock)
    unsigned aglus_per_cgr_;                              ///< radix vectorised AgLUs
    std::unique_ptr<AgluEngine> aglu_;                    ///< TLM or RTL AgLU
    CgrPool cgr_;                                         ///< collective.switch_cgr_units units
    sc_core::sc_time cycle_;                              ///< one engine clock cycle
    sc_core::sc_time credit_delay_;                       ///< collective.credit_delay_ns
    NetworkFraming framing_;                              ///< headers and VC of its packets (at address_)
    std::uint32_t credit_batch_ = 1;                      ///< credits returned at once
    PacketPool pool_;                                     ///< generated packets
    CreditMessage credit_message_;                        ///< credit returns to the router
    EarliestWake wake_;  ///< run(): the output's, the tails' and the AgLUs' timed wake-up
    CreditedOutPort port_;                                ///< into the router
    std::map<std::uint16_t, Tree> trees_;                 ///< per tree_key, in key order
    std::map<std::uint32_t, Group> groups_;               ///< planner: per (context << 16 | global rank 0)
    std::map<std::uint16_t, std::uint8_t> generations_;   ///< planner: per tree_key, its last group's generation
    std::map<std::uint64_t, std::int32_t> send_credits_;  ///< (tree, peer): data packets we may still send
    std::map<std::uint64_t, std::uint32_t> owed_;         ///< (tree, sender): credits to return
    bool flush_pending_ = false;
    sc_core::sc_time flush_at_;  ///< when the pending credit flush is due
    std::priority_queue<Incoming, std::vector<Incoming>, std::greater<Incoming>> incoming_;
    std::uint64_t incoming_order_ = 0;
    ChunkCombiner combiner_;      ///< a received chunk on the CGR's AgLUs (operands reused)
    std::size_t held_total_ = 0;  ///< data packets held (all trees)
    sc_core::sc_event cgr_free_event_;
    sc_core::sc_event_queue flush_event_;
    SwitchEngineStatistics statistics_;
    // planner: per group key, the (size, comm rank, host, join number) of the members of
    // communicators a new one under the key replaced whose leave has not come;
    // each forgotten at its member's next join under the key (at most one per member)
    std::map<std::uint32_t, std::set<std::tuple<std::uint16_t, std::uint16_t, std::uint16_t, std::uint8_t>>>
        late_leaves_;
    // collective.mode = sharp:
    std::unique_ptr<SharpResources> sharp_books_;  ///< planner: the aggregation manager's books
    OperationSlots sharp_slots_{0};                ///< this AN's operation buffers
    bool sharp_failed_ = false;                    ///< this AN failed (sharp_fault_switch)
    sc_core::sc_time sharp_timeout_;               ///< collective.sharp_timeout_us (0: none)
    sc_core::sc_time sharp_queue_wait_;            ///< collective.sharp_queue_us
    sc_core::sc_event sharp_fault_event_, sharp_timeout_event_, sharp_queue_event_;
};

}  // namespace isvp
