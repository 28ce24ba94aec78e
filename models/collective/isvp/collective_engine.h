// CollectiveEngine: the in-switch collective engine (CCM + CT + CGR) at the
// router's local port, between the QDMA and the router (docs/COLLECTIVES.md):
//
//   Qdma.tx --> host_in            net_out --> Router.inject
//   Qdma.tx_credit <-- host_in_credit   net_out_credit <-- Router.inject_credit
//   Qdma.rx <-- host_out           net_in  <-- Router.eject
//   Qdma.rx_credit --> host_out_credit  net_in_credit --> Router.eject_credit
//   BAR0 0x6000..0x7FFF --> csr
//
// Send packets pass through both ways (own buffers, credits forwarded when
// they leave). Collective requests from the host are checked against the
// communicator table and run as the Fold::Hypercube schedule, streamed
// packet by packet: a chunk of a step leaves as soon as the buffer bytes it
// carries are final (the host's contribution and earlier steps' chunks that
// write them), a received chunk is copied or combined with the AgLU in the
// schedule's operand order as soon as the bytes it combines with are final,
// and result chunks go to the host as soon as they are final and the
// members have agreed on the arguments. Peers' step packets land in receive
// windows every CT row reserves at LOAD (credits per (context, peer)), so
// net_in never back-pressures: no buffer deadlock.
//
// Abstraction: packet-level, approximately timed, event-driven. Packets are
// usable when their tail has arrived; a collective combines in one of the
// switch's collective.cgr_units CGR units, held while its chunks are in the
// AgLUs (more collectives wait, first come first served), each with
// collective.cgr_aglus vectorised AgLUs at collective.clock_mhz, shared by
// its steps (a chunk uses up to phits_per_cycle of them at once).
//
// Structure (models/collective/README.md): this module keeps the sockets,
// events and timing and delegates to SystemC-free pieces — CommunicatorTable
// (CT, forwarding table, CSRs), CgrPool/AgluLanes (CGR units), request
// validation (collective_request.h), DataPhase (the data phase's state
// machine) and ArgumentAgreement (Active derives from both),
// SequenceTracker (sequences and early abort notices) — and to
// CreditedOutPort for its three outputs.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <memory_resource>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aglu_engine.h"
#include "isvp/argument_agreement.h"
#include "isvp/cgr_pool.h"
#include "isvp/cgra.h"
#include "isvp/chunk_combiner.h"
#include "isvp/collective_core.h"
#include "isvp/communicator_table.h"
#include "isvp/credited_port.h"
#include "isvp/data_phase.h"
#include "isvp/network_topology.h"
#include "isvp/packet_channel.h"
#include "isvp/parameters.h"
#include "isvp/peer_table.h"
#include "isvp/ring_queue.h"
#include "isvp/sequence_tracker.h"
#include "isvp/target_socket.h"
#include "isvp/trace_writer.h"

namespace isvp {

/// Parameters of the collective engine (collective.*; models/collective/README.md).
struct CollectiveConfig {
    double clock_mhz = 250.0;                   ///< engine/AgLU clock, MHz
    std::uint32_t packet_payload_bytes = 1024;  ///< payload per generated packet (power of two, 16..16384)
    unsigned phits_per_cycle = 2;               ///< output serialisation width, phits per cycle
    std::uint32_t host_buffer_phits = 512;      ///< host_in buffer (credits granted to the QDMA)
    std::uint32_t net_buffer_phits = 512;       ///< net_in buffer (credits granted to the router)
    /// On-chip memory for receive windows: a CT row LOAD reserves
    /// (present peers + 1) x window_packets x packet_payload_bytes of it, or
    /// the row is refused (CT_VALID stays 0 and the guest runs software).
    std::uint64_t early_buffer_bytes = 8ull << 20;
    std::uint32_t window_packets = 32;        ///< step packets a sender may have unconsumed per (context, peer)
    std::uint32_t result_batch_packets = 32;  ///< final result chunks handed to the host DMA at once
    double credit_delay_ns = 500.0;           ///< longest a consumed packet's credit waits to be batched
    /// Vectorised (256-bit) AgLUs of the CGR unit a collective runs on; all
    /// of its steps share them, each chunk uses up to phits_per_cycle of them.
    unsigned cgr_aglus = 6;
    std::uint64_t max_buffer_bytes = 64ull << 20;  ///< largest collective buffer (all blocks)
    /// CGR units of the switch (SA, ACCEL_CAPABILITIES): at most this many
    /// collectives have chunks in their AgLUs at once; a further one waits
    /// for a unit, first come first served.
    unsigned cgr_units = 4;
    unsigned radix = 7;  ///< reported in ACCEL_CAPABILITIES
    /// collective.placement: "nic" (the NIC engines run every collective's
    /// hypercube schedule across the network) or "switch" (on fat trees and
    /// topology files, the switches' engines combine Allreduce, Reduce,
    /// Bcast and Barrier along the communicator's aggregation tree).
    std::string placement = "nic";
    /// CGR units of a switch-resident engine (0: DESIGN's reference, 8 for
    /// radix <= 16, else 4); its CGR has radix vectorised AgLUs (R x 4 64-bit).
    unsigned switch_cgr_units = 0;
    /// Trees (groups) one switch-resident engine holds rows for at once
    /// (placement = switch, mode = offload; SHArP mode has
    /// sharp_max_trees_per_an): a group that finds one of its tree's
    /// switches full runs on the NIC engines; a freed communicator's tree
    /// leaves give its rows back.
    unsigned switch_max_trees = 64;
    /// collective.mode: "offload" or "sharp" (fat trees and topology files:
    /// SHArP-style aggregation nodes; implies placement = switch; only
    /// Allreduce, Reduce and Barrier through the trees).
    std::string mode = "offload";
    unsigned sharp_max_trees_per_an = 64;  ///< trees (groups) an AN serves
    unsigned sharp_osts_per_tree = 1;      ///< OSTs a group reserves (a buffer per AN each)
    unsigned sharp_buffers_per_an = 64;    ///< operation buffers of an AN
    double sharp_timeout_us = 0.0;         ///< an operation idle this long at an AN fails (0: never)
    double sharp_queue_us = 100.0;         ///< a group the manager cannot serve waits this long, then falls back
    int sharp_fault_switch = -1;           ///< test: this switch's AN fails (-1: none)
    double sharp_fault_at_us = 0.0;        ///< test: when it fails
    bool sharp() const { return mode == "sharp"; }
    /// SmartFuse CGRA beside the engine (docs/FUSED.md): its array's size
    /// and cost. A program's result takes ceil(elements / lanes) vectors x
    /// cgra_cycles_per_vector + instructions x cgra_pe_latency_cycles cycles
    /// at clock_mhz between its last final chunk and its first chunk to the host.
    unsigned cgra_pes = 8;
    unsigned cgra_lanes = 8;
    unsigned cgra_cycles_per_vector = 1;
    unsigned cgra_pe_latency_cycles = 4;
    /// job.timing_only (set by the platform, not a collective.* parameter):
    /// received chunks are neither copied nor combined; the AgLU is charged
    /// its documented latency (pipeline_stages + vectors - 1) all the same.
    bool timing_only = false;
    /// network.flow_train_packets > 1 (set by the platform, not a
    /// collective.* parameter): the hardware packet payload of which
    /// packet_payload_bytes is a train; a collective's packets are trains as
    /// long as its blocks allow (CollectiveEngine::chunk_bytes_for). 0: none.
    std::uint32_t train_payload_bytes = 0;
    /// job.timing_only with network.model=flow and no reliable layer (set by
    /// the platform, not a collective.* parameter): step packets carry their
    /// headers only (PacketInfo::header_only). The flow network reads nothing
    /// behind the headers; the reliable layer keeps a copy of every packet,
    /// and the packet model's CRC-checking links and partition boundaries
    /// copy whole packets, so there they keep their bytes.
    bool header_only_step_packets = false;

    static void declare(Parameters& parameters);
    static CollectiveConfig from(const Parameters& parameters);
    void validate() const;
    /// Receive-window bytes a row with `present_entries` hypercube peers reserves.
    std::uint64_t row_reservation(unsigned present_entries) const {
        return static_cast<std::uint64_t>(present_entries + 1) * window_packets * packet_payload_bytes;
    }
};

/// Counters (also ACCEL_DROPPED / ACCEL_ERRORS).
struct CollectiveStatistics {
    /// Every field once, with its JSON key (isvp/statistics_table.h).
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("collectives", self.collectives);
        field("errors", self.errors);
        field("dropped", self.dropped);
        field("stale", self.stale);
        field("aborted", self.aborted);
        field("link_faults", self.link_faults);
        field("abort_packets", self.abort_packets);
        field("loads_refused_busy", self.loads_refused_busy);
        field("cgr_waits", self.cgr_waits);
        field("cgr_wait_ps", self.cgr_wait_ps);
        field("step_packets_sent", self.step_packets_sent);
        field("agreement_packets", self.agreement_packets);
        field("credit_packets", self.credit_packets);
        field("result_packets", self.result_packets);
        field("passed_to_network", self.passed_to_network);
        field("passed_to_host", self.passed_to_host);
        field("aglu_cycles", self.aglu_cycles);
        field("bytes_copied", self.bytes_copied);
        field("bytes_combined", self.bytes_combined);
        field("bytes_skipped", self.bytes_skipped);
        field("header_only_packets", self.header_only_packets);
        field("rows_refused", self.rows_refused);
        field("peak_held_packets", self.peak_held_packets);
        field("tree_collectives", self.tree_collectives);
        field("tree_not_offloaded", self.tree_not_offloaded);
        field("tree_joins", self.tree_joins);
        field("tree_setup_resent", self.tree_setup_resent);
        field("sharp_fallback_groups", self.sharp_fallback_groups);
        field("sharp_errors", self.sharp_errors);
        field("peak_buffer_bytes", self.peak_buffer_bytes);
        field("cgra_runs", self.cgra_runs);
        field("cgra_refused", self.cgra_refused);
        field("cgra_elements", self.cgra_elements);
        field("cgra_cycles", self.cgra_cycles);
    }

    std::uint64_t collectives = 0;         ///< completed without error
    std::uint64_t errors = 0;              ///< completed with an error result (ACCEL_ERRORS)
    std::uint64_t dropped = 0;             ///< collective packets dropped (ACCEL_DROPPED)
    std::uint64_t stale = 0;               ///< packets of a collective that ended with an error/abort discarded
    std::uint64_t aborted = 0;             ///< collectives that completed with error 5 (a row RELEASEd mid-run)
    std::uint64_t link_faults = 0;         ///< collectives that completed with error 6 (packets lost between members)
    std::uint64_t abort_packets = 0;       ///< abort notices sent to peers
    std::uint64_t loads_refused_busy = 0;  ///< CT LOADs refused: the row was busy
    std::uint64_t cgr_waits = 0;           ///< times a collective had a chunk to combine and no free CGR unit
    std::uint64_t cgr_wait_ps = 0;         ///< total time collectives waited for a CGR unit, ps
    std::uint64_t step_packets_sent = 0;   ///< data packets to peers
    std::uint64_t agreement_packets = 0;   ///< argument-agreement packets to peers
    std::uint64_t credit_packets = 0;      ///< window-credit returns to peers
    std::uint64_t result_packets = 0;      ///< to the host
    std::uint64_t passed_to_network = 0;   ///< Send packets host -> network
    std::uint64_t passed_to_host = 0;      ///< Send packets network -> host
    std::uint64_t aglu_cycles = 0;         ///< AgLU busy cycles charged
    std::uint64_t bytes_copied = 0;        ///< received step bytes copied into the collective buffer
    std::uint64_t bytes_combined = 0;      ///< received step bytes combined by the AgLU (arithmetic done)
    std::uint64_t bytes_skipped = 0;       ///< received step bytes neither copied nor combined (timing_only)
    std::uint64_t header_only_packets = 0;  ///< step and result packets sent without their payload (timing_only)
    std::uint64_t rows_refused = 0;        ///< CT LOADs refused: receive windows did not fit
    std::size_t peak_held_packets = 0;     ///< most step packets held at once (all contexts)
    /// collective.placement = switch: collectives this NIC ran through the
    /// switches' tree; those the tree does not run (Scatter, Gather,
    /// Allgather, Reduce_scatter), run on the NIC engines' schedules instead;
    /// tree joins sent (one per communicator, at its first tree collective).
    std::uint64_t tree_collectives = 0;
    std::uint64_t tree_not_offloaded = 0;
    std::uint64_t tree_joins = 0;
    std::uint64_t tree_setup_resent = 0;      ///< tree joins/leaves sent again: the reliable layer gave them up
    std::uint64_t sharp_fallback_groups = 0;  ///< communicators the planner gave no tree: NIC engines
    std::uint64_t sharp_errors = 0;           ///< mode = sharp: collectives that completed with error 7
    /// Most bytes held at once in collective buffers and queued requests
    /// (all contexts); 0 with timing_only, where no payload is kept.
    std::uint64_t peak_buffer_bytes = 0;
    /// SmartFuse CGRA beside the engine (docs/FUSED.md): programs run on an
    /// armed collective's result or as an ingress kernel (CGRA_RUNS), LOADs
    /// and ARMs refused (CGRA_REFUSED), the elements they produced (result
    /// elements; a kernel's output) and the engine cycles they took.
    std::uint64_t cgra_runs = 0;
    std::uint64_t cgra_refused = 0;
    std::uint64_t cgra_elements = 0;
    std::uint64_t cgra_cycles = 0;
};

class CollectiveEngine : public sc_core::sc_module, private WakeupScheduler::Client {
  public:
    using Target = isvp::BlockingTargetSocket<CollectiveEngine>;
    using Initiator = tlm_utils::simple_initiator_socket<CollectiveEngine>;

    Target host_in;            ///< packets from the QDMA (tx)
    Initiator host_in_credit;  ///< credits to the QDMA (tx_credit)
    Initiator host_out;        ///< packets to the QDMA (rx)
    Target host_out_credit;    ///< credits from the QDMA (rx_credit)
    Initiator net_out;         ///< packets to the router's inject port
    Target net_out_credit;     ///< credits from it
    Target net_in;             ///< packets from the router's eject port
    Initiator net_in_credit;   ///< credits to it
    Target csr;                ///< BAR0 offsets 0x6000..0x6FFF, 4-byte aligned accesses
    /// The node's on-FPGA kernel unit (models/kernel), optional: stream
    /// packets (opcode stream, SMI) from the network go out on kernel_out,
    /// the unit's packets come in on kernel_in and join the host's Send
    /// packets toward the router. Unbound (testbenches without kernels),
    /// stream packets from the network are dropped.
    using OptionalTarget = isvp::OptionalBlockingTargetSocket<CollectiveEngine>;
    using OptionalInitiator = tlm_utils::simple_initiator_socket_optional<CollectiveEngine>;
    OptionalTarget kernel_in;            ///< packets from the kernel unit
    OptionalInitiator kernel_in_credit;  ///< credits to it (collective.host_buffer_phits granted at time 0)
    OptionalInitiator kernel_out;        ///< packets to the kernel unit
    OptionalTarget kernel_out_credit;    ///< credits from it

    /// `node`: this switch's node address; `nodes`: nodes in the network.
    /// Throws ConfigError for a bad config.
    CollectiveEngine(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes, const AgluConfig& aglu,
                     const CollectiveConfig& config);
    ~CollectiveEngine() override;

    const CollectiveStatistics& statistics() const { return statistics_; }
    /// The reliable-delivery layer gave up packets between this node and
    /// node `peer` (from node `source` to node `destination`): the
    /// collectives they belonged to end with error 6 (link fault) here and,
    /// through abort notices, at their other members. `lost`: the first lost
    /// packet's bytes when the sender still had them (then only its
    /// collective is aborted, or none for a point-to-point packet), else
    /// empty (every running collective that exchanges with `peer` is).
    /// `link`: the cable and the count, carried to the members' error results.
    void link_fault(std::uint16_t peer, std::uint16_t source, std::uint16_t destination,
                    const std::vector<std::uint8_t>& lost, const FaultedLink& link = {});
    /// collective.placement = switch on an indirect network: Allreduce,
    /// Reduce, Bcast and Barrier run through the switches' engines. At a
    /// communicator's first such collective this NIC sends a tree join to
    /// the engine at `planner` and holds the request until the tree
    /// configuration comes back (docs/COLLECTIVES.md, "Switch-resident
    /// engines"). `hosts`: addresses below it are hosts, the switch engines
    /// are above; `network`: the network without engines, which names the
    /// engines' switches in messages.
    void enable_switch_tree(std::uint16_t planner, unsigned hosts, std::shared_ptr<const NetworkTopology> network);
    /// Records every collective call and its phases as trace events of
    /// process `pid` (the switch's, as Router::set_trace): per CT row a lane
    /// (tid kTraceLaneBase + row x kTraceLanesPerRow) with the call and,
    /// nested in it, the argument agreement and the result to the host; the
    /// schedule's steps on lanes of their own right under it (tid + step),
    /// because streamed steps overlap in time and a lane's slices must nest.
    /// Null: off (one pointer test per chunk).
    void set_trace(TraceWriter* writer, std::uint32_t pid);
    /// Timed wake-ups through `scheduler` (the fabric's, shared with the
    /// routers) instead of an event of its own in the kernel's timed queue;
    /// same times, same delta cycles (EarliestWake). Before simulation starts.
    void use_scheduler(WakeupScheduler& scheduler) { wake_.use_scheduler(scheduler, *this); }
    static constexpr std::uint32_t kTraceLaneBase = 64;      ///< above every router port's tid
    static constexpr std::uint32_t kTraceLanesPerRow = 256;  ///< the call lane + one per step (<= 252)
    std::size_t live_packets() const { return pool_.live(); }
    /// Bytes of packet storage its pool holds (every slot's buffer): what a
    /// timing-only run's header-only packets keep small.
    std::size_t packet_pool_bytes() const { return pool_.stored_bytes(); }

  private:
    static constexpr std::uint64_t kNever = ~std::uint64_t{0};  ///< trace: no time (yet)
    /// Upstream input to credit when a passed-through packet leaves
    /// (CreditedOutPort::Outgoing::credit_to; None: generated here).
    enum class CreditTo : std::uint8_t { None, HostIn, NetIn, KernelIn };
    /// A collective packet waiting for its tail to arrive.
    struct Incoming {
        sc_core::sc_time at;                         ///< tail arrival
        std::uint64_t order;                         ///< arrival order (ties)
        bool from_host = false;                      ///< host_in (else net_in)
        tlm::tlm_generic_payload* packet = nullptr;  ///< acquired until taken in
        NetworkPacketView view;                      ///< parsed; points into `packet`
        /// Tail time, then the network's before the host's, then arrival
        /// order (each sender's calls come in its own order; which of two
        /// senders called first at one time is SystemC's choice, not used).
        bool operator>(const Incoming& o) const {
            if (at != o.at) return at > o.at;
            if (from_host != o.from_host) return from_host;
            return order > o.order;
        }
    };
    using StepRun = DataPhase::StepRun;
    /// Where queued result packets take their bytes from when they leave:
    /// the collective's buffer while it runs, `kept` (the same buffer, moved)
    /// once it has finished with packets still queued.
    struct ResultSource {
        PagedBuffer* buffer = nullptr;
        PagedBuffer kept;
        StreamMap result;  ///< the collective's result stream over the buffer
    };
    /// A host request reassembled whole (its context was busy when it came).
    struct Request {
        NetworkHeader network;            ///< of its first packet
        std::vector<std::uint8_t> bytes;  ///< envelope [+ counts] + contribution
        std::uint32_t received = 0;       ///< payload bytes in
        bool open = false;                ///< reassembly in progress
        sc_core::sc_time first_at;        ///< its first packet was taken in (trace)
        std::uint64_t ready_ps = 0;       ///< starts no earlier (an ingress kernel's output, ps)
    };
    /// The collective running on one context (its data phase: DataPhase;
    /// its argument agreement: ArgumentAgreement).
    struct Active : DataPhase, ArgumentAgreement {
        bool running = false;
        NetworkHeader header;  ///< opcode, operation, datatype, algorithm of the request
        CollectiveEnvelope envelope;
        CtRow row;                                      ///< copied at start (a RELEASE does not disturb it)
        int rank = 0;                                   ///< own comm rank
        CollectiveError local = CollectiveError::None;  ///< this rank's own error, if any
        std::string local_why;
        std::uint32_t host_message = 0;   ///< the request's bytes (envelope onwards)
        std::uint32_t host_received = 0;  ///< of them taken in so far
        /// The AgLUs of the CGR unit it combines in (a unit is held, in
        /// cgr_, only while chunks are in them: all are free otherwise,
        /// pipeline_stages >= 1).
        AgluLanes aglus;
        RingQueue<std::pair<sc_core::sc_time, std::size_t>> combining;  ///< (final at, step): chunks in the AgLU
        std::uint32_t mask = 0;  ///< mismatch bits (the agreement's and the data phase's)
        /// A member's row was released or packets between members were lost
        /// (here or at a peer): the collective ends without waiting for the
        /// agreement or its data.
        bool aborted = false;
        std::uint32_t fault_pair = 0;  ///< link fault: source node << 16 | destination node
        FaultedLink fault_link{};      ///< link fault: the cable and the count
        /// Shared with its result packets still queued toward the QDMA (with payload).
        std::shared_ptr<ResultSource> result_source;
        /// Runs through the switches' tree: peers are switch engines'
        /// addresses, the step field carries the tree's slot, no agreement.
        bool tree = false;
        /// Armed (CGRA_COMMAND.ARM): the result runs through this program
        /// once every chunk is final, and goes to the host cgra_ready_ps later.
        std::optional<cgra::Program> cgra;
        std::uint64_t cgra_ready_ps = kNever;
        /// Fully fused: the collective the engine starts on the program's
        /// output when this one ends (Send = none). Allgather: this one's
        /// result is not returned; Alltoall: it is, then the alltoall's.
        Opcode cgra_then = Opcode::Send;
        /// Fully fused FEM: the program's output (int32 block ends) gives
        /// the counts of the next request, an allgather with unequal counts.
        bool cgra_counts_next = false;
    };
    /// Where this NIC stands in its communicator's switch tree (per row).
    struct TreeLink {
        /// Fallback: collective.mode = sharp, the aggregation manager gave the
        /// group no tree (its collectives run on the NIC engines); Failed: an
        /// AN of its tree failed (its tree collectives end with error 7).
        enum class State : std::uint8_t { None, Joining, Ready, Fallback, Failed } state = State::None;
        std::uint32_t failure = 0;      ///< Failed: error 7's detail word
        std::uint8_t slot = 0;          ///< the tree's number on the context
        std::uint8_t generation = 0;    ///< its configuration's (on its data packets and agreement records)
        std::uint16_t parent = 0xFFFF;  ///< its vertex (0xFFFF: a group of one)
        std::uint16_t root_vertex = 0xFFFF;
        TreeJoin joined;               ///< what this member sent the planner (not None): a leave repeats it
        std::uint8_t join_number = 0;  ///< the join's number (its header's datatype field), repeated by the leave
    };
    /// A traced collective call until its event can be written: the engine
    /// is done with it and its last result packet has left for the host
    /// (either may come first). Times in ps; kNever = not (yet).
    struct CallTrace {
        std::uint64_t begin = 0;                                 ///< request taken in
        std::uint64_t agree_begin = kNever, agree_end = kNever;  ///< argument agreement
        std::uint64_t result_begin = kNever;                     ///< first result packet queued for the host
        std::uint64_t result_end = kNever;                       ///< last result packet's tail left
        std::uint64_t finished = kNever;                         ///< the engine's part ended
        std::uint64_t result_bytes = 0;                          ///< to the host (error: 8)
        std::string name, args;                                  ///< event name; JSON members
    };
    /// An abort of a collective by sequence: why, and for a link fault which pair lost packets.
    using AbortRecord = SequenceTracker::Abort;
    struct Context {
        Request assembly;             ///< request being reassembled whole
        std::deque<Request> waiting;  ///< complete requests, in arrival (sequence) order
        /// Fully fused FEM: the counts table of the request with this
        /// envelope sequence (cgra_counts_next), put in at its start.
        struct FusedCounts {
            std::uint32_t sequence = 0;
            std::vector<std::uint32_t> counts;
        };
        std::optional<FusedCounts> fused_counts;
        bool streaming = false;            ///< a request is arriving to start as soon as its head is in
        NetworkHeader head;                ///< its first packet's header
        sc_core::sc_time head_at;          ///< its first packet was taken in (trace)
        std::uint32_t head_message = 0;    ///< its bytes
        std::vector<std::uint8_t> prefix;  ///< its envelope [+ counts] (+ first contribution bytes) so far
        std::uint32_t discard_host = 0;    ///< host bytes of a finished request still to come (dropped)
        /// An ingress kernel's output streaming into the running collective
        /// (its contribution), element order, at the kernel's rate.
        struct IngressFeed {
            std::vector<std::uint8_t> bytes;  ///< envelope + output
            std::uint32_t fed = 0;            ///< message bytes taken in so far
            std::uint64_t begin_ps = 0;       ///< the kernel started
            cgra::Program program;            ///< the kernel (its timing)
            std::size_t element = 1;          ///< bytes per element
        };
        std::optional<IngressFeed> feed;
        int own_rank = 0;  ///< comm rank the row gives (credit returns)
        Active active;
        SequenceTracker sequences;     ///< the collective current on the row; peers' early abort notices
        std::size_t window_limit = 0;  ///< step packets its windows hold
        std::unordered_map<std::uint16_t, std::uint16_t> globals;  ///< comm rank -> global rank (row, envelopes)
        PeerTable<std::deque<CollectiveArguments>> agreements;     ///< per sender, arrival order
        std::deque<CallTrace> calls;      ///< traced calls not written yet, oldest first
        std::uint64_t last_call_end = 0;  ///< traced: end of the last call event written on its lane
        /// The row the last RELEASE invalidated, until the next LOAD: the
        /// row's late packets are stale, and requests that still come for it
        /// are aborted at its peers too (they would wait forever otherwise).
        std::optional<CtRow> released_row;
        std::uint8_t tree_joins = 0;  ///< tree joins sent on this context, ever (mod kTreeJoinNumbers: their number)
        TreeLink tree;                ///< collective.placement = switch
    };
    /// The request of `context` (its first `prefix_bytes`) may start: not
    /// one the switches' tree runs, or its tree is configured. Else it sends
    /// the tree join (once) and the request waits for the configuration.
    bool tree_ready(unsigned context, const NetworkHeader& header, const std::uint8_t* prefix,
                    std::size_t prefix_bytes);
    /// A tree configuration from the planner (step kTreeConfigStep).
    void tree_configured(unsigned context, const NetworkPacketView& view);
    /// collective.mode = sharp: the row's communicator is gone (RELEASE, or
    /// a LOAD over it): tells the planner, which gives the group's SHArP
    /// resources back once every member left.
    void tree_leave(unsigned context);
    /// collective.mode = sharp: an AN's error notice (cause 7); a failed AN
    /// marks the group's tree Failed.
    void sharp_notice(unsigned context, const AbortRecord& notice);

    void grant_initial_credits();
    void on_host_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_input(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay, bool from_host);
    void on_credit_net(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { net_port_.receive_credit(p, d); }
    void on_credit_host(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { host_port_.receive_credit(p, d); }
    void on_credit_kernel(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { kernel_port_.receive_credit(p, d); }
    void on_kernel_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_csr(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    /// The engine's one process: all its work due now, in a fixed order.
    /// Once per delta cycle, as a method runs: from its method (its events)
    /// or from the scheduler (wake()), whichever comes first.
    void run();
    /// The scheduler's wake-up (use_scheduler): run(), unless it ran in this
    /// delta cycle already — then the wake-up it asked for since is asked again.
    void wake() override;
    /// Whether run() has run in this delta cycle; marks that it has.
    bool ran_in_this_delta();
    /// run()'s work.
    void run_now();
    /// A packet left an output: credits go upstream for a passed-through
    /// one, the trace learns when a call's last result packet left.
    void packet_left(const CreditedOutPort::Outgoing& packet, const sc_core::sc_time& tail_after);
    /// Takes in every collective packet whose tail has arrived.
    void on_incoming();
    void host_packet(const NetworkPacketView& view);
    void network_packet(const NetworkPacketView& view, tlm::tlm_generic_payload& packet);
    void on_combined();
    /// A CGR unit for the running collective of `context`, which has a chunk
    /// to combine: true when it holds one (now or already); else it joins
    /// the FIFO of waiting collectives (if not in it) and is resumed when a
    /// unit frees. Units are held only while chunks are in the AgLUs, never
    /// while waiting for a peer: no hold-and-wait across switches.
    bool acquire_cgr(unsigned context);
    /// Gives the unit back (its chunks left the AgLUs, or it ended) and
    /// leaves the queue; waiting collectives are resumed (on_cgr_free).
    void release_cgr(unsigned context);
    void on_cgr_free();
    void flush_credits();
    void flush_credits_of(unsigned context, std::uint16_t sender, OwedCredits& owed);
    /// The entry's credits went back (or are given up): its count is 0 again.
    void settle(OwedCredits& owed) {
        owed.count = 0;
        --owed_nonzero_;
    }
    /// Drops the nodes cached in owed_ (all, or one context's): the
    /// forwarding table or a comm rank's global rank changed.
    void forget_nodes(std::optional<unsigned> context);

    // Collectives.
    void progress(unsigned context);
    void start(unsigned context, const NetworkHeader& header, const std::uint8_t* prefix, std::size_t prefix_bytes,
               std::uint32_t message_bytes, const sc_core::sc_time& arrival);
    void build_data_phase(unsigned context, const Schedule& schedule, const BlockSpan& contribution);
    bool advance_agreement(unsigned context);
    /// Sends this member's argument record (with its error mask) to `node`.
    void send_agreement(unsigned context, const Active& a, std::uint16_t node);
    bool advance_data(unsigned context);
    void send_chunk(unsigned context, std::size_t k);
    void take_chunk(unsigned context, std::size_t k, HeldPacket& packet);
    void return_chunk(unsigned context);
    void finish(unsigned context);
    /// `link`: error 6's cable and count, appended to the result (kLinkFaultErrorResultBytes).
    void fail_now(unsigned context, const NetworkHeader& header, int rank, CollectiveError code, std::uint32_t mask,
                  const std::string& why, const FaultedLink* link = nullptr);
    void start_streamed(unsigned context);
    void discard_stale(unsigned context);
    void owe_credit(unsigned context, std::uint16_t sender);
    /// owed_'s entry of (context, sender), created if needed.
    OwedCredits& owed_entry(unsigned context, std::uint16_t sender);
    void owe_credit(OwedCredits& owed, unsigned context, std::uint16_t sender);
    /// Pops the oldest held packet of (context, sender) and releases it.
    void pop_held(std::uint8_t context, std::uint16_t sender);
    /// Drops the context's held packets and window state (LOAD, RELEASE);
    /// `keep_globals`: late packets' credits can still be returned.
    void purge_context(unsigned context, bool keep_globals = false);
    /// A row is busy while a collective runs on it or requests for it are
    /// queued or arriving (CT_BUSY).
    bool row_busy(unsigned context) const;
    /// CT_COMMAND RELEASE: aborts the row's work (if any), frees the row.
    void release_row(unsigned context);
    /// Marks the running collective aborted (mask kReleased, or kLinkFault
    /// for cause 6), tells its peers (abort notices with the cause) and sends its agreement records not sent yet,
    /// so every peer's agreement queue stays in step; it then ends without
    /// waiting for the agreement or its data.
    void abandon(unsigned context, CollectiveError cause = CollectiveError::Aborted, std::uint32_t fault_pair = 0,
                 const FaultedLink& fault_link = {});
    /// Aborts the running collective (mask kReleased): tells its peers,
    /// sends its remaining agreement records, then ends it with error 5.
    void abort_running(unsigned context);
    /// Fails a request that has not started (its row `row` is being or was
    /// released): error 5 here, an abort notice to the peers it would
    /// exchange with (the call's trace event is begun by the caller).
    void abort_request(unsigned context, const NetworkHeader& header, const std::uint8_t* prefix,
                       std::size_t prefix_bytes, const CtRow& row);
    /// Abort notices for sequence `sequence` to the distinct nodes of `peers`.
    /// `tree_slot` >= 0: a collective of the switches' tree (its peer is its
    /// vertex): the notice names this NIC by its address and carries the
    /// tree's slot in bits [31:24] of the first word, so the vertex passes it
    /// round the tree (docs/COLLECTIVES.md, "Switch-resident engines").
    void send_aborts(unsigned context, const NetworkHeader& header, int rank, std::uint32_t sequence,
                     std::vector<std::uint16_t> nodes, CollectiveError cause = CollectiveError::Aborted,
                     std::uint32_t fault_pair = 0, const FaultedLink& fault_link = {}, int tree_slot = -1);
    /// Nodes of the peers the running collective exchanges with (agreement and data).
    std::vector<std::uint16_t> active_peer_nodes(unsigned context) const;
    /// The sequence of the collective running on `c`, if one is.
    static std::optional<std::uint16_t> running_sequence(const Context& c) {
        if (!c.active.running) return std::nullopt;
        return c.active.sequence;
    }
    /// An abort notice from a peer (or a link fault found here) for a sequence.
    void abort_notice(unsigned context, const AbortRecord& notice);

    std::optional<std::uint16_t> peer_node(const Active& active, int peer) const {
        if (active.tree) return static_cast<std::uint16_t>(peer);  // a switch engine's address
        return table_.peer_node(active.row, active.rank, active.envelope, peer);
    }
    /// Whether `id` (a sender or peer field) is a switch engine's address.
    bool is_engine(std::uint32_t id) const { return switch_tree_ && id >= tree_hosts_ && id <= 0xFFFF; }
    /// A packet of the collective `a` on `context` to `destination`: its
    /// class of traffic, `step`; the caller fills the carried header.
    PacketFrame step_frame(const Active& a, unsigned context, std::uint16_t destination, std::uint8_t step) const;
    /// A control packet (credits, tree join or leave) of `bytes` payload on
    /// `context` from this node: Barrier class, `step`, carried rank = node.
    PacketFrame control_frame(unsigned context, std::uint16_t destination, std::uint8_t step,
                              std::uint32_t bytes) const;
    /// Frames one packet of frame.payload_bytes and queues it with `data`.
    void emit(CreditedOutPort& port, const PacketFrame& frame, const std::uint8_t* data, bool urgent = false);
    /// Allocates one packet framed by `framing_` and queues it on its VC;
    /// returns where its payload goes (to be filled before the next event;
    /// nowhere to fill if `header_only`, PacketPool::allocate_header_only).
    std::uint8_t* emit_packet(CreditedOutPort& port, const PacketFrame& frame, bool urgent, bool header_only = false);
    void return_credits(CreditTo to, std::uint32_t phits, const sc_core::sc_time& delay);
    // Trace (only called when trace_ is set).
    void trace_call_begin(unsigned context, const NetworkHeader& header, const std::uint8_t* prefix,
                          std::size_t prefix_bytes, const sc_core::sc_time& arrival);
    void trace_call_end(unsigned context, CollectiveError code, std::uint32_t mask);
    void trace_result_left(unsigned context, std::uint64_t tail_ps);
    void trace_write_calls(unsigned context);
    void trace_step(unsigned context, std::size_t k);
    void trace_event(std::uint32_t tid, const char* category, const std::string& name, std::uint64_t begin,
                     std::uint64_t end, const std::string& args);
    void drop(const std::string& why);
    void load_row(unsigned context);
    std::vector<std::uint8_t> take_buffer();
    /// Before a's buffer goes: result packets still queued keep it (moved
    /// into their ResultSource).
    static void detach_results(Active& a);
    /// A CGRA register access (CGRA_BASE .. CGRA_END); the value read.
    std::uint32_t cgra_csr(std::uint32_t offset, bool write, std::uint32_t value);
    void cgra_command(std::uint32_t command);
    /// Whether an armed collective's result may go to the host: runs its
    /// program once every result chunk is final (false until it is done).
    bool cgra_ready(unsigned context);
    /// Whether the request starting with `prefix` is the collective an
    /// ingress kernel (GEMM, SPMV_BAND) is armed for.
    bool ingress_armed(unsigned context, const std::uint8_t* prefix, std::size_t bytes) const;
    /// Runs the armed ingress kernel on the assembled request `r`: its
    /// contribution becomes the kernel's output. True when the collective
    /// started with the output streaming in (r is spent); false: r is to be
    /// queued (ready after the kernel's cycles, or left as it came when it
    /// does not fit the kernel).
    bool run_ingress(unsigned context, Request& r);
    void on_ingress_ready();
    /// Takes in the kernel output chunks due by now; schedules the next.
    void feed_ingress(unsigned context);
    /// Contexts whose program finished now go on.
    void on_cgra_done();
    /// Fully fused: the request the engine posts itself when the armed
    /// collective on `context` ends (its program's output as contribution).
    Request chained_request(unsigned context) const;
    /// Fully fused FEM: the next request's counts from the active
    /// collective's program output (int32 block ends, non-decreasing);
    /// nullopt when it is not that (or carries no payload).
    std::optional<Context::FusedCounts> counts_from_output(unsigned context) const;
    /// Updates statistics_.peak_buffer_bytes with the bytes collective
    /// buffers' pages, queued requests and recycled request buffers hold now
    /// (page allocations update it too).
    void note_buffer_bytes();
    std::optional<std::uint16_t> node_of(unsigned context, std::uint16_t comm_rank) const;
    static std::uint32_t key(unsigned context, int rank) {
        return static_cast<std::uint32_t>(context) << 16 | static_cast<std::uint16_t>(rank);
    }
    /// Payload of a collective's step and result packets: the packet size,
    /// or with trains (CollectiveConfig::train_payload_bytes) as many
    /// hardware packets as leave a block kTrainsPerTransfer trains.
    std::uint32_t chunk_bytes_for(const BlockLayout& layout) const;
    /// Final result chunks handed to the host DMA at once: result_batch_packets
    /// hardware packets' bytes, in the collective's chunks.
    std::uint32_t result_batch_chunks(const Active& a) const;

    std::uint16_t node_;  ///< this switch's node address
    /// The collective buffers' pages (declared before every holder of a
    /// PagedBuffer: it outlives them); its peak is statistics_.peak_buffer_bytes.
    PagedBuffer::Account buffer_account_;
    CollectiveConfig config_;           ///< parameters
    CgrPool cgr_;                       ///< CGR units per context, waiters FIFO
    CommunicatorTable table_;           ///< CT rows, forwarding table, CSR window
    ScheduleCache schedules_;           ///< the agreement's and the calls' schedules, made once
    std::unique_ptr<AgluEngine> aglu_;  ///< the CGR's AgLU
    sc_core::sc_time cycle_;            ///< one engine clock cycle
    sc_core::sc_time credit_delay_;     ///< collective.credit_delay_ns
    NetworkFraming framing_;            ///< headers and VC of the packets this engine sends (its node's address)
    std::uint32_t credit_batch_ = 1;    ///< credits returned at once
    PacketPool pool_;                   ///< generated packets
    /// A result packet queued toward the QDMA without its packet: made when
    /// it leaves, so a long result holds no packets, only the collective's
    /// buffer its bytes come from (none in timing-only runs).
    struct LazyResult {
        PacketFrame frame;                     ///< its headers, offset and payload bytes
        std::shared_ptr<ResultSource> source;  ///< null: timing only, no bytes
    };
    std::deque<LazyResult> lazy_results_;                           ///< in host_port_'s queue order
    CreditMessage host_credit_message_;                             ///< credit returns to the QDMA
    CreditMessage net_credit_message_;                              ///< credit returns to the router
    EarliestWake wake_;  ///< run(): the outputs', the tails' and the AgLUs' timed wake-up
    std::uint64_t last_run_delta_ = ~std::uint64_t{0};              ///< delta count run() last ran in
    CreditedOutPort net_port_;                                      ///< to the router
    CreditedOutPort host_port_;                                     ///< to the QDMA
    CreditMessage kernel_credit_message_;                           ///< credit returns to the kernel unit
    CreditedOutPort kernel_port_;                                   ///< to the kernel unit (stream packets)
    /// Per context ID, each made when first used (context_at): a Context is
    /// ~1.5 KB with ~1.5 KB of empty deques behind it, and a job uses a few
    /// of the 32 (1024 nodes: ~90 MB less to allocate and clear). An unused
    /// context is in its initial state, which a fresh one reproduces.
    std::array<std::unique_ptr<Context>, regmap::kContextCount> contexts_;
    Context& context_at(unsigned context) {
        std::unique_ptr<Context>& slot = contexts_[context];
        if (!slot) slot = std::make_unique<Context>();
        return *slot;
    }
    const Context& context_at(unsigned context) const {
        static const Context kUnused;
        return contexts_[context] ? *contexts_[context] : kUnused;
    }
    ChannelStore channels_;                                         ///< peers' step packets, per (context, sender)
    /// Per context, by peer: step packets we may still send it.
    std::array<PeerTable<std::int32_t>, regmap::kContextCount> send_credits_;
    /// (context, sender): credits to return. A hash map because flush_credits
    /// sends in its iteration order (the order of same-time credit packets);
    /// owed_index_ finds its entries on the per-packet path.
    /// Its nodes come from one pool, so that flush_credits' walk over them
    /// touches a few neighbouring cache lines instead of one line per node
    /// (the iteration order, which the results depend on, is the map's own).
    std::pmr::unsynchronized_pool_resource owed_nodes_;
    std::pmr::unordered_map<std::uint32_t, OwedCredits> owed_{&owed_nodes_};
    std::uint32_t owed_nonzero_ = 0;  ///< entries of owed_ with a count: flush_credits stops after the last
    std::array<std::vector<OwedCredits*>, regmap::kContextCount> owed_index_;  ///< per context, by sender: into owed_
    bool flush_pending_ = false;  ///< a credit flush is due at flush_at_ (asked of wake_ until then)
    sc_core::sc_time flush_at_;   ///< when (flush_pending_)
    std::priority_queue<Incoming, std::vector<Incoming>, std::greater<Incoming>> incoming_;
    std::uint64_t incoming_order_ = 0;
    std::uint32_t combining_contexts_ = 0;                  ///< bit c: context c has chunks in its AgLUs
    std::vector<std::vector<std::uint8_t>> spare_buffers_;  ///< recycled request buffers
    ChunkCombiner combiner_;                                ///< a received chunk on the CGR's AgLUs (operands reused)
    sc_core::sc_event cgr_free_event_;                      ///< a CGR unit freed while collectives wait
    sc_core::sc_event ingress_event_;                       ///< an ingress kernel's output is ready
    std::uint32_t ingress_contexts_ = 0;                    ///< contexts with a request an ingress kernel still holds
    sc_core::sc_event cgra_event_;                          ///< a CGRA program's result is ready
    /// The SmartFuse CGRA's registers and program slots (docs/FUSED.md).
    struct CgraState {
        std::array<std::optional<cgra::Program>, regmap::kCgraSlots> slots;  ///< loaded programs
        std::vector<std::uint32_t> staging;  ///< words written so far (CGRA_STAGING_WORD)
        std::uint32_t staging_index = 0;     ///< CGRA_STAGING_INDEX
        std::uint32_t slot = 0;              ///< CGRA_SLOT
        std::uint32_t status = 0;            ///< CGRA_STATUS
        std::uint32_t arm_context = 0, arm_sequence = 0, arm_slot = 0, arm_then = 0;
        struct Armed {
            std::uint32_t sequence = 0;
            std::uint32_t slot = 0;
            Opcode then = Opcode::Send;  ///< Send: semi-fused
            bool counts_next = false;    ///< CGRA_ARM_THEN = kCgraThenAllgathervCounts
        };
        /// Per context: the collective ARM marked, until it starts.
        std::array<std::optional<Armed>, regmap::kContextCount> armed;
        std::uint32_t runs = 0, refused = 0;  ///< CGRA_RUNS, CGRA_REFUSED
        std::uint32_t running_contexts = 0;   ///< bit c: context c's program runs
    } cgra_;
    CollectiveStatistics statistics_;
    TraceWriter* trace_ = nullptr;  ///< collective calls and phases, or null (off)
    std::uint32_t trace_pid_ = 0;   ///< this switch's process in the trace
    /// The collectives the switches' trees run: tree_supports, or with
    /// collective.mode = sharp only sharp_offloads.
    bool tree_offloads(Opcode collective) const;
    bool switch_tree_ = false;        ///< collective.placement = switch (enable_switch_tree)
    std::uint16_t tree_planner_ = 0;  ///< the switch engine tree joins go to
    unsigned tree_hosts_ = 0;         ///< addresses >= this are switch engines
    /// The network without engines (placement = switch): names the engines' switches in messages.
    std::shared_ptr<const NetworkTopology> tree_network_;
    /// "node 5", or with switch engines "switch 9 (spine0)": an address in messages.
    std::string endpoint_text(std::uint32_t address) const;
};

}  // namespace isvp
