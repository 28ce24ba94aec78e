#include "isvp/aglu_stimulus.h"

#include <array>

namespace isvp {
namespace {

struct FloatFormat {
    unsigned exponent_bits;
    unsigned fraction_bits;
    unsigned width() const { return 1 + exponent_bits + fraction_bits; }
    std::uint64_t sign() const { return 1ull << (width() - 1); }
    std::uint64_t fraction_mask() const { return (1ull << fraction_bits) - 1; }
    std::uint64_t exponent_max() const { return (1ull << exponent_bits) - 1; }
    std::uint64_t bias() const { return (1ull << (exponent_bits - 1)) - 1; }
    std::uint64_t pack(std::uint64_t sign_bit, std::uint64_t exponent, std::uint64_t fraction) const {
        return (sign_bit ? sign() : 0) | (exponent << fraction_bits) | (fraction & fraction_mask());
    }
};

constexpr FloatFormat kBinary32{8, 23};
constexpr FloatFormat kBinary64{11, 52};

std::uint64_t mask_of(unsigned bits) {
    return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

unsigned lane_bits(Datatype type) {
    return static_cast<unsigned>(element_size(type) * 8);
}

}  // namespace

std::uint64_t AgluStimulus::float_lane(bool is_double, std::uint64_t partner, bool second) {
    const FloatFormat& f = is_double ? kBinary64 : kBinary32;
    auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(random_); };
    const std::uint64_t bits = random_();
    const std::uint64_t sign_bit = bits >> 63;
    const std::array<std::uint64_t, 16> edges = {
        f.pack(0, 0, 0),                                                 // +0
        f.pack(1, 0, 0),                                                 // -0
        f.pack(0, f.exponent_max(), 0),                                  // +Inf
        f.pack(1, f.exponent_max(), 0),                                  // -Inf
        f.pack(0, f.exponent_max(), 1ull << (f.fraction_bits - 1)),      // quiet NaN
        f.pack(1, f.exponent_max(), 1ull << (f.fraction_bits - 1) | 5),  // negative NaN with payload
        f.pack(sign_bit, f.exponent_max(), 1),                           // signalling NaN
        f.pack(sign_bit, 0, 1),                                          // smallest subnormal
        f.pack(sign_bit, 0, f.fraction_mask()),                          // largest subnormal
        f.pack(sign_bit, 1, 0),                                          // smallest normal
        f.pack(sign_bit, f.exponent_max() - 1, f.fraction_mask()),       // largest finite
        f.pack(sign_bit, f.bias(), 0),                                   // ±1
        f.pack(sign_bit, 0, bits),                                       // random subnormal
        f.pack(sign_bit, f.exponent_max() - 1, bits),                    // huge: sums and products overflow
        f.pack(sign_bit, pick(f.fraction_bits + 2), bits),               // tiny: products underflow
        f.pack(sign_bit, f.bias() + 1, 1),                               // 2 + 1 ulp: ties in sums
    };
    const std::uint64_t partner_exponent = (partner >> f.fraction_bits) & f.exponent_max();
    switch (pick(second ? 8 : 5)) {
        case 0:
        case 1:
            return edges[pick(edges.size())];
        case 2:
            return bits & mask_of(f.width());  // any pattern
        case 3: {                              // a normal number near 1: rounding in sums and products
            const std::uint64_t exponent = f.bias() - 8 + pick(17);
            return f.pack(sign_bit, exponent, bits);
        }
        case 4:
            return f.pack(sign_bit, pick(f.exponent_max()), bits);  // any finite
        case 5:
            return partner ^ f.sign();  // exact cancellation
        case 6: {                       // same magnitude class, other sign: massive cancellation
            const std::uint64_t exponent = partner_exponent + pick(5) - 2;
            return f.pack(!(partner & f.sign()), exponent & f.exponent_max(), partner + pick(7) - 3);
        }
        default: {  // exponents a few apart: alignment, guard and sticky bits
            const std::uint64_t shift = pick(f.fraction_bits + 4);
            const std::uint64_t exponent = partner_exponent > shift ? partner_exponent - shift : 0;
            return f.pack(sign_bit, exponent, bits);
        }
    }
}

std::uint64_t AgluStimulus::integer_lane(unsigned bits, bool is_signed, std::uint64_t partner, bool second) {
    const std::uint64_t mask = mask_of(bits);
    auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(random_); };
    const std::uint64_t top = 1ull << (bits - 1);
    const std::array<std::uint64_t, 9> edges = {
        0, 1, mask, top, top - 1, top + 1, mask - 1, 2, is_signed ? top : mask,
    };
    switch (pick(second ? 6 : 4)) {
        case 0:
            return edges[pick(edges.size())];
        case 1:
            return random_() & mask;
        case 2:
            return pick(16);  // small values: products stay in range
        case 3:
            return (0 - pick(16)) & mask;  // small negatives
        case 4:
            return partner;  // equal operands: MIN/MAX ties
        default:
            return (0 - partner) & mask;  // negated partner: sums wrap to 0
    }
}

std::uint64_t AgluStimulus::lane(Datatype type, std::uint64_t partner, bool second) {
    auto pick = [&](std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(random_); };
    switch (type) {
        case Datatype::Float32:
            return float_lane(false, partner, second);
        case Datatype::Float64:
            return float_lane(true, partner, second);
        case Datatype::Float32Int32:
        case Datatype::Int32Int32: {
            const bool is_float = type == Datatype::Float32Int32;
            const std::uint64_t partner_value = partner & 0xFFFFFFFFull;
            std::uint64_t value;
            if (second && pick(3) == 0)
                value = partner_value;  // equal values: the index decides
            else if (second && is_float && pick(6) == 0)
                value = partner_value ^ 0x80000000ull;  // ±0 and ±x
            else
                value =
                    is_float ? float_lane(false, partner_value, second) : integer_lane(32, true, partner_value, second);
            // Indices from a small range so that ties happen; sometimes extremes.
            const std::array<std::uint64_t, 4> extremes = {0x80000000ull, 0x7FFFFFFFull, 0xFFFFFFFFull, 0};
            const std::uint64_t index = pick(4) == 0 ? extremes[pick(4)] : pick(4);
            return (index << 32) | value;
        }
        default:
            return integer_lane(lane_bits(type), is_signed_integer(type), partner, second);
    }
}

void AgluStimulus::generate(Datatype type, std::size_t count, std::vector<Vector256>& a, std::vector<Vector256>& b) {
    const unsigned bits = lane_bits(type);
    const unsigned lanes = 256 / bits;
    const std::uint64_t mask = mask_of(bits);
    a.assign(count, Vector256{});
    b.assign(count, Vector256{});
    for (std::size_t v = 0; v < count; ++v) {
        for (unsigned i = 0; i < lanes; ++i) {
            const unsigned word = i * bits / 64;
            const unsigned shift = i * bits % 64;
            const std::uint64_t lane_a = lane(type, 0, false) & mask;
            const std::uint64_t lane_b = lane(type, lane_a, true) & mask;
            a[v][word] |= lane_a << shift;
            b[v][word] |= lane_b << shift;
        }
    }
}

}  // namespace isvp
