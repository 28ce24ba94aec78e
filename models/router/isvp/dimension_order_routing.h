// Dimension-order routing on a torus with dateline virtual channels
// (router.routing = dor).
//
// A packet corrects x, then y, then z, each along the shorter way round the
// ring (a tie goes +). Deadlock freedom: within a dimension the packet uses
// VC class 0 until it crosses that ring's wrap-around link (the dateline)
// and class 1 from that hop on; a new dimension starts again in class 0.
// Class 0 is VC 0 and class 1 is VC vcs/2, so router.vcs must be at least 2;
// further VCs are left unused by this policy. Packets for this node take the
// local port on VC 0.
#pragma once

#include <memory>

#include "isvp/routing_policy.h"
#include "isvp/torus_topology.h"

namespace isvp {

class DimensionOrderRouting final : public RoutingPolicy {
  public:
    static constexpr std::string_view kName = "dor";

    /// Throws ConfigError when `vcs` < 2.
    DimensionOrderRouting(const TorusTopology& topology, unsigned vcs);

    std::string_view name() const override { return kName; }
    unsigned ports(std::uint32_t) const override { return TorusTopology::kPorts; }
    bool is_host_port(std::uint32_t, unsigned port) const override { return port == TorusTopology::kLocalPort; }
    std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                       std::uint32_t destination) const override;

  private:
    TorusTopology topology_;  ///< the torus routed over
    unsigned class1_vc_;      ///< first VC of dateline class 1 (vcs / 2)
};

}  // namespace isvp
