#include "partition_monitor.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

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
constexpr char kFinished = 'F';  ///< the partition ends as planned
constexpr char kFailing = 'A';   ///< the partition reported its own failure and ends the job

/// mpiexec's pid, for the signal handler that forwards to it (a handler
/// can reach nothing else).
volatile sig_atomic_t launcher_pid = 0;

void forward_signal(int signal_number) {
    if (launcher_pid > 0) kill(static_cast<pid_t>(launcher_pid), signal_number);
}

/// One partition's connection: what it said so far.
struct Connection {
    int socket = -1;
    std::string received;               ///< bytes so far: the partition (4 bytes), then kFinished or kFailing
    std::optional<unsigned> partition;  ///< once its 4 bytes came
    bool finished = false;              ///< it said it ends as planned
    bool failing = false;               ///< it said why it fails itself
};

void read_from(Connection& c, bool& closed) {
    char buffer[64];
    const ssize_t got = read(c.socket, buffer, sizeof buffer);
    if (got <= 0) {
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
        closed = true;
        return;
    }
    c.received.append(buffer, static_cast<std::size_t>(got));
    if (!c.partition && c.received.size() >= 4) {
        std::uint32_t partition = 0;
        std::memcpy(&partition, c.received.data(), 4);
        c.partition = partition;
    }
    if (c.received.size() > 4 && c.received.find(kFinished, 4) != std::string::npos) c.finished = true;
    if (c.received.size() > 4 && c.received.find(kFailing, 4) != std::string::npos) c.failing = true;
}

}  // namespace

int supervise_partitions(const std::vector<std::string>& command, const PartitionPlan& plan) {
    char directory[] = "/tmp/isvp-partitions-XXXXXX";
    if (mkdtemp(directory) == nullptr)
        throw ConfigError(std::string("partitions: cannot make a directory in /tmp: ") + std::strerror(errno));
    const std::string path = std::string(directory) + "/monitor";
    const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (listener < 0 || bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener, static_cast<int>(plan.partitions()) + 4) != 0)
        throw ConfigError("partitions: cannot listen on " + path + ": " + std::strerror(errno));
    const auto clean_up = [&] {
        close(listener);
        unlink(path.c_str());
        rmdir(directory);
    };
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
        execvp(argv[0], argv.data());
        std::cerr << "isvp: partitions: cannot start " << words[0] << ": " << std::strerror(errno)
                  << " (install openmpi-bin, or set ISVP_MPIEXEC to the MPI launcher)\n";
        _exit(127);
    }
    if (child < 0) {
        clean_up();
        throw ConfigError(std::string("partitions: cannot start ") + words[0] + ": " + std::strerror(errno));
    }
    launcher_pid = child;
    struct sigaction forward {};
    forward.sa_handler = forward_signal;
    sigemptyset(&forward.sa_mask);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal_number, &forward, nullptr);

    std::vector<Connection> connections;
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
        if (watched[0].revents & POLLIN) {
            const int accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (accepted >= 0) {
                fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK);
                connections.push_back({accepted, {}, std::nullopt, false, false});
            }
        }
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
    // What partitions still connected when mpiexec ended said last.
    for (Connection& c : connections) {
        bool closed = false;
        read_from(c, closed);
        reported = reported || c.failing;
        if (c.partition && *c.partition < plan.partitions()) identified[*c.partition] = true;
        if (!c.finished && !c.failing && c.partition && died.empty()) died.push_back(*c.partition);
        close(c.socket);
    }
    clean_up();
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
        write(socket_, &said, sizeof said) != static_cast<ssize_t>(sizeof said)) {
        // Without the supervisor the job runs as under the user's own mpiexec.
        if (socket_ >= 0) close(socket_);
        socket_ = -1;
    }
}

PartitionMonitorClient::~PartitionMonitorClient() {
    if (socket_ >= 0) close(socket_);
}

void PartitionMonitorClient::finished() {
    say(kFinished);
}

void PartitionMonitorClient::failing() {
    say(kFailing);
}

void PartitionMonitorClient::say(char said) {
    if (socket_ < 0) return;
    if (write(socket_, &said, 1) != 1) {
        // The supervisor is gone: nothing to tell.
    }
}

}  // namespace isvp::cli
