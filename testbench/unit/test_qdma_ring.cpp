// QDMA ring index arithmetic and the completion ring's colour.
#include <catch2/catch.hpp>

#include "isvp/qdma_ring.h"

using namespace isvp;

TEST_CASE("qdma ring: a ring of N entries has N-1 usable slots, the last holds the status") {
    const RingIndex ring(64);
    CHECK(ring.entries() == 64);
    CHECK(ring.slots() == 63);
    CHECK(ring.status_index() == 63);
    CHECK(ring.valid(62));
    CHECK_FALSE(ring.valid(63));
}

TEST_CASE("qdma ring: indices wrap from N-2 to 0") {
    const RingIndex ring(64);
    CHECK(ring.next(0) == 1);
    CHECK(ring.next(61) == 62);
    CHECK(ring.next(62) == 0);
    CHECK(ring.advance(60, 5) == 2);
    CHECK(ring.advance(0, 63) == 0);
}

TEST_CASE("qdma ring: distance counts entries from consumer to producer across the wrap") {
    const RingIndex ring(64);
    CHECK(ring.distance(5, 5) == 0);
    CHECK(ring.distance(5, 9) == 4);
    CHECK(ring.distance(60, 2) == 5);
    CHECK(ring.until_wrap(60) == 3);
}

TEST_CASE("qdma ring: the producer is full one slot short of the consumer") {
    const RingIndex ring(64);
    CHECK(ring.full(61, 62));
    CHECK(ring.full(62, 0));
    CHECK_FALSE(ring.full(0, 0));  // empty
    CHECK_FALSE(ring.full(5, 7));
}

TEST_CASE("qdma ring: completion colour starts at 1 and flips each time the producer wraps") {
    CompletionProducer producer(RingIndex(16));  // 15 usable entries
    CHECK(producer.colour());
    for (unsigned lap = 0; lap < 3; ++lap) {
        for (std::uint32_t i = 0; i < 15; ++i) {
            const auto slot = producer.produce();
            CHECK(slot.index == i);
            CHECK(slot.colour == (lap % 2 == 0));
        }
        CHECK(producer.pidx() == 0);
        CHECK(producer.colour() == (lap % 2 != 0));
    }
}

TEST_CASE("qdma ring: the completion producer reports full against the driver's CIDX") {
    CompletionProducer producer(RingIndex(16));
    for (int i = 0; i < 14; ++i) producer.produce();
    CHECK(producer.full(0));
    CHECK_FALSE(producer.full(1));
}
