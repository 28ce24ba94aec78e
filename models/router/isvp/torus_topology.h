// The 3D torus of the direct network (DESIGN §3.1): coordinates, node
// addresses, neighbours and which router ports carry links. No SystemC.
//
// Node address = x + X * (y + Y * z) — the 16-bit destination of the network
// header. Router ports of a torus node: 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z,
// 6 local (inject from / eject to the QDMA). Port +d of a node sends to and
// receives from its +d neighbour. A dimension of size 1 has no links; one
// of size 2 has two distinct cables (+ and -) to the same neighbour.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace isvp {

/// Torus extent in x, y, z.
struct TorusShape {
    unsigned x = 1;  ///< nodes along x
    unsigned y = 1;  ///< nodes along y
    unsigned z = 1;  ///< nodes along z

    /// Parses "XxYxZ" (e.g. "4x4x4"); throws ConfigError naming the
    /// parameter topology.torus and the text when it is not three positive
    /// integers or has more than 65536 nodes.
    static TorusShape parse(std::string_view text);
    std::string to_string() const;
    unsigned nodes() const { return x * y * z; }
    unsigned extent(unsigned dimension) const { return dimension == 0 ? x : dimension == 1 ? y : z; }
};

/// Coordinates of a node.
struct TorusCoordinates {
    std::array<unsigned, 3> position{};  ///< x, y, z
    bool operator==(const TorusCoordinates& other) const { return position == other.position; }
};

class TorusTopology {
  public:
    static constexpr unsigned kDimensions = 3;
    static constexpr unsigned kNetworkPorts = 6;  ///< +x, -x, +y, -y, +z, -z
    static constexpr unsigned kLocalPort = 6;     ///< inject/eject
    static constexpr unsigned kPorts = 7;         ///< router ports of a torus node

    /// Port that leaves along `dimension` in the + (true) or - direction.
    static constexpr unsigned port(unsigned dimension, bool plus) { return 2 * dimension + (plus ? 0 : 1); }
    static constexpr unsigned dimension_of(unsigned network_port) { return network_port / 2; }
    static constexpr bool is_plus(unsigned network_port) { return network_port % 2 == 0; }
    /// The port at the other end of a link leaving through `network_port`.
    static constexpr unsigned opposite(unsigned network_port) { return network_port ^ 1u; }
    /// "xplus", "xminus", ..., "local": usable in SystemC object names.
    static std::string_view port_name(unsigned port);

    /// Throws ConfigError if the shape is invalid (see TorusShape::parse).
    explicit TorusTopology(const TorusShape& shape);

    const TorusShape& shape() const { return shape_; }
    unsigned nodes() const { return nodes_; }
    bool contains(std::uint32_t node) const { return node < nodes_; }
    TorusCoordinates coordinates(std::uint32_t node) const {  // inline: every routed hop asks, twice
        TorusCoordinates result;
        const std::uint32_t row = node / shape_.x;
        result.position[0] = node - row * shape_.x;
        result.position[1] = row % shape_.y;
        result.position[2] = row / shape_.y;
        return result;
    }
    std::uint32_t address(const TorusCoordinates& coordinates) const;

    /// Whether `network_port` of a node carries a link (its dimension has
    /// more than one node).
    bool has_link(unsigned network_port) const { return shape_.extent(dimension_of(network_port)) > 1; }
    /// The node reached through `network_port` (with wrap-around).
    std::uint32_t neighbour(std::uint32_t node, unsigned network_port) const;
    /// Whether the link leaving `node` through `network_port` is its ring's
    /// wrap-around link (the dateline): + from the last node, - from node 0.
    bool is_wrap_link(std::uint32_t node, unsigned network_port) const {
        return is_wrap_link(coordinates(node), network_port);
    }
    /// The same, for a node whose coordinates the caller has.
    bool is_wrap_link(const TorusCoordinates& node, unsigned network_port) const;
    /// Minimal hops between two nodes: the sum of the ring distances.
    unsigned distance(std::uint32_t from, std::uint32_t to) const;
    /// Ring distance along one dimension of size `extent`.
    static unsigned ring_distance(unsigned from, unsigned to, unsigned extent);

  private:
    TorusShape shape_;  ///< extent per dimension
    unsigned nodes_;    ///< x * y * z
};

}  // namespace isvp
