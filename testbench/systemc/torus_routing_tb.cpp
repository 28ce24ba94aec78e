// Fabric routing, one isolated packet at a time: along each dimension
// in both directions, across the wrap-around links, through all three
// dimensions, to itself; on a 4x4x4, a 2x2x2 (two cables per neighbour pair),
// a 4x1x1 and a 1x1x1 torus. For each packet: the hop count, the exact path
// (which links carried it) and the latency decomposition
//   tail latency = (hops + 1) x router pipeline + hops x (link latency +
//                  serialisation) + the packet's transfer time at the eject port.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::ns;
using isvp::testbench::TorusWithEndpoints;

namespace {

constexpr unsigned kXPlus = 0, kXMinus = 1, kYPlus = 2, kYMinus = 3, kZPlus = 4, kZMinus = 5;
constexpr std::uint32_t kPayload = 256;  // 274-byte packets, 9 phits
const sc_core::sc_time kSpacing(10, sc_core::SC_US);

/// One routed packet and the path it must take.
struct RouteCase {
    std::string what;                                         ///< description
    TorusCoordinates from;                                    ///< source
    TorusCoordinates to;                                      ///< destination
    std::vector<std::pair<TorusCoordinates, unsigned>> path;  ///< links: leaving node, port
};

class RoutingScenario {
  public:
    RoutingScenario(const std::string& name, const TorusShape& shape, std::vector<RouteCase> cases)
        : cases_(std::move(cases)), network_(name, config_for(shape)) {
        for (auto& sink : network_.sinks) sink->keep_arrivals(true);
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            const TorusTopology torus(network_.fabric.config().shape);
            const sc_core::sc_time at = kSpacing * static_cast<double>(i + 1);
            network_.sources[torus.address(cases_[i].from)]->add(
                PacketRequest{at, torus.address(cases_[i].to), kPayload, 0});
        }
    }

    void check(Checks& checks) const {
        const Fabric& fabric = network_.fabric;
        const TorusTopology torus(fabric.config().shape);
        const FabricConfig& config = fabric.config();
        const sc_core::sc_time cycle(config.router.clock_period_ns(), sc_core::SC_NS);
        const sc_core::sc_time pipeline = cycle * static_cast<double>(config.router.pipeline_cycles);
        const std::uint32_t bytes = kPayload + kNetworkPacketOverhead;
        const sc_core::sc_time link(config.aurora.latency_ns, sc_core::SC_NS);
        const sc_core::sc_time serialisation(AuroraTiming(config.aurora).serialisation_ns(bytes), sc_core::SC_NS);
        const unsigned phits = phits_of(bytes);
        const sc_core::sc_time transfer =
            cycle * static_cast<double>((phits + config.router.phits_per_cycle - 1) / config.router.phits_per_cycle);
        const std::string label = fabric.config().shape.to_string() + ": ";

        std::map<std::pair<std::uint32_t, unsigned>, std::uint64_t> expected_links;
        for (const RouteCase& route : cases_) {
            const std::uint32_t destination = torus.address(route.to);
            const auto& arrivals = network_.sinks[destination]->arrivals();
            const PacketArrival* found = nullptr;
            for (const auto& arrival : arrivals)
                if (arrival.source == torus.address(route.from)) found = &arrival;
            if (!checks.expect(found != nullptr, label + route.what + ": delivered")) continue;
            const unsigned hops = static_cast<unsigned>(route.path.size());
            checks.expect(found->hops == hops && hops == torus.distance(torus.address(route.from), destination),
                          label + route.what + ": " + std::to_string(found->hops) + " hops = torus distance");
            const sc_core::sc_time expected = pipeline * static_cast<double>(hops + 1) +
                                              (link + serialisation) * static_cast<double>(hops) + transfer;
            checks.expect(found->tail - found->injected == expected,
                          label + route.what + ": latency " + ns(found->tail - found->injected) + " = " +
                              std::to_string(hops + 1) + " x 16 ns pipeline + " + std::to_string(hops) +
                              " x (440 ns + " + ns(serialisation) + ") + " + ns(transfer) + " eject transfer");
            for (const auto& [node, port] : route.path) ++expected_links[{torus.address(node), port}];
        }
        bool paths = true;
        for (unsigned node = 0; node < torus.nodes(); ++node)
            for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port) {
                const AuroraLink* l = fabric.link(node, port);
                const std::uint64_t carried = l ? l->statistics().packets : 0;
                const auto want = expected_links.find({node, port});
                paths = paths && carried == (want == expected_links.end() ? 0 : want->second);
            }
        checks.expect(paths, label + "every packet took exactly its dimension-order path (link counters)");
        checks.expect(network_.errors() == 0, label + "all bytes arrive intact");
    }

    TorusWithEndpoints& network() { return network_; }

  private:
    static FabricConfig config_for(const TorusShape& shape) {
        FabricConfig config;
        config.shape = shape;
        return config;
    }

    std::vector<RouteCase> cases_;  ///< packets and their paths
    TorusWithEndpoints network_;    ///< fabric + endpoints
};

TorusCoordinates at(unsigned x, unsigned y, unsigned z) {
    return TorusCoordinates{{x, y, z}};
}

}  // namespace

int sc_main(int, char**) {
    RoutingScenario cube("cube", TorusShape{4, 4, 4},
                         {
                             {"+x one hop", at(0, 0, 0), at(1, 0, 0), {{at(0, 0, 0), kXPlus}}},
                             {"-x one hop", at(1, 0, 0), at(0, 0, 0), {{at(1, 0, 0), kXMinus}}},
                             {"+x across the wrap link", at(3, 0, 0), at(0, 0, 0), {{at(3, 0, 0), kXPlus}}},
                             {"-x across the wrap link", at(0, 0, 0), at(3, 0, 0), {{at(0, 0, 0), kXMinus}}},
                             {"x tie goes +", at(0, 0, 0), at(2, 0, 0), {{at(0, 0, 0), kXPlus}, {at(1, 0, 0), kXPlus}}},
                             {"+y one hop", at(0, 0, 0), at(0, 1, 0), {{at(0, 0, 0), kYPlus}}},
                             {"+y across the wrap link", at(0, 3, 0), at(0, 0, 0), {{at(0, 3, 0), kYPlus}}},
                             {"-y one hop", at(2, 2, 2), at(2, 1, 2), {{at(2, 2, 2), kYMinus}}},
                             {"+z one hop", at(0, 0, 0), at(0, 0, 1), {{at(0, 0, 0), kZPlus}}},
                             {"-z across the wrap link", at(0, 0, 0), at(0, 0, 3), {{at(0, 0, 0), kZMinus}}},
                             {"x then y then z",
                              at(1, 1, 1),
                              at(3, 3, 3),
                              {{at(1, 1, 1), kXPlus},
                               {at(2, 1, 1), kXPlus},
                               {at(3, 1, 1), kYPlus},
                               {at(3, 2, 1), kYPlus},
                               {at(3, 3, 1), kZPlus},
                               {at(3, 3, 2), kZPlus}}},
                             {"three wrap links",
                              at(3, 3, 3),
                              at(0, 0, 0),
                              {{at(3, 3, 3), kXPlus}, {at(0, 3, 3), kYPlus}, {at(0, 0, 3), kZPlus}}},
                             {"to itself", at(2, 2, 2), at(2, 2, 2), {}},
                         });
    RoutingScenario pair(
        "pair", TorusShape{2, 2, 2},
        {
            {"size 2: 0 -> 1 takes the + cable", at(0, 0, 0), at(1, 0, 0), {{at(0, 0, 0), kXPlus}}},
            {"size 2: 1 -> 0 takes its + cable too", at(1, 0, 0), at(0, 0, 0), {{at(1, 0, 0), kXPlus}}},
            {"size 2: corner to corner",
             at(0, 0, 0),
             at(1, 1, 1),
             {{at(0, 0, 0), kXPlus}, {at(1, 0, 0), kYPlus}, {at(1, 1, 0), kZPlus}}},
        });
    RoutingScenario ring(
        "ring", TorusShape{4, 1, 1},
        {
            {"ring: 0 -> 3 across the wrap link", at(0, 0, 0), at(3, 0, 0), {{at(0, 0, 0), kXMinus}}},
            {"ring: 1 -> 3 tie goes +", at(1, 0, 0), at(3, 0, 0), {{at(1, 0, 0), kXPlus}, {at(2, 0, 0), kXPlus}}},
        });
    RoutingScenario single("single", TorusShape{1, 1, 1}, {{"to itself", at(0, 0, 0), at(0, 0, 0), {}}});

    sc_core::sc_start();
    Checks checks;
    cube.check(checks);
    pair.check(checks);
    ring.check(checks);
    single.check(checks);

    const Fabric& line = ring.network().fabric;
    bool no_yz_links = true;
    for (unsigned node = 0; node < line.nodes(); ++node)
        for (unsigned port : {kYPlus, kYMinus, kZPlus, kZMinus}) no_yz_links = no_yz_links && !line.link(node, port);
    checks.expect(no_yz_links && line.link(0, kXPlus) && line.link(0, kXMinus),
                  "4x1x1: only x links exist; the y and z ports stay unbound");
    const Fabric& cell = pair.network().fabric;
    checks.expect(cell.link(0, kXPlus) != cell.link(0, kXMinus) && cell.link(0, kXPlus) && cell.link(0, kXMinus),
                  "2x2x2: two distinct cables (+x and -x) join nodes 0 and 1");
    return checks.finish();
}
