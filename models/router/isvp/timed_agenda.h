// A time-ordered agenda of a block's own future work: a heap keyed by
// (time, insertion order), so items due at the same time come out in the
// order they were added — never in an order that depends on pointers or
// hashing. One agenda and one wake-up event per block replace a kernel
// event per pending item. No SystemC; times are integer ticks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "isvp/heap_moves.h"

namespace isvp {

namespace timed_agenda_detail {

/// An item of at most 4 bytes that can be copied as bytes (a router's
/// agenda item, a client id) shares one 64-bit word with its insertion
/// number: an entry is 16 bytes, so a 4-ary heap node's children are one
/// cache line, not two.
template <typename Item>
constexpr bool kPacked = sizeof(Item) <= 4 && std::is_trivially_copyable_v<Item> &&
                         std::is_default_constructible_v<Item>;

template <typename Item, bool Packed = kPacked<Item>>
struct Entry {
    std::uint64_t time;      ///< when the item is due, ticks
    std::uint64_t sequence;  ///< insertion order, breaks ties
    Item item;

    static constexpr std::uint64_t kSequenceLimit = ~std::uint64_t{0};
    Entry() = default;
    Entry(std::uint64_t at, std::uint64_t order, const Item& value) : time(at), sequence(order), item(value) {}
    std::uint64_t order() const { return sequence; }
    void renumber(std::uint64_t order) { sequence = order; }
    Item value() const { return item; }
};

template <typename Item>
struct Entry<Item, true> {
    std::uint64_t time;  ///< when the item is due, ticks
    std::uint64_t key;   ///< insertion order (high 32 bits) and the item's bytes (low 32)

    static constexpr std::uint64_t kSequenceLimit = std::uint64_t{1} << 32;
    Entry() = default;
    Entry(std::uint64_t at, std::uint64_t order, const Item& value) : time(at), key(order << 32) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof(Item));
        key |= bits;
    }
    std::uint64_t order() const { return key; }  // the item's bytes never decide: orders are distinct
    void renumber(std::uint64_t order) { key = (order << 32) | (key & 0xffffffffu); }
    Item value() const {
        Item item;
        const auto bits = static_cast<std::uint32_t>(key);
        std::memcpy(static_cast<void*>(&item), &bits, sizeof(Item));  // trivially copyable (kPacked)
        return item;
    }
};

}  // namespace timed_agenda_detail

/// `SequenceLimit` (tests only) renumbers after that many insertions
/// instead of the entry's own limit. `InlineEntries` entries are held in the
/// agenda object itself (a power of two, or 0): an agenda that mostly holds
/// a few items (a router's) pushes and pops without touching separate
/// storage; more spill to a heap array until it is empty again.
template <typename Item, std::uint64_t SequenceLimit = 0, std::uint32_t InlineEntries = 0>
class TimedAgenda {
    using Entry = timed_agenda_detail::Entry<Item>;

  public:
    TimedAgenda() = default;
    TimedAgenda(const TimedAgenda& other) { *this = other; }
    TimedAgenda& operator=(const TimedAgenda& other) {
        if (this == &other) return *this;
        size_ = 0;
        reserve(other.size_);
        std::copy_n(other.data_, other.size_, data_);
        size_ = other.size_;
        sequence_ = other.sequence_;
        return *this;
    }

    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    /// Tick of the earliest item; the agenda must not be empty.
    std::uint64_t next_time() const { return data_[0].time; }
    /// The earliest item, the one pop() returns next; the agenda must not be empty.
    Item next_item() const { return data_[0].value(); }

    void push(std::uint64_t time, const Item& item) {
        if (sequence_ >= kSequenceLimit) renumber();
        if (size_ == capacity()) reserve(size_ + 1);
        data_[size_] = Entry(time, sequence_++, item);
        sift_up(size_++);
    }
    /// Removes and returns the earliest item; the agenda must not be empty.
    Item pop() {
        Item item = data_[0].value();
        data_[0] = data_[--size_];
        if (size_ != 0)
            sift_down(0);
        else if constexpr (InlineEntries != 0)
            use_inline();  // empty again: back to the inline entries (the spilled array is kept)
        return item;
    }

  private:
    static constexpr std::uint64_t kSequenceLimit = SequenceLimit != 0 ? SequenceLimit : Entry::kSequenceLimit;
    static_assert((InlineEntries & (InlineEntries - 1)) == 0, "inline entries: a power of two, or none");
    // Entries are kept in arrays (inline and spilled) and popped ones stay
    // there until overwritten: items must be default-constructible and
    // trivially destructible.
    static_assert(std::is_trivially_destructible_v<Item>, "agenda items are left in place when popped");
    static bool earlier(const Entry& a, const Entry& b) {
        if constexpr (timed_agenda_detail::kPacked<Item>) {
            // One 128-bit comparison (no branch on equal times).
            __extension__ typedef unsigned __int128 Wide;  // GCC/Clang; __extension__: no -Wpedantic warning
            return ((Wide{a.time} << 64) | a.order()) < ((Wide{b.time} << 64) | b.order());
        } else {
            return a.time != b.time ? a.time < b.time : a.order() < b.order();
        }
    }
    /// Entries data_ has room for.
    std::uint32_t capacity() const { return data_ == inline_ ? InlineEntries : spilled_capacity_; }
    /// Room for `count` entries at data_, the held ones kept.
    void reserve(std::size_t count) {
        if (count <= capacity()) return;
        if (count > spilled_capacity_) {  // the spilled array from before (if any) is too small
            std::size_t larger = std::max<std::size_t>(8, 2 * std::max<std::size_t>(InlineEntries, spilled_capacity_));
            while (larger < count) larger *= 2;
            std::unique_ptr<Entry[]> entries(new Entry[larger]);
            std::copy_n(data_, size_, entries.get());
            spilled_ = std::move(entries);
            spilled_capacity_ = static_cast<std::uint32_t>(larger);
        } else {
            std::copy_n(data_, size_, spilled_.get());  // data_ is inline_ here
        }
        data_ = spilled_.get();
    }
    void use_inline() { data_ = inline_; }
    /// Insertion numbers ran out (2^32 pushes into a packed agenda): number
    /// the held entries 0, 1, ... in their order, which keeps every
    /// comparison's outcome. A sorted array is a heap.
    void renumber() {
        std::sort(data_, data_ + size_, earlier);
        for (std::size_t i = 0; i < size_; ++i) data_[i].renumber(i);
        sequence_ = size_;
    }
    // A 4-ary heap (heap_moves.h, shared with the flow solver and the guest
    // transport's rank heap).
    // A lambda, not the function's address: the comparison is inlined.
    static constexpr auto kEarlier = [](const Entry& a, const Entry& b) { return earlier(a, b); };
    void sift_up(std::size_t index) { heap_moves::sift_up(data_, index, kEarlier); }
    void sift_down(std::size_t index) { heap_moves::sift_down(data_, size_, index, kEarlier); }

    Entry* data_ = inline_;                                 ///< min-heap by (time, insertion order)
    std::uint32_t size_ = 0;                                ///< entries held
    std::uint32_t spilled_capacity_ = 0;                    ///< entries of spilled_
    std::uint64_t sequence_ = 0;                            ///< next insertion number
    std::unique_ptr<Entry[]> spilled_;                      ///< storage beyond the inline entries, kept
    Entry inline_[InlineEntries == 0 ? 1 : InlineEntries];  ///< the first entries, while they fit
};

}  // namespace isvp
