// WakeupScheduler: one SC_METHOD that wakes many blocks at the times they
// ask for. A fabric's routers (and a torus bench's traffic sources) share
// one, so a wake-up costs a push and a pop on a radix heap of plain
// integers (RadixAgenda, wakeup_queue.h) instead of a SystemC
// timed notification (the kernel's timed-event queue compares through
// function pointers and holds an entry per pending notification of every
// process). Blocks that are idle have no entry and cost nothing.
//
// Order: clients due at the same time wake in the order their requests were
// made (a deterministic sequence number), never by pointer or hash order.
// A client woken at time t may ask to be woken again at t: it runs again in
// the same activation, after the others already due. A client that needs
// SystemC's delta cycles (the collective engines: a wake-up for now runs in
// the next delta, as with its own sc_event) asks with request_next_delta();
// those run first in the next activation, in the order they asked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <systemc>

#include "isvp/wakeup_queue.h"

namespace isvp {

/// Bytes of a cache line: what the per-hop records are laid out by and the
/// scheduler prefetches in.
inline constexpr std::size_t kCacheLineBytes = 64;

class WakeupScheduler : public sc_core::sc_module {
  public:
    /// Something the scheduler can wake.
    class Client {
      public:
        virtual void wake() = 0;

      protected:
        ~Client() = default;
    };

    explicit WakeupScheduler(sc_core::sc_module_name name);

    /// Registers a client; returns its id for request(). `hot` (optional)
    /// is the start of the `hot_lines` cache lines its wake() reads first:
    /// when the scheduler's process ends, it prefetches them for the client
    /// of the agenda's earliest entry (a guess: clients deferred meanwhile
    /// run first, and the entry may be superseded), so that they arrive
    /// while SystemC advances time (a 512-node fabric does not fit the
    /// caches, and a wake-up's first lines would otherwise miss one after
    /// the other).
    unsigned attach(Client& client, const void* hot = nullptr, unsigned hot_lines = 0);
    /// Lines a client's next wake-up reads after its own hot ones (attach()):
    /// the records of the work it asks to be woken for, which only the client
    /// knows (a router: the input VC whose head becomes ready, the output
    /// port and VC it wants, the packet, the link it leaves on). Each is the
    /// first touch of a line in a fabric too large for the caches, and the
    /// records' addresses come one from the other, so unhinted they would
    /// miss one after the other.
    class Hint {
      public:
        static constexpr unsigned kLines = 8;
        using Lines = std::array<const void*, kLines>;  ///< as stored: nulls after the last
        /// Adds the line holding `address`; null and lines beyond kLines are dropped.
        void add(const void* address) {
            if (address != nullptr && size_ < kLines) lines_[size_++] = address;
        }

      private:
        friend class WakeupScheduler;
        /// Written in place, into the client's stored line, rather than
        /// built elsewhere and copied there.
        explicit Hint(Lines& lines) : lines_(lines) {}
        void finish() {
            if (size_ < kLines) lines_[size_] = nullptr;
        }
        Lines& lines_;
        unsigned size_ = 0;
    };
    /// Wake client `id` at simulation tick `tick` (>= now). A client has at
    /// most one pending wake-up: the earliest requested. Asked for now from
    /// another process, it wakes in the next delta cycle (as
    /// request_next_delta()), whether or not the scheduler's own process is
    /// still to run in this one; asked from a client's wake(), in this
    /// activation.
    void request(unsigned id, std::uint64_t tick);
    /// request() with the lines that wake-up will read, which `describe`
    /// adds to the Hint it is given: prefetched with the client's hot lines
    /// when its entry is the agenda's earliest. The hint replaces the
    /// client's earlier one: a client asks only for a wake-up earlier than
    /// the one it has, and that is the one it describes.
    template <typename Describe>
    void request(unsigned id, std::uint64_t tick, Describe&& describe) {
        if (!hints_on_) return request(id, tick);
        Hint hint(hints_[id].lines);
        describe(hint);
        hint.finish();
        request(id, tick);
    }
    /// Whether hints are taken and prefetched (on by default). A fabric
    /// whose state fits the caches gains nothing from them and pays for
    /// describing them, so it turns them off (Fabric, kHintedSwitches).
    void use_hints(bool on) { hints_on_ = on; }
    bool hints() const { return hints_on_; }
    /// Client `id`'s current hint, up to its first null (for tests).
    const Hint::Lines& hint_of(unsigned id) const { return hints_.at(id).lines; }
    /// Wake client `id` now, in the next delta cycle — what an sc_event
    /// notified with SC_ZERO_TIME does for a method — even while the
    /// scheduler runs (request() for now would wake it in this activation).
    void request_next_delta(unsigned id);
    /// Clients woken so far.
    std::uint64_t wakeups() const { return queue_.wakeups(); }

  private:
    void run();

    /// A client and its first lines, for prefetching.
    struct Attached {
        Client* client = nullptr;
        const char* hot = nullptr;  ///< its first line, or null
        unsigned hot_lines = 0;
    };
    /// A client's hint as stored: one line, written whole by a request.
    struct alignas(kCacheLineBytes) StoredHint {
        Hint::Lines lines{};  ///< up to the first null
    };
    static_assert(sizeof(StoredHint) == kCacheLineBytes, "a stored hint: one line");

    std::vector<Attached> clients_;  ///< by id
    std::vector<StoredHint> hints_;  ///< by id: lines of its next wake-up's work (request() with a hint)
    WakeupQueue queue_;             ///< who wakes when, and when run() must run (SystemC-free)
    bool hints_on_ = true;          ///< use_hints()
    sc_core::sc_event event_;       ///< fires at the queue's earliest entry
};

}  // namespace isvp
