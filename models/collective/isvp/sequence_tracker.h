// SequenceTracker: where one context (CT row) of a switch is in its
// communicator's sequence of collectives, and the abort notices of
// collectives that have not started here yet (docs/COLLECTIVES.md,
// "Releasing or loading a busy row"). SystemC-free. Sequences are the
// 15-bit step-packet sequences (compare_sequence); `running` is the
// sequence of the collective running on the context, if any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "isvp/collective_core.h"

namespace isvp {

class SequenceTracker {
  public:
    /// An abort of a collective by sequence: why, and for a link fault which
    /// pair of nodes lost packets.
    struct Abort {
        std::uint16_t sequence = 0;                        ///< 15-bit
        CollectiveError cause = CollectiveError::Aborted;  ///< error the collective ends with
        std::uint32_t fault_pair = 0;                      ///< link fault: source node << 16 | destination node
        FaultedLink fault_link{};                          ///< link fault: the cable and the count
    };

    /// What an abort notice for `sequence` means here.
    enum class Notice : std::uint8_t {
        AbortRunning,   ///< the running collective: abandon it (unless it already is)
        Ended,          ///< a collective that already ended here (stale)
        AlreadyQueued,  ///< another peer's notice for the same collective
        Queued,         ///< a collective not started here yet: it fails as soon as it starts
        Flood,          ///< more notices than `limit` held: dropped
    };

    /// The collective with `sequence` ended: the next one follows it.
    void finished(std::uint16_t sequence);
    /// A LOAD or RELEASE of the row: nothing is known any more.
    void reset() {
        aborts_.clear();
        have_next_ = false;
    }
    /// Whether a packet or notice for `sequence` belongs to a collective that
    /// has already ended here.
    bool ended(std::uint16_t sequence, std::optional<std::uint16_t> running) const;
    /// The collective current here (running, else the next), if known:
    /// held packets older than it are stale.
    std::optional<std::uint16_t> current(std::optional<std::uint16_t> running) const {
        if (running) return running;
        if (have_next_) return next_;
        return std::nullopt;
    }
    /// An abort notice from a peer, or a link fault found here (Queued
    /// records it).
    Notice notice(const Abort& abort, std::optional<std::uint16_t> running, std::size_t limit);
    /// The same for a plain abort (a released row) of `sequence`.
    Notice notice(std::uint16_t sequence, std::optional<std::uint16_t> running, std::size_t limit) {
        return notice(Abort{sequence}, running, limit);
    }
    /// The collective `sequence` starts: the abort a peer (or a link fault)
    /// recorded for it already, if any. Notices for it and older ones are
    /// forgotten.
    std::optional<Abort> aborted_before_start(std::uint16_t sequence);
    std::size_t queued() const { return aborts_.size(); }

  private:
    /// Collectives a peer aborted (or whose packets were lost) that have
    /// not started here yet; they fail as soon as they start.
    std::deque<Abort> aborts_;
    bool have_next_ = false;  ///< next_ is known
    std::uint16_t next_ = 0;  ///< 15-bit sequence after the last collective
};

}  // namespace isvp
