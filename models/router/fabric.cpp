#include "isvp/fabric.h"

#include "isvp/statistics_table.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/fabric";
}

Fabric::Fabric(sc_core::sc_module_name name, const FabricConfig& config) : Fabric(name, config, nullptr) {}

Fabric::Fabric(sc_core::sc_module_name name, const FabricConfig& config, std::shared_ptr<const RoutingPolicy> routing)
    : Fabric(name, config, std::move(routing), nullptr, 0) {}

Fabric::Fabric(sc_core::sc_module_name name, const FabricConfig& config, const PartitionPlan& plan, unsigned partition)
    : Fabric(name, config, nullptr, &plan, partition) {}

Fabric::Fabric(sc_core::sc_module_name name, const FabricConfig& config, std::shared_ptr<const RoutingPolicy> routing,
               const PartitionPlan* plan, unsigned partition)
    : sc_core::sc_module(name),
      config_(config),
      topology_(config.network()),
      torus_(topology_.kind() == "torus"),
      routing_(routing ? std::move(routing) : config_.routing(topology_)),
      scheduler_("scheduler"),
      plan_(plan) {
    config_.validate();
    for (unsigned s = 0; s < topology_.switches(); ++s)
        if (routing_->ports(s) != topology_.switch_at(s).ports)
            SC_REPORT_ERROR(kReportType,
                            (std::string(this->name()) + ": routing policy '" + std::string(routing_->name()) +
                             "' gives switch " + switch_label(s) + " " + std::to_string(routing_->ports(s)) +
                             " ports, the topology " + std::to_string(topology_.switch_at(s).ports))
                                .c_str());

    std::size_t port_count = 0;
    for (unsigned s = 0; s < topology_.switches(); ++s) {
        first_port_.push_back(port_count);
        port_count += topology_.switch_at(s).ports;
        std::vector<std::string> port_names;
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p) port_names.push_back(port_name(s, p));
        if (plan && plan->switch_owner(s) != partition) {
            routers_.push_back(nullptr);
            continue;
        }
        const std::string router_name = "router_" + (torus_ ? std::to_string(s) : topology_.switch_at(s).name);
        routers_.push_back(
            std::make_unique<Router>(router_name.c_str(), config_.router, routing_, s, port_names, &scheduler_));
    }
    // Wake-up hints pay where the routers' records miss the caches: +10 % on
    // the 512-node bench, ±1 % at 128 and 256 switches, -3.5 % at 64, where
    // describing them is all they cost (docs/PERFORMANCE.md, "Session 29").
    // The records grow with the input VCs, which the count is taken in.
    std::size_t input_vcs = 0;
    for (unsigned s = 0; s < topology_.switches(); ++s)
        if (routers_[s] != nullptr) input_vcs += std::size_t{topology_.switch_at(s).ports} * config_.router.vcs;
    const std::string& hints = config_.router.wakeup_hints;
    scheduler_.use_hints(hints == "on" || (hints == "auto" && input_vcs >= kHintedInputVcs));
    scheduler_.take_time_steps(config_.router.scheduler_time_steps);
    // One link per cable end, switch by switch and port by port (the order
    // the torus fabric always built them in).
    links_.resize(port_count);
    if (plan) boundary_ = std::make_unique<PartitionBoundary>("boundary", *plan, partition);
    for (unsigned s = 0; s < topology_.switches(); ++s)
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p) {
            const PortPeer& peer = topology_.peer(s, p);
            if (peer.kind != PortPeer::Kind::Switch) continue;
            // A partition builds the links leaving its switches; a link into
            // one of its switches from another partition ends at the boundary.
            if (!owns(s)) {
                if (owns(peer.index))
                    boundary_->attach_incoming(plan->channel_from(topology_, s, p), *routers_[peer.index], peer.port);
                continue;
            }
            // A torus link keeps the bit-error stream it always had (node * 6 + port).
            const std::uint64_t stream =
                torus_ ? std::uint64_t{s} * TorusTopology::kNetworkPorts + p : first_port_[s] + p;
            connect(s, p, peer.index, peer.port, config_.link_config(topology_.cables()[peer.cable]), stream);
        }
    const std::uint64_t minimum = minimum_input_buffer_bytes();
    if (config_.router.input_buffer_bytes < minimum)
        SC_REPORT_WARNING(kReportType,
                          (std::string(this->name()) +
                           ": router.input_buffer_bytes = " + std::to_string(config_.router.input_buffer_bytes) +
                           " is below DESIGN's min_buf = (m + (d + q) * L / T_clk) * Ph = " + std::to_string(minimum) +
                           " bytes for these parameters")
                              .c_str());
}

void Fabric::connect(unsigned from, unsigned from_port, unsigned to, unsigned to_port, const AuroraConfig& config,
                     std::uint64_t stream) {
    const std::string name =
        "link_" + (torus_ ? std::to_string(from) : topology_.switch_at(from).name) + "_" + port_name(from, from_port);
    auto link = std::make_unique<AuroraLink>(name.c_str(), config, stream);
    Router& near_router = *routers_[from];
    near_router.out(from_port).bind(link->in);
    link->credit_out.bind(near_router.credit_in(from_port));
    if (owns(to)) {
        Router& far_router = *routers_[to];
        link->out.bind(far_router.in(to_port));
        far_router.credit_out(to_port).bind(link->credit_in);
    } else {
        boundary_->attach_outgoing(plan_->channel_from(topology_, from, from_port), *link);
    }
    link->set_drop_observer([this, from, to, from_port](const PacketInfo& info) {
        LinkDrop drop;
        drop.from = from;
        drop.to = to;
        drop.port = from_port;
        drop.sequenced = info.reliable == PacketInfo::Reliable::Data;
        drop.source = info.reliable_source;
        drop.sequence = info.reliable_sequence;
        drop.destination = info.destination;
        drops_.push_back(drop);
    });
    links_[first_port_[from] + from_port] = std::move(link);
}

Router& Fabric::router(unsigned switch_index) {
    Router* r = routers_.at(switch_index).get();
    if (r == nullptr)
        throw std::logic_error("fabric: switch " + switch_label(switch_index) + " is simulated by another partition");
    return *r;
}

const Router& Fabric::router(unsigned switch_index) const {
    return const_cast<Fabric*>(this)->router(switch_index);
}

std::string Fabric::port_name(unsigned switch_index, unsigned port) const {
    if (torus_) return std::string(TorusTopology::port_name(port));
    (void)switch_index;
    return "p" + std::to_string(port);
}

std::string Fabric::switch_label(unsigned switch_index) const {
    return torus_ ? "node " + std::to_string(switch_index) : topology_.switch_at(switch_index).name;
}

std::string Fabric::describe(const LinkDrop& drop) const {
    return switch_label(drop.from) + " -> " + switch_label(drop.to) + " (" + port_name(drop.from, drop.port) + ")";
}

void Fabric::limit_drop_warnings(std::uint64_t count) {
    for (auto& link : links_)
        if (link) link->limit_drop_warnings(count);
}

Router::PacketInSocket& Fabric::inject(unsigned host) {
    const HostPort& at = topology_.host(host);
    return router(at.switch_index).in(at.port);
}
Router::CreditOutSocket& Fabric::inject_credit(unsigned host) {
    const HostPort& at = topology_.host(host);
    return router(at.switch_index).credit_out(at.port);
}
Router::PacketOutSocket& Fabric::eject(unsigned host) {
    const HostPort& at = topology_.host(host);
    return router(at.switch_index).out(at.port);
}
Router::CreditInSocket& Fabric::eject_credit(unsigned host) {
    const HostPort& at = topology_.host(host);
    return router(at.switch_index).credit_in(at.port);
}

const AuroraLink* Fabric::link(unsigned switch_index, unsigned port) const {
    if (switch_index >= topology_.switches() || port >= topology_.switch_at(switch_index).ports) return nullptr;
    return links_[first_port_[switch_index] + port].get();
}

std::uint64_t Fabric::minimum_input_buffer_bytes() const {
    double latency_ns = config_.aurora.latency_ns;
    for (const TopologyCable& cable : topology_.cables())
        if (cable.latency_ns >= 0) latency_ns = std::max(latency_ns, cable.latency_ns);
    return config_.router.minimum_input_buffer_bytes(latency_ns);
}

std::uint64_t Fabric::packet_hops() const {
    std::uint64_t hops = 0;
    for (unsigned s = 0; s < topology_.switches(); ++s)
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p)
            if (owns(s) && !topology_.is_host_port(s, p)) hops += router(s).port_statistics(p).packets_out;
    return hops;
}

nlohmann::json Fabric::statistics(const sc_core::sc_time& elapsed) const {
    nlohmann::json routers = nlohmann::json::array();
    for (unsigned s = 0; s < topology_.switches(); ++s) {
        if (!owns(s)) continue;
        const Router& r = router(s);
        nlohmann::json ports = nlohmann::json::object();
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p) {
            const RouterPortStatistics& stats = r.port_statistics(p);
            if (stats.packets_in == 0 && stats.packets_out == 0) continue;
            ports[port_name(s, p)] = statistics_json(stats);
        }
        nlohmann::json entry = statistics_json(r.drop_statistics());
        entry["ports"] = std::move(ports);
        if (torus_)
            entry["node"] = s;
        else
            entry["switch"] = topology_.switch_at(s).name;
        routers.push_back(std::move(entry));
    }
    nlohmann::json links = nlohmann::json::array();
    for (unsigned s = 0; s < topology_.switches(); ++s)
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p) {
            const AuroraLink* l = link(s, p);
            if (l == nullptr) continue;
            nlohmann::json entry = statistics_json(l->statistics());
            entry["from"] = torus_ ? nlohmann::json(s) : nlohmann::json(topology_.switch_at(s).name);
            entry["port"] = port_name(s, p);
            entry["utilisation"] = l->utilisation(elapsed);
            links.push_back(std::move(entry));
        }
    return {{"topology", topology_.description()}, {"routers", routers}, {"links", links}};
}

}  // namespace isvp
