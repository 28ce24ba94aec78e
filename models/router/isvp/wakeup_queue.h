// The SystemC-free core of the fabric's WakeupScheduler: which client wakes
// next and when the scheduler's process must run again.
//
// ClientAgenda holds (tick, insertion number) entries for a fixed set of
// clients and pops them in (tick, insertion number) order, exactly as
// TimedAgenda<unsigned> would. Each client's entries are a short sorted list
// of its own; a 4-ary heap holds one node per client with entries, keyed by
// that client's earliest entry. The pop order is the same merge of the same
// entries, but the heap has at most one node per client (a few hundred, in
// the first-level cache) instead of one per request (thousands at 512
// routers: superseded requests stay until their tick).
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

#include <cstdint>
#include <vector>

namespace isvp {

class ClientAgenda {
  public:
    /// Adds a client with no entries; returns its id (0, 1, ...).
    unsigned add_client() {
        lists_.emplace_back();
        slot_.push_back(kNoSlot);
        return static_cast<unsigned>(lists_.size() - 1);
    }
    bool empty() const { return heap_.empty(); }
    /// Tick of the earliest entry; the agenda must not be empty.
    std::uint64_t next_time() const { return heap_.front().tick; }
    /// Entries held, over all clients.
    std::size_t size() const { return entries_; }

    /// Adds an entry for `client` at `tick`; it comes after every entry
    /// already held for the same tick.
    void push(std::uint64_t tick, unsigned client) {
        const Entry entry{tick, order_++};
        std::vector<Entry>& list = lists_[client];
        // Descending (tick, order): the earliest at the back. The new entry's
        // order is the largest, so it goes before every entry of an equal or
        // earlier tick; a client's requests mostly come ever earlier, so the
        // loop is short.
        std::size_t at = list.size();
        list.emplace_back();
        while (at > 0 && list[at - 1].tick <= tick) {
            list[at] = list[at - 1];
            --at;
        }
        list[at] = entry;
        ++entries_;
        if (at + 1 != list.size()) return;  // not the client's earliest: its heap node stands
        if (slot_[client] == kNoSlot) {
            heap_.push_back(Node{entry.tick, entry.order, client});
            sift_up(heap_.size() - 1);
        } else {
            Node& node = heap_[slot_[client]];
            node.tick = entry.tick;
            node.order = entry.order;
            sift_up(slot_[client]);
        }
    }
    /// Removes the earliest entry and returns its client; the agenda must
    /// not be empty.
    unsigned pop() {
        const unsigned client = heap_.front().client;
        std::vector<Entry>& list = lists_[client];
        list.pop_back();
        --entries_;
        if (!list.empty()) {
            heap_.front().tick = list.back().tick;
            heap_.front().order = list.back().order;
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
    /// One request: 64-bit insertion numbers do not run out.
    struct Entry {
        std::uint64_t tick;   ///< when due
        std::uint64_t order;  ///< insertion number, breaks ties
    };
    /// A client's earliest entry in the heap.
    struct Node {
        std::uint64_t tick;   ///< of the client's earliest entry
        std::uint64_t order;  ///< of the client's earliest entry
        std::uint32_t client;
    };
    static bool earlier(const Node& a, const Node& b) {
        __extension__ typedef unsigned __int128 Wide;  // one comparison, as in TimedAgenda
        return ((Wide{a.tick} << 64) | a.order) < ((Wide{b.tick} << 64) | b.order);
    }
    void place(std::size_t index, const Node& node) {
        heap_[index] = node;
        slot_[node.client] = static_cast<std::uint32_t>(index);
    }
    static constexpr std::size_t kArity = 4;
    void sift_up(std::size_t index) {
        const Node node = heap_[index];
        while (index > 0) {
            const std::size_t parent = (index - 1) / kArity;
            if (!earlier(node, heap_[parent])) break;
            place(index, heap_[parent]);
            index = parent;
        }
        place(index, node);
    }
    void sift_down(std::size_t index) {
        const Node node = heap_[index];
        const std::size_t size = heap_.size();
        for (;;) {
            const std::size_t first = kArity * index + 1;
            if (first >= size) break;
            std::size_t least = first;
            if (first + kArity <= size) {  // all four children: a tournament (the minimum is unique)
                const std::size_t left = earlier(heap_[first + 1], heap_[first]) ? first + 1 : first;
                const std::size_t right = earlier(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
                least = earlier(heap_[right], heap_[left]) ? right : left;
            } else {
                for (std::size_t child = first + 1; child < size; ++child)
                    if (earlier(heap_[child], heap_[least])) least = child;
            }
            if (!earlier(heap_[least], node)) break;
            place(index, heap_[least]);
            index = least;
        }
        place(index, node);
    }

    std::vector<std::vector<Entry>> lists_;  ///< per client: its entries, earliest at the back
    std::vector<std::uint32_t> slot_;        ///< per client: its node's index in heap_, or kNoSlot
    std::vector<Node> heap_;                 ///< 4-ary min-heap by (tick, order), one node per client with entries
    std::uint64_t order_ = 0;                ///< next insertion number
    std::size_t entries_ = 0;                ///< entries over all lists
};

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
    std::vector<std::uint64_t> due_;     ///< per client: tick of its pending wake-up, or kNever
    ClientAgenda agenda_;                ///< every request not yet popped, live or superseded
    std::uint64_t notified_for_ = kNever;  ///< tick the event is notified for, or kNever
    bool running_ = false;                 ///< inside the process: it notifies when done
    std::uint64_t pops_ = 0;
    std::uint64_t wakeups_ = 0;
};

}  // namespace isvp
