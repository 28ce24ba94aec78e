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

namespace isvp {

class SequenceTracker {
  public:
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
    /// An abort notice for `sequence` from a peer (Queued records it).
    Notice notice(std::uint16_t sequence, std::optional<std::uint16_t> running, std::size_t limit);
    /// The collective `sequence` starts: whether a peer aborted it already.
    /// Notices for it and older ones are forgotten.
    bool aborted_before_start(std::uint16_t sequence);
    std::size_t queued() const { return aborts_.size(); }

  private:
    /// Sequences (15-bit) of collectives a peer aborted that have not
    /// started here yet; they fail as soon as they start.
    std::deque<std::uint16_t> aborts_;
    bool have_next_ = false;  ///< next_ is known
    std::uint16_t next_ = 0;  ///< 15-bit sequence after the last collective
};

}  // namespace isvp
