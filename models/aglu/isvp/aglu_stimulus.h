// Operand stimulus for the AgLU: random lanes mixed with the edge cases that
// break arithmetic units (±0, ±Inf, NaNs, subnormals, integer extremes,
// values that overflow or cancel, MINLOC/MAXLOC ties). Deterministic for a
// given seed. Shared by the equivalence testbench, the demo and the bench.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "isvp/aglu_core.h"

namespace isvp {

class AgluStimulus {
  public:
    explicit AgluStimulus(std::uint64_t seed) : random_(seed) {}

    /// `count` operand pairs for `type`: a[i], b[i].
    void generate(Datatype type, std::size_t count, std::vector<Vector256>& a, std::vector<Vector256>& b);

  private:
    std::uint64_t lane(Datatype type, std::uint64_t partner, bool second);
    std::uint64_t float_lane(bool is_double, std::uint64_t partner, bool second);
    std::uint64_t integer_lane(unsigned bits, bool is_signed, std::uint64_t partner, bool second);

    std::mt19937_64 random_;  ///< the one source of randomness; seeded once
};

}  // namespace isvp
