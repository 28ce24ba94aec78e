#include "isvp/torus_topology.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "isvp/parameters.h"

namespace isvp {

namespace {

constexpr unsigned kMaxNodes = 1u << 16;  // the network header's 16-bit destination

constexpr std::array<std::string_view, TorusTopology::kPorts> kPortNames = {"xplus", "xminus", "yplus", "yminus",
                                                                            "zplus", "zminus", "local"};

[[noreturn]] void reject_shape(std::string_view text, const std::string& why = "") {
    throw ConfigError("config: topology.torus must be XxYxZ with positive integers, got '" + std::string(text) + "'" +
                      why);
}

}  // namespace

TorusShape TorusShape::parse(std::string_view text) {
    std::array<std::uint64_t, 3> extents{};
    std::size_t position = 0;
    for (std::size_t dimension = 0; dimension < 3; ++dimension) {
        if (dimension > 0) {
            if (position >= text.size() || (text[position] != 'x' && text[position] != 'X')) reject_shape(text);
            ++position;
        }
        const std::size_t first = position;
        std::uint64_t value = 0;
        while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
            value = value * 10 + static_cast<unsigned>(text[position] - '0');
            if (value > kMaxNodes) reject_shape(text, " (at most 65536 nodes: the destination field has 16 bits)");
            ++position;
        }
        if (position == first || value == 0) reject_shape(text);
        extents[dimension] = value;
    }
    if (position != text.size()) reject_shape(text);
    if (extents[0] * extents[1] * extents[2] > kMaxNodes)
        reject_shape(text, " (at most 65536 nodes: the destination field has 16 bits)");
    return TorusShape{static_cast<unsigned>(extents[0]), static_cast<unsigned>(extents[1]),
                      static_cast<unsigned>(extents[2])};
}

std::string TorusShape::to_string() const {
    return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

std::string_view TorusTopology::port_name(unsigned port) {
    return kPortNames.at(port);
}

TorusTopology::TorusTopology(const TorusShape& shape) : shape_(shape), nodes_(0) {
    const std::uint64_t nodes = std::uint64_t{shape.x} * shape.y * shape.z;
    if (shape.x == 0 || shape.y == 0 || shape.z == 0 || nodes > kMaxNodes)
        reject_shape(shape.to_string(), nodes > kMaxNodes ? " (at most 65536 nodes)" : "");
    nodes_ = static_cast<unsigned>(nodes);
}

std::uint32_t TorusTopology::address(const TorusCoordinates& coordinates) const {
    const auto& p = coordinates.position;
    return p[0] + shape_.x * (p[1] + shape_.y * p[2]);
}

std::uint32_t TorusTopology::neighbour(std::uint32_t node, unsigned network_port) const {
    TorusCoordinates c = coordinates(node);
    const unsigned dimension = dimension_of(network_port);
    const unsigned extent = shape_.extent(dimension);
    unsigned& position = c.position[dimension];
    position = is_plus(network_port) ? (position + 1) % extent : (position + extent - 1) % extent;
    return address(c);
}

bool TorusTopology::is_wrap_link(const TorusCoordinates& node, unsigned network_port) const {
    const unsigned dimension = dimension_of(network_port);
    const unsigned extent = shape_.extent(dimension);
    if (extent < 2) return false;
    const unsigned position = node.position[dimension];
    return is_plus(network_port) ? position == extent - 1 : position == 0;
}

unsigned TorusTopology::ring_distance(unsigned from, unsigned to, unsigned extent) {
    const unsigned forward = (to + extent - from) % extent;
    return forward == 0 ? 0 : std::min(forward, extent - forward);
}

unsigned TorusTopology::distance(std::uint32_t from, std::uint32_t to) const {
    const TorusCoordinates a = coordinates(from);
    const TorusCoordinates b = coordinates(to);
    unsigned hops = 0;
    for (unsigned d = 0; d < kDimensions; ++d) hops += ring_distance(a.position[d], b.position[d], shape_.extent(d));
    return hops;
}

}  // namespace isvp
