// CollectiveEngine: a CT row RELEASEd or LOADed while collectives run on it
// (models/collective/README.md, "Busy rows"). N engines on a torus with
// scripted hosts; two communicators span every node: A on context 0 and B
// on context 5 (members in another order), so their traffic shares every
// switch.
//
//   phase 1: every member posts A's seq 0 (a 256 KiB int32 allreduce) and
//            seq 1 (a small one), then B's calls (int32 and float64). While
//            A's seq 0 runs, node Z's host RELEASEs row 0 (seq 1 is queued
//            there) and node Q's host LOADs a different row into row 5
//            while B runs on it.
//            Expected: every member gets error 5 (aborted) with the mask bit
//            "row released" for A's seq 0 and 1; Q's LOAD is refused
//            (CT_COMMAND_STATUS, row 5 unchanged: B's results exact).
//   phase 2: Z LOADs its row again; every member runs A's seq 2..4; exact.
//   phase 3: every member RELEASEs row 0 and LOADs a new communicator A'
//            (other member order) into it; sequences restart at 0; exact.
//   Nothing leaks (no packet left in any engine), late packets are counted
//   stale, and with --trace FILE every call on row 0 of Z is drawn.
//
// --no-release: the same run without the RELEASE and the refused LOAD (A's
// phase-1 calls then succeed); B's float64 digest must be the same in both.
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "collective_script_host.h"
#include "isvp/collective_engine.h"
#include "torus_testbench.h"

using namespace isvp;
using namespace isvp::testbench;

namespace {

std::string text_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

int sc_main(int argc, char** argv) {
    Parameters parameters;
    AgluConfig::declare(parameters);
    CollectiveConfig::declare(parameters);
    const auto options = testbench::parse_arguments(argc, argv, parameters);
    bool release = true;
    double release_at_us = 0.0;  // 0: once Z's requests are posted
    std::string trace_path;
    for (const auto& [name, value] : options) {
        if (name == "no-release") {
            release = value != "1" && value != "yes";
        } else if (name == "release-at-us") {
            release_at_us = std::stod(value);
        } else if (name == "trace") {
            trace_path = value;
        } else {
            std::cout << "collective_release_tb: options --set key=value, --no-release 1, --release-at-us T, --trace "
                         "FILE; got --"
                      << name << "\n";
            return 2;
        }
    }
    const FabricConfig fabric_config = FabricConfig::from(parameters);
    const AgluConfig aglu = AgluConfig::from(parameters);
    const CollectiveConfig config = CollectiveConfig::from(parameters);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);

    Fabric fabric("fabric", fabric_config);
    const unsigned n = fabric.nodes();
    if (n < 4) {
        std::cout << "collective_release_tb: needs at least 4 nodes\n";
        return 2;
    }
    std::unique_ptr<TraceWriter> trace;
    if (!trace_path.empty()) trace = std::make_unique<TraceWriter>(trace_path, 1000000);
    std::vector<std::unique_ptr<CollectiveEngine>> engines;
    std::vector<std::unique_ptr<ScriptHost>> hosts;
    for (unsigned i = 0; i < n; ++i) {
        engines.push_back(std::make_unique<CollectiveEngine>(("engine" + std::to_string(i)).c_str(),
                                                             static_cast<std::uint16_t>(i), n, aglu, config));
        hosts.push_back(std::make_unique<ScriptHost>(("host" + std::to_string(i)).c_str()));
        CollectiveEngine& e = *engines.back();
        ScriptHost& h = *hosts.back();
        if (trace) e.set_trace(trace.get(), i + 1);
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
    const auto global_of = [n](unsigned node) { return static_cast<std::uint16_t>((node + n - 3) % n); };
    const auto make_comm = [&](std::uint8_t context, std::vector<unsigned> nodes) {
        Communicator c{context, std::move(nodes), {}};
        for (const unsigned node : c.nodes) c.globals.push_back(global_of(node));
        return c;
    };
    std::vector<unsigned> order_a, order_b, order_a2;
    for (unsigned r = 0; r < n; ++r) {
        order_a.push_back((r + 1) % n);
        order_b.push_back(n - 1 - r);
        order_a2.push_back((2 + n - r) % n);  // A': a permutation unlike A's
    }
    const Communicator a = make_comm(0, order_a), b = make_comm(5, order_b), a2 = make_comm(0, order_a2);
    Communicator other_row5 = a2;  // what Q tries to LOAD into B's busy row
    other_row5.context = 5;
    const unsigned z = a.nodes[2];  // releases row 0 mid-collective
    const unsigned q = b.nodes[1];  // tries to LOAD row 5 while B runs

    const auto load = [&](ScriptHost& h, const Communicator& c, unsigned node) {
        const CtRow::Dwords dwords = make_ct_row(c.rank_of(node), c.globals).encode();
        for (unsigned i = 0; i < dwords.size(); ++i)
            h.script.push_back(act(Action::Write, regmap::CT_STAGING(i), dwords[i]));
        h.script.push_back(act(Action::Write, regmap::CT_SELECT, c.context));
        h.script.push_back(act(Action::Write, regmap::CT_COMMAND, regmap::ct_command::LOAD.make(1)));
    };
    const auto post = [&](ScriptHost& h, const Communicator& c, unsigned node, const Call& call, int id,
                          std::uint32_t sequence) {
        Action p = act(Action::Post);
        p.packets = request(c.context, node, call, id, c.rank_of(node), c.globals, sequence);
        h.script.push_back(std::move(p));
    };
    const auto read = [&](std::vector<Action>& to, std::uint32_t offset, const std::string& label) {
        Action r = act(Action::Read, offset);
        r.label = label;
        to.push_back(r);
    };
    const auto wait_results = [&](ScriptHost& h, std::uint8_t context, std::uint32_t count) {
        h.script.push_back(act(Action::WaitResults, context, count));
    };
    const auto wait_until = [&](std::vector<Action>& to, double us) {
        Action w = act(Action::WaitUntil);
        w.until = sc_core::sc_time(us, sc_core::SC_US);
        to.push_back(w);
    };

    // The calls. A phase 1 (ids 0, 1), B (ids 10..13), A phase 2 (ids 20..22), A' (ids 30, 31).
    const std::vector<Call> a_phase1 = {{Opcode::Allreduce, Datatype::Int32, 65536, 0},
                                        {Opcode::Allreduce, Datatype::Int32, 100, 0}};
    const std::vector<Call> b_calls = {{Opcode::Allreduce, Datatype::Int32, 20000, 0},
                                       {Opcode::Allreduce, Datatype::Float64, 6000, 0},
                                       {Opcode::Allgather, Datatype::Int32, 3000, 0},
                                       {Opcode::Reduce, Datatype::Int32, 9000, 3}};
    const std::vector<Call> a_phase2 = {{Opcode::Allreduce, Datatype::Int32, 5000, 0},
                                        {Opcode::Bcast, Datatype::Int32, 3000, 3},
                                        {Opcode::ReduceScatter, Datatype::Int32, 700, 0}};
    const std::vector<Call> a2_calls = {{Opcode::Allreduce, Datatype::Int32, 4000, 0},
                                        {Opcode::Gather, Datatype::Int32, 900, 1}};
    // Default: at once after the posts (~30 us): A's seq 0 runs, seq 1 is
    // queued. --release-at-us 5: while Z's host still streams seq 0's
    // contribution in (seq 1 then comes for the released row).
    const double release_us = release_at_us > 0 ? release_at_us : 12.0;
    const double phase2_us = 400.0, phase3_us = 800.0, a2_us = 900.0;

    for (unsigned node = 0; node < n; ++node) {
        ScriptHost& h = *hosts[node];
        h.script.push_back(act(Action::Write, regmap::FORWARD_INDEX, 0));
        for (unsigned g = 0; g < n; ++g) h.script.push_back(act(Action::Write, regmap::FORWARD_NODE, (g + 3) % n));
        load(h, a, node);
        load(h, b, node);
        wait_until(h.script, 0.01);
        for (std::size_t k = 0; k < a_phase1.size(); ++k) post(h, a, node, a_phase1[k], static_cast<int>(k), k);
        for (std::size_t k = 0; k < b_calls.size(); ++k) post(h, b, node, b_calls[k], static_cast<int>(10 + k), k);
        if (release && (node == z || node == q)) {
            // A timed release runs beside the posts (the side script).
            std::vector<Action>& to = node == z && release_at_us > 0 ? h.side : h.script;
            wait_until(to, release_us);
            read(to, regmap::CT_BUSY, "busy before");
            if (node == z) {
                to.push_back(act(Action::Write, regmap::CT_SELECT, 0));
                to.push_back(act(Action::Write, regmap::CT_COMMAND, regmap::ct_command::RELEASE.make(1)));
                read(to, regmap::CT_COMMAND_STATUS, "release status");
                read(to, regmap::CT_VALID, "valid after release");
                read(to, regmap::CT_BUSY, "busy after release");
            } else {
                load(h, other_row5, node);  // row 5 is B's and busy: refused
                read(to, regmap::CT_COMMAND_STATUS, "load status");
                read(to, regmap::CT_VALID, "valid after load");
            }
        }
        // Phase 2: A's row again at Z (a new LOAD), then seq 2..4 everywhere.
        wait_results(h, 0, static_cast<std::uint32_t>(a_phase1.size()));
        if (release && node == z) load(h, a, node);
        wait_until(h.script, phase2_us);
        for (std::size_t k = 0; k < a_phase2.size(); ++k)
            post(h, a, node, a_phase2[k], static_cast<int>(20 + k), static_cast<std::uint32_t>(2 + k));
        // Phase 3: every member frees row 0 and loads A' into it; sequences restart.
        wait_results(h, 0, static_cast<std::uint32_t>(a_phase1.size() + a_phase2.size()));
        wait_until(h.script, phase3_us);
        h.script.push_back(act(Action::Write, regmap::CT_SELECT, 0));
        h.script.push_back(act(Action::Write, regmap::CT_COMMAND, regmap::ct_command::RELEASE.make(1)));
        load(h, a2, node);
        read(h.script, regmap::CT_COMMAND_STATUS, "A' load status");
        wait_until(h.script, a2_us);
        for (std::size_t k = 0; k < a2_calls.size(); ++k)
            post(h, a2, node, a2_calls[k], static_cast<int>(30 + k), static_cast<std::uint32_t>(k));
    }

    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_MS));
    if (trace) trace->finish();
    Checks checks;
    namespace st = regmap::ct_command_status;

    // Results per communicator, in order.
    std::uint64_t digest = 1469598103934665603ull;
    int wrong = 0;
    const auto check_calls = [&](const Communicator& c, const std::vector<Call>& calls, int first_id, std::size_t skip,
                                 const std::string& what) {
        for (unsigned node = 0; node < n; ++node) {
            const int rank = c.rank_of(node);
            std::vector<const Result*> mine;
            for (const Result& r : hosts[node]->results)
                if (r.context == c.context) mine.push_back(&r);
            if (mine.size() < skip + calls.size()) {
                checks.expect(false, what + " rank " + std::to_string(rank) + ": " + std::to_string(mine.size()) +
                                         " results on context " + std::to_string(c.context));
                ++wrong;
                continue;
            }
            for (std::size_t k = 0; k < calls.size(); ++k) {
                const Result& r = *mine[skip + k];
                const Call& call = calls[k];
                bool ok = r.step == 0 && r.opcode == call.opcode;
                if (call.type == Datatype::Int32)
                    ok = ok && r.bytes == reference(call, first_id + static_cast<int>(k),
                                                    static_cast<int>(c.nodes.size()), rank);
                else
                    for (const std::uint8_t x : r.bytes) digest = (digest ^ x) * 1099511628211ull;
                if (!ok) {
                    ++wrong;
                    checks.expect(false, what + " rank " + std::to_string(rank) + " call " + std::to_string(k) + " (" +
                                             std::string(to_string(call.opcode)) + "): result matches the reference");
                }
            }
        }
    };
    check_calls(b, b_calls, 10, 0, "B (context 5, concurrent, row 5 LOAD refused)");
    if (release) {
        // Phase 1 on A: error 5 (aborted, mask bit "row released") on every member, for both calls.
        for (unsigned node = 0; node < n; ++node) {
            int aborted = 0;
            std::size_t seen = 0;
            for (const Result& r : hosts[node]->results) {
                if (r.context != 0 || seen++ >= a_phase1.size()) continue;
                std::uint32_t code = 0, mask = 0;
                if (r.bytes.size() == kErrorResultBytes) {
                    std::memcpy(&code, r.bytes.data(), 4);
                    std::memcpy(&mask, r.bytes.data() + 4, 4);
                }
                aborted += r.step == kErrorStep && code == 5 && (mask & mismatch::kReleased) != 0;
            }
            checks.expect(aborted == static_cast<int>(a_phase1.size()),
                          "node " + std::to_string(node) + (node == z ? " (released its row)" : "") + ": A's " +
                              std::to_string(a_phase1.size()) + " phase-1 calls completed with error 5 (aborted), " +
                              std::to_string(aborted) + " did");
        }
        check_calls(a, a_phase2, 20, a_phase1.size(), "A after Z's new LOAD");
    } else {
        check_calls(a, a_phase1, 0, 0, "A phase 1 (no release)");
        check_calls(a, a_phase2, 20, a_phase1.size(), "A phase 2 (no release)");
    }
    check_calls(a2, a2_calls, 30, a_phase1.size() + a_phase2.size(), "A' (new communicator on row 0)");
    checks.expect(wrong == 0, "every collective result matches its reference (" + std::to_string(wrong) + " wrong)");

    if (release) {
        const auto& zr = hosts[z]->reads;
        checks.expect((zr.at("busy before") & 1u) != 0, "row 0 was busy when Z released it (CT_BUSY bit 0)");
        checks.expect(st::RESULT.get(zr.at("release status")) == st::kReleasedAborting &&
                          st::ROW.get(zr.at("release status")) == 0,
                      "CT_COMMAND_STATUS after the RELEASE: released, work aborted, row 0");
        checks.expect((zr.at("valid after release") & 1u) == 0 && (zr.at("busy after release") & 1u) == 0,
                      "row 0 invalid and not busy right after the RELEASE");
        const auto& qr = hosts[q]->reads;
        checks.expect((qr.at("busy before") >> 5 & 1u) != 0, "row 5 was busy when Q loaded it (CT_BUSY bit 5)");
        checks.expect(
            st::RESULT.get(qr.at("load status")) == st::kLoadRefusedBusy && st::ROW.get(qr.at("load status")) == 5,
            "CT_COMMAND_STATUS after the LOAD of busy row 5: refused (busy)");
        checks.expect((qr.at("valid after load") >> 5 & 1u) != 0, "row 5 still valid after the refused LOAD");
        checks.expect(engines[q]->statistics().loads_refused_busy == 1, "Q counted one LOAD refused as busy");
        checks.expect(engines[z]->statistics().aborted == a_phase1.size(),
                      "Z aborted " + std::to_string(engines[z]->statistics().aborted) +
                          " collectives (the running "
                          "one and the next one)");
    }
    std::uint64_t stale = 0, aborted = 0;
    for (unsigned node = 0; node < n; ++node) {
        const CollectiveStatistics& s = engines[node]->statistics();
        stale += s.stale;
        aborted += s.aborted;
        checks.expect(engines[node]->live_packets() == 0 && s.dropped == 0,
                      "node " + std::to_string(node) + ": no packet left in the engine, none dropped (" +
                          std::to_string(s.dropped) + ")");
        checks.expect(st::RESULT.get(hosts[node]->reads.at("A' load status")) == st::kDone,
                      "node " + std::to_string(node) + ": A' LOAD done");
        checks.expect(s.errors == (release ? a_phase1.size() : 0),
                      "node " + std::to_string(node) + ": ACCEL_ERRORS " + std::to_string(s.errors));
    }
    if (release)
        checks.expect(aborted == n * a_phase1.size(),
                      std::to_string(aborted) + " aborted collectives over all switches");
    if (trace) {
        // Every call on row 0 of Z is drawn (a call aborted mid-run used to stall the row's lane).
        const std::string text = text_of(trace_path);
        const std::string lane = "\"pid\":" + std::to_string(z + 1) +
                                 ",\"tid\":" + std::to_string(CollectiveEngine::kTraceLaneBase) +
                                 ",\"cat\":\"collective\"";
        const std::size_t drawn = occurrences(text, lane);
        const std::size_t calls = a_phase1.size() + a_phase2.size() + a2_calls.size();
        checks.expect(drawn == calls,
                      "trace: " + std::to_string(drawn) + " of " + std::to_string(calls) + " calls on Z's row 0 drawn");
    }
    std::cout << "simulated " << testbench::ns(sc_core::sc_time_stamp()) << ", " << stale << " stale packets\n";
    std::cout << "B float64 digest: " << std::hex << digest << std::dec << "\n";
    return checks.finish();
}
