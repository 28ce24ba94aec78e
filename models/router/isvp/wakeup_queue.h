// The SystemC-free core of the fabric's WakeupScheduler: which client wakes
// next and when the scheduler's process must run again.
//
// RadixAgenda holds (tick, client) entries and pops them in (tick, insertion
// order) order, exactly as TimedAgenda<unsigned> would, for a queue whose
// time does not go back: no entry is pushed for a tick earlier than the last
// one popped (the scheduler's requests are for now or later). That is what a
// radix heap needs (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms
// for the shortest path problem", 1990): a push appends to one of 65
// buckets chosen by the highest bit in which its tick differs from the last
// popped tick, and an entry moves to a lower bucket a few times at most
// before it is popped, instead of a sift through a heap of every waiting
// client on each push and pop. About as many instructions as the 4-ary heap
// it replaces, but sequential memory: the heap's pops were 4.3 % of a
// 1024-node 8 B Allreduce, and the change took 11 % off its CPU per
// iteration (session 20, docs/PERFORMANCE.md).
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

#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

namespace isvp {

class RadixAgenda {
  public:
    bool empty() const { return size_ == 0; }
    /// Entries held.
    std::size_t size() const { return size_; }
    /// Tick of the earliest entry; the agenda must not be empty.
    std::uint64_t next_time() const {
        assert(!empty());
        return head_ < buckets_[0].size() ? last_ : lowest_[lowest_occupied()];
    }
    /// Tick of the last pop (0 before the first): no push may be earlier.
    std::uint64_t floor() const { return last_; }
    /// Client of the earliest entry, the one pop() returns next; the agenda
    /// must not be empty.
    unsigned next_client() const {
        assert(!empty());
        return head_ < buckets_[0].size() ? buckets_[0][head_].client : lowest_client_[lowest_occupied()];
    }

    /// Adds an entry for `client` at `tick` (>= floor()); it comes after
    /// every entry already held for the same tick.
    void push(std::uint64_t tick, unsigned client) {
        assert(tick >= last_ && "RadixAgenda: a push before the last pop");
        place(Entry{tick, client});
        ++size_;
    }
    /// Removes the earliest entry and returns its client; the agenda must
    /// not be empty.
    unsigned pop() {
        if (head_ == buckets_[0].size()) refill();
        const unsigned client = buckets_[0][head_++].client;
        --size_;
        if (head_ == buckets_[0].size()) {  // exhausted: later pushes at last_ start it again
            buckets_[0].clear();
            head_ = 0;
        }
        return client;
    }

  private:
    struct Entry {
        std::uint64_t tick;
        unsigned client;
    };
    static constexpr unsigned kBuckets = 65;
    /// Bucket 0 holds entries at last_; bucket b > 0 those whose tick first
    /// differs from last_ in bit b - 1 (and is larger there), so every entry
    /// of a bucket is earlier than every entry of a higher one.
    unsigned bucket_of(std::uint64_t tick) const {
        return tick == last_ ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(tick ^ last_));
    }
    /// The lowest non-empty bucket above 0; one must exist.
    unsigned lowest_occupied() const { return 1u + static_cast<unsigned>(__builtin_ctzll(occupied_)); }
    void place(const Entry& entry) {
        const unsigned bucket = bucket_of(entry.tick);
        buckets_[bucket].push_back(entry);
        if (bucket == 0) return;
        const std::uint64_t bit = std::uint64_t{1} << (bucket - 1);
        if ((occupied_ & bit) == 0 || entry.tick < lowest_[bucket]) {  // the first of equal ticks stays: it pops first
            lowest_[bucket] = entry.tick;
            lowest_client_[bucket] = entry.client;
        }
        occupied_ |= bit;
    }
    /// Bucket 0 is empty: its next tick is the earliest entry of the lowest
    /// non-empty bucket, whose entries all move to lower buckets once last_
    /// is that tick. Buckets below it are empty, so each bucket keeps its
    /// entries in insertion order: one moved run, then pushes.
    void refill() {
        const unsigned source = lowest_occupied();
        last_ = lowest_[source];
        occupied_ &= ~(std::uint64_t{1} << (source - 1));
        std::vector<Entry> moving;
        moving.swap(buckets_[source]);
        for (const Entry& entry : moving) place(entry);
        moving.clear();
        moving.swap(buckets_[source]);  // keep its storage
    }

    std::array<std::vector<Entry>, kBuckets> buckets_;  ///< see bucket_of()
    std::array<std::uint64_t, kBuckets> lowest_{};      ///< per bucket above 0: its earliest tick, if occupied
    std::array<unsigned, kBuckets> lowest_client_{};    ///< per bucket above 0: the first entry's client at that tick
    std::uint64_t occupied_ = 0;                        ///< bit b - 1: bucket b > 0 holds entries
    std::size_t head_ = 0;                              ///< next entry of bucket 0 to pop
    std::uint64_t last_ = 0;                            ///< tick of the last pop
    std::size_t size_ = 0;                              ///< entries held
};

class WakeupQueue {
  public:
    static constexpr std::uint64_t kNever = ~std::uint64_t{0};

    /// Registers a client; returns its id.
    unsigned attach() {
        due_.push_back(kNever);
        return static_cast<unsigned>(due_.size() - 1);
    }
    /// Client `id` asks to be woken at `tick` (>= now). A client has at most
    /// one pending wake-up, the earliest asked for. Returns the tick the
    /// scheduler's event must now be notified for, or kNever when the
    /// notification already pending stands.
    std::uint64_t request(unsigned id, std::uint64_t tick) {
        if (tick < agenda_.floor()) tick = agenda_.floor();  // the past: as soon as can be (SystemC's "now")
        if (tick >= due_[id]) return kNever;
        due_[id] = tick;
        agenda_.push(tick, id);
        if (running_ || tick >= notified_for_) return kNever;
        notified_for_ = tick;
        return tick;
    }
    /// Client `id` asks to be woken at `now` but in a later delta cycle, as
    /// an sc_event notified with SC_ZERO_TIME would wake a method: not before
    /// the delta cycle counted `from` (SystemC's sc_delta_count(): the next
    /// one's when asked during a delta cycle). A pending later wake-up is
    /// superseded, one due now already stands. Returns true when the
    /// scheduler must notify its event for the next delta cycle: not while
    /// it runs (finish() says so then), nor twice for one delta cycle.
    ///
    /// The delta count decides, not whether a notification looks pending:
    /// when the scheduler's timed notification for now has fired and its
    /// process is still to run in this delta cycle, a client deferred by
    /// another process meanwhile must still wake in the next one, whichever
    /// of the two processes SystemC runs first.
    ///
    /// A wake-up due now that stands (an earlier request for this tick)
    /// may be served in this delta cycle, before or after the caller, as
    /// SystemC would run a method whose timed event fired. A client that
    /// must see the caller's work therefore checks, as the collective engine
    /// does (ran_in_this_delta(), EarliestWake::repost()), and asks again.
    bool defer(unsigned id, std::uint64_t now, std::uint64_t from) {
        if (due_[id] <= now) return false;
        due_[id] = now;
        deferred_.push_back(Deferred{id, from});
        if (running_ || notified_delta_ == from) return false;
        notified_delta_ = from;
        notified_for_ = now;
        return true;
    }
    /// The scheduler's process runs in the delta cycle counted `delta`:
    /// requests made until finish() are served by next_due() and notify
    /// nothing; the clients deferred to this delta cycle or before are
    /// served first (next_deferred()); those deferred to a later one wait.
    void start(std::uint64_t delta) {
        notified_for_ = kNever;
        running_ = true;
        serving_at_ = 0;
        // deferred_ is in the order of the calls, so of their delta counts:
        // the clients due by `delta` are a prefix, almost always all of it.
        std::size_t due = 0;
        while (due < deferred_.size() && deferred_[due].from <= delta) ++due;
        if (due == deferred_.size()) {
            serving_.swap(deferred_);
            return;
        }
        serving_.assign(deferred_.begin(), deferred_.begin() + static_cast<std::ptrdiff_t>(due));
        deferred_.erase(deferred_.begin(), deferred_.begin() + static_cast<std::ptrdiff_t>(due));
    }
    /// The next client deferred to this delta cycle, in order; false when
    /// none is left.
    bool next_deferred(std::uint64_t now, unsigned& id) {
        while (serving_at_ < serving_.size()) {
            id = serving_[serving_at_++].id;
            if (due_[id] != now) continue;  // served meanwhile
            due_[id] = kNever;
            ++wakeups_;
            return true;
        }
        serving_.clear();
        return false;
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
    /// The process is done at `now`; returns the tick its event must be
    /// notified for: `now` (the next delta cycle) if clients wait in
    /// deferral (asked for while it ran, or earlier in this delta cycle), else the earliest entry (superseded or not),
    /// or kNever.
    std::uint64_t finish(std::uint64_t now) {
        running_ = false;
        if (!deferred_.empty()) return notified_for_ = now;
        if (agenda_.empty()) return kNever;
        notified_for_ = agenda_.next_time();
        return notified_for_;
    }

    /// Client of the agenda's earliest entry (it may be superseded), or
    /// kNone when the agenda is empty: a guess at who wakes next, for
    /// prefetching only.
    static constexpr unsigned kNone = ~0u;
    unsigned next_client() const { return agenda_.empty() ? kNone : agenda_.next_client(); }

    /// Tick of client `id`'s pending wake-up, or kNever.
    std::uint64_t due(unsigned id) const { return due_[id]; }
    bool running() const { return running_; }           ///< between start() and finish()
    std::uint64_t pops() const { return pops_; }        ///< entries popped (wake-ups and skipped)
    std::uint64_t wakeups() const { return wakeups_; }  ///< clients woken
    std::size_t held() const { return agenda_.size(); }

  private:
    struct Deferred {
        unsigned id;
        std::uint64_t from;  ///< the first delta count it may wake in
    };
    std::vector<std::uint64_t> due_;         ///< per client: tick of its pending wake-up, or kNever
    std::vector<Deferred> deferred_;         ///< clients deferred to a later delta cycle (defer), in order
    std::vector<Deferred> serving_;          ///< those deferred to this one, being served
    std::uint64_t notified_delta_ = kNever;  ///< delta count defer() last notified the event for
    std::size_t serving_at_ = 0;           ///< next of serving_
    RadixAgenda agenda_;                   ///< every request not yet popped, live or superseded
    std::uint64_t notified_for_ = kNever;  ///< tick the event is notified for, or kNever
    bool running_ = false;                 ///< inside the process: it notifies when done
    std::uint64_t pops_ = 0;
    std::uint64_t wakeups_ = 0;
};

}  // namespace isvp
