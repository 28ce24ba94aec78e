// AuroraLink: one direction of an Aurora 64B/66B cable between two FPGAs.
//
// Abstraction: packet-level, approximately timed, no processes of its own.
// Packets arrive on `in` (from the upstream router's output) and leave on
// `out` (to the downstream router's input) following the packet channel
// protocol (packet_channel.h); credits arrive on `credit_in` from the
// downstream router and leave on `credit_out` to the upstream router, one
// link latency later. A cable is two AuroraLinks, one per direction.
//
// Timing (see aurora_config.h for the frame arithmetic):
//   * the serialiser is a busy-until resource: a packet starts when its head
//     has arrived and the previous packet has left, and occupies the lanes
//     for its serialisation time (user bytes + per-frame overhead);
//   * the receiver checks the CRC-32 once the last frame is in, so the
//     packet is handed on whole (store-and-forward) aurora.latency_ns after
//     serialisation ends: single-packet latency = latency + serialisation;
//   * credits travel back in one link latency.
//
// Errors: with aurora.bit_error_rate > 0 the sender computes a real CRC-32
// over the packet bytes, a seeded generator flips a bit of the receiver's
// copy (packet or CRC word, never the sender's buffer) and the receiver's
// recomputed CRC disagrees. With no errors injected no frame can fail, so
// the CRC is skipped unless aurora.crc = always (it would only cost time). aurora.on_crc_error = retry: the receiver
// NAKs, the sender replays from its buffer (go-back-N: the lanes carry nothing useful until the NAK is back), costing 2
// x latency + serialisation per replay; after aurora.max_retransmissions failed replays the packet is dropped. drop:
// the packet is discarded, counted and reported, and its credits are returned upstream as if the receiver had freed
// them.
//
// Not modelled: lane skew and deskew, clock compensation as separate events
// (folded into the frame overhead), link training and loss of lock, credit
// messages consuming reverse-direction bandwidth, multi-bit errors that a
// CRC-32 could miss.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aurora_config.h"
#include "isvp/bit_error_injector.h"
#include "isvp/packet_channel.h"

namespace isvp {

/// Counters of one link direction.
struct AuroraLinkStatistics {
    /// Every field once, with its JSON key (isvp/statistics_table.h).
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("packets", self.packets);
        field("bytes", self.bytes);
        field("crc_errors", self.crc_errors);
        field("retransmissions", self.retransmissions);
        field("dropped", self.dropped);
        field("busy_ns", self.busy_time);
    }

    std::uint64_t packets = 0;          ///< packets delivered intact
    std::uint64_t bytes = 0;            ///< bytes of those packets
    std::uint64_t crc_errors = 0;       ///< receptions whose CRC did not match
    std::uint64_t retransmissions = 0;  ///< replays sent (retry mode)
    std::uint64_t dropped = 0;          ///< packets discarded after CRC errors
    sc_core::sc_time busy_time;         ///< serialiser busy, replays included
};

class AuroraLink : public sc_core::sc_module {
  public:
    tlm::tlm_target_socket<> in;                                ///< packets from the upstream router
    tlm_utils::simple_initiator_socket<AuroraLink> credit_out;  ///< credits to the upstream router
    tlm_utils::simple_initiator_socket<AuroraLink> out;         ///< packets to the downstream router
    tlm::tlm_target_socket<> credit_in;                         ///< credits from the downstream router

    /// `stream` distinguishes the bit-error sequence of this link from the
    /// others sharing aurora.seed (the fabric passes the link's index).
    AuroraLink(sc_core::sc_module_name name, const AuroraConfig& config, std::uint64_t stream = 0);

    const AuroraConfig& config() const { return config_; }
    const AuroraTiming& timing() const { return timing_; }
    /// Counters now (a copy: part of them sits with the per-packet state).
    AuroraLinkStatistics statistics() const;
    /// Fraction of `elapsed` the serialiser was busy.
    double utilisation(const sc_core::sc_time& elapsed) const;
    /// Called with the packet's side information whenever this link drops a
    /// packet (the link's error status, read by whoever reports losses).
    void set_drop_observer(std::function<void(const PacketInfo&)> observer) { drop_observer_ = std::move(observer); }
    /// Warn about the first `count` drops only (then once that further drops
    /// are counted, not reported): for platforms that recover dropped packets.
    void limit_drop_warnings(std::uint64_t count) { drop_warnings_ = count; }
    /// Credits from a downstream router in another partition of a
    /// distributed simulation (PartitionBoundary): they reach the upstream
    /// router after `delay`, the link's latency already counted.
    void return_credits(std::uint8_t vc, std::uint32_t phits, sc_core::sc_time delay);

  private:
    /// Forwards blocking transport on `in` to on_packet (see
    /// BlockingTransportTarget): the path of a link that computes CRCs or
    /// injects errors.
    class PacketTarget final : public BlockingTransportTarget {
      public:
        explicit PacketTarget(AuroraLink& link) : link_(&link) {}
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            link_->on_packet(payload, delay);
        }

      private:
        AuroraLink* link_;  ///< owner
    };
    /// The same for `credit_in` and on_credit.
    class CreditTarget final : public BlockingTransportTarget {
      public:
        explicit CreditTarget(AuroraLink& link) : link_(&link) {}
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            link_->on_credit(payload, delay);
        }
        /// Credits only take the link's latency (on_credit): the route of
        /// the receiver bound to `credit_out`, one latency later.
        bool credit_route(CreditRoute& route) const override { return link_->credit_route(route); }

      private:
        AuroraLink* link_;  ///< owner
    };
    /// What every packet touches, and on a link without CRC or errors (no
    /// frame can fail: the common case) the target `in` is bound to, so
    /// that a packet reads these two lines of the link and nothing else of
    /// it, where it read three (a 512-node torus has 3,072 links, each cold
    /// again by the time its next packet comes; docs/PERFORMANCE.md,
    /// "Session 27"). The target interface's virtual bases put one vtable
    /// pointer at the front and three at the end, and a b_transport call
    /// reads the front one and the blocking interface's at the end: with at
    /// most 96 bytes of fields between them, both are in the two lines.
    /// Packets of one size follow each other, so the counters keep the
    /// packets since the size last changed (their bytes are that many times
    /// the size) and fold them into the totals when it changes, beside the
    /// two-size cache of serialisation times.
    struct alignas(64) Path final : public BlockingTransportTarget {
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;
        /// serialised_length becomes `length` (its serialisation time from
        /// the cache or computed); the counters of the old size are folded.
        void serialise(std::uint32_t length);
        /// A packet of serialised_length bytes whose transmission ends at
        /// `end` is delivered: counted, and handed to the receiver whole
        /// one latency later (both paths of the link end here).
        void hand_on(tlm::tlm_generic_payload& payload, PacketInfo& info, const sc_core::sc_time& end,
                     const sc_core::sc_time& now);

        tlm::tlm_fw_transport_if<>* out_if = nullptr;  ///< receiver bound to `out`
        sc_core::sc_time latency;                      ///< aurora.latency_ns as a time
        sc_core::sc_time serialiser_free;              ///< when the lanes can start the next packet
        sc_core::sc_time serialisation;                ///< serialisation time of serialised_length bytes
        sc_core::sc_time busy_time;                    ///< serialiser busy, replays included
        std::uint64_t packets_at_length = 0;           ///< delivered since serialised_length was set
        std::uint32_t serialised_length = 0;           ///< length of the last packet serialised (bytes)
        std::uint32_t previous_length = 0;             ///< the length serialised before it (bytes)
        sc_core::sc_time previous_serialisation;       ///< and its time
        std::uint64_t packets_before = 0;              ///< delivered at earlier sizes
        std::uint64_t bytes_before = 0;                ///< their bytes
        AuroraLink* link = nullptr;                    ///< owner (names and reports)
    };
    static_assert(sizeof(Path) == 128, "what a packet touches: two lines, vtable pointers included");

    void start_of_simulation() override;
    void on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    bool credit_route(CreditRoute& route);
    /// The receiver's CRC check of one transmission; `flipped_bit` (if any)
    /// is a position in packet bytes followed by the 4-byte CRC word.
    bool receiver_crc_matches(const std::uint8_t* bytes, std::size_t length, std::uint32_t sent_crc,
                              const std::uint64_t* flipped_bit);
    /// The downstream receiver refused a credited packet: a modelling bug.
    void report_refused(const PacketInfo& info) const;

    Path path_;                                            ///< per-packet state; `in`'s target without CRC and errors
    PacketTarget packet_target_;                           ///< `in`'s target with CRC or errors
    CreditTarget credit_target_;                           ///< what `credit_in` is bound to
    tlm::tlm_fw_transport_if<>* credit_out_if_ = nullptr;  ///< receiver bound to `credit_out`
    bool with_crc_;                                        ///< frames carry a computed, checked CRC-32
    bool with_errors_;                                     ///< errors_ flips bits (aurora.bit_error_rate > 0)
    AuroraLinkStatistics statistics_;  ///< error counters (packets, bytes and busy time live in path_)
    AuroraTiming timing_;              ///< frame arithmetic derived from the parameters
    BitErrorInjector errors_;          ///< which transmissions get a flipped bit
    // Needed only on errors or for reports.
    AuroraConfig config_;                                   ///< parameters of this link
    std::vector<std::uint8_t> received_;                    ///< receiver's corrupted copy, reused
    tlm::tlm_generic_payload credit_payload_;               ///< credits of dropped packets and from other partitions, reused
    CreditReturn* credit_;                                  ///< its extension (owned by credit_payload_)
    std::function<void(const PacketInfo&)> drop_observer_;  ///< told of each dropped packet, if set
    std::uint64_t drop_warnings_ = ~std::uint64_t{0};       ///< drops that are reported with a warning
};

}  // namespace isvp
