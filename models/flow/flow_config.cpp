#include "isvp/flow_config.h"

#include <sstream>

#include "isvp/parameter_table.h"

namespace isvp {

std::string to_string(NetworkModel model) {
    return model == NetworkModel::Flow ? "flow" : "packet";
}

namespace {

/// The network.* parameters, each once (isvp/parameter_table.h).
const auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Choice<NetworkModel>{"network.model",
                                          {{"packet", NetworkModel::Packet}, {"flow", NetworkModel::Flow}},
                                          "packet: routers and Aurora links packet by packet; flow: loosely-timed "
                                          "flows sharing link bandwidth max-min fairly (large sweeps; see "
                                          "models/flow/README.md)"},
              self.model);
    parameter(param::Real{"network.flow_linger_round_trips", "round trips", 0.0, 1000.0,
                          "flow model: a stream that runs dry keeps its flow and share this many round trips "
                          "over its route (plus two packet drain times) before leaving the max-min problem; "
                          "0: at the end of the instant. About 1 makes solves follow flows, not packets "
                          "(~9x less CPU) at a cost in accuracy (docs/PERFORMANCE.md)"},
              self.linger_round_trips);
    parameter(param::Choice<FlowHold>{"network.flow_hold",
                                      {{"message", FlowHold::Message}, {"instant", FlowHold::Instant}},
                                      "flow model: message: a stream that runs dry inside a message keeps its flow "
                                      "until the message's last packet and one-phit messages take no flow (solves "
                                      "per message; offloaded 1 KiB reduce_scatter +20 %); instant: a dry stream "
                                      "leaves at the end of the instant (a solve per dry spell, ~per packet)"},
              self.hold);
    parameter(param::Integer{"network.flow_train_packets", "packets", 1, 16,
                             "flow model: the NICs move this many hardware packets of a message as one train "
                             "(packet sizes and NIC buffers scaled by it, each train costed as its packets back to "
                             "back); ~N x less CPU for long messages, windows count trains (docs/PERFORMANCE.md)",
                             true},
              self.train_packets);
};

}  // namespace

void NetworkModelConfig::declare(Parameters& parameters) {
    param::declare_table<NetworkModelConfig>(parameters, kTable);
}

NetworkModelConfig NetworkModelConfig::from(const Parameters& parameters, const FabricConfig& fabric) {
    const NetworkModelConfig config = param::read_table<NetworkModelConfig>(parameters, kTable);
    config.validate(fabric);
    return config;
}

void NetworkModelConfig::validate(const FabricConfig& fabric) const {
    param::check_table(*this, kTable);
    if (model != NetworkModel::Flow) {
        if (train_packets > 1)
            throw ConfigError("config: network.flow_train_packets=" + std::to_string(train_packets) +
                              " applies to network.model=flow only (the packet model moves hardware packets); "
                              "leave it at 1 or set network.model=flow");
        return;
    }
    // Between blocks: the flow network has no links that could corrupt a packet.
    if (fabric.aurora.bit_error_rate > 0.0) {
        std::ostringstream message;
        message << "config: network.model=flow does not model link bit errors: aurora.bit_error_rate must be 0, got "
                << fabric.aurora.bit_error_rate << " (use network.model=packet)";
        throw ConfigError(message.str());
    }
}

}  // namespace isvp
