// Running a job: remote ranks as processes, local ranks as fibers or threads.
#include "isvp/job_launcher.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include "isvp/guest_environment.h"
#include "isvp/guest_processes.h"
#include "isvp/guest_scheduler.h"
#include "isvp/local_transport.h"
#include "isvp/orphan_watchdog.h"
#include "isvp/rank_fibers.h"
#include "isvp/shared_memory.h"

extern char** environ;

namespace isvp::transport {

namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

/// Zero-filled private memory for a local rank, committed only when touched.
class AnonymousMemory {
  public:
    explicit AnonymousMemory(std::size_t bytes) : bytes_(bytes) {
        void* address =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (address == MAP_FAILED)
            throw std::runtime_error("cannot reserve " + std::to_string(bytes) +
                                     " bytes of host memory: " + std::strerror(errno));
        data_ = static_cast<std::uint8_t*>(address);
    }
    ~AnonymousMemory() { ::munmap(data_, bytes_); }
    AnonymousMemory(const AnonymousMemory&) = delete;
    AnonymousMemory& operator=(const AnonymousMemory&) = delete;
    std::uint8_t* data() { return data_; }

  private:
    std::uint8_t* data_ = nullptr;  ///< mapping
    std::size_t bytes_;             ///< its size
};

/// The launcher's stop signals (SIGINT, SIGTERM, SIGHUP), taken over once
/// the platform is built and elaborated, before any guest starts (Asio queues a signal
/// until on_stop()); SIGPIPE (a closed stdout) is swallowed. Until then a
/// signal ends the launcher at once, as by default: a build of minutes can
/// be interrupted, and nothing is left behind (the host memory has no name,
/// the sockets do not exist yet). Default dispositions return on destruction.
class LauncherSignals {
  public:
    explicit LauncherSignals(asio::io_context& io) : stop_(io, SIGINT, SIGTERM, SIGHUP), pipe_(io, SIGPIPE) {
        swallow_pipe();
    }
    /// Calls `handler(signal)` on the event loop for every stop signal,
    /// including any that arrived before.
    void on_stop(std::function<void(int)> handler) {
        handler_ = std::move(handler);
        wait();
    }

  private:
    void wait() {
        stop_.async_wait([this](const boost::system::error_code& error, int number) {
            if (error) return;
            handler_(number);
            wait();
        });
    }
    void swallow_pipe() {
        pipe_.async_wait([this](const boost::system::error_code& error, int) {
            if (!error) swallow_pipe();
        });
    }

    asio::signal_set stop_;             ///< SIGINT, SIGTERM, SIGHUP
    asio::signal_set pipe_;             ///< SIGPIPE
    std::function<void(int)> handler_;  ///< what a stop signal does
};

std::string unique_token() {
    std::random_device device;
    const std::uint32_t value = device();
    char text[16];
    std::snprintf(text, sizeof text, "%08x", value);
    return text;
}

/// The launcher's environment without ISVP_* (the job sets its own), except
/// the MPI library's settings ISVP_MPI_* (`isvp run --offload` sets
/// ISVP_MPI_OFFLOAD for the guests).
std::vector<std::string> inherited_environment() {
    std::vector<std::string> result;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        if (std::strncmp(*entry, "ISVP_", 5) != 0 || std::strncmp(*entry, "ISVP_MPI_", 9) == 0)
            result.emplace_back(*entry);
    return result;
}

void check_spec(const JobSpec& spec, bool remote) {
    if (spec.ranks < 1 || spec.ranks > 65536)
        throw std::invalid_argument("a job needs 1..65536 ranks, got " + std::to_string(spec.ranks));
    if (remote && spec.command.empty())
        throw std::invalid_argument("no guest program given (isvp run -n N <program> [args...])");
    if (spec.debug_rank < -1 || spec.debug_rank >= spec.ranks)
        throw std::invalid_argument("debug rank " + std::to_string(spec.debug_rank) + " is not a rank of the job (0.." +
                                    std::to_string(spec.ranks - 1) + ")");
    if (!spec.rank_nodes.empty() && spec.rank_nodes.size() != static_cast<std::size_t>(spec.ranks))
        throw std::invalid_argument("a rank placement of " + std::to_string(spec.rank_nodes.size()) +
                                    " nodes for " + std::to_string(spec.ranks) + " ranks");
    if (spec.debug_rank >= 0 && spec.debugger.empty())
        throw std::invalid_argument("debug rank " + std::to_string(spec.debug_rank) + " without a debugger command");
    if (spec.debug_rank >= 0 && spec.label != OutputLabel::None)
        throw std::invalid_argument(
            "the rank under the debugger writes straight to the terminal: its output "
            "cannot be labelled");
    spec.config.validate();
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION || sc_core::sc_start_of_simulation_invoked())
        throw std::logic_error("SystemC has already run in this process; it runs one job per process");
}

std::string signal_name(int signal_number) {
    switch (signal_number) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
        default:
            return "signal " + std::to_string(signal_number);
    }
}

/// What followed the job's end `end` for a rank it ended (a launcher line
/// for many ranks: "[isvp] ranks 0-7 exited with status 1 after the job
/// was aborted").
std::string after(JobEnd end) {
    return end == JobEnd::Abort ? "after the job was aborted" : end == JobEnd::Deadlock ? "after the deadlock" : "";
}

/// Why a guest failed that failed only because of the job's end `end`.
std::string because(JobEnd end) {
    return end == JobEnd::Abort ? "because the job was aborted" : "because of the deadlock";
}

/// A platform failure (an exception out of GuestScheduler::run()) in
/// user terms. For a SystemC report (SC_REPORT_ERROR, or an exception a
/// process threw, which SystemC turns into one): its type and message, and
/// the process (model instance) and simulated time it came from; not the
/// C++ file and line of the report call, nor SystemC's multi-line layout.
struct PlatformFailure {
    std::string where;    ///< " in platform.reliable7.on_timer", or ""
    std::string when;     ///< " at 245547.479626 us", or ""
    std::string message;  ///< "isvp/reliable: link fault: ..."

    explicit PlatformFailure(const std::exception& error) {
        const auto* report = dynamic_cast<const sc_core::sc_report*>(&error);
        if (report == nullptr) {
            message = error.what();
            return;
        }
        const char* process = report->get_process_name();
        if (process != nullptr && *process != '\0') where = std::string(" in ") + process;
        when = " at " + format_time_ps(to_ps(report->get_time()));
        message = report->get_msg_type();
        if (*report->get_msg() != '\0') message += std::string(": ") + report->get_msg();
    }
};

/// The platform failed (`error`): says so once, in full, and ends the job
/// (with partitions, every partition: PartitionWindow::fail). The ranks,
/// and the per-rank summaries, are told "the platform failed (above)".
void platform_failed(const JobSpec& spec, GuestScheduler& scheduler, std::ostream& err, const std::exception& error) {
    const PlatformFailure failure(error);
    if (spec.partition) {
        err.flush();  // what was said before, first
        spec.partition->fail("the platform failed" + failure.where + failure.when + ": " + failure.message);
    }
    err << "[isvp] the platform failed" << failure.where << failure.when << ": " << failure.message << "\n";
    scheduler.end_all(ErrorCode::Aborted, "the platform failed" + failure.where + ": " + failure.message,
                      "the platform failed (above)");
}

/// Per-rank outcome and the job's exit status, from the scheduler's view and
/// the ranks' statuses (`statuses[r]`), failures taken in `order`; `limit`:
/// a job.* limit ended the job; `ended[r]`: the launcher itself ended rank r
/// (its status then says nothing about the job: mpirun's victims); `remote`:
/// ranks are processes, which may be plain programs.
JobResult summarize(const GuestScheduler& scheduler, const std::vector<int>& statuses, std::vector<int> order,
                    int signal_number, bool limit, const std::vector<bool>& ended, bool remote) {
    JobResult result;
    result.error = scheduler.error();
    result.end_time_ps = scheduler.end_time_ps();
    const std::vector<GuestGateway*> gateways = scheduler.gateways();
    // A job in which no rank ever connected ran plain programs: each rank is
    // done when its process exited, as under mpirun.
    const bool plain = remote && !scheduler.any_attached();
    bool all_finished = true;
    for (int rank = 0; rank < scheduler.ranks(); ++rank) {
        RankOutcome outcome;
        outcome.status = statuses[static_cast<std::size_t>(rank)];
        if (!scheduler.local(rank)) {  // another partition reports it
            outcome.status = 0;
            outcome.finished = true;
            result.ranks.push_back(outcome);
            continue;
        }
        outcome.finished = scheduler.core().state(rank) == RankState::Finished;
        outcome.finish_time_ps = outcome.finished ? scheduler.core().finish_time(rank) : 0;
        outcome.ended = outcome.finished ? "" : scheduler.core().reason(rank);
        outcome.reads = gateways[static_cast<std::size_t>(rank)]->reads();
        outcome.writes = gateways[static_cast<std::size_t>(rank)]->writes();
        outcome.interrupts = gateways[static_cast<std::size_t>(rank)]->interrupts();
        all_finished = all_finished && (outcome.finished || plain);
        result.ranks.push_back(outcome);
    }
    if (signal_number != 0) {
        result.exit_status = 128 + signal_number;
        return result;
    }
    if (limit) {
        result.exit_status = kLimitExitStatus;
        return result;
    }
    for (int rank = 0; rank < scheduler.ranks(); ++rank)
        if (std::find(order.begin(), order.end(), rank) == order.end()) order.push_back(rank);
    for (int rank : order) {
        const int status = statuses[static_cast<std::size_t>(rank)];
        if (status != 0 && !ended[static_cast<std::size_t>(rank)]) {
            result.exit_status = status < 0 ? 1 : status;
            return result;
        }
    }
    if (!result.error.empty() || !all_finished) result.exit_status = 1;
    return result;
}

}  // namespace

std::string describe_rank_ends(const JobResult& result, const std::string& indent) {
    std::vector<std::pair<std::string, std::vector<int>>> reasons;  // in the order of their first rank
    std::map<std::string, std::size_t> index;
    for (std::size_t rank = 0; rank < result.ranks.size(); ++rank) {
        const std::string& ended = result.ranks[rank].ended;
        if (ended.empty()) continue;
        const auto [at, added] = index.emplace(ended, reasons.size());
        if (added) reasons.push_back({ended, {}});
        reasons[at->second].second.push_back(static_cast<int>(rank));
    }
    std::string text;
    for (const auto& [reason, ranks] : reasons) text += indent + list_rank_ranges(ranks) + ": " + reason + "\n";
    return text;
}

JobResult run_remote_job(const JobSpec& spec, const PlatformBuilder& build) {
    check_spec(spec, true);
    std::ostream& out = spec.out != nullptr ? *spec.out : std::cout;
    std::ostream& err = spec.err != nullptr ? *spec.err : std::cerr;
    const auto grace = std::chrono::milliseconds(static_cast<std::int64_t>(spec.config.kill_grace_ms));

    // Resources are declared in the order they must be released backwards:
    // processes die first, then links and sockets, then memory.
    asio::io_context io;
    // Killed outright, the launcher cleans up nothing: its guests die with
    // it (PR_SET_PDEATHSIG), the watchdog ends what they forked.
    OrphanWatchdog watchdog(static_cast<std::size_t>(spec.ranks));
    const std::string token = unique_token();
    // Host memory: one sealed memfd per rank, handed to that rank's guest
    // only; it cannot be resized (no SIGBUS from a truncating guest) and has
    // no name to leave behind.
    // One partition of a distributed simulation (docs/PARTITIONS.md) serves
    // and starts the guests of its own nodes only: no memory, socket or
    // process here for another partition's ranks.
    const auto local = [&](int rank) {
        return spec.partition == nullptr || spec.local_ranks.at(static_cast<std::size_t>(rank));
    };
    std::vector<std::optional<SealedMemory>> segments(static_cast<std::size_t>(spec.ranks));
    std::vector<HostMemorySpan> spans;
    for (int rank = 0; rank < spec.ranks; ++rank) {
        if (!local(rank)) continue;
        const std::string label = "isvp-" + std::to_string(::getpid()) + "-" + token + "-r" + std::to_string(rank);
        segments[static_cast<std::size_t>(rank)] = SealedMemory::create(label, spec.config.memory_bytes);
    }
    for (int rank = 0; rank < spec.ranks; ++rank) {
        auto& segment = segments[static_cast<std::size_t>(rank)];
        spans.push_back(segment ? HostMemorySpan{rank, segment->data(), segment->bytes()}
                                : HostMemorySpan{rank, nullptr, 0});
    }

    std::unique_ptr<GuestScheduler> scheduler_owner =
        spec.partition
            ? std::make_unique<GuestScheduler>(io, spec.ranks, spec.config, err, *spec.partition, spec.local_ranks)
            : std::make_unique<GuestScheduler>(io, spec.ranks, spec.config, err);
    GuestScheduler& scheduler = *scheduler_owner;
    scheduler.on_heartbeat(spec.heartbeat_period, spec.heartbeat);
    build(spans, scheduler.gateways());
    scheduler.elaborate();
    LauncherSignals signals(io);
    // Sockets in the abstract namespace: no file, so nothing to leave
    // behind whatever ends the launcher. Anyone may connect to such a name;
    // GuestLinks lets only the rank's own process in (expect_peer below).
    const auto socket_name = [&](int rank) {
        return "@isvp-" + std::to_string(::getpid()) + "-" + token + "-r" + std::to_string(rank);
    };
    for (int rank = 0; rank < spec.ranks; ++rank)
        if (local(rank)) scheduler.links().listen(rank, socket_name(rank));

    std::vector<int> exit_order;
    std::vector<bool> ended_by_launcher(static_cast<std::size_t>(spec.ranks), false);
    // Ranks that the job's own end (an abort, a deadlock) ended, by how
    // their process exited: one line for each at the end, not one per rank
    // (the job's end said why).
    std::vector<std::pair<std::string, std::vector<int>>> exits_after_job_end;
    GuestProcesses processes(io, out, err, [&](int rank, int status, const std::string& description) {
        if (status != 0) {
            const std::string how =
                description + (ended_by_launcher[static_cast<std::size_t>(rank)] ? " (ended by the launcher)" : "");
            if (const JobEnd end = scheduler.ended_by_job(rank); end != JobEnd::None) {
                const std::string what = how + " " + after(end);
                auto same = std::find_if(exits_after_job_end.begin(), exits_after_job_end.end(),
                                         [&what](const auto& exits) { return exits.first == what; });
                if (same == exits_after_job_end.end()) same = exits_after_job_end.insert(same, {what, {}});
                same->second.push_back(rank);
            } else {
                err << "[isvp] rank " << rank << " " << how << "\n";
                err.flush();
            }
            exit_order.push_back(rank);
        }
        scheduler.process_exited(rank, status, description);
    });
    processes.label_output(spec.label);
    if (spec.print_pids)
        scheduler.on_attach([&](int rank, std::uint64_t pid) {
            err << "[isvp] rank " << rank << ": pid " << pid << "\n";
            err.flush();
        });
    if (spec.debug_rank >= 0) {
        // A rank stopped in the debugger holds simulated time for every rank
        // (conservative synchronisation): that is the point, not a stall.
        scheduler.exempt_from_stall_notices(spec.debug_rank);
        err << "[isvp] rank " << spec.debug_rank << " runs under " << spec.debugger.front()
            << "; simulated time waits for it while it is stopped";
        if (spec.config.timeout_s > 0)
            err << " (job.timeout_s = " << spec.config.timeout_s
                << " s still ends the job, also while it is stopped: job.timeout_s=0 for none)";
        err << "\n";
        err.flush();
    }
    // The launcher ends ranks (SIGTERM, SIGKILL after `grace`) that are still
    // running when the job ended; their statuses are not the job's.
    const auto end_ranks = [&](const std::vector<int>& ranks, std::chrono::milliseconds after) {
        for (int rank : ranks) {
            if (processes.pid(rank) < 0) continue;  // not started (set-up failed)
            if (processes.running(rank)) ended_by_launcher[static_cast<std::size_t>(rank)] = true;
            processes.terminate(rank, after);
        }
    };
    std::vector<int> every_rank;
    for (int rank = 0; rank < spec.ranks; ++rank)
        if (local(rank)) every_rank.push_back(rank);

    int signal_number = 0;
    signals.on_stop([&](int number) {
        if (signal_number == 0) {
            signal_number = number;
            err << "[isvp] " << signal_name(number) << ": ending the job\n";
            err.flush();
            scheduler.abort("the launcher received " + signal_name(number));
            end_ranks(every_rank, grace);
        } else {
            end_ranks(every_rank, std::chrono::milliseconds(0));  // a second signal: no more grace
        }
    });

    const std::vector<std::string> inherited = inherited_environment();
    for (int rank = 0; rank < spec.ranks; ++rank) {
        if (!local(rank)) continue;
        guest::GuestEnvironment environment;
        environment.socket_path = socket_name(rank);
        environment.shm_fd = kGuestMemoryFd;
        environment.shm_bytes = spec.config.memory_bytes;
        environment.rank = rank;
        environment.size = spec.ranks;
        environment.compute_scale = spec.config.compute_scale;
        environment.mmio_write_ns = spec.config.mmio_write_ns;
        environment.spin_wait_us = spec.config.spin_wait_us;
        environment.rank_nodes = spec.rank_nodes;
        std::vector<std::string> variables = inherited;
        for (const auto& [name, value] : environment.variables()) variables.push_back(name + "=" + value);
        const bool debugged = rank == spec.debug_rank;
        std::vector<std::string> command = debugged ? spec.debugger : std::vector<std::string>{};
        command.insert(command.end(), spec.command.begin(), spec.command.end());
        processes.start(rank, command, variables, segments[static_cast<std::size_t>(rank)]->fd(), debugged);
        watchdog.watch(processes.pid(rank));
        scheduler.links().expect_peer(rank, processes.pid(rank));
    }

    try {
        scheduler.run();
    } catch (const std::exception& error) {
        platform_failed(spec, scheduler, err, error);
    }

    // Wind down. After a clean end the guests exit by themselves; after an
    // error they were told and get job.kill_grace_ms to exit before SIGTERM —
    // except ranks that were computing outside the platform when the job was
    // aborted: they would learn of it only at their next call, so they get
    // SIGTERM at once (SIGKILL after job.kill_grace_ms), as mpirun does.
    const bool clean = scheduler.error().empty() && signal_number == 0;
    bool terminating = signal_number != 0;
    if (!terminating) {
        std::vector<int> computing;
        for (int rank : scheduler.computing_at_abort())
            if (processes.running(rank)) computing.push_back(rank);
        if (!computing.empty()) {
            err << "[isvp] ending " << list_ranks(computing)
                << ", not in a call to the platform when the job ended: SIGTERM, SIGKILL after job.kill_grace_ms\n";
            err.flush();
            end_ranks(computing, grace);
        }
    }
    const Clock::time_point ended = Clock::now();
    const Clock::time_point deadline = ended + grace;
    // job.timeout_s also bounds the wait for guests that do not exit after
    // the job ended; job.stall_notice_s says what the launcher waits for.
    const auto wall = [](double seconds) {
        return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    };
    const Clock::time_point timeout_at =
        spec.config.timeout_s > 0 ? scheduler.started() + wall(spec.config.timeout_s) : Clock::time_point::max();
    Clock::time_point next_notice =
        spec.config.stall_notice_s > 0 ? ended + wall(spec.config.stall_notice_s) : Clock::time_point::max();
    bool timed_out = false;
    while (!processes.all_exited()) {
        const Clock::time_point now = Clock::now();
        if (!clean && !terminating && now >= deadline) {
            end_ranks(every_rank, grace);
            terminating = true;
        }
        if (clean && !terminating && now >= timeout_at) {
            err << "[isvp] wall-clock limit job.timeout_s = " << spec.config.timeout_s
                << " s reached while waiting for the guests to exit: SIGTERM, SIGKILL after job.kill_grace_ms\n";
            err.flush();
            end_ranks(every_rank, grace);
            terminating = true;
            timed_out = true;
        }
        if (clean && !terminating && now >= next_notice) {
            std::vector<int> waiting;
            // Not for the rank under the debugger: its debugger may stay at
            // its prompt after the program finished, until the user quits.
            for (int rank = 0; rank < spec.ranks; ++rank)
                if (processes.running(rank) && rank != spec.debug_rank) waiting.push_back(rank);
            if (!waiting.empty()) {
                err << "[isvp] waiting for " << list_ranks(waiting) << " to exit: the job ended "
                    << static_cast<long long>(std::chrono::duration<double>(now - ended).count()) << " s ago (wall)\n";
                err.flush();
            }
            next_notice = now + wall(spec.config.stall_notice_s);
        }
        io.run_one_for(std::chrono::milliseconds(50));
    }
    // Processes a guest forked stay in its process group: they end with the job.
    const std::vector<int> lingering = processes.lingering();
    if (!lingering.empty()) {
        err << "[isvp] " << list_ranks(lingering)
            << " left processes behind (in the guest's process group): SIGTERM, SIGKILL after job.kill_grace_ms\n";
        err.flush();
        for (int rank : lingering) processes.terminate(rank, grace);
        const Clock::time_point until = Clock::now() + grace + std::chrono::milliseconds(200);
        while (!processes.lingering().empty() && Clock::now() < until) io.run_one_for(std::chrono::milliseconds(20));
    }
    // The guests' last output (stdio flushes at exit) is still in their
    // pipes. Read until every pipe is closed; give up only after a second in
    // which nothing was ready (a process outside the guest's group holding
    // the pipe). Idle, not elapsed: a launcher descheduled for a second on a
    // loaded machine must still read what is waiting. (At most 10 s in all,
    // should some other handler keep the loop busy.)
    Clock::time_point last_output = Clock::now();
    const Clock::time_point drain_limit = last_output + std::chrono::seconds(10);
    while (!processes.output_closed()) {
        if (io.run_one_for(std::chrono::milliseconds(20)) > 0)
            last_output = Clock::now();
        else if (Clock::now() - last_output >= std::chrono::seconds(1))
            break;
        if (Clock::now() >= drain_limit) break;
    }

    for (const auto& [what, ranks] : exits_after_job_end)
        err << "[isvp] " << list_rank_ranges(ranks) << " " << what << "\n";
    err.flush();
    std::vector<int> statuses;
    for (int rank = 0; rank < spec.ranks; ++rank) statuses.push_back(local(rank) ? processes.status(rank) : 0);
    std::vector<int> order = scheduler.failure_order();
    for (int rank : exit_order)
        if (std::find(order.begin(), order.end(), rank) == order.end()) order.push_back(rank);
    return summarize(scheduler, statuses, order, signal_number, scheduler.limit_reached() || timed_out,
                     ended_by_launcher, true);
}

JobResult run_local_job(const JobSpec& spec, const PlatformBuilder& build, const GuestMain& guest_main) {
    check_spec(spec, false);
    std::ostream& err = spec.err != nullptr ? *spec.err : std::cerr;

    auto io_owner = std::make_unique<asio::io_context>();
    asio::io_context& io = *io_owner;
    std::vector<std::unique_ptr<AnonymousMemory>> memory;
    std::vector<HostMemorySpan> spans;
    const auto local = [&](int rank) {
        return spec.partition == nullptr || spec.local_ranks.at(static_cast<std::size_t>(rank));
    };
    for (int rank = 0; rank < spec.ranks; ++rank) {
        if (!local(rank)) {  // another partition's: no memory here
            spans.push_back({rank, nullptr, 0});
            continue;
        }
        memory.push_back(std::make_unique<AnonymousMemory>(spec.config.memory_bytes));
        spans.push_back({rank, memory.back()->data(), spec.config.memory_bytes});
    }

    std::unique_ptr<GuestScheduler> scheduler_owner =
        spec.partition
            ? std::make_unique<GuestScheduler>(io, spec.ranks, spec.config, err, *spec.partition, spec.local_ranks)
            : std::make_unique<GuestScheduler>(io, spec.ranks, spec.config, err);
    GuestScheduler& scheduler = *scheduler_owner;
    scheduler.on_heartbeat(spec.heartbeat_period, spec.heartbeat);
    build(spans, scheduler.gateways());
    scheduler.elaborate();
    LauncherSignals signals(io);
    std::vector<std::shared_ptr<guest::LocalChannel>> channels;
    for (int rank = 0; rank < spec.ranks; ++rank)
        channels.push_back(local(rank) ? scheduler.links().attach_local(rank) : nullptr);

    int signal_number = 0;
    signals.on_stop([&](int number) {
        if (signal_number != 0) return;
        signal_number = number;
        err << "[isvp] " << signal_name(number) << ": ending the job\n";
        err.flush();
        scheduler.abort("the launcher received " + signal_name(number));
    });

    std::vector<int> statuses(static_cast<std::size_t>(spec.ranks), -1);
    // Ranks whose guest failed only because of the job's end (an abort, a
    // deadlock), by that end: a line for each, at the end.
    std::map<JobEnd, std::vector<int>> failed_by_job_end;
    // One rank's program, on its thread or in its fiber.
    const auto run_rank = [&](int rank) {
        int code = 1;
        // Outlives the try block: its destructor leaves the channel, and a
        // failed program leaves it below, with its error.
        std::optional<guest::LocalTransport> transport;
        std::string failure;
        try {
            transport.emplace(channels[static_cast<std::size_t>(rank)], rank, spec.ranks,
                              spans[static_cast<std::size_t>(rank)].data, spans[static_cast<std::size_t>(rank)].bytes,
                              spec.config);
            transport->set_rank_nodes(spec.rank_nodes);
            code = guest_main(*transport);
            if (!transport->finished() && transport->failure().empty()) transport->finish(code);
        } catch (const std::exception& error) {
            failure = error.what();
        } catch (...) {
            failure = "it threw something that is not a std::exception";
        }
        if (!failure.empty()) {
            code = 1;
            // Printed on the scheduler's thread: `err` is not shared between
            // threads. A guest that failed because the job was aborted (its
            // call was refused) adds nothing to the abort's own line: such
            // ranks get one line together at the end.
            asio::post(io, [&err, &scheduler, &failed_by_job_end, rank, text = failure] {
                if (const JobEnd end = scheduler.told_job_end(text); end != JobEnd::None) {
                    failed_by_job_end[end].push_back(rank);
                    return;
                }
                err << "[" << rank << "] isvp: the guest failed: " << text << "\n";
                err.flush();
            });
        }
        channels[static_cast<std::size_t>(rank)]->leave(failure);
        statuses[static_cast<std::size_t>(rank)] = code;
    };

    const bool as_fibers = spec.config.local_ranks == LocalRanks::Fibers;
    std::vector<std::thread> threads;
    std::unique_ptr<RankFibers> fibers;
    if (as_fibers) {
        fibers = std::make_unique<RankFibers>(spec.config.fiber_stack_bytes());
        scheduler.run_guests_with([&fibers] { return fibers->run_ready(); });
        // A fiber that computes holds the scheduler's thread: the notices
        // come from the fibers' watcher instead of the scheduler's timer.
        fibers->watch_stalls(scheduler.stall_notice_period(), [&scheduler](int rank, std::chrono::nanoseconds quiet) {
            scheduler.notice_computing_fiber(rank, quiet);
        });
    }
    // The channels call into the fibers until they are gone (also when this
    // function is left by an exception: the links close the channels later).
    struct DetachFibers {
        std::vector<std::shared_ptr<guest::LocalChannel>>& channels;
        ~DetachFibers() {
            for (const auto& channel : channels)
                if (channel) channel->make_cooperative({}, {});
        }
    } detach_fibers{channels};
    for (int rank = 0; rank < spec.ranks; ++rank) {
        if (!local(rank)) {
            statuses[static_cast<std::size_t>(rank)] = 0;
            continue;
        }
        if (as_fibers) {
            RankFibers& pool = *fibers;
            channels[static_cast<std::size_t>(rank)]->make_cooperative([&pool] { pool.suspend(); },
                                                                       [&pool, rank] { pool.wake(rank); });
            pool.spawn(rank, [&run_rank, rank] { run_rank(rank); });
        } else {
            threads.emplace_back([&run_rank, rank] { run_rank(rank); });
        }
    }

    try {
        scheduler.run();
    } catch (const std::exception& error) {
        platform_failed(spec, scheduler, err, error);
    }
    for (std::thread& thread : threads) thread.join();
    if (fibers) {
        // Every rank has finished or been ended (its channel closed): the
        // fibers still suspended learn it and run to their end, as the
        // threads were joined. A fiber still waiting on an open channel
        // would be a scheduler bug; it is told the simulator is done.
        while (fibers->run_ready() > 0) {
        }
        if (fibers->unfinished() > 0) {
            for (const auto& channel : channels)
                if (channel) channel->close("isvp transport: the simulator has shut down");
            while (fibers->run_ready() > 0) {
            }
        }
    }
    scheduler.links().take_local();  // what the ranks queued at the very end
    io.poll();
    for (const auto& [end, ranks] : failed_by_job_end)
        err << "[isvp] " << list_rank_ranges(ranks) << ": the guest failed " << because(end) << "\n";
    err.flush();
    JobResult result =
        summarize(scheduler, statuses, scheduler.failure_order(), signal_number, scheduler.limit_reached(),
                  std::vector<bool>(static_cast<std::size_t>(spec.ranks), false), false);
    if (spec.keep_for_exit) {
        // Left for the process's end (JobSpec::keep_for_exit): destroying the
        // gateways is SystemC's O(ports) registry search per port.
        (void)scheduler_owner.release();
        (void)io_owner.release();
        for (auto& span : memory) (void)span.release();
    }
    return result;
}

}  // namespace isvp::transport
