// A network as data (DESIGN §9): switches with numbered ports, cables that
// join two switch ports, and hosts attached to switch ports. Every network
// kind — the 3D torus, the spine-leaf fat tree, a graph read from a JSON
// file — is built into this one form; one generic fabric (fabric.h) builds
// routers and links from it, and routes are computed from it at start-up
// (table_routing.h). No SystemC.
//
// Addresses: host h is network address h (the 16-bit destination of the
// network header) and runs rank h unless the job places its ranks otherwise
// (rank_placement.h); switch s is router s. On a torus switch n
// is node n's FPGA router and host n sits on its local port 6, so addresses
// are those of TorusTopology.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "isvp/torus_topology.h"

namespace isvp {

/// One switch (an FPGA's router).
struct TopologySwitch {
    std::string name;    ///< unique; letters, digits, '_', '-': usable in SystemC object names ("leaf0", "node5")
    unsigned ports = 0;  ///< radix: ports of the switch, host and network
    /// Height for up/down routing: hosts' switches low, the root high. A
    /// link to a higher level (or the same level and a lower index) is "up".
    unsigned level = 0;
};

/// A cable: two channels, one each way, between two switch ports.
struct TopologyCable {
    unsigned a = 0;              ///< one end: switch index
    unsigned a_port = 0;         ///< its port
    unsigned b = 0;              ///< other end: switch index
    unsigned b_port = 0;         ///< its port
    double latency_ns = -1;      ///< one way, excluding serialisation, ns; < 0: aurora.latency_ns
    double bandwidth_gbps = -1;  ///< line rate of each channel, Gb/s; < 0: aurora.lanes x aurora.lane_rate_gbps
};

/// Where a host's NIC (the node's QDMA side) plugs in.
struct HostPort {
    unsigned switch_index = 0;  ///< its switch
    unsigned port = 0;          ///< the switch port
};

/// What is behind one switch port.
struct PortPeer {
    enum class Kind : std::uint8_t { None, Host, Switch };
    Kind kind = Kind::None;
    unsigned index = 0;  ///< host address (Host) or switch index (Switch)
    unsigned port = 0;   ///< the far switch's port (Switch)
    unsigned cable = 0;  ///< index into cables() (Switch)
};

class NetworkTopology {
  public:
    /// Validates the graph; throws ConfigError naming the switch and port
    /// (or host) at fault: a port beyond a switch's radix, a port used
    /// twice, a host on a port that does not exist, a switch or host not
    /// connected to the rest, no hosts, more than 65536 hosts, a cable that
    /// joins a switch to itself, a cable with a latency over 1e6 ns or a
    /// non-positive bandwidth given, a switch without ports, an empty or
    /// duplicate switch name, or one with characters other than letters,
    /// digits, '_' and '-'. Messages start "config: topology
    /// DESCRIPTION: ".
    /// `engines`: the last `engines` entries of `hosts` are switch-resident
    /// collective engines (with_switch_engines), not hosts that run ranks.
    NetworkTopology(std::string kind, std::string description, std::vector<TopologySwitch> switches,
                    std::vector<TopologyCable> cables, std::vector<HostPort> hosts, unsigned engines = 0);

    /// "torus", "fattree" or "file".
    const std::string& kind() const { return kind_; }
    /// Short text for reports: "4x4x2", "fattree:radix=8,hosts=32,oversubscription=3", "file:PATH".
    const std::string& description() const { return description_; }

    unsigned switches() const { return static_cast<unsigned>(switches_.size()); }
    /// Endpoints (network addresses): the hosts, then the switch engines if any.
    unsigned hosts() const { return static_cast<unsigned>(hosts_.size()); }
    /// Endpoints that are switch-resident collective engines (the last ones; 0 without).
    unsigned engines() const { return engines_; }
    /// Whether address `address` is a switch engine (needs no route to another engine).
    bool is_engine(unsigned address) const { return address >= hosts() - engines_ && address < hosts(); }
    const TopologySwitch& switch_at(unsigned index) const { return switches_.at(index); }
    const std::vector<TopologyCable>& cables() const { return cables_; }
    const HostPort& host(unsigned address) const { return hosts_.at(address); }
    /// What is behind port `port` of switch `index`.
    const PortPeer& peer(unsigned index, unsigned port) const;
    /// Hosts attached to switch `index`, by address.
    std::vector<unsigned> hosts_on(unsigned index) const;
    /// Whether `port` of switch `index` has a host on it.
    bool is_host_port(unsigned index, unsigned port) const { return peer(index, port).kind == PortPeer::Kind::Host; }
    /// "leaf0 port 6": a switch port in messages.
    std::string port_label(unsigned index, unsigned port) const;
    /// An endpoint in messages: "node 5" for a host; "switch 9 (spine0)"
    /// for the collective engine of switch 9 (its address: the hosts
    /// without engines + switch index, whether or not this graph lists the
    /// engines among its endpoints).
    std::string endpoint_label(unsigned address) const;
    /// Fewest switch-to-switch cables between the switches of two hosts
    /// (one breadth-first search per call: O(switches + cables)).
    unsigned distance(unsigned from_host, unsigned to_host) const;
    /// Fewest cables from switch `from` to every switch, by switch index.
    std::vector<unsigned> switch_distances(unsigned from) const;

  private:
    std::string kind_;                          ///< torus, fattree, file
    std::string description_;                   ///< for reports
    std::vector<TopologySwitch> switches_;      ///< by index
    std::vector<TopologyCable> cables_;         ///< by index
    std::vector<HostPort> hosts_;               ///< by host address
    unsigned engines_ = 0;                      ///< trailing entries of hosts_ that are switch engines
    std::vector<std::vector<PortPeer>> peers_;  ///< [switch][port]
};

/// The torus as a graph: switch n = node n with TorusTopology's 7 ports,
/// one cable per + port that has a link (a dimension of size 2 has two
/// cables between the same pair), host n on port 6 (local) of switch n,
/// every switch at level 0.
NetworkTopology torus_network(const TorusShape& shape);

/// A spine-leaf fat tree of FPGA switches (MPI-FPGA's indirect network).
struct FatTreeShape {
    unsigned radix = 8;             ///< ports per switch (leaf and spine)
    unsigned hosts = 32;            ///< hosts (one rank each)
    unsigned oversubscription = 3;  ///< leaf downlinks : uplinks (3 = 3:1)

    /// Parses "radix=R,hosts=N[,oversubscription=S]" (keys in any order);
    /// throws ConfigError naming topology.fattree and what is wrong.
    static FatTreeShape parse(std::string_view text);
    /// "radix=8,hosts=32,oversubscription=3"
    std::string to_string() const;
    /// Host ports of a leaf: radix * S / (S + 1), rounded down, at least 1.
    unsigned leaf_downlinks() const;
    /// Uplinks of a leaf: radix - leaf_downlinks(); 0 only for radix 1,
    /// which fat_tree_network refuses.
    unsigned leaf_uplinks() const;
};

/// Builds the fat tree: leaves with leaf_downlinks() hosts each (hosts
/// filled leaf by leaf: host h on leaf h / downlinks, port h % downlinks),
/// their uplinks spread over spines; two levels while the leaves fit a
/// spine's radix, three (pods of aggregation switches, 1:1 above the leaves)
/// when they do not (the exact wiring is described in
/// network_topology.cpp and the README). Switches "leaf<i>" (level 0),
/// "spine<i>" or "agg<i>" (level 1), "core<i>" (level 2), indexed in that
/// order. Throws ConfigError when the shape cannot be built (an
/// over-subscription that leaves no uplink, a radix under 2, more hosts
/// than three levels reach), naming topology.fattree.
NetworkTopology fat_tree_network(const FatTreeShape& shape);

/// The network with a collective engine at an extra port of every switch
/// (collective.placement = switch; docs/COLLECTIVES.md, "Switch-resident
/// engines"): switch s gets port `ports` (its radix grows by one) and on it
/// an endpoint with network address hosts() + s, attached like a host, so
/// routing tables (TableRouting, check_routes) reach every engine as a
/// destination. Hosts, cables and switch indices are unchanged; the
/// description gains "+engines". Throws ConfigError for a torus (its
/// engines are the NICs') or more than 65536 addresses in all.
NetworkTopology with_switch_engines(const NetworkTopology& topology);

/// Reads a topology file (JSON; format in the README, "Topology files");
/// throws ConfigError naming the file, and the switch/port or JSON path at
/// fault.
NetworkTopology load_network_file(const std::string& path);
/// The same from the file's text (`origin` names it in errors).
NetworkTopology network_from_json(const std::string& json_text, const std::string& origin);
/// A topology as a topology file (every level written out), e.g. a
/// generated fat tree to edit by hand; network_from_json reads it back.
std::string network_to_json(const NetworkTopology& topology);

}  // namespace isvp
