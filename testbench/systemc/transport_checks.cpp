// The transport's behaviour, checked end to end by running jobs:
//
//   transport_checks CHECK JOB_TB GUEST
//
// JOB_TB is transport_job_tb (one SystemC job per process: SystemC cannot
// restart), GUEST is transport_guest. Each CHECK runs one or more jobs,
// remote and local, and compares their outputs:
//   timing       exact simulated times of writes, reads, waits (both modes,
//                two values of host.mmio_write_ns); a guest outside a job
//   determinism  a 4-rank job, 3 x remote + 3 x local + a different event
//                slice: identical per-rank time traces and device logs
//   ordering     two ranks race to one register, one of them slow in wall
//                time: writes are applied in simulated-time order
//   interrupts   blocked ranks woken by other ranks at exact times
//   deadlock     every rank waits for nothing: each is told, no hang; also
//                with events still pending, and with job.deadlock_horizon_us
//   hostile      a rank speaking garbage / wrong magic / version / type /
//                length / rank / time (backwards, out of range) / offsets,
//                or a truncated message: refused, the simulator
//                survives, the other rank finishes or is told
//   crash        a guest abort()s mid-job: reported, others ended, status 134
//   sigint       SIGINT to the launcher of a running job: status 130, every
//                process and resource gone (incl. a guest ignoring SIGTERM)
//   stall        a rank computing without calls: a stall notice on the log
//                (remote, local ranks as fibers and as threads)
//                (job.stall_notice_s), none with 0; the job still ends well
//   limits       job.timeout_s ends a job held by a computing rank;
//                job.max_simulated_us ends a poller and a job whose ranks
//                all wait (status 124, exact and identical remote/local)
//   abort        a rank exiting 5 without finishing (MPI_Abort) ends the
//                job at once although another rank computes for 30 s
//   fork         processes the guests fork end with the job (clean end and
//                a rank leaving while its child holds its connection)
//   fibers       local ranks as fibers (job.ranks=fibers, the default) and
//                as threads give identical traces and device logs; a rank
//                throwing is printed and counted (status 1) in both, while
//                another blocks inside a catch block; a bad job.ranks is
//                refused
//   bench        wall-time cost of a round trip and a posted write: remote,
//                local ranks as fibers, local ranks as threads
// After every job: no /dev/shm segment and no socket directory of that
// launcher are left, and no process it started is still alive (this
// program is a child subreaper, so orphans would become its children).
// Prints one line per check and "N passed, M failed"; exits 1 on failure.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
    int status = -1;         ///< exit code or 128 + signal
    std::string output;      ///< stdout and stderr
    double seconds = 0;      ///< wall time
    pid_t pid = -1;          ///< the launcher's pid
    bool timed_out = false;  ///< killed after the timeout
    /// "isvp-" entries of /dev/shm and /tmp that existed before the launch:
    /// another process's (a launcher killed outright whose pid was reused,
    /// or an older build's), not this job's.
    std::set<std::string> existing;
};

/// Entries of `directory` whose names start with `prefix`.
std::vector<std::string> entries(const std::string& directory, const std::string& prefix) {
    std::vector<std::string> result;
    if (DIR* dir = ::opendir(directory.c_str())) {
        while (dirent* entry = ::readdir(dir))
            if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0) result.push_back(entry->d_name);
        ::closedir(dir);
    }
    return result;
}


/// Runs `argv`, collecting its output; `watch` sees the output so far.
Run run(const std::vector<std::string>& argv, double timeout_seconds,
        const std::function<void(pid_t, const std::string&)>& watch = {}) {
    Run result;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        std::perror("pipe");
        std::exit(1);
    }
    std::vector<char*> arguments;
    for (const std::string& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
    arguments.push_back(nullptr);
    for (const char* directory : {"/dev/shm", "/tmp"})
        for (const std::string& name : entries(directory, "isvp-")) result.existing.insert(std::string(directory) + "/" + name);
    const auto start = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        ::dup2(pipe_fds[1], STDERR_FILENO);
        ::execv(arguments[0], arguments.data());
        std::perror("execv");
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    result.pid = pid;
    for (;;) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed > timeout_seconds && !result.timed_out) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
        }
        pollfd poller{pipe_fds[0], POLLIN, 0};
        if (::poll(&poller, 1, 100) <= 0) continue;
        char buffer[4096];
        const ssize_t bytes = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (bytes <= 0) break;
        result.output.append(buffer, static_cast<std::size_t>(bytes));
        if (watch) watch(pid, result.output);
    }
    ::close(pipe_fds[0]);
    int wait_status = 0;
    ::waitpid(pid, &wait_status, 0);
    result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

std::vector<std::string> lines_matching(const std::string& output, const std::regex& pattern) {
    std::vector<std::string> result;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (std::regex_search(line, pattern)) result.push_back(line);
    return result;
}

/// "[r] trace ..." lines by rank, in order (the per-rank time traces).
std::map<int, std::vector<std::string>> traces(const std::string& output) {
    std::map<int, std::vector<std::string>> result;
    static const std::regex pattern(R"(^\[(\d+)\] (trace .*)$)");
    std::istringstream lines(output);
    std::smatch match;
    for (std::string line; std::getline(lines, line);)
        if (std::regex_match(line, match, pattern)) result[std::stoi(match[1])].push_back(match[2]);
    return result;
}

std::vector<std::string> device_log(const std::string& output) {
    return lines_matching(output, std::regex(R"(^\[tb\] device )"));
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t found = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++found;
    return found;
}

/// Processes whose parent is this program (orphans of a launcher land
/// here), with `zombies` those that have already ended.
std::vector<pid_t> children(std::vector<pid_t>* zombies = nullptr) {
    std::vector<pid_t> result;
    const pid_t self = ::getpid();
    for (const std::string& name : entries("/proc", "")) {
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat("/proc/" + name + "/stat");
        std::string line;
        std::getline(stat, line);
        const std::size_t close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(line.substr(close + 2));
        char state = 0;
        pid_t parent = 0;
        fields >> state >> parent;
        if (parent != self) continue;
        if (state == 'Z' && zombies != nullptr)
            zombies->push_back(static_cast<pid_t>(std::stoi(name)));
        else
            result.push_back(static_cast<pid_t>(std::stoi(name)));
    }
    return result;
}

void show_on_failure(bool ok, const Run& result) {
    if (!ok) std::cout << "----- output -----\n" << result.output << "------------------" << std::endl;
}

/// The checks, counting passes and failures.
class Checks {
  public:
    Checks(std::string job_tb, std::string guest) : job_tb_(std::move(job_tb)), guest_(std::move(guest)) {}

    int passed() const { return passed_; }
    int failed() const { return failed_; }

    void check_timing() {
        for (const std::string write_ns : {"50", "123.457"}) {
            const std::string set = "host.mmio_write_ns=" + write_ns;
            const Run remote = job("remote", 1, "timing", {set});
            const Run local = job("local", 1, "timing", {set});
            for (const Run* result : {&remote, &local}) {
                const std::string mode = result == &remote ? "remote" : "local";
                expect_status(*result, 0, "timing " + mode + " (" + set + ")");
                const std::size_t oks = count(result->output, "trace ok");
                expect(oks >= 25 && count(result->output, "trace FAIL") == 0,
                       "timing " + mode + ": " + std::to_string(oks) + " exact-time checks passed in the guest");
                expect_clean(*result, "timing " + mode);
            }
            expect(traces(remote.output) == traces(local.output) && !traces(remote.output).empty(),
                   "timing: remote and local traces are identical (" + set + ")");
        }
        const Run outside = run({guest_, "timing"}, 10);
        expect(outside.status == 2 && contains(outside.output, "ISVP_SOCKET is not set") &&
                   contains(outside.output, "isvp run"),
               "a guest started outside a job says how to start it");
    }

    void check_determinism() {
        std::vector<Run> runs;
        for (int i = 0; i < 3; ++i) runs.push_back(job("remote", 4, "multi"));
        for (int i = 0; i < 3; ++i) runs.push_back(job("local", 4, "multi"));
        runs.push_back(job("remote", 4, "multi", {"job.event_slice_ns=7"}));
        runs.push_back(job("local", 4, "multi", {"job.event_slice_ns=1000000"}));
        const auto reference = traces(runs[0].output);
        std::size_t lines = 0;
        for (const auto& entry : reference) lines += entry.second.size();
        expect(reference.size() == 4 && lines == 4 * (24 * 2 + 6),
               "determinism: 4 ranks traced, " + std::to_string(lines) + " trace lines");
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const std::string name =
                "determinism run " + std::to_string(i) + (i < 3 || i == 6 ? " (remote)" : " (local)");
            expect_status(runs[i], 0, name);
            const bool same =
                traces(runs[i].output) == reference && device_log(runs[i].output) == device_log(runs[0].output);
            expect(same, name + ": per-rank time traces and device log identical to run 0");
            show_on_failure(same, runs[i]);
            expect_clean(runs[i], name);
        }
    }

    void check_ordering() {
        const Run slow0 = job("remote", 2, "race-slow0");
        const Run slow1 = job("remote", 2, "race-slow1");
        const Run local = job("local", 2, "race-slow0");
        const std::vector<std::string> expected_log = {"[tb] device SHARED write t=100000 rank=0 value=0xa0",
                                                       "[tb] device SHARED write t=200000 rank=1 value=0xb1",
                                                       "[tb] device SHARED read t=1000000 rank=0 value=0xb1",
                                                       "[tb] device SHARED read t=1000000 rank=1 value=0xb1"};
        for (const Run* result : {&slow0, &slow1, &local}) {
            const std::string name = result == &slow0   ? "ordering, rank 0 slow"
                                     : result == &slow1 ? "ordering, rank 1 slow"
                                                        : "ordering, local";
            expect_status(*result, 0, name + " (both ranks read the later write)");
            expect(result->seconds >= 0.3,
                   name + ": the slow rank really slept (" + std::to_string(result->seconds) + " s)");
            const bool ordered = device_log(result->output) == expected_log;
            expect(ordered, name + ": the device saw the accesses in simulated-time order, ties by rank");
            show_on_failure(ordered, *result);
            expect(traces(result->output) == traces(slow0.output), name + ": traces identical");
            expect_clean(*result, name);
        }
    }

    void check_interrupts() {
        const Run remote = job("remote", 2, "interrupts");
        const Run local = job("local", 2, "interrupts");
        expect_status(remote, 0, "interrupts remote: woken at the exact times");
        expect_status(local, 0, "interrupts local: woken at the exact times");
        expect(count(remote.output, "trace ok") == 7 && traces(remote.output) == traces(local.output),
               "interrupts: 7 checks, remote and local traces identical");
        expect_clean(remote, "interrupts remote");
    }

    void check_deadlock() {
        const Run remote = job("remote", 3, "deadlock", {}, 20);
        expect_status(remote, 3, "deadlock remote: every rank told (status 3)");
        expect(contains(remote.output,
                        "[isvp] deadlock at 2.000000 us: every live rank waits and the platform has no "
                        "more events: rank 0 waits for MSI-X vector {2} since 0.000000 us; rank 1 waits "
                        "for MSI-X vector {2} since 1.000000 us; rank 2 waits for MSI-X vector {2} since "
                        "2.000000 us"),
               "deadlock: the message names every rank and what it waits for");
        expect(count(remote.output, "trace told: isvp transport: rank") == 3,
               "deadlock: each guest got TransportError");
        expect_clean(remote, "deadlock remote");

        const Run local = job("local", 3, "deadlock", {}, 20);
        expect_status(local, 3, "deadlock local: every rank told");
        expect(traces(local.output) == traces(remote.output), "deadlock: local and remote messages identical");

        const Run late = job("remote", 1, "deadlock-late", {}, 20);
        expect_status(late, 3, "deadlock with events pending");
        expect(
            contains(late.output, "deadlock at 2.500000 us: every live rank waits and the platform has no more events"),
            "deadlock with events pending: declared when the last event (the MSI at 2.5 us) is done");
        const Run horizon = job("remote", 1, "deadlock-late", {"job.deadlock_horizon_us=1"}, 20);
        expect_status(horizon, 3, "deadlock with job.deadlock_horizon_us=1");
        expect(contains(horizon.output,
                        "deadlock at 1.050000 us: every live rank waits and no rank was woken within "
                        "job.deadlock_horizon_us = 1.000000 us"),
               "deadlock horizon: declared 1 us after every rank blocked");
        show_on_failure(contains(horizon.output, "1.050000"), horizon);
        expect_clean(horizon, "deadlock horizon");
    }

    void check_hostile() {
        const std::vector<std::pair<std::string, std::string>> variants = {
            {"garbage", "bad magic 0x5a5a5a5a"},
            {"magic", "bad magic 0x12345678"},
            {"version", "protocol version 99, this simulator speaks version 1"},
            {"length", "length field 2147483647 in a Hello message (expected 40 bytes)"},
            {"type", "unexpected message type 77 from a guest"},
            {"direction", "unexpected message ReadReply from a guest"},
            {"rank", "a Hello message claims rank 0 on rank 1's link"},
            {"nohello", "the first message must be Hello, got MmioRead"},
            {"backwards",
             "time going backwards: MmioRead at 0.001000 us, but the rank's clock already reached 0.005000 us"},
            {"future", "MmioRead at 9223372036854.775808 us, beyond the simulator's range"},
            {"offset", "MmioRead of offset 0x20000: outside BAR0 (0x10000 bytes) or not 32-bit aligned"},
            {"unaligned", "MmioWrite of offset 0x3: outside BAR0"},
            {"truncated", "connection closed in the middle of a message (7 of 40 bytes)"},
            {"whilewaiting",
             "MmioRead while its WaitInterrupt for MSI-X vectors {9} at 0.000000 us is still outstanding"},
            {"waiter", "bad magic 0x5a5a5a5a"},
        };
        for (const auto& [variant, message] : variants) {
            const Run result = job("remote", 2, "hostile-" + variant, {}, 30);
            const std::string name = "hostile " + variant;
            const bool waiter = variant == "waiter";
            expect_status(result, waiter ? 3 : 1, name + ": the job fails");
            const bool logged = contains(result.output, "[isvp] rank 1: protocol error: " + message);
            const bool told = contains(result.output, "hostile got error: protocol error: " + message);
            const bool other = waiter ? contains(result.output, "[0] trace told: isvp transport: rank 0: deadlock")
                                      : contains(result.output, "[0] trace survivor done");
            expect(logged && told, name + ": refused with \"" + message + "\" (logged and sent to the client)");
            expect(other, name + (waiter ? ": the waiting rank is told" : ": the other rank finishes"));
            show_on_failure(logged && told && other, result);
            expect_clean(result, name);
        }
    }

    void check_crash() {
        const Run result = job("remote", 3, "crash", {}, 30);
        expect_status(result, 134, "crash: the job's status is the crashed guest's (128 + SIGABRT)");
        expect(contains(result.output, "[isvp] rank 1 killed by signal 6 (Aborted"), "crash: the launcher reports it");
        expect(contains(result.output, "[0] trace told: isvp transport: rank 0: deadlock") &&
                   contains(result.output, "rank 1 ended (its connection closed without finish())"),
               "crash: the rank waiting on the crashed one is told why");
        expect(contains(result.output, "[tb] rank 2 status 0 finished"), "crash: the independent rank finishes");
        show_on_failure(contains(result.output, "rank 1 ended"), result);
        expect_clean(result, "crash");
    }

    void check_sigint() {
        bool sent = false;
        Clock::time_point sent_at;
        std::vector<pid_t> guests;
        const Run result =
            job("remote", 2, "sleeper", {"job.kill_grace_ms=300"}, 30, [&](pid_t pid, const std::string& output) {
                if (sent || count(output, "trace ready") < 2) return;
                ::kill(pid, SIGINT);
                sent = true;
                sent_at = Clock::now();
            });
        const double after_signal = std::chrono::duration<double>(Clock::now() - sent_at).count();
        expect_status(result, 130, "sigint: the launcher exits with 128 + SIGINT");
        expect(sent && after_signal >= 0.3 && after_signal < 5.0,
               "sigint: the job ended " + std::to_string(after_signal) +
                   " s after SIGINT (SIGTERM, then SIGKILL after job.kill_grace_ms = 0.3 s)");
        expect(contains(result.output, "[isvp] SIGINT: ending the job"), "sigint: the launcher says why it ends");
        static const std::regex ready(R"(ready pid=(\d+))");
        for (auto it = std::sregex_iterator(result.output.begin(), result.output.end(), ready);
             it != std::sregex_iterator(); ++it)
            guests.push_back(static_cast<pid_t>(std::stoi((*it)[1])));
        bool gone = guests.size() == 2;
        for (pid_t pid : guests) gone = gone && ::kill(pid, 0) != 0 && errno == ESRCH;
        expect(gone, "sigint: both guests are gone, also the one ignoring SIGTERM");
        expect(contains(result.output, "[tb] rank 1 status 137"), "sigint: the SIGTERM-proof guest was SIGKILLed");
        show_on_failure(gone, result);
        expect_clean(result, "sigint");
    }

    void check_stall() {
        // Local ranks as fibers (the default) and as threads: a computing
        // fiber holds the simulator's thread, and its notice comes from the
        // fibers' watcher instead of the scheduler's timer; the same text.
        for (const std::string mode : {"remote", "local", "local-threads"}) {
            std::vector<std::string> sets;
            if (mode == "local-threads") sets.push_back("job.ranks=threads");
            const std::string how = mode == "remote" ? "remote" : "local";
            sets.push_back("job.stall_notice_s=0.3");
            const Run noticed = job(how, 2, "stall", sets, 30);
            expect_status(noticed, 0, "stall " + mode + ": the job still ends normally");
            const bool said =
                std::regex_search(noticed.output, std::regex(R"(\[isvp\] waiting for rank 0: no call to the platform )"
                                                             R"(for 0\.[3-9] s \(wall\); simulated time \d+\.\d+ us )"
                                                             R"(\(a rank that computes)"));
            expect(said, "stall " + mode + ": \"waiting for rank 0: no call to the platform for 0.3 s (wall)\"");
            show_on_failure(said, noticed);
            expect(count(noticed.output, "waiting for rank 1") == 0, "stall " + mode + ": rank 1 (waiting) is not named");
            expect_clean(noticed, "stall " + mode);
            sets.back() = "job.stall_notice_s=0";
            const Run quiet = job(how, 2, "stall", sets, 30);
            expect_status(quiet, 0, "stall " + mode + " with job.stall_notice_s=0");
            expect(!contains(quiet.output, "waiting for"), "stall " + mode + ": job.stall_notice_s=0 gives no notice");
        }
    }

    void check_limits() {
        const Run timeout = job("remote", 2, "computer", {"job.timeout_s=1", "job.kill_grace_ms=300"}, 30);
        expect_status(timeout, 124, "limits: job.timeout_s ends a job held by a computing rank (status 124)");
        const bool named = contains(timeout.output, "[isvp] wall-clock limit job.timeout_s = 1 s reached at simulated "
                                                    "time 0.000000 us: rank 0 computes outside the platform") &&
                           contains(timeout.output, "rank 1 waits for its MmioRead of BAR0 0xc at 0.000000 us (queued");
        expect(named, "limits: the timeout message says what each rank was doing");
        show_on_failure(named, timeout);
        expect(contains(timeout.output, "[1] trace told: isvp transport: rank 1: job aborted at 0.000000 us: the "
                                        "wall-clock limit job.timeout_s = 1 s was reached"),
               "limits: the waiting rank is told why");
        expect(contains(timeout.output, "[isvp] ending rank 0, not in a call to the platform") &&
                   contains(timeout.output, "[tb] rank 0 status 137"),
               "limits: the computing rank (ignoring SIGTERM) is killed after the grace period");
        expect_clean(timeout, "limits timeout");

        std::vector<std::string> lines;
        for (const std::string mode : {"remote", "local"}) {
            const Run poll = job(mode, 2, "poller", {"job.max_simulated_us=20"}, 60);
            expect_status(poll, 124, "limits " + mode + ": job.max_simulated_us ends a poller (status 124)");
            const std::vector<std::string> found =
                lines_matching(poll.output, std::regex(R"(^\[isvp\] simulated-time limit )"));
            const bool said =
                found.size() == 1 &&
                contains(found[0], "simulated-time limit job.max_simulated_us = 20.000000 us reached (rank 0's "
                                   "MmioRead of BAR0 0x8 at 20.") &&
                contains(found[0], "would pass it): rank 0 waits for its MmioRead of BAR0 0x8 at 20.") &&
                contains(found[0], "requests so far); rank 1 waits for MSI-X vector {9} since 0.000000 us");
            expect(said, "limits " + mode + ": the message names the poller, its request and the waiting rank");
            show_on_failure(said, poll);
            expect(count(poll.output, "trace told: isvp transport:") == 2, "limits " + mode + ": both ranks told");
            lines.push_back(found.empty() ? "" : found[0]);
            expect_clean(poll, "limits " + mode);
        }
        expect(lines.size() == 2 && lines[0] == lines[1],
               "limits: the simulated-time limit is exact (remote and local messages identical)");
        const Run waiting = job("remote", 1, "deadlock-late", {"job.max_simulated_us=1"}, 20);
        expect_status(waiting, 124, "limits: job.max_simulated_us with every rank waiting (status 124)");
        expect(contains(waiting.output, "[isvp] simulated-time limit job.max_simulated_us = 1.000000 us reached "
                                        "(every live rank waits on the platform)") &&
                   contains(waiting.output, "[tb] end 1000000 ps"),
               "limits: the platform stops exactly at the limit");
        show_on_failure(contains(waiting.output, "[tb] end 1000000 ps"), waiting);
    }

    void check_abort() {
        const Run result = job("remote", 2, "aborter", {"job.kill_grace_ms=300"}, 25, {}, true);
        expect_status(result, 5, "abort: a rank exiting 5 without finishing ends the job with its status");
        // The launcher may learn of rank 1's end from its exit or from its
        // connection closing first (two event sources, either order): both
        // must end the job at once, at 0 us.
        const bool said =
            contains(result.output, "[isvp] rank 1 exited with status 5") &&
            (contains(result.output, "[isvp] job aborted at 0.000000 us: rank 1 exited with status 5") ||
             contains(result.output, "[isvp] job aborted at 0.000000 us: rank 1 ended without finishing (its "
                                     "connection closed without finish()")) &&
            contains(result.output, "[isvp] ending rank 0, not in a call to the platform");
        expect(said, "abort: acted on at once although rank 0 computes for 30 s (no wait for its next call)");
        show_on_failure(said, result);
        expect(contains(result.output, "[tb] rank 0 status 137"), "abort: the SIGTERM-proof rank 0 was SIGKILLed");
        expect_clean(result, "abort");
    }

    void check_fork() {
        const Run clean = job("remote", 2, "forker", {"job.kill_grace_ms=300"}, 25);
        expect_status(clean, 0, "fork: a job whose ranks fork ends normally");
        expect(contains(clean.output, "[isvp] ranks 0, 1 left processes behind"),
               "fork: the launcher says the ranks left processes behind");
        expect(forked_gone(clean), "fork: the forked processes are gone");
        expect_clean(clean, "fork");

        const Run leave = job("remote", 2, "forker-leave", {"job.kill_grace_ms=300"}, 25, {}, true);
        expect_status(leave, 3, "fork: a rank exiting 0 without finishing, its child holding its connection (status: the told rank's)");
        const bool left = contains(leave.output, "[isvp] rank 1 left at") &&
                          contains(leave.output, "its process exited with status 0") &&
                          contains(leave.output, "[0] trace told: isvp transport: rank 0: job aborted at");
        expect(left, "fork: the rank's departure is noticed from its exit, the other rank told");
        show_on_failure(left, leave);
        expect(forked_gone(leave), "fork: the forked processes are gone");
        expect_clean(leave, "fork leave");
    }

    void check_fibers() {
        const Run remote = job("remote", 4, "multi");
        for (const std::string ranks : {"fibers", "threads"}) {
            const Run local = job("local", 4, "multi", {"job.ranks=" + ranks});
            expect_status(local, 0, "fibers: 4 ranks as " + ranks);
            const bool same = !traces(remote.output).empty() && traces(local.output) == traces(remote.output) &&
                              device_log(local.output) == device_log(remote.output);
            expect(same, "fibers: ranks as " + ranks + ": per-rank time traces and device log identical to remote");
            show_on_failure(same, local);
        }
        std::vector<std::string> outcomes;
        for (const std::string ranks : {"fibers", "threads"}) {
            const Run thrown = job("local", 2, "thrower", {"job.ranks=" + ranks});
            expect_status(thrown, 1, "fibers: a rank throwing fails the job (ranks as " + ranks + ")");
            const bool said = contains(thrown.output, "[1] isvp: the guest failed: thrower: rank 1 gives up") &&
                              contains(thrown.output, "[tb] rank 1 status 1") &&
                              contains(thrown.output, "[tb] rank 0 status 0 finished") &&
                              contains(thrown.output, "[0] trace rethrown: rank 0's own exception") &&
                              count(thrown.output, "[0] trace read ") == 3;
            expect(said, "fibers: the exception is printed, rank 1 has status 1, rank 0 finishes and rethrows its "
                         "own exception after blocking in its handler (ranks as " + ranks + ")");
            show_on_failure(said, thrown);
            outcomes.push_back(thrown.output.substr(std::min(thrown.output.size(), thrown.output.find("[0] trace"))));
        }
        expect(outcomes.size() == 2 && outcomes[0] == outcomes[1], "fibers: the throwing job ends identically");
        const Run bad = job("local", 1, "timing", {"job.ranks=processes"});
        const bool refused = bad.status == 2 && contains(bad.output, "job.ranks") &&
                             contains(bad.output, "fibers, threads") && contains(bad.output, "processes");
        expect(refused, "fibers: job.ranks=processes is refused, naming the accepted values");
        show_on_failure(refused, bad);
    }

    void check_bench() {
        for (const std::string mode : {"remote", "local", "local-threads"}) {
            const bool threads = mode == "local-threads";
            const Run result = job(threads ? "local" : mode, 1, "bench",
                                   threads ? std::vector<std::string>{"job.ranks=threads"} : std::vector<std::string>{},
                                   120);
            expect_status(result, 0, "bench " + mode);
            for (const std::string& line : lines_matching(result.output, std::regex("bench ")))
                std::cout << "     " << mode << ": " << line.substr(line.find("bench ") + 6) << std::endl;
            expect_clean(result, "bench " + mode);
        }
    }

  private:
    void expect(bool ok, const std::string& what) {
        (ok ? passed_ : failed_)++;
        std::cout << (ok ? "ok   " : "FAIL ") << what << std::endl;
    }

    /// Every "forked pid=N" process of the run has ended.
    bool forked_gone(const Run& result) {
        static const std::regex forked(R"(forked pid=(\d+))");
        std::size_t seen = 0;
        bool gone = true;
        for (auto it = std::sregex_iterator(result.output.begin(), result.output.end(), forked);
             it != std::sregex_iterator(); ++it, ++seen) {
            const std::string stat = "/proc/" + (*it)[1].str() + "/stat";
            std::ifstream file(stat);
            std::string line;
            std::getline(file, line);
            const std::size_t close = line.rfind(')');
            gone = gone && (line.empty() || (close != std::string::npos && line.substr(close + 2, 1) == "Z"));
        }
        return gone && seen == 2;
    }

    Run job(const std::string& mode, int ranks, const std::string& scenario, const std::vector<std::string>& sets = {},
            double timeout = 60, const std::function<void(pid_t, const std::string&)>& watch = {},
            bool mpirun = false) {
        std::vector<std::string> argv = {job_tb_,      "--mode", mode,      "--ranks", std::to_string(ranks),
                                         "--scenario", scenario, "--guest", guest_};
        if (mpirun) argv.push_back("--mpirun");
        for (const std::string& set : sets) {
            argv.push_back("--set");
            argv.push_back(set);
        }
        return run(argv, timeout, watch);
    }

    /// Nothing of launcher `pid`'s job may be left.
    void expect_clean(const Run& result, const std::string& what) {
        const std::string prefix = "isvp-" + std::to_string(result.pid) + "-";
        const auto left = [&](const std::string& directory) {
            std::vector<std::string> names;
            for (const std::string& name : entries(directory, prefix))
                if (result.existing.count(directory + "/" + name) == 0) names.push_back(name);
            return names;
        };
        const std::vector<std::string> segments = left("/dev/shm");
        const std::vector<std::string> directories = left("/tmp");
        // Processes a guest forked are reparented here: ended (zombies
        // waiting for this program) is fine, alive is not.
        std::vector<pid_t> zombies;
        std::vector<pid_t> orphans = children(&zombies);
        for (pid_t zombie : zombies) ::waitpid(zombie, nullptr, 0);
        for (pid_t orphan : orphans) {  // reap, so the next check starts clean
            ::kill(orphan, SIGKILL);
            ::waitpid(orphan, nullptr, 0);
        }
        expect(segments.empty() && directories.empty() && orphans.empty(),
               what + ": no shared memory, socket directory or process left (" + std::to_string(segments.size()) +
                   " segments, " + std::to_string(directories.size()) + " directories, " +
                   std::to_string(orphans.size()) + " processes)");
    }

    void expect_status(const Run& result, int status, const std::string& what) {
        const bool ok = result.status == status && !result.timed_out;
        expect(ok, what + ": exit status " + std::to_string(result.status) + " (expected " + std::to_string(status) +
                       (result.timed_out ? ", TIMED OUT" : "") + "), " + std::to_string(result.seconds) + " s");
        show_on_failure(ok, result);
    }

    std::string job_tb_;  ///< transport_job_tb
    std::string guest_;   ///< transport_guest
    int passed_ = 0;      ///< checks passed
    int failed_ = 0;      ///< checks failed
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: " << argv[0]
                  << " timing|determinism|ordering|interrupts|deadlock|hostile|crash|sigint|stall|limits|abort|fork|fibers|bench"
                     " JOB_TB GUEST\n";
        return 2;
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    Checks checks(argv[2], argv[3]);
    const std::map<std::string, void (Checks::*)()> by_name = {
        {"timing", &Checks::check_timing},     {"determinism", &Checks::check_determinism},
        {"ordering", &Checks::check_ordering}, {"interrupts", &Checks::check_interrupts},
        {"deadlock", &Checks::check_deadlock}, {"hostile", &Checks::check_hostile},
        {"crash", &Checks::check_crash},       {"sigint", &Checks::check_sigint},
        {"stall", &Checks::check_stall},       {"limits", &Checks::check_limits},
        {"abort", &Checks::check_abort},       {"fork", &Checks::check_fork},
        {"fibers", &Checks::check_fibers},     {"bench", &Checks::check_bench}};
    const auto check = by_name.find(argv[1]);
    if (check == by_name.end()) {
        std::cerr << "transport_checks: unknown check " << argv[1] << "\n";
        return 2;
    }
    (checks.*(check->second))();
    std::cout << checks.passed() << " passed, " << checks.failed() << " failed" << std::endl;
    return checks.failed() == 0 ? 0 : 1;
}
