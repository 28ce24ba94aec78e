// The SystemC-free core of the fabric's WakeupScheduler: which client wakes
// next and when the scheduler's process must run again.
//
// ClientAgenda holds (tick, insertion number) entries for a fixed set of
// clients and pops them in (tick, insertion number) order, exactly as
// TimedAgenda<unsigned> would. Each client's entries are a short sorted list
// of its own; a 4-ary heap holds one node per client with entries, keyed by
// that client's earliest entry. The pop order is the same merge of the same
// entries, but the heap has at most one node per client (≤ 512 on the
// 512-node bench) instead of one per request (≈ 3,400 there: superseded
// requests stay until their tick). The entries themselves are as many as
// before, in the clients' blocks.
//
// WakeupQueue is the scheduler's logic on top: a client asking for an
// earlier tick than the one it waits for adds an entry and leaves its later
// one in the agenda; an entry whose tick is not the client's current due
// tick is popped and skips; the scheduler's event is notified for the
// agenda's earliest entry, live or superseded. Every superseded entry thus
// still causes its activation, and a client that asks again for a tick it
// asked for before (having been woken in between) wakes at its first
// request's place among the clients due then: the simulated results depend
// on both (docs/PERFORMANCE.md, "Wake-up scheduler without superseded
// entries (session 15)").
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "isvp/timed_agenda.h"

namespace isvp {

/// `OrderLimit` (tests only) renumbers after that many insertions instead
/// of 2^40.
template <std::uint64_t OrderLimit = 0>
class BasicClientAgenda {
  public:
    static constexpr unsigned kClientBits = 24;  ///< clients at most 2^24
    static constexpr std::size_t kMaxClients = std::size_t{1} << kClientBits;

    /// Adds a client with no entries; returns its id (0, 1, ...).
    unsigned add_client() {
        if (count_.size() >= kMaxClients) throw std::length_error("wake-up queue: more than 2^24 clients");
        count_.push_back(0);
        slot_.push_back(kNoSlot);
        entries_.resize(count_.size() * capacity_);
        return static_cast<unsigned>(count_.size() - 1);
    }
    bool empty() const { return heap_.empty(); }
    /// Tick of the earliest entry; the agenda must not be empty.
    std::uint64_t next_time() const { return heap_.front().tick; }
    /// Entries held, over all clients.
    std::size_t size() const { return held_; }

    /// Adds an entry for `client` at `tick`; it comes after every entry
    /// already held for the same tick.
    void push(std::uint64_t tick, unsigned client) {
        if (order_ >= kOrderLimit) renumber();
        if (count_[client] == capacity_) grow();
        const Entry entry{tick, (order_++ << kClientBits) | client};
        Entry* list = &entries_[std::size_t{client} * capacity_];
        // Descending (tick, order): the earliest at the back. The new entry's
        // order is the largest, so it goes before every entry of an equal or
        // earlier tick; the loop is short (a client's requests mostly come
        // earlier than the ones it has, or a little later).
        std::uint32_t at = count_[client]++;
        while (at > 0 && list[at - 1].tick <= tick) {
            list[at] = list[at - 1];
            --at;
        }
        list[at] = entry;
        ++held_;
        if (at + 1 != count_[client]) return;  // not the client's earliest: its heap node stands
        if (slot_[client] == kNoSlot) {
            heap_.push_back(entry);
            sift_up(heap_.size() - 1);
        } else {
            heap_[slot_[client]] = entry;
            sift_up(slot_[client]);
        }
    }
    /// Removes the earliest entry and returns its client; the agenda must
    /// not be empty.
    unsigned pop() {
        const unsigned client = heap_.front().client();
        const std::uint32_t left = --count_[client];
        --held_;
        if (left != 0) {
            heap_.front() = entries_[std::size_t{client} * capacity_ + left - 1];
        } else {
            slot_[client] = kNoSlot;
            heap_.front() = heap_.back();
            heap_.pop_back();
            if (heap_.empty()) return client;
        }
        sift_down(0);
        return client;
    }

  private:
    static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
    static constexpr std::uint64_t kOrderLimit = OrderLimit != 0 ? OrderLimit : std::uint64_t{1} << (64 - kClientBits);
    /// One request, and a client's node in the heap (a copy of its
    /// earliest). 16 bytes: a 4-ary node's children are one cache line.
    struct Entry {
        std::uint64_t tick;  ///< when due
        std::uint64_t key;   ///< insertion number (high 40 bits), client (low 24): orders are distinct
        unsigned client() const { return static_cast<unsigned>(key & (kMaxClients - 1)); }
    };
    static bool earlier(const Entry& a, const Entry& b) {
        __extension__ typedef unsigned __int128 Wide;  // one comparison, as in TimedAgenda
        return ((Wide{a.tick} << 64) | a.key) < ((Wide{b.tick} << 64) | b.key);
    }
    /// Every client's list holds as many entries (one block per client, no
    /// pointer to follow); a full list doubles them all.
    void grow() {
        const std::uint32_t capacity = capacity_ * 2;
        std::vector<Entry> entries(count_.size() * capacity);
        for (std::size_t c = 0; c < count_.size(); ++c)
            std::copy_n(&entries_[c * capacity_], count_[c], &entries[c * capacity]);
        entries_.swap(entries);
        capacity_ = capacity;
    }
    /// Insertion numbers ran out: number the held entries 0, 1, ... in
    /// their order, which keeps every comparison's outcome (the heap and
    /// each list stay ordered).
    void renumber() {
        std::vector<Entry*> held;
        held.reserve(held_);
        for (std::size_t c = 0; c < count_.size(); ++c)
            for (std::uint32_t i = 0; i < count_[c]; ++i) held.push_back(&entries_[c * capacity_ + i]);
        std::sort(held.begin(), held.end(), [](const Entry* a, const Entry* b) { return earlier(*a, *b); });
        for (std::size_t i = 0; i < held.size(); ++i)
            held[i]->key = (std::uint64_t{i} << kClientBits) | held[i]->client();
        for (Entry& node : heap_) node = entries_[std::size_t{node.client()} * capacity_ + count_[node.client()] - 1];
        order_ = held.size();
    }
    // The shared 4-ary heap moves; each moved node's client learns its slot.
    static constexpr auto kEarlier = [](const Entry& a, const Entry& b) { return earlier(a, b); };
    void sift_up(std::size_t index) { timed_agenda_detail::sift_up(heap_.data(), index, kEarlier, note_slot()); }
    void sift_down(std::size_t index) {
        timed_agenda_detail::sift_down(heap_.data(), heap_.size(), index, kEarlier, note_slot());
    }
    auto note_slot() {
        return [slot = slot_.data()](std::size_t index, const Entry& node) {
            slot[node.client()] = static_cast<std::uint32_t>(index);
        };
    }

    std::vector<Entry> entries_;        ///< client c's list at [c * capacity_, + count_[c]), earliest at the back
    std::vector<std::uint32_t> count_;  ///< per client: entries in its list
    std::vector<std::uint32_t> slot_;   ///< per client: its node's index in heap_, or kNoSlot
    std::vector<Entry> heap_;           ///< 4-ary min-heap by (tick, order): each client's earliest entry
    std::uint32_t capacity_ = 16;       ///< entries per client's block
    std::uint64_t order_ = 0;           ///< next insertion number
    std::size_t held_ = 0;              ///< entries over all lists
};

using ClientAgenda = BasicClientAgenda<>;

class WakeupQueue {
  public:
    static constexpr std::uint64_t kNever = ~std::uint64_t{0};

    /// Registers a client; returns its id.
    unsigned attach() {
        due_.push_back(kNever);
        return agenda_.add_client();
    }
    /// Client `id` asks to be woken at `tick` (>= now). A client has at most
    /// one pending wake-up, the earliest asked for. Returns the tick the
    /// scheduler's event must now be notified for, or kNever when the
    /// notification already pending stands.
    std::uint64_t request(unsigned id, std::uint64_t tick) {
        if (tick >= due_[id]) return kNever;
        due_[id] = tick;
        agenda_.push(tick, id);
        if (running_ || tick >= notified_for_) return kNever;
        notified_for_ = tick;
        return tick;
    }
    /// The scheduler's process runs: requests made until finish()
    /// are served by next_due() and notify nothing.
    void start() {
        notified_for_ = kNever;
        running_ = true;
    }
    /// The next client to wake at `now`, in order; false when none is left.
    bool next_due(std::uint64_t now, unsigned& id) {
        while (!agenda_.empty() && agenda_.next_time() <= now) {
            const std::uint64_t tick = agenda_.next_time();
            id = agenda_.pop();
            ++pops_;
            if (due_[id] != tick) continue;  // superseded by an earlier request, already served
            due_[id] = kNever;
            ++wakeups_;
            return true;
        }
        return false;
    }
    /// The process is done; returns the tick its event must be notified
    /// for (the earliest entry, superseded or not), or kNever.
    std::uint64_t finish() {
        running_ = false;
        if (agenda_.empty()) return kNever;
        notified_for_ = agenda_.next_time();
        return notified_for_;
    }

    std::uint64_t pops() const { return pops_; }        ///< entries popped (wake-ups and skipped)
    std::uint64_t wakeups() const { return wakeups_; }  ///< clients woken
    std::size_t held() const { return agenda_.size(); }

  private:
    std::vector<std::uint64_t> due_;       ///< per client: tick of its pending wake-up, or kNever
    ClientAgenda agenda_;                  ///< every request not yet popped, live or superseded
    std::uint64_t notified_for_ = kNever;  ///< tick the event is notified for, or kNever
    bool running_ = false;                 ///< inside the process: it notifies when done
    std::uint64_t pops_ = 0;
    std::uint64_t wakeups_ = 0;
};

}  // namespace isvp
