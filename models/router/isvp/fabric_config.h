// Everything a fabric is built from: the topology (topology.*), the router
// parameters (router.*) and the Aurora link parameters (aurora.*). Replaces
// the torus-only configuration of the first platform. No SystemC.
//
//   topology.kind      torus | fattree | file
//   topology.torus     XxYxZ                       (kind torus)
//   topology.fattree   radix=R,hosts=N[,oversubscription=S]   (kind fattree)
//   topology.file      path of a JSON topology     (kind file)
//   topology.routing   updown | shortest           (fattree, file; the torus uses router.routing)
#pragma once

#include <memory>
#include <string>

#include "isvp/aurora_config.h"
#include "isvp/network_topology.h"
#include "isvp/parameters.h"
#include "isvp/router_config.h"
#include "isvp/routing_policy.h"

namespace isvp {

struct FabricConfig {
    std::string kind = "torus";            ///< topology.kind
    TorusShape shape{4, 4, 4};             ///< topology.torus
    FatTreeShape fat_tree;                 ///< topology.fattree
    std::string file;                      ///< topology.file
    std::string table_routing = "updown";  ///< topology.routing
    RouterConfig router;                   ///< router.*, the same for every switch
    AuroraConfig aurora;                   ///< aurora.*, the default of every link
    /// A collective engine at an extra port of every switch (set by the
    /// platform for collective.placement = switch; not a topology.* parameter).
    bool switch_engines = false;

    /// Declares topology.*, router.* and aurora.*.
    static void declare(Parameters& parameters);
    /// Reads and validates them; throws ConfigError naming a bad one.
    static FabricConfig from(const Parameters& parameters);
    /// Builds the topology and its routing once to check them; throws
    /// ConfigError naming the first bad field: router.* or aurora.*, a bad
    /// shape or topology file, topology.kind=file without topology.file, a
    /// switch whose ports x router.vcs exceed the router's allocator (256
    /// input VCs), a cable latency or bandwidth the Aurora model refuses, a
    /// routing that cannot work (too few VCs for dor, a cyclic shortest).
    void validate() const;

    /// The network graph these parameters describe (hosts only).
    NetworkTopology topology() const;
    /// What the fabric builds: topology(), with switch_engines its engines'
    /// ports and addresses (with_switch_engines).
    NetworkTopology network() const;
    /// The routing policy for it: router.routing on a torus, a TableRouting
    /// (topology.routing) otherwise.
    std::shared_ptr<const RoutingPolicy> routing(const NetworkTopology& topology) const;
    /// The Aurora parameters of one cable: aurora.* with the cable's own
    /// latency and bandwidth where it gives them. A bandwidth B sets
    /// aurora.lane_rate_gbps = B / aurora.lanes and scales
    /// aurora.peak_payload_gbps by the same factor, so each frame's overhead
    /// in bytes stays what aurora.* says. A cable that gives neither gets
    /// aurora.* unchanged (every torus cable).
    AuroraConfig link_config(const TopologyCable& cable) const;
    /// "torus 4x4x2", "fattree radix=8,hosts=32,oversubscription=3", "file PATH".
    std::string describe() const;
};

/// Applies a --topology option — torus:XxYxZ, fattree:radix=R,hosts=N[,
/// oversubscription=S], file:PATH — as overrides of topology.*; throws
/// ConfigError naming the option and the accepted forms.
void apply_topology_option(Parameters& parameters, const std::string& text, const std::string& origin = "--topology");

}  // namespace isvp
