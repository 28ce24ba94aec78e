// The switch's CGR units and their AgLUs, SystemC-free (docs/COLLECTIVES.md,
// "CGR units"). CgrPool hands the units to collectives (owners: context IDs)
// that have a chunk to combine, first come first served; an owner holds a
// unit only while it has chunks in the AgLUs, never while it waits for a
// peer, so there is no hold-and-wait across switches. AgluLanes places a
// chunk's vector bursts on a unit's vectorised AgLUs and says when the
// chunk is final. Times are plain integers in the caller's time unit
// (CollectiveEngine: sc_time values); the AgLU latencies and the clock
// period are inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace isvp {

class CgrPool {
  public:
    /// `units`: CGR units (collective.cgr_units); `owners`: owner IDs 0..owners-1.
    CgrPool(unsigned units, unsigned owners);

    /// A unit for `owner`, which has a chunk to combine at time `now`: true
    /// when it holds one (now or already). Otherwise it joins the FIFO of
    /// waiters (if not in it yet; counted in waits()) and should ask again
    /// when first_waiter() names it and a unit is free.
    bool acquire(unsigned owner, std::uint64_t now);
    /// Gives `owner`'s unit back (its chunks left the AgLUs, or it ended)
    /// and takes it out of the waiters' FIFO; the time it waited is counted.
    void release(unsigned owner, std::uint64_t now);

    bool holds(unsigned owner) const { return unit_of_[owner] >= 0; }
    bool waiting(unsigned owner) const { return waiting_[owner]; }
    bool has_waiters() const { return !queue_.empty(); }
    /// The oldest waiter (has_waiters() must be true).
    unsigned first_waiter() const { return queue_.front(); }
    bool has_free_unit() const;
    /// Times an owner had to wait for a unit, and the total time waited.
    std::uint64_t waits() const { return waits_; }
    std::uint64_t wait_time() const { return wait_time_; }

  private:
    std::vector<int> holder_;                ///< per unit: the owner holding it (-1: free)
    std::vector<int> unit_of_;               ///< per owner: the unit it holds (-1: none)
    std::vector<bool> waiting_;              ///< per owner: in queue_
    std::vector<std::uint64_t> wait_since_;  ///< per owner: joined queue_ at
    std::deque<unsigned> queue_;             ///< waiting owners, in arrival order
    std::uint64_t waits_ = 0;                ///< owners that had to wait
    std::uint64_t wait_time_ = 0;            ///< total time waited
};

/// The vectorised AgLUs of the CGR unit a collective combines in: when each
/// is free. A chunk of V 256-bit vectors is split into bursts over at most
/// parts(V) of them; a burst of `count` vectors occupies its AgLU `count`
/// cycles from its start and is final `latency` cycles after it
/// (AgluEngine: pipeline_stages + count - 1).
class AgluLanes {
  public:
    /// `aglus` lanes, all free from `now`.
    void reset(unsigned aglus, std::uint64_t now) { free_.assign(aglus, now); }
    /// Bursts a chunk of `vectors` is split into: one per AgLU it may use
    /// (at most `width` at once, the datapath's phits per cycle).
    std::size_t parts(std::size_t vectors, unsigned width) const;
    /// Places one burst of `count` vectors on the AgLU free first, not
    /// before `now`; returns when its result is final (`latency` cycles of
    /// `cycle` after its start).
    std::uint64_t issue(std::uint64_t now, std::uint64_t count, std::uint64_t latency, std::uint64_t cycle);
    const std::vector<std::uint64_t>& free_at() const { return free_; }

  private:
    std::vector<std::uint64_t> free_;  ///< per AgLU: free from
};

}  // namespace isvp
