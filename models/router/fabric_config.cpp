#include "isvp/fabric_config.h"

#include "isvp/round_robin_arbiter.h"
#include "isvp/table_routing.h"

namespace isvp {

namespace {

const std::vector<std::string> kKinds = {"torus", "fattree", "file"};

}  // namespace

void FabricConfig::declare(Parameters& parameters) {
    const FabricConfig defaults;
    parameters.declare_choice("topology.kind", defaults.kind, kKinds,
                              "network: torus (topology.torus), fattree (topology.fattree) or file (topology.file)");
    parameters.declare_text("topology.torus", defaults.shape.to_string(),
                            "3D torus shape XxYxZ; node address = x + X * (y + Y * z)");
    parameters.declare_text("topology.fattree", defaults.fat_tree.to_string(),
                            "spine-leaf fat tree radix=R,hosts=N[,oversubscription=S] (S:1 leaf downlinks:uplinks)");
    parameters.declare_text("topology.file", defaults.file, "JSON topology file (router README, \"Topology files\")");
    parameters.declare_choice("topology.routing", defaults.table_routing, table_routing_names(),
                              "routing on fattree and file topologies: updown (deadlock-free) or shortest (minimal, "
                              "refused where it could deadlock); the torus uses router.routing");
    RouterConfig::declare(parameters);
    AuroraConfig::declare(parameters);
}

FabricConfig FabricConfig::from(const Parameters& parameters) {
    FabricConfig config;
    config.kind = parameters.text("topology.kind");
    // Only the selected kind's text is parsed: a stale topology.fattree does
    // not break a torus run.
    if (config.kind == "torus") config.shape = TorusShape::parse(parameters.text("topology.torus"));
    if (config.kind == "fattree") config.fat_tree = FatTreeShape::parse(parameters.text("topology.fattree"));
    config.file = parameters.text("topology.file");
    config.table_routing = parameters.text("topology.routing");
    config.router = RouterConfig::from(parameters);
    config.aurora = AuroraConfig::from(parameters);
    config.validate();
    return config;
}

void FabricConfig::validate() const {
    router.validate();
    aurora.validate();
    if (kind == "file" && file.empty())
        throw ConfigError("config: topology.file must name a JSON topology file when topology.kind=file");
    const NetworkTopology network = this->network();  // throws for a bad shape or file
    // The router's allocator arbitrates over ports x VCs input VCs.
    for (unsigned s = 0; s < network.switches(); ++s)
        if (std::uint64_t{network.switch_at(s).ports} * router.vcs > RequestSet::kCapacity)
            throw ConfigError("config: topology " + network.description() + ": switch " + network.switch_at(s).name +
                              " has " + std::to_string(network.switch_at(s).ports) + " ports; with router.vcs " +
                              std::to_string(router.vcs) + " a router supports at most " +
                              std::to_string(RequestSet::kCapacity / router.vcs) +
                              " (ports x VCs <= " + std::to_string(RequestSet::kCapacity) + ")");
    for (unsigned c = 0; c < network.cables().size(); ++c) {
        const TopologyCable& cable = network.cables()[c];
        try {
            link_config(cable).validate();
        } catch (const ConfigError& error) {
            std::string why = error.what();
            if (why.rfind("config: ", 0) == 0) why.erase(0, 8);
            throw ConfigError("config: topology " + network.description() + ": cable " + std::to_string(c) + " (" +
                              network.port_label(cable.a, cable.a_port) + " - " +
                              network.port_label(cable.b, cable.b_port) +
                              ") has a latency or bandwidth the Aurora model refuses: " + why);
        }
    }
    routing(network);  // throws if the policy cannot work here (too few VCs, a dependency cycle)
}

AuroraConfig FabricConfig::link_config(const TopologyCable& cable) const {
    AuroraConfig link = aurora;
    if (cable.latency_ns >= 0) link.latency_ns = cable.latency_ns;
    if (cable.bandwidth_gbps > 0) {
        const double scale = cable.bandwidth_gbps / (aurora.lanes * aurora.lane_rate_gbps);
        link.lane_rate_gbps = aurora.lane_rate_gbps * scale;
        link.peak_payload_gbps = aurora.peak_payload_gbps * scale;
    }
    return link;
}

NetworkTopology FabricConfig::topology() const {
    if (kind == "torus") return torus_network(shape);
    if (kind == "fattree") return fat_tree_network(fat_tree);
    if (kind == "file") return load_network_file(file);
    throw ConfigError("config: topology.kind must be one of torus, fattree, file, got '" + kind + "'");
}

NetworkTopology FabricConfig::network() const {
    return switch_engines ? with_switch_engines(topology()) : topology();
}

std::shared_ptr<const RoutingPolicy> FabricConfig::routing(const NetworkTopology& topology) const {
    if (kind == "torus") return make_torus_routing(router.routing, TorusTopology(shape), router.vcs);
    return std::make_shared<TableRouting>(topology, table_routing, router.vcs);
}

std::string FabricConfig::describe() const {
    if (kind == "torus") return "torus " + shape.to_string();
    if (kind == "fattree") return "fattree " + fat_tree.to_string();
    return kind + " " + file;
}

void apply_topology_option(Parameters& parameters, const std::string& text, const std::string& origin) {
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
    const char* parameter = kind == "torus"     ? "topology.torus"
                            : kind == "fattree" ? "topology.fattree"
                            : kind == "file"    ? "topology.file"
                                                : nullptr;
    if (parameter == nullptr || value.empty())
        throw ConfigError("config: " + origin +
                          " must be torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH, got '" +
                          text + "'");
    // Check the shape now, so the error names the option rather than a
    // parameter the user did not write.
    try {
        if (kind == "torus") TorusShape::parse(value);
        if (kind == "fattree") FatTreeShape::parse(value);
    } catch (const ConfigError& error) {
        std::string why = error.what();
        if (why.rfind("config: ", 0) == 0) why.erase(0, 8);
        throw ConfigError("config: " + origin + " '" + text + "': " + why);
    }
    parameters.apply_override("topology.kind=" + kind);
    parameters.apply_override(std::string(parameter) + "=" + value);
}

}  // namespace isvp
