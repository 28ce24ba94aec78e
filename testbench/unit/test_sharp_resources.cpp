// SharpResources and OperationSlots (collective.mode = sharp): the
// aggregation manager reserves a tree slot and OST buffers on every AN of a
// group's tree, all or nothing, or the group falls back; an AN's operation
// state is taken at an operation's first packet and given back at its end.
#include <catch2/catch.hpp>

#include "isvp/sharp_resources.h"

using namespace isvp;

TEST_CASE("a group gets a tree slot and its OSTs' buffers on every AN of its tree", "[collective][sharp]") {
    SharpResources books(4, SharpLimits{64, 2, 8});
    CHECK(books.admit(7, {0, 3}).granted());
    CHECK(books.holds(7));
    CHECK(books.usage(0).trees == 1);
    CHECK(books.usage(0).buffers_reserved == 2);
    CHECK(books.usage(3).buffers_reserved == 2);
    CHECK(books.usage(1).trees == 0);
    books.release(7);
    CHECK_FALSE(books.holds(7));
    CHECK(books.usage(0).trees == 0);
    CHECK(books.usage(3).buffers_reserved == 0);
}

TEST_CASE("a group refused on one AN reserves nothing anywhere and names that AN", "[collective][sharp]") {
    SharpResources books(3, SharpLimits{64, 1, 2});
    REQUIRE(books.admit(1, {0, 2}).granted());
    REQUIRE(books.admit(2, {1, 2}).granted());
    const SharpAdmission third = books.admit(3, {0, 1, 2});  // AN 2 has no buffer left
    CHECK(third.outcome == SharpAdmission::Outcome::NoBuffers);
    CHECK(third.node == 2);
    CHECK(third.describe(books.limits()).find("AN 2") != std::string::npos);
    CHECK_FALSE(books.holds(3));
    CHECK(books.usage(0).buffers_reserved == 1);  // unchanged by the refusal
    CHECK(books.usage(1).buffers_reserved == 1);
    CHECK(books.usage(2).groups_refused == 1);
    CHECK(books.refused() == 1);
    CHECK(books.admitted() == 2);
    // A group freed gives its AN back to the next one.
    books.release(1);
    CHECK(books.admit(3, {0, 1, 2}).granted());
}

TEST_CASE("an AN serves at most max_trees_per_an trees", "[collective][sharp]") {
    SharpResources books(1, SharpLimits{3, 1, 64});
    for (std::uint64_t g = 0; g < 3; ++g) REQUIRE(books.admit(g, {0}).granted());
    const SharpAdmission fourth = books.admit(3, {0});
    CHECK(fourth.outcome == SharpAdmission::Outcome::NoTreeSlot);
    CHECK(fourth.describe(books.limits()).find("sharp_max_trees_per_an") != std::string::npos);
}

TEST_CASE("a group admitted again under its key gives its old reservation back first", "[collective][sharp]") {
    SharpResources books(1, SharpLimits{64, 1, 1});
    REQUIRE(books.admit(5, {0}).granted());
    CHECK(books.admit(5, {0}).granted());  // a new communicator with the same key
    CHECK(books.usage(0).buffers_reserved == 1);
    CHECK(books.usage(0).trees == 1);
}

TEST_CASE("no group is admitted on a faulted AN", "[collective][sharp]") {
    SharpResources books(2, SharpLimits{});
    books.fault(1);
    CHECK(books.admit(1, {0}).granted());
    const SharpAdmission refused = books.admit(2, {0, 1});
    CHECK(refused.outcome == SharpAdmission::Outcome::FaultedNode);
    CHECK(refused.node == 1);
}

TEST_CASE("an AN outside the network is refused by name", "[collective][sharp]") {
    SharpResources books(2, SharpLimits{});
    CHECK_THROWS_WITH(books.admit(1, {5}), Catch::Contains("AN 5 outside"));
}

TEST_CASE("an AN's operation state is taken at the first packet and freed at the end", "[collective][sharp]") {
    OperationSlots slots(2);
    CHECK(slots.begin(10));
    CHECK(slots.begin(10));  // the same operation's later packets
    CHECK(slots.begin(11));
    CHECK(slots.in_use() == 2);
    CHECK_FALSE(slots.begin(12));  // no buffer
    CHECK(slots.refused() == 1);
    slots.end(10);
    CHECK(slots.begin(12));
    CHECK(slots.peak() == 2);
    CHECK(slots.operations() == 3);
    slots.end(99);  // holds none: nothing happens
    CHECK(slots.in_use() == 2);
}
