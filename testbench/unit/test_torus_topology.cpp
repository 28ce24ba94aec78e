// The torus topology core: shape parameter, addresses, neighbours, links.
#include <catch2/catch.hpp>

#include "isvp/parameters.h"
#include "isvp/torus_topology.h"

using namespace isvp;

TEST_CASE("torus shape: XxYxZ parses into three extents") {
    const TorusShape shape = TorusShape::parse("4x3x2");
    CHECK(shape.x == 4);
    CHECK(shape.y == 3);
    CHECK(shape.z == 2);
    CHECK(shape.nodes() == 24);
    CHECK(shape.to_string() == "4x3x2");
    CHECK(TorusShape::parse("1x1x1").nodes() == 1);
}

TEST_CASE("torus shape: anything but three positive integers is refused naming topology.torus and the text") {
    CHECK_THROWS_WITH(TorusShape::parse("4x0x2"),
                      "config: topology.torus must be XxYxZ with positive integers, got '4x0x2'");
    for (const char* bad : {"", "4x4", "4x4x4x4", "4x-1x2", "ax2x2", "4 x4x4", "4x4x4 ", "x4x4"}) {
        INFO("'" << bad << "'");
        CHECK_THROWS_AS(TorusShape::parse(bad), ConfigError);
        CHECK_THROWS_WITH(TorusShape::parse(bad), Catch::Contains("topology.torus must be XxYxZ"));
    }
    CHECK_THROWS_WITH(TorusShape::parse("256x256x2"), Catch::Contains("at most 65536 nodes"));
}

TEST_CASE("torus topology: node address = x + X * (y + Y * z) and back") {
    const TorusTopology torus(TorusShape{4, 3, 2});
    CHECK(torus.nodes() == 24);
    for (std::uint32_t node = 0; node < torus.nodes(); ++node) CHECK(torus.address(torus.coordinates(node)) == node);
    const TorusCoordinates c = torus.coordinates(1 + 4 * (2 + 3 * 1));
    CHECK(c.position == std::array<unsigned, 3>{1, 2, 1});
    CHECK_FALSE(torus.contains(24));
}

TEST_CASE("torus topology: neighbours wrap around and ports pair up") {
    const TorusTopology torus(TorusShape{4, 4, 4});
    const std::uint32_t corner = 3 + 4 * (0 + 4 * 3);  // (3, 0, 3)
    CHECK(torus.neighbour(corner, TorusTopology::port(0, true)) == torus.address({{0, 0, 3}}));
    CHECK(torus.neighbour(corner, TorusTopology::port(1, false)) == torus.address({{3, 3, 3}}));
    CHECK(torus.neighbour(corner, TorusTopology::port(2, true)) == torus.address({{3, 0, 0}}));
    for (std::uint32_t node = 0; node < torus.nodes(); ++node)
        for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port)
            CHECK(torus.neighbour(torus.neighbour(node, port), TorusTopology::opposite(port)) == node);
}

TEST_CASE("torus topology: the wrap link is + from the last node and - from node 0 of each ring") {
    const TorusTopology torus(TorusShape{4, 1, 1});
    CHECK(torus.is_wrap_link(3, TorusTopology::port(0, true)));
    CHECK(torus.is_wrap_link(0, TorusTopology::port(0, false)));
    CHECK_FALSE(torus.is_wrap_link(2, TorusTopology::port(0, true)));
    CHECK_FALSE(torus.is_wrap_link(1, TorusTopology::port(0, false)));
}

TEST_CASE("torus topology: a dimension of size 1 has no links") {
    const TorusTopology torus(TorusShape{4, 1, 1});
    CHECK(torus.has_link(TorusTopology::port(0, true)));
    CHECK(torus.has_link(TorusTopology::port(0, false)));
    for (unsigned dimension : {1u, 2u}) {
        CHECK_FALSE(torus.has_link(TorusTopology::port(dimension, true)));
        CHECK_FALSE(torus.has_link(TorusTopology::port(dimension, false)));
    }
    const TorusTopology single(TorusShape{1, 1, 1});
    for (unsigned port = 0; port < TorusTopology::kNetworkPorts; ++port) CHECK_FALSE(single.has_link(port));
}

TEST_CASE("torus topology: a dimension of size 2 has a + and a - link to the same neighbour") {
    const TorusTopology torus(TorusShape{2, 1, 1});
    CHECK(torus.has_link(TorusTopology::port(0, true)));
    CHECK(torus.has_link(TorusTopology::port(0, false)));
    CHECK(torus.neighbour(0, TorusTopology::port(0, true)) == 1);
    CHECK(torus.neighbour(0, TorusTopology::port(0, false)) == 1);
    CHECK(torus.neighbour(1, TorusTopology::port(0, true)) == 0);
}

TEST_CASE("torus topology: distance is the sum of ring distances") {
    const TorusTopology torus(TorusShape{8, 5, 2});
    CHECK(TorusTopology::ring_distance(0, 7, 8) == 1);
    CHECK(TorusTopology::ring_distance(1, 5, 8) == 4);
    CHECK(TorusTopology::ring_distance(4, 4, 8) == 0);
    CHECK(TorusTopology::ring_distance(0, 3, 5) == 2);
    CHECK(torus.distance(torus.address({{0, 0, 0}}), torus.address({{7, 3, 1}})) == 1 + 2 + 1);
}
