// Index arithmetic of QDMA rings (SystemC-free).
//
// A ring of N entries (regmap::RING_SIZE) uses entries 0 .. N-2; entry N-1
// holds the status writeback, so indices wrap at N-1. Producer index (PIDX)
// == consumer index (CIDX) means empty; the producer may run up to one slot
// short of the consumer, so at most N-2 entries are outstanding.
#pragma once

#include <cstdint>

namespace isvp {

class RingIndex {
  public:
    explicit RingIndex(std::uint32_t entries = 64) : entries_(entries < 2 ? 2 : entries) {}

    std::uint32_t entries() const { return entries_; }
    /// Usable slots (indices 0 .. slots()-1).
    std::uint32_t slots() const { return entries_ - 1; }
    /// Index of the status-writeback entry.
    std::uint32_t status_index() const { return entries_ - 1; }
    /// True for an index a doorbell may carry.
    bool valid(std::uint32_t index) const { return index < slots(); }

    std::uint32_t next(std::uint32_t index) const { return index + 1 == slots() ? 0 : index + 1; }
    std::uint32_t advance(std::uint32_t index, std::uint32_t count) const {
        return static_cast<std::uint32_t>((static_cast<std::uint64_t>(index) + count) % slots());
    }
    /// Entries from `from` up to (not including) `to`: PIDX - CIDX on the ring.
    std::uint32_t distance(std::uint32_t from, std::uint32_t to) const {
        return to >= from ? to - from : slots() - from + to;
    }
    /// True when a producer at `pidx` may not add an entry before `cidx` moves.
    bool full(std::uint32_t pidx, std::uint32_t cidx) const { return next(pidx) == cidx; }
    /// Entries from `index` to the end of the usable slots (before the wrap).
    std::uint32_t until_wrap(std::uint32_t index) const { return slots() - index; }

  private:
    std::uint32_t entries_;  ///< N, including the status entry
};

/// The producer of a completion ring: hands out entry indices and the colour
/// each entry carries. The colour starts at 1 and flips each time the
/// producer index wraps to 0.
class CompletionProducer {
  public:
    struct Slot {
        std::uint32_t index;  ///< ring index to write
        bool colour;          ///< colour bit of that entry
    };

    explicit CompletionProducer(RingIndex ring = RingIndex()) : ring_(ring) {}

    /// Claims the next entry. The caller checks full() first.
    Slot produce() {
        const Slot slot{pidx_, colour_};
        pidx_ = ring_.next(pidx_);
        if (pidx_ == 0) colour_ = !colour_;
        return slot;
    }
    bool full(std::uint32_t consumer_cidx) const { return ring_.full(pidx_, consumer_cidx); }
    std::uint32_t pidx() const { return pidx_; }
    /// Colour the next entry will carry.
    bool colour() const { return colour_; }
    const RingIndex& ring() const { return ring_; }

  private:
    RingIndex ring_;          ///< geometry
    std::uint32_t pidx_ = 0;  ///< next entry to write
    bool colour_ = true;      ///< colour of the next entry
};

}  // namespace isvp
