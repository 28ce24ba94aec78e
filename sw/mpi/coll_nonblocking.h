// The schedule engine of the nonblocking collectives (MPI_Ibarrier ...
// MPI_Iexscan), in the manner of libNBC and MPICH's MPIR_Sched.
//
// A nonblocking collective builds, at the call, its rank's list of rounds.
// A round holds local steps (copies, combines), sends and receives of
// internal point-to-point messages on the call's collective tag (collective_tag():
// the communicator's sequence, shared with the blocking collectives, so no
// two collective calls on a communicator and no user message ever match
// each other). A round starts when the previous one has completed: its
// local steps run, in order; its sends are packed and handed to the driver
// (eager, so a send never waits for its receiver); the round completes once
// every one of its receives has arrived, and the arrived messages are then
// delivered in the round's order — so a combine's operand order never
// depends on which message came first. The request completes with the last
// round.
//
// The engine neither waits nor polls: RoundSchedule::advance() only looks at
// the messages the driver has already taken in. The point-to-point engine
// calls it from every wait, test and probe (pull() -> progress_collectives),
// and so do blocking software collectives while they wait (receive_internal).
//
// Plain C++17, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "coll_util.h"

namespace isvp::mpi::coll {

/// Produces a send's data when its round starts (the state after the
/// previous rounds).
using Payload = std::function<std::vector<std::uint8_t>()>;
/// Takes a receive's data once its round has completed.
using Deliver = std::function<void(std::vector<std::uint8_t>& data)>;

struct RoundSend {
    /// comm rank (this rank itself: kept in the schedule, no message); on an
    /// inter-communicator a rank of the remote group, as in point-to-point
    int peer = 0;
    Payload payload;
};

struct RoundReceive {
    int peer = 0;              ///< comm rank
    std::size_t capacity = 0;  ///< bytes expected (exactly, or at most when !exact)
    bool exact = true;         ///< a different length is MPI_ERR_TRUNCATE
    Deliver deliver;           ///< may be empty (a barrier's message)
};

struct Round {
    int phase = 0;                             ///< which of the call's tags its messages carry
    std::vector<std::function<void()>> local;  ///< run first, in order
    std::vector<RoundSend> sends;              ///< then sent, in order
    std::vector<RoundReceive> receives;        ///< the round ends when all have arrived
};

/// One rank's rounds of one nonblocking collective call.
class RoundSchedule final : public CollectiveProgress {
  public:
    /// Takes the call's tags from `comm` (collective_tag), one per phase
    /// (an algorithm made of two schedules gives each its own tag, so their
    /// messages between one pair of ranks never match each other): build
    /// it at the call, with the same `phases` on every member.
    explicit RoundSchedule(std::shared_ptr<Comm> comm, int phases = 1);
    Comm& comm() { return *comm_; }

    /// Appends an empty round and returns it.
    Round& add_round();
    /// Appends a round of one local step.
    void add_local(std::function<void()> step);
    /// Keeps `state` (the call's working buffers) alive until the schedule is gone.
    void hold(std::shared_ptr<const void> state);
    /// Appends `schedule`'s steps (make_schedule) as rounds over `blocks`,
    /// with the blocking executor's semantics (run_schedule): a step's send
    /// packs the blocks as they were before the step, its receive copies or
    /// combines (`reduction` needed for combining steps). `blocks` must stay
    /// alive until the schedule completes (hold it in a shared state).
    void add_schedule(const Schedule& schedule, Blocks* blocks, const Reduction* reduction = nullptr, int phase = 0);

    bool advance() override;

  private:
    /// Starts round `current_`: local steps, then the sends.
    void start_round();
    /// Whether receive `index` of the current round has arrived (takes it from the driver).
    bool take(std::size_t index);

    std::shared_ptr<Comm> comm_;       ///< kept alive while the collective runs
    std::vector<std::uint32_t> tags_;  ///< this call's internal tags, by phase
    std::vector<Round> rounds_;
    std::size_t current_ = 0;                                        ///< the round in progress
    bool started_ = false;                                           ///< whether round current_ has started
    std::vector<std::optional<std::vector<std::uint8_t>>> arrived_;  ///< per receive of the current round
    std::deque<std::vector<std::uint8_t>> to_self_;                  ///< messages this rank sent itself
    std::vector<std::vector<std::uint8_t>> pieces_;  ///< per receive: the pieces of a long message so far
    std::vector<std::shared_ptr<const void>> held_;                  ///< the call's working state
};

/// MPI_ERR_ARG when the request argument is NULL.
void check_request_pointer(const MPI_Request* request);

/// A checked reduction that outlives the call: the op copied, the datatype
/// held (MPI_Op_free / MPI_Type_free may follow the call).
struct ReductionState {
    explicit ReductionState(const Reduction& checked);
    ReductionState(const ReductionState&) = delete;  // `reduction` points into this object
    ReductionState& operator=(const ReductionState&) = delete;
    Op op;
    std::shared_ptr<Type> type;
    Reduction reduction;  ///< points at op and *type
};

/// Registers `schedule` as the request of `function` ("MPI_Ibcast") and
/// advances it once; stores the handle in *request.
void start_nonblocking(const char* function, MPI_Comm comm, std::shared_ptr<RoundSchedule> schedule,
                       MPI_Request* request);

/// Persistent collectives (persistent.cpp) run the nonblocking calls'
/// schedules. While a capture is installed (schedule_capture()), a
/// RoundSchedule takes its tags from `tags` — reserved once at the _init
/// call, so the order of the _init calls, not of the starts, matches the
/// members' runs (MPI 4.0 §6.12) — and start_nonblocking hands the schedule
/// to `schedule` (and sets *request to MPI_REQUEST_NULL) instead of making
/// a request.
struct ScheduleCapture {
    std::vector<std::uint32_t> tags;  ///< by phase
    std::shared_ptr<RoundSchedule> schedule;
};
/// The capture in effect, or nullptr.
ScheduleCapture*& schedule_capture();
/// The most phases (tags) a nonblocking call's schedule takes.
inline constexpr int kMaxSchedulePhases = 2;

}  // namespace isvp::mpi::coll
