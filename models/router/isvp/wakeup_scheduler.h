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

#include "isvp/kernel_time_step.h"
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
    /// when the scheduler has woken the clients due now, it prefetches them
    /// for the client of the agenda's earliest entry (a guess: clients
    /// deferred meanwhile run first, and the entry may be superseded), so
    /// that they arrive while SystemC advances time, or at least together
    /// when the scheduler takes the step itself (a 512-node fabric does not
    /// fit the caches, and a wake-up's first lines would otherwise miss one
    /// after the other).
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
        /// As stored: the lines, then a null if there are fewer than kLines
        /// (the slots after it hold an earlier hint's lines, unread).
        using Lines = std::array<const void*, kLines>;
        Hint(const Hint&) = delete;
        Hint& operator=(const Hint&) = delete;
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
    /// when its entry is the agenda's earliest. Only a request that will
    /// be the client's pending wake-up (earlier than the one it has) is
    /// described, and its hint replaces the earlier one; with hints off
    /// (use_hints()), or for a request that changes nothing, `describe` is
    /// not called.
    template <typename Describe>
    void request(unsigned id, std::uint64_t tick, Describe&& describe) {
        if (hints_on_ && tick < queue_.due(id)) {
            Hint hint(hints_[id].lines);
            describe(hint);
            hint.finish();
        }
        request(id, tick);
    }
    /// Whether hints are taken and prefetched; off until turned on. They
    /// pay only where the clients' records miss the caches: a Fabric turns
    /// them on from Fabric::kHintedInputVcs input VCs in the process.
    void use_hints(bool on) { hints_on_ = on; }
    bool hints() const { return hints_on_; }
    /// Client `id`'s stored hint (see Hint::Lines; for tests).
    const Hint::Lines& hint_of(unsigned id) const { return hints_.at(id).lines; }
    /// Wake client `id` now, in the next delta cycle — what an sc_event
    /// notified with SC_ZERO_TIME does for a method — even while the
    /// scheduler runs (request() for now would wake it in this activation).
    void request_next_delta(unsigned id);
    /// Clients woken so far.
    std::uint64_t wakeups() const { return queue_.wakeups(); }
    /// Whether the process takes SystemC's time step to its next wake-up
    /// itself when the kernel's would be to it alone (kernel_time_step.h):
    /// every process at the same times and delta cycles, about 500
    /// instructions less per step. Off until turned on; a Fabric (and the
    /// flow model's engine scheduler) turns it on unless
    /// `router.scheduler_time_steps` = false.
    void take_time_steps(bool on) { time_steps_ = on && kernel_time_step::available(); }
    /// Time steps taken so far by the process itself, not the kernel.
    std::uint64_t own_time_steps() const { return own_steps_; }
    /// Times the kernel ran the process so far (each after a time step or
    /// a delta cycle of its own).
    std::uint64_t kernel_activations() const { return kernel_runs_; }

  private:
    void run();
    /// Prefetches the lines the agenda's earliest client reads first (attach(), Hint).
    void prefetch_next() const;

    /// A client and its first lines, for prefetching.
    struct Attached {
        Client* client = nullptr;
        const char* hot = nullptr;  ///< its first line, or null
        unsigned hot_lines = 0;
    };
    /// A client's hint as stored: one line, written whole by a request.
    struct alignas(kCacheLineBytes) StoredHint {
        Hint::Lines lines{};  ///< up to the first null (Hint::Lines)
    };
    static_assert(sizeof(StoredHint) == kCacheLineBytes, "a stored hint: one line");

    std::vector<Attached> clients_;  ///< by id
    std::vector<StoredHint> hints_;  ///< by id: lines of its next wake-up's work (request() with a hint)
    WakeupQueue queue_;             ///< who wakes when, and when run() must run (SystemC-free)
    bool hints_on_ = false;         ///< use_hints()
    bool time_steps_ = false;       ///< take_time_steps()
    std::uint64_t own_steps_ = 0;   ///< own_time_steps()
    std::uint64_t kernel_runs_ = 0;  ///< kernel_activations()
    sc_core::sc_event event_;       ///< fires at the queue's earliest entry
};

}  // namespace isvp
