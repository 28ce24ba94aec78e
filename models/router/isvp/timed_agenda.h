// A time-ordered agenda of a block's own future work: a binary heap keyed by
// (time, insertion order), so items due at the same time come out in the
// order they were added — never in an order that depends on pointers or
// hashing. One agenda and one wake-up event per block replace a kernel
// event per pending item. No SystemC; times are integer ticks.
#pragma once

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
    void sift_up(std::size_t index) {
        while (index > 0) {
            const std::size_t parent = (index - 1) / 2;
            if (!earlier(heap_[index], heap_[parent])) break;
            std::swap(heap_[index], heap_[parent]);
            index = parent;
        }
    }
    void sift_down(std::size_t index) {
        for (;;) {
            const std::size_t left = 2 * index + 1;
            if (left >= heap_.size()) break;
            std::size_t least = left;
            if (left + 1 < heap_.size() && earlier(heap_[left + 1], heap_[left])) least = left + 1;
            if (!earlier(heap_[least], heap_[index])) break;
            std::swap(heap_[index], heap_[least]);
            index = least;
        }
    }

    std::vector<Entry> heap_;     ///< min-heap by (time, sequence); capacity is kept
    std::uint64_t sequence_ = 0;  ///< next insertion number
};

}  // namespace isvp
