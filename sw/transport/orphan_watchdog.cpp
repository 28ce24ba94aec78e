// The launcher's watchdog process: see isvp/orphan_watchdog.h.
#include "isvp/orphan_watchdog.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
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

void wake(int) {}  // SIGUSR2 (the launcher died) only interrupts the read

// In the child after fork: only async-signal-safe calls (the launcher may
// have threads), no allocation — `groups` was allocated before the fork.
[[noreturn]] void watch_launcher(pid_t launcher, int pipe, pid_t* groups, std::size_t capacity) {
    ::setpgid(0, 0);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE})
        ::sigaction(signal_number, &ignore, nullptr);
    // End of file alone is not enough: a process that inherited the
    // launcher's end (a fork that never exec'd) would keep it open. The
    // launcher's death also interrupts the wait (SIGUSR2, no SA_RESTART).
    struct sigaction interrupt {};
    interrupt.sa_handler = wake;
    ::sigaction(SIGUSR2, &interrupt, nullptr);
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    ::sigprocmask(SIG_UNBLOCK, &usr2, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGUSR2);
    // Nothing of the launcher's is kept open (its output pipes, sockets).
    ::close_range(static_cast<unsigned>(pipe) + 1, ~0u, 0);
    for (int fd = 0; fd < pipe; ++fd) ::close(fd);
    std::size_t count = 0;
    char buffer[64 * sizeof(pid_t)];
    std::size_t have = 0;
    for (;;) {
        // Once the launcher is gone, what it sent is still read (it may die
        // right after naming a group), then nothing more is awaited.
        const bool gone = ::getppid() != launcher;  // also if it died before the prctl
        pollfd readable{pipe, POLLIN, 0};
        // Waits at most 0.5 s between checks: SIGUSR2 may come just before the wait.
        const int ready = ::poll(&readable, 1, gone ? 0 : 500);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) {
            if (gone) break;
            continue;
        }
        const ssize_t got = ::read(pipe, buffer + have, sizeof buffer - have);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // end of file: the launcher is gone
        have += static_cast<std::size_t>(got);
        std::size_t used = 0;
        for (; have - used >= sizeof(pid_t); used += sizeof(pid_t)) {
            pid_t group = 0;
            std::memcpy(&group, buffer + used, sizeof group);
            if (group == kRelease) ::_exit(0);
            if (count < capacity) groups[count++] = group;
        }
        std::memmove(buffer, buffer + used, have - used);
        have -= used;
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
    const pid_t launcher = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[1]);
        watch_launcher(launcher, fds[0], groups.data(), groups.size());
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
