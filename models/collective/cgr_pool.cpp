#include "isvp/cgr_pool.h"

#include <algorithm>

namespace isvp {

CgrPool::CgrPool(unsigned units, unsigned owners)
    : holder_(units, -1), unit_of_(owners, -1), waiting_(owners, false), wait_since_(owners, 0) {}

bool CgrPool::has_free_unit() const {
    return std::find(holder_.begin(), holder_.end(), -1) != holder_.end();
}

bool CgrPool::acquire(unsigned owner, std::uint64_t now) {
    if (unit_of_[owner] >= 0) return true;
    // First come first served: a unit goes to the oldest waiter.
    if (queue_.empty() || queue_.front() == owner) {
        const auto free = std::find(holder_.begin(), holder_.end(), -1);
        if (free != holder_.end()) {
            *free = static_cast<int>(owner);
            unit_of_[owner] = static_cast<int>(free - holder_.begin());
            if (waiting_[owner]) {
                queue_.pop_front();
                waiting_[owner] = false;
                wait_time_ += now - wait_since_[owner];
            }
            return true;
        }
    }
    if (!waiting_[owner]) {
        waiting_[owner] = true;
        wait_since_[owner] = now;
        queue_.push_back(owner);
        ++waits_;
    }
    return false;
}

void CgrPool::release(unsigned owner, std::uint64_t now) {
    if (waiting_[owner]) {
        queue_.erase(std::find(queue_.begin(), queue_.end(), owner));
        waiting_[owner] = false;
        wait_time_ += now - wait_since_[owner];
    }
    if (unit_of_[owner] >= 0) {
        holder_[static_cast<std::size_t>(unit_of_[owner])] = -1;
        unit_of_[owner] = -1;
    }
}

std::size_t AgluLanes::parts(std::size_t vectors, unsigned width) const {
    return std::min<std::size_t>({free_.size(), width, vectors});
}

std::uint64_t AgluLanes::issue(std::uint64_t now, std::uint64_t count, std::uint64_t latency, std::uint64_t cycle) {
    std::uint64_t& free = *std::min_element(free_.begin(), free_.end());
    const std::uint64_t begin = std::max(now, free);
    free = begin + cycle * count;
    return begin + cycle * latency;
}

}  // namespace isvp
