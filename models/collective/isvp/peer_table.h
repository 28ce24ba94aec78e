// PeerTable: per-peer state of one collective context, keyed by the peer's
// 16-bit id (a comm rank, or a switch engine's address). The entries are a
// vector sorted by id and found by binary search: a context talks to a few
// peers (log2 P in recursive doubling), and an array indexed by id held a
// pointer for every rank below the largest peer's — 128 KiB per table at
// 16,384 ranks, on every node, which grew the platform's memory with the
// square of its size. Entries are made on first use and keep their address
// until clear() (owners point at them); for_each visits them in id order.
// Plain C++17, no SystemC.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace isvp {

template <typename T>
class PeerTable {
  public:
    /// The entry of `peer`, or null if it has none.
    T* find(std::uint16_t peer) const {
        const auto at = position(peer);
        return at != entries_.end() && at->peer == peer ? at->entry.get() : nullptr;
    }
    /// The entry of `peer`, made from `args` (T's constructor arguments)
    /// if it has none.
    template <typename... Args>
    T& get(std::uint16_t peer, const Args&... args) {
        auto at = position(peer);
        if (at == entries_.end() || at->peer != peer) at = entries_.insert(at, {peer, std::make_unique<T>(args...)});
        return *at->entry;
    }
    /// Calls f(peer, entry) for every entry, peers ascending.
    template <typename F>
    void for_each(F&& f) {
        for (const Slot& slot : entries_) f(slot.peer, *slot.entry);
    }
    template <typename F>
    void for_each(F&& f) const {
        for (const Slot& slot : entries_) f(slot.peer, static_cast<const T&>(*slot.entry));
    }
    /// Drops every entry (pointers to them dangle).
    void clear() { entries_.clear(); }

  private:
    struct Slot {
        std::uint16_t peer;
        std::unique_ptr<T> entry;  ///< its own allocation: the address stays when the vector moves
    };
    auto position(std::uint16_t peer) const {
        return std::lower_bound(entries_.begin(), entries_.end(), peer,
                                [](const Slot& slot, std::uint16_t id) { return slot.peer < id; });
    }
    auto position(std::uint16_t peer) {
        return std::lower_bound(entries_.begin(), entries_.end(), peer,
                                [](const Slot& slot, std::uint16_t id) { return slot.peer < id; });
    }

    std::vector<Slot> entries_;  ///< by peer id, ascending
};

}  // namespace isvp
