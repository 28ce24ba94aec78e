#include "isvp/torus_fabric.h"

#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/torus_fabric";
}

TorusFabric::TorusFabric(sc_core::sc_module_name name, const TorusFabricConfig& config)
    : TorusFabric(name, config,
                  make_torus_routing(config.router.routing, TorusTopology(config.shape), config.router.vcs)) {}

TorusFabric::TorusFabric(sc_core::sc_module_name name, const TorusFabricConfig& config,
                         std::shared_ptr<const RoutingPolicy> routing)
    : sc_core::sc_module(name),
      config_(config),
      topology_(config.shape),
      routing_(std::move(routing)),
      scheduler_("scheduler") {
    config_.validate();
    if (!routing_ || routing_->ports(0) != TorusTopology::kPorts ||
        !routing_->is_host_port(0, TorusTopology::kLocalPort))
        SC_REPORT_ERROR(kReportType, (std::string(this->name()) +
                                      ": the routing policy must route over the 7 torus ports with port 6 local")
                                         .c_str());
    std::vector<std::string> port_names;
    for (unsigned p = 0; p < TorusTopology::kPorts; ++p) port_names.emplace_back(TorusTopology::port_name(p));
    for (unsigned node = 0; node < topology_.nodes(); ++node)
        routers_.push_back(std::make_unique<Router>(("router_" + std::to_string(node)).c_str(), config_.router,
                                                    routing_, node, port_names, &scheduler_));
    links_.resize(std::size_t{topology_.nodes()} * TorusTopology::kNetworkPorts);
    for (unsigned node = 0; node < topology_.nodes(); ++node)
        for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port) {
            if (!topology_.has_link(port)) continue;
            const unsigned index = node * TorusTopology::kNetworkPorts + port;
            const std::uint32_t neighbour = topology_.neighbour(node, port);
            const unsigned far_port = TorusTopology::opposite(port);
            auto link = std::make_unique<AuroraLink>(
                ("link_" + std::to_string(node) + "_" + std::string(TorusTopology::port_name(port))).c_str(),
                config_.aurora, index);
            Router& near_router = *routers_[node];
            Router& far_router = *routers_[neighbour];
            near_router.out(port).bind(link->in);
            link->credit_out.bind(near_router.credit_in(port));
            link->out.bind(far_router.in(far_port));
            far_router.credit_out(far_port).bind(link->credit_in);
            link->set_drop_observer([this, node, neighbour, port](const PacketInfo& info) {
                LinkDrop drop;
                drop.from = node;
                drop.to = neighbour;
                drop.port = port;
                drop.sequenced = info.reliable == PacketInfo::Reliable::Data;
                drop.source = info.reliable_source;
                drop.sequence = info.reliable_sequence;
                drop.destination = info.destination;
                drops_.push_back(drop);
            });
            links_[index] = std::move(link);
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

std::string describe(const LinkDrop& drop) {
    return "node " + std::to_string(drop.from) + " -> node " + std::to_string(drop.to) + " (" +
           std::string(TorusTopology::port_name(drop.port)) + ")";
}

void TorusFabric::limit_drop_warnings(std::uint64_t count) {
    for (auto& link : links_)
        if (link) link->limit_drop_warnings(count);
}

Router::PacketInSocket& TorusFabric::inject(unsigned node) {
    return router(node).in(TorusTopology::kLocalPort);
}
Router::CreditOutSocket& TorusFabric::inject_credit(unsigned node) {
    return router(node).credit_out(TorusTopology::kLocalPort);
}
Router::PacketOutSocket& TorusFabric::eject(unsigned node) {
    return router(node).out(TorusTopology::kLocalPort);
}
Router::CreditInSocket& TorusFabric::eject_credit(unsigned node) {
    return router(node).credit_in(TorusTopology::kLocalPort);
}

const AuroraLink* TorusFabric::link(unsigned node, unsigned port) const {
    if (node >= topology_.nodes() || port >= TorusTopology::kNetworkPorts) return nullptr;
    return links_[node * TorusTopology::kNetworkPorts + port].get();
}

std::uint64_t TorusFabric::minimum_input_buffer_bytes() const {
    return config_.router.minimum_input_buffer_bytes(config_.aurora.latency_ns);
}

std::uint64_t TorusFabric::packet_hops() const {
    std::uint64_t hops = 0;
    for (unsigned node = 0; node < topology_.nodes(); ++node)
        for (unsigned p = 0; p < TorusTopology::kPorts; ++p)
            if (p != TorusTopology::kLocalPort) hops += router(node).port_statistics(p).packets_out;
    return hops;
}

nlohmann::json TorusFabric::statistics(const sc_core::sc_time& elapsed) const {
    nlohmann::json routers = nlohmann::json::array();
    for (unsigned node = 0; node < topology_.nodes(); ++node) {
        const Router& r = router(node);
        nlohmann::json ports = nlohmann::json::object();
        for (unsigned p = 0; p < TorusTopology::kPorts; ++p) {
            const RouterPortStatistics& s = r.port_statistics(p);
            if (s.packets_in == 0 && s.packets_out == 0) continue;
            ports[std::string(TorusTopology::port_name(p))] = {{"packets_in", s.packets_in},
                                                               {"phits_in", s.phits_in},
                                                               {"packets_out", s.packets_out},
                                                               {"phits_out", s.phits_out},
                                                               {"stall_ns", s.stall_time.to_seconds() * 1e9},
                                                               {"busy_ns", s.busy_time.to_seconds() * 1e9}};
        }
        const RouterDropStatistics& drops = r.drop_statistics();
        routers.push_back({{"node", node},
                           {"ports", ports},
                           {"dropped_malformed", drops.malformed},
                           {"dropped_misaddressed", drops.misaddressed},
                           {"dropped_oversized", drops.oversized}});
    }
    nlohmann::json links = nlohmann::json::array();
    for (unsigned node = 0; node < topology_.nodes(); ++node)
        for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port) {
            const AuroraLink* l = link(node, port);
            if (l == nullptr) continue;
            const AuroraLinkStatistics& s = l->statistics();
            links.push_back({{"from", node},
                             {"port", std::string(TorusTopology::port_name(port))},
                             {"packets", s.packets},
                             {"bytes", s.bytes},
                             {"utilisation", l->utilisation(elapsed)},
                             {"crc_errors", s.crc_errors},
                             {"retransmissions", s.retransmissions},
                             {"dropped", s.dropped}});
        }
    return {{"topology", config_.shape.to_string()}, {"routers", routers}, {"links", links}};
}

}  // namespace isvp
