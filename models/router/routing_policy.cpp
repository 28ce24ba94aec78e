#include "isvp/routing_policy.h"

#include <array>

#include "isvp/dimension_order_routing.h"
#include "isvp/parameters.h"

namespace isvp {

namespace {

using TorusRoutingFactory = std::unique_ptr<RoutingPolicy> (*)(const TorusTopology&, unsigned vcs);

struct TorusRoutingEntry {
    std::string_view name;       ///< router.routing value
    TorusRoutingFactory create;  ///< builds the policy
};

// The torus policies, one per file; a new policy adds one line here.
constexpr std::array<TorusRoutingEntry, 1> kTorusPolicies = {{
    {DimensionOrderRouting::kName,
     [](const TorusTopology& topology, unsigned vcs) -> std::unique_ptr<RoutingPolicy> {
         return std::make_unique<DimensionOrderRouting>(topology, vcs);
     }},
}};

}  // namespace

std::vector<std::string> torus_routing_names() {
    std::vector<std::string> names;
    for (const auto& entry : kTorusPolicies) names.emplace_back(entry.name);
    return names;
}

std::unique_ptr<RoutingPolicy> make_torus_routing(const std::string& name, const TorusTopology& topology,
                                                  unsigned vcs) {
    for (const auto& entry : kTorusPolicies)
        if (entry.name == name) return entry.create(topology, vcs);
    std::string accepted;
    for (const auto& entry : kTorusPolicies) accepted += (accepted.empty() ? "" : ", ") + std::string(entry.name);
    throw ConfigError("config: router.routing must be one of " + accepted + " on a torus, got '" + name + "'");
}

}  // namespace isvp
