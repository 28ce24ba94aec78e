// The example kernels' data and plain C++ references (kernel_catalog.cpp):
// the values the kernels generate and the results they must produce, so a
// host (isvp bench smi, tests) can check them without the simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "isvp/smi.h"

namespace isvp::smi_examples {

/// FNV-1a over 64-bit words: the kernels' checksum of what they computed.
inline std::uint64_t fnv_add(std::uint64_t hash, std::uint64_t word) {
    for (int b = 0; b < 8; ++b) hash = (hash ^ ((word >> (8 * b)) & 0xFF)) * 0x100000001B3ull;
    return hash;
}
inline constexpr std::uint64_t kFnvBasis = 0xCBF29CE484222325ull;

/// Stencil: initial value of global element g.
inline double stencil_initial(std::uint64_t g) {
    return static_cast<double>((g * 7919u) % 1009u) - 504.0;
}
/// One stencil step of one point (fixed operand order: bit-identical).
inline double stencil_point(double left, double centre, double right) {
    return 0.25 * left + 0.5 * centre + 0.25 * right;
}
/// The serial reference: `ranks` blocks of `per_rank` points, `iterations`
/// steps, 0 beyond both ends; returns each rank's checksum of its block.
std::vector<std::uint64_t> stencil_reference(unsigned ranks, std::uint64_t per_rank, std::uint64_t iterations);

/// 2D stencil (SMI's examples/stencil): one Jacobi step of one point from
/// its four neighbours (fixed operand order: bit-identical).
inline double stencil2d_point(double north, double west, double east, double south) {
    return 0.25 * (north + west + east + south);
}
/// The ranks' grid of the 2D stencil on `ranks` FPGAs: ranks_x columns (the
/// largest divisor of `ranks` not above its square root) by ranks / ranks_x
/// rows; rank r is at column r % ranks_x, row r / ranks_x.
unsigned stencil2d_ranks_x(unsigned ranks);
/// The serial reference: a (ranks_y x tile) by (ranks_x x tile) grid of
/// doubles (row-major initial value stencil_initial(global index)), 0
/// beyond the edges, `iterations` Jacobi steps; returns each rank's checksum
/// of its tile (row-major).
std::vector<std::uint64_t> stencil2d_reference(unsigned ranks, std::uint64_t tile, std::uint64_t iterations);

/// Bcast: element i the root sends.
inline std::int32_t bcast_value(std::uint64_t i) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(i * 2654435761u) ^ 0x5BD1E995u);
}
/// Reduce: rank r's element i (int32 and double variants).
inline std::int32_t reduce_int(unsigned rank, std::uint64_t i) {
    return static_cast<std::int32_t>((rank + 1) * ((i * 37 + 11) % 1000)) - static_cast<std::int32_t>(7 * rank);
}
inline double reduce_double(unsigned rank, std::uint64_t i) {
    return 0.1 * reduce_int(rank, i) + 1.0 / (rank + 3);
}
/// The root's checksum of a reduce of `count` elements over `ranks` ranks
/// (operands in rank order), `type` SMI_INT or SMI_DOUBLE.
std::uint64_t reduce_reference(unsigned ranks, std::uint64_t count, SMI_Op op, SMI_Datatype type);

/// Streams (bandwidth, back-pressure): element i.
inline std::int32_t stream_value(std::uint64_t i) {
    return static_cast<std::int32_t>(i * 40503u + 17u);
}
/// Checksum of elements 0..count-1 as the receiver computes it.
std::uint64_t stream_reference(std::uint64_t count);

/// Scatter/gather: element j (over all blocks) the root scatters.
inline std::int32_t scatter_value(std::uint64_t j) {
    return static_cast<std::int32_t>(j * 101u + 3u);
}

}  // namespace isvp::smi_examples
