// Determinism: the same Fabric run — uniform random traffic on a 4x4x4
// torus with bit errors and link-level retry — executed twice, each time in
// a fresh process (SystemC cannot restart within one), gives the same
// arrival times for every packet. A run with another traffic seed differs,
// so the fingerprint does see the traffic.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::TorusWithEndpoints;

namespace {

/// What one run produced: packets and a fingerprint of all their arrivals.
struct RunResult {
    std::uint64_t packets = 0;      ///< delivered
    std::uint64_t fingerprint = 0;  ///< FNV-1a over (trace id, head, tail, hops, VC) in arrival order
    std::uint64_t crc_errors = 0;   ///< link errors injected and retried
};

RunResult simulate(std::uint64_t traffic_seed) {
    FabricConfig config;
    config.shape = TorusShape{4, 4, 4};
    config.aurora.bit_error_rate = 1e-6;
    config.aurora.on_crc_error = CrcErrorPolicy::Retry;
    TorusWithEndpoints network("torus", config);
    const sc_core::sc_time start(1, sc_core::SC_US);
    const sc_core::sc_time stop(21, sc_core::SC_US);
    for (unsigned node = 0; node < network.fabric.nodes(); ++node) {
        network.sinks[node]->keep_arrivals(true);
        network.sources[node]->set_generator(
            testbench::uniform_random_traffic(node, network.fabric.nodes(), traffic_seed, 40.0, 512, start, stop));
    }
    sc_core::sc_start();
    RunResult result;
    result.fingerprint = 0xCBF29CE484222325ull;
    auto mix = [&result](std::uint64_t value) {
        for (int i = 0; i < 8; ++i)
            result.fingerprint = (result.fingerprint ^ ((value >> (8 * i)) & 0xFF)) * 0x100000001B3ull;
    };
    for (const auto& sink : network.sinks)
        for (const PacketArrival& arrival : sink->arrivals()) {
            mix(arrival.trace_id);
            mix(arrival.head.value());
            mix(arrival.tail.value());
            mix(arrival.hops | std::uint64_t{arrival.vc} << 16);
            ++result.packets;
        }
    for (unsigned node = 0; node < network.fabric.nodes(); ++node)
        for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port)
            if (const AuroraLink* link = network.fabric.link(node, port))
                result.crc_errors += link->statistics().crc_errors;
    return result;
}

/// Runs simulate(seed) in a child process and reads its result back.
bool run_in_child(std::uint64_t traffic_seed, RunResult& result) {
    int channel[2];
    if (pipe(channel) != 0) return false;
    std::fflush(nullptr);
    std::cout.flush();
    const pid_t child = fork();
    if (child < 0) return false;
    if (child == 0) {
        close(channel[0]);
        const RunResult mine = simulate(traffic_seed);
        const bool written = write(channel[1], &mine, sizeof mine) == static_cast<ssize_t>(sizeof mine);
        _exit(written ? 0 : 1);
    }
    close(channel[1]);
    const bool read_all = read(channel[0], &result, sizeof result) == static_cast<ssize_t>(sizeof result);
    close(channel[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return read_all && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int sc_main(int, char**) {
    Checks checks;
    RunResult first, second, other;
    const bool ran = run_in_child(1, first) && run_in_child(1, second) && run_in_child(2, other);
    if (!checks.expect(ran, "three runs completed in fresh processes")) return checks.finish();
    std::cout << "  run 1: " << first.packets << " packets, fingerprint " << std::hex << first.fingerprint << "\n"
              << "  run 2: " << std::dec << second.packets << " packets, fingerprint " << std::hex << second.fingerprint
              << "\n"
              << "  other seed: " << std::dec << other.packets << " packets, fingerprint " << std::hex
              << other.fingerprint << std::dec << "\n";
    checks.expect(first.packets > 1000,
                  "the run delivers real traffic (" + std::to_string(first.packets) + " packets)");
    checks.expect(first.crc_errors > 0,
                  "link errors were injected and retried (" + std::to_string(first.crc_errors) + " CRC errors)");
    checks.expect(first.packets == second.packets && first.fingerprint == second.fingerprint &&
                      first.crc_errors == second.crc_errors,
                  "the same run twice gives the same arrival time for every packet");
    checks.expect(other.fingerprint != first.fingerprint, "another traffic seed gives other arrivals");
    return checks.finish();
}
