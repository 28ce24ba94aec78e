// A FIFO on a ring buffer that keeps its storage: after the first few
// packets, pushing and popping never allocate. No SystemC.
//
// Small on purpose (a pointer and three 32-bit counters): a router's input VC
// keeps the packets behind its head in one and an output VC its later
// credits (CreditQueue), both inside line-sized records a hop reads. The
// capacity is a power of two, so an index wraps with a mask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace isvp {

template <typename T>
class RingQueue {
  public:
    RingQueue() = default;
    RingQueue(const RingQueue& other) { *this = other; }
    RingQueue(RingQueue&& other) noexcept { *this = std::move(other); }
    /// Leaves `other` empty (and without storage).
    RingQueue& operator=(RingQueue&& other) noexcept {
        if (this == &other) return *this;
        slots_ = std::move(other.slots_);
        capacity_ = std::exchange(other.capacity_, 0);
        head_ = std::exchange(other.head_, 0);
        count_ = std::exchange(other.count_, 0);
        return *this;
    }
    RingQueue& operator=(const RingQueue& other) {
        if (this == &other) return *this;
        slots_.reset(other.capacity_ ? new T[other.capacity_] : nullptr);
        capacity_ = other.capacity_;
        head_ = 0;
        count_ = other.count_;
        for (std::uint32_t i = 0; i < count_; ++i) slots_[i] = other.at(i);
        return *this;
    }

    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    T& front() { return slots_[head_]; }
    const T& front() const { return slots_[head_]; }
    T& at(std::size_t index) { return slots_[wrap(head_ + index)]; }
    const T& at(std::size_t index) const { return slots_[wrap(head_ + index)]; }
    T& back() { return at(count_ - 1); }

    void push_back(const T& value) {
        if (count_ == capacity_) grow();
        slots_[wrap(head_ + count_)] = value;
        ++count_;
    }
    /// Empties the queue; its storage is kept.
    void clear() {
        head_ = 0;
        count_ = 0;
    }
    void pop_front() {
        head_ = static_cast<std::uint32_t>(wrap(head_ + 1));
        --count_;
    }

  private:
    /// Index modulo the capacity (a power of two).
    std::size_t wrap(std::size_t index) const { return index & (capacity_ - 1); }
    void grow() {
        const std::uint32_t larger = capacity_ == 0 ? 8 : 2 * capacity_;
        std::unique_ptr<T[]> slots(new T[larger]);
        for (std::uint32_t i = 0; i < count_; ++i) slots[i] = std::move(at(i));
        slots_ = std::move(slots);
        capacity_ = larger;
        head_ = 0;
    }

    std::unique_ptr<T[]> slots_;  ///< storage of capacity_ elements
    std::uint32_t capacity_ = 0;  ///< 0 or a power of two
    std::uint32_t head_ = 0;      ///< index of the front element
    std::uint32_t count_ = 0;     ///< elements held
};

}  // namespace isvp
