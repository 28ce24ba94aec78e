// Deterministic bit-error injection for one link direction (no SystemC).
//
// Each transmission of n bits is hit with probability 1 - (1 - BER)^n; a hit
// names one bit position, uniformly. Only the first error of a frame is
// modelled: a CRC-32 detects every single-bit error, so further flips in the
// same frame would change nothing observable. The generator is SplitMix64,
// seeded per link, so a run is reproducible on every host and independent of
// how many other links exist or in which order they transmit.
#pragma once

#include <cstdint>
#include <optional>

namespace isvp {

class BitErrorInjector {
  public:
    /// `bit_error_rate` in [0, 0.5]; `seed` and `stream` (e.g. the link's
    /// index) together select the random sequence.
    BitErrorInjector(double bit_error_rate, std::uint64_t seed, std::uint64_t stream);

    bool enabled() const { return enabled_; }
    /// For a transmission of `bits` bits: the position of a flipped bit, or
    /// nullopt if it goes through intact. Consumes random numbers only when
    /// enabled.
    std::optional<std::uint64_t> corrupted_bit(std::uint64_t bits);

    /// Probability that a transmission of `bits` bits is hit.
    double hit_probability(std::uint64_t bits) const;

  private:
    std::uint64_t next();  ///< next 64 random bits
    double next_unit();    ///< uniform in [0, 1)

    bool enabled_;         ///< false when the bit error rate is zero
    double log_survival_;  ///< log(1 - BER), per bit
    std::uint64_t state_;  ///< SplitMix64 state
};

}  // namespace isvp
