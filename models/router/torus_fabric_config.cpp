#include "isvp/torus_fabric_config.h"

#include "isvp/routing_policy.h"

namespace isvp {

void TorusFabricConfig::declare(Parameters& parameters) {
    const TorusFabricConfig defaults;
    parameters.declare_text("topology.torus", defaults.shape.to_string(),
                            "3D torus shape XxYxZ; node address = x + X * (y + Y * z)");
    RouterConfig::declare(parameters);
    AuroraConfig::declare(parameters);
}

TorusFabricConfig TorusFabricConfig::from(const Parameters& parameters) {
    TorusFabricConfig config;
    config.shape = TorusShape::parse(parameters.text("topology.torus"));
    config.router = RouterConfig::from(parameters);
    config.aurora = AuroraConfig::from(parameters);
    config.validate();
    return config;
}

void TorusFabricConfig::validate() const {
    const TorusTopology topology(shape);  // throws for a bad shape
    router.validate();
    aurora.validate();
    make_torus_routing(router.routing, topology, router.vcs);  // throws if the policy cannot work here
}

}  // namespace isvp
