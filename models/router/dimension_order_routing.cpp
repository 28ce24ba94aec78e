#include "isvp/dimension_order_routing.h"

#include "isvp/parameters.h"

namespace isvp {

DimensionOrderRouting::DimensionOrderRouting(const TorusTopology& topology, unsigned vcs)
    : topology_(topology), class1_vc_(vcs / 2) {
    if (vcs < 2)
        throw ConfigError(
            "config: router.vcs must be at least 2 for router.routing=dor (dateline virtual channels "
            "keep the torus deadlock-free), got " +
            std::to_string(vcs));
}

std::optional<RouteDecision> DimensionOrderRouting::route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                                          std::uint32_t destination) const {
    if (!topology_.contains(destination)) return std::nullopt;
    if (destination == node) return RouteDecision{TorusTopology::kLocalPort, 0};
    const TorusCoordinates here = topology_.coordinates(node);
    const TorusCoordinates there = topology_.coordinates(destination);
    for (unsigned dimension = 0; dimension < TorusTopology::kDimensions; ++dimension) {
        const unsigned from = here.position[dimension];
        const unsigned to = there.position[dimension];
        if (from == to) continue;
        const unsigned extent = topology_.shape().extent(dimension);
        const unsigned forward = to > from ? to - from : to + extent - from;  // hops in +, no division
        const bool plus = forward <= extent - forward;  // a tie goes +
        const unsigned port = TorusTopology::port(dimension, plus);
        const bool same_dimension =
            in_port != TorusTopology::kLocalPort && TorusTopology::dimension_of(in_port) == dimension;
        const bool crossed_dateline = same_dimension && in_vc >= class1_vc_;
        const bool crosses_now = topology_.is_wrap_link(here, port);
        return RouteDecision{port, crossed_dateline || crosses_now ? class1_vc_ : 0u};
    }
    return std::nullopt;  // unreachable: destination != node differs in some dimension
}

}  // namespace isvp
