// Qdma: the FPGA's queue DMA engine (Xilinx QDMA-style streaming queues).
// It reaches the network only through a NetworkInterface
// (models/network_interface): it hands it one request per packet of a
// message and is told what arrives; the interface owns the network's
// headers, virtual channels, credits and the stream toward the router.
//
// Abstraction: LT with annotated DMA delays, event-driven processes, no
// clocks: the H2C stages are SC_METHODs (state machines that re-trigger
// themselves with next_trigger), the C2H engine an SC_THREAD (README.md,
// "Processes", says why). Registers follow models/common/isvp/register_map.h exactly.
//
//   H2C  A doorbell (H2C_PIDX) wakes the fetch stage: it fetches descriptors
//        by DMA in batches of qdma.descriptor_prefetch, checks them
//        (H2cFramer), DMA-reads each processor packet's header and payload
//        into packets of qdma.packet_payload_bytes framed by the network
//        interface and queues them, up to qdma.h2c_buffer_bytes read ahead.
//        The emit stage sends each packet once its data has arrived, the
//        interface's link is free and it has space for it; then descriptors
//        complete in order (H2C CIDX, status writeback, SDI interrupt).
//        Reads and emission overlap,
//        so a long message streams through a bounded buffer. Queues are
//        served round-robin packet by packet.
//   C2H  A packet the network interface delivers is steered by
//        CONTEXT_QUEUE[context ID] to a queue; it takes that queue's next C2H buffer (descriptors fetched
//        by DMA as needed), its payload is DMA-written there, then a
//        completion entry goes to the CMPT ring (colour flips on wrap),
//        status writeback and coalesced interrupt follow, and only then are
//        the packet released to the interface (its credits go back).
//   Back-pressure instead of loss: with no C2H buffer posted, the CMPT ring
//        full, the queue disabled or stopped in error, packets for the queue
//        wait in the receive buffer (they are not released) until a
//        doorbell, enable or reset lets them through. Real QDMA drops in
//        this case; we do not, so ERROR_STATUS.C2H_NO_BUFFER/CMPT_OVERFLOW
//        never mean "dropped" here (C2H_NO_BUFFER reports BufferTooSmall).
//   Errors stop the queue's ring (status ERROR + ERROR_CODE), set the
//        ERROR_STATUS bit, ERROR_QUEUE and ERROR_ADDRESS, write the status
//        with its error flag (if STATUS_ENABLE), raise ERROR_MSIX if
//        ERROR_IRQ_ENABLE has the bit, and SC_REPORT_WARNING. Until
//        QUEUE_COMMAND.RESET the ring does nothing.
//
// Sockets:
//   regs       target     BAR0 registers from PcieEndpoint::bar0 (aligned
//                         dwords; never waits)
//   dma        initiator  to PcieEndpoint::dma (host addresses)
//   irq        initiator  MSI-X vector requests to PcieEndpoint::irq
// (the network side is the NetworkInterface's: PacketNetworkInterface's
// tx, tx_credit, rx, rx_credit)
//
// Not modelled: the QDMA's internal pipeline latency and descriptor engine
// parallelism (one fetch stage serves all queues), memory-mapped (non-stream)
// queues, QDMA's function map and indirect context programming, descriptor
// bypass, the accelerator CSR window (0x6000-0x7FFF reads as unmapped).
// Identity rank mapping (the interface's): rank r is node r.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/dma_tag_extension.h"
#include "isvp/network_interface.h"
#include "isvp/qdma_coalescer.h"
#include "isvp/qdma_config.h"
#include "isvp/qdma_h2c_framer.h"
#include "isvp/qdma_ring.h"
#include "isvp/register_map.h"
#include "isvp/sim_now.h"
#include "isvp/target_socket.h"

namespace isvp {

class Qdma : public sc_core::sc_module, private NetworkReceiver {
  public:
    isvp::BlockingTargetSocket<Qdma> regs;         ///< BAR0 registers
    tlm_utils::simple_initiator_socket<Qdma> dma;  ///< DMA to host memory through the endpoint
    tlm_utils::simple_initiator_socket<Qdma> irq;  ///< MSI-X vector requests

    /// `network`: the node's network interface (outlives the QDMA); its
    /// endpoint and endpoint count are NODE_ADDRESS and NODE_COUNT.
    /// Throws ConfigError on a bad config.
    Qdma(sc_core::sc_module_name name, const QdmaConfig& config, NetworkInterface& network);

    /// Counters for statistics and tests.
    struct Statistics {
        /// Every field once, with its JSON key (isvp/statistics_table.h).
        template <class Self, class Visitor>
        static void visit(Self& self, Visitor&& field) {
            field("h2c_packets", self.h2c_packets);
            field("h2c_payload_bytes", self.h2c_payload_bytes);
            field("h2c_descriptors", self.h2c_descriptors);
            field("h2c_descriptor_fetches", self.h2c_descriptor_fetches);
            field("c2h_packets", self.c2h_packets);
            field("c2h_payload_bytes", self.c2h_payload_bytes);
            field("c2h_stalls", self.c2h_stalls);
            field("rx_dropped", self.rx_dropped);
            field("interrupts", self.interrupts);
            field("queue_errors", self.queue_errors);
        }

        std::uint64_t h2c_packets = 0;             ///< packets sent to the network
        std::uint64_t h2c_payload_bytes = 0;       ///< their payload bytes
        std::uint64_t h2c_descriptors = 0;         ///< H2C descriptors completed
        std::uint64_t h2c_descriptor_fetches = 0;  ///< H2C descriptor fetch DMAs (a batch each)
        std::uint64_t c2h_packets = 0;             ///< packets delivered to C2H buffers
        std::uint64_t c2h_payload_bytes = 0;       ///< their payload bytes
        std::uint64_t c2h_stalls = 0;              ///< times a queue held packets (back-pressure)
        std::uint64_t rx_dropped = 0;              ///< malformed packets dropped
        std::uint64_t interrupts = 0;              ///< MSI-X vector requests sent
        std::uint64_t queue_errors = 0;            ///< rings stopped in error
    };
    const Statistics& statistics() const { return statistics_; }
    const QdmaConfig& configuration() const { return config_; }
    /// Packets between this node and node `peer` (this node's to it when
    /// `sending`) were lost for good: queued for the LINK_FAULT register,
    /// ERROR_STATUS.LINK_FAULT set, the error interrupt raised if enabled.
    /// `from`, `to`: the cable they were dropped on, as LINK_FAULT_FROM and
    /// LINK_FAULT_TO read (regmap::link_fault_link; 0: not named).
    void link_fault(std::uint16_t peer, bool sending, std::uint64_t packets, std::uint32_t from = 0,
                    std::uint32_t to = 0);

  private:
    enum class Ring { H2c, C2h, Cmpt };

    /// A fetched H2C descriptor, usable from `available`.
    struct FetchedH2c {
        regmap::H2cDescriptor descriptor{};
        std::uint32_t index = 0;     ///< ring index
        sc_core::sc_time available;  ///< when its fetch completed
    };
    /// A fetched C2H descriptor (receive buffer address).
    struct FetchedC2h {
        std::uint64_t address = 0;   ///< receive buffer in host memory
        std::uint32_t index = 0;     ///< ring index
        sc_core::sc_time available;  ///< when its fetch completed
    };
    /// A descriptor fetch that failed; reported when the engine gets there.
    struct FetchFailure {
        bool failed = false;        ///< a fetch failed; nothing is fetched after it
        std::uint64_t address = 0;  ///< host address of the fetch
        std::uint32_t index = 0;    ///< first ring index it covered
        sc_core::sc_time at;        ///< when the error response arrived
    };

    struct H2cState {
        explicit H2cState(std::uint32_t endpoints) : framer(endpoints) {}
        std::uint32_t base_lo = 0, base_hi = 0;               ///< H2C_BASE registers
        std::uint32_t control = 0;                            ///< H2C_CONTROL
        bool enabled = false;                                 ///< ENABLE, latched with ring and base
        RingIndex ring;                                       ///< latched ring geometry
        std::uint64_t base = 0;                               ///< latched ring address
        std::uint32_t sw_pidx = 0;                            ///< last H2C_PIDX doorbell
        std::uint32_t hw_cidx = 0;                            ///< descriptors completed
        regmap::QueueError error = regmap::QueueError::None;  ///< visible error state
        std::uint64_t epoch = 0;                              ///< bumped by reset; stale work is dropped
        // fetch stage
        bool scheduled = false;                      ///< in the fetch stage's round-robin list
        bool stopped = false;                        ///< fetch stage found an error (visible later)
        std::uint32_t fetch_index = 0;               ///< next ring index to fetch
        std::uint32_t next_index = 0;                ///< next ring index to process
        std::deque<FetchedH2c> cache;                ///< fetched, not yet processed
        FetchFailure fetch_failure;                  ///< a failed fetch ahead
        H2cFramer framer;                            ///< SOP/EOP/length/header checks
        bool have_descriptor = false;                ///< `current` is being consumed
        FetchedH2c current;                          ///< descriptor being consumed
        std::uint32_t consumed = 0;                  ///< bytes of `current` read so far
        sc_core::sc_time current_ready;              ///< when all of `current` read so far has arrived
        std::array<std::uint8_t, 8> header_bytes{};  ///< processor header being read
        std::uint32_t header_fill = 0;               ///< header bytes read
        sc_core::sc_time header_ready;               ///< when the header arrived
        std::uint32_t next_packet = 0;               ///< index of the message's next network packet
        OutgoingPacket packet;                       ///< packet being filled (framed by the interface)
        std::uint32_t packet_fill = 0;               ///< payload bytes read into it
        std::uint32_t packet_offset = 0;             ///< its payload's offset in the message, B
        sc_core::sc_time packet_ready;               ///< when its data will all have arrived
        InterruptCoalescer interrupt;                ///< SDI interrupt arming
    };

    struct C2hState {
        std::uint32_t base_lo = 0, base_hi = 0;               ///< C2H_BASE registers
        std::uint32_t control = 0;                            ///< C2H_CONTROL
        std::uint32_t buffer_bytes = 0;                       ///< C2H_BUFFER_BYTES
        bool enabled = false;                                 ///< ENABLE, latched with ring and base
        RingIndex ring;                                       ///< latched ring geometry
        std::uint64_t base = 0;                               ///< latched ring address
        std::uint32_t sw_pidx = 0;                            ///< buffers posted (C2H_PIDX)
        std::uint32_t hw_cidx = 0;                            ///< buffers used
        regmap::QueueError error = regmap::QueueError::None;  ///< visible error state
        std::uint32_t fetch_index = 0;                        ///< next ring index to fetch
        std::deque<FetchedC2h> cache;                         ///< fetched buffers, not yet used
        FetchFailure fetch_failure;                           ///< a failed fetch ahead
        std::deque<IncomingPacket> pending;                   ///< packets steered here, waiting
        bool scheduled = false;                               ///< in the C2H engine's list (or being served)
        bool blocked = false;                                 ///< waiting for a register event
    };

    struct CmptState {
        std::uint32_t base_lo = 0, base_hi = 0;               ///< CMPT_BASE registers
        std::uint32_t control = 0;                            ///< CMPT_CONTROL
        std::uint32_t coalesce = 0;                           ///< CMPT_COALESCE
        bool enabled = false;                                 ///< ENABLE, latched with ring and base
        std::uint64_t base = 0;                               ///< latched ring address
        CompletionProducer producer;                          ///< PIDX and colour (ring geometry latched)
        std::uint32_t sw_cidx = 0;                            ///< entries consumed (CMPT_CIDX)
        regmap::QueueError error = regmap::QueueError::None;  ///< visible error state
        InterruptCoalescer interrupt;                         ///< coalescing and arming
    };

    /// A queue's PIO window (register_map.h, PIO(q)): the processor packet
    /// being written into it by posted MMIO writes.
    struct PioState {
        std::array<std::uint8_t, regmap::PIO_STRIDE> bytes{};  ///< the packet so far
        std::uint32_t fill = 0;                                ///< bytes written (next offset expected)
        bool discarding = false;  ///< a refused packet: ignore writes until one at offset 0
    };

    struct Queue {
        explicit Queue(std::uint32_t endpoints) : h2c(endpoints) {}
        H2cState h2c;    ///< host-to-card ring and fetch state
        C2hState c2h;    ///< card-to-host ring and held packets
        CmptState cmpt;  ///< completion ring and interrupt
        PioState pio;    ///< PIO window
    };

    /// Work between the H2C fetch and emit stages, in order.
    struct H2cItem {
        enum class Kind { Packet, Completion, Error } kind = Kind::Packet;  ///< what it is
        unsigned queue = 0;                                                 ///< the queue it belongs to
        std::uint64_t epoch = 0;                                            ///< queue epoch when queued
        sc_core::sc_time at;                                                ///< not before this time
        OutgoingPacket packet;                                              ///< Packet
        std::uint32_t window_bytes = 0;                                     ///< Packet: staging bytes held
        std::uint32_t next_cidx = 0;                                        ///< Completion: CIDX after the descriptor
        bool sdi = false;                                                   ///< Completion: the descriptor had SDI
        regmap::QueueError error = regmap::QueueError::None;                ///< Error
        std::uint64_t address = 0;                                          ///< Error: ERROR_ADDRESS
        std::string detail;                                                 ///< Error: for the warning
    };
    enum class StepResult { Produced, Idle, Waiting, WindowFull };

    // registers (qdma_registers.cpp)
    void regs_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    std::uint32_t read_register(std::uint32_t offset);
    void write_register(std::uint32_t offset, std::uint32_t value);
    std::optional<std::uint32_t> read_queue_register(unsigned q, std::uint32_t reg);
    bool write_queue_register(unsigned q, std::uint32_t reg, std::uint32_t value);
    void write_doorbell(unsigned q, std::uint32_t reg, std::uint32_t value, std::uint32_t offset);
    void write_control(unsigned q, Ring ring, std::uint32_t value);
    void reset_queue(unsigned q);
    // PIO send path (qdma_pio.cpp)
    void write_pio(unsigned q, std::uint32_t window_offset, std::uint32_t value);
    void refuse_pio(unsigned q, std::uint32_t window_offset, const std::string& why);
    void send_pio(unsigned q);
    void reset_h2c(unsigned q);
    void reset_c2h(unsigned q);
    void reset_cmpt(unsigned q);
    void unmapped_access(std::uint32_t offset, bool read);
    void queue_error(unsigned q, Ring ring, regmap::QueueError error, std::uint64_t address, const std::string& detail);
    void global_error(std::uint32_t bit, std::optional<std::uint64_t> address);
    void raise_vector(unsigned vector);
    /// Starts a coalescing timer of queue `q` for time `at` (resolution units).
    void schedule_timer(unsigned q, std::uint64_t at);
    /// SC_METHOD: coalescing timers whose time has come.
    void expire_cmpt_timers();

    // H2C (qdma_h2c.cpp)
    /// SC_METHOD: the fetch stage (round-robin over queues with work).
    void h2c_fetch_method();
    /// SC_METHOD: the emit stage (items to the network interface, in order).
    void h2c_emit_method();
    StepResult h2c_step(unsigned q, sc_core::sc_time& wake_at);
    void h2c_prefetch(unsigned q);
    void h2c_stop(unsigned q, regmap::QueueError error, std::uint64_t address, sc_core::sc_time at,
                  const std::string& detail);
    void h2c_start_packet(unsigned q);
    /// Frees the packet being filled, if any, and its staging space.
    void h2c_drop_packet(unsigned q);
    void h2c_schedule(unsigned q);
    void h2c_discard(H2cItem& item);
    void h2c_send(H2cItem& item);
    void h2c_complete(H2cItem& item);
    bool h2c_writeback(unsigned q);

    // C2H (qdma_c2h.cpp)
    void on_receive(const IncomingPacket& packet) override;
    void on_malformed(const std::string& why) override;
    /// SC_THREAD: the C2H engine (round-robin over queues with packets). A
    /// thread, not a method: see models/qdma/README.md, "Processes".
    void c2h_thread();
    bool c2h_deliver(unsigned q);
    void c2h_prefetch(unsigned q);
    void c2h_wake(unsigned q);
    bool cmpt_writeback(unsigned q);

    /// One DMA transaction at the current time; returns whether the host
    /// accepted it and sets `done` to when it completes (read data arrived /
    /// write data sent). `tag` says what it is for (the PCIe transaction
    /// log names it; no timing depends on it).
    bool dma_access(tlm::tlm_command command, std::uint64_t address, std::uint8_t* data, std::uint32_t bytes,
                    sc_core::sc_time& done, const DmaTag& tag);
    /// Simulated time in SystemC resolution units (the coalescers' unit).
    std::uint64_t now_units() const { return sim_now().value(); }
    std::string queue_name(unsigned q, Ring ring) const;
    static std::string hex(std::uint64_t value);

    QdmaConfig config_;           ///< parameters
    NetworkInterface& network_;   ///< the node's port to the network (NODE_ADDRESS, NODE_COUNT)
    MessageSegmenter segmenter_;  ///< message -> network packets
    /// qdma.queues queue contexts, each made when first touched (a register
    /// access, a packet steered to it): a driver uses a few of the 64, and
    /// an untouched context is in its constructed state, so the others cost a pointer
    /// each instead of ≈ 3 KB (1024 nodes: ≈ 190 MB less to allocate and clear).
    std::vector<std::unique_ptr<Queue>> queues_;
    InterruptCoalescer coalescer_reset_;  ///< a new context's CMPT coalescer
    /// Queue q's context (made in its reset state if it was never touched).
    Queue& queue_at(unsigned q) {
        std::unique_ptr<Queue>& slot = queues_[q];
        if (!slot) {
            slot = std::make_unique<Queue>(network_.endpoints());
            slot->cmpt.interrupt = coalescer_reset_;
        }
        return *slot;
    }

    // global registers
    std::uint32_t scratch_ = 0;           ///< SCRATCH
    std::uint32_t error_status_ = 0;      ///< ERROR_STATUS (sticky, RW1C)
    std::uint32_t error_queue_ = 0;       ///< ERROR_QUEUE
    std::uint64_t error_address_ = 0;     ///< ERROR_ADDRESS_LO/HI
    std::uint32_t error_msix_ = 0;        ///< ERROR_MSIX
    std::uint32_t error_irq_enable_ = 0;  ///< ERROR_IRQ_ENABLE
    /// A LINK_FAULT entry and the cable it names.
    struct LinkFaultEntry {
        std::uint32_t entry = 0;  ///< LINK_FAULT
        std::uint32_t from = 0;   ///< LINK_FAULT_FROM
        std::uint32_t to = 0;     ///< LINK_FAULT_TO
    };
    std::deque<LinkFaultEntry> link_faults_;  ///< LINK_FAULT entries not read, oldest first
    LinkFaultEntry link_fault_read_;          ///< the entry LINK_FAULT read last (LINK_FAULT_FROM/TO)
    std::array<std::uint32_t, regmap::kRingSizeCount> ring_sizes_{};    ///< RING_SIZE table
    std::array<std::uint32_t, regmap::kContextCount> context_queue_{};  ///< CONTEXT_QUEUE steering

    // H2C engine
    std::deque<unsigned> h2c_ready_;     ///< queues with H2C work, round-robin
    std::deque<H2cItem> h2c_items_;      ///< fetch stage -> emit stage
    std::uint32_t window_used_ = 0;      ///< staging bytes held by queued packets
    sc_core::sc_event h2c_work_event_;   ///< a doorbell or enable gave the fetch stage work
    sc_core::sc_event h2c_item_event_;   ///< an item for the emit stage
    sc_core::sc_event window_event_;     ///< staging bytes were freed
    sc_core::sc_event h2c_reset_event_;  ///< a queue was reset (stale items to drop)
    /// The or-lists the H2C stages wait on, made once (an `a | b` in
    /// next_trigger allocates a list per call).
    sc_core::sc_event_or_list window_or_work_;  ///< window_event_ | h2c_work_event_
    sc_core::sc_event_or_list space_or_reset_;  ///< the interface's space_event() | h2c_reset_event_

    // C2H engine
    std::deque<unsigned> c2h_ready_;                      ///< queues with packets to deliver
    sc_core::sc_event c2h_event_;                         ///< a queue became ready
    std::multimap<std::uint64_t, unsigned> cmpt_timers_;  ///< coalescing timers: (time, queue)
    sc_core::sc_event cmpt_timer_event_;                  ///< the earliest coalescing timer is due

    std::vector<std::uint8_t> fetch_buffer_;  ///< descriptor fetch staging
    tlm::tlm_generic_payload dma_payload_;    ///< reused for every DMA (no process waits in between)
    DmaTagExtension dma_tag_;                 ///< set on dma_payload_ for the duration of each DMA
    Statistics statistics_;                   ///< counters
};

}  // namespace isvp
