// network.model: how packets cross the network between the hosts' NICs.
//   packet  routers and Aurora links, packet by packet (Fabric; the default)
//   flow    a loosely-timed flow network (FlowNetwork): each source ->
//           destination stream of packets is one flow whose rate is its
//           max-min fair share of the links and ports it crosses
// No SystemC.
#pragma once

#include <string>

#include "isvp/fabric_config.h"
#include "isvp/parameters.h"

namespace isvp {

enum class NetworkModel { Packet, Flow };

/// network.flow_hold: how long a stream that runs dry keeps its flow (and
/// share) in the max-min problem before the linger below.
///   Instant  to the end of the simulated instant (a solve each way per dry spell)
///   Message  while the message its last packet belongs to is unfinished
///            (the network header's `last` bit), and a one-phit message on a
///            stream without a flow drains without one: solves per message
enum class FlowHold { Instant, Message };

std::string to_string(NetworkModel model);

struct NetworkModelConfig {
    NetworkModel model = NetworkModel::Packet;  ///< network.model
    /// network.flow_linger_round_trips: how long a stream that ran dry keeps
    /// its flow, in round trips over its route (0: to the end of the instant).
    double linger_round_trips = 0;
    FlowHold hold = FlowHold::Message;  ///< network.flow_hold
    /// network.flow_train_packets: the NICs move this many hardware packets
    /// of a message as one train (flow model only; 1: packet by packet).
    /// The platform scales the NICs' packet sizes and buffers by it
    /// (PlatformConfig::from) and the flow network costs a train as its
    /// hardware packets back to back.
    unsigned train_packets = 1;
    /// The hardware packets' payload (collective.packet_payload_bytes as
    /// given, before the scaling); 0 without trains. Set by the platform.
    std::uint32_t train_payload_bytes = 0;

    /// Declares network.model, network.flow_hold, network.flow_linger_round_trips
    /// and network.flow_train_packets.
    static void declare(Parameters& parameters);
    /// Reads it; with `fabric`, refuses what the flow model does not model
    /// (validate()).
    static NetworkModelConfig from(const Parameters& parameters, const FabricConfig& fabric);
    /// Throws ConfigError when network.model = flow meets a fabric parameter
    /// it cannot honour: injected bit errors (aurora.bit_error_rate > 0; the
    /// flow network has no links that could corrupt or drop a packet).
    void validate(const FabricConfig& fabric) const;
};

}  // namespace isvp
