// `isvp topology`: what a network is before anything runs on it — its
// switches, cables and hosts, the route the tables give between two hosts,
// and the aggregation tree of a group of hosts (models/router). Nothing is
// simulated.
//
//   isvp topology --topology fattree:radix=8,hosts=32 [--route A,B] [--tree LIST] [--json FILE]
#include <charconv>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>

#include "cli.h"
#include "isvp/aggregation_tree.h"
#include "isvp/collective_engine.h"
#include "isvp/fabric_config.h"
#include "isvp/network_topology.h"
#include "isvp/switch_tree.h"
#include "isvp/table_routing.h"
#include "job_platform.h"

namespace po = boost::program_options;

namespace isvp::cli {

namespace {

/// A host address as the options write it: decimal digits only (no sign,
/// no spaces, nothing after them), at most 2^32 - 1; none otherwise. (stoul
/// stops at the first other character and its unsigned long wraps round when
/// cast: "0,1,2" and "4294967296" would name hosts nobody asked for.)
std::optional<unsigned> host_address(const std::string& text) {
    unsigned value = 0;
    const char* end = text.data() + text.size();
    const auto parsed = std::from_chars(text.data(), end, value);
    if (text.empty() || parsed.ec != std::errc() || parsed.ptr != end) return std::nullopt;
    return value;
}

/// "0-7,12,20-23" -> host addresses; ConfigError naming --tree otherwise.
std::vector<unsigned> parse_hosts(const std::string& text) {
    std::vector<unsigned> hosts;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        const auto dash = item.find('-');
        const std::optional<unsigned> first = host_address(item.substr(0, dash));
        const std::optional<unsigned> last = dash == std::string::npos ? first : host_address(item.substr(dash + 1));
        if (!first || !last || *last < *first || *last - *first > 65536)
            throw ConfigError("topology: --tree takes host addresses and ranges like 0-7,12, got '" + item + "'");
        for (unsigned h = *first; h <= *last; ++h) hosts.push_back(h);
    }
    if (hosts.empty()) throw ConfigError("topology: --tree names no host");
    return hosts;
}

/// "0-5,9": host addresses (ascending) as runs.
std::string host_runs(const std::vector<unsigned>& hosts) {
    std::string text;
    for (std::size_t i = 0; i < hosts.size();) {
        std::size_t j = i;
        while (j + 1 < hosts.size() && hosts[j + 1] == hosts[j] + 1) ++j;
        text += (text.empty() ? "" : ",") + std::to_string(hosts[i]) + (j > i ? "-" + std::to_string(hosts[j]) : "");
        i = j + 1;
    }
    return text.empty() ? "none" : text;
}

/// The switch-to-switch hops of the route from host `from` to host `to`.
std::string route_text(const NetworkTopology& topology, const RoutingPolicy& routing, unsigned from, unsigned to) {
    std::string text = "h" + std::to_string(from);
    unsigned at = topology.host(from).switch_index, in_port = topology.host(from).port, in_vc = 0;
    for (unsigned step = 0; step <= topology.switches(); ++step) {
        const auto decision = routing.route(at, in_port, in_vc, to);
        if (!decision) return text + " -> (no route)";
        text += " -> " + topology.port_label(at, decision->port) + " vc " + std::to_string(decision->vc);
        if (topology.is_host_port(at, decision->port)) return text + " -> h" + std::to_string(to);
        const PortPeer& next = topology.peer(at, decision->port);
        at = next.index;
        in_port = next.port;
        in_vc = decision->vc;
    }
    return text + " -> (loops)";
}

}  // namespace

int topology_command(int argc, char** argv) {
    Parameters parameters;
    // Every platform parameter, so that a platform's configuration file loads
    // as it is (as for run and bench); fabric.* and collective.* (placement,
    // mode: which switches hold engines or ANs) are used.
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp topology options");
    options.add_options()(
        "topology", po::value<std::string>(),
        "torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH (default: topology.*)")(
        "route", po::value<std::string>()->value_name("A,B"), "print the route the tables give from host A to host B")(
        "tree", po::value<std::string>()->value_name("LIST"),
        "print the aggregation tree of these hosts (e.g. 0-31 or 0,6,12)")(
        "tree-index", whole(0u),
        "which of the equally good roots (trees spread over spines)")(
        "json", po::value<std::string>()->value_name("FILE"), "write the network as a topology file (JSON)");
    add_platform_options(options, false);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp topology [--topology T] [--route A,B] [--tree LIST [--tree-index I]] [--json FILE]\n"
               "Prints a network's switches, cables and hosts as the simulator builds it, checks its routes\n"
               "(every host reaches every other, no channel-dependency cycle), and optionally a route and\n"
               "a group's aggregation tree. Nothing is simulated.",
               options, values))
        return 0;
    apply_config_option(values, parameters);
    if (values.count("topology"))
        apply_topology_option(parameters, values["topology"].as<std::string>(), "topology: --topology");
    if (!apply_platform_options(values, parameters)) return 0;
    const FabricConfig config = FabricConfig::from(parameters);
    const CollectiveConfig collective = CollectiveConfig::from(parameters);
    const NetworkTopology topology = config.topology();
    const auto routing = config.routing(topology);

    // Arguments first: a bad one is refused before anything is printed.
    std::optional<std::pair<unsigned, unsigned>> route;
    if (values.count("route")) {
        const std::string text = values["route"].as<std::string>();
        const auto comma = text.find(',');
        const std::optional<unsigned> from = host_address(text.substr(0, comma));
        const std::optional<unsigned> to =
            comma == std::string::npos ? std::nullopt : host_address(text.substr(comma + 1));
        if (!from || !to) throw ConfigError("topology: --route takes two host addresses A,B, got '" + text + "'");
        if (*from >= topology.hosts() || *to >= topology.hosts())
            throw ConfigError("topology: --route " + text + ": hosts are 0.." + std::to_string(topology.hosts() - 1));
        route = std::make_pair(*from, *to);
    }
    std::optional<AggregationTree> tree;
    if (!values.count("tree") && values.count("tree-index") && !values["tree-index"].defaulted())
        throw ConfigError("topology: --tree-index chooses among the roots of a --tree: give --tree LIST too");
    if (values.count("tree")) {
        try {
            tree = plan_aggregation_tree(topology, parse_hosts(values["tree"].as<std::string>()),
                                         whole_value<unsigned>(values, "tree-index"));
        } catch (const std::invalid_argument& error) {
            throw ConfigError(std::string("topology: --tree: ") + error.what());
        }
    }
    if (values.count("json")) check_writable("--json", values["json"].as<std::string>());

    unsigned levels = 0;
    std::size_t ports = 0;
    for (unsigned s = 0; s < topology.switches(); ++s) {
        levels = std::max(levels, topology.switch_at(s).level + 1);
        ports += topology.switch_at(s).ports;
    }
    std::cout << "# " << config.describe() << ": " << topology.hosts() << " hosts, " << topology.switches()
              << " switches (" << ports << " ports, " << levels << " level" << (levels == 1 ? "" : "s") << "), "
              << topology.cables().size() << " cables; routing " << routing->name() << "\n";
    if (config.kind == "fattree") {
        // The leaf's ports split as near the asked oversubscription as whole ports allow.
        const FatTreeShape& shape = config.fat_tree;
        std::cout << "# leaves: " << shape.leaf_downlinks() << " host ports and " << shape.leaf_uplinks()
                  << (shape.leaf_uplinks() == 1 ? " uplink" : " uplinks") << " each ("
                  << shape.leaf_downlinks() << ":" << shape.leaf_uplinks() << " for oversubscription "
                  << shape.oversubscription << ")\n";
    }
    const std::string problem = check_routes(topology, *routing, config.router.vcs);
    std::cout << "# routes: " << (problem.empty() ? "every host reaches every other, no dependency cycle" : problem)
              << "\n";
    // collective.placement = switch (and mode = sharp, which implies it) on
    // an indirect network: an engine in every switch at address hosts +
    // index, as the platform builds them (cluster_platform.cpp).
    const bool engines = (collective.placement == "switch" || collective.sharp()) && config.kind != "torus";
    const unsigned planner = tree_planner_switch(topology);
    if (engines) {
        const std::string what = collective.sharp() ? "SHArP aggregation node (AN)" : "collective engine";
        std::cout << "# " << what << " in every switch, network addresses " << topology.hosts() << ".."
                  << topology.hosts() + topology.switches() - 1 << " (hosts + switch index); "
                  << (collective.sharp() ? "the aggregation manager (tree planner) is " : "the tree planner is ")
                  << topology.switch_at(planner).name;
        if (collective.sharp())
            std::cout << "; each AN serves " << collective.sharp_max_trees_per_an << " trees with "
                      << collective.sharp_buffers_per_an << " operation buffers";
        std::cout << "\n";
    }
    if (topology.switches() <= 64) {
        for (unsigned s = 0; s < topology.switches(); ++s) {
            const TopologySwitch& sw = topology.switch_at(s);
            const std::vector<unsigned> hosts = topology.hosts_on(s);
            std::cout << sw.name << ": " << sw.ports << " ports, level " << sw.level << ", hosts " << host_runs(hosts)
                      << "; links to";
            for (unsigned p = 0; p < sw.ports; ++p) {
                const PortPeer& peer = topology.peer(s, p);
                if (peer.kind == PortPeer::Kind::Switch)
                    std::cout << " " << topology.switch_at(peer.index).name << "(p" << p << ")";
            }
            if (engines)
                std::cout << "; " << (collective.sharp() ? "AN" : "engine") << " at address "
                          << switch_engine_address(topology, s) << (s == planner ? " (planner)" : "");
            std::cout << "\n";
        }
    } else {
        std::cout << "# (" << topology.switches() << " switches: the per-switch list is left out above 64)\n";
    }
    if (route) {
        std::cout << "route: " << route_text(topology, *routing, route->first, route->second) << " ("
                  << topology.distance(route->first, route->second) << " switch-to-switch hops at least)\n";
    }
    if (tree) {
        std::cout << "aggregation tree: " << tree->members.size() << " hosts, " << tree->vertices.size()
                  << " combining switch" << (tree->vertices.size() == 1 ? "" : "es") << ", depth " << tree->depth()
                  << ": " << tree->describe(topology) << "\n";
    }
    if (values.count("json")) {
        const std::string path = values["json"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("topology: cannot write --json " + path);
        out << network_to_json(topology) << "\n";
    }
    return problem.empty() ? 0 : 1;
}

}  // namespace isvp::cli
