#include "isvp/sequence_tracker.h"

#include <algorithm>

#include "isvp/collective_core.h"

namespace isvp {

void SequenceTracker::finished(std::uint16_t sequence) {
    next_ = static_cast<std::uint16_t>((sequence + 1) & kStepSequenceMask);
    have_next_ = true;
}

bool SequenceTracker::ended(std::uint16_t sequence, std::optional<std::uint16_t> running) const {
    return (running && compare_sequence(sequence, *running) < 0) ||
           (!running && have_next_ && compare_sequence(sequence, next_) < 0);
}

SequenceTracker::Notice SequenceTracker::notice(const Abort& abort, std::optional<std::uint16_t> running,
                                                std::size_t limit) {
    const std::uint16_t sequence = abort.sequence;
    if (running && *running == sequence) return Notice::AbortRunning;
    if (ended(sequence, running)) return Notice::Ended;
    if (std::any_of(aborts_.begin(), aborts_.end(), [&](const Abort& a) { return a.sequence == sequence; }))
        return Notice::AlreadyQueued;
    if (aborts_.size() >= limit) return Notice::Flood;
    aborts_.push_back(abort);
    return Notice::Queued;
}

std::optional<SequenceTracker::Abort> SequenceTracker::aborted_before_start(std::uint16_t sequence) {
    std::optional<Abort> aborted;
    for (auto it = aborts_.begin(); it != aborts_.end();) {
        const int order = compare_sequence(it->sequence, sequence);
        if (order == 0) aborted = *it;
        it = order <= 0 ? aborts_.erase(it) : std::next(it);
    }
    return aborted;
}

}  // namespace isvp
