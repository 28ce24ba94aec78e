#include "isvp/network_topology.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <sstream>

#include "isvp/parameters.h"

namespace isvp {

namespace {

constexpr unsigned kMaxHosts = 1u << 16;    // the network header's 16-bit destination
constexpr double kMaxCableLatencyNs = 1e6;  // aurora.latency_ns's range
constexpr unsigned kUnreached = std::numeric_limits<unsigned>::max();

/// A number as an error message shows it (1e+300, 0.5), not std::to_string's
/// fixed notation (hundreds of digits for 1e300, "0.000000" for 1e-9).
std::string shown(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

}  // namespace

NetworkTopology::NetworkTopology(std::string kind, std::string description, std::vector<TopologySwitch> switches,
                                 std::vector<TopologyCable> cables, std::vector<HostPort> hosts, unsigned engines)
    : kind_(std::move(kind)),
      description_(std::move(description)),
      switches_(std::move(switches)),
      cables_(std::move(cables)),
      hosts_(std::move(hosts)),
      engines_(engines) {
    const std::string prefix = "config: topology " + description_ + ": ";
    auto refuse = [&](const std::string& what) { throw ConfigError(prefix + what); };
    if (engines_ > 0 && engines_ >= hosts_.size())
        refuse("has no hosts besides its " + std::to_string(engines_) + " switch engines");

    if (hosts_.empty()) refuse("has no hosts");
    if (hosts_.size() > kMaxHosts)
        refuse("has " + std::to_string(hosts_.size()) +
               " hosts, at most 65536 (the network header's destination has 16 bits)");
    std::map<std::string, unsigned, std::less<>> names;
    for (unsigned s = 0; s < switches_.size(); ++s) {
        const TopologySwitch& node = switches_[s];
        if (node.name.empty()) refuse("switch " + std::to_string(s) + " has no name");
        const bool plain = std::all_of(node.name.begin(), node.name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        });
        if (!plain)
            refuse("switch " + std::to_string(s) + " is named '" + node.name +
                   "': use letters, digits, '_' and '-' only (the name becomes part of SystemC object names)");
        const auto [previous, fresh] = names.emplace(node.name, s);
        if (!fresh)
            refuse("switches " + std::to_string(previous->second) + " and " + std::to_string(s) + " are both named '" +
                   node.name + "'");
        if (node.ports == 0) refuse("switch " + node.name + " has no ports");
        peers_.emplace_back(node.ports);
    }

    // Each port takes one cable end or one host; a second claim names both.
    std::vector<std::vector<std::string>> users(switches_.size());
    for (unsigned s = 0; s < switches_.size(); ++s) users[s].resize(switches_[s].ports);
    auto claim = [&](unsigned s, unsigned port, const std::string& user, const PortPeer& peer) {
        if (s >= switches_.size())
            refuse(user + " names switch " + std::to_string(s) + ", there are " + std::to_string(switches_.size()));
        if (port >= switches_[s].ports)
            refuse(user + ": switch " + switches_[s].name + " has no port " + std::to_string(port) + " (radix " +
                   std::to_string(switches_[s].ports) + ", ports 0.." + std::to_string(switches_[s].ports - 1) + ")");
        if (!users[s][port].empty())
            refuse(port_label(s, port) + " is used twice: by " + users[s][port] + " and by " + user);
        users[s][port] = user;
        peers_[s][port] = peer;
    };
    for (unsigned c = 0; c < cables_.size(); ++c) {
        const TopologyCable& cable = cables_[c];
        const std::string user = "cable " + std::to_string(c);
        if (cable.a == cable.b && cable.a < switches_.size())
            refuse(user + " joins switch " + switches_[cable.a].name + " to itself (ports " +
                   std::to_string(cable.a_port) + " and " + std::to_string(cable.b_port) + ")");
        // latency < 0 and bandwidth < 0 mean "the aurora.* default"; NaN is neither.
        if (std::isnan(cable.latency_ns) || cable.latency_ns > kMaxCableLatencyNs)
            refuse(user + " needs a latency in [0, 1e6] ns, got " + shown(cable.latency_ns));
        if (std::isnan(cable.bandwidth_gbps) || cable.bandwidth_gbps == 0 || std::isinf(cable.bandwidth_gbps))
            refuse(user + " needs a positive bandwidth, got " + shown(cable.bandwidth_gbps) + " Gb/s");
        claim(cable.a, cable.a_port, user, PortPeer{PortPeer::Kind::Switch, cable.b, cable.b_port, c});
        claim(cable.b, cable.b_port, user, PortPeer{PortPeer::Kind::Switch, cable.a, cable.a_port, c});
    }
    for (unsigned h = 0; h < hosts_.size(); ++h)
        claim(hosts_[h].switch_index, hosts_[h].port, "host " + std::to_string(h),
              PortPeer{PortPeer::Kind::Host, h, 0, 0});

    // Every switch must be reachable from switch 0 (hosts hang off switches,
    // so this covers them too).
    const std::vector<unsigned> reach = switch_distances(0);
    for (unsigned s = 0; s < switches_.size(); ++s)
        if (reach[s] == kUnreached)
            refuse("switch " + switches_[s].name + " is not connected to switch " + switches_[0].name +
                   " (no path of cables)");
}

const PortPeer& NetworkTopology::peer(unsigned index, unsigned port) const {
    return peers_.at(index).at(port);
}

std::vector<unsigned> NetworkTopology::hosts_on(unsigned index) const {
    std::vector<unsigned> attached;
    for (const PortPeer& peer : peers_.at(index))
        if (peer.kind == PortPeer::Kind::Host) attached.push_back(peer.index);
    std::sort(attached.begin(), attached.end());
    return attached;
}

std::string NetworkTopology::port_label(unsigned index, unsigned port) const {
    return switches_.at(index).name + " port " + std::to_string(port);
}

std::string NetworkTopology::endpoint_label(unsigned address) const {
    const unsigned hosts = this->hosts() - engines_;
    if (address < hosts) return "node " + std::to_string(address);
    const unsigned index = address - hosts;
    return "switch " + std::to_string(index) + (index < switches() ? " (" + switches_[index].name + ")" : "");
}

std::vector<unsigned> NetworkTopology::switch_distances(unsigned from) const {
    std::vector<unsigned> distance(switches_.size(), kUnreached);
    std::deque<unsigned> frontier{from};
    distance.at(from) = 0;
    while (!frontier.empty()) {
        const unsigned s = frontier.front();
        frontier.pop_front();
        for (const PortPeer& peer : peers_[s])
            if (peer.kind == PortPeer::Kind::Switch && distance[peer.index] == kUnreached) {
                distance[peer.index] = distance[s] + 1;
                frontier.push_back(peer.index);
            }
    }
    return distance;
}

unsigned NetworkTopology::distance(unsigned from_host, unsigned to_host) const {
    return switch_distances(host(from_host).switch_index).at(host(to_host).switch_index);
}

NetworkTopology torus_network(const TorusShape& shape) {
    const TorusTopology torus(shape);  // throws for a bad shape
    std::vector<TopologySwitch> switches;
    std::vector<TopologyCable> cables;
    std::vector<HostPort> hosts;
    for (std::uint32_t n = 0; n < torus.nodes(); ++n) {
        switches.push_back(TopologySwitch{"node" + std::to_string(n), TorusTopology::kPorts, 0});
        hosts.push_back(HostPort{n, TorusTopology::kLocalPort});
        // One cable per + port: it ends at the neighbour's - port, so each
        // cable is listed once (both in a ring of 2, where + and - lead to
        // the same neighbour over two distinct cables).
        for (unsigned dimension = 0; dimension < TorusTopology::kDimensions; ++dimension) {
            const unsigned plus = TorusTopology::port(dimension, true);
            if (!torus.has_link(plus)) continue;
            cables.push_back(TopologyCable{n, plus, torus.neighbour(n, plus), TorusTopology::opposite(plus)});
        }
    }
    return NetworkTopology("torus", shape.to_string(), std::move(switches), std::move(cables), std::move(hosts));
}

// ---------------------------------------------------------------- fat tree

namespace {

constexpr unsigned kMaxFatTreeValue = 1u << 16;

[[noreturn]] void refuse_fat_tree(std::string_view text, const std::string& why) {
    throw ConfigError("config: topology.fattree must be radix=R,hosts=N[,oversubscription=S] with positive integers, " +
                      why + ", got '" + std::string(text) + "'");
}

}  // namespace

FatTreeShape FatTreeShape::parse(std::string_view text) {
    FatTreeShape shape;
    struct Field {
        std::string_view key;  ///< as written
        unsigned* value;       ///< where it goes
        bool seen;             ///< given already
    };
    std::array<Field, 3> fields = {{{"radix", &shape.radix, false},
                                    {"hosts", &shape.hosts, false},
                                    {"oversubscription", &shape.oversubscription, false}}};
    for (std::size_t position = 0; position <= text.size();) {
        const std::size_t end = std::min(text.find(',', position), text.size());
        const std::string_view item = text.substr(position, end - position);
        position = end + 1;
        const std::size_t equals = item.find('=');
        if (equals == std::string_view::npos) refuse_fat_tree(text, "'" + std::string(item) + "' is not key=value");
        const std::string key(item.substr(0, equals));
        const std::string_view digits = item.substr(equals + 1);
        const auto field = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == key; });
        if (field == fields.end()) refuse_fat_tree(text, "unknown key '" + key + "'");
        if (field->seen) refuse_fat_tree(text, key + " is given twice");
        std::uint64_t value = 0;
        for (char c : digits) {
            if (!std::isdigit(static_cast<unsigned char>(c))) refuse_fat_tree(text, key + " is not a positive integer");
            value = value * 10 + static_cast<unsigned>(c - '0');
            if (value > kMaxFatTreeValue) refuse_fat_tree(text, key + " is over 65536");
        }
        if (value == 0) refuse_fat_tree(text, key + " is not a positive integer");
        field->seen = true;
        *field->value = static_cast<unsigned>(value);
    }
    for (const Field& field : fields)
        if (!field.seen && field.key != "oversubscription")
            refuse_fat_tree(text, std::string(field.key) + " is missing");
    return shape;
}

std::string FatTreeShape::to_string() const {
    return "radix=" + std::to_string(radix) + ",hosts=" + std::to_string(hosts) +
           ",oversubscription=" + std::to_string(oversubscription);
}

unsigned FatTreeShape::leaf_downlinks() const {
    const unsigned down = static_cast<unsigned>(std::uint64_t{radix} * oversubscription / (oversubscription + 1));
    return std::max(down, 1u);
}

unsigned FatTreeShape::leaf_uplinks() const {
    return radix > leaf_downlinks() ? radix - leaf_downlinks() : 0;
}

// Construction (switch indices: leaves, then spines or aggregation switches,
// then core switches; levels 0, 1, 2):
//
//   leaves   L = ceil(hosts / D) with D = leaf_downlinks(), U = leaf_uplinks();
//            host h on leaf h / D, port h % D; ports D..D+U-1 are uplinks.
//   2 levels when L <= radix: U spines, uplink j of every leaf goes to spine
//            j, whose port i is leaf i (a spine uses L of its ports). A tree
//            of one leaf keeps its U spines — the shape does not change with
//            the host count — though no unicast route crosses them.
//   3 levels when L > radix: pods of P = radix / 2 leaves, each pod with U
//            aggregation switches; uplink j of a leaf goes to aggregation
//            switch j of its pod (ports 0..P-1 down, one per leaf of the pod;
//            ports P..2P-1 up, 1:1). Core switches form U groups of P:
//            up-port P + c of aggregation switch j of pod p goes to core
//            j * P + c, port p. A core has one port per pod, so at most
//            radix pods: hosts <= D * radix * radix / 2.
NetworkTopology fat_tree_network(const FatTreeShape& shape) {
    const std::string text = shape.to_string();
    if (shape.radix < 2)
        refuse_fat_tree(text, "radix " + std::to_string(shape.radix) +
                                  " leaves no uplink (a leaf needs at least one host port and one uplink)");
    if (shape.hosts == 0 || shape.hosts > kMaxFatTreeValue || shape.oversubscription == 0)
        refuse_fat_tree(text, "hosts must be in [1, 65536] and oversubscription at least 1");
    const unsigned down = shape.leaf_downlinks();
    const unsigned up = shape.leaf_uplinks();
    const unsigned leaves = (shape.hosts + down - 1) / down;
    const unsigned pod_leaves = shape.radix / 2;
    const std::uint64_t most_hosts = std::uint64_t{down} * shape.radix * pod_leaves;
    if (leaves > shape.radix && shape.hosts > most_hosts)
        refuse_fat_tree(text, "three levels of radix-" + std::to_string(shape.radix) + " switches reach at most " +
                                  std::to_string(most_hosts) + " hosts");

    std::vector<TopologySwitch> switches;
    std::vector<TopologyCable> cables;
    std::vector<HostPort> hosts;
    for (unsigned leaf = 0; leaf < leaves; ++leaf) switches.push_back({"leaf" + std::to_string(leaf), shape.radix, 0});
    for (unsigned h = 0; h < shape.hosts; ++h) hosts.push_back(HostPort{h / down, h % down});

    if (leaves <= shape.radix) {
        for (unsigned j = 0; j < up; ++j) {
            const unsigned spine = static_cast<unsigned>(switches.size());
            switches.push_back({"spine" + std::to_string(j), shape.radix, 1});
            for (unsigned leaf = 0; leaf < leaves; ++leaf) cables.push_back({leaf, down + j, spine, leaf});
        }
    } else {
        const unsigned pods = (leaves + pod_leaves - 1) / pod_leaves;
        const unsigned first_agg = leaves;
        const unsigned first_core = first_agg + pods * up;
        for (unsigned pod = 0; pod < pods; ++pod)
            for (unsigned j = 0; j < up; ++j) {
                const unsigned agg = static_cast<unsigned>(switches.size());
                switches.push_back({"agg" + std::to_string(pod * up + j), shape.radix, 1});
                for (unsigned local = 0; local < pod_leaves && pod * pod_leaves + local < leaves; ++local)
                    cables.push_back({pod * pod_leaves + local, down + j, agg, local});
            }
        for (unsigned core = 0; core < up * pod_leaves; ++core) {
            switches.push_back({"core" + std::to_string(core), shape.radix, 2});
            const unsigned j = core / pod_leaves;  // the aggregation switch of each pod it serves
            const unsigned c = core % pod_leaves;  // which of that switch's up-ports
            for (unsigned pod = 0; pod < pods; ++pod)
                cables.push_back({first_agg + pod * up + j, pod_leaves + c, first_core + core, pod});
        }
    }
    return NetworkTopology("fattree", "fattree:" + text, std::move(switches), std::move(cables), std::move(hosts));
}

NetworkTopology with_switch_engines(const NetworkTopology& topology) {
    if (topology.engines() > 0) return topology;
    if (topology.kind() == "torus")
        throw ConfigError("config: topology " + topology.description() +
                          ": switch-resident collective engines need an indirect network (fattree or file)");
    if (topology.hosts() + topology.switches() > 65536)
        throw ConfigError("config: topology " + topology.description() + ": " + std::to_string(topology.hosts()) +
                          " hosts and " + std::to_string(topology.switches()) +
                          " switch engines exceed the 65536 network addresses");
    std::vector<TopologySwitch> switches;
    std::vector<HostPort> endpoints;
    for (unsigned hosts = 0; hosts < topology.hosts(); ++hosts) endpoints.push_back(topology.host(hosts));
    for (unsigned s = 0; s < topology.switches(); ++s) {
        TopologySwitch grown = topology.switch_at(s);
        endpoints.push_back(HostPort{s, grown.ports});
        ++grown.ports;
        switches.push_back(std::move(grown));
    }
    return NetworkTopology(topology.kind(), topology.description() + "+engines", std::move(switches), topology.cables(),
                           std::move(endpoints), topology.switches());
}

}  // namespace isvp
