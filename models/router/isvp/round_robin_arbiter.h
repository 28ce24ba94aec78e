// Round-robin arbitration over a set of requesters, as the router's VC and
// switch allocators use it. No SystemC, no allocation: the bits live inside
// the object, next to the rest of a router port's state.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace isvp {

/// One word of request bits: a RequestSet's, or a small router's own (an
/// output port of a router with up to 64 input VCs keeps its requests so).
namespace request_bits {
/// Whether exactly one bit is set.
inline bool single(std::uint64_t word) {
    return word != 0 && (word & (word - 1)) == 0;
}
/// `base` plus the only set bit, if exactly one is set.
inline std::optional<unsigned> only(std::uint64_t word, unsigned base = 0) {
    if (!single(word)) return std::nullopt;
    return base + static_cast<unsigned>(__builtin_ctzll(word));
}
/// Calls `visit(base + bit)` for each set bit, lowest first.
template <typename Visit>
void for_each(std::uint64_t word, unsigned base, Visit&& visit) {
    for (; word != 0; word &= word - 1) visit(base + static_cast<unsigned>(__builtin_ctzll(word)));
}
}  // namespace request_bits

/// A fixed-size set of requester indices (a bit vector of up to 256).
class RequestSet {
  public:
    static constexpr unsigned kCapacity = 256;

    /// Throws std::length_error above kCapacity members.
    explicit RequestSet(unsigned size = 0) : size_(size), used_words_((size + 63) / 64), words_{} {
        if (size > kCapacity)
            throw std::length_error("RequestSet: " + std::to_string(size) + " requesters, at most " +
                                    std::to_string(kCapacity));
    }

    unsigned size() const { return size_; }
    void set(unsigned index) { words_[index / 64] |= bit(index); }
    void reset(unsigned index) { words_[index / 64] &= ~bit(index); }
    bool test(unsigned index) const { return (words_[index / 64] & bit(index)) != 0; }
    void clear() {
        for (auto& word : words_) word = 0;
    }
    bool any() const {
        for (unsigned w = 0; w < used_words_; ++w)
            if (words_[w]) return true;
        return false;
    }
    /// The only member, if there is exactly one.
    std::optional<unsigned> single() const {
        std::optional<unsigned> found;
        for (unsigned w = 0; w < used_words_; ++w) {
            const std::uint64_t word = words_[w];
            if (word == 0) continue;
            if (found) return std::nullopt;
            found = request_bits::only(word, w * 64);
            if (!found) return std::nullopt;
        }
        return found;
    }
    /// The first member at or after `start`, wrapping round; nullopt if empty.
    std::optional<unsigned> first_from(unsigned start) const {
        if (used_words_ == 1 && start < size_) {  // up to 64 members: one word, no division (a router's hop)
            const std::uint64_t word = words_[0];
            if (word == 0) return std::nullopt;
            const std::uint64_t from = word & (~std::uint64_t{0} << start);
            return static_cast<unsigned>(__builtin_ctzll(from != 0 ? from : word));
        }
        if (size_ == 0) return std::nullopt;
        start %= size_;
        if (auto found = scan(start, size_)) return found;
        return scan(0, start);
    }
    /// Calls `visit(index)` for each member in increasing order.
    template <typename Visit>
    void for_each(Visit&& visit) const {
        for (unsigned w = 0; w < used_words_; ++w) request_bits::for_each(words_[w], w * 64, visit);
    }

  private:
    static std::uint64_t bit(unsigned index) { return std::uint64_t{1} << (index % 64); }
    /// First member in [begin, end).
    std::optional<unsigned> scan(unsigned begin, unsigned end) const {
        for (unsigned w = begin / 64; w * 64 < end; ++w) {
            std::uint64_t word = words_[w];
            if (w == begin / 64) word &= ~std::uint64_t{0} << (begin % 64);
            if (word == 0) continue;
            const unsigned index = w * 64 + static_cast<unsigned>(__builtin_ctzll(word));
            return index < end ? std::optional<unsigned>(index) : std::nullopt;
        }
        return std::nullopt;
    }

    unsigned size_;                                    ///< number of possible members
    unsigned used_words_;                              ///< words that can hold members
    std::array<std::uint64_t, kCapacity / 64> words_;  ///< membership bits, 64 per word
};

/// Grants the requester after the previous winner first: every requester
/// that keeps requesting is served within `size` grants. Four bytes, so that
/// it fits the line-sized records of a router's output ports and VCs.
class RoundRobinArbiter {
  public:
    /// Throws std::length_error above RequestSet::kCapacity requesters.
    explicit RoundRobinArbiter(unsigned size = 0) : size_(static_cast<std::uint16_t>(size)) {
        if (size > RequestSet::kCapacity)
            throw std::length_error("RoundRobinArbiter: " + std::to_string(size) + " requesters, at most " +
                                    std::to_string(RequestSet::kCapacity));
    }

    /// The requester that would win now; nullopt if nobody requests.
    std::optional<unsigned> pick(const RequestSet& requests) const { return requests.first_from(next_); }
    /// Records that `winner` was served: it becomes the lowest priority.
    void grant(unsigned winner) { next_ = static_cast<std::uint16_t>(winner + 1 < size_ ? winner + 1 : 0); }

  private:
    std::uint16_t size_;      ///< number of requesters
    std::uint16_t next_ = 0;  ///< highest-priority requester
};

}  // namespace isvp
