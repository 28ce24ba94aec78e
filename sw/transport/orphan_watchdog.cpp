// The launcher's watchdog process: see isvp/orphan_watchdog.h.
#include "isvp/orphan_watchdog.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace isvp::transport {

namespace {

constexpr pid_t kRelease = 0;  ///< written instead of a group: the launcher ends normally

// In the child after fork: only async-signal-safe calls (the launcher may
// have threads), no allocation — `groups` was allocated before the fork.
[[noreturn]] void watch_launcher(int pipe, pid_t* groups, std::size_t capacity) {
    ::setpgid(0, 0);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE})
        ::sigaction(signal_number, &ignore, nullptr);
    // Nothing of the launcher's is kept open (its output pipes, sockets).
    ::close_range(static_cast<unsigned>(pipe) + 1, ~0u, 0);
    for (int fd = 0; fd < pipe; ++fd) ::close(fd);
    std::size_t count = 0;
    for (;;) {
        pid_t group = 0;
        auto* bytes = reinterpret_cast<char*>(&group);
        std::size_t have = 0;
        while (have < sizeof group) {
            const ssize_t got = ::read(pipe, bytes + have, sizeof group - have);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            have += static_cast<std::size_t>(got);
        }
        if (have < sizeof group) break;  // end of file: the launcher is gone
        if (group == kRelease) ::_exit(0);
        if (count < capacity) groups[count++] = group;
    }
    for (std::size_t i = 0; i < count; ++i) ::kill(-groups[i], SIGKILL);
    ::_exit(0);
}

}  // namespace

OrphanWatchdog::OrphanWatchdog(std::size_t capacity) {
    std::vector<pid_t> groups(capacity);
    // A socket pair rather than a pipe: a send to a helper that is gone
    // fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE.
    int fds[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw std::runtime_error(std::string("cannot create the launcher's watchdog link: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[1]);
        watch_launcher(fds[0], groups.data(), groups.size());
    }
    const int fork_errno = errno;
    ::close(fds[0]);
    if (pid < 0) {
        ::close(fds[1]);
        throw std::runtime_error(std::string("cannot fork the launcher's watchdog: ") + std::strerror(fork_errno));
    }
    pid_ = pid;
    pipe_ = fds[1];
}

OrphanWatchdog::~OrphanWatchdog() {
    const pid_t release = kRelease;
    while (::send(pipe_, &release, sizeof release, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    ::close(pipe_);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
}

void OrphanWatchdog::watch(pid_t group) {
    if (group <= 0) return;
    // A failure means the helper is gone; the job goes on without it.
    while (::send(pipe_, &group, sizeof group, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

}  // namespace isvp::transport
