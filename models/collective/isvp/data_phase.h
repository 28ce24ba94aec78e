// DataPhase: the data phase of one collective on one switch as a
// SystemC-free state machine (docs/COLLECTIVES.md, "Streaming"). It holds
// the collective buffer, the schedule's steps as byte streams over it and
// how far each has got, and decides from that alone what may happen next:
// a step's next chunk may go out when the buffer bytes it carries are final
// (the host's contribution and every earlier step that writes them) and a
// window credit is held; a received chunk may be taken (copied or combined)
// when the bytes it meets are final and no earlier read of them is pending;
// a result chunk is final when nothing still writes its bytes. Zero-byte
// transfers keep the schedule's order (Barrier).
//
// Events in: contribution bytes (take_contribution), peers' packets landing
// in a step's channel and window credits (the owner's counters the steps
// point at), chunks becoming final in the buffer (chunk_applied, e.g. when
// the AgLU is done). Actions out: advance() asks its Driver to send step
// k's next chunk, to take step k's next received chunk (the driver may
// refuse, e.g. no free CGR unit) and to return result chunks made final.
// No timing: the owner (CollectiveEngine) adds it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "isvp/collective_core.h"
#include "isvp/paged_buffer.h"

namespace isvp {

/// Window credits owed to one (context, sender).
struct OwedCredits {
    std::uint32_t count = 0;  ///< consumed packets whose credit has not gone back
    std::int32_t node = -1;   ///< the sender's node once looked up (-1: not yet / forgotten)
};

class DataPhase {
  public:
    /// What a chunk waited for when it last could not go: checked first next
    /// time (progress only grows, so it stays necessary).
    struct Wait {
        enum Kind : std::uint8_t { None, Contribution, Applied, Sent } kind = None;
        std::size_t step = 0;
        std::uint64_t need = 0;  ///< contribution bytes, or chunks applied / sent by `step`
    };
    /// One schedule step as it streams: byte prefixes of its send and
    /// receive streams that are done.
    struct StepRun {
        int send_peer = -1, recv_peer = -1;  ///< comm ranks (-1: none)
        std::uint16_t send_node = 0;
        Apply apply = Apply::Copy;
        StreamMap send, recv;
        std::uint32_t send_chunks = 0, recv_chunks = 0;  ///< packets (>= 1 where the transfer exists)
        std::uint32_t sent = 0;                          ///< chunks emitted
        std::uint32_t issued = 0;                        ///< chunks taken from the window (copied or in the AgLU)
        std::uint32_t applied = 0;                       ///< chunks final in the buffer
        std::int32_t* credits = nullptr;                 ///< send credits toward send_peer (the owner's counter)
        OwedCredits* owed = nullptr;                ///< credits owed to recv_peer (the owner's entry, once it exists)
        HeldChannel* channel = nullptr;             ///< the window recv_peer's packets land in
        std::ptrdiff_t send_after = -1;             ///< the previous step sending to send_peer
        std::ptrdiff_t recv_after = -1;             ///< the previous step receiving from recv_peer
        Wait send_wait, take_wait;                  ///< see Wait
        std::uint64_t trace_first_ps = ~std::uint64_t{0};  ///< traced: first chunk sent or taken (none yet)
        bool send_done() const { return sent == send_chunks; }
        bool recv_done() const { return applied == recv_chunks; }
    };
    /// Where a step's traffic goes and comes from (the owner's state).
    struct StepLinks {
        std::uint16_t send_node = 0;                ///< node of the send peer
        std::int32_t* credits = nullptr;            ///< send credits toward it
        HeldChannel* channel = nullptr;             ///< the receive peer's window
    };
    /// The owner's side of advance().
    class Driver {
      public:
        virtual ~Driver() = default;
        /// The collective has ended in error: nothing more may happen.
        virtual bool stopped() = 0;
        /// Send step k's next chunk (the owner calls chunk_sent(k)).
        virtual void send(std::size_t k) = 0;
        /// Take step k's next received chunk (channel front); false: not
        /// now (the owner will call advance() again when it can).
        virtual bool take(std::size_t k) = 0;
        /// Whether final result chunks may go to the host yet (the members
        /// have agreed on the arguments).
        virtual bool may_return() = 0;
        /// results_final grew or may have: hand chunks to the host.
        virtual void results_ready() = 0;
    };

    std::uint16_t sequence = 0;        ///< the collective's 15-bit step-packet sequence
    bool data = false;                 ///< runs the data phase (no local error)
    std::uint32_t chunk_bytes = 1024;  ///< payload per packet (collective.packet_payload_bytes)
    BlockLayout layout;
    /// false (job.timing_only): no payload is kept; `buffer` stays empty,
    /// contribution bytes are counted, not stored.
    bool carry_payload = true;
    /// build() counts the reads of the buffer's pages (step sends, combines,
    /// result chunks): the owner ends each with buffer.read_done and pages
    /// go once read for the last time. false: pages stay until the end
    /// (an owner that reads the buffer outside those streams).
    bool release_pages = false;
    PagedBuffer::Account* buffer_account = nullptr;  ///< where the buffer's pages are counted (may be null)
    PagedBuffer buffer;                              ///< the collective buffer (every block), paged
    std::vector<StepRun> steps;
    std::size_t first_open = 0;      ///< steps before it are done both ways
    StreamMap contribution;          ///< the host's bytes (in-step)
    std::uint64_t contributed = 0;   ///< contribution bytes in
    std::uint32_t header_bytes = 0;  ///< envelope [+ counts table] in front of the contribution
    StreamMap result;                ///< what goes back to the host
    std::uint32_t result_chunks = 0, results_sent = 0;
    std::uint32_t results_final = 0;  ///< result chunks final (sent in batches)
    Wait return_wait;

    /// Sets up the steps of `schedule` over `layout` (already set); `links(k,
    /// step)` gives each step's peers' state. Sets up a zeroed buffer (none
    /// without carry_payload; pages come as bytes are written).
    void build(const Schedule& schedule, const BlockSpan& contribution_blocks, const BlockSpan& result_blocks,
               const std::function<StepLinks(std::size_t, const Step&)>& links);
    /// Message bytes [offset, offset + bytes) of the host's request: the part
    /// past the envelope [+ counts] is contribution.
    void take_contribution(std::uint64_t offset, const std::uint8_t* data, std::uint64_t bytes);
    /// Moves everything that can move until the driver stops it; true if
    /// anything moved. `D`: a Driver; the owner's `final` driver type lets
    /// its calls (several per step) be inlined.
    ///
    /// One pass in step order is enough: whether a step may send or take
    /// depends on earlier steps (the bytes they write or still read, their
    /// order with the same peer) and on its own sends, never on a later
    /// step, so what a step's sends and takes unblock comes after it in
    /// the same pass, and the results after every step. (A driver that
    /// refuses a take, for want of a CGR unit, refuses it again until
    /// something outside the pass frees one.) test_data_phase.cpp checks
    /// that a second advance() finds nothing to do.
    template <typename D>
    bool advance(D& driver) {
        if (driver.stopped()) return false;
        bool moved = false;
        skip_done_steps();
        for (std::size_t k = first_open; k < steps.size() && !driver.stopped(); ++k) {
            while (can_send(k)) {
                driver.send(k);
                moved = true;
            }
            while (!driver.stopped() && can_take(k)) {
                if (!driver.take(k)) break;
                moved = true;
            }
        }
        while (driver.may_return() && !driver.stopped() && can_return()) {
            ++results_final;
            moved = true;
        }
        driver.results_ready();
        skip_done_steps();  // complete() reads first_open
        return moved;
    }
    /// Every chunk sent and applied, the contribution in and every result chunk returned.
    bool complete() const {
        return contributed == contribution.bytes() && first_open == steps.size() && results_sent == result_chunks;
    }

    // The driver's bookkeeping.
    void chunk_sent(std::size_t k) {
        --*steps[k].credits;
        ++steps[k].sent;
    }

    /// Whether step k's next chunk can go out / be taken in now. advance
    /// asks many times per chunk, and mostly the answer is a quick no: the
    /// cheap tests are inline, the rest (send_ready, take_ready) is not.
    bool can_send(std::size_t k) {
        StepRun& s = steps[k];
        // Cheapest first: the cached wait before the credit counter (another cache line).
        return s.send_peer >= 0 && !s.send_done() && satisfied(s.send_wait) && *s.credits > 0 && send_ready(k);
    }
    bool can_take(std::size_t k) {
        StepRun& s = steps[k];
        return s.recv_peer >= 0 && s.issued != s.recv_chunks && satisfied(s.take_wait) && !s.channel->empty() &&
               take_ready(k);
    }
    /// Whether the next result chunk is final.
    bool can_return();
    /// Whether a received chunk of step k would be combined (not copied).
    bool combines(std::size_t k) const {
        const StepRun& s = steps[k];
        return s.apply != Apply::Copy && chunk_end(s.issued, s.recv.bytes()) > chunk_begin(s.issued);
    }

    std::uint64_t chunk_begin(std::uint32_t chunk) const { return static_cast<std::uint64_t>(chunk) * chunk_bytes; }
    std::uint64_t chunk_end(std::uint32_t chunk, std::uint64_t bytes) const {
        return std::min(bytes, chunk_begin(chunk + 1));
    }
    std::uint32_t chunks_of(std::uint64_t bytes) const {
        return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (bytes + chunk_bytes - 1) / chunk_bytes));
    }

  private:
    void skip_done_steps() {
        while (first_open < steps.size() && steps[first_open].send_done() && steps[first_open].recv_done())
            ++first_open;
    }
    /// The rest of can_send / can_take: ordering and byte dependencies
    /// (remembers what it found to wait for in send_wait / take_wait).
    bool send_ready(std::size_t k);
    bool take_ready(std::size_t k);
    /// The first thing that still writes buffer bytes [lo, hi) before step
    /// `before` (and with `sends`, still reads them).
    Wait pending_write(std::size_t before, std::uint64_t lo, std::uint64_t hi, bool sends) const;
    bool satisfied(const Wait& w) const {
        switch (w.kind) {
            case Wait::None:
                return true;
            case Wait::Contribution:
                return contributed >= w.need;
            case Wait::Applied:
                return steps[w.step].applied >= w.need;
            case Wait::Sent:
                return steps[w.step].sent >= w.need;
        }
        return true;
    }
};

}  // namespace isvp
