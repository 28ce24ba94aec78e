// The simulator's main loop: conservative synchronisation of ranks and SystemC.
#include "isvp/guest_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "isvp/kernel_time_step.h"
#include "isvp/register_map.h"
#include "isvp/sim_now.h"
#include "isvp/spin_wait.h"

namespace isvp::transport {

namespace {

/// How messages name kMaxTimePs.
std::string end_of_time() {
    return "2^62 ps = " + format_time_ps(kMaxTimePs) + " (the end of simulated time)";
}

std::uint64_t ps_of(double value, double ps_per_unit) {
    return static_cast<std::uint64_t>(std::llround(value * ps_per_unit));
}

/// "10 s", "2.5 s": whole seconds from 10 s on.
std::string format_seconds(double seconds) {
    char text[32];
    if (seconds >= 10)
        std::snprintf(text, sizeof text, "%.0f s", std::floor(seconds));
    else
        std::snprintf(text, sizeof text, "%.1f s", std::floor(seconds * 10) / 10);
    return text;
}

/// How long poll_events() may leave the event loop unpolled while the
/// scheduler is busy: well under any timer's or signal's need, and long
/// enough that its epoll_wait is no longer a cost per decision.
constexpr std::chrono::microseconds kLoopPollPeriod{50};

}  // namespace

GuestScheduler::GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log)
    : GuestScheduler(io, ranks, config, log, nullptr, {}) {}

GuestScheduler::GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log,
                               PartitionWindow* window, std::vector<bool> local)
    : io_(io),
      work_(boost::asio::make_work_guard(io)),
      config_(config),
      log_(log),
      core_(ranks, regmap::kBar0Bytes),
      finish_codes_(static_cast<std::size_t>(ranks), 0),
      started_(std::chrono::steady_clock::now()),
      heard_(static_cast<std::size_t>(std::max(ranks, 0)), started_),
      notices_(static_cast<std::size_t>(std::max(ranks, 0)), 0),
      exempt_(static_cast<std::size_t>(std::max(ranks, 0)), false),
      notice_timer_(io),
      heartbeat_timer_(io),
      timeout_timer_(io),
      departure_timer_(io),
      departing_(static_cast<std::size_t>(std::max(ranks, 0))),
      program_failures_(static_cast<std::size_t>(std::max(ranks, 0))),
      attached_(static_cast<std::size_t>(std::max(ranks, 0)), false),
      window_(window),
      local_(std::move(local)) {
    if (window_) local_.resize(static_cast<std::size_t>(std::max(ranks, 0)), false);
    ended_by_job_.assign(static_cast<std::size_t>(std::max(ranks, 0)), JobEnd::None);
    config_.validate();
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::runtime_error("the guest scheduler needs the SystemC time resolution of 1 ps, got " +
                                 sc_core::sc_get_time_resolution().to_string());
    slice_ = from_ps(std::max<std::uint64_t>(1, ps_of(config_.event_slice_ns, 1e3)));
    horizon_ps_ = ps_of(config_.deadlock_horizon_us, 1e6);
    spin_wait_ = spin_budget(config_.spin_wait_us);
    // Without job.max_simulated_us the end of simulated time is the limit:
    // the platform never runs, nor answers a rank, past it.
    if (config_.max_simulated_us > 0) {
        limit_ps_ = ps_of(config_.max_simulated_us, 1e6);
        limit_name_ = "job.max_simulated_us = " + format_time_ps(limit_ps_);
    } else {
        limit_ps_ = kMaxTimePs;
        limit_name_ = end_of_time();
    }
    notice_period_ =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(config_.stall_notice_s));
    links_ = std::make_unique<GuestLinks>(
        io, ranks, [this](int rank, const GuestLinks::Event& event) { on_link_event(rank, event); });
    for (int rank = 0; rank < ranks; ++rank) {
        if (!this->local(rank)) {  // a rank of another partition: no gateway here
            gateways_.push_back(nullptr);
            core_.end(rank, "simulated by another partition");
            continue;
        }
        const std::string name = "rank" + std::to_string(rank) + "_gateway";
        gateways_.push_back(std::make_unique<GuestGateway>(
            name.c_str(), rank, [this](int from, const Message& reply) { on_completion(from, reply); }));
    }
}

GuestScheduler::GuestScheduler(boost::asio::io_context& io, int ranks, const TransportConfig& config, std::ostream& log,
                               PartitionWindow& window, const std::vector<bool>& local)
    : GuestScheduler(io, ranks, config, log, &window, local) {}

GuestScheduler::~GuestScheduler() = default;

std::vector<GuestGateway*> GuestScheduler::gateways() const {
    std::vector<GuestGateway*> result;
    for (const auto& gateway : gateways_) result.push_back(gateway.get());
    return result;
}

std::uint64_t GuestScheduler::now_ps() const {
    return to_ps(sim_now());
}

bool GuestScheduler::stopped() const {
    return sc_core::sc_get_status() == sc_core::SC_STOPPED || sc_core::sc_end_of_simulation_invoked();
}

void GuestScheduler::elaborate() {
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

void GuestScheduler::run() {
    // The timers act only while the job runs (not during the launcher's
    // wind-down, which shares the event loop).
    struct Running {
        GuestScheduler& scheduler;
        ~Running() {
            scheduler.running_ = false;
            boost::system::error_code ignored;
            scheduler.notice_timer_.cancel(ignored);
            scheduler.heartbeat_timer_.cancel(ignored);
            scheduler.timeout_timer_.cancel(ignored);
            scheduler.departure_timer_.cancel(ignored);
            scheduler.departure_armed_ = false;
        }
    } running{*this};
    running_ = true;
    arm_timeout();
    arm_stall_notice();
    arm_heartbeat();
    elaborate();
    for (;;) {
        poll_events();
        deliver_completions();
        if (aborting_) end_all(ErrorCode::Aborted, abort_reason_, abort_told_);
        if (stopped()) end_all(ErrorCode::Aborted, "the platform stopped the simulation (sc_stop)");
        const SyncCore::Decision decision = core_.next();
        switch (decision.kind) {
            case SyncCore::Decision::Kind::Done:
                if (window_) {
                    // The other partitions may still route through this one.
                    if (!local_end_ps_) local_end_ps_ = now_ps();
                    if (window_step()) break;
                    end_time_ps_ = *local_end_ps_;
                    return;
                }
                end_time_ps_ = now_ps();
                return;
            case SyncCore::Decision::Kind::WaitForGuests:
                // Fibers: the awaited ranks run here, now.
                if (run_guests_) {
                    guests_run_at_ps_.store(now_ps(), std::memory_order_relaxed);
                    if (run_guests_() > 0) break;
                }
                // The awaited request usually follows within microseconds:
                // poll for it before sleeping (spin_wait.h).
                if (!spin_until([this] { return poll_events(true) > 0; }, spin_wait_)) io_.run_one();
                break;
            case SyncCore::Decision::Kind::Execute:
                if (window_ && decision.simulated && decision.time_ps >= window_->bound_ps()) {
                    window_step();
                    break;
                }
                execute(decision);
                break;
            case SyncCore::Decision::Kind::RunUntilWake:
                run_until_wake();
                break;
        }
    }
}

void GuestScheduler::execute(const SyncCore::Decision& decision) {
    const int rank = decision.rank;
    if (!decision.simulated) {
        const SyncCore::Entry entry = core_.pop(rank);
        if (entry.leaving && !attached(rank)) {
            left_unattached(rank, entry.reason);
        } else if (entry.leaving) {
            log_ << "[isvp] rank " << rank << " left at " << format_time_ps(entry.message.time_ps) << ": "
                 << entry.reason << "\n";
            log_.flush();
            gateways_[static_cast<std::size_t>(rank)]->cancel();
            note_failure(rank);
            // Its departure is taken at once, at its own clock, which may be
            // ahead of the platform's: an abort it causes is dated no earlier.
            abort_at_ps_ = std::max(abort_at_ps_, entry.message.time_ps);
            end_on_early_exit(rank, entry.reason);
        } else {
            finish_codes_[static_cast<std::size_t>(rank)] = static_cast<std::int32_t>(entry.message.arg0);
        }
        return;
    }
    if (decision.time_ps > limit_ps_) {
        // The platform runs to the limit, not past it.
        if (!advance_to(from_ps(limit_ps_)) || !settle()) return;
        simulated_limit("rank " + std::to_string(rank) + "'s " + describe_request(core_.front(rank)) + " would pass it",
                        limit_name_);
        return;
    }
    const sc_core::sc_time target = from_ps(decision.time_ps);
    if (sim_now() > target)
        throw std::logic_error("scheduler invariant broken: request at " + format_time_ps(decision.time_ps) +
                               " but SystemC is at " + format_time_ps(now_ps()));
    if (!advance_to(target) || !settle()) return;  // something changed: decide again
    blocked_since_ps_.reset();
    const SyncCore::Entry entry = core_.pop(rank);
    gateways_[static_cast<std::size_t>(rank)]->execute(entry.message);
    settle();
}

std::size_t GuestScheduler::poll_events(bool loop_now) {
    // A rank that leaves has usually just posted why (the launcher's "the
    // guest failed: ..." line): the loop runs at once, so that line comes
    // before the departure's own messages, as when both went through it.
    bool left = false;
    std::size_t handled = links_->take_local(&left);
    const auto now = std::chrono::steady_clock::now();
    if (loop_now || left || now - loop_polled_ >= kLoopPollPeriod) {
        loop_polled_ = now;
        handled += io_.poll();
    }
    return handled;
}

bool GuestScheduler::advance_to(const sc_core::sc_time& target) {
    while (sim_now() < target) {
        const sc_core::sc_time remaining = target - sim_now();
        // Slices keep the loop responsive while the platform works; with
        // nothing scheduled before the next event, time jumps there at once.
        sc_core::sc_time step = std::min(remaining, slice_);
        if (sc_core::sc_time_to_pending_activity() > step)
            step = std::min(remaining, sc_core::sc_time_to_pending_activity());
        kernel_time_step::simulate(step, sc_core::SC_RUN_TO_TIME);
        if (!completions_.empty() || stopped()) return false;
        if (poll_events() > 0) return false;
    }
    return true;
}

bool GuestScheduler::settle() {
    while (sc_core::sc_pending_activity_at_current_time()) {
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
        if (!completions_.empty() || stopped()) return false;
    }
    return true;
}

void GuestScheduler::run_until_wake() {
    if (window_) {
        // Woken before the window's end, or the partitions synchronise.
        window_step();
        return;
    }
    if (!blocked_since_ps_) blocked_since_ps_ = now_ps();
    for (;;) {
        if (!sc_core::sc_pending_activity()) {
            deadlock("the platform has no more events");
            return;
        }
        sc_core::sc_time slice = slice_;
        if (now_ps() >= limit_ps_) {
            if (!settle()) return;  // answered at the limit itself
            simulated_limit("every live rank waits on the platform", limit_name_);
            return;
        }
        slice = std::min(slice, from_ps(limit_ps_ - now_ps()));
        if (horizon_ps_ > 0) {
            const std::uint64_t limit = *blocked_since_ps_ + horizon_ps_;
            if (now_ps() >= limit) {
                deadlock("no rank was woken within job.deadlock_horizon_us = " + format_time_ps(horizon_ps_) +
                         " of simulated time (the platform still had events: if it was still working, as a long "
                         "FPGA kernel does while the hosts wait, raise job.deadlock_horizon_us or set it to 0)");
                return;
            }
            slice = std::min(slice, from_ps(limit - now_ps()));
        }
        // SC_EXIT_ON_STARVATION stops at the last event (so a deadlock is
        // dated when the platform went quiet) but does not move time when
        // the next event lies beyond the slice: then time is moved alone.
        if (sc_core::sc_time_to_pending_activity() > slice)
            kernel_time_step::simulate(slice, sc_core::SC_RUN_TO_TIME);
        else
            kernel_time_step::simulate(slice, sc_core::SC_EXIT_ON_STARVATION);
        if (!completions_.empty() || stopped()) return;
        if (poll_events() > 0) return;
    }
}

bool GuestScheduler::window_step() {
    // Every event before the window's bound, then the exchange.
    if (!advance_to(from_ps(window_->bound_ps() - 1)) || !settle()) return true;
    const PartitionWindow::Agreement agreed = window_->synchronise([this] {
        PartitionWindow::Report report;
        report.next_ps = next_activity_ps();
        report.live = core_.next().kind != SyncCore::Decision::Kind::Done;
        if (aborting_) report.abort = abort_reason_;
        return report;
    });
    if (!agreed.live) return false;
    if (!agreed.abort.empty() && !aborting_) abort(agreed.abort);
    if (agreed.next_ps == PartitionWindow::kIdle && !core_.blocked().empty())
        deadlock("no partition has any event left");
    return true;
}

std::uint64_t GuestScheduler::next_activity_ps() const {
    std::uint64_t next = PartitionWindow::kIdle;
    const SyncCore::Decision decision = core_.next();
    if (decision.kind == SyncCore::Decision::Kind::Execute) next = decision.simulated ? decision.time_ps : now_ps();
    if (sc_core::sc_pending_activity()) next = std::min(next, now_ps() + to_ps(sc_core::sc_time_to_pending_activity()));
    return next;
}

void GuestScheduler::on_completion(int rank, const Message& reply) {
    completions_.emplace_back(rank, reply);
}

void GuestScheduler::deliver_completions() {
    if (completions_.empty()) return;
    blocked_since_ps_.reset();
    // A read whose target annotates a delay, or an MSI in flight, can be
    // answered later than SystemC has run. Past job.max_simulated_us that is
    // harmless (the rank's next request ends the job); past the end of
    // simulated time it is not (no clock may pass it): the answer is not
    // given, the job ends there.
    std::string past;
    for (const auto& [rank, reply] : completions_) {
        if (reply.time_ps > kMaxTimePs) {
            const std::optional<Message>& request = core_.outstanding(rank);
            if (past.empty() && request)
                past = "rank " + std::to_string(rank) + "'s " + describe_request(*request) + " would be answered at " +
                       format_time_ps(reply.time_ps) + ", past it";
            continue;
        }
        if (core_.complete(rank, reply.time_ps)) {
            links_->reply(rank, reply);
            heard_from(rank);
        }
    }
    completions_.clear();
    if (!past.empty()) simulated_limit(past, end_of_time());
}

void GuestScheduler::on_link_event(int rank, const GuestLinks::Event& event) {
    switch (event.kind) {
        case GuestLinks::Event::Kind::Attached:
            heard_from(rank);
            attached_[static_cast<std::size_t>(rank)] = true;
            any_attached_ = true;
            check_attachment();
            if (on_attach_) on_attach_(rank, event.message.arg1);
            break;
        case GuestLinks::Event::Kind::Request: {
            heard_from(rank);
            const std::string problem = core_.accept(rank, event.message);
            if (!problem.empty()) violation(rank, problem);
            break;
        }
        case GuestLinks::Event::Kind::Violation:
            violation(rank, event.detail);
            break;
        case GuestLinks::Event::Kind::Refused:
            // A stranger, not the rank: the rank's own link is untouched.
            log_ << "[isvp] rank " << rank << ": " << event.detail << "\n";
            log_.flush();
            break;
        case GuestLinks::Event::Kind::Left: {
            if (!event.failure.empty() && ended_by_job_[static_cast<std::size_t>(rank)] == JobEnd::None)
                program_failures_[static_cast<std::size_t>(rank)] = event.failure;
            const bool was_waiting = core_.state(rank) == RankState::InSimulator;
            core_.leave(rank, event.detail);
            if (was_waiting) {
                log_ << "[isvp] rank " << rank << " left while waiting at " << format_time_ps(now_ps()) << ": "
                     << event.detail << "\n";
                log_.flush();
                gateways_[static_cast<std::size_t>(rank)]->cancel();
                note_failure(rank);
                end_on_early_exit(rank, event.detail);
            } else if (config_.end_on_early_exit && attached(rank) && core_.leaving(rank)) {
                departing_[static_cast<std::size_t>(rank)] = event.detail;
                arm_departure();
            }
            break;
        }
    }
}

void GuestScheduler::violation(int rank, const std::string& detail) {
    const std::string text = "rank " + std::to_string(rank) + ": protocol error: " + detail;
    log_ << "[isvp] " << text << "; rank " << rank << " is disconnected\n";
    log_.flush();
    set_error(text);
    // The guest names its rank itself ("isvp transport: rank 1: ...").
    links_->refuse(rank, ErrorCode::Protocol, now_ps(), "protocol error: " + detail);
    gateways_[static_cast<std::size_t>(rank)]->cancel();
    core_.end(rank, "protocol error: " + detail);
    note_failure(rank);
}

void GuestScheduler::deadlock(const std::string& reason) {
    const std::string text =
        "deadlock at " + format_time_ps(now_ps()) + ": every live rank waits and " + reason + ": " + core_.describe();
    log_ << "[isvp] " << text << "\n";
    log_.flush();
    set_error(text);
    // The log names every rank and what it waits for; each rank gets that
    // too in small jobs, and a pointer to the log in large ones (the full
    // list, repeated by every rank, would bury the output).
    constexpr std::size_t kRanksListedToEachRank = 8;
    const std::vector<int> blocked = core_.blocked();
    const std::string told = blocked.size() <= kRanksListedToEachRank
                                 ? text
                                 : "deadlock at " + format_time_ps(now_ps()) + ": every live rank waits and " + reason +
                                       " (" + std::to_string(blocked.size()) +
                                       " ranks; the job log says what each waits for)";
    if (!blocked.empty()) job_end_told_.emplace_back(told, JobEnd::Deadlock);
    for (int rank : blocked) {
        links_->refuse(rank, ErrorCode::Deadlock, now_ps(), told);
        gateways_[static_cast<std::size_t>(rank)]->cancel();
        core_.end(rank, "deadlock");
        ended_by_job_[static_cast<std::size_t>(rank)] = JobEnd::Deadlock;
        note_failure(rank);
    }
    blocked_since_ps_.reset();
}

void GuestScheduler::abort(const std::string& reason, const std::string& told) {
    if (aborting_) return;
    aborting_ = true;
    abort_reason_ = reason;
    abort_told_ = told;
}

void GuestScheduler::end_on_early_exit(int rank, const std::string& reason) {
    if (!config_.end_on_early_exit) return;
    const std::string who = "rank " + std::to_string(rank);
    if (const std::string& failure = program_failures_[static_cast<std::size_t>(rank)]; !failure.empty())
        abort(who + " failed: " + failure, who + " failed (above)");
    else
        abort(who + " ended without finishing (" + reason + "; an MPI program must call MPI_Finalize)");
}

void GuestScheduler::end_all(ErrorCode code, const std::string& reason, const std::string& told) {
    bool any = false;
    const std::string when = "job aborted at " + format_time_ps(std::max(now_ps(), abort_at_ps_)) + ": ";
    const std::string& short_reason = told.empty() ? reason : told;
    const std::string text = when + short_reason;
    for (int rank = 0; rank < ranks(); ++rank) {
        if (!core_.live(rank)) continue;
        any = true;
        if (core_.idle(rank)) computing_at_abort_.push_back(rank);
        links_->refuse(rank, code, now_ps(), text);
        gateways_[static_cast<std::size_t>(rank)]->cancel();
        core_.end(rank, "aborted: " + short_reason);
        ended_by_job_[static_cast<std::size_t>(rank)] = JobEnd::Abort;
    }
    if (any) job_end_told_.emplace_back(text, JobEnd::Abort);
    if (any || error_.empty()) {
        log_ << "[isvp] " << text << "\n";
        log_.flush();
    }
    set_error(when + reason);
}

JobEnd GuestScheduler::told_job_end(const std::string& text) const {
    for (const auto& [told, end] : job_end_told_)
        if (text.find(told) != std::string::npos) return end;
    return JobEnd::None;
}

void GuestScheduler::process_exited(int rank, int status, const std::string& description) {
    if (status != 0) note_failure(rank);
    links_->process_exited(rank, "its process " + description);
    // A failed process ends an MPI job at once, even while other ranks
    // compute and its departure is not yet due in simulated time.
    if (status != 0 && config_.end_on_early_exit) abort("rank " + std::to_string(rank) + " " + description);
}

void GuestScheduler::left_unattached(int rank, const std::string& reason) {
    // Not an MPI rank (or not yet): nothing of it is in the platform.
    unattached_.emplace_back(rank, reason);
    check_attachment();
}

void GuestScheduler::check_attachment() {
    // Some ranks connected and some left without: the MPI job cannot
    // complete (the connected ones would wait for the others for good).
    if (!config_.end_on_early_exit || unattached_.empty() || !any_attached_) return;
    const auto& [rank, reason] = unattached_.front();
    note_failure(rank);
    log_ << "[isvp] rank " << rank << " never connected to the platform (" << reason
         << ") while other ranks did: in an MPI job every rank must call MPI_Init and MPI_Finalize\n";
    log_.flush();
    abort("rank " + std::to_string(rank) + " never connected (" + reason + ") while other ranks did");
}

void GuestScheduler::note_failure(int rank) {
    if (std::find(failure_order_.begin(), failure_order_.end(), rank) == failure_order_.end())
        failure_order_.push_back(rank);
}

void GuestScheduler::set_error(const std::string& text) {
    if (error_.empty()) error_ = text;
}

void GuestScheduler::heard_from(int rank) {
    heard_[static_cast<std::size_t>(rank)] = std::chrono::steady_clock::now();
    notices_[static_cast<std::size_t>(rank)] = 0;
}

void GuestScheduler::arm_stall_notice() {
    if (notice_period_.count() <= 0) return;
    // Checked a few times per period: a notice comes at most a tenth of a
    // period (at most 1 s) late, and a job of many ranks is scanned rarely.
    const auto tick = std::clamp<std::chrono::nanoseconds>(notice_period_ / 10, std::chrono::milliseconds(10),
                                                           std::chrono::seconds(1));
    notice_timer_.expires_after(tick);
    notice_timer_.async_wait([this](const boost::system::error_code& error) {
        if (error || !running_) return;
        stall_notice();
        arm_stall_notice();
    });
}

void GuestScheduler::arm_heartbeat() {
    if (heartbeat_period_.count() <= 0 || !heartbeat_) return;
    heartbeat_timer_.expires_after(heartbeat_period_);
    heartbeat_timer_.async_wait([this](const boost::system::error_code& error) {
        if (error || !running_) return;
        heartbeat_(now_ps());
        arm_heartbeat();
    });
}

void GuestScheduler::stall_notice() {
    // Only a rank that computes outside the platform holds simulated time:
    // nothing executes while one does (SyncCore::next). While no rank has
    // connected, nothing is held (plain programs, or MPI not started yet).
    if (!any_attached_) return;
    const auto now = std::chrono::steady_clock::now();
    std::vector<int> silent;
    auto shortest = std::chrono::steady_clock::duration::max();
    for (int rank = 0; rank < ranks(); ++rank) {
        if (!core_.idle(rank) || exempt_[static_cast<std::size_t>(rank)]) continue;
        const auto quiet = now - heard_[static_cast<std::size_t>(rank)];
        const auto periods = static_cast<std::uint64_t>(quiet / notice_period_);
        if (periods <= notices_[static_cast<std::size_t>(rank)]) continue;
        notices_[static_cast<std::size_t>(rank)] = periods;
        silent.push_back(rank);
        shortest = std::min(shortest, quiet);
    }
    if (silent.empty()) return;
    log_ << "[isvp] waiting for " << list_ranks(silent) << ": no call to the platform for "
         << format_seconds(std::chrono::duration<double>(shortest).count()) << " (wall); simulated time "
         << format_time_ps(now_ps());
    if (!noticed_)
        log_ << " (a rank that computes, sleeps or polls its memory without calling the platform holds "
                "simulated time for every rank; job.timeout_s limits a job's wall time, job.stall_notice_s=0 "
                "turns this notice off)";
    log_ << "\n";
    log_.flush();
    noticed_ = true;
}

void GuestScheduler::notice_computing_fiber(int rank, std::chrono::nanoseconds quiet) {
    // The same notice as stall_notice() gives a thread or a process.
    log_ << "[isvp] waiting for rank " << rank << ": no call to the platform for "
         << format_seconds(std::chrono::duration<double>(quiet).count()) << " (wall); simulated time "
         << format_time_ps(guests_run_at_ps_.load(std::memory_order_relaxed));
    if (!noticed_)
        log_ << " (a rank that computes, sleeps or polls its memory without calling the platform holds "
                "simulated time for every rank; job.timeout_s limits a job's wall time, job.stall_notice_s=0 "
                "turns this notice off; a rank running as a fiber, job.ranks=fibers, holds the simulator's "
                "thread too: the job's limits and signals act at its next call)";
    log_ << "\n";
    log_.flush();
    noticed_ = true;
}

void GuestScheduler::arm_timeout() {
    if (config_.timeout_s <= 0) return;
    timeout_timer_.expires_at(started_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(config_.timeout_s)));
    timeout_timer_.async_wait([this](const boost::system::error_code& error) {
        if (error || !running_ || aborting_) return;
        std::ostringstream limit;
        limit << "job.timeout_s = " << config_.timeout_s << " s";
        log_ << "[isvp] wall-clock limit " << limit.str() << " reached at simulated time " << format_time_ps(now_ps())
             << ": " << core_.describe() << "\n";
        log_.flush();
        limit_reached_ = true;
        abort("the wall-clock limit " + limit.str() + " was reached");
    });
}

void GuestScheduler::arm_departure() {
    if (departure_armed_ || !running_) return;
    departure_armed_ = true;
    departure_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double, std::milli>(config_.kill_grace_ms)));
    departure_timer_.async_wait([this](const boost::system::error_code& error) {
        departure_armed_ = false;
        if (error || !running_ || aborting_) return;
        overdue_departures();
    });
}

void GuestScheduler::overdue_departures() {
    // Ranks that left without finish() whose departure is still not due:
    // ranks computing outside the platform hold simulated time, and mpirun
    // would have ended the job when the process exited.
    for (int rank = 0; rank < ranks(); ++rank) {
        const std::string& reason = departing_[static_cast<std::size_t>(rank)];
        if (reason.empty() || !core_.leaving(rank)) continue;
        std::vector<int> computing;
        for (int other = 0; other < ranks(); ++other)
            if (other != rank && core_.idle(other)) computing.push_back(other);
        log_ << "[isvp] rank " << rank << " left without finishing (" << reason
             << "); its departure was not due in simulated time job.kill_grace_ms later"
             << (computing.empty() ? "" : " (" + list_ranks(computing) + " computing outside the platform)")
             << ": the job ends now\n";
        log_.flush();
        gateways_[static_cast<std::size_t>(rank)]->cancel();
        note_failure(rank);
        abort_at_ps_ = std::max(abort_at_ps_, core_.clock(rank));
        core_.end(rank, reason);
        end_on_early_exit(rank, reason);
    }
}

void GuestScheduler::simulated_limit(const std::string& why, const std::string& limit) {
    log_ << "[isvp] simulated-time limit " << limit << " reached (" << why << "): " << core_.describe() << "\n";
    log_.flush();
    limit_reached_ = true;
    end_all(ErrorCode::Aborted, "the simulated-time limit " + limit + " was reached");
}

}  // namespace isvp::transport
