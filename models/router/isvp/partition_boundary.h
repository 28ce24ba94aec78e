// PartitionBoundary: the cut cables of one partition of a distributed
// simulation (docs/PARTITIONS.md). Abstraction: that of the Aurora link it
// stands in for — it adds no timing of its own.
//
// For a channel leaving this partition (local switch -> remote switch) the
// AuroraLink is built here, on the sender's side, as in one process; its
// `out` is bound to the boundary, which records each packet (bytes and
// PacketInfo) with its arrival time at the far router. Credits for that
// channel come back from the other partition and enter the link through
// AuroraLink::return_credits at the time they reach the local router.
// For a channel entering this partition the boundary drives the local
// router's input port and takes its credit returns, recording each with the
// time it reaches the far router (credit delay + the cable's latency).
//
// Recorded traffic waits in per-partition outboxes until the partitions
// synchronise; deliver() then hands the other partitions' traffic to the
// routers and links at its exact arrival times. Every arrival is at least
// one lookahead after it was sent, so it is never in a partition's past.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aurora_link.h"
#include "isvp/packet_channel.h"
#include "isvp/partition_plan.h"
#include "isvp/router.h"

namespace isvp {

/// Traffic that crossed the cut so far (this partition's side).
struct BoundaryStatistics {
    std::uint64_t packets_sent = 0;      ///< packets recorded for other partitions
    std::uint64_t bytes_sent = 0;        ///< their wire bytes (records included)
    std::uint64_t credits_sent = 0;      ///< credit returns recorded
    std::uint64_t packets_received = 0;  ///< packets delivered from other partitions
    std::uint64_t credits_received = 0;  ///< credit returns delivered
};

class PartitionBoundary : public sc_core::sc_module {
  public:
    PartitionBoundary(sc_core::sc_module_name name, const PartitionPlan& plan, unsigned self);

    /// A channel from local switch to a remote one: `link` is its AuroraLink
    /// here; binds link.out to the boundary.
    void attach_outgoing(unsigned channel, AuroraLink& link);
    /// A channel from a remote switch into `router` port `port`: binds the
    /// router's input and credit output to the boundary.
    void attach_incoming(unsigned channel, Router& router, unsigned port);

    /// Encoded traffic for each partition (index = partition) since the last clear.
    const std::vector<std::vector<std::uint8_t>>& outboxes() const { return outboxes_; }
    void clear_outboxes();
    /// Hands traffic another partition recorded (one outbox's bytes) to the
    /// routers and links here, in the order it was recorded; call between
    /// sc_start()s, with SystemC before every arrival time in it.
    void deliver(const std::uint8_t* data, std::size_t bytes);
    const BoundaryStatistics& statistics() const { return statistics_; }

  private:
    /// Forwards blocking transport to a member function with the channel id.
    class Target final : public BlockingTransportTarget {
      public:
        using Handler = void (PartitionBoundary::*)(unsigned, tlm::tlm_generic_payload&, sc_core::sc_time&);
        Target(PartitionBoundary& owner, Handler handler, unsigned channel)
            : owner_(&owner), handler_(handler), channel_(channel) {}
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            (owner_->*handler_)(channel_, payload, delay);
        }

      private:
        PartitionBoundary* owner_;
        Handler handler_;
        unsigned channel_;
    };
    using Initiator = tlm_utils::simple_initiator_socket<PartitionBoundary>;
    using TargetSocket = tlm::tlm_target_socket<>;

    /// What the boundary holds for one channel.
    struct Channel {
        AuroraLink* link = nullptr;                   ///< outgoing: the link here
        std::unique_ptr<Target> packet_target;        ///< outgoing: link.out ends here
        std::unique_ptr<TargetSocket> packet_socket;  ///< its socket
        std::unique_ptr<Initiator> credit_stub;       ///< outgoing: completes link.credit_in's binding (credits enter
                                                      ///< through AuroraLink::return_credits)
        std::unique_ptr<Initiator> packet_out;        ///< incoming: drives the router's input
        std::unique_ptr<Target> credit_target;        ///< incoming: the router's credits end here
        std::unique_ptr<TargetSocket> credit_socket;  ///< its socket
    };

    void on_packet(unsigned channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void on_credit(unsigned channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

    const PartitionPlan& plan_;                        ///< who owns what
    unsigned self_;                                    ///< this partition
    std::vector<Channel> channels_;                    ///< by channel id (empty where not cut here)
    std::vector<std::vector<std::uint8_t>> outboxes_;  ///< by destination partition
    PacketPool pool_;                                  ///< payloads of delivered packets
    BoundaryStatistics statistics_;                    ///< counters
};

}  // namespace isvp
