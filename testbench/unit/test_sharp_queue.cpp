// SharpResources' queue (collective.mode = sharp, collective.sharp_queue_us):
// a group the aggregation manager cannot serve waits for the resources a
// released group gives back, is admitted in the order groups began waiting
// (first fit), or falls back when its deadline passes.
#include <catch2/catch.hpp>

#include "isvp/sharp_resources.h"

using namespace isvp;

TEST_CASE("a waiting group is admitted when a released group frees its AN", "[collective][sharp]") {
    SharpResources books(2, SharpLimits{1, 1, 64});  // one tree per AN
    REQUIRE(books.admit(1, {0, 1}).granted());
    REQUIRE_FALSE(books.admit(2, {1}).granted());
    books.wait(2, {1}, 100);
    CHECK(books.waiting(2));
    CHECK(books.queued() == 1);
    CHECK(books.admit_waiting().empty());  // nothing released yet
    books.release(1);
    CHECK(books.admit_waiting() == std::vector<std::uint64_t>{2});
    CHECK(books.holds(2));
    CHECK_FALSE(books.waiting(2));
    CHECK(books.usage(1).trees == 1);
    CHECK(books.usage(0).trees == 0);
}

TEST_CASE("waiting groups are served in the order they came, first fit", "[collective][sharp]") {
    SharpResources books(3, SharpLimits{1, 1, 64});
    REQUIRE(books.admit(1, {0}).granted());
    REQUIRE(books.admit(2, {1}).granted());
    books.wait(10, {0, 1}, 100);  // needs both
    books.wait(11, {0}, 100);     // needs AN 0 only
    books.wait(12, {0, 2}, 100);  // needs AN 0 too: 11 came first
    books.release(1);             // AN 0 free: 10 still lacks AN 1, 11 fits
    CHECK(books.admit_waiting() == std::vector<std::uint64_t>{11});
    CHECK(books.waiting(10));
    CHECK(books.waiting(12));
    books.release(11);
    books.release(2);  // AN 0 and 1 free: 10 (earlier) before 12
    CHECK(books.admit_waiting() == std::vector<std::uint64_t>{10});
    CHECK(books.waiting(12));
}

TEST_CASE("a waiting group falls back when its deadline passes", "[collective][sharp]") {
    SharpResources books(1, SharpLimits{1, 1, 64});
    REQUIRE(books.admit(1, {0}).granted());
    books.wait(2, {0}, 100);
    books.wait(3, {0}, 150);
    CHECK(books.next_deadline() == std::optional<std::uint64_t>(100));
    CHECK(books.expire(99).empty());
    CHECK(books.expire(100) == std::vector<std::uint64_t>{2});
    CHECK(books.next_deadline() == std::optional<std::uint64_t>(150));
    books.stop_waiting(3);
    CHECK_FALSE(books.waiting(3));
    CHECK_FALSE(books.next_deadline());
    books.release(1);
    CHECK(books.admit_waiting().empty());  // nobody waits any more
}

TEST_CASE("a waiting group is not admitted on an AN that failed meanwhile", "[collective][sharp]") {
    SharpResources books(2, SharpLimits{1, 1, 64});
    REQUIRE(books.admit(1, {0}).granted());
    books.wait(2, {0}, 100);
    books.fault(0);
    books.release(1);
    CHECK(books.admit_waiting().empty());
    CHECK(books.expire(100) == std::vector<std::uint64_t>{2});
}
