// The isvp guest driver: brings up the FPGA through BAR0 and moves tagged
// point-to-point messages between ranks through QDMA queues, the router and
// the links. Runs on any DeviceTransport (remote process or local thread).
//
// Bring-up: check ID/VERSION, read the node's address and the network size,
// lay out rings and buffers in the rank's host memory, program one queue
// pair (H2C, C2H, CMPT rings), its MSI-X vectors and interrupt coalescing,
// post every receive buffer.
//
// Messages: a processor packet (8-byte ProcessorHeader) whose payload starts
// with a 16-byte envelope {tag, data bytes} followed by the data. Sends are
// copied into a DMA staging ring and posted as H2C descriptors; receives are
// reassembled from per-packet completions (packets of one source arrive in
// order) and matched against (source, tag) in arrival order, as MPI
// requires. Every wait services both directions (a progress engine), so two
// ranks sending large messages to each other cannot deadlock on each other's
// receive buffers.
//
// Plain C++17, no SystemC.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "isvp/device_transport.h"
#include "isvp/packet_format.h"
#include "isvp/register_map.h"

namespace isvp::guest {

/// A device or driver failure the caller can report: the message names the
/// register, queue, or argument that is wrong.
class DriverError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A receive failed because packets between this node and the peer were
/// lost for good (a link fault, models/reliable/README.md).
class LinkFaultError : public DriverError {
  public:
    using DriverError::DriverError;
};
/// How a message leaves the host (driver.send_path, docs/PERFORMANCE.md).
enum class SendPath {
    Fetch,     ///< staging copy, H2C descriptor, doorbell; the QDMA fetches descriptor and data by DMA
    Prefetch,  ///< standing descriptors over fixed staging slots, fetched ahead of the doorbell: data fetch only
    Pio,       ///< messages of up to pio_max_bytes written into the queue's PIO window; larger ones: Fetch
    Auto,      ///< messages of up to pio_max_bytes by PIO, larger ones: Prefetch
};
/// How the driver learns of completions (driver.completion).
enum class CompletionMode {
    Msi,     ///< sleep until a (coalesced, armed) MSI-X interrupt
    Poll,    ///< spin on the completion ring's colour bit in host memory; no interrupt
    Hybrid,  ///< spin for poll_us, then arm the interrupt and sleep
};
/// Parses "fetch"/"prefetch"/"pio"/"auto" and "msi"/"poll"/"hybrid";
/// DriverError naming the parameter otherwise.
SendPath parse_send_path(const std::string& text);
CompletionMode parse_completion_mode(const std::string& text);
const char* to_string(SendPath path);
const char* to_string(CompletionMode mode);

struct DriverConfig {
    unsigned queue = 0;                      ///< queue pair this rank uses
    unsigned h2c_ring_entries = 1024;        ///< H2C descriptors per ring (incl. status entry)
    unsigned c2h_ring_entries = 4096;        ///< receive buffers per ring (incl. status entry)
    unsigned cmpt_ring_entries = 4096;       ///< completion entries per ring (incl. status entry)
    std::uint32_t descriptor_bytes = 32768;  ///< data per H2C descriptor (<= 65535)
    std::size_t staging_bytes = 64u << 20;   ///< DMA staging ring for outgoing messages
    unsigned cmpt_vector = 0;                ///< MSI-X vector for completions
    unsigned h2c_vector = 1;                 ///< MSI-X vector for H2C progress (SDI)
    unsigned error_vector = 2;               ///< MSI-X vector for device errors
    /// Probe the collective accelerator (BAR0 0x6000..) once at bring-up and,
    /// when it exists, fill its forwarding table. false: never touch the
    /// accelerator window; every collective runs in software (the baseline).
    bool offload = true;
    SendPath send_path = SendPath::Auto;               ///< driver.send_path
    std::uint32_t pio_max_bytes = 256;                 ///< driver.pio_max_bytes: largest message data sent by PIO
    CompletionMode completion = CompletionMode::Poll;  ///< driver.completion
    double poll_us = 2.0;                              ///< driver.poll_us: hybrid's spin before it arms the interrupt
    double poll_interval_ns = 50;                      ///< driver.poll_interval_ns: one turn of the poll loop
    /// job.timing_only (the benches set it; `isvp run` does not): collective
    /// payload is not carried. Offloaded contributions may be posted without
    /// their bytes (data null), offloaded results are counted but not stored
    /// (receive_collective copies nothing; error results are still read),
    /// and the software collectives send length-only messages
    /// (send_length_only). Simulated times are the same as with payload.
    bool timing_only = false;
};

/// What the bring-up probe found in the accelerator window.
struct AcceleratorInfo {
    bool present = false;     ///< ACCEL_CAPABILITIES readable and CT_ROWS > 0
    unsigned ct_rows = 0;     ///< communicator-table rows (context IDs below this)
    unsigned algorithms = 0;  ///< bit a: Algorithm a runs in the switch
    /// REDUCTIONS_ONLY (SHArP mode): only Allreduce, Reduce and Barrier are
    /// offloaded; the others run in host software.
    bool reductions_only = false;
    /// ACCEL_MAX_BUFFER_BYTES: the largest collective buffer (all blocks) a
    /// request may have; the switch ends a larger one with error 4.
    std::uint64_t max_buffer_bytes = 0;
};

/// Tags at and above this are reserved for the collectives' point-to-point
/// messages: `send` refuses them and wildcard receives never match them.
inline constexpr std::uint32_t kReservedTagBase = 0x80000000u;

/// Largest message `send` takes: the packet format's limit less the
/// driver's 16-byte envelope in front of the data.
inline constexpr std::uint32_t kMaxSendBytes = kMaxMessageBytes - 16;

/// A collective's result as the switch delivered it (docs/COLLECTIVES.md).
struct CollectiveResult {
    Opcode opcode = Opcode::Send;  ///< the collective
    std::size_t bytes = 0;         ///< result bytes (copied up to the capacity)
    bool error = false;            ///< an error result (datatype field 0xF)
    /// 1 unknown context, 2 unsupported pair, 3 mismatch, 4 size outside the row, 5 aborted (row released),
    /// 6 link fault
    std::uint32_t error_code = 0;
    /// Which arguments disagreed across the members (collective_core.h,
    /// mismatch::); error 6: the node pair that lost packets, source << 16 | destination.
    std::uint32_t error_detail = 0;
    /// Error 6: the cable (LINK_FAULT_FROM / LINK_FAULT_TO words; NAMED 0:
    /// not known) and the packets lost (0: not known).
    std::uint32_t error_link_from = 0;
    std::uint32_t error_link_to = 0;
    std::uint32_t error_lost = 0;
};

/// Packets between this node and another were lost for good (the device's
/// LINK_FAULT register, models/reliable/README.md).
struct LinkFault {
    int peer = -1;             ///< the other node's rank
    int peer_node = -1;        ///< the other node (its network address)
    bool sending = false;      ///< this node's packets to it were lost (else its packets to this node)
    std::uint32_t lost = 0;    ///< how many (saturating at 4095)
    std::uint64_t serial = 0;  ///< Driver::link_faults() once it was reported (the latest, when merged)
    /// The cable they were dropped on (LINK_FAULT_FROM / LINK_FAULT_TO).
    bool link_named = false;   ///< a link reported the drops (else: acknowledgements lost or late)
    unsigned from_switch = 0;  ///< where the lost packets left: switch index and port
    unsigned from_port = 0;
    unsigned to_switch = 0;  ///< where they should have entered
    unsigned to_port = 0;
    unsigned other_links = 0;  ///< further links that dropped some of them
    unsigned direction = 0;    ///< on a torus: 1..6 = +x ... -z from the from end (LINK_FAULT_TO.DIRECTION), else 0
};
/// "link fault: 2 packets from node 0 to node 1 lost for good on the link
/// switch 0 port 1 -> switch 1 port 0 (...)"
std::string describe(const LinkFault& fault, int own_node);
/// " on the link node 0 +x -> node 1 (switch 0 port 0 -> switch 1 port 1)
/// (and 1 other link)" on a torus (DIRECTION set), " on the link switch 0
/// port 1 -> switch 1 port 0" otherwise, from LINK_FAULT_FROM /
/// LINK_FAULT_TO words (regmap::link_fault_link), or what to say when NAMED is 0.
std::string describe_cable(std::uint32_t from, std::uint32_t to);

/// Wildcards for receive matching.
inline constexpr int kAnySource = -1;
inline constexpr std::int64_t kAnyTag = -1;

struct ReceiveStatus {
    int source = -1;         ///< sender's rank
    std::uint32_t tag = 0;   ///< message tag
    std::size_t bytes = 0;   ///< message length (may exceed what was copied)
    bool truncated = false;  ///< the message was longer than the buffer
};

class Driver {
  public:
    Driver(DeviceTransport& transport, DriverConfig config = {});
    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

    int rank() const { return transport_.rank(); }
    int size() const { return transport_.size(); }
    std::uint16_t node_address() const { return node_address_; }
    /// The node (network address) rank `rank` runs on: the launcher's
    /// placement (DeviceTransport::rank_nodes), rank r on node r by default.
    std::uint16_t node_of(int rank) const {
        return node_of_rank_.empty() ? static_cast<std::uint16_t>(rank) : node_of_rank_[static_cast<std::size_t>(rank)];
    }
    /// The rank node `node` runs, -1 if none (node < node_count()).
    int rank_of(unsigned node) const { return rank_on_node_.empty() ? static_cast<int>(node) : rank_on_node_[node]; }
    /// NODE_COUNT: the hosts; addresses from it on are switch engines (placement = switch).
    std::uint32_t node_count() const { return node_count_; }
    std::uint32_t packet_bytes() const { return packet_bytes_; }

    /// Blocks until the message is handed to the device (buffer reusable).
    void send(int destination, std::uint32_t tag, const void* data, std::size_t bytes);
    /// Blocks until a matching message has arrived and been copied. While
    /// none has, `while_waiting` (when given) runs before each sleep; it may
    /// throw to give the receive up (the MPI shim: an abort notice of the
    /// software collective the receive belongs to).
    ReceiveStatus receive(int source, std::int64_t tag, void* buffer, std::size_t capacity,
                          const std::function<void()>& while_waiting = nullptr);

    /// Like send/receive, for the collectives' reserved tags (>= kReservedTagBase).
    void send_reserved(int destination, std::uint32_t tag, const void* data, std::size_t bytes);
    /// With `report_ends`, a device report of `source`'s packets lost that
    /// no later message or probe of `source` has followed ends the wait too
    /// (LinkFaultError): MPI_Finalize's barrier, whose sender may have
    /// finished and will send nothing that shows which message was lost.
    /// For the same reason the message is looked for past a lost one whose
    /// tag never came (the sender's probe), and such a loss ends the wait
    /// when the message is not there.
    /// `while_waiting` as for receive.
    ReceiveStatus receive_reserved(int source, std::uint32_t tag, void* buffer, std::size_t capacity,
                                   bool report_ends = false, const std::function<void()>& while_waiting = nullptr);
    /// A reserved-tag message of `bytes` whose data is not carried (timing
    /// only): the packets have the length, the envelope says length-only and
    /// the receiver keeps no data (a receive copies nothing; its status has
    /// the length). Same packets and simulated time as send_reserved.
    void send_length_only(int destination, std::uint32_t tag, std::size_t bytes);
    /// DriverConfig::timing_only.
    bool timing_only() const { return config_.timing_only; }
    /// The largest payload buffer this driver allocated (a message's or a
    /// staged collective result's data, bytes; results delivered into a
    /// posted destination need none); 0 when every payload was timing only.
    std::uint64_t largest_payload_buffer() const { return largest_payload_buffer_; }
    /// Data bytes copied into staging or the PIO window (envelopes and
    /// headers not counted); 0 when every payload was timing only.
    std::uint64_t data_bytes_staged() const { return data_bytes_staged_; }

    // Non-blocking progress, for a matching engine above the driver (the MPI
    // shim's nonblocking receives, probes and tests).

    /// A complete message taken out of the arrival queue.
    struct ArrivedMessage {
        int source = -1;                 ///< sender's rank
        std::uint32_t tag = 0;           ///< its tag
        std::vector<std::uint8_t> data;  ///< its data
        /// A message of `source` lost for good (see "Link faults" below):
        /// no data; `why` names the fault.
        bool lost = false;
        /// Lost, and its tag could not be learnt (it is `tag_value` of the
        /// take): it stands for whichever message of `source` is awaited next.
        bool wildcard = false;
        std::string why;
    };
    /// Handles every completion the device has written, without waiting;
    /// returns how many. With `round_trip` it first reads ERROR_STATUS (one
    /// PCIe round trip of simulated time): a guest that polls in a loop must
    /// let the platform advance, or it would spin forever (transport README).
    unsigned poll(bool round_trip = false);
    /// Blocks until the device signals progress (a completion, H2C progress
    /// or an error interrupt), handling completions first.
    void wait() { wait_for_progress(); }
    /// Takes the first arrived message, in arrival order, from `source`
    /// (kAnySource: any) whose tag satisfies (tag & tag_mask) == tag_value;
    /// false when none has arrived. Neither waits nor polls the device. The
    /// message may be a lost one (ArrivedMessage::lost): the caller fails
    /// what waited for it.
    /// Without `wildcards`, a lost message whose tag is not known (which
    /// stands for any tag) is left for the receive it stands for.
    bool take_message(int source, std::uint32_t tag_mask, std::uint32_t tag_value, ArrivedMessage& message,
                      bool wildcards = true);
    /// The layer above changed something a blocked caller may be waiting
    /// for (from the progress hook: a collective's abort notice recorded):
    /// the wait that ran the hook returns for a re-check instead of sleeping.
    void note_progress() { ++activity_; }

    /// Sets (or, with an empty function, clears) a progress hook: called
    /// whenever the driver is about to sleep for an interrupt (any blocking
    /// receive, collective result, staging or ring wait) at a point where
    /// its own state is consistent (never in the middle of posting a
    /// packet). A layer above uses it to keep its own protocol going while
    /// the rank is blocked here (the MPI shim: matching, synchronous-send
    /// acknowledgements, nonblocking collectives). The hook may call the
    /// driver, including blocking sends; a wait inside the hook does not
    /// call it again. It should not touch the device when nothing is to be
    /// done: it runs only when the rank is blocked anyway, so the program's
    /// simulated timing changes only by what the hook sends.
    void set_progress_hook(std::function<void()> hook) { progress_hook_ = std::move(hook); }

    /// The collective accelerator as probed at bring-up (absent if offload is off).
    const AcceleratorInfo& accelerator() const { return accelerator_; }
    /// Uploads one communicator-table row (CT_SELECT, CT_STAGING, CT_COMMAND.LOAD).
    void load_ct_row(unsigned context, const std::array<std::uint32_t, regmap::kCtStagingDwords>& row);
    /// Invalidates a row (CT_COMMAND.RELEASE).
    void release_ct_row(unsigned context);
    /// The SmartFuse CGRA beside the engine (docs/FUSED.md): CGRA_CAPABILITIES
    /// (one MMIO read; 0 without an accelerator or CGRA).
    std::uint32_t cgra_capabilities();
    /// Stages `words` and LOADs them into `slot`; returns CGRA_STATUS (a
    /// malformed program is refused: RESULT kCgraRefused, the slot unchanged).
    std::uint32_t cgra_load(unsigned slot, const std::vector<std::uint32_t>& words);
    /// ARMs the collective (context, sequence): its result runs through the
    /// program of `slot` in the switch. Posted writes, before the request.
    /// `then` (CGRA_ARM_THEN): 0 semi-fused; 6 (Allgather) fully fused, the
    /// engine starts an allgather of the program's output itself (sequence + 1).
    void cgra_arm(unsigned context, std::uint32_t sequence, unsigned slot, unsigned then = 0);
    /// Whether row `context` holds a communicator (CT_VALID, one MMIO read):
    /// the switch refuses a LOAD whose receive windows do not fit.
    bool ct_row_valid(unsigned context);
    /// Posts one collective request: `header` (opcode a collective), the
    /// 16-byte envelope, then `bytes` of contribution, of which the first
    /// `carried` (default all) come from `data`; the rest is not carried
    /// (timing_only only: the packets have the length, not the bytes).
    void send_collective(const ProcessorHeader& header, const std::uint8_t (&envelope)[16], const void* data,
                         std::size_t bytes, std::size_t carried = SIZE_MAX);
    /// Posts where the next result on `context` goes (the C2H destination
    /// of real hardware): its packets are copied straight into `buffer` (up
    /// to `capacity` bytes) as they arrive, with no staging copy in the
    /// driver, also when a wait of another call handles them (nonblocking
    /// collectives). Applies to the next result that starts on `context`;
    /// an error result is still staged (its code is read). Returns false and
    /// posts nothing (that result is staged, as without a post) when a
    /// result on `context` has already started or is waiting to be taken,
    /// with timing_only (results are not stored), or with a null buffer or
    /// zero capacity (which clears an earlier post). The buffer must stay
    /// valid until the result is taken.
    bool post_collective_destination(unsigned context, void* buffer, std::size_t capacity);
    /// Blocks until the oldest result not yet taken on `context` has
    /// arrived; copies up to `capacity` bytes (nothing more when the result
    /// went straight into `buffer`, its posted destination). A context holds
    /// at most kMaxResultsPerContext results (a fully fused call's two,
    /// which the switch sends back to back). `while_waiting` (when given)
    /// runs before each wait, as in receive().
    CollectiveResult receive_collective(unsigned context, void* buffer, std::size_t capacity,
                                        const std::function<void()>& while_waiting = nullptr);
    /// Whether that result has arrived (receive_collective would not wait).
    /// Neither waits nor polls.
    bool collective_result_ready(unsigned context) const {
        return context < results_.size() && results_[context] && !results_[context]->empty() &&
               results_[context]->front().complete;
    }
    static constexpr std::size_t kMaxResultsPerContext = 2;

    /// Messages sent / received, and interrupts waited for.
    std::uint64_t messages_sent() const { return messages_sent_; }
    std::uint64_t messages_received() const { return messages_received_; }
    std::uint64_t interrupts() const { return interrupts_; }
    /// Messages (and collective requests) sent through the PIO window and
    /// through descriptors, and wake-ups by a completion seen while polling.
    std::uint64_t pio_sends() const { return pio_sends_; }
    /// Sent through H2C descriptors (fetch or prefetch path).
    std::uint64_t fetch_sends() const { return fetch_sends_; }
    /// Bytes of one staging slot behind a standing descriptor (prefetch and
    /// auto send paths; 0 otherwise).
    std::uint32_t slot_bytes() const { return slot_bytes_; }
    std::uint64_t poll_wakeups() const { return poll_wakeups_; }
    /// Messages dropped because what arrived was malformed or cut off (a
    /// fault of the sending rank, which must not end this one), and why the
    /// latest was dropped.
    std::uint64_t dropped_messages() const { return dropped_messages_; }
    const std::string& last_drop_reason() const { return last_drop_reason_; }

    // Link faults (ERROR_STATUS.LINK_FAULT; the LINK_FAULT register is read
    // when the error interrupt or a poll finds the bit, or at once when the
    // stream of a peer shows a loss).
    //
    // Every message carries its number in the stream of its sender to this
    // node (envelope). A message of a peer that never arrives whole — a gap
    // in the numbers, a message cut off — takes its place in the arrival
    // order as a *lost message* with its tag: a receive that reaches it
    // (the first message of that source with that tag, MPI's
    // non-overtaking order) fails with LinkFaultError naming the fault,
    // instead of matching a later message with the same tag. A cut-off
    // message's tag is its first packet's; a gap's tags come from the
    // sender: a node told that its packets to a peer were lost sends it a
    // stream probe (an empty driver message with its next number and the
    // tags of its last kStreamHistory messages to that peer). Until the
    // probe comes, the messages after a gap are held back (the gap might
    // be any of their tags); a gap older than the history becomes a
    // wildcard lost message (the next receive from that source fails). A
    // gap or cut-off without any device report of that peer's packets lost
    // is the sender's own doing (a hostile guest), not a link fault: the
    // message is dropped and counted, nothing else changes.
    //
    // A fault of this node's own packets to a peer stays pending (below)
    // until the layer above takes it: its synchronous sends to that peer
    // wait for acknowledgements that may never come.

    /// Peers with a pending fault of this node's packets to them, in node order.
    std::vector<int> link_fault_peers() const;
    /// The pending fault with `peer`, or null.
    const LinkFault* pending_link_fault(int peer) const;
    /// Claims the pending fault with `peer` (kAnySource: the first one): true
    /// and `fault` set when there was one.
    bool take_link_fault(int peer, LinkFault& fault);
    /// Link faults reported so far (each later loss of messages found in a
    /// reported peer's stream counts as one more).
    std::uint64_t link_faults() const { return link_fault_count_; }

  private:
    struct Message {
        int source = 0;
        std::uint32_t tag = 0;
        std::uint64_t data_bytes = 0;     ///< from the envelope
        std::uint32_t message_bytes = 0;  ///< envelope + data, from the processor header
        std::uint32_t received = 0;       ///< bytes of envelope + data so far
        bool length_only = false;         ///< the envelope says the data is not carried
        std::vector<std::uint8_t> data;   ///< the data as it arrives (empty when length_only or `into`)
        /// Its data lands straight in the buffer of the receive posted for it
        /// (PostedReceive), not in `data`.
        std::uint8_t* into = nullptr;
        std::uint32_t number = 0;  ///< in its sender's stream to this node
        bool lost = false;         ///< never arrived whole (Link faults above)
        bool unresolved = false;   ///< lost, its tag not known yet: later messages of its source wait
        bool wildcard = false;     ///< lost, its tag cannot be known
    };

    std::uint64_t allocate(std::size_t bytes, std::size_t alignment);
    void write64(std::uint32_t offset_lo, std::uint64_t value);
    /// Throws for an error bit set in ERROR_STATUS; a LINK_FAULT is read out
    /// and recorded instead (the job goes on).
    void check_device_errors();
    void read_link_faults();
    /// Reads ERROR_STATUS and the link faults it has now (a stream showed a
    /// loss: the report came before the stream went on).
    void read_link_faults_now();

    /// Handles every completion the device has written; returns how many.
    unsigned poll_completions();
    void deliver_packet(const regmap::CompletionEntry& entry, const std::uint8_t* payload);
    /// Waits for any interrupt this driver uses, servicing receives first.
    void wait_for_progress();
    /// Frees staging and H2C slots the device has consumed.
    void reclaim_h2c();
    /// Staging the device has read, gathered while consecutive and handed to
    /// DeviceTransport::discard_host_memory before reclaim_h2c returns (so
    /// never after the driver wrote a slot again): the standing slots cycle
    /// through 32 MiB, which would otherwise all stay resident on every rank
    /// of a long run (docs/PERFORMANCE.md, "Staging given back").
    struct DeadStaging {
        std::uint64_t begin = 0;  ///< guest-physical, gathered so far
        std::uint64_t end = 0;
    };
    /// [begin, end) is dead: gathered with `dead` if adjacent, else `dead`
    /// is discarded first.
    void retire(DeadStaging& dead, std::uint64_t begin, std::uint64_t end);
    void discard(DeadStaging& dead);
    /// Posts one H2C descriptor, waiting for room when the ring is full.
    void post_descriptor(std::uint64_t address, std::uint32_t length, std::uint32_t flags);
    /// Waits until the H2C ring has room for one more descriptor.
    void wait_for_h2c_slot();
    /// Writes every standing descriptor (slot i: staging + i * slot_bytes_).
    void write_standing_descriptors();
    /// Bytes [done, done + chunk) of a packet (prefix, then data) into `out`:
    /// of the data only the first `carried` bytes (the rest is timing only).
    void stage_chunk(std::uint8_t* out, std::size_t chunk, std::size_t done, const std::uint8_t* prefix,
                     std::size_t prefix_bytes, const std::uint8_t* data, std::size_t carried);
    /// Copies header, envelope and the first `carried` data bytes into
    /// consecutive standing slots and rings the doorbell (prefetch path).
    void post_standing(const std::uint8_t* prefix, std::size_t prefix_bytes, const void* data, std::size_t bytes,
                       std::size_t carried);
    /// Reserves `bytes` of contiguous staging space, waiting for reclaim.
    std::uint64_t reserve_staging(std::uint32_t bytes);
    /// Takes the first arrived message from `source` with `tag` (kAnySource,
    /// kAnyTag: any); throws LinkFaultError when that is a lost one.
    /// `past_unresolved`: as first_arrived.
    bool take_matching(int source, std::int64_t tag, void* buffer, std::size_t capacity, ReceiveStatus& status,
                       bool past_unresolved = false);
    /// The first arrived message of `source` (kAnySource: any) whose tag
    /// `tag_matches`, or a lost one that stands for any tag (wildcard), in
    /// arrival order; a source's messages behind a lost one whose tag is not
    /// known yet are not offered, unless `past_unresolved` (that lost one is
    /// then passed over: MPI_Finalize's barrier, receive_reserved).
    std::deque<Message>::iterator first_arrived(int source, const std::function<bool(std::uint32_t)>& tag_matches,
                                                bool past_unresolved = false, bool wildcards = true);
    /// Whether a lost message of `source` waits for its tag (its sender's probe).
    bool has_unresolved_loss(int source) const;
    /// "link fault: ..." for a lost message (its source's latest report).
    std::string describe_lost(const Message& message) const;
    /// Reads the launcher's rank placement; DriverError if it does not fit
    /// the network or does not put this rank on this device's node.
    void place_ranks();
    void probe_accelerator();
    /// Refuses a bad destination or size, and null data that is `carried`.
    void check_destination(int destination, std::size_t bytes, const void* data, bool carried = true) const;
    /// Streams header, prefix and data through staging as one processor
    /// packet; only the first `carried` data bytes are copied from `data`
    /// (the rest is not carried: timing only).
    void post_packet(const ProcessorHeader& header, const std::uint8_t (&envelope)[16], const void* data,
                     std::size_t bytes, std::size_t carried);
    /// send_reserved's packet with the envelope's length-only flag as given.
    void send_message(int destination, std::uint32_t tag, const void* data, std::size_t bytes, bool length_only);
    /// Notes a payload buffer of `bytes` (largest_payload_buffer).
    void note_payload_buffer(std::uint64_t bytes) {
        largest_payload_buffer_ = std::max(largest_payload_buffer_, bytes);
    }
    void deliver_result(const ProcessorHeader& header, const regmap::CompletionEntry& entry,
                        const std::uint8_t* payload);

    DeviceTransport& transport_;  ///< the way to the device and host memory
    DriverConfig config_;         ///< ring sizes, vectors
    std::uint8_t* memory_;        ///< host memory base
    std::size_t memory_bytes_;    ///< host memory size
    std::size_t next_free_ = 0;   ///< bump allocator over host memory
    std::uint16_t node_address_ = 0;
    std::vector<std::uint16_t> node_of_rank_;  ///< by rank (empty: rank r on node r)
    std::vector<int> rank_on_node_;            ///< by node, -1: no rank (empty: node n runs rank n)
    std::uint32_t node_count_ = 0;
    std::uint32_t packet_bytes_ = 0;  ///< network packet payload capacity

    // H2C: descriptor ring and the staging ring its data comes from.
    std::uint64_t h2c_ring_ = 0;                  ///< guest-physical address of the ring
    std::uint32_t h2c_pidx_ = 0;                  ///< next descriptor to write
    std::uint32_t h2c_doorbell_ = 0;              ///< PIDX the device was last told (H2C_PIDX doorbell)
    std::uint32_t h2c_cidx_ = 0;                  ///< last consumed index seen
    std::uint32_t h2c_outstanding_ = 0;           ///< descriptors posted, not yet consumed
    std::vector<std::uint64_t> h2c_staging_end_;  ///< end of slot i's staging bytes (fetch path: freed up to it)
    std::uint64_t staging_base_ = 0;              ///< staging ring address
    std::uint64_t staging_head_ = 0;              ///< next byte to fill (offset in ring)
    std::uint64_t staging_tail_ = 0;              ///< oldest byte still in use
    std::vector<std::uint64_t> h2c_staging_begin_;  ///< staging bytes [begin, end) slot i's descriptor holds

    // C2H buffers and completions.
    std::uint64_t c2h_ring_ = 0;
    std::uint64_t c2h_buffers_ = 0;
    std::uint32_t c2h_buffer_bytes_ = 0;
    std::uint32_t c2h_pidx_ = 0;  ///< buffers posted (index)
    std::uint32_t c2h_next_ = 0;  ///< next buffer the device fills
    std::uint64_t cmpt_ring_ = 0;
    std::uint32_t cmpt_cidx_ = 0;  ///< next completion to read
    bool cmpt_color_ = true;       ///< colour valid entries carry now

    std::map<int, LinkFault> pending_faults_;  ///< per peer node: reported, not yet claimed
    std::uint64_t link_fault_count_ = 0;       ///< faults reported

    /// The messages of one peer to this node: their numbers and losses.
    struct Stream {
        std::uint32_t next = 0;        ///< number of the next message expected (kStreamNumberMask wide)
        std::uint64_t reports = 0;     ///< device reports of this peer's packets lost
        std::uint64_t explained = 0;   ///< `reports` when a message or probe of the peer last arrived after them
        std::uint64_t unresolved = 0;  ///< lost messages in arrived_ whose tag is not known yet
        LinkFault latest;              ///< the latest report (the cable named for its lost messages)
    };
    /// What this driver keeps of one peer node, made at the first packet to or
    /// from it (or the first look at it): a driver exchanges messages with few
    /// of the nodes, and a table of every node in every driver is O(nodes²)
    /// memory for the job (0.25 GB touched at bring-up at 1024 nodes).
    struct Peer {
        Message assembling;              ///< its message in progress
        bool assembling_active = false;  ///< is one in progress
        Stream stream;                   ///< its messages to this node
        std::uint32_t next_number = 0;   ///< number of this node's next message to it
        /// Tags of this node's last kStreamHistory messages to it (slot =
        /// number % kStreamHistory), for its stream probes; empty until the first.
        std::vector<std::uint32_t> sent_tags;
    };
    /// The state of peer `node` (< node_count_), made on first use; the
    /// reference stays valid for the driver's lifetime.
    Peer& peer(std::size_t node);
    std::vector<std::uint32_t> peer_index_;  ///< per node: 1 + its index in peers_, 0 before its first use
    std::deque<Peer> peers_;                 ///< in order of first use
    std::vector<int> probe_peers_;           ///< nodes owed a stream probe (their packets from here were lost)
    bool sending_probes_ = false;            ///< send_stream_probes is running
    /// `count` messages of `source` from number `first` on never arrived:
    /// lost messages, their tags to be learnt from the source's probe.
    void note_gap(int source, std::uint32_t first, std::uint32_t count);
    /// A probe of `source` with its next number and its history: gives the
    /// held lost messages their tags.
    void resolve_lost(int source, std::uint32_t next, const std::uint8_t* history, std::size_t history_bytes);
    /// Appends a lost message of `source` to the arrival order.
    void add_lost(int source, std::uint32_t number, std::uint32_t tag, bool resolved);
    /// Sends the owed stream probes (at a wait, between packets).
    void send_stream_probes();

    /// The blocking receive waiting now for one (source, tag): the next
    /// message that matches it, when no earlier arrived message of that
    /// source does, is written straight into its buffer (no driver copy of
    /// the message; any other message is buffered, MPI's unexpected
    /// messages). Taken by the first such message (buffer null then).
    struct PostedReceive {
        int source = -1;
        std::uint32_t tag = 0;
        std::uint8_t* buffer = nullptr;  ///< null: none open
        std::size_t capacity = 0;        ///< bytes; a longer message is buffered
    };
    PostedReceive posted_receive_;
    /// Posts `receive` for the lifetime of the guard (restoring the one it
    /// hid: receives may nest in the progress hook); on the way out a
    /// message still bound for its buffer (not taken: the wait was given
    /// up) is buffered after all.
    class ReceiveGuard;
    /// Gives messages being written into, or waiting in, `buffer` a buffer of
    /// their own (copying what is there).
    void unbind_messages(const std::uint8_t* buffer);
    std::deque<Message> arrived_;  ///< complete, not yet received (arrival order)

    /// A collective result being assembled or complete, per context ID.
    struct Result {
        ProcessorHeader header;               ///< of its first packet
        std::uint32_t received = 0;           ///< bytes so far
        std::uint32_t bytes = 0;              ///< the result's size (header.message_bytes)
        std::vector<std::uint8_t> data;       ///< staged bytes (none when delivered, or timing_only and not an error)
        std::uint8_t* destination = nullptr;  ///< delivered straight into the caller's posted buffer (else null)
        std::size_t capacity = 0;             ///< of `destination`: bytes past it are not kept
        bool active = false;                  ///< packets are arriving
        bool complete = false;                ///< waiting to be taken
    };
    /// Per context ID, oldest first: complete ones waiting to be taken, then
    /// at most one arriving. Made when a context is first used (an empty
    /// std::deque allocates ~600 bytes; a job uses a few of the 32 contexts).
    std::array<std::optional<std::deque<Result>>, regmap::kContextCount> results_;
    /// Context `context`'s results (std::out_of_range outside 0..31).
    std::deque<Result>& results_of(std::size_t context) {
        std::optional<std::deque<Result>>& slot = results_.at(context);
        if (!slot) slot.emplace();
        return *slot;
    }
    /// A destination posted for the next result on a context (post_collective_destination).
    struct Destination {
        std::uint8_t* buffer = nullptr;  ///< null: none posted
        std::size_t capacity = 0;        ///< bytes
    };
    std::array<Destination, regmap::kContextCount> destinations_;  ///< per context ID
    AcceleratorInfo accelerator_;                                  ///< what the bring-up probe found

    std::uint64_t messages_sent_ = 0;
    std::uint64_t messages_received_ = 0;
    std::uint64_t interrupts_ = 0;
    std::uint64_t pio_sends_ = 0;               ///< packets written into the PIO window
    std::uint64_t fetch_sends_ = 0;             ///< packets posted as descriptors
    std::uint64_t poll_wakeups_ = 0;            ///< waits ended by a completion landing while polling
    std::uint32_t pio_window_bytes_ = 0;        ///< PIO_WINDOW_BYTES (PIO path only)
    bool use_pio_ = false;                      ///< send_path pio or auto: small messages by PIO
    bool standing_ = false;                     ///< send_path prefetch or auto: H2C_CONTROL.PREFETCH
    std::uint32_t slot_bytes_ = 0;              ///< standing descriptors: staging bytes per ring slot
    std::uint64_t largest_payload_buffer_ = 0;  ///< see largest_payload_buffer()
    std::uint64_t data_bytes_staged_ = 0;       ///< see data_bytes_staged()
    /// Writes header, envelope and data into the PIO window (fits, ring idle).
    void post_pio(const std::uint8_t* prefix, std::size_t prefix_bytes, const void* data, std::size_t bytes,
                  std::size_t carried);
    /// Writes H2C_PIDX = h2c_pidx_ (posts every descriptor written so far).
    void ring_h2c_doorbell();
    /// Sleeps until an armed interrupt (the MSI completion path).
    void wait_for_interrupt();
    std::function<void()> progress_hook_;  ///< see set_progress_hook
    bool in_hook_ = false;                 ///< the hook is running (no nested call)
    bool packet_open_ = false;             ///< post_packet holds staging or descriptors of an unfinished packet
    std::uint64_t activity_ = 0;           ///< completions handled, interrupts, packets posted (changes seen by waits)
    std::uint64_t dropped_messages_ = 0;   ///< malformed or cut-off incoming messages dropped
    std::string last_drop_reason_;         ///< why the latest was dropped
    /// Drops an incoming packet; `source` >= 0 also abandons that source's
    /// message in progress.
    void drop_packet(int source, const char* why);
};

}  // namespace isvp::guest
