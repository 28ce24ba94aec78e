// SyncCore: the conservative, exact, deterministic synchronisation of guest
// ranks with the simulator (DESIGN §4), as plain bookkeeping with no SystemC
// and no I/O — the GuestScheduler drives SystemC from its decisions.
//
// A rank is
//   * Running      — its next request will carry a time >= clock(rank); its
//                    requests queue here in the order they arrive;
//   * InSimulator  — a read or a wait is being executed by the platform; the
//                    rank cannot send until it is answered (complete());
//   * Finished     — it sent Finish;
//   * Dead         — it left without Finish, or was ended (protocol error,
//                    deadlock, abort).
// next() decides: while some running rank has not blocked — its queue is
// empty or holds only posted writes — the scheduler waits for it: it could
// still send an earlier request, and it is still running, so it may be
// reading or writing its host memory, which the platform must not touch
// meanwhile (a DMA would race with the guest in wall time). Once every live
// rank has blocked (its queue ends with a read, a wait, Finish, or its
// leaving) or is InSimulator, the earliest queued request (time, then rank)
// executes; when every live rank is InSimulator the platform runs until one
// is answered.
// The decisions depend only on the requests' contents, never on the order in
// which ranks' messages arrived, which is what makes runs repeatable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "isvp/transport_protocol.h"

namespace isvp::transport {

enum class RankState { Running, InSimulator, Finished, Dead };

/// Requests one rank may queue without blocking (posted writes).
inline constexpr std::size_t kMaxQueued = std::size_t{1} << 20;

/// The ranks that hold an entry, each with a time, least (time, then rank)
/// first: a 4-ary min-heap (heap_moves.h) that finds each rank's entry by
/// its slot.
/// It allocates only when built (a std::set of (time, rank) allocated a
/// node for every request the scheduler queued or took).
class RankHeap {
  public:
    /// For ranks 0 .. `ranks` - 1.
    explicit RankHeap(std::size_t ranks);

    bool empty() const { return heap_.empty(); }
    /// The least (time, rank); the heap must not be empty.
    const std::pair<std::uint64_t, int>& top() const { return heap_.front(); }
    /// Puts `rank` in at `time`, or moves its entry there.
    void set(int rank, std::uint64_t time);
    /// Takes `rank` out, if it is in.
    void erase(int rank);

  private:
    static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

    void sift_up(std::size_t at);
    void sift_down(std::size_t at);
    /// Puts `entry` at heap_[at] and notes its slot.
    void place(std::size_t at, const std::pair<std::uint64_t, int>& entry);

    using Entry = std::pair<std::uint64_t, int>;
    std::vector<Entry> heap_;                          ///< (time, rank), a heap on the pair's order
    std::vector<std::size_t> slot_;                    ///< by rank: its index in heap_, or kAbsent
};

class SyncCore {
  public:
    /// `bar_bytes`: size of BAR0; MMIO offsets must be aligned and below it.
    SyncCore(int ranks, std::uint32_t bar_bytes);

    int ranks() const { return static_cast<int>(ranks_.size()); }

    /// A well-formed request from `rank` (not Hello). Returns "" when queued,
    /// otherwise what is wrong with it (the caller then ends the rank).
    std::string accept(int rank, const Message& request);
    /// The rank's link closed: it leaves after its queued requests, at once
    /// if a read or wait is outstanding. No effect once it finished or died.
    void leave(int rank, const std::string& reason);
    /// Ends `rank` now, dropping its queue (protocol error, deadlock, abort).
    void end(int rank, const std::string& reason);

    struct Decision {
        enum class Kind {
            Done,           ///< no live rank is left
            WaitForGuests,  ///< a running rank has not blocked yet: wait for messages
            Execute,        ///< execute rank's queued request at time_ps
            RunUntilWake,   ///< every live rank waits on the platform
        };
        Kind kind = Kind::Done;
        int rank = -1;              ///< Execute: whose request
        std::uint64_t time_ps = 0;  ///< Execute: its time
        bool simulated = true;      ///< Execute: needs the platform (false for Finish, leaving)
    };
    Decision next() const;

    /// One queued item: a request, or the rank leaving.
    struct Entry {
        Message message;       ///< the request (time_ps also for leaving)
        bool leaving = false;  ///< not a request: the rank's link closed
        std::string reason;    ///< why it left
    };
    /// Removes the front entry of `rank` (the one next() chose) and moves the
    /// rank on: a read or wait makes it InSimulator, Finish Finished, leaving Dead.
    Entry pop(int rank);
    /// The front entry's request (what pop() would return); the queue must
    /// not be empty.
    const Message& front(int rank) const;

    /// The outstanding read or wait of `rank` was answered at `time_ps`.
    /// Returns false (and changes nothing) if the rank was not waiting.
    bool complete(int rank, std::uint64_t time_ps);

    RankState state(int rank) const { return ranks_.at(rank).state; }
    /// The rank's link closed without Finish and its departure is queued
    /// (still live: not taken yet).
    bool leaving(int rank) const { return ranks_.at(rank).leaving && live(rank); }
    bool live(int rank) const;
    /// Running and not blocked: the rank computes outside the platform (its
    /// queue is empty or holds only posted writes), so nothing executes
    /// until it sends a read, a wait, Finish or leaves.
    bool idle(int rank) const { return index_.at(static_cast<std::size_t>(rank)).idle; }
    /// Requests accepted from the rank so far.
    std::uint64_t requests(int rank) const { return ranks_.at(rank).requests; }
    /// Lower bound of the time of the rank's next request.
    std::uint64_t clock(int rank) const { return ranks_.at(rank).clock_ps; }
    /// Time of Finish, for a finished rank.
    std::uint64_t finish_time(int rank) const { return ranks_.at(rank).finish_ps; }
    /// Why the rank ended (Dead).
    const std::string& reason(int rank) const { return ranks_.at(rank).reason; }
    /// The read or wait being executed for an InSimulator rank.
    const std::optional<Message>& outstanding(int rank) const { return ranks_.at(rank).outstanding; }
    /// Every rank's situation in one line, for deadlock and abort messages.
    std::string describe() const;
    /// The InSimulator ranks.
    std::vector<int> blocked() const;

  private:
    struct Rank {
        RankState state = RankState::Running;  ///< see RankState
        std::uint64_t clock_ps = 0;            ///< next request's time is >= this
        std::deque<Entry> queue;               ///< requests not executed yet, in arrival order
        std::optional<Message> outstanding;    ///< the read or wait the platform executes
        bool finish_queued = false;            ///< Finish is queued or done: nothing may follow
        bool leaving = false;                  ///< the link closed; leaving is queued
        std::uint64_t finish_ps = 0;           ///< Finish time
        std::optional<Message> last;           ///< the latest request accepted (for reports)
        std::uint64_t requests = 0;            ///< requests accepted
        std::string reason;                    ///< why it died
    };

    /// Where a rank stands in the indexes next() reads.
    struct Index {
        bool live = false;               ///< Running or InSimulator
        bool idle = false;               ///< Running and not blocked: queue empty or only posted writes
        bool quick = false;              ///< Running with Finish or leaving at the front
        std::optional<std::uint64_t> front;  ///< Running, front needs the platform: its time
    };

    Rank& at(int rank);
    /// Recomputes the rank's Index after any change to it and updates the
    /// sets, so next() is O(log ranks) instead of a scan of every rank.
    void reindex(int rank);

    std::vector<Rank> ranks_;  ///< by rank
    std::uint32_t bar_bytes_;  ///< BAR0 size

    std::vector<Index> index_;                             ///< by rank: its current membership below
    int live_count_ = 0;                                   ///< ranks with Index::live
    int idle_count_ = 0;                                   ///< ranks with Index::idle
    RankHeap quick_;                                       ///< ranks with Index::quick (time 0), lowest first
    RankHeap fronts_;                                      ///< (front time, rank), earliest first
};

/// One-line description of a request, "MmioRead of 0x20 at 1.000000 us".
std::string describe_request(const Message& request);

/// "rank 3", "ranks 0, 2", "ranks 0, 1, 2, 3, 4, 5, 6, 7 and 12 more".
std::string list_ranks(const std::vector<int>& ranks);

/// Ranks as runs, for a line that stands for many ranks: "rank 3",
/// "ranks 0-7", "ranks 0-2, 4-1023"; in any order, repeats ignored; after
/// kRankRunsListed runs, "and N more ranks".
std::string list_rank_ranges(std::vector<int> ranks);
inline constexpr std::size_t kRankRunsListed = 16;

}  // namespace isvp::transport
