// `isvp run -n N [options] PROG [ARGS]` (also `isvp mpiexec`, and
// bin/isvp-mpiexec): the simulator with N guest processes, one rank each,
// like mpirun. As with mpirun, the first word that is not an option of the
// launcher (or the word after `--`) is the program, and everything after it
// is the program's. Guest output is passed on unlabelled (-l/--prepend-rank:
// "[rank] ", --tag-output: "[1,rank]<stdout>:"); the exit status is the
// job's. As with mpirun, a rank that ends without finishing (MPI_Finalize) —
// an exit, a crash, MPI_Abort — ends the whole job; a program that is not an
// MPI program runs N times and the job ends when all have exited.
//
// MPI programs (sw/mpi): --offload on|off sets ISVP_MPI_OFFLOAD for the
// guests (off: every collective in software, the baseline);
// --compute-scale S is host.compute_scale (guest CPU time x S is charged
// as simulated time; 0 = communication only). The guests inherit the
// launcher's environment.
//
// Debugging (docs/DEBUGGING.md): --debug-rank R starts rank R as
// `DEBUGGER PROG ARGS` (--debugger, default "gdb --args") on the launcher's
// terminal; --print-pids names each rank's process (for gdb -p).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "job_platform.h"
#include "partitioning.h"

namespace po = boost::program_options;

namespace isvp::cli {

namespace {

/// mpirun's single-dash long options, spelt as Boost reads them.
std::string canonical(const std::string& word) {
    for (const char* name : {"np", "prepend-rank", "tag-output"})
        if (word == std::string("-") + name) return std::string("--") + name;
    return word;
}

/// Whether `program` names an executable file, directly (with a '/') or
/// in PATH, as execvp would find it.
bool executable(const std::string& program) {
    const auto runnable = [](const std::string& file) {
        struct stat info {};
        return ::stat(file.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(file.c_str(), X_OK) == 0;
    };
    if (program.find('/') != std::string::npos) return runnable(program);
    const char* path = std::getenv("PATH");
    std::istringstream directories(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string directory; std::getline(directories, directory, ':');)
        if (runnable((directory.empty() ? "." : directory) + "/" + program)) return true;
    return false;
}

/// Whether `command` ends inside a quote (as a shell reads it), which
/// split_unix would silently close.
bool unbalanced_quotes(const std::string& command) {
    char quote = 0;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (c == '\\' && quote != '\'') {
            ++i;  // the next character is taken as it is
        } else if (quote == 0 && (c == '"' || c == '\'')) {
            quote = c;
        } else if (c == quote) {
            quote = 0;
        }
    }
    return quote != 0;
}

/// Whether option word `word` (as canonical() spells it) takes the next word
/// as its value: a known option with a value, not given as --name=value or
/// -nVALUE.
bool takes_next_word(const std::string& word, const po::options_description& options) {
    if (word.size() > 2 && word[1] == '-') {
        if (word.find('=') != std::string::npos) return false;
        try {  // an unambiguous prefix names an option, as Boost reads it (--stat FILE)
            const po::option_description* option = options.find_nothrow(word.substr(2), true);
            return option != nullptr && option->semantic()->max_tokens() > 0;
        } catch (const po::error&) {
            return false;  // ambiguous: parse() says so
        }
    }
    if (word.size() != 2) return false;  // -n4: the value is attached
    for (const auto& option : options.options())
        if (option->canonical_display_name(po::command_line_style::allow_dash_for_short) == word)
            return option->semantic()->max_tokens() > 0;
    return false;
}

}  // namespace

int run_command(int argc, char** argv) {
    Parameters parameters;
    declare_job_parameters(parameters);
    declare_driver_parameters(parameters);
    po::options_description options("isvp run options");
    // One option per paragraph (clang-format would run the chained calls together).
    // clang-format off
    options.add_options()
        ("np,n", po::value<int>()->value_name("N"), "number of ranks (one per node; -np also accepted)")
        ("topology", po::value<std::string>()->value_name("T"),
         "torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or file:PATH (default: topology.*, "
         "torus 4x4x4); rank r runs on host r unless --map-by or --rankfile says otherwise")
        ("prepend-rank,l", "label each line of guest output with its rank: \"[rank] \" (MPICH's -l)")
        ("tag-output", "label each line of guest output \"[1,rank]<stdout>:\" or \"[1,rank]<stderr>:\" "
                       "(Open MPI's --tag-output)")
        ("stats", po::value<std::string>()->value_name("FILE"), "write platform statistics (JSON) after the job")
        ("offload", po::value<std::string>()->value_name("on|off"),
         "MPI collectives in the switches where they can run (on, the default) or always in software (off); "
         "sets ISVP_MPI_OFFLOAD for the guests")
        ("compute-scale", po::value<double>()->value_name("S"),
         "charge guest CPU time x S as simulated time (= --set host.compute_scale=S; 0: communication only)")
        ("timeout", po::value<double>()->value_name("S"),
         "end the job after S s of wall time (= --set job.timeout_s=S); exit status 124")
        ("progress", po::value<double>()->value_name("S"),
         "every S s of wall time (0.01 to 86400), \"[isvp] progress: ...\" on stderr: the simulated time and "
         "packet-hops so far (with --partitions: partition 0's simulated time)")
        ("debug-rank", po::value<int>()->value_name("R"),
         "start rank R under a debugger on this terminal (its stdin, stdout, stderr); simulated time waits for it "
         "while it is stopped")
        ("debugger", po::value<std::string>()->value_name("CMD"),
         "the debugger command for --debug-rank, the program and its arguments appended (default \"gdb --args\"; "
         "e.g. \"gdb -batch -ex run -ex bt --args\")")
        ("print-pids", "print each rank's process id when it connects (\"[isvp] rank R: pid P\", for gdb -p P)")
        ("partitions", po::value<std::string>()->value_name("P|auto"),
         "simulate the platform in P processes under the system's mpiexec (docs/PARTITIONS.md); each serves the "
         "guests of its own nodes; auto: one per CPU, at most one per 32 hosts");
    // clang-format on
    add_placement_options(options);
    add_platform_options(options);

    // The launcher's options come first; the first other word (or the word
    // after "--") is the program, and the rest is the program's, untouched.
    std::vector<std::string> args{argv[0]};
    std::vector<std::string> command;
    for (int i = 1; i < argc; ++i) {
        const std::string word = canonical(argv[i]);
        if (word == "--") {
            command.assign(argv + i + 1, argv + argc);
            break;
        }
        if (word.size() < 2 || word[0] != '-') {
            command.assign(argv + i, argv + argc);
            break;
        }
        args.push_back(word);
        if (takes_next_word(word, options) && i + 1 < argc) args.emplace_back(argv[++i]);
    }
    std::vector<char*> own_argv;
    for (auto& arg : args) own_argv.push_back(arg.data());
    po::variables_map values;
    if (!parse(static_cast<int>(own_argv.size()), own_argv.data(),
               "usage: isvp run -n N [--topology T] [-l | --tag-output] [--offload on|off] [--compute-scale S]\n"
               "                [--timeout S] [--progress S] [--debug-rank R [--debugger CMD]] [--print-pids]\n"
               "                [--partitions P|auto]\n"
               "                [--map-by host|switch | --rankfile FILE]\n"
               "                [--config FILE] [--set key=value]... [--stats FILE] [--] PROG [ARGS...]\n"
               "Starts the simulator and N guest processes (rank r on host r of the topology unless placed\n"
               "otherwise), like mpirun\n"
               "(isvp mpiexec and bin/isvp-mpiexec are the same command). Everything after PROG is PROG's.",
               options, values))
        return 0;
    apply_config_option(values, parameters);
    if (values.count("topology"))
        apply_topology_option(parameters, values["topology"].as<std::string>(), "run: --topology");
    if (!apply_platform_options(values, parameters)) return 0;
    if (values.count("compute-scale")) {
        std::ostringstream assignment;
        assignment.precision(17);
        assignment << "host.compute_scale=" << values["compute-scale"].as<double>();
        parameters.apply_override(assignment.str());
    }
    const std::chrono::nanoseconds progress_every =  // between progress lines; 0: none
        values.count("progress") ? heartbeat_period(values["progress"].as<double>(), "run: --progress", false)
                                 : std::chrono::nanoseconds{0};
    if (values.count("timeout")) {
        std::ostringstream assignment;
        assignment.precision(17);
        assignment << "job.timeout_s=" << values["timeout"].as<double>();
        parameters.apply_override(assignment.str());
    }
    if (values.count("offload")) {
        const std::string offload = values["offload"].as<std::string>();
        if (offload != "on" && offload != "off")
            throw ConfigError("run: --offload must be on or off, got '" + offload + "'");
        ::setenv("ISVP_MPI_OFFLOAD", offload == "on" ? "1" : "0", 1);
    }
    {
        // The driver's paths reach MPI guests (sw/mpi) as ISVP_MPI_DRIVER_*;
        // validated here, so a bad value is refused before any rank starts.
        const guest::DriverConfig driver = driver_config_from(parameters);
        ::setenv("ISVP_MPI_DRIVER_SEND_PATH", to_string(driver.send_path), 1);
        ::setenv("ISVP_MPI_DRIVER_PIO_MAX_BYTES", std::to_string(driver.pio_max_bytes).c_str(), 1);
        ::setenv("ISVP_MPI_DRIVER_COMPLETION", to_string(driver.completion), 1);
        std::ostringstream poll_us, poll_interval_ns;
        poll_us.precision(17);
        poll_interval_ns.precision(17);
        poll_us << driver.poll_us;
        poll_interval_ns << driver.poll_interval_ns;
        ::setenv("ISVP_MPI_DRIVER_POLL_US", poll_us.str().c_str(), 1);
        ::setenv("ISVP_MPI_DRIVER_POLL_INTERVAL_NS", poll_interval_ns.str().c_str(), 1);
    }
    if (!values.count("np")) throw ConfigError("run: -n N is required (the number of ranks)");
    if (values.count("stats")) check_writable("--stats", values["stats"].as<std::string>());
    if (parameters.flag("job.timing_only"))
        std::cerr << "isvp run: warning: job.timing_only is set: collectives in the switches carry no payload, so "
                     "the guests' offloaded collective results are not computed (for timing studies only)\n";
    if (command.empty()) throw ConfigError("run: no program given (isvp run -n N [options] PROG [ARGS...])");
    // As mpirun does, before the platform is built and N processes fail
    // to start (each saying "cannot run", the job ending with status 127).
    if (!executable(command.front()))
        throw ConfigError("run: '" + command.front() + "' is not an executable program" +
                          (command.front().find('/') == std::string::npos ? " in PATH" : "") +
                          " (the program every rank runs)");
    if (values.count("prepend-rank") && values.count("tag-output"))
        throw ConfigError("run: -l/--prepend-rank and --tag-output are two labels for the same lines: give one");

    transport::JobSpec spec;
    spec.ranks = values["np"].as<int>();
    if (spec.ranks < 1) throw ConfigError("run: -n must be at least 1, got " + std::to_string(spec.ranks));
    spec.command = command;
    if (values.count("prepend-rank")) spec.label = transport::OutputLabel::Rank;
    if (values.count("tag-output")) spec.label = transport::OutputLabel::Tag;
    if (values.count("debugger") && !values.count("debug-rank"))
        throw ConfigError("run: --debugger says how to start the rank given by --debug-rank R; no --debug-rank given");
    if (values.count("debug-rank")) {
        spec.debug_rank = values["debug-rank"].as<int>();
        if (spec.debug_rank < 0 || spec.debug_rank >= spec.ranks)
            throw ConfigError("run: --debug-rank " + std::to_string(spec.debug_rank) +
                              " is not a rank of this job (-n " + std::to_string(spec.ranks) + ": ranks 0.." +
                              std::to_string(spec.ranks - 1) + ")");
        if (spec.label != transport::OutputLabel::None)
            throw ConfigError(std::string("run: ") +
                              (values.count("tag-output") ? "--tag-output" : "-l/--prepend-rank") +
                              " with --debug-rank: the rank under the debugger writes straight to the terminal "
                              "(the debugger's prompts are not whole lines), so its output cannot be labelled; "
                              "give one of the two");
        const std::string debugger = values.count("debugger") ? values["debugger"].as<std::string>() : "gdb --args";
        if (unbalanced_quotes(debugger)) throw ConfigError("run: --debugger '" + debugger + "': a quote is not closed");
        spec.debugger = po::split_unix(debugger);
        if (spec.debugger.empty() || spec.debugger.front().empty())
            throw ConfigError("run: --debugger is empty (give the debugger's command, e.g. \"gdb --args\")");
        if (!executable(spec.debugger.front()))
            throw ConfigError("run: --debugger '" + debugger + "': '" + spec.debugger.front() +
                              "' is not an executable program" +
                              (spec.debugger.front().find('/') == std::string::npos ? " in PATH" : "") +
                              (spec.debugger.front() == "gdb" ? " (install it: apt-get install gdb)" : ""));
    }
    spec.print_pids = values.count("print-pids") > 0;
    spec.config = TransportConfig::from(parameters);
    spec.config.end_on_early_exit = true;
    PlatformConfig config = PlatformConfig::from(parameters);
    config.placement =
        placement_from_options(values, static_cast<unsigned>(spec.ranks), config.fabric.topology(), "run");
    // Said before anything is set up (a huge -n met the launcher's own limit
    // first); --map-by and --rankfile have said it their way above.
    if (const NetworkTopology topology = config.fabric.topology();
        static_cast<unsigned>(spec.ranks) > topology.hosts() - topology.engines())
        throw ConfigError("config: " + std::to_string(spec.ranks) + " ranks do not fit the " +
                          std::to_string(topology.hosts() - topology.engines()) + "-node " + topology.description() +
                          " (one rank per node)");
    spec.rank_nodes = config.placement.nodes;
    if (values.count("progress") && values.count("debug-rank"))
        throw ConfigError(
            "run: --progress with --debug-rank: the lines would stand still on the debugger's terminal "
            "while the rank is stopped; use one or the other");
    if (values.count("partitions") && values.count("debug-rank"))
        throw ConfigError(
            "run: --debug-rank with --partitions: the rank under the debugger needs the launcher's "
            "terminal, which mpiexec does not give a partition; debug with one partition");
    std::vector<std::string> arguments{"run"};
    for (int i = 1; i < argc; ++i) arguments.emplace_back(argv[i]);
    // Partitions: each process serves and starts the guests of its own nodes
    // (their output goes to isvp's supervisor, which prints it in whole
    // lines); the statistics are gathered to partition 0, which writes --stats.
    const PartitionsRequest request = read_partitions("run", values, config, static_cast<unsigned>(spec.ranks));
    Partitioning partitioning("run", arguments, request, config, spec);
    JobPlatform job(config);
    if (progress_every.count() > 0 && partitioning.printing()) {
        spec.heartbeat_period = progress_every;
        const auto started = std::chrono::steady_clock::now();
        spec.heartbeat = [&, started](std::uint64_t simulated_ps) {
            // A partition holds part of the network: its packet-hops would be a part too.
            std::optional<std::uint64_t> hops;
            if (!partitioning.active() && job.platform()) hops = job.platform()->packet_hops();
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::cerr << "[isvp] progress: " + heartbeat_figures(simulated_ps, hops, elapsed) + "\n" << std::flush;
        };
    }
    const transport::JobResult result =
        transport::run_remote_job(spec, partitioning.wrap(job.builder(), [&] { return job.platform(); }));

    int exit_status = result.exit_status;
    std::uint64_t end_time_ps = result.end_time_ps;
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& rank : result.ranks)
        ranks.push_back({{"status", rank.status},
                         {"finished", rank.finished},
                         {"finish_time_us", rank.finish_time_ps / 1e6},
                         {"mmio_reads", rank.reads},
                         {"mmio_writes", rank.writes},
                         {"interrupts", rank.interrupts}});
    if (partitioning.active()) {
        // The job's status: the largest of the partitions' (each says its own
        // ranks'); every partition exits with it. Each rank's outcome from
        // the partition that ran it.
        std::vector<std::uint64_t> maxima{static_cast<std::uint64_t>(exit_status), end_time_ps};
        partitioning.runtime().max(maxima);
        exit_status = static_cast<int>(maxima[0]);
        end_time_ps = maxima[1];
        const std::vector<std::string> parts = partitioning.runtime().gather(ranks.dump());
        if (partitioning.printing())
            for (std::size_t r = 0; r < ranks.size(); ++r)
                ranks[r] = nlohmann::json::parse(
                    parts.at(partitioning.plan().host_owner(config.placement.node_of(static_cast<unsigned>(r)))))[r];
    }
    if (values.count("stats") && job.platform()) {
        // Utilisations over the job's simulated time: the last rank's end
        // (a partition's kernel may have run on to its window's end).
        const nlohmann::json platform =
            partitioning.statistics(*job.platform(), sc_core::sc_time::from_value(end_time_ps));
        if (partitioning.printing()) {
            const std::string path = values["stats"].as<std::string>();
            std::ofstream out(path);
            if (!out) throw ConfigError("run: cannot write --stats " + path);
            out << nlohmann::json{{"parameters", parameters.to_json()},
                                  {"exit_status", exit_status},
                                  {"ranks", ranks},
                                  {"platform", platform}}
                       .dump(2)
                << "\n";
        }
    }
    return exit_status;
}

}  // namespace isvp::cli
