// Credits travelling back to a sender, ordered by arrival tick. A link
// returns credits in the order the receiver freed its buffer, so arrivals
// are almost always non-decreasing: a push appends (or adds to the last
// entry when the tick is the same) and the queue is a plain ring buffer;
// an out-of-order arrival (a dropped packet's credits) is inserted in
// place. Only sums of due credits are ever asked for, so merging entries
// of one tick changes nothing. No SystemC; times are integer ticks.
#pragma once

#include <cstdint>
#include <utility>

#include "isvp/ring_queue.h"

namespace isvp {

class CreditQueue {
  public:
    bool empty() const { return entries_.empty(); }
    std::size_t size() const { return entries_.size(); }
    /// Tick of the earliest credits; the queue must not be empty.
    std::uint64_t next_time() const { return entries_.front().tick; }

    void push(std::uint64_t tick, std::uint32_t phits) {
        if (!entries_.empty() && entries_.back().tick == tick) {
            entries_.back().phits += phits;
            return;
        }
        entries_.push_back(Entry{tick, phits});
        for (std::size_t index = entries_.size() - 1; index > 0 && entries_.at(index - 1).tick > tick; --index)
            std::swap(entries_.at(index - 1), entries_.at(index));  // rare: out of order
    }
    /// Removes the credits due at or before `now` and returns their sum.
    std::uint64_t pop_due(std::uint64_t now) {
        std::uint64_t sum = 0;
        while (!entries_.empty() && entries_.front().tick <= now) {
            sum += entries_.front().phits;
            entries_.pop_front();
        }
        return sum;
    }
    /// Sum of every credit still travelling.
    std::uint64_t total() const {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < entries_.size(); ++i) sum += entries_.at(i).phits;
        return sum;
    }

  private:
    struct Entry {
        std::uint64_t tick = 0;
        std::uint64_t phits = 0;
    };
    RingQueue<Entry> entries_;  ///< by tick, ticks distinct
};

}  // namespace isvp
