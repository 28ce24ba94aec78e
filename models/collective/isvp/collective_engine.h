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
// they leave). Collective requests from the host are reassembled, checked
// against the communicator table, and run as the Fold::Hypercube schedule:
// each step's blocks go to the peer as network packets, peers' packets are
// reassembled (early ones buffered, bounded by collective.early_buffer_bytes)
// and copied or combined with the AgLU in the schedule's operand order.
//
// Abstraction: packet-level, approximately timed, event-driven. Per-step
// execution (a step's receive is applied when the whole transfer is in; the
// AgLU's busy cycles for it are charged at collective.clock_mhz before the
// next step starts); not chunk-streamed yet. One VC (0) on every port.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aglu_engine.h"
#include "isvp/collective_core.h"
#include "isvp/packet_channel.h"
#include "isvp/parameters.h"

namespace isvp {

/// Parameters of the collective engine (collective.*; models/collective/README.md).
struct CollectiveConfig {
    double clock_mhz = 250.0;                   ///< engine/AgLU clock, MHz
    std::uint32_t packet_payload_bytes = 1024;  ///< payload per generated packet (power of two, 16..16384)
    unsigned phits_per_cycle = 2;               ///< output serialisation width, phits per cycle
    std::uint32_t host_buffer_phits = 512;      ///< host_in buffer (credits granted to the QDMA)
    std::uint32_t net_buffer_phits = 512;       ///< net_in buffer (credits granted to the router)
    /// Peers' step data held before it is consumed; beyond it the engine holds
    /// back network credits. Known limit: that back-pressure can block the
    /// very packets a node waits for (a buffer deadlock, reported by the
    /// scheduler, not a hang), so the default equals max_buffer_bytes; a
    /// deadlock-free scheme (a collective VC or per-step windows) is open.
    std::uint64_t early_buffer_bytes = 64ull << 20;
    std::uint64_t max_buffer_bytes = 64ull << 20;  ///< largest collective buffer (blocks x block bytes)
    unsigned cgr_units = 4;                        ///< reported in ACCEL_CAPABILITIES (not a limit yet)
    unsigned radix = 7;                            ///< reported in ACCEL_CAPABILITIES

    static void declare(Parameters& parameters);
    static CollectiveConfig from(const Parameters& parameters);
    void validate() const;
};

/// Counters (also ACCEL_DROPPED / ACCEL_ERRORS).
struct CollectiveStatistics {
    std::uint64_t collectives = 0;        ///< completed without error
    std::uint64_t errors = 0;             ///< completed with an error result (ACCEL_ERRORS)
    std::uint64_t dropped = 0;            ///< collective packets dropped (ACCEL_DROPPED)
    std::uint64_t step_packets_sent = 0;  ///< to peers
    std::uint64_t result_packets = 0;     ///< to the host
    std::uint64_t passed_to_network = 0;  ///< Send packets host -> network
    std::uint64_t passed_to_host = 0;     ///< Send packets network -> host
    std::uint64_t aglu_cycles = 0;        ///< AgLU busy cycles charged
};

class CollectiveEngine : public sc_core::sc_module {
  public:
    using Target = tlm_utils::simple_target_socket<CollectiveEngine>;
    using Initiator = tlm_utils::simple_initiator_socket<CollectiveEngine>;

    Target host_in;            ///< packets from the QDMA (tx)
    Initiator host_in_credit;  ///< credits to the QDMA (tx_credit)
    Initiator host_out;        ///< packets to the QDMA (rx)
    Target host_out_credit;    ///< credits from the QDMA (rx_credit)
    Initiator net_out;         ///< packets to the router's inject port
    Target net_out_credit;     ///< credits from it
    Target net_in;             ///< packets from the router's eject port
    Initiator net_in_credit;   ///< credits to it
    Target csr;                ///< BAR0 offsets 0x6000..0x7FFF, 4-byte aligned accesses

    /// `node`: this switch's node address; `nodes`: nodes in the network.
    /// Throws ConfigError for a bad config.
    CollectiveEngine(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes, const AgluConfig& aglu,
                     const CollectiveConfig& config);
    ~CollectiveEngine() override;

    const CollectiveStatistics& statistics() const { return statistics_; }
    std::size_t live_packets() const { return pool_.live(); }

  private:
    enum class CreditTo : std::uint8_t { None, HostIn, NetIn };
    struct Outgoing {
        tlm::tlm_generic_payload* packet = nullptr;  ///< acquired by us
        CreditTo credit_to = CreditTo::None;         ///< upstream to credit when it leaves (pass-through)
    };
    using Arrival = std::pair<sc_core::sc_time, std::uint32_t>;  ///< (when, phits)
    /// One output: a FIFO, its credits (VC 0) and its serialiser.
    struct OutPort {
        Initiator* socket = nullptr;
        std::deque<Outgoing> queue;  ///< waiting packets, in order
        std::int64_t credits = 0;    ///< VC 0, usable now
        std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> arriving;  ///< credits in flight
        sc_core::sc_time free_at;                                                            ///< serialiser free
        sc_core::sc_event wake;                                                              ///< re-run the sender
    };
    /// A collective packet as both inputs first see it.
    struct Arrived {
        std::optional<NetworkPacketView> view;  ///< the parsed packet
        std::uint32_t phits = 0;                ///< its size in credits
        sc_core::sc_time tail;                  ///< when its tail has arrived (credits go back then)
    };
    /// Common start of both inputs: parses the packet, drops a malformed one
    /// and sends point-to-point packets straight on to `pass_to` (credits
    /// handled); returns only collective packets.
    std::optional<Arrived> arrive(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay, CreditTo from,
                                  OutPort& pass_to, std::uint64_t& passed);
    /// A host request being reassembled or waiting to run.
    struct Request {
        NetworkHeader network;            ///< of its first packet
        ProcessorHeader processor;        ///< rank = root (replaced by the converter)
        std::vector<std::uint8_t> bytes;  ///< envelope + contribution
        std::uint32_t received = 0;       ///< payload bytes in
        bool open = false;                ///< reassembly in progress
    };
    /// The collective running on one context.
    struct Active {
        bool running = false;
        Opcode opcode = Opcode::Send;
        std::uint8_t operation = 0, datatype = 0, algorithm = 0;
        CollectiveEnvelope envelope;
        CtRow row;     ///< copied at start (a RELEASE does not disturb it)
        int rank = 0;  ///< own comm rank
        Schedule schedule;
        std::uint64_t block_bytes = 0;
        std::vector<std::uint8_t> buffer;  ///< blocks x block_bytes
        std::size_t step = 0;              ///< next step to run
        bool sent = false;                 ///< this step's send is queued
        sc_core::sc_time resume_at;        ///< AgLU busy until
    };
    struct Context {
        Request assembly;             ///< request being reassembled
        std::deque<Request> waiting;  ///< complete requests, in arrival (sequence) order
        Active active;
    };

    void grant_initial_credits();
    void on_host_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(OutPort& port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit_net(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { on_credit(net_port_, p, d); }
    void on_credit_host(tlm::tlm_generic_payload& p, sc_core::sc_time& d) { on_credit(host_port_, p, d); }
    void on_csr(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void drain(OutPort& port);
    void drain_net() { drain(net_port_); }
    void drain_host() { drain(host_port_); }
    void on_resume();

    void progress(unsigned context);
    bool start(unsigned context, Request& request);
    void finish(unsigned context);
    void fail(unsigned context, std::uint8_t opcode_code, const NetworkHeader& network, int rank, CollectiveError code,
              const std::string& why);
    std::optional<std::uint16_t> peer_node(const Active& active, int peer) const;
    std::uint64_t apply(Active& active, const Step& step, const MessageStore::Message& message);
    void emit(OutPort& port, NetworkHeader network, ProcessorHeader processor, const std::uint8_t* data,
              std::uint32_t bytes);
    void return_credits(CreditTo to, std::uint32_t phits, const sc_core::sc_time& delay);
    void release_deferred_credits();
    void drop(const std::string& why);
    std::vector<std::uint8_t> take_buffer();

    std::uint16_t node_;                                    ///< this switch's node address
    unsigned nodes_;                                        ///< nodes in the network
    CollectiveConfig config_;                               ///< parameters
    std::unique_ptr<AgluEngine> aglu_;                      ///< the CGR's AgLU
    sc_core::sc_time cycle_;                                ///< one engine clock cycle
    std::uint8_t size_code_ = 0;                            ///< size code of generated packets
    PacketPool pool_;                                       ///< generated packets
    CreditMessage host_credit_message_;                     ///< credit returns to the QDMA
    CreditMessage net_credit_message_;                      ///< credit returns to the router
    OutPort net_port_;                                      ///< to the router
    OutPort host_port_;                                     ///< to the QDMA
    std::array<Context, regmap::kContextCount> contexts_;   ///< per context ID
    std::array<CtRow, regmap::kContextCount> ct_;           ///< the communicator table
    CtRow::Dwords staging_{};                               ///< CT_STAGING
    std::uint32_t ct_select_ = 0;                           ///< CT_SELECT
    std::vector<std::uint16_t> forwarding_;                 ///< global rank -> node (65536 entries, identity at reset)
    std::uint32_t forward_index_ = 0;                       ///< FORWARD_INDEX
    MessageStore store_;                                    ///< peers' step messages
    std::uint32_t deferred_net_credits_ = 0;                ///< net_in credits held back (early buffer full)
    std::vector<std::vector<std::uint8_t>> spare_buffers_;  ///< recycled request/collective buffers
    std::vector<Vector256> scratch_a_, scratch_b_;          ///< AgLU operands (reused)
    std::vector<std::uint8_t> scratch_stream_;              ///< gathered local spans (reused)
    sc_core::sc_event_queue resume_;                        ///< an AgLU busy period ended
    CollectiveStatistics statistics_;
};

}  // namespace isvp
