// isvp — the in-switch collectives virtual platform's command-line tool.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include <malloc.h>
#include <unistd.h>

#include "cli.h"
#include "cpu_budget.h"
#include "isvp/aglu_core.h"
#include "isvp/parameters.h"
#include "report_handler.h"

#include <systemc>

namespace isvp::cli {
int aglu_demo(int argc, char** argv);
int run_command(int argc, char** argv);
int bench_command(int argc, char** argv);
int topology_command(int argc, char** argv);
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
        {"mpiexec", {isvp::cli::run_command, "the same as run, by mpiexec's name (bin/isvp-mpiexec runs it)"}},
        {"bench", {isvp::cli::bench_command, "benchmarks in local mode: pingpong, collectives, fused, smi"}},
        {"topology", {isvp::cli::topology_command, "a network's switches, cables, routes and aggregation trees (nothing simulated)"}},
    };
    return table;
}

void usage(std::ostream& out) {
    out << "usage: isvp <command> [options]   (isvp <command> --help for its options)\n"
           "       isvp --version             (the commit it was built from)\n\ncommands:\n";
    std::size_t width = 0;  // the summaries in one column
    for (const auto& [name, command] : subcommands()) width = std::max(width, name.size());
    for (const auto& [name, command] : subcommands())
        out << "  " << name << std::string(width - name.size() + 4, ' ') << command.summary << "\n";
}

}  // namespace

// Large platforms spend their time on cache and TLB misses in model state
// spread over gigabytes (docs/PERFORMANCE.md). glibc's malloc backs its heap
// with transparent huge pages when asked (tunable glibc.malloc.hugetlb=1:
// 7-13 % less CPU for a 128-node 1 MiB Allreduce, identical results), but
// reads tunables only when a process starts: so the tool sets it and starts
// itself once more, then puts the user's GLIBC_TUNABLES back so guest
// programs inherit the environment they were given. A GLIBC_TUNABLES that
// already names the tunable, ISVP_MALLOC_HUGETLB=0, or running under
// valgrind (which would not follow the exec) leaves malloc as it is; if the
// exec fails the tool goes on without.
namespace {
constexpr const char* kReexecMarker = "ISVP_HUGETLB_REEXEC";       // set across the exec only
constexpr const char* kSavedTunables = "ISVP_SAVED_GLIBC_TUNABLES";  // the user's value, if there was one

void restore_tunables() {
    if (const char* saved = std::getenv(kSavedTunables))
        setenv("GLIBC_TUNABLES", saved, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(kSavedTunables);
    unsetenv(kReexecMarker);
}

void ask_for_huge_pages(char** argv) {
    if (std::getenv(kReexecMarker) != nullptr) {  // the second start: the tunable has been read
        restore_tunables();
        return;
    }
    const char* opt_out = std::getenv("ISVP_MALLOC_HUGETLB");
    if (opt_out != nullptr && std::strcmp(opt_out, "0") == 0) return;
    const char* preload = std::getenv("LD_PRELOAD");
    if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return;  // valgrind
    const char* current = std::getenv("GLIBC_TUNABLES");
    std::string tunables = current ? current : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;  // the user's own choice
    if (current != nullptr && setenv(kSavedTunables, current, 1) != 0) return;
    tunables += std::string(tunables.empty() ? "" : ":") + "glibc.malloc.hugetlb=1";
    if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) == 0 && setenv(kReexecMarker, "1", 1) == 0)
        execv("/proc/self/exe", argv);
    restore_tunables();  // the exec failed (or the environment could not be set)
}
}  // namespace

// SystemC prints its banner while it starts up, before sc_main; the CLI's
// output stays clean by setting the switch first (a user's own setting wins).
int main(int argc, char** argv) {
    ask_for_huge_pages(argv);
    // A simulation's heap grows to its peak and stays there; glibc gave the
    // top of it back whenever 128 KiB were free there and faulted it in again
    // (huge pages, zeroed) on the next growth: a tenth of a 1024-node flow
    // run's CPU went to that churn. Keep what was grown, grow in 64 MiB.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::cout << "isvp " << isvp::build_commit() << "\n";
        return 0;
    }
    const auto found = subcommands().find(argv[1]);
    if (found == subcommands().end()) {
        std::cerr << "isvp: unknown command '" << argv[1] << "'\n";
        usage(std::cerr);
        return 2;
    }
    // "isvp <command>: <message>", where a message that already starts with
    // the command's name ("bench pingpong: ...") keeps it only once.
    const auto report = [&](const char* kind, const std::string& text) {
        const std::string command = argv[1];
        // `isvp mpiexec` is `isvp run`: its messages name the command used.
        const std::string message =
            command == "mpiexec" && text.compare(0, 5, "run: ") == 0 ? "mpiexec: " + text.substr(5) : text;
        const bool named = message.compare(0, command.size(), command) == 0 && message.size() > command.size() &&
                           (message[command.size()] == ':' || message[command.size()] == ' ');
        std::string line = named ? message : command + ": " + message;
        line.insert(line.find(": ") + 2, kind);
        std::cerr << "isvp " << line << "\n";
    };
    // SystemC's reports go to stderr, a flood of one kind held back; the
    // counts of what was held back are printed however the command ends.
    isvp::cli::install_report_handler();
    int status = 0;
    try {
        status = found->second.run(argc - 1, argv + 1);
    } catch (const isvp::ConfigError& error) {
        report("", error.what());
        status = 2;
    } catch (const std::exception& error) {
        report("error: ", error.what());
        // Thousands of nodes can exhaust the kernel's memory mappings: say so.
        if (const std::string hint = isvp::cli::mapping_limit_hint(); !hint.empty()) report("", hint);
        status = 1;
    }
    isvp::cli::flush_report_summary();
    if (isvp::cli::ending_process_on_return()) {
        // The command's output is written and its platform left alive on
        // purpose (cli.h): end here, without SystemC's teardown.
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        std::_Exit(status);
    }
    return status;
}
