// A FIFO on a ring buffer that keeps its storage: after the first few
// packets, pushing and popping never allocate. No SystemC.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace isvp {

template <typename T>
class RingQueue {
  public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    T& front() { return slots_[head_]; }
    const T& front() const { return slots_[head_]; }
    T& at(std::size_t index) { return slots_[wrap(head_ + index)]; }
    const T& at(std::size_t index) const { return slots_[wrap(head_ + index)]; }
    T& back() { return at(count_ - 1); }

    void push_back(const T& value) {
        if (count_ == slots_.size()) grow();
        slots_[wrap(head_ + count_)] = value;
        ++count_;
    }
    void pop_front() {
        head_ = wrap(head_ + 1);
        --count_;
    }

  private:
    /// Index modulo the capacity, for an index below twice the capacity.
    std::size_t wrap(std::size_t index) const { return index < slots_.size() ? index : index - slots_.size(); }
    void grow() {
        std::vector<T> larger(slots_.empty() ? 8 : 2 * slots_.size());
        for (std::size_t i = 0; i < count_; ++i) larger[i] = std::move(at(i));
        slots_ = std::move(larger);
        head_ = 0;
    }

    std::vector<T> slots_;   ///< storage; size is the capacity
    std::size_t head_ = 0;   ///< index of the front element
    std::size_t count_ = 0;  ///< elements held
};

}  // namespace isvp
