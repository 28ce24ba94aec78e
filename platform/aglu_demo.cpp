// `isvp aglu`: both AgLU implementations reduce the same operands — every
// supported (operation, datatype) pair, random lanes and edge cases — and the
// results are compared bit for bit. Prints a table, a summary, and the wall
// throughput of each implementation.
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "cli.h"
#include "isvp/aglu_engine.h"
#include "isvp/aglu_stimulus.h"
#include "job_platform.h"

namespace po = boost::program_options;

namespace isvp::cli {
namespace {

struct Throughput {
    double seconds = 0;         ///< wall time spent inside the engine
    std::uint64_t vectors = 0;  ///< vectors combined
    double per_second() const { return seconds > 0 ? vectors / seconds : 0; }
};

std::uint64_t timed_combine(AgluEngine& engine, Operation op, Datatype type, const std::vector<Vector256>& a,
                            const std::vector<Vector256>& b, std::vector<Vector256>& out, Throughput& meter) {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t cycles = engine.combine(op, type, a.data(), b.data(), out.data(), a.size());
    meter.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    meter.vectors += a.size();
    return cycles;
}

}  // namespace

int aglu_demo(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);  // a platform's configuration file loads as it is; aglu.* is used
    po::options_description options("isvp aglu options");
    options.add_options()("vectors", whole(std::size_t{20000}), "operand vector pairs per (operation, datatype)")(
        "seed", whole(std::uint64_t{1}), "stimulus seed (same seed, same vectors)")(
        "json", po::value<std::string>()->value_name("FILE"), "also write the results as JSON");
    add_platform_options(options, false);
    po::variables_map values;
    if (!parse(argc, argv,
               "usage: isvp aglu [--vectors N] [--seed S] [--json FILE] [--config FILE] [--set key=value]...\n"
               "Reduces the same operands with the C++ (tlm) and the Verilated RTL (rtl) AgLU and compares them.",
               options, values))
        return 0;
    apply_config_option(values, parameters);
    if (!apply_platform_options(values, parameters)) return 0;

    AgluConfig tlm_config = AgluConfig::from(parameters);
    tlm_config.impl = "tlm";
    tlm_config.vcd_path.clear();
    AgluConfig rtl_config = AgluConfig::from(parameters);
    rtl_config.impl = "rtl";
    const auto tlm = make_aglu_engine(tlm_config);
    const auto rtl = make_aglu_engine(rtl_config);

    if (values.count("json")) check_writable("--json", values["json"].as<std::string>());
    const std::size_t vectors = whole_value<std::size_t>(values, "vectors");
    // Each vector is held five times (operands, two results, stimulus): 160 bytes.
    constexpr std::size_t kMaxVectors = std::size_t{1} << 26;
    if (vectors == 0 || vectors > kMaxVectors)
        throw ConfigError("aglu: --vectors must be from 1 to " + std::to_string(kMaxVectors) + ", got " +
                          std::to_string(vectors));
    const std::uint64_t seed = whole_value<std::uint64_t>(values, "seed");
    AgluStimulus stimulus(seed);
    std::cout << "isvp aglu: " << vectors << " vector pairs per (operation, datatype), seed " << seed << ", " << tlm_config.pipeline_stages << " pipeline stages at "
              << tlm_config.clock_mhz << " MHz\n\n";
    std::cout << std::left << std::setw(8) << "op" << std::setw(15) << "datatype" << std::right << std::setw(10)
              << "vectors" << std::setw(12) << "mismatches" << std::setw(10) << "cycles"
              << "\n";

    Throughput tlm_meter;
    Throughput rtl_meter;
    std::uint64_t total_vectors = 0;
    std::uint64_t total_mismatches = 0;
    int pairs = 0;
    nlohmann::json rows = nlohmann::json::array();
    std::vector<Vector256> a;
    std::vector<Vector256> b;
    std::vector<Vector256> from_tlm(vectors);
    std::vector<Vector256> from_rtl(vectors);
    for (int type_code = 0; type_code < kDatatypeCount; ++type_code) {
        const auto type = static_cast<Datatype>(type_code);
        stimulus.generate(type, vectors, a, b);
        for (const Operation op : aglu_supported_operations(type)) {
            const std::uint64_t tlm_cycles = timed_combine(*tlm, op, type, a, b, from_tlm, tlm_meter);
            const std::uint64_t rtl_cycles = timed_combine(*rtl, op, type, a, b, from_rtl, rtl_meter);
            std::uint64_t mismatches = 0;
            for (std::size_t i = 0; i < vectors; ++i) mismatches += from_tlm[i] != from_rtl[i];
            if (tlm_cycles != rtl_cycles) ++mismatches;
            std::cout << std::left << std::setw(8) << to_string(op) << std::setw(15) << to_string(type) << std::right
                      << std::setw(10) << vectors << std::setw(12) << mismatches << std::setw(10) << rtl_cycles
                      << (mismatches ? "   MISMATCH" : "") << "\n";
            rows.push_back({{"operation", to_string(op)},
                            {"datatype", to_string(type)},
                            {"vectors", vectors},
                            {"mismatches", mismatches},
                            {"tlm_cycles", tlm_cycles},
                            {"rtl_cycles", rtl_cycles}});
            total_vectors += vectors;
            total_mismatches += mismatches;
            ++pairs;
        }
    }

    std::cout << "\nsummary: " << pairs << " (operation, datatype) pairs, " << total_vectors << " vectors, "
              << total_mismatches << " mismatches\n"
              << std::fixed << std::setprecision(3) << "  TLM AgLU: " << tlm_meter.per_second() / 1e6
              << " M vectors per wall second\n"
              << "  RTL AgLU: " << rtl_meter.per_second() / 1e6 << " M vectors per wall second (Verilator 5)\n"
              << "  simulated: " << tlm_config.pipeline_stages
              << "-cycle latency, 1 vector/cycle = " << std::setprecision(1)
              << tlm_config.clock_mhz * 1e6 * kVectorBytes / 1e9 << " GB/s of reduced data per AgLU\n";
    if (values.count("json")) {
        std::ofstream out(values["json"].as<std::string>());
        if (!out) throw ConfigError("cannot write " + values["json"].as<std::string>());
        out << nlohmann::json{{"parameters", parameters.to_json()},
                              {"pairs", rows},
                              {"vectors", total_vectors},
                              {"mismatches", total_mismatches},
                              {"tlm_vectors_per_second", tlm_meter.per_second()},
                              {"rtl_vectors_per_second", rtl_meter.per_second()}}
                   .dump(2)
            << "\n";
    }
    return total_mismatches == 0 ? 0 : 1;
}

}  // namespace isvp::cli
