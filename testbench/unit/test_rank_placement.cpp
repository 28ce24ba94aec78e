// RankPlacement: --map-by and --rankfile as data (models/router/rank_placement.h).
#include <catch2/catch.hpp>

#include "isvp/parameters.h"
#include "isvp/rank_placement.h"

using namespace isvp;

namespace {

NetworkTopology tree() {  // radix 4, 8 hosts: leaves of 3, 3 and 2 hosts
    return fat_tree_network(FatTreeShape::parse("radix=4,hosts=8"));
}

std::string refusal(std::string_view text, unsigned ranks) {
    try {
        RankPlacement::from_rankfile(text, ranks, tree(), "rankfile r.txt");
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("rank placement: host keeps rank r on node r, switch deals the ranks round the leaves", "[placement]") {
    const NetworkTopology network = tree();
    CHECK(RankPlacement::map_by("host", 8, network).identity());
    const RankPlacement spread = RankPlacement::map_by("switch", 8, network);
    CHECK(spread.nodes == std::vector<std::uint16_t>{0, 3, 6, 1, 4, 7, 2, 5});
    CHECK(spread.node_of(2) == 6);
    CHECK(RankPlacement::map_by("switch", 4, network).nodes == std::vector<std::uint16_t>{0, 3, 6, 1});
    // On a torus every switch has one host: dealing round the switches is rank r on node r.
    CHECK(RankPlacement::map_by("switch", 8, torus_network(TorusShape{2, 2, 2})).identity());
    CHECK_THROWS_WITH(RankPlacement::map_by("switch", 9, network), Catch::Contains("9 ranks do not fit the 8 hosts"));
    CHECK_THROWS_WITH(RankPlacement::map_by("slot", 2, network), Catch::Contains("'slot' is not a placement"));
}

TEST_CASE("rank placement: a rankfile names each rank's node", "[placement]") {
    const RankPlacement placement = RankPlacement::from_rankfile(
        "# two ranks swapped\n rank 1=node0   \nrank 0=+n5 slot=0 # comment\n\nrank 2=node2\n", 3, tree(), "rankfile");
    CHECK(placement.nodes == std::vector<std::uint16_t>{5, 0, 2});
    CHECK(placement.describe() == "ranks on nodes 5,0,2");
    CHECK(RankPlacement::from_rankfile("rank 0=node0\nrank 1=node1\n", 2, tree(), "rankfile").identity());
}

TEST_CASE("rank placement: a bad rankfile is refused with its line and what is wrong", "[placement]") {
    CHECK_THAT(refusal("rank 0=node1\nrank 1=node1\n", 2),
               Catch::Contains("rankfile r.txt line 2: node 1 already runs a rank (line 1)"));
    CHECK_THAT(refusal("rank 0=node1\nrank 0=node2\n", 2), Catch::Contains("line 2: rank 0 is placed twice"));
    CHECK_THAT(refusal("rank 0=node1\n", 2), Catch::Contains("rank 1 has no line"));
    CHECK_THAT(refusal("rank 0=node9\nrank 1=node1\n", 2), Catch::Contains("line 1: node 9 is not a host"));
    CHECK_THAT(refusal("rank 5=node1\n", 2), Catch::Contains("rank 5 is not a rank of this job (2 ranks: 0..1)"));
    CHECK_THAT(refusal("ranks 0=node1\n", 1), Catch::Contains("is not 'rank R=nodeK"));
    CHECK_THAT(refusal("rank x=node1\n", 1), Catch::Contains("is not 'rank R=nodeK"));
    CHECK_THAT(refusal("rank 0=nodeX\n", 1), Catch::Contains("host 'nodeX' is not nodeK or +nK"));
    CHECK_THAT(refusal("rank 0=node1 slot=2\n", 1), Catch::Contains("its only slot is slot=0"));
    CHECK_THAT(refusal("", 9), Catch::Contains("9 ranks do not fit the 8 hosts"));
}
