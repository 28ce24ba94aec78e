// RTL-vs-TLM equivalence of the AgLU.
//
// A checker sends every transaction to two AgluTlm instances — one with the
// C++ core (aglu.impl=tlm), one with the Verilated RTL (aglu.impl=rtl) — as
// libsystemctlm-soc's splitter does for model-vs-reference checks, and
// requires bit-identical results and identical annotated latency for every
// supported (operation, datatype) pair on random and edge-case operands. It
// also checks that a single vector takes exactly aglu.pipeline_stages cycles.
//
//   aglu_equivalence_tb [--vectors N] [--seed S] [--stages P] [--vcd FILE]
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aglu_stimulus.h"
#include "isvp/aglu_tlm.h"

using namespace isvp;

namespace {

struct Options {
    std::size_t vectors = 2000;  ///< operand pairs per (operation, datatype)
    std::uint64_t seed = 1;
    unsigned stages = 4;
    std::string vcd_path;
};

class EquivalenceChecker : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<EquivalenceChecker> to_tlm;  ///< the C++ core AgLU
    tlm_utils::simple_initiator_socket<EquivalenceChecker> to_rtl;  ///< the Verilated RTL AgLU

    EquivalenceChecker(sc_core::sc_module_name name, const Options& options)
        : sc_core::sc_module(name), to_tlm("to_tlm"), to_rtl("to_rtl"), options_(options) {
        SC_HAS_PROCESS(EquivalenceChecker);
        SC_THREAD(run);
    }

    std::uint64_t failures = 0;  ///< mismatching vectors plus failed latency checks
    std::uint64_t vectors_checked = 0;

  private:
    sc_core::sc_time send(tlm_utils::simple_initiator_socket<EquivalenceChecker>& socket, Operation op, Datatype type,
                          std::vector<unsigned char>& beats, std::vector<Vector256>& results) {
        AgluCommand command;
        command.operation = op;
        command.datatype = type;
        command.results = results.data();
        tlm::tlm_generic_payload payload;
        payload.set_command(tlm::TLM_WRITE_COMMAND);
        payload.set_data_ptr(beats.data());
        payload.set_data_length(static_cast<unsigned>(beats.size()));
        payload.set_streaming_width(static_cast<unsigned>(beats.size()));
        payload.set_extension(&command);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket->b_transport(payload, delay);
        payload.clear_extension(&command);
        if (!payload.is_response_ok()) {
            std::cerr << "FAIL " << to_string(op) << " " << to_string(type) << ": " << payload.get_response_string()
                      << "\n";
            ++failures;
        }
        return delay;
    }

    void check_pair(Operation op, Datatype type, const std::vector<Vector256>& a, const std::vector<Vector256>& b) {
        const std::size_t count = a.size();
        std::vector<unsigned char> beats(count * kAgluBeatBytes);
        for (std::size_t i = 0; i < count; ++i) {
            std::memcpy(&beats[i * kAgluBeatBytes], a[i].data(), kVectorBytes);
            std::memcpy(&beats[i * kAgluBeatBytes + kVectorBytes], b[i].data(), kVectorBytes);
        }
        std::vector<Vector256> from_tlm(count);
        std::vector<Vector256> from_rtl(count);
        const sc_core::sc_time tlm_delay = send(to_tlm, op, type, beats, from_tlm);
        const sc_core::sc_time rtl_delay = send(to_rtl, op, type, beats, from_rtl);

        std::uint64_t mismatches = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (from_tlm[i] == from_rtl[i]) continue;
            if (mismatches++ < 3) {
                std::cerr << "MISMATCH " << to_string(op) << " " << to_string(type) << " vector " << i << std::hex;
                for (int w = 3; w >= 0; --w)
                    std::cerr << (w == 3 ? "\n  a   " : "_") << std::setw(16) << std::setfill('0') << a[i][w];
                for (int w = 3; w >= 0; --w) std::cerr << (w == 3 ? "\n  b   " : "_") << std::setw(16) << b[i][w];
                for (int w = 3; w >= 0; --w)
                    std::cerr << (w == 3 ? "\n  tlm " : "_") << std::setw(16) << from_tlm[i][w];
                for (int w = 3; w >= 0; --w)
                    std::cerr << (w == 3 ? "\n  rtl " : "_") << std::setw(16) << from_rtl[i][w];
                std::cerr << std::dec << std::setfill(' ') << "\n";
            }
        }
        const sc_core::sc_time expected = cycle_ * static_cast<double>(options_.stages + count - 1);
        if (tlm_delay != rtl_delay || rtl_delay != expected) {
            std::cerr << "FAIL latency " << to_string(op) << " " << to_string(type) << ": tlm " << tlm_delay << ", rtl "
                      << rtl_delay << ", expected " << expected << "\n";
            ++failures;
        }
        failures += mismatches;
        vectors_checked += count;
        std::cout << std::left << std::setw(8) << to_string(op) << std::setw(15) << to_string(type) << std::right
                  << std::setw(9) << count << " vectors  " << (mismatches ? "MISMATCH" : "bit-exact") << "\n";
    }

    // One vector alone: the RTL's own valid-in to valid-out distance.
    void check_single_vector_latency() {
        const std::vector<Vector256> a(1, Vector256{1, 2, 3, 4});
        const std::vector<Vector256> b(1, Vector256{5, 6, 7, 8});
        std::vector<unsigned char> beats(kAgluBeatBytes);
        std::memcpy(beats.data(), a[0].data(), kVectorBytes);
        std::memcpy(beats.data() + kVectorBytes, b[0].data(), kVectorBytes);
        std::vector<Vector256> result(1);
        const sc_core::sc_time delay = send(to_rtl, Operation::Sum, Datatype::Int64, beats, result);
        const bool ok = delay == cycle_ * static_cast<double>(options_.stages) && result[0] == Vector256{6, 8, 10, 12};
        std::cout << "single-vector RTL latency: " << delay << " (" << options_.stages << " stages at " << cycle_
                  << " per cycle) " << (ok ? "ok" : "WRONG") << "\n";
        failures += !ok;
    }

    void run() {
        check_single_vector_latency();
        AgluStimulus stimulus(options_.seed);
        std::vector<Vector256> a;
        std::vector<Vector256> b;
        for (int code = 0; code < kDatatypeCount; ++code) {
            const auto type = static_cast<Datatype>(code);
            stimulus.generate(type, options_.vectors, a, b);
            for (const Operation op : aglu_supported_operations(type)) check_pair(op, type, a, b);
        }
    }

    Options options_;
    sc_core::sc_time cycle_{4, sc_core::SC_NS};  ///< 250 MHz, the default aglu.clock_mhz
};

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--vectors" && has_value)
            options.vectors = std::stoull(argv[++i]);
        else if (arg == "--seed" && has_value)
            options.seed = std::stoull(argv[++i]);
        else if (arg == "--stages" && has_value)
            options.stages = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (arg == "--vcd" && has_value)
            options.vcd_path = argv[++i];
        else {
            std::cerr << "usage: aglu_equivalence_tb [--vectors N] [--seed S] [--stages P] [--vcd FILE]\n";
            std::exit(2);
        }
    }
    return options;
}

}  // namespace

int sc_main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    AgluConfig tlm_config;
    tlm_config.impl = "tlm";
    tlm_config.pipeline_stages = options.stages;
    AgluConfig rtl_config = tlm_config;
    rtl_config.impl = "rtl";
    rtl_config.vcd_path = options.vcd_path;

    AgluTlm tlm_aglu("tlm_aglu", tlm_config);
    AgluTlm rtl_aglu("rtl_aglu", rtl_config);
    EquivalenceChecker checker("checker", options);
    checker.to_tlm.bind(tlm_aglu.socket);
    checker.to_rtl.bind(rtl_aglu.socket);
    sc_core::sc_start();

    std::cout << "equivalence: " << checker.vectors_checked << " vectors, " << checker.failures << " failures"
              << (options.vcd_path.empty() ? "" : ", waveform in " + options.vcd_path) << "\n";
    return checker.failures == 0 && checker.vectors_checked > 0 ? 0 : 1;
}
