// Credits travelling back to a sender, ordered by arrival tick. A link
// returns credits in the order the receiver freed its buffer, so arrivals
// are almost always non-decreasing: a push appends (or adds to the last
// entry when the tick is the same) and the queue is a plain ring buffer;
// an out-of-order arrival (a dropped packet's credits) is inserted in
// place. Only sums of due credits are ever asked for, so merging entries
// of one tick changes nothing. No SystemC; times are integer ticks.
#pragma once

#include <cstdint>
#include <vector>

namespace isvp {

class CreditQueue {
  public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    /// Tick of the earliest credits; the queue must not be empty.
    std::uint64_t next_time() const { return slots_[head_].tick; }

    void push(std::uint64_t tick, std::uint32_t phits) {
        if (count_ != 0) {
            Entry& last = at(count_ - 1);
            if (last.tick == tick) {
                last.phits += phits;
                return;
            }
        }
        if (count_ == slots_.size()) grow();
        std::size_t index = count_++;
        while (index > 0 && at(index - 1).tick > tick) {  // rare: out of order
            at(index) = at(index - 1);
            --index;
        }
        at(index) = Entry{tick, phits};
    }
    /// Removes the credits due at or before `now` and returns their sum.
    std::uint64_t pop_due(std::uint64_t now) {
        std::uint64_t sum = 0;
        while (count_ != 0 && slots_[head_].tick <= now) {
            sum += slots_[head_].phits;
            head_ = head_ + 1 == slots_.size() ? 0 : head_ + 1;
            --count_;
        }
        return sum;
    }
    /// Sum of every credit still travelling.
    std::uint64_t total() const {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < count_; ++i) sum += slots_[(head_ + i) % slots_.size()].phits;
        return sum;
    }

  private:
    struct Entry {
        std::uint64_t tick;
        std::uint64_t phits;
    };
    Entry& at(std::size_t index) {
        const std::size_t slot = head_ + index;
        return slots_[slot < slots_.size() ? slot : slot - slots_.size()];
    }
    void grow() {
        std::vector<Entry> larger(slots_.empty() ? 8 : 2 * slots_.size());
        for (std::size_t i = 0; i < count_; ++i) larger[i] = at(i);
        slots_ = std::move(larger);
        head_ = 0;
    }

    std::vector<Entry> slots_;  ///< storage; size is the capacity
    std::size_t head_ = 0;      ///< index of the earliest entry
    std::size_t count_ = 0;     ///< entries held
};

}  // namespace isvp
