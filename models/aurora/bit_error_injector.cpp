#include "isvp/bit_error_injector.h"

#include <cmath>

namespace isvp {

namespace {

std::uint64_t mix(std::uint64_t value) {
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
    return value ^ (value >> 31);
}

}  // namespace

BitErrorInjector::BitErrorInjector(double bit_error_rate, std::uint64_t seed, std::uint64_t stream)
    : enabled_(bit_error_rate > 0.0),
      log_survival_(std::log1p(-bit_error_rate)),
      state_(mix(seed) ^ mix(stream + 0x9E3779B97F4A7C15ull)) {}

std::uint64_t BitErrorInjector::next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return mix(state_);
}

double BitErrorInjector::next_unit() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double BitErrorInjector::hit_probability(std::uint64_t bits) const {
    return enabled_ ? -std::expm1(static_cast<double>(bits) * log_survival_) : 0.0;
}

std::optional<std::uint64_t> BitErrorInjector::corrupted_bit(std::uint64_t bits) {
    if (!enabled_ || bits == 0) return std::nullopt;
    if (next_unit() >= hit_probability(bits)) return std::nullopt;
    return next() % bits;
}

}  // namespace isvp
