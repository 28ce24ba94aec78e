// isvp — the in-switch collectives virtual platform's command-line tool.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "isvp/aglu_core.h"
#include "isvp/parameters.h"

#include <systemc>

namespace isvp::cli {
int aglu_demo(int argc, char** argv);
int run_command(int argc, char** argv);
int bench_command(int argc, char** argv);
}  // namespace isvp::cli

namespace {

struct Subcommand {
    std::function<int(int, char**)> run;  ///< gets argv from the subcommand's name on
    const char* summary;                  ///< one line for `isvp --help`
};

const std::map<std::string, Subcommand>& subcommands() {
    static const std::map<std::string, Subcommand> table = {
        {"aglu", {isvp::cli::aglu_demo, "reduce the same operands with the TLM and the RTL AgLU and compare"}},
        {"run", {isvp::cli::run_command, "run N guest processes on the platform, like mpirun"}},
        {"bench", {isvp::cli::bench_command, "benchmarks in local mode: pingpong, collectives"}},
    };
    return table;
}

void usage(std::ostream& out) {
    out << "usage: isvp <command> [options]   (isvp <command> --help for its options)\n\ncommands:\n";
    for (const auto& [name, command] : subcommands()) out << "  " << name << "    " << command.summary << "\n";
}

}  // namespace

// SystemC prints its banner while it starts up, before sc_main; the CLI's
// output stays clean by setting the switch first (a user's own setting wins).
int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    const auto found = subcommands().find(argv[1]);
    if (found == subcommands().end()) {
        std::cerr << "isvp: unknown command '" << argv[1] << "'\n";
        usage(std::cerr);
        return 2;
    }
    try {
        return found->second.run(argc - 1, argv + 1);
    } catch (const isvp::ConfigError& error) {
        std::cerr << "isvp " << argv[1] << ": " << error.what() << "\n";
        return 2;
    } catch (const std::exception& error) {
        std::cerr << "isvp " << argv[1] << ": error: " << error.what() << "\n";
        return 1;
    }
}
