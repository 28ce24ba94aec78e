// A time-ordered agenda of a block's own future work: a heap keyed by
// (time, insertion order), so items due at the same time come out in the
// order they were added — never in an order that depends on pointers or
// hashing. One agenda and one wake-up event per block replace a kernel
// event per pending item. No SystemC; times are integer ticks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace isvp {

template <typename Item>
class TimedAgenda {
  public:
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    /// Tick of the earliest item; the agenda must not be empty.
    std::uint64_t next_time() const { return heap_.front().time; }

    void push(std::uint64_t time, const Item& item) {
        heap_.push_back(Entry{time, sequence_++, item});
        sift_up(heap_.size() - 1);
    }
    /// Removes and returns the earliest item; the agenda must not be empty.
    Item pop() {
        Item item = heap_.front().item;
        heap_.front() = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) sift_down(0);
        return item;
    }

  private:
    struct Entry {
        std::uint64_t time;      ///< when the item is due, ticks
        std::uint64_t sequence;  ///< insertion order, breaks ties
        Item item;
    };
    static bool earlier(const Entry& a, const Entry& b) {
        return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
    }
    // A 4-ary heap: half the levels of a binary heap, and a node's children
    // share cache lines, so a push or pop touches fewer lines of memory
    // (the fabric-wide wake-up agenda holds an entry per busy router).
    static constexpr std::size_t kArity = 4;
    void sift_up(std::size_t index) {
        const Entry entry = heap_[index];
        while (index > 0) {
            const std::size_t parent = (index - 1) / kArity;
            if (!earlier(entry, heap_[parent])) break;
            heap_[index] = heap_[parent];
            index = parent;
        }
        heap_[index] = entry;
    }
    void sift_down(std::size_t index) {
        const Entry entry = heap_[index];
        const std::size_t size = heap_.size();
        for (;;) {
            const std::size_t first = kArity * index + 1;
            if (first >= size) break;
            const std::size_t last = std::min(first + kArity, size);
            std::size_t least = first;
            for (std::size_t child = first + 1; child < last; ++child)
                if (earlier(heap_[child], heap_[least])) least = child;
            if (!earlier(heap_[least], entry)) break;
            heap_[index] = heap_[least];
            index = least;
        }
        heap_[index] = entry;
    }

    std::vector<Entry> heap_;     ///< min-heap by (time, sequence); capacity is kept
    std::uint64_t sequence_ = 0;  ///< next insertion number
};

}  // namespace isvp
