#include "cli.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace isvp::cli {

void add_platform_options(po::options_description& options, bool trace) {
    options.add_options()("config", po::value<std::string>()->value_name("FILE"), "platform configuration (JSON)")(
        "set", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(),
        "override one parameter (repeatable); see --list-parameters");
    if (trace)
        options.add_options()(
            "trace", po::value<std::string>()->value_name("FILE"),
            "write a Chrome/Perfetto trace (JSON) of packets and collective phases (= --set trace.file=FILE)");
    options.add_options()("list-parameters", "print every parameter with its value, unit and description, then exit");
}

void apply_config_option(const po::variables_map& values, Parameters& parameters) {
    if (values.count("config")) parameters.load_file(values["config"].as<std::string>());
}

bool apply_platform_options(const po::variables_map& values, Parameters& parameters) {
    if (values.count("set"))
        for (const auto& assignment : values["set"].as<std::vector<std::string>>())
            parameters.apply_override(assignment);
    if (values.count("trace")) parameters.apply_override("trace.file=" + values["trace"].as<std::string>());
    if (values.count("list-parameters")) {
        parameters.describe(std::cout);
        return false;
    }
    return true;
}

void check_writable(const std::string& option, const std::string& path) {
    std::ofstream probe(path, std::ios::app);  // creates it if missing, keeps what is there
    if (!probe) throw ConfigError("cannot write " + option + " " + path + ": " + std::strerror(errno));
}

bool parse(int argc, char** argv, const std::string& usage, const po::options_description& options,
           po::variables_map& values) {
    po::options_description all(options);
    all.add_options()("help,h", "show this help");
    try {
        // No positional arguments: a stray word is an error, not silently ignored.
        const po::positional_options_description none;
        po::store(po::command_line_parser(argc, argv).options(all).positional(none).run(), values);
        po::notify(values);
    } catch (const po::error& error) {
        throw ConfigError(std::string(error.what()) + " (see --help)");
    }
    if (values.count("help")) {
        std::cout << usage << "\n\n" << all << "\n";
        return false;
    }
    return true;
}

namespace {
bool end_on_return = false;  ///< set by end_process_on_return()
}  // namespace

void end_process_on_return() {
    end_on_return = true;
}

bool ending_process_on_return() {
    return end_on_return;
}

std::chrono::nanoseconds heartbeat_period(double seconds, const std::string& what, bool zero_is_off) {
    if (zero_is_off && seconds == 0) return std::chrono::nanoseconds{0};
    if (!(seconds >= 0.01 && seconds <= 86400)) {
        std::ostringstream given;
        given << seconds;
        throw ConfigError(what + " takes " + (zero_is_off ? "0 (off) or " : "") + "seconds from 0.01 to 86400, got " +
                          given.str());
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
}

std::string heartbeat_figures(std::uint64_t simulated_ps, std::optional<std::uint64_t> hops, double elapsed_s) {
    std::ostringstream text;
    text << "simulated time " << std::fixed << std::setprecision(3) << simulated_ps / 1e6 << " us";
    if (hops) text << ", " << *hops << " packet-hops so far";
    text << ", " << std::setprecision(1) << elapsed_s << " s elapsed";
    return text.str();
}

}  // namespace isvp::cli
