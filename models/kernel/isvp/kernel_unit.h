// KernelUnit: the on-FPGA kernel unit of one node (models/kernel/README.md,
// docs/SMI.md). It holds the kernels compiled into the bitstream
// (kernel_context.h's catalogue), starts one when the host writes
// KERNEL_CONTROL.START (arguments in KERNEL_ARG), runs it as a SystemC
// thread at kernel.clock_mhz, and raises the KERNEL_MSIX interrupt when it
// ends (KERNEL_STATUS done or error, KERNEL_RESULT).
//
// It is also the kernels' SMI backend: channels become network packets of
// opcode stream (packet_format.h) that leave through the collective
// engine's pass-through into the router, like the host's messages, and come
// back the same way. Flow control is end to end per (peer, port): a sender
// holds kernel.window_packets credits and spends one per data packet; the
// receiver returns them as its kernel pops the packets. So a receiving
// unit always takes a packet in at once (it never back-pressures the
// network), and a sender that runs ahead of its receiver stalls in Push.
//
//   engine.kernel_out --> from_engine         to_engine --> engine.kernel_in
//   engine.kernel_out_credit <-- from_engine_credit   to_engine_credit <-- engine.kernel_in_credit
//   BAR0 KERNEL_BASE..KERNEL_END --> csr      irq --> PcieEndpoint.irq (through the node's IrqJoin)
//
// Abstraction: approximately timed. A kernel charges one cycle per Push,
// Pop, Bcast, Reduce, Scatter or Gather (one element per cycle, pipelined)
// and what it charges with compute(); packets are usable when their tail
// has arrived. Not modelled: kernel resources (several kernels at once,
// on-board DRAM: data comes from arguments and leaves in results).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/credited_port.h"
#include "isvp/kernel_context.h"
#include "isvp/packet_channel.h"
#include "isvp/parameters.h"
#include "isvp/sim_now.h"
#include "isvp/target_socket.h"

namespace isvp {

/// Parameters (kernel.*).
struct KernelConfig {
    double clock_mhz = 250.0;                 ///< kernel clock: one element per cycle
    std::uint32_t packet_payload_bytes = 64;  ///< data bytes per stream packet (power of two, 8..1024)
    std::uint32_t window_packets = 64;        ///< data packets a sender may have unconsumed per (receiver, port)
    std::uint32_t rx_buffer_phits = 512;      ///< buffer behind from_engine: credits granted to the engine
    unsigned phits_per_cycle = 2;             ///< output serialisation width toward the engine

    static void declare(Parameters& parameters);
    static KernelConfig from(const Parameters& parameters);
    void validate() const;
};

/// Counters (the node's `kernel` statistics).
struct KernelStatistics {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("launches", self.launches);
        field("completed", self.completed);
        field("errors", self.errors);
        field("data_packets_sent", self.data_packets_sent);
        field("data_packets_received", self.data_packets_received);
        field("credit_packets", self.credit_packets);
        field("abort_packets", self.abort_packets);
        field("elements_pushed", self.elements_pushed);
        field("elements_popped", self.elements_popped);
        field("stall_cycles", self.stall_cycles);
        field("peak_buffered_packets", self.peak_buffered_packets);
        field("dropped", self.dropped);
    }
    std::uint64_t launches = 0;               ///< START accepted
    std::uint64_t completed = 0;              ///< launches that ended done
    std::uint64_t errors = 0;                 ///< launches refused or ended with an error
    std::uint64_t data_packets_sent = 0;      ///< stream data packets to peers
    std::uint64_t data_packets_received = 0;  ///< from peers
    std::uint64_t credit_packets = 0;         ///< credit returns sent
    std::uint64_t abort_packets = 0;          ///< channel refusals sent
    std::uint64_t elements_pushed = 0;        ///< elements sent (a bcast root's element counts once per peer)
    std::uint64_t elements_popped = 0;        ///< elements received
    std::uint64_t stall_cycles = 0;           ///< kernel cycles spent waiting for credits (back-pressure)
    std::uint64_t peak_buffered_packets = 0;  ///< most received packets held for one (peer, port)
    std::uint64_t dropped = 0;                ///< malformed packets from the engine
};

class KernelUnit : public sc_core::sc_module, private SmiBackend {
  public:
    isvp::BlockingTargetSocket<KernelUnit> from_engine;                 ///< stream packets for this node
    tlm_utils::simple_initiator_socket<KernelUnit> from_engine_credit;  ///< credits back to the engine
    tlm_utils::simple_initiator_socket<KernelUnit> to_engine;           ///< stream packets to the network
    isvp::BlockingTargetSocket<KernelUnit> to_engine_credit;            ///< the engine's credits
    isvp::BlockingTargetSocket<KernelUnit> csr;                         ///< BAR0 KERNEL_BASE..KERNEL_END
    tlm_utils::simple_initiator_socket<KernelUnit> irq;                 ///< MSI-X requests (msix_interrupt.h)

    /// `node`: this FPGA's node address (its SMI rank); `nodes`: NODE_COUNT.
    KernelUnit(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes, const KernelConfig& config);
    ~KernelUnit() override;

    const KernelStatistics& statistics() const { return statistics_; }
    std::uint32_t window_packets() const { return config_.window_packets; }

  private:
    /// One received packet of a (peer, port) stream, usable from `ready`.
    struct Received {
        sc_core::sc_time ready;
        bool last = false;  ///< the channel's last packet
        ChannelKind kind;
        std::uint8_t datatype;
        std::uint8_t operation;
        std::uint32_t message_bytes;
        std::vector<std::uint8_t> payload;
    };
    /// Per (peer, port): packets received and not yet consumed, credits not
    /// yet returned (receive side); credits held (send side).
    struct Stream {
        std::deque<Received> packets;
        std::uint32_t unreturned = 0;
        std::int64_t credits = -1;  ///< -1: never used (kernel.window_packets)
        /// Data packets of a channel this rank refused are dropped (their
        /// credits returned) up to its last packet, or the next launch.
        bool discarding = false;
    };
    /// One direction of a channel with one peer.
    struct Lane {
        int peer = 0;
        bool send = false;
        std::uint64_t done = 0;             ///< elements sent / received
        std::vector<std::uint8_t> pending;  ///< send: elements not yet in a packet
        std::size_t position = 0;           ///< receive: bytes of the front packet consumed
        bool checked = false;               ///< receive: the first packet's header was compared
    };
    struct Channel {
        ChannelKind kind;
        bool root = false;  ///< collectives: this rank is the root
        int root_rank = 0;
        std::uint32_t count = 0;  ///< elements per lane
        SMI_Datatype type;
        std::uint32_t element_bytes = 0;
        SMI_Op op = SMI_ADD;
        int port = 0;
        std::vector<Lane> lanes;  ///< by peer rank order (collectives); one for point-to-point
        std::uint64_t calls = 0;  ///< collective calls made
    };

    // SmiBackend
    int rank() const override { return node_; }
    int size() const override { return world_; }
    int open(ChannelKind kind, bool send, int count, SMI_Datatype type, int peer, int port, SMI_Op op) override;
    void push(int channel, const void* data) override;
    void pop(int channel, void* data) override;
    void bcast(int channel, void* data) override;
    void reduce(int channel, const void* data_snd, void* data_rcv) override;
    void scatter(int channel, const void* data_snd, void* data_rcv) override;
    void gather(int channel, const void* data_snd, void* data_rcv) override;
    void compute(std::uint64_t cycles) override;
    void scatter_step(int channel, const void* data_snd, void* data_rcv);
    void gather_step(int channel, const void* data_snd, void* data_rcv);
    std::uint64_t now_ps() const override { return sim_now().value(); }

    Channel& channel(int id, ChannelKind kind, const char* call);
    /// Forgets channel `id` once every element has passed (long kernels open many).
    void forget_if_finished(int id);
    void send_element(Channel& c, Lane& lane, const void* data);
    void receive_element(Channel& c, Lane& lane, void* data);
    void emit(int peer, int port, std::uint8_t kind, const Channel* c, std::uint32_t offset, const std::uint8_t* data,
              std::uint32_t bytes, std::uint8_t packet_kind, bool last);
    void check_peer(int peer, int port);
    /// Returns `packets` credits of (peer, port) to the sender.
    void return_credits(int peer, int port, std::uint8_t kind, std::uint32_t packets);
    [[noreturn]] void refuse_channel(const Channel& c, int peer, std::uint32_t what, const std::string& detail);
    void tick() { wait(cycle_); }

    void on_csr(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_from_engine(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_engine_credit(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { out_.receive_credit(p, d); }
    void grant_initial_credits();
    void drain() {
        out_wake_.woken();
        out_.drain();
        out_.end_of_run();
        out_wake_.rearm();
    }
    void on_arrivals();
    void start(const sc_core::sc_time& delay);
    void run(const KernelDescriptor* kernel, std::array<std::uint64_t, regmap::kKernelArgs> args,
             sc_core::sc_time delay);
    void finish(std::uint32_t state, std::uint32_t code, std::uint32_t detail);
    Stream& stream(int peer, int port) { return streams_[static_cast<std::uint32_t>(peer) << 8 | port]; }

    std::uint16_t node_;               ///< this FPGA's node address = SMI rank
    unsigned nodes_;                   ///< NODE_COUNT
    KernelConfig config_;              ///< kernel.*
    sc_core::sc_time cycle_;           ///< one kernel clock cycle
    NetworkFraming framing_;           ///< headers and VC of its stream packets (at this node's address)
    PacketPool pool_;                  ///< packets this unit sends
    EarliestWake out_wake_;            ///< drain()'s wake-up
    CreditedOutPort out_;              ///< toward the engine's kernel_in
    CreditMessage credit_message_;     ///< credit returns to the engine
    KernelStatistics statistics_;      ///< counters
    sc_core::sc_event arrival_event_;  ///< a data, credit or abort packet became usable
    sc_core::sc_event arrivals_due_;   ///< wakes on_arrivals
    /// Packets taken in, usable at their tail: (time, order, packet).
    struct Arrival {
        sc_core::sc_time at;
        std::uint64_t order;
        int peer;
        int port;
        std::uint8_t packet_kind;
        Received packet;
        bool operator>(const Arrival& o) const { return at != o.at ? at > o.at : order > o.order; }
    };
    std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> arrivals_;
    std::uint64_t arrival_order_ = 0;
    std::map<std::uint32_t, Stream> streams_;                               ///< by peer << 8 | port
    std::map<int, std::pair<std::uint32_t, std::uint32_t>> aborted_peers_;  ///< peer -> (code, detail) this launch
    std::map<int, Channel> channels_;  ///< this launch's open channels, by id (a finished one is forgotten)
    int next_channel_ = 0;             ///< id of the next channel opened
    // Registers
    std::uint32_t kernel_id_ = 0;
    std::array<std::uint64_t, regmap::kKernelArgs> args_{};
    std::array<std::uint64_t, regmap::kKernelResults> results_{};
    std::uint32_t state_ = regmap::kernel_status::kIdle;
    std::uint32_t error_code_ = 0;
    std::uint32_t error_detail_ = 0;
    std::uint32_t launches_ = 0;
    std::uint32_t msix_vector_ = regmap::kKernelDefaultVector;
    std::uint32_t world_register_ = 0;  ///< KERNEL_WORLD_SIZE as written (0: NODE_COUNT)
    int world_ = 0;                     ///< SMI_COMM_WORLD size of the running launch
    std::uint64_t cycles_ = 0;          ///< KERNEL_CYCLES of the last launch
    std::uint32_t running_id_ = 0;      ///< id of the running kernel
};

}  // namespace isvp
