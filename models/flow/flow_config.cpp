#include "isvp/flow_config.h"

#include <sstream>

namespace isvp {

std::string to_string(NetworkModel model) {
    return model == NetworkModel::Flow ? "flow" : "packet";
}

void NetworkModelConfig::declare(Parameters& parameters) {
    parameters.declare_choice("network.model", to_string(NetworkModel::Packet), {"packet", "flow"},
                              "packet: routers and Aurora links packet by packet; flow: loosely-timed flows "
                              "sharing link bandwidth max-min fairly (large sweeps; see models/flow/README.md)");
    parameters.declare_real("network.flow_linger_round_trips", "round trips", 0.0, 0.0, 1000.0,
                            "flow model: a stream that runs dry keeps its flow and share this many round trips "
                            "over its route (plus two packet drain times) before leaving the max-min problem; "
                            "0: at the end of the instant. About 1 makes solves follow flows, not packets "
                            "(~9x less CPU) at a cost in accuracy (docs/PERFORMANCE.md)");
}

NetworkModelConfig NetworkModelConfig::from(const Parameters& parameters, const FabricConfig& fabric) {
    NetworkModelConfig config;
    config.model = parameters.text("network.model") == "flow" ? NetworkModel::Flow : NetworkModel::Packet;
    config.linger_round_trips = parameters.real("network.flow_linger_round_trips");
    config.validate(fabric);
    return config;
}

void NetworkModelConfig::validate(const FabricConfig& fabric) const {
    if (model != NetworkModel::Flow) return;
    if (fabric.aurora.bit_error_rate > 0.0) {
        std::ostringstream message;
        message << "config: network.model=flow does not model link bit errors: aurora.bit_error_rate must be 0, got "
                << fabric.aurora.bit_error_rate << " (use network.model=packet)";
        throw ConfigError(message.str());
    }
}

}  // namespace isvp
