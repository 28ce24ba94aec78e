// PeerTable: per-peer state of one collective context, indexed by the
// peer's 16-bit id (a comm rank, or a switch engine's address), so the
// lookups on the per-packet path are an index, not a hash. Entries are made
// on first use and keep their address until clear() (owners point at them);
// for_each visits them in id order. Plain C++17, no SystemC.
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
    T* find(std::uint16_t peer) const { return peer < slots_.size() ? slots_[peer].get() : nullptr; }
    /// The entry of `peer`, made from `args` (T's constructor arguments)
    /// if it has none.
    template <typename... Args>
    T& get(std::uint16_t peer, const Args&... args) {
        if (peer >= slots_.size()) slots_.resize(std::size_t{peer} + 1);
        std::unique_ptr<T>& slot = slots_[peer];
        if (!slot) {
            slot = std::make_unique<T>(args...);
            peers_.insert(std::upper_bound(peers_.begin(), peers_.end(), peer), peer);
        }
        return *slot;
    }
    /// Calls f(peer, entry) for every entry, peers ascending.
    template <typename F>
    void for_each(F&& f) {
        for (const std::uint16_t peer : peers_) f(peer, *slots_[peer]);
    }
    template <typename F>
    void for_each(F&& f) const {
        for (const std::uint16_t peer : peers_) f(peer, static_cast<const T&>(*slots_[peer]));
    }
    /// Drops every entry (pointers to them dangle).
    void clear() {
        slots_.clear();
        peers_.clear();
    }

  private:
    std::vector<std::unique_ptr<T>> slots_;  ///< by peer id; null: no entry yet
    std::vector<std::uint16_t> peers_;       ///< ids with an entry, ascending (for_each visits only them)
};

}  // namespace isvp
