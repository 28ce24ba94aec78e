// All-to-all traffic through a Fabric of any topology: every host sends
// --rounds packets to every host (itself included) at once, with payload
// sizes cycling through --payloads. Checks full delivery with intact bytes
// (no deadlock, no loss), that every packet took the route the routing
// tables give (minimal on a torus), no buffer overrun, and that every
// buffer is empty and every credit back at the end.
//
//   torus_traffic_tb [--set topology.torus=4x4x4 | --set topology.kind=fattree
//                     --set topology.fattree=radix=8,hosts=16 | ...] [--set key=value ...]
//                    [--rounds N] [--payloads 64,256,1000]
//                    [--drain-gbps G] [--sink-phits P]
//                    [--without-dateline 1]
//
// --without-dateline 1 is the control experiment: dimension-order routing
// that keeps every packet on VC 0. The test then passes only if the traffic
// deadlocks, which shows that the traffic pattern can deadlock a torus and
// that the dateline VCs are what prevents it.
#include <chrono>
#include <sstream>

#include "isvp/dimension_order_routing.h"

#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::ns;
using isvp::testbench::TorusWithEndpoints;

namespace {

/// Dimension-order routing without dateline VCs: deadlock-prone on rings of
/// four or more nodes. For the control experiment only.
class RoutingWithoutDateline final : public RoutingPolicy {
  public:
    RoutingWithoutDateline(const TorusTopology& topology, unsigned vcs) : dor_(topology, vcs) {}
    std::string_view name() const override { return "dor_without_dateline"; }
    unsigned ports(std::uint32_t node) const override { return dor_.ports(node); }
    bool is_host_port(std::uint32_t node, unsigned port) const override { return dor_.is_host_port(node, port); }
    std::optional<RouteDecision> route(std::uint32_t node, unsigned in_port, unsigned in_vc,
                                       std::uint32_t destination) const override {
        auto decision = dor_.route(node, in_port, in_vc, destination);
        if (decision) decision->vc = 0;
        return decision;
    }

  private:
    DimensionOrderRouting dor_;  ///< the real policy, whose VC choice is overridden
};

/// Switch-to-switch hops of the route the fabric's policy gives from host
/// `from` to host `to` (a torus's DOR routes are minimal; up*/down* on an
/// irregular graph need not be).
std::uint64_t routed_hops(const Fabric& fabric, unsigned from, unsigned to) {
    const NetworkTopology& topology = fabric.topology();
    unsigned at = topology.host(from).switch_index, in_port = topology.host(from).port, in_vc = 0;
    std::uint64_t hops = 0;
    for (unsigned step = 0; step <= topology.switches(); ++step) {
        const auto decision = fabric.routing().route(at, in_port, in_vc, to);
        if (!decision || topology.is_host_port(at, decision->port)) return hops;
        const PortPeer& next = topology.peer(at, decision->port);
        at = next.index;
        in_port = next.port;
        in_vc = decision->vc;
        ++hops;
    }
    return hops;
}

}  // namespace

int sc_main(int argc, char** argv) {
    Parameters parameters;
    unsigned rounds = 2;
    std::vector<std::uint32_t> payloads = {64, 256, 1000};
    double drain_gbps = 0;
    std::uint32_t sink_phits = 0;
    bool without_dateline = false;
    FabricConfig config;
    try {
        for (const auto& [name, value] : testbench::parse_arguments(argc, argv, parameters)) {
            if (name == "rounds") {
                rounds = static_cast<unsigned>(std::stoul(value));
            } else if (name == "payloads") {
                payloads.clear();
                std::stringstream list(value);
                for (std::string item; std::getline(list, item, ',');) payloads.push_back(std::stoul(item));
            } else if (name == "drain-gbps") {
                drain_gbps = std::stod(value);
            } else if (name == "without-dateline") {
                without_dateline = value == "1";
            } else if (name == "sink-phits") {
                sink_phits = static_cast<std::uint32_t>(std::stoul(value));
            } else {
                throw ConfigError("unknown option --" + name);
            }
        }
        config = FabricConfig::from(parameters);
        if (without_dateline && config.kind != "torus")
            throw ConfigError("--without-dateline 1 is a torus experiment; topology.kind is " + config.kind);
    } catch (const std::exception& error) {
        std::cerr << error.what() << "\n";
        return 2;
    }

    std::shared_ptr<const RoutingPolicy> routing;
    if (without_dateline)
        routing = std::make_shared<RoutingWithoutDateline>(TorusTopology(config.shape), config.router.vcs);
    TorusWithEndpoints network("torus", config, sink_phits, drain_gbps, routing);
    const unsigned nodes = network.fabric.nodes();
    const sc_core::sc_time start(1, sc_core::SC_US);
    std::uint64_t expected_hops = 0;
    for (unsigned round = 0; round < rounds; ++round)
        for (unsigned offset = 0; offset < nodes; ++offset)
            for (unsigned node = 0; node < nodes; ++node) {
                const unsigned destination = (node + offset) % nodes;
                const std::uint32_t payload = payloads[(round + offset + node) % payloads.size()];
                network.sources[node]->add(PacketRequest{
                    start, destination, payload, static_cast<std::uint8_t>((round + node) % config.router.vcs)});
                expected_hops += routed_hops(network.fabric, node, destination);
            }
    const std::uint64_t expected = std::uint64_t{rounds} * nodes * nodes;

    const auto wall_start = std::chrono::steady_clock::now();
    sc_core::sc_start();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    const std::string shape = config.describe();
    std::cout << shape << ": " << expected << " packets, " << rounds << " round(s) of all-to-all, payloads";
    for (auto p : payloads) std::cout << " " << p;
    std::cout << "; done at " << ns(network.last_tail()) << " simulated, " << wall << " s wall\n";

    Checks checks;
    if (without_dateline) {
        checks.expect(network.delivered() < expected && network.buffered() > 0,
                      shape + ": without dateline VCs the same traffic deadlocks (" +
                          std::to_string(network.delivered()) + " of " + std::to_string(expected) + " delivered, " +
                          std::to_string(network.buffered()) + " packets stuck in router buffers)");
        return checks.finish();
    }
    checks.expect(network.sent() == expected && network.queued() == 0,
                  shape + ": every source sent all its " + std::to_string(rounds * nodes) + " packets");
    checks.expect(network.delivered() == expected, shape + ": all " + std::to_string(expected) +
                                                       " packets delivered (no deadlock, no loss; got " +
                                                       std::to_string(network.delivered()) + ")");
    checks.expect(network.errors() == 0, shape + ": every packet reached its own node with intact bytes" +
                                             (network.errors() ? ": " + network.first_error() : ""));
    checks.expect(network.hops() == expected_hops, shape + ": every packet took the route of the routing tables (" +
                                                       std::to_string(network.hops()) + " hops, " +
                                                       std::to_string(expected_hops) + " expected)");
    checks.expect(network.overruns() == 0, shape + ": no sink buffer was ever overrun");
    checks.expect(network.buffered() == 0 && network.credits_restored(),
                  shape + ": at the end every router buffer is empty and every credit is back");
    std::uint64_t dropped = 0;
    for (unsigned s = 0; s < network.fabric.switches(); ++s) {
        const RouterDropStatistics& drops = network.fabric.router(s).drop_statistics();
        dropped += drops.malformed + drops.misaddressed + drops.oversized;
    }
    checks.expect(dropped == 0, shape + ": no router dropped anything");
    return checks.finish();
}
