#include "isvp/partition_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "isvp/parameters.h"

namespace isvp {

namespace {
/// "3..7", "3", or "none".
std::string span(const std::vector<unsigned>& items) {
    if (items.empty()) return "none";
    const unsigned first = *std::min_element(items.begin(), items.end());
    const unsigned last = *std::max_element(items.begin(), items.end());
    return first == last ? std::to_string(first) : std::to_string(first) + ".." + std::to_string(last);
}
}  // namespace

PartitionPlan::PartitionPlan(const FabricConfig& config, unsigned partitions) : partitions_(partitions) {
    const NetworkTopology& topology = config.topology();
    const unsigned switches = topology.switches();
    if (partitions == 0) throw ConfigError("partitions: at least 1 partition is needed");
    if (partitions > switches)
        throw ConfigError("partitions: " + std::to_string(partitions) + " partitions of the " +
                          std::to_string(switches) + "-switch " + topology.description() +
                          ": each partition needs at least one switch");
    for (unsigned s = 0; s < switches; ++s)
        switch_owner_.push_back(static_cast<unsigned>(std::uint64_t{s} * partitions / switches));
    for (unsigned h = 0; h < topology.hosts(); ++h) host_owner_.push_back(switch_owner_[topology.host(h).switch_index]);
    std::uint64_t lookahead = std::numeric_limits<std::uint64_t>::max();
    for (unsigned c = 0; c < topology.cables().size(); ++c) {
        const TopologyCable& cable = topology.cables()[c];
        const double latency_ns = config.link_config(cable).latency_ns;
        // SystemC's 1 ps resolution: the link's latency as the kernel holds it.
        const auto latency_ps = static_cast<std::uint64_t>(std::llround(latency_ns * 1e3));
        const bool cut = switch_owner_[cable.a] != switch_owner_[cable.b];
        channels_.push_back({c, cable.a, cable.a_port, cable.b, cable.b_port, latency_ps, cut});
        channels_.push_back({c, cable.b, cable.b_port, cable.a, cable.a_port, latency_ps, cut});
        if (!cut) continue;
        cut_count_ += 2;
        if (latency_ps == 0)
            throw ConfigError(
                "partitions: cable " + std::to_string(c) + " (" + topology.port_label(cable.a, cable.a_port) + " - " +
                topology.port_label(cable.b, cable.b_port) + ") crosses partitions " +
                std::to_string(switch_owner_[cable.a]) + " and " + std::to_string(switch_owner_[cable.b]) +
                " with zero latency: a cut cable's latency is the lookahead and must be positive");
        lookahead = std::min(lookahead, latency_ps);
    }
    lookahead_ps_ = cut_count_ == 0 ? 0 : lookahead;
}

unsigned PartitionPlan::channel_from(const NetworkTopology& topology, unsigned switch_index, unsigned port) const {
    const PortPeer& peer = topology.peer(switch_index, port);
    const TopologyCable& cable = topology.cables().at(peer.cable);
    return 2 * peer.cable + ((cable.a == switch_index && cable.a_port == port) ? 0 : 1);
}

std::string PartitionPlan::describe(unsigned partition) const {
    std::vector<unsigned> switches, hosts;
    for (unsigned s = 0; s < switch_owner_.size(); ++s)
        if (switch_owner_[s] == partition) switches.push_back(s);
    for (unsigned h = 0; h < host_owner_.size(); ++h)
        if (host_owner_[h] == partition) hosts.push_back(h);
    return "partition " + std::to_string(partition) + " (switches " + span(switches) + ", hosts " + span(hosts) + ")";
}

}  // namespace isvp
