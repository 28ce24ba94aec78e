// The flow network's SystemC-free core: max-min fair sharing (checked
// against sharing worked out by hand), flow paths from the routing policy,
// and the network.model parameter.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "isvp/fabric_config.h"
#include "isvp/flow_config.h"
#include "isvp/flow_path.h"
#include "isvp/max_min_solver.h"
#include "isvp/parameters.h"

using namespace isvp;

namespace {

using Use = MaxMinSolver::Use;

/// A solver with `count` resources of the given capacities.
MaxMinSolver with_resources(std::initializer_list<double> capacities) {
    MaxMinSolver solver;
    for (double capacity : capacities) solver.add_resource(capacity);
    return solver;
}

/// The network.* parameters as the platform reads them (after the fabric's).
NetworkModelConfig read_network(const Parameters& parameters) {
    return NetworkModelConfig::from(parameters, FabricConfig::from(parameters));
}

}  // namespace

TEST_CASE("max-min: a flow alone gets its bottleneck's capacity over its weight") {
    MaxMinSolver solver = with_resources({10.0, 4.0});
    const auto flow = solver.add_flow({{0, 1.0}, {1, 2.0}});
    solver.solve();
    // Resource 1: 2 r <= 4 -> r = 2; resource 0 would allow 10.
    CHECK(solver.rate(flow) == Approx(2.0));
    CHECK(solver.load(1) == Approx(4.0));
}

TEST_CASE("max-min: flows on one link share it equally") {
    MaxMinSolver solver = with_resources({9.0});
    const auto a = solver.add_flow({{0, 1.0}});
    const auto b = solver.add_flow({{0, 1.0}});
    const auto c = solver.add_flow({{0, 1.0}});
    solver.solve();
    CHECK(solver.rate(a) == Approx(3.0));
    CHECK(solver.rate(b) == Approx(3.0));
    CHECK(solver.rate(c) == Approx(3.0));
}

TEST_CASE("max-min: what a bottlenecked flow leaves goes to the others (two links)") {
    // Link A (capacity 1): f1, f2. Link B (capacity 2): f2, f3.
    // A's fair share 1/2 < B's 1: f1 = f2 = 1/2; f3 gets B's remaining 3/2.
    MaxMinSolver solver = with_resources({1.0, 2.0});
    const auto f1 = solver.add_flow({{0, 1.0}});
    const auto f2 = solver.add_flow({{0, 1.0}, {1, 1.0}});
    const auto f3 = solver.add_flow({{1, 1.0}});
    solver.solve();
    CHECK(solver.rate(f1) == Approx(0.5));
    CHECK(solver.rate(f2) == Approx(0.5));
    CHECK(solver.rate(f3) == Approx(1.5));
}

TEST_CASE("max-min: parking lot — a long flow and one short flow per link all get half") {
    MaxMinSolver solver = with_resources({1.0, 1.0, 1.0});
    const auto long_flow = solver.add_flow({{0, 1.0}, {1, 1.0}, {2, 1.0}});
    const auto s0 = solver.add_flow({{0, 1.0}});
    const auto s1 = solver.add_flow({{1, 1.0}});
    const auto s2 = solver.add_flow({{2, 1.0}});
    solver.solve();
    for (auto flow : {long_flow, s0, s1, s2}) CHECK(solver.rate(flow) == Approx(0.5));
}

TEST_CASE("max-min: parking lot with unequal links — the long flow is held by the narrowest") {
    // Links of capacity 1, 3, 3; long flow on all, one short flow on each.
    // Link 0 saturates first at 1/2: long = s0 = 1/2; links 1 and 2 have
    // 3 - 1/2 = 5/2 left for s1 and s2.
    MaxMinSolver solver = with_resources({1.0, 3.0, 3.0});
    const auto long_flow = solver.add_flow({{0, 1.0}, {1, 1.0}, {2, 1.0}});
    const auto s0 = solver.add_flow({{0, 1.0}});
    const auto s1 = solver.add_flow({{1, 1.0}});
    const auto s2 = solver.add_flow({{2, 1.0}});
    solver.solve();
    CHECK(solver.rate(long_flow) == Approx(0.5));
    CHECK(solver.rate(s0) == Approx(0.5));
    CHECK(solver.rate(s1) == Approx(2.5));
    CHECK(solver.rate(s2) == Approx(2.5));
}

TEST_CASE("max-min: weights — equal rates, consumption in proportion to weight") {
    // Capacity 1; weights 2 and 1: 2 r + r = 1 -> r = 1/3 each.
    MaxMinSolver solver = with_resources({1.0});
    const auto heavy = solver.add_flow({{0, 2.0}});
    const auto light = solver.add_flow({{0, 1.0}});
    solver.solve();
    CHECK(solver.rate(heavy) == Approx(1.0 / 3.0));
    CHECK(solver.rate(light) == Approx(1.0 / 3.0));
    CHECK(solver.load(0) == Approx(1.0));
}

TEST_CASE("max-min: a bounded flow leaves the rest of the link to the others") {
    MaxMinSolver solver = with_resources({1.0});
    const auto bounded = solver.add_flow({{0, 1.0}}, 0.2);
    const auto a = solver.add_flow({{0, 1.0}});
    const auto b = solver.add_flow({{0, 1.0}});
    solver.solve();
    CHECK(solver.rate(bounded) == Approx(0.2));
    CHECK(solver.rate(a) == Approx(0.4));
    CHECK(solver.rate(b) == Approx(0.4));
}

TEST_CASE("max-min: removing a flow raises its neighbours, only its component is recomputed") {
    MaxMinSolver solver = with_resources({1.0, 1.0});
    const auto a = solver.add_flow({{0, 1.0}});
    const auto b = solver.add_flow({{0, 1.0}});
    const auto other = solver.add_flow({{1, 1.0}});
    solver.solve();
    CHECK(solver.rate(a) == Approx(0.5));
    CHECK(solver.rate(other) == Approx(1.0));
    solver.remove_flow(b);
    const std::vector<std::uint32_t> recomputed = solver.solve();
    CHECK(recomputed == std::vector<std::uint32_t>{a});
    CHECK(solver.rate(a) == Approx(1.0));
    CHECK(solver.rate(other) == Approx(1.0));
    CHECK(solver.active_flows() == 2);
    CHECK(solver.solve().empty());  // nothing changed since
}

TEST_CASE("max-min: a flow added later joins its component and the shares are redone") {
    MaxMinSolver solver = with_resources({1.0, 2.0});
    const auto a = solver.add_flow({{0, 1.0}, {1, 1.0}});
    solver.solve();
    CHECK(solver.rate(a) == Approx(1.0));
    const auto b = solver.add_flow({{1, 1.0}});
    const std::vector<std::uint32_t> recomputed = solver.solve();
    CHECK(recomputed == std::vector<std::uint32_t>{a, b});
    CHECK(solver.rate(a) == Approx(1.0));  // held by resource 0
    CHECK(solver.rate(b) == Approx(1.0));  // the rest of resource 1
}

TEST_CASE("max-min: the result does not depend on the order flows were added in") {
    const auto rates = [](bool reversed) {
        MaxMinSolver solver = with_resources({1.0, 2.0, 5.0});
        std::vector<std::vector<Use>> flows = {
            {{0, 1.0}, {1, 1.0}}, {{1, 1.5}, {2, 1.0}}, {{2, 1.0}}, {{0, 0.5}, {2, 2.0}}};
        std::vector<std::uint32_t> ids(flows.size());
        if (reversed)
            for (std::size_t i = flows.size(); i-- > 0;) ids[i] = solver.add_flow(flows[i]);
        else
            for (std::size_t i = 0; i < flows.size(); ++i) ids[i] = solver.add_flow(flows[i]);
        solver.solve();
        std::vector<double> out;
        for (auto id : ids) out.push_back(solver.rate(id));
        return out;
    };
    CHECK(rates(false) == rates(true));  // bit for bit
}

TEST_CASE("max-min: no resource is ever over capacity and every flow meets a saturated resource or its bound") {
    MaxMinSolver solver = with_resources({1.0, 2.0, 3.0, 0.5});
    std::vector<std::uint32_t> flows = {solver.add_flow({{0, 1.0}, {1, 1.0}}), solver.add_flow({{1, 1.0}, {2, 1.0}}),
                                        solver.add_flow({{2, 1.0}, {3, 1.0}}), solver.add_flow({{0, 2.0}, {2, 1.0}}),
                                        solver.add_flow({{2, 1.0}}, 0.1)};
    solver.solve();
    for (std::uint32_t r = 0; r < solver.resources(); ++r) CHECK(solver.load(r) <= solver.capacity(r) * (1 + 1e-9));
    for (std::uint32_t flow : flows) CHECK(solver.rate(flow) > 0);
}

TEST_CASE("max-min: bad flows are refused naming what is wrong") {
    MaxMinSolver solver = with_resources({1.0});
    CHECK_THROWS_WITH(solver.add_flow({{3, 1.0}}), Catch::Contains("resource 3"));
    CHECK_THROWS_WITH(solver.add_flow({{0, 0.0}}), Catch::Contains("weight"));
    CHECK_THROWS_WITH(solver.add_flow({{0, 1.0}, {0, 1.0}}), Catch::Contains("twice"));
    CHECK_THROWS_WITH(solver.add_flow({}), Catch::Contains("needs a bound"));
    CHECK_THROWS_WITH(solver.add_resource(0.0), Catch::Contains("capacity"));
    CHECK_THROWS(solver.remove_flow(7));
}

TEST_CASE("flow path: torus routes follow dor and have the torus distance in cables") {
    const NetworkTopology torus = torus_network(TorusShape{4, 4, 2});
    Parameters parameters;
    FabricConfig::declare(parameters);
    apply_topology_option(parameters, "torus:4x4x2");
    const FabricConfig config = FabricConfig::from(parameters);
    const auto routing = config.routing(torus);
    for (unsigned source = 0; source < torus.hosts(); ++source)
        for (unsigned destination = 0; destination < torus.hosts(); ++destination)
            CHECK(trace_flow_path(torus, *routing, source, destination).size() == torus.distance(source, destination));
    // 0 -> 5 = (1,1,0): x first (xplus, port 0), then y (yplus, port 2).
    const auto path = trace_flow_path(torus, *routing, 0, 5);
    REQUIRE(path.size() == 2);
    CHECK(path[0].switch_index == 0);
    CHECK(path[0].port == 0);
    CHECK(path[1].switch_index == 1);
    CHECK(path[1].port == 2);
    CHECK_THROWS_WITH(trace_flow_path(torus, *routing, 0, 99), Catch::Contains("not a host"));
}

TEST_CASE("flow path: a fat tree's routes go up to a spine and down, none between hosts of one leaf") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    apply_topology_option(parameters, "fattree:radix=8,hosts=12");
    const FabricConfig config = FabricConfig::from(parameters);
    const NetworkTopology tree = config.topology();
    const auto routing = config.routing(tree);
    CHECK(trace_flow_path(tree, *routing, 0, 5).empty());  // leaf 0 holds hosts 0..5
    const auto path = trace_flow_path(tree, *routing, 0, 11);
    REQUIRE(path.size() == 2);
    CHECK(path[0].switch_index == 0);                                         // leaf 0 up
    CHECK(tree.switch_at(path[1].switch_index).name.rfind("spine", 0) == 0);  // spine down
}

TEST_CASE("network.model: packet by default, flow refuses injected bit errors") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    NetworkModelConfig::declare(parameters);
    CHECK(parameters.text("network.model") == "packet");
    CHECK(read_network(parameters).model == NetworkModel::Packet);
    parameters.apply_override("network.model=flow");
    CHECK(read_network(parameters).model == NetworkModel::Flow);
    parameters.apply_override("aurora.bit_error_rate=1e-9");
    CHECK_THROWS_WITH(read_network(parameters), Catch::Contains("network.model=flow does not model link bit errors"));
    CHECK_THROWS(parameters.apply_override("network.model=fluid"));
}

TEST_CASE("network.flow_train_packets: 1 by default, powers of two up to 16, the flow model only") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    NetworkModelConfig::declare(parameters);
    CHECK(read_network(parameters).train_packets == 1);
    parameters.apply_override("network.model=flow");
    parameters.apply_override("network.flow_train_packets=16");
    CHECK(read_network(parameters).train_packets == 16);
    CHECK_THROWS(parameters.apply_override("network.flow_train_packets=32"));
    CHECK_THROWS(parameters.apply_override("network.flow_train_packets=0"));
    parameters.apply_override("network.flow_train_packets=3");
    CHECK_THROWS_WITH(read_network(parameters), Catch::Contains("network.flow_train_packets must be a power of two"));
    parameters.apply_override("network.flow_train_packets=16");
    parameters.apply_override("network.model=packet");
    CHECK_THROWS_WITH(read_network(parameters),
                      Catch::Contains("network.flow_train_packets=16 applies to network.model=flow only"));
}

TEST_CASE("network.flow_linger_round_trips: 0 by default, read as given, negative refused") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    NetworkModelConfig::declare(parameters);
    CHECK(read_network(parameters).linger_round_trips == 0.0);
    parameters.apply_override("network.flow_linger_round_trips=1.5");
    CHECK(read_network(parameters).linger_round_trips == 1.5);
    CHECK_THROWS(parameters.apply_override("network.flow_linger_round_trips=-1"));
}
