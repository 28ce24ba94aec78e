// OrphanWatchdog: ends the guests' process groups when the launcher dies
// without cleaning up — SIGKILL, the OOM killer: nothing of the launcher
// runs then. A guest dies with the launcher (PR_SET_PDEATHSIG, set by
// GuestProcesses), but what it forked does not inherit that; this small
// helper process does the launcher's last job. It reads process-group ids
// from a socket whose other end only the launcher holds: end of file before
// a release, or the launcher's death (PR_SET_PDEATHSIG), means the launcher
// is gone, and every group it was told of gets SIGKILL. It ignores the terminal's signals and sits in a process group
// of its own, so what kills the launcher's group does not take it along. SystemC-free.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace isvp::transport {

class OrphanWatchdog {
  public:
    /// Forks the helper; it can be told of `capacity` groups at most.
    explicit OrphanWatchdog(std::size_t capacity);
    /// Releases the helper (it exits without killing anything) and reaps it.
    ~OrphanWatchdog();
    OrphanWatchdog(const OrphanWatchdog&) = delete;
    OrphanWatchdog& operator=(const OrphanWatchdog&) = delete;

    /// From now on group `group` (a guest's pid: it leads its group) is
    /// SIGKILLed if the launcher dies before the release.
    void watch(pid_t group);
    /// The helper's pid (tests).
    pid_t pid() const { return pid_; }

  private:
    pid_t pid_ = -1;  ///< the helper process
    int pipe_ = -1;   ///< the launcher's end of the helper's socket; only this process holds it
};

}  // namespace isvp::transport
