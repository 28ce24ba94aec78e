// Credits travelling back to a sender, ordered by arrival tick. A link
// returns credits in the order the receiver freed its buffer, so arrivals
// are almost always non-decreasing: a push appends (or adds to the last
// entry when the tick is the same); an out-of-order arrival (a dropped
// packet's credits) is inserted in place. Only sums of due credits are ever
// asked for, so merging entries of one tick changes nothing. No SystemC;
// times are integer ticks.
//
// The earliest entry is kept inline and only later ones in a RingQueue: a
// router holds one queue per output VC beside that VC's credits, and most of
// the time at most one return is on its way, so a push and a fold touch the
// VC's own cache line and not the ring's storage. 32 bytes in all: the ring
// is a private base, so the head's credits sit in its tail padding, and the
// queue, the VC's credits, its arbiter and its wake-up tick share one line.
// Credits are 32-bit: what is in flight to one VC never exceeds the
// receiver's buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "isvp/ring_queue.h"

namespace isvp {

namespace credit_queue_detail {
struct Entry {
    std::uint64_t tick = 0;
    std::uint32_t phits = 0;
};
}  // namespace credit_queue_detail

class CreditQueue : private RingQueue<credit_queue_detail::Entry> {
    using Entry = credit_queue_detail::Entry;
    using Rest = RingQueue<Entry>;  ///< the entries after the earliest, by tick, ticks distinct

  public:
    CreditQueue() = default;
    CreditQueue(const CreditQueue&) = default;
    CreditQueue& operator=(const CreditQueue&) = default;
    /// Moving leaves `other` empty.
    CreditQueue(CreditQueue&& other) noexcept { *this = std::move(other); }
    CreditQueue& operator=(CreditQueue&& other) noexcept {
        if (this == &other) return *this;
        Rest::operator=(std::move(other));
        head_phits_ = std::exchange(other.head_phits_, 0);
        head_tick_ = std::exchange(other.head_tick_, kNone);
        return *this;
    }

    bool empty() const { return head_tick_ == kNone; }
    std::size_t size() const { return empty() ? 0 : 1 + rest().size(); }
    /// Tick of the earliest credits; the queue must not be empty.
    std::uint64_t next_time() const { return head_tick_; }

    void push(std::uint64_t tick, std::uint32_t phits) {
        if (empty()) {
            head_tick_ = tick;
            head_phits_ = phits;
        } else if (rest().empty() ? tick == head_tick_ : tick == back().tick) {
            (rest().empty() ? head_phits_ : back().phits) += phits;
        } else if (rest().empty() ? tick > head_tick_ : tick > back().tick) {
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
            if (rest().empty()) {
                head_tick_ = kNone;
                head_phits_ = 0;
                break;
            }
            head_tick_ = front().tick;
            head_phits_ = front().phits;
            pop_front();
        }
        return sum;
    }
    /// Sum of every credit still travelling.
    std::uint64_t total() const {
        std::uint64_t sum = empty() ? 0 : head_phits_;
        for (std::size_t i = 0; i < rest().size(); ++i) sum += at(i).phits;
        return sum;
    }

  private:
    static constexpr std::uint64_t kNone = ~std::uint64_t{0};
    const Rest& rest() const { return *this; }
    /// Puts credits earlier than the last entry where they belong: adds them
    /// to an entry of the same tick or makes a new one, keeping ticks sorted
    /// and distinct.
    void insert_out_of_order(std::uint64_t tick, std::uint32_t phits) {
        std::vector<Entry> all;
        all.reserve(size() + 1);
        all.push_back(Entry{head_tick_, head_phits_});
        for (std::size_t i = 0; i < rest().size(); ++i) all.push_back(at(i));
        const auto place = std::lower_bound(all.begin(), all.end(), tick,
                                            [](const Entry& entry, std::uint64_t value) { return entry.tick < value; });
        if (place != all.end() && place->tick == tick)
            place->phits += phits;
        else
            all.insert(place, Entry{tick, phits});
        head_tick_ = all.front().tick;
        head_phits_ = all.front().phits;
        Rest::clear();
        for (std::size_t i = 1; i < all.size(); ++i) push_back(all[i]);
    }

    std::uint32_t head_phits_ = 0;     ///< earliest entry's credits (in the ring's tail padding)
    std::uint64_t head_tick_ = kNone;  ///< earliest entry's tick, kNone when empty
};

static_assert(sizeof(CreditQueue) == 32, "shares a cache line with a router output VC's other state");

}  // namespace isvp
