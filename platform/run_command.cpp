// `isvp run -n N [options] -- PROG [ARGS]`: the simulator with N guest
// processes, one rank each, like mpirun. Guest output is prefixed with the
// rank; the exit status is the job's.
#include <fstream>
#include <iostream>

#include "cli.h"
#include "job_platform.h"

namespace po = boost::program_options;

namespace isvp::cli {

int run_command(int argc, char** argv) {
    // Everything after "--" is the guest command line, untouched.
    std::vector<std::string> command;
    int own = argc;
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--") {
            own = i;
            for (int j = i + 1; j < argc; ++j) command.emplace_back(argv[j]);
            break;
        }

    Parameters parameters;
    declare_job_parameters(parameters);
    po::options_description options("isvp run options");
    options.add_options()
        ("np,n", po::value<int>()->value_name("N"), "number of ranks (one per node; -np also accepted)")
        ("stats", po::value<std::string>()->value_name("FILE"), "write platform statistics (JSON) after the job");
    add_platform_options(options);
    // mpirun spells it -np: accept that as --np.
    std::vector<std::string> args;
    for (int i = 0; i < own; ++i) args.emplace_back(std::string(argv[i]) == "-np" ? "--np" : argv[i]);
    std::vector<char*> own_argv;
    for (auto& arg : args) own_argv.push_back(arg.data());
    po::variables_map values;
    if (!parse(static_cast<int>(own_argv.size()), own_argv.data(),
               "usage: isvp run -n N [--config FILE] [--set key=value]... [--stats FILE] -- PROG [ARGS...]\n"
               "Starts the simulator and N guest processes (rank r on node r of topology.torus).",
               options, values))
        return 0;
    if (!apply_platform_options(values, parameters)) return 0;
    if (!values.count("np")) throw ConfigError("run: -n N is required (the number of ranks)");
    if (command.empty()) throw ConfigError("run: no program given; put it after '--'");

    transport::JobSpec spec;
    spec.ranks = values["np"].as<int>();
    if (spec.ranks < 1) throw ConfigError("run: -n must be at least 1, got " + std::to_string(spec.ranks));
    spec.command = command;
    spec.config = TransportConfig::from(parameters);
    JobPlatform job(PlatformConfig::from(parameters));
    const transport::JobResult result = transport::run_remote_job(spec, job.builder());

    if (values.count("stats") && job.platform()) {
        const std::string path = values["stats"].as<std::string>();
        std::ofstream out(path);
        if (!out) throw ConfigError("run: cannot write --stats " + path);
        nlohmann::json ranks = nlohmann::json::array();
        for (const auto& rank : result.ranks)
            ranks.push_back({{"status", rank.status}, {"finished", rank.finished},
                             {"finish_time_us", rank.finish_time_ps / 1e6}, {"mmio_reads", rank.reads},
                             {"mmio_writes", rank.writes}, {"interrupts", rank.interrupts}});
        out << nlohmann::json{{"parameters", parameters.to_json()},
                              {"exit_status", result.exit_status},
                              {"ranks", ranks},
                              {"platform", job.platform()->statistics(sc_core::sc_time_stamp())}}
                   .dump(2)
            << "\n";
    }
    return result.exit_status;
}

}  // namespace isvp::cli
