// GuestScheduler: the main loop of the simulator process. It owns one
// GuestGateway per rank and the ranks' links, and drives sc_start itself,
// advancing SystemC exactly to the time of the request it executes next
// (SyncCore decides which). One thread: link traffic, signals and guest
// output are handled between SystemC runs on one Boost.Asio event loop.
//
// Per decision:
//   * WaitForGuests — local ranks as fibers: run those whose replies are
//     ready (they run on this thread until their next blocking call);
//     otherwise wait on the event loop until a message (or a signal,
//     a child exit, guest output) arrives: polled for job.spin_wait_us of
//     wall time first, since a rank's next request usually follows its
//     reply within microseconds, then blocking;
//   * Execute(rank, T) — run SystemC to T (stopping early if a waiting rank
//     is answered before T: it may send an earlier request), finish the
//     delta cycles already pending at T, then hand the request to the rank's
//     gateway and run the delta cycles it causes;
//   * RunUntilWake — every live rank waits on the platform: run SystemC
//     until a gateway answers one. If the platform runs out of events, or
//     runs job.deadlock_horizon_us of simulated time without answering, the
//     job is deadlocked: the message names every rank and what it waits for,
//     and each waiting rank's call ends with TransportError.
// A malformed or out-of-order message ends only its sender (Error reply,
// disconnect, message on the log); the other ranks go on, and a wait that
// can then never complete ends through the deadlock rule above.
//
// Ranks that never connect: a program that is not an MPI program (hostname)
// runs as under mpirun. A rank whose process exits before it connected
// (said Hello) simply leaves while no rank has connected; once some rank has
// connected, such a rank ends an MPI job (TransportConfig::end_on_early_exit)
// — it never called MPI_Init, and the others would wait for it for good —
// and so does a rank that connects after one left that way.
//
// A rank that left without finish() (an MPI program that skipped
// MPI_Finalize) ends the job when its departure is due in simulated time —
// at once if every other rank waits on the platform. If a rank computing
// outside the platform holds it back, the job is ended job.kill_grace_ms
// (wall) after the rank left, as mpirun ends a job when a process exits
// without finalizing (with TransportConfig::end_on_early_exit).
//
// Limits and notices (job.* parameters):
//   * a rank that computes, sleeps or polls its own memory without calling
//     the platform holds simulated time for every rank (conservative
//     synchronisation); after job.stall_notice_s of wall time, and again
//     every job.stall_notice_s, the log says which ranks it waits for;
//   * job.timeout_s of wall time since construction ends the job;
//   * the platform never runs past job.max_simulated_us: a request, or a
//     wait, that needs it to ends the job.
// Both limits end the job like abort() (limit_reached() then says so); the
// log names every rank and what it was doing (its last request).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "isvp/guest_gateway.h"
#include "isvp/guest_links.h"
#include "isvp/partition_window.h"
#include "isvp/sync_core.h"
#include "isvp/transport_config.h"

namespace isvp::transport {

/// The job's own end, which ends every rank still in it: an abort
/// (GuestScheduler::end_all) or a deadlock (every live rank waits).
enum class JobEnd : std::uint8_t { None, Abort, Deadlock };

class GuestScheduler {
  public:
    /// Creates the gateways (top-level modules "rank<r>_gateway"); call during
    /// elaboration, before the platform binds them.
    GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log);
    /// One partition of a distributed simulation (partition_window.h): only
    /// the ranks with `local[r]` run here (the others get no gateway and count
    /// as ended: "simulated by another partition"); SystemC advances window
    /// by window and the job ends when no partition has a live rank.
    /// job.deadlock_horizon_us and job.max_simulated_us do not apply; a
    /// deadlock is found when no partition has any event left.
    GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log,
                   PartitionWindow& window, const std::vector<bool>& local);
    ~GuestScheduler();
    GuestScheduler(const GuestScheduler&) = delete;
    GuestScheduler& operator=(const GuestScheduler&) = delete;

    int ranks() const { return core_.ranks(); }
    /// The gateways, by rank, for the platform to bind (null for ranks of
    /// another partition).
    std::vector<GuestGateway*> gateways() const;
    GuestLinks& links() { return *links_; }

    /// Completes SystemC's elaboration and initialisation (the first
    /// sc_start, minutes for a large platform); run() does it if not done.
    /// Before any rank attaches, so the launcher can do it while a signal
    /// still ends it at once.
    void elaborate();
    /// Runs the job until every rank has finished or ended. Exceptions from
    /// the platform (SC_REPORT_ERROR) propagate; call end_all() then.
    void run();

    /// Ends the job from the event loop (a signal): every live rank's
    /// pending or next call fails with `reason`; run() then returns.
    /// `told`: as for end_all().
    void abort(const std::string& reason, const std::string& told = "");
    /// With TransportConfig::end_on_early_exit: ends the job because `rank`
    /// left without finish() (`reason`: how it left), or because its
    /// program failed (a local rank's error: "job aborted at T: rank R
    /// failed: <error>", the ranks told "rank R failed (above)").
    void end_on_early_exit(int rank, const std::string& reason);
    /// Ends every live rank now with `reason` (after a platform failure):
    /// error() becomes "job aborted at T: `reason`". `told`, when given,
    /// stands for `reason` in the log line and in what each rank is told
    /// (`reason` was printed in full already: "the platform failed
    /// (above)"), so that a long message is not repeated once per rank.
    void end_all(ErrorCode code, const std::string& reason, const std::string& told = "");
    /// The job's end whose message to the ranks (`job aborted at T: ...`,
    /// `deadlock at T: ...`) `text` (a guest's failure) holds: the guest
    /// failed because of it, not for a reason of its own. None otherwise.
    JobEnd told_job_end(const std::string& text) const;
    /// The job's end that ended `rank`; None if something else did, or
    /// nothing yet.
    JobEnd ended_by_job(int rank) const { return ended_by_job_.at(static_cast<std::size_t>(rank)); }

    /// Called (on the event loop) when a rank has said Hello: a remote rank
    /// has mapped its host memory by then. `pid`: the process that said it
    /// (Hello's arg1; under a debugger or a wrapper, the program itself).
    void on_attach(std::function<void(int rank, std::uint64_t pid)> handler) { on_attach_ = std::move(handler); }
    /// Local ranks as fibers on this thread (job.ranks=fibers, rank_fibers.h):
    /// `run_guests` resumes the ranks whose replies are ready and returns
    /// how many ran; the loop calls it where it would otherwise wait on the
    /// event loop for a rank's next request.
    void run_guests_with(std::function<std::size_t()> run_guests) { run_guests_ = std::move(run_guests); }
    /// Calls `beat` with the simulated time (ps) every `period` of wall
    /// time while run() runs, between simulation slices and on this thread
    /// (so it may read the platform): a long run's progress line. A zero
    /// period or an empty `beat`: never.
    void on_heartbeat(std::chrono::nanoseconds period, std::function<void(std::uint64_t)> beat) {
        heartbeat_period_ = period;
        heartbeat_ = std::move(beat);
    }
    /// job.stall_notice_s (zero: no notices).
    std::chrono::nanoseconds stall_notice_period() const { return notice_period_; }
    /// The stall notice for `rank`, a fiber that has run `quiet` (wall)
    /// without a call: called from RankFibers' watcher thread while that
    /// fiber holds this scheduler's thread (which therefore writes nothing).
    void notice_computing_fiber(int rank, std::chrono::nanoseconds quiet);
    /// No stall notices (job.stall_notice_s) for `rank`: it runs under a
    /// debugger, where standing still at a breakpoint is what it is for.
    void exempt_from_stall_notices(int rank) { exempt_.at(static_cast<std::size_t>(rank)) = true; }

    /// A rank's process exited (remote); lets the links notice a rank that
    /// never connected.
    void process_exited(int rank, int status, const std::string& description);

    const SyncCore& core() const { return core_; }
    /// The rank has connected (said Hello).
    bool attached(int rank) const { return attached_.at(static_cast<std::size_t>(rank)); }
    /// Some rank has connected: the job is an MPI job, not plain programs.
    bool any_attached() const { return any_attached_; }
    /// The first job-level error (deadlock, protocol violation, abort); "" if none.
    const std::string& error() const { return error_; }
    /// job.timeout_s or job.max_simulated_us ended the job.
    bool limit_reached() const { return limit_reached_; }
    /// Ranks that were computing outside the platform (not in a call that
    /// could be answered) when the job was aborted: they learn of it only at
    /// their next call, so the launcher ends their processes at once.
    const std::vector<int>& computing_at_abort() const { return computing_at_abort_; }
    /// Wall time the job started (construction), for job.timeout_s.
    std::chrono::steady_clock::time_point started() const { return started_; }
    /// Ranks in the order their failure was noticed (left, refused, crashed).
    const std::vector<int>& failure_order() const { return failure_order_; }
    /// Exit code each finished rank passed to finish().
    int finish_code(int rank) const { return finish_codes_.at(static_cast<std::size_t>(rank)); }
    /// The rank runs in this process (always, unless partitioned).
    bool local(int rank) const { return local_.empty() || local_.at(static_cast<std::size_t>(rank)); }
    /// Simulated time when run() returned (partitioned: when this
    /// partition's last rank ended).
    std::uint64_t end_time_ps() const { return end_time_ps_; }

  private:
    GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log,
                   PartitionWindow* window, std::vector<bool> local);
    void on_link_event(int rank, const GuestLinks::Event& event);
    void on_completion(int rank, const Message& reply);
    void deliver_completions();
    void execute(const SyncCore::Decision& decision);
    /// Local ranks' queued requests, and the event loop (sockets, signals,
    /// timers, rank threads' wake-ups) — the latter at most every
    /// kLoopPollPeriod of wall time unless `loop_now`: each poll is an
    /// epoll_wait system call, and the loop polls between every two
    /// decisions. Returns how many events were handled.
    std::size_t poll_events(bool loop_now = false);
    bool advance_to(const sc_core::sc_time& target);
    bool settle();
    void run_until_wake();
    /// Partitioned: runs SystemC to the end of the window and synchronises
    /// with the other partitions; false when the whole job is over.
    bool window_step();
    /// Partitioned: earliest local activity (a queued request, an event).
    std::uint64_t next_activity_ps() const;
    void deadlock(const std::string& reason);
    void violation(int rank, const std::string& detail);
    void note_failure(int rank);
    void left_unattached(int rank, const std::string& reason);
    void check_attachment();
    void set_error(const std::string& text);
    void heard_from(int rank);
    void arm_stall_notice();
    void stall_notice();
    void arm_heartbeat();
    void arm_timeout();
    void arm_departure();
    void overdue_departures();
    /// Ends the job at a simulated-time limit (`limit` names it) for `why`.
    void simulated_limit(const std::string& why, const std::string& limit);
    bool stopped() const;
    std::uint64_t now_ps() const;

    boost::asio::io_context& io_;  ///< the event loop shared with links, processes, signals
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;  ///< keeps run_one() waiting
    TransportConfig config_;                                                         ///< job.* timing of the loop
    std::ostream& log_;                                                              ///< "[isvp] ..." messages
    SyncCore core_;                                                                  ///< who may run next
    std::vector<std::unique_ptr<GuestGateway>> gateways_;                            ///< by rank
    std::unique_ptr<GuestLinks> links_;                                              ///< by rank
    std::vector<std::pair<int, Message>> completions_;          ///< answered reads and waits not yet delivered
    std::optional<std::uint64_t> blocked_since_ps_;             ///< every live rank waiting since (for the horizon)
    sc_core::sc_time slice_;                                    ///< job.event_slice_ns
    std::uint64_t horizon_ps_;                                  ///< job.deadlock_horizon_us; 0 = off
    std::chrono::nanoseconds spin_wait_;                        ///< job.spin_wait_us: polling before run_one() sleeps
    std::chrono::steady_clock::time_point loop_polled_;         ///< the event loop's last poll (poll_events)
    bool aborting_ = false;                                     ///< abort() was called
    std::string abort_reason_;                                  ///< its reason
    std::string abort_told_;                                    ///< what the ranks are told instead ("" = the reason)
    std::string error_;                                         ///< first job-level error
    std::vector<int> failure_order_;                            ///< failing ranks, first first
    std::vector<int> finish_codes_;                             ///< finish() exit codes by rank
    std::uint64_t end_time_ps_ = 0;                             ///< simulated time at the end
    std::function<void(int, std::uint64_t)> on_attach_;         ///< told when a rank attached
    std::function<std::size_t()> run_guests_;                   ///< fibers: runs the ranks woken by replies
    std::atomic<std::uint64_t> guests_run_at_ps_{0};            ///< fibers: simulated time they were last run at
    std::uint64_t limit_ps_ = kMaxTimePs;                       ///< job.max_simulated_us, else 2^62 ps
    std::string limit_name_;                                    ///< how messages name limit_ps_
    bool limit_reached_ = false;                                ///< a job.* limit ended the job
    std::vector<int> computing_at_abort_;                       ///< ranks outside the platform when aborted
    std::vector<std::pair<std::string, JobEnd>> job_end_told_;  ///< what each job end told the ranks
    std::vector<JobEnd> ended_by_job_;                          ///< by rank: the job's end that ended it
    std::chrono::steady_clock::time_point started_;             ///< construction (job.timeout_s counts from it)
    std::chrono::nanoseconds notice_period_{0};                 ///< job.stall_notice_s; 0 = off
    std::vector<std::chrono::steady_clock::time_point> heard_;  ///< by rank: its latest request or reply
    std::vector<std::uint64_t> notices_;                        ///< by rank: stall notices since heard_
    std::vector<bool> exempt_;                                  ///< by rank: no stall notices
    boost::asio::steady_timer notice_timer_;                    ///< next stall check
    std::chrono::nanoseconds heartbeat_period_{0};              ///< on_heartbeat(); 0 = off
    std::function<void(std::uint64_t)> heartbeat_;              ///< told the simulated time each period
    boost::asio::steady_timer heartbeat_timer_;                 ///< next heartbeat
    boost::asio::steady_timer timeout_timer_;                   ///< job.timeout_s
    boost::asio::steady_timer departure_timer_;                 ///< departures held back (job.kill_grace_ms)
    bool departure_armed_ = false;                              ///< departure_timer_ is running
    std::vector<std::string> departing_;                        ///< by rank: why it left ("" if it did not)
    std::vector<std::string> program_failures_;                 ///< by rank: its program's error (local ranks)
    bool running_ = false;                                      ///< inside run(): the timers may act
    bool noticed_ = false;                                      ///< a stall notice was given (explained once)
    std::uint64_t abort_at_ps_ = 0;                        ///< an abort is dated no earlier (a departing rank's clock)
    std::vector<bool> attached_;                           ///< by rank: said Hello
    bool any_attached_ = false;                            ///< some rank said Hello
    std::vector<std::pair<int, std::string>> unattached_;  ///< ranks that left before connecting, and how
    PartitionWindow* window_ = nullptr;                    ///< partitioned: the other partitions; else null
    std::vector<bool> local_;                              ///< partitioned: by rank, runs here; else empty
    std::optional<std::uint64_t> local_end_ps_;            ///< partitioned: when the last local rank ended
};

}  // namespace isvp::transport
