// Shared pieces of the network testbenches: pass/fail bookkeeping, command
// line parameters, and a torus fabric with a PacketSource and a PacketSink
// on every node's inject and eject ports.
#pragma once

#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "isvp/fabric.h"
#include "isvp/packet_endpoints.h"
#include "isvp/parameters.h"

namespace isvp::testbench {

/// Named checks; finish() prints the "N passed, M failed" line.
class Checks {
  public:
    bool expect(bool ok, const std::string& what) {
        ++(ok ? passed_ : failed_);
        std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
        return ok;
    }
    /// Exit code: 0 when everything passed (and something was checked).
    int finish() const {
        std::cout << passed_ << " passed, " << failed_ << " failed\n";
        return failed_ == 0 && passed_ > 0 ? 0 : 1;
    }

  private:
    int passed_ = 0;  ///< checks that held
    int failed_ = 0;  ///< checks that did not
};

inline std::string ns(const sc_core::sc_time& time) {
    return std::to_string(time.to_seconds() * 1e9) + " ns";
}

/// Declares the fabric parameters and applies `--set key=value` options;
/// other options are returned as name -> value for the testbench.
inline std::vector<std::pair<std::string, std::string>> parse_arguments(int argc, char** argv, Parameters& parameters) {
    FabricConfig::declare(parameters);
    std::vector<std::pair<std::string, std::string>> options;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument.rfind("--", 0) != 0 || i + 1 >= argc)
            throw ConfigError("usage: " + std::string(argv[0]) + " [--set key=value] [--option value] ...; got '" +
                              argument + "'");
        const std::string value = argv[++i];
        if (argument == "--set")
            parameters.apply_override(value);
        else
            options.emplace_back(argument.substr(2), value);
    }
    return options;
}

/// Uniform random traffic for one source: destinations uniform over the
/// other nodes, exponential gaps for an offered load of `inject_gbps`
/// (packet bytes), until `stop`. Seeded per node: reproducible everywhere.
inline PacketSource::Generator uniform_random_traffic(std::uint32_t node, unsigned nodes, std::uint64_t seed,
                                                      double inject_gbps, std::uint32_t payload_bytes,
                                                      sc_core::sc_time start, sc_core::sc_time stop) {
    struct State {
        std::uint64_t random;   ///< SplitMix64 state
        sc_core::sc_time next;  ///< next injection time
    };
    auto state = std::make_shared<State>(State{seed * 0x9E3779B97F4A7C15ull + node * 0xD1B54A32D192ED03ull, start});
    const double mean_gap_ns = (payload_bytes + kNetworkPacketOverhead) * 8.0 / inject_gbps;
    return [=](PacketRequest& request) {
        auto next = [&state] {
            std::uint64_t z = (state->random += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            return z ^ (z >> 31);
        };
        if (state->next >= stop || nodes < 2) return false;
        request.time = state->next;
        request.destination = static_cast<std::uint32_t>((node + 1 + next() % (nodes - 1)) % nodes);
        request.payload_bytes = payload_bytes;
        request.vc = 0;
        const double unit = static_cast<double>(next() >> 11) * 0x1.0p-53;
        state->next += sc_core::sc_time(-std::log1p(-unit) * mean_gap_ns, sc_core::SC_NS);
        return true;
    };
}

/// A fabric (any topology) with traffic endpoints on every host.
class TorusWithEndpoints {
  public:
    /// Sinks grant `sink_buffer_phits` per VC (0: the router's VC buffer)
    /// and drain at `drain_gbps` (0: instantly).
    /// `routing` (optional) replaces the policy router.routing names.
    TorusWithEndpoints(const std::string& name, const FabricConfig& config, std::uint32_t sink_buffer_phits = 0,
                       double drain_gbps = 0.0, std::shared_ptr<const RoutingPolicy> routing = nullptr)
        : fabric(name.c_str(), config, routing ? routing : config.routing(config.topology())) {
        const std::uint32_t buffer = sink_buffer_phits ? sink_buffer_phits : config.router.vc_buffer_phits();
        for (unsigned node = 0; node < fabric.nodes(); ++node) {
            sources.push_back(std::make_unique<PacketSource>((name + "_source_" + std::to_string(node)).c_str(), node,
                                                             config.router.vcs, config.router.clock_mhz,
                                                             config.router.phits_per_cycle));
            sinks.push_back(std::make_unique<PacketSink>((name + "_sink_" + std::to_string(node)).c_str(), node,
                                                         config.router.vcs, buffer, drain_gbps));
            sources.back()->use_scheduler(fabric.scheduler());
            sources.back()->out.bind(fabric.inject(node));
            fabric.inject_credit(node).bind(sources.back()->credit_in);
            fabric.eject(node).bind(sinks.back()->in);
            sinks.back()->credit_out.bind(fabric.eject_credit(node));
        }
    }

    std::uint64_t sent() const {
        std::uint64_t total = 0;
        for (const auto& source : sources) total += source->sent();
        return total;
    }
    std::uint64_t delivered() const { return sum(&PacketSink::packets); }
    std::uint64_t hops() const { return sum(&PacketSink::hops); }
    std::uint64_t errors() const { return sum(&PacketSink::errors); }
    std::uint64_t overruns() const { return sum(&PacketSink::overruns); }
    std::uint64_t queued() const {
        std::uint64_t total = 0;
        for (const auto& source : sources) total += source->pending();
        return total;
    }
    std::size_t buffered() const {
        std::size_t total = 0;
        for (unsigned s = 0; s < fabric.switches(); ++s) total += fabric.router(s).buffered_packets();
        return total;
    }
    /// Every credit is back where it started: nothing leaked or was lost.
    bool credits_restored() const {
        const RouterConfig& router = fabric.config().router;
        for (unsigned node = 0; node < fabric.nodes(); ++node)
            for (unsigned vc = 0; vc < router.vcs; ++vc)
                if (sources[node]->credits(vc) != router.vc_buffer_phits()) return false;
        for (unsigned s = 0; s < fabric.switches(); ++s)
            for (unsigned port = 0; port < fabric.router(s).ports(); ++port)
                for (unsigned vc = 0; vc < router.vcs; ++vc)
                    if (fabric.link(s, port) && fabric.router(s).output_credits(port, vc) != router.vc_buffer_phits())
                        return false;
        return true;
    }
    sc_core::sc_time last_tail() const {
        sc_core::sc_time last;
        for (const auto& sink : sinks) last = std::max(last, sink->last_tail());
        return last;
    }
    std::string first_error() const {
        for (const auto& sink : sinks)
            if (sink->errors()) return sink->first_error();
        return "";
    }

    Fabric fabric;                                       ///< the network under test
    std::vector<std::unique_ptr<PacketSource>> sources;  ///< one per node, on its inject port
    std::vector<std::unique_ptr<PacketSink>> sinks;      ///< one per node, on its eject port

  private:
    std::uint64_t sum(std::uint64_t (PacketSink::*counter)() const) const {
        std::uint64_t total = 0;
        for (const auto& sink : sinks) total += ((*sink).*counter)();
        return total;
    }
};

}  // namespace isvp::testbench
