// AgLU functional core: one vectorised 256-bit aggregation logic unit.
//
// Plain C++17, no SystemC, no timing. It combines two 256-bit operand
// vectors lane by lane with one MPI reduction operation; lane width follows
// the datatype. Semantics — integer wrap, IEEE 754 round-to-nearest-even with
// subnormals, canonical NaN, MINLOC/MAXLOC ties — are specified in
// models/aglu/README.md and are identical, bit for bit, in rtl/aglu/aglu.v.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "isvp/reduction_types.h"

namespace isvp {

/// One 256-bit phit of operand data; word j holds bits [64j+63 : 64j], and
/// byte k of host memory is bits [8k+7 : 8k] (little-endian).
using Vector256 = std::array<std::uint64_t, 4>;
inline constexpr std::size_t kVectorBytes = 32;

/// Raised when an (operation, datatype) pair reaches the AgLU that the
/// hardware does not support; the message names both and the accepted ops.
class UnsupportedReduction : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

/// Capability query: does the hardware AgLU implement `op` on `type`?
bool aglu_supports(Operation op, Datatype type);
/// The operations the AgLU implements on `type`, in encoding order.
std::vector<Operation> aglu_supported_operations(Datatype type);
/// Throws UnsupportedReduction naming the pair and the accepted operations.
void aglu_require_supported(Operation op, Datatype type);

/// Combines one vector pair. Throws UnsupportedReduction for unsupported pairs.
Vector256 aglu_combine(Operation op, Datatype type, const Vector256& a, const Vector256& b);

/// Combines `count` vector pairs: out[i] = a[i] op b[i]. `out` may alias `a`
/// or `b`. Throws UnsupportedReduction for unsupported pairs.
void aglu_combine(Operation op, Datatype type, const Vector256* a, const Vector256* b, Vector256* out,
                  std::size_t count);

/// The canonical quiet NaNs every NaN-producing float operation returns.
inline constexpr std::uint32_t kCanonicalNanFloat32 = 0x7FC00000u;
inline constexpr std::uint64_t kCanonicalNanFloat64 = 0x7FF8000000000000ull;

}  // namespace isvp
