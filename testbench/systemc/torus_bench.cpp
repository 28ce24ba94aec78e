// Benchmark: network packet-hops per wall second for uniform random traffic
// on a torus (default 8x8x8), one core.
//
//   torus_bench [--set topology.torus=8x8x8] [--set key=value ...]
//               [--inject-gbps 20] [--payload 256] [--duration-us 50] [--seed 1]
//               [--hints auto|on|off]
//
// Every node offers --inject-gbps of --payload-byte packets to uniformly
// random other nodes from 1 us to 1 + --duration-us us; the run ends when
// everything is delivered. Packet-hops = router-to-router hops summed over
// delivered packets; wall and CPU time are those of sc_start() alone (on a
// shared machine the CPU figure is the steadier one). --hints X is
// --set router.wakeup_hints=X: whether the routers give the wake-up
// scheduler prefetch hints (auto: the fabric decides by its size,
// Fabric::kHintedInputVcs); the simulated figures are the same either way,
// only the speed differs; so does --set router.scheduler_time_steps=true|false
// (whether the scheduler takes SystemC's time steps to its wake-ups itself).
#include <chrono>
#include <ctime>
#include <iomanip>

#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::TorusWithEndpoints;

int sc_main(int argc, char** argv) {
    Parameters parameters;
    double inject_gbps = 20.0;
    std::uint32_t payload = 256;
    double duration_us = 50.0;
    std::uint64_t seed = 1;
    FabricConfig config;
    try {
        FabricConfig::declare(parameters);
        parameters.apply_override("topology.torus=8x8x8");
        for (int i = 1; i < argc; i += 2) {
            const std::string name = argv[i];
            if (i + 1 >= argc) throw ConfigError("option " + name + " needs a value");
            const std::string value = argv[i + 1];
            if (name == "--set")
                parameters.apply_override(value);
            else if (name == "--inject-gbps")
                inject_gbps = std::stod(value);
            else if (name == "--payload")
                payload = static_cast<std::uint32_t>(std::stoul(value));
            else if (name == "--duration-us")
                duration_us = std::stod(value);
            else if (name == "--seed")
                seed = std::stoull(value);
            else if (name == "--hints")
                parameters.apply_override("router.wakeup_hints=" + value);
            else
                throw ConfigError("unknown option " + name);
        }
        config = FabricConfig::from(parameters);
    } catch (const std::exception& error) {
        std::cerr << error.what() << "\n";
        return 2;
    }

    const auto build_start = std::chrono::steady_clock::now();
    TorusWithEndpoints network("torus", config);
    const sc_core::sc_time start(1, sc_core::SC_US);
    const sc_core::sc_time stop = start + sc_core::sc_time(duration_us, sc_core::SC_US);
    for (unsigned node = 0; node < network.fabric.nodes(); ++node)
        network.sources[node]->set_generator(
            testbench::uniform_random_traffic(node, network.fabric.nodes(), seed, inject_gbps, payload, start, stop));
    const double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - build_start).count();

    const auto run_start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    kernel_time_step::simulate();
    const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();

    const std::uint64_t packets = network.delivered();
    const std::uint64_t hops = network.hops();
    sc_core::sc_time latency_sum;
    for (const auto& sink : network.sinks) latency_sum += sink->latency_sum();
    double utilisation = 0;
    unsigned links = 0;
    const sc_core::sc_time window = stop - start;
    for (unsigned node = 0; node < network.fabric.nodes(); ++node)
        for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port)
            if (const AuroraLink* link = network.fabric.link(node, port)) {
                utilisation += link->utilisation(window);
                ++links;
            }
    std::cout << std::fixed << std::setprecision(3) << config.shape.to_string() << " torus, " << network.fabric.nodes()
              << " nodes, " << links << " links; uniform random, " << inject_gbps << " Gb/s offered per node, "
              << payload << "-byte payloads, " << duration_us << " us\n"
              << "  delivered        " << packets << " packets, " << hops << " packet-hops ("
              << static_cast<double>(hops) / std::max<std::uint64_t>(packets, 1) << " hops/packet)\n"
              << "  mean latency     " << latency_sum.to_seconds() * 1e9 / std::max<std::uint64_t>(packets, 1)
              << " ns, mean link utilisation " << 100 * utilisation / std::max(links, 1u) << " %\n"
              << "  simulated        " << network.last_tail().to_seconds() * 1e6 << " us\n"
              << "  wall             " << wall << " s, CPU " << cpu << " s (elaboration " << build << " s)\n"
              << "  packet-hops/s    " << std::setprecision(0) << hops / wall << " per wall second, " << hops / cpu
              << " per CPU second\n"
              << "  packets/s        " << packets / wall << " per wall second\n"
              << "  wake-ups         " << network.fabric.scheduler().wakeups() << " (" << std::setprecision(2)
              << static_cast<double>(network.fabric.scheduler().wakeups()) / std::max<std::uint64_t>(hops, 1)
              << " per packet-hop)\n"
              << "  wake-up hints    " << (network.fabric.scheduler().hints() ? "on" : "off") << "\n"
              << "  time steps       " << network.fabric.scheduler().own_time_steps()
              << " taken by the wake-up scheduler itself; SystemC ran it "
              << network.fabric.scheduler().kernel_activations() << " times\n";
    Checks checks;
    checks.expect(packets == network.sent() && network.errors() == 0 && network.buffered() == 0,
                  "every injected packet was delivered intact");
    return checks.finish();
}
