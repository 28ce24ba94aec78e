// Credits travelling back to a sender, ordered by arrival tick. A link
// returns credits in the order the receiver freed its buffer, so arrivals
// are almost always non-decreasing: a push appends (or adds to the last
// entry when the tick is the same); an out-of-order arrival (a dropped
// packet's credits) is inserted in place. Only sums of due credits are ever
// asked for, so merging entries of one tick changes nothing. No SystemC;
// times are integer ticks.
//
// The earliest entry is kept inline and only later ones in a ring buffer:
// a router holds one queue per output VC beside that VC's credits, and most
// of the time at most one return is on its way, so a push and a fold touch
// the VC's own cache line and not the ring's storage. 32 bytes in all (the
// ring is its own, with 32-bit counters, so that the queue, the VC's credits,
// its arbiter and its wake-up tick share one line). Credits are 32-bit: what
// is in flight to one VC never exceeds the receiver's buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace isvp {

class CreditQueue {
  public:
    CreditQueue() = default;
    CreditQueue(const CreditQueue& other) { *this = other; }
    CreditQueue(CreditQueue&& other) noexcept { *this = std::move(other); }
    CreditQueue& operator=(CreditQueue&& other) noexcept {
        if (this == &other) return *this;
        head_tick_ = std::exchange(other.head_tick_, kNone);
        head_phits_ = std::exchange(other.head_phits_, 0);
        slots_ = std::move(other.slots_);
        capacity_ = std::exchange(other.capacity_, 0);
        first_ = std::exchange(other.first_, 0);
        count_ = std::exchange(other.count_, 0);
        return *this;
    }
    CreditQueue& operator=(const CreditQueue& other) {
        if (this == &other) return *this;
        head_tick_ = other.head_tick_;
        head_phits_ = other.head_phits_;
        slots_.reset(other.capacity_ ? new Entry[other.capacity_] : nullptr);
        capacity_ = other.capacity_;
        first_ = 0;
        count_ = other.count_;
        for (std::uint32_t i = 0; i < count_; ++i) slots_[i] = other.at(i);
        return *this;
    }

    bool empty() const { return head_tick_ == kNone; }
    std::size_t size() const { return empty() ? 0 : 1 + count_; }
    /// Tick of the earliest credits; the queue must not be empty.
    std::uint64_t next_time() const { return head_tick_; }

    void push(std::uint64_t tick, std::uint32_t phits) {
        if (empty()) {
            head_tick_ = tick;
            head_phits_ = phits;
        } else if (count_ == 0 ? tick == head_tick_ : tick == back().tick) {
            if (count_ == 0)
                head_phits_ += phits;
            else
                back().phits += phits;
        } else if (count_ == 0 ? tick > head_tick_ : tick > back().tick) {
            push_back(Entry{tick, phits});
        } else {
            insert_out_of_order(tick, phits);  // rare
        }
    }
    /// Removes the credits due at or before `now` and returns their sum.
    std::uint64_t pop_due(std::uint64_t now) {
        std::uint64_t sum = 0;
        while (!empty() && head_tick_ <= now) {
            sum += head_phits_;
            if (count_ == 0) {
                head_tick_ = kNone;
                head_phits_ = 0;
                break;
            }
            head_tick_ = slots_[first_].tick;
            head_phits_ = slots_[first_].phits;
            first_ = (first_ + 1) & (capacity_ - 1);
            --count_;
        }
        return sum;
    }
    /// Sum of every credit still travelling.
    std::uint64_t total() const {
        std::uint64_t sum = empty() ? 0 : head_phits_;
        for (std::uint32_t i = 0; i < count_; ++i) sum += at(i).phits;
        return sum;
    }

  private:
    static constexpr std::uint64_t kNone = ~std::uint64_t{0};
    struct Entry {
        std::uint64_t tick = 0;
        std::uint32_t phits = 0;
    };
    /// Puts credits earlier than the last entry where they belong: adds them
    /// to an entry of the same tick or makes a new one, keeping ticks sorted
    /// and distinct.
    void insert_out_of_order(std::uint64_t tick, std::uint32_t phits) {
        std::vector<Entry> all;
        all.reserve(size() + 1);
        all.push_back(Entry{head_tick_, head_phits_});
        for (std::uint32_t i = 0; i < count_; ++i) all.push_back(at(i));
        const auto place = std::lower_bound(all.begin(), all.end(), tick,
                                            [](const Entry& entry, std::uint64_t value) { return entry.tick < value; });
        if (place != all.end() && place->tick == tick)
            place->phits += phits;
        else
            all.insert(place, Entry{tick, phits});
        head_tick_ = all.front().tick;
        head_phits_ = all.front().phits;
        first_ = 0;
        count_ = 0;
        for (std::size_t i = 1; i < all.size(); ++i) push_back(all[i]);
    }
    // The ring of later entries: capacity a power of two, index by mask.
    const Entry& at(std::uint32_t index) const { return slots_[(first_ + index) & (capacity_ - 1)]; }
    Entry& back() { return slots_[(first_ + count_ - 1) & (capacity_ - 1)]; }
    void push_back(const Entry& entry) {
        if (count_ == capacity_) grow();
        slots_[(first_ + count_) & (capacity_ - 1)] = entry;
        ++count_;
    }
    void grow() {
        const std::uint32_t larger = capacity_ == 0 ? 8 : 2 * capacity_;
        std::unique_ptr<Entry[]> slots(new Entry[larger]);
        for (std::uint32_t i = 0; i < count_; ++i) slots[i] = at(i);
        slots_ = std::move(slots);
        capacity_ = larger;
        first_ = 0;
    }

    std::uint64_t head_tick_ = kNone;  ///< earliest entry's tick, kNone when empty
    std::unique_ptr<Entry[]> slots_;   ///< the later entries, by tick, ticks distinct
    std::uint32_t head_phits_ = 0;     ///< earliest entry's credits (at most a VC buffer's)
    std::uint32_t capacity_ = 0;       ///< of slots_: 0 or a power of two
    std::uint32_t first_ = 0;          ///< index of the ring's first entry
    std::uint32_t count_ = 0;          ///< entries in the ring
};

static_assert(sizeof(CreditQueue) == 32, "shares a cache line with a router output VC's other state");

}  // namespace isvp
