// CgrPool and AgluLanes: CGR units handed out first come first served, held
// only while chunks are in the AgLUs; a chunk's bursts placed on the AgLUs.
#include <catch2/catch.hpp>

#include "isvp/cgr_pool.h"

using namespace isvp;

TEST_CASE("a free CGR unit goes to the first owner that asks, and stays with it", "[collective][cgr]") {
    CgrPool pool(2, 32);
    CHECK(pool.has_free_unit());
    CHECK(pool.acquire(5, 100));
    CHECK(pool.holds(5));
    CHECK(pool.acquire(5, 200));  // already held
    CHECK(pool.acquire(6, 200));
    CHECK_FALSE(pool.has_free_unit());
    CHECK(pool.waits() == 0);
}

TEST_CASE("owners wait for a CGR unit in arrival order and the wait is timed", "[collective][cgr]") {
    CgrPool pool(1, 32);
    REQUIRE(pool.acquire(0, 0));
    CHECK_FALSE(pool.acquire(3, 10));  // waits from 10
    CHECK_FALSE(pool.acquire(1, 20));  // waits from 20, behind 3
    CHECK_FALSE(pool.acquire(3, 25));  // still waiting: counted once
    CHECK(pool.waits() == 2);
    CHECK(pool.first_waiter() == 3);
    pool.release(0, 30);
    CHECK(pool.has_free_unit());
    // First come first served: 1 may not overtake 3.
    CHECK_FALSE(pool.acquire(1, 30));
    CHECK(pool.acquire(3, 40));
    CHECK(pool.wait_time() == 30);  // 3 waited 10 -> 40
    CHECK(pool.first_waiter() == 1);
    pool.release(3, 50);
    CHECK(pool.acquire(1, 60));
    CHECK(pool.wait_time() == 30 + 40);
    CHECK_FALSE(pool.has_waiters());
}

TEST_CASE("an owner that ends while waiting leaves the queue", "[collective][cgr]") {
    CgrPool pool(1, 32);
    REQUIRE(pool.acquire(0, 0));
    CHECK_FALSE(pool.acquire(7, 5));
    CHECK_FALSE(pool.acquire(8, 6));
    pool.release(7, 15);  // e.g. aborted: no longer waits
    CHECK_FALSE(pool.waiting(7));
    CHECK(pool.first_waiter() == 8);
    CHECK(pool.wait_time() == 10);
    pool.release(0, 20);
    CHECK(pool.acquire(8, 20));
}

TEST_CASE("AgLU lanes: a chunk's bursts go to the AgLU free first", "[collective][cgr]") {
    AgluLanes lanes;
    lanes.reset(3, 1000);
    CHECK(lanes.parts(10, 2) == 2);  // datapath width
    CHECK(lanes.parts(1, 2) == 1);   // one vector
    CHECK(lanes.parts(10, 8) == 3);  // all AgLUs
    // Cycle 4 units; bursts of 5 vectors with latency stages + 5 - 1 = 8 cycles.
    CHECK(lanes.issue(1000, 5, 8, 4) == 1032);
    CHECK(lanes.issue(1000, 5, 8, 4) == 1032);
    CHECK(lanes.issue(1000, 5, 8, 4) == 1032);
    // All three busy until 1020: the next burst starts there.
    CHECK(lanes.issue(1004, 5, 8, 4) == 1052);
    CHECK(lanes.free_at() == std::vector<std::uint64_t>{1040, 1020, 1020});
}
