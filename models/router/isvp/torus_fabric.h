// TorusFabric: the network of a direct-network cluster — one Router per node
// and one AuroraLink per direction of every cable of an X x Y x Z torus,
// built from parameters and bound (DESIGN §3.1, §3.4, §3.5).
//
// Abstraction: that of its parts (packet-level, approximately timed). For
// each node it exposes the router's local port for the platform to bind to
// the node's QDMA:
//   QDMA tx (packet initiator)  -> inject(node)        packet target
//   inject_credit(node)         -> QDMA tx credits     credit initiator
//   eject(node)                 -> QDMA rx             packet initiator
//   QDMA rx credits (initiator) -> eject_credit(node)  credit target
// Network port +d of node n drives a link into port -d of its +d neighbour;
// a dimension of size 1 has no links (its ports stay unbound), one of size 2
// has two cables (+ and -) between the same pair of nodes.
//
// Not modelled: cable length differences (every link has aurora.latency_ns),
// link failures, the host side (QDMA, PCIe: other blocks).
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "isvp/aurora_link.h"
#include "isvp/router.h"
#include "isvp/torus_fabric_config.h"

namespace isvp {

/// A packet an Aurora link of the fabric dropped (CRC error in drop mode, or
/// replays exhausted): the link, and what the packet was to the reliable-
/// delivery layer (models/reliable), so a loss can be traced to its link.
struct LinkDrop {
    std::uint32_t from = 0;                             ///< node the link leaves
    std::uint32_t to = 0;                               ///< node it enters
    unsigned port = 0;                                  ///< network port of `from` (TorusTopology::port_name)
    bool sequenced = false;                             ///< carried a reliable-delivery sequence number
    std::uint16_t source = 0;                           ///< its source node (if sequenced)
    std::uint32_t sequence = 0;                         ///< its sequence number (if sequenced)
    std::uint32_t destination = PacketInfo::kUnrouted;  ///< its destination node
};
/// "node 3 -> node 7 (xplus)"
std::string describe(const LinkDrop& drop);

class TorusFabric : public sc_core::sc_module {
  public:
    /// Builds and binds the fabric; throws ConfigError for a bad config.
    TorusFabric(sc_core::sc_module_name name, const TorusFabricConfig& config);
    /// The same with a routing policy supplied by the caller in place of
    /// router.routing (experiments with policies not registered by name).
    TorusFabric(sc_core::sc_module_name name, const TorusFabricConfig& config,
                std::shared_ptr<const RoutingPolicy> routing);

    const TorusFabricConfig& config() const { return config_; }
    const TorusTopology& topology() const { return topology_; }
    unsigned nodes() const { return topology_.nodes(); }

    Router::PacketInSocket& inject(unsigned node);          ///< packets from the node's QDMA
    Router::CreditOutSocket& inject_credit(unsigned node);  ///< credits back to the node's QDMA
    Router::PacketOutSocket& eject(unsigned node);          ///< packets to the node's QDMA
    Router::CreditInSocket& eject_credit(unsigned node);    ///< credits from the node's QDMA

    Router& router(unsigned node) { return *routers_.at(node); }
    const Router& router(unsigned node) const { return *routers_.at(node); }
    /// The link leaving `node` through network port `port`; nullptr if that
    /// port has no link.
    const AuroraLink* link(unsigned node, unsigned port) const;
    /// DESIGN's min_buf for these routers and links, bytes.
    std::uint64_t minimum_input_buffer_bytes() const;

    /// Packets sent over router-to-router links so far (the simulator-speed unit).
    std::uint64_t packet_hops() const;
    /// Counters of every router and link; `elapsed` gives utilisations.
    nlohmann::json statistics(const sc_core::sc_time& elapsed) const;
    /// Each link warns about its first `count` drops only (Aurora README).
    void limit_drop_warnings(std::uint64_t count);
    /// Every packet a link dropped so far, in order.
    const std::vector<LinkDrop>& drops() const { return drops_; }

  private:
    TorusFabricConfig config_;                        ///< parameters
    TorusTopology topology_;                          ///< shape, addresses, neighbours
    std::shared_ptr<const RoutingPolicy> routing_;    ///< shared by every router
    WakeupScheduler scheduler_;                       ///< wakes every router (one SC_METHOD)
    std::vector<std::unique_ptr<Router>> routers_;    ///< one per node
    std::vector<std::unique_ptr<AuroraLink>> links_;  ///< [node * 6 + port], null where no link
    std::vector<LinkDrop> drops_;                     ///< packets the links dropped
};

}  // namespace isvp
