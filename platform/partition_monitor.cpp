#include "partition_monitor.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "isvp/parameters.h"

namespace isvp::cli {

namespace {

constexpr const char* kMonitorVariable = "ISVP_PARTITION_MONITOR";
// After its 4-byte number a partition says, in order:
constexpr char kFinished = 'F';  ///< the partition ends as planned
constexpr char kFailing = 'A';   ///< the partition reported its own failure and ends the job
constexpr char kStdout = 'O';    ///< then a 4-byte length and that many bytes of guest output (whole lines)
constexpr char kStderr = 'E';    ///< the same for the guests' stderr

/// mpiexec's pid, for the signal handler that forwards to it (a handler
/// can reach nothing else).
volatile sig_atomic_t launcher_pid = 0;

void forward_signal(int signal_number) {
    if (launcher_pid > 0) kill(static_cast<pid_t>(launcher_pid), signal_number);
}

/// One partition's connection: what it said so far.
struct Connection {
    int socket = -1;
    std::string received;               ///< bytes not yet taken: the partition (4 bytes), then messages
    std::optional<unsigned> partition;  ///< once its 4 bytes came
    bool finished = false;              ///< it said it ends as planned
    bool failing = false;               ///< it said why it fails itself
};

/// Writes all of `text` to `fd` (the supervisor's stdout or stderr); false
/// when nobody reads it any more (a closed pipe: `isvp ... | head`).
bool write_all(int fd, const char* text, std::size_t length) {
    while (length > 0) {
        const ssize_t written = write(fd, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        text += written;
        length -= static_cast<std::size_t>(written);
    }
    return true;
}

/// stdout and stderr still read (SIGPIPE is ignored while supervising).
bool printing[2] = {true, true};

void print(bool is_stderr, const char* text, std::size_t length) {
    bool& open = printing[is_stderr ? 1 : 0];
    if (open) open = write_all(is_stderr ? STDERR_FILENO : STDOUT_FILENO, text, length);
}

/// Takes the whole messages received so far: the partition's number, how it
/// ends, and guest output, printed here at once (whole lines of one
/// partition, never mixed with another's as mpiexec's forwarding would).
void take_messages(Connection& c, bool closed = false) {
    std::size_t at = 0;
    if (!c.partition) {
        if (c.received.size() < 4) return;
        std::uint32_t partition = 0;
        std::memcpy(&partition, c.received.data(), 4);
        c.partition = partition;
        at = 4;
    }
    while (at < c.received.size()) {
        const char kind = c.received[at];
        if (kind == kStdout || kind == kStderr) {
            std::uint32_t length = 0;
            if (c.received.size() - at < 5) break;
            std::memcpy(&length, c.received.data() + at + 1, 4);
            const std::size_t have = c.received.size() - at - 5;
            if (have < length) {
                // A partition that ended mid-message: its whole lines still count.
                if (closed) {
                    const std::size_t end = c.received.rfind('\n');
                    if (end != std::string::npos && end >= at + 5)
                        print(kind == kStderr, c.received.data() + at + 5, end - at - 4);
                }
                break;
            }
            print(kind == kStderr, c.received.data() + at + 5, length);
            at += 5 + length;
            continue;
        }
        if (kind == kFinished) c.finished = true;
        if (kind == kFailing) c.failing = true;
        ++at;
    }
    c.received.erase(0, at);
}

/// Reads what `c` has sent (all of it when `drain`: the partition has
/// ended); `closed` once it closed its end.
void read_from(Connection& c, bool& closed, bool drain = false) {
    char buffer[65536];
    do {
        const ssize_t got = read(c.socket, buffer, sizeof buffer);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            if (got == 0 || errno != EAGAIN) closed = true;
            break;
        }
        c.received.append(buffer, static_cast<std::size_t>(got));
        take_messages(c);
    } while (drain);
    if (closed) take_messages(c, true);
}

}  // namespace

int supervise_partitions(const std::vector<std::string>& command, const PartitionPlan& plan) {
    // In $TMPDIR, as other tools put their files, unless the socket's path
    // would not fit a Unix socket address there.
    std::string base = "/tmp";
    if (const char* tmpdir = std::getenv("TMPDIR");
        tmpdir != nullptr && *tmpdir != '\0' &&
        std::strlen(tmpdir) + sizeof("/isvp-partitions-XXXXXX/monitor") <= sizeof(sockaddr_un{}.sun_path))
        base = tmpdir;
    std::string made = base + "/isvp-partitions-XXXXXX";
    if (mkdtemp(made.data()) == nullptr)
        throw ConfigError("partitions: cannot make a directory in " + base + ": " + std::strerror(errno));
    const std::string directory = made;
    const std::string path = directory + "/monitor";
    // The directory, the socket and SIGPIPE's disposition are put back on
    // every way out (a closed stdout must not end the supervisor: it keeps
    // supervising and stops printing).
    struct Supervision {
        std::string directory, path;
        int listener = -1;
        struct sigaction pipe_before {};
        ~Supervision() {
            if (listener >= 0) close(listener);
            unlink(path.c_str());
            rmdir(directory.c_str());
            sigaction(SIGPIPE, &pipe_before, nullptr);
        }
    } supervision{directory, path};
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &supervision.pipe_before);
    const int listener = supervision.listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (listener < 0 || bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener, static_cast<int>(plan.partitions()) + 4) != 0)
        throw ConfigError("partitions: cannot listen on " + path + ": " + std::strerror(errno));
    setenv(kMonitorVariable, path.c_str(), 1);

    std::vector<char*> argv;
    std::vector<std::string> words = command;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child == 0) {
        // mpiexec ends (and ends the partitions) if the supervisor is killed.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(128 + SIGTERM);
        sigaction(SIGPIPE, &supervision.pipe_before, nullptr);  // ignored here only, not in mpiexec and the guests
        execvp(argv[0], argv.data());
        std::cerr << "isvp: partitions: cannot start " << words[0] << ": " << std::strerror(errno)
                  << " (install openmpi-bin, or set ISVP_MPIEXEC to the MPI launcher)\n";
        _exit(127);
    }
    if (child < 0) {
        throw ConfigError(std::string("partitions: cannot start ") + words[0] + ": " + std::strerror(errno));
    }
    launcher_pid = child;
    struct sigaction forward {};
    forward.sa_handler = forward_signal;
    sigemptyset(&forward.sa_mask);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &forward, nullptr);

    std::vector<Connection> connections;
    // Every connection waiting (the listener does not block).
    const auto accept_all = [&] {
        for (int accepted; (accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0;)
            connections.push_back({accepted, {}, std::nullopt, false, false});
    };
    std::vector<unsigned> died;  ///< partitions whose connection closed unfinished, in the order noticed
    // Partitions that said who they are: only if all did (a partition on
    // another machine cannot reach this socket) is the first connection to
    // close the partition that died.
    std::vector<bool> identified(plan.partitions(), false);
    bool reported = false;  ///< a partition reported its own failure (then the others end by its MPI_Abort)
    std::optional<std::chrono::steady_clock::time_point> first_death;
    bool ended_launcher = false;  ///< SIGTERM sent to mpiexec after a death
    int status = 0;
    bool launcher_done = false;
    while (!launcher_done) {
        std::vector<pollfd> watched{{listener, POLLIN, 0}};
        for (const Connection& c : connections) watched.push_back({c.socket, POLLIN, 0});
        poll(watched.data(), watched.size(), 100);
        if (watched[0].revents & POLLIN) accept_all();
        // Connections that closed in one round are noticed in the order they connected.
        for (std::size_t k = 1; k < watched.size(); ++k) {
            if (watched[k].revents == 0) continue;
            Connection& c = connections[k - 1];
            bool closed = false;
            read_from(c, closed);
            reported = reported || c.failing;
            if (c.partition && *c.partition < plan.partitions()) identified[*c.partition] = true;
            if (!closed) continue;
            if (!c.finished && !c.failing && c.partition) died.push_back(*c.partition);
            close(c.socket);
            c.socket = -1;
        }
        connections.erase(
            std::remove_if(connections.begin(), connections.end(), [](const Connection& c) { return c.socket < 0; }),
            connections.end());
        if (!died.empty() && !first_death) first_death = std::chrono::steady_clock::now();
        // mpiexec ends the others when one dies; if it has not within 20 s, end it.
        if (first_death && !ended_launcher &&
            std::chrono::steady_clock::now() - *first_death > std::chrono::seconds(20)) {
            kill(child, SIGTERM);
            ended_launcher = true;
        }
        const pid_t ended = waitpid(child, &status, WNOHANG);
        if (ended == child) launcher_done = true;
    }
    launcher_pid = 0;
    // What partitions still connected when mpiexec ended said last (also
    // those whose connection was not accepted yet).
    accept_all();
    for (Connection& c : connections) {
        bool closed = false;
        read_from(c, closed, true);
        reported = reported || c.failing;
        if (c.partition && *c.partition < plan.partitions()) identified[*c.partition] = true;
        if (!c.finished && !c.failing && c.partition && died.empty()) died.push_back(*c.partition);
        close(c.socket);
    }
    int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const bool all_identified = std::all_of(identified.begin(), identified.end(), [](bool b) { return b; });
    if (!died.empty() && !reported && all_identified) {
        std::cerr << "[isvp] " << plan.describe(died.front())
                  << " died before the job ended (killed or crashed; mpiexec's process rank " << died.front()
                  << "); every partition and its guests were ended\n";
        if (exit_status == 0) exit_status = 1;
    }
    return exit_status;
}

PartitionMonitorClient::PartitionMonitorClient(unsigned partition) {
    const char* path = std::getenv(kMonitorVariable);
    if (path == nullptr || *path == '\0') return;
    socket_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    const std::uint32_t said = partition;
    if (socket_ < 0 || connect(socket_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        send(socket_, &said, sizeof said, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof said)) {
        // Without the supervisor the job runs as under the user's own mpiexec.
        if (socket_ >= 0) close(socket_);
        socket_ = -1;
    }
}

PartitionMonitorClient::~PartitionMonitorClient() {
    flush_output();
    if (socket_ >= 0) close(socket_);
}

void PartitionMonitorClient::flush_output() {
    for (const auto* stream : {&out_, &err_})
        if (*stream) (*stream)->flush();
}

void PartitionMonitorClient::finished() {
    flush_output();
    say(kFinished);
}

void PartitionMonitorClient::failing() {
    flush_output();
    say(kFailing);
}

void PartitionMonitorClient::say(char said) {
    if (socket_ < 0) return;
    if (send(socket_, &said, 1, MSG_NOSIGNAL) != 1) {
        // The supervisor is gone: nothing to tell.
    }
}

void PartitionMonitorClient::output(bool is_stderr, const std::string& text) {
    if (socket_ < 0 || text.empty()) return;
    // One message per flush: the launcher flushes whole lines.
    for (std::size_t start = 0; start < text.size();) {
        const auto length = static_cast<std::uint32_t>(std::min<std::size_t>(text.size() - start, 1u << 20));
        std::string message(1, is_stderr ? kStderr : kStdout);
        message.append(reinterpret_cast<const char*>(&length), 4);
        message.append(text, start, length);
        for (std::size_t sent = 0; sent < message.size();) {
            const ssize_t done = send(socket_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
            if (done < 0 && errno == EINTR) continue;
            if (done <= 0) return;  // the supervisor is gone: nobody to print it
            sent += static_cast<std::size_t>(done);
        }
        start += length;
    }
}

int PartitionMonitorClient::OutputBuffer::overflow(int c) {
    if (c != traits_type::eof()) pending_.push_back(static_cast<char>(c));
    return traits_type::not_eof(c);
}

std::streamsize PartitionMonitorClient::OutputBuffer::xsputn(const char* text, std::streamsize count) {
    pending_.append(text, static_cast<std::size_t>(count));
    return count;
}

int PartitionMonitorClient::OutputBuffer::sync() {
    client_.output(is_stderr_, pending_);
    pending_.clear();
    return 0;
}

std::ostream* PartitionMonitorClient::guest_output(bool is_stderr) {
    if (socket_ < 0) return nullptr;
    auto& stream = is_stderr ? err_ : out_;
    if (!stream) {
        auto& buffer = is_stderr ? err_buffer_ : out_buffer_;
        buffer = std::make_unique<OutputBuffer>(*this, is_stderr);
        stream = std::make_unique<std::ostream>(buffer.get());
    }
    return stream.get();
}

}  // namespace isvp::cli
