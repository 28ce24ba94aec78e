// RankFibers: the ranks of a local job as fibers (Boost.Context) on the
// simulator's own thread (job.ranks=fibers, README "Wall-time cost").
//
// A rank's blocking transport call (a read, a wait, the Hello) does not
// sleep on a condition variable for another thread to wake it: its channel
// calls suspend(), which switches to the scheduler; when the scheduler has
// the reply it calls wake(rank), and run_ready() — where the scheduler would
// otherwise wait for the rank's next request — switches back. A hand-off is
// two stack switches (tens of nanoseconds), no system call and no wake-up
// of another CPU. Only one rank runs at a time, and only between its
// transport calls, so a rank that computes holds the simulator's thread
// until its next call (README "Stalls and limits").
//
// A fiber that runs long without a call holds the thread, so the
// scheduler's stall notices (job.stall_notice_s, a timer on its event loop)
// cannot come; watch_stalls() gives them from a watcher thread instead.
//
// Each fiber has its own stack of job.fiber_stack_kib with an inaccessible
// guard region below it (kGuardBytes): running off the stack faults at once
// (the process dies of SIGSEGV, rank named on stderr) instead of writing
// over another rank's stack. The C++ runtime's per-thread exception state
// (the exceptions being handled, std::uncaught_exceptions) is kept per
// fiber, so a rank may block inside a catch block while others throw.
//
// Single-threaded: every call is made on the thread that created the
// object (the watcher's callback excepted). SystemC-free.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace isvp::transport {

class RankFibers {
  public:
    /// Inaccessible bytes below every fiber's stack: a frame larger than
    /// this could jump over it (none of the guest code's comes close).
    static constexpr std::size_t kGuardBytes = std::size_t{1} << 20;

    /// `stack_bytes` (rounded up to whole pages) for each fiber.
    explicit RankFibers(std::size_t stack_bytes);
    /// A fiber that never ended is left as it is (its stack unfreed): ending
    /// it would unwind guest code that may swallow the unwinding.
    ~RankFibers();
    RankFibers(const RankFibers&) = delete;
    RankFibers& operator=(const RankFibers&) = delete;

    /// Adds rank `rank`'s fiber, which runs `body` from the next
    /// run_ready(). `body` must catch its own exceptions (one escaping
    /// ends the process, as from a thread).
    void spawn(int rank, std::function<void()> body);
    /// Inside a fiber: back to the scheduler, until wake() and run_ready().
    void suspend();
    /// Lets the rank's fiber run at the next run_ready() (once, however
    /// often it is woken before). A finished rank is ignored.
    void wake(int rank);
    /// Runs every fiber woken so far, in the order woken, each until it
    /// suspends or ends; returns how many ran.
    std::size_t run_ready();

    /// Stall notices (job.stall_notice_s): from now on a watcher thread
    /// calls `notice(rank, running)` each time a fiber has run another
    /// `period` without switching back. The callback runs on the watcher's
    /// thread while that fiber still runs, and the fiber cannot switch back
    /// until it returns: the scheduler's thread does nothing meanwhile.
    void watch_stalls(std::chrono::nanoseconds period,
                      std::function<void(int rank, std::chrono::nanoseconds running)> notice);

    /// The rank whose fiber runs now; -1 outside every fiber.
    int current() const { return current_; }
    /// Fibers spawned and not yet ended.
    std::size_t unfinished() const;
    /// Bytes of the rank's stack touched so far (resident pages; the
    /// deepest it has been), 0 once its fiber ended.
    std::size_t stack_touched(int rank) const;
    /// The stack each fiber has (job.fiber_stack_kib, whole pages).
    std::size_t stack_bytes() const { return stack_bytes_; }

  private:
    struct Fiber;

    void resume(int rank);
    void watch(std::chrono::nanoseconds period);

    using Clock = std::chrono::steady_clock;

    std::size_t stack_bytes_;                     ///< per fiber, whole pages
    std::vector<std::unique_ptr<Fiber>> fibers_;  ///< by rank (null: no fiber)
    std::deque<int> ready_;                       ///< woken ranks, in order
    int current_ = -1;                            ///< the running rank, -1 = the scheduler

    // Stall watching (watch_stalls); the fiber's switch back takes watch_mutex_.
    std::mutex watch_mutex_;                       ///< held by a notice, and by a switch back while watched
    std::condition_variable watch_stop_signal_;    ///< ends the watcher
    bool watch_stop_ = false;                      ///< the watcher should end (under watch_mutex_)
    std::atomic<int> watched_rank_{-1};            ///< the fiber running now, -1 = none
    std::atomic<std::uint64_t> resumes_{0};        ///< fibers resumed so far
    std::atomic<Clock::rep> resumed_at_{0};        ///< when the running fiber was resumed
    std::function<void(int, std::chrono::nanoseconds)> notice_;  ///< what a stall does
    std::thread watcher_;                          ///< the watching thread (if watch_stalls)
};

}  // namespace isvp::transport
