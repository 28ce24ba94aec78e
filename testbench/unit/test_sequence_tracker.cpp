// SequenceTracker: a context's place in its communicator's collectives and
// peers' abort notices (15-bit sequences, wrapping).
#include <catch2/catch.hpp>

#include "isvp/sequence_tracker.h"

using namespace isvp;
using Notice = SequenceTracker::Notice;

TEST_CASE("an abort notice for the running collective abandons it", "[collective][abort]") {
    SequenceTracker t;
    CHECK(t.notice(5, 5, 64) == Notice::AbortRunning);
    CHECK(t.queued() == 0);
}

TEST_CASE("an abort notice for a collective that ended here is stale", "[collective][abort]") {
    SequenceTracker t;
    CHECK_FALSE(t.current(std::nullopt));  // nothing known after a LOAD
    t.finished(5);
    CHECK(t.current(std::nullopt) == 6);
    CHECK(t.ended(5, std::nullopt));
    CHECK_FALSE(t.ended(6, std::nullopt));
    CHECK(t.notice(5, std::nullopt, 64) == Notice::Ended);
    CHECK(t.notice(4, 7, 64) == Notice::Ended);  // older than the running one
    // Sequences wrap at 2^15: 0 follows 0x7FFF.
    t.finished(0x7FFF);
    CHECK(t.current(std::nullopt) == 0);
    CHECK(t.ended(0x7FFE, std::nullopt));
}

TEST_CASE("an early abort notice waits for its collective, which fails as it starts", "[collective][abort]") {
    SequenceTracker t;
    t.finished(2);  // 3 comes next
    CHECK(t.notice(4, std::nullopt, 64) == Notice::Queued);
    CHECK(t.notice(4, std::nullopt, 64) == Notice::AlreadyQueued);  // the same abort from another peer
    CHECK(t.notice(6, std::nullopt, 64) == Notice::Queued);
    CHECK_FALSE(t.aborted_before_start(3));  // not aborted; later notices stay
    CHECK(t.queued() == 2);
    CHECK(t.aborted_before_start(4));
    CHECK(t.queued() == 1);                  // 4's notice is used up, 6's waits
    CHECK_FALSE(t.aborted_before_start(7));  // 6 was skipped here: its notice goes
    CHECK(t.queued() == 0);
}

TEST_CASE("abort notices beyond the limit are refused, and a reset forgets them", "[collective][abort]") {
    SequenceTracker t;
    CHECK(t.notice(10, std::nullopt, 2) == Notice::Queued);
    CHECK(t.notice(11, std::nullopt, 2) == Notice::Queued);
    CHECK(t.notice(12, std::nullopt, 2) == Notice::Flood);
    t.finished(9);
    t.reset();  // LOAD / RELEASE
    CHECK(t.queued() == 0);
    CHECK_FALSE(t.current(std::nullopt));
    CHECK_FALSE(t.ended(3, std::nullopt));
}

TEST_CASE("sequence tracker: a queued link-fault abort keeps its cause and node pair until its collective starts") {
    SequenceTracker t;
    t.finished(2);  // next is 3
    SequenceTracker::Abort fault;
    fault.sequence = 4;
    fault.cause = CollectiveError::LinkFault;
    fault.fault_pair = 5u << 16 | 7u;
    CHECK(t.notice(fault, std::nullopt, 64) == SequenceTracker::Notice::Queued);
    CHECK(t.notice(4, std::nullopt, 64) == SequenceTracker::Notice::AlreadyQueued);  // a plain abort from a peer
    CHECK_FALSE(t.aborted_before_start(3));
    const auto abort = t.aborted_before_start(4);
    REQUIRE(abort);
    CHECK(abort->cause == CollectiveError::LinkFault);
    CHECK(abort->fault_pair == (5u << 16 | 7u));
    CHECK(t.queued() == 0);
}
