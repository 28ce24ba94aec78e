// CollectiveEngine: collective.cgr_units limits how many collectives
// combine at once in a switch. Two communicators span every node of the
// torus (A on context 0, B on context 5, members in another order); every
// host posts A's and then B's calls (a 256 KiB int32 Allreduce and a
// Reduce_scatter each), so both combine in every switch at the same time.
// Checks: every result exact (int32 SUM reference), no packet left, no
// deadlock; with --expect-waits 1 some collective waited for a CGR unit
// (cgr_waits > 0), with --expect-waits 0 none did. Prints the latency of
// A's and B's calls (last result at any member - first request posted) and
// the waits, so two runs can be compared (collective.cmake; there the CGR is
// made the bottleneck, one AgLU at 40 MHz, else the engine's port is).
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "collective_script_host.h"
#include "isvp/collective_engine.h"
#include "torus_testbench.h"

using namespace isvp;
using namespace isvp::testbench;

int sc_main(int argc, char** argv) {
    Parameters parameters;
    AgluConfig::declare(parameters);
    CollectiveConfig::declare(parameters);
    const auto options = parse_arguments(argc, argv, parameters);
    int expect_waits = -1;  // -1: not checked
    for (const auto& [name, value] : options) {
        if (name == "expect-waits" && (value == "0" || value == "1")) {
            expect_waits = value == "1" ? 1 : 0;
        } else {
            std::cout << "collective_cgr_units_tb: options --set key=value, --expect-waits 0|1; got --" << name << " "
                      << value << "\n";
            return 2;
        }
    }
    const FabricConfig fabric_config = FabricConfig::from(parameters);
    const AgluConfig aglu = AgluConfig::from(parameters);
    const CollectiveConfig config = CollectiveConfig::from(parameters);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);

    Fabric fabric("fabric", fabric_config);
    const unsigned n = fabric.nodes();
    std::vector<std::unique_ptr<CollectiveEngine>> engines;
    std::vector<std::unique_ptr<ScriptHost>> hosts;
    for (unsigned i = 0; i < n; ++i) {
        engines.push_back(std::make_unique<CollectiveEngine>(("engine" + std::to_string(i)).c_str(),
                                                             static_cast<std::uint16_t>(i), n, aglu, config));
        hosts.push_back(std::make_unique<ScriptHost>(("host" + std::to_string(i)).c_str()));
        CollectiveEngine& e = *engines.back();
        ScriptHost& h = *hosts.back();
        h.tx.bind(e.host_in);
        e.host_in_credit.bind(h.tx_credit);
        e.host_out.bind(h.rx);
        h.rx_credit.bind(e.host_out_credit);
        h.csr.bind(e.csr);
        e.net_out.bind(fabric.inject(i));
        fabric.inject_credit(i).bind(e.net_out_credit);
        fabric.eject(i).bind(e.net_in);
        e.net_in_credit.bind(fabric.eject_credit(i));
    }
    const auto make_comm = [n](std::uint8_t context, const std::vector<unsigned>& nodes) {
        Communicator c{context, nodes, {}};
        for (const unsigned node : nodes) c.globals.push_back(static_cast<std::uint16_t>((node + n - 3) % n));
        return c;
    };
    std::vector<unsigned> order_a, order_b;
    for (unsigned r = 0; r < n; ++r) {
        order_a.push_back((r + 1) % n);
        order_b.push_back(n - 1 - r);
    }
    const std::vector<Communicator> comms = {make_comm(0, order_a), make_comm(5, order_b)};
    const std::vector<Call> calls = {{Opcode::Allreduce, Datatype::Int32, 65536, 0},
                                     {Opcode::ReduceScatter, Datatype::Int32, 2048, 0}};
    const sc_core::sc_time posted(10, sc_core::SC_NS);  // every host's first request

    for (unsigned node = 0; node < n; ++node) {
        ScriptHost& h = *hosts[node];
        h.script.push_back(act(Action::Write, regmap::FORWARD_INDEX, 0));
        for (unsigned g = 0; g < n; ++g) h.script.push_back(act(Action::Write, regmap::FORWARD_NODE, (g + 3) % n));
        for (const Communicator& c : comms) {
            const CtRow::Dwords dwords = make_ct_row(c.rank_of(node), c.globals).encode();
            for (unsigned i = 0; i < dwords.size(); ++i)
                h.script.push_back(act(Action::Write, regmap::CT_STAGING(i), dwords[i]));
            h.script.push_back(act(Action::Write, regmap::CT_SELECT, c.context));
            h.script.push_back(act(Action::Write, regmap::CT_COMMAND, regmap::ct_command::LOAD.make(1)));
        }
        Action start = act(Action::WaitUntil);
        start.until = posted;
        h.script.push_back(start);
        for (std::size_t ci = 0; ci < comms.size(); ++ci)
            for (std::size_t k = 0; k < calls.size(); ++k) {
                Action post = act(Action::Post);
                post.packets = request(comms[ci].context, node, calls[k], static_cast<int>(10 * ci + k),
                                       comms[ci].rank_of(node), comms[ci].globals, static_cast<std::uint32_t>(k));
                h.script.push_back(std::move(post));
            }
    }

    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_MS));
    Checks checks;
    int wrong = 0;
    std::vector<sc_core::sc_time> last(comms.size(), sc_core::SC_ZERO_TIME);
    for (std::size_t ci = 0; ci < comms.size(); ++ci) {
        const Communicator& c = comms[ci];
        for (unsigned node = 0; node < n; ++node) {
            std::vector<const Result*> mine;
            for (const Result& r : hosts[node]->results)
                if (r.context == c.context) mine.push_back(&r);
            bool ok = mine.size() == calls.size();
            for (std::size_t k = 0; ok && k < calls.size(); ++k) {
                ok = mine[k]->step == 0 && mine[k]->bytes == reference(calls[k], static_cast<int>(10 * ci + k),
                                                                       static_cast<int>(n), c.rank_of(node));
                last[ci] = std::max(last[ci], mine[k]->at);
            }
            if (!ok) {
                ++wrong;
                checks.expect(false, "context " + std::to_string(c.context) + " node " + std::to_string(node) +
                                         ": results match the reference");
            }
        }
    }
    checks.expect(wrong == 0, "every result of both communicators matches its reference (no deadlock)");
    std::uint64_t waits = 0, wait_ps = 0;
    for (unsigned node = 0; node < n; ++node) {
        const CollectiveStatistics& s = engines[node]->statistics();
        waits += s.cgr_waits;
        wait_ps += s.cgr_wait_ps;
        checks.expect(engines[node]->live_packets() == 0 && s.dropped == 0 && s.errors == 0,
                      "node " + std::to_string(node) + ": no packet left, none dropped, no error");
    }
    if (expect_waits == 1)
        checks.expect(waits > 0, std::to_string(waits) + " waits for a CGR unit with collective.cgr_units=" +
                                     std::to_string(config.cgr_units));
    if (expect_waits == 0)
        checks.expect(waits == 0, std::to_string(waits) + " waits for a CGR unit with collective.cgr_units=" +
                                      std::to_string(config.cgr_units));
    std::cout << std::fixed << std::setprecision(1) << "cgr waits: " << waits << ", "
              << static_cast<double>(wait_ps) / 1000.0 << " ns waited\n";
    std::cout << "latency A: " << (last[0] - posted).to_seconds() * 1e9 << " ns\n";
    std::cout << "latency B: " << (last[1] - posted).to_seconds() * 1e9 << " ns\n";
    return checks.finish();
}
