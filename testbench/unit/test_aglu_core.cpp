// The AgLU functional core against plain C++ reference arithmetic.
//
// The references here are written independently of the core: integer lanes
// as masked 64-bit arithmetic on raw bits rather than typed lanes; floats as
// native arithmetic plus the documented NaN and signed-zero rules, and a set
// of hand-computed IEEE 754 results (ties to even, subnormals, overflow).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "isvp/aglu_core.h"
#include "isvp/aglu_engine.h"
#include "isvp/aglu_stimulus.h"

using namespace isvp;

namespace {

unsigned lane_bits(Datatype type) {
    return static_cast<unsigned>(element_size(type) * 8);
}

std::uint64_t get_lane(const Vector256& v, unsigned bits, unsigned i) {
    const std::uint64_t word = v[i * bits / 64] >> (i * bits % 64);
    return bits == 64 ? word : word & ((1ull << bits) - 1);
}

Vector256 make_vector(unsigned bits, const std::vector<std::uint64_t>& lanes) {
    Vector256 v{};
    for (unsigned i = 0; i < lanes.size(); ++i) {
        const std::uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
        v[i * bits / 64] |= (lanes[i] & mask) << (i * bits % 64);
    }
    return v;
}

std::int64_t sign_extend(std::uint64_t value, unsigned bits) {
    if (bits == 64) return static_cast<std::int64_t>(value);
    const std::uint64_t top = 1ull << (bits - 1);
    return static_cast<std::int64_t>((value ^ top) - top);
}

std::uint64_t reference_integer(Operation op, std::uint64_t a, std::uint64_t b, unsigned bits, bool is_signed) {
    const std::uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    const bool a_less = is_signed ? sign_extend(a, bits) < sign_extend(b, bits) : a < b;
    switch (op) {
        case Operation::Sum:
            return (a + b) & mask;
        case Operation::Prod:
            return (a * b) & mask;
        case Operation::Min:
            return a_less ? a : b;
        case Operation::Max:
            return a_less ? b : a;
        case Operation::Land:
            return (a && b) ? 1 : 0;
        case Operation::Lor:
            return (a || b) ? 1 : 0;
        case Operation::Lxor:
            return (!a != !b) ? 1 : 0;
        case Operation::Band:
            return a & b;
        case Operation::Bor:
            return a | b;
        case Operation::Bxor:
            return a ^ b;
        default:
            FAIL("not an integer operation");
            return 0;
    }
}

float f32(std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}
std::uint32_t bits32(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}
double f64(std::uint64_t bits) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}
std::uint64_t bits64(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// One float32 lane through the core (lane 3, to exercise a non-zero offset).
std::uint32_t core32(Operation op, float a, float b) {
    std::vector<std::uint64_t> la(8, 0), lb(8, 0);
    la[3] = bits32(a);
    lb[3] = bits32(b);
    return static_cast<std::uint32_t>(
        get_lane(aglu_combine(op, Datatype::Float32, make_vector(32, la), make_vector(32, lb)), 32, 3));
}

std::uint64_t core64(Operation op, double a, double b) {
    std::vector<std::uint64_t> la(4, 0), lb(4, 0);
    la[2] = bits64(a);
    lb[2] = bits64(b);
    return get_lane(aglu_combine(op, Datatype::Float64, make_vector(64, la), make_vector(64, lb)), 64, 2);
}

template <typename F>
F reference_float(Operation op, F a, F b) {
    const F nan = std::numeric_limits<F>::quiet_NaN();
    F r{};
    switch (op) {
        case Operation::Sum:
            r = a + b;
            break;
        case Operation::Prod:
            r = a * b;
            break;
        case Operation::Min:
            if (std::isnan(a) || std::isnan(b)) return nan;
            if (a == 0 && b == 0) return std::signbit(a) ? a : b;
            r = std::fmin(a, b);
            break;
        case Operation::Max:
            if (std::isnan(a) || std::isnan(b)) return nan;
            if (a == 0 && b == 0) return std::signbit(a) ? b : a;
            r = std::fmax(a, b);
            break;
        default:
            FAIL("not a float operation");
    }
    return std::isnan(r) ? nan : r;
}

std::uint64_t pair(std::uint32_t value, std::int32_t index) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(index)) << 32 | value;
}

std::uint64_t core_pair(Operation op, Datatype type, std::uint64_t a, std::uint64_t b) {
    return aglu_combine(op, type, Vector256{a, 0, 0, 0}, Vector256{b, 0, 0, 0})[0];
}

}  // namespace

TEST_CASE("aglu: capability query accepts exactly the documented (operation, datatype) pairs") {
    int supported = 0;
    for (int t = 0; t < kDatatypeCount; ++t)
        for (int o = 0; o < kOperationCount; ++o) supported += aglu_supports(Operation(o), Datatype(t));
    CHECK(supported == 8 * 10 + 2 * 4 + 2 * 2);
    CHECK(aglu_supports(Operation::Bxor, Datatype::UInt16));
    CHECK(aglu_supports(Operation::Prod, Datatype::Float64));
    CHECK(aglu_supports(Operation::Maxloc, Datatype::Float32Int32));
    CHECK_FALSE(aglu_supports(Operation::Band, Datatype::Float32));
    CHECK_FALSE(aglu_supports(Operation::Lor, Datatype::Float64));
    CHECK_FALSE(aglu_supports(Operation::Minloc, Datatype::Int32));
    CHECK_FALSE(aglu_supports(Operation::Sum, Datatype::Int32Int32));
}

TEST_CASE("aglu: an unsupported pair is refused with a message naming it and the accepted operations") {
    const Vector256 zero{};
    CHECK_THROWS_WITH(aglu_combine(Operation::Band, Datatype::Float32, zero, zero),
                      Catch::Contains("(BAND, float32)") && Catch::Contains("float32 supports SUM, PROD, MIN, MAX"));
    CHECK_THROWS_AS(aglu_combine(Operation::Sum, Datatype::Float32Int32, zero, zero), UnsupportedReduction);
}

TEST_CASE("aglu: integer lanes of every width wrap in two's complement and compare by signedness") {
    AgluStimulus stimulus(7);
    std::vector<Vector256> a, b;
    for (Datatype type : {Datatype::Int8, Datatype::Int16, Datatype::Int32, Datatype::Int64, Datatype::UInt8,
                          Datatype::UInt16, Datatype::UInt32, Datatype::UInt64}) {
        stimulus.generate(type, 500, a, b);
        const unsigned bits = lane_bits(type);
        for (Operation op : aglu_supported_operations(type)) {
            INFO(to_string(op) << " " << to_string(type));
            std::uint64_t wrong = 0;
            for (std::size_t v = 0; v < a.size(); ++v) {
                const Vector256 r = aglu_combine(op, type, a[v], b[v]);
                for (unsigned i = 0; i < 256 / bits; ++i)
                    wrong +=
                        get_lane(r, bits, i) != reference_integer(op, get_lane(a[v], bits, i), get_lane(b[v], bits, i),
                                                                  bits, is_signed_integer(type));
            }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("aglu: integer extremes overflow and wrap as documented") {
    const auto lanes8 = [](std::uint64_t x) { return make_vector(8, std::vector<std::uint64_t>(32, x)); };
    CHECK(get_lane(aglu_combine(Operation::Sum, Datatype::Int8, lanes8(0x7F), lanes8(1)), 8, 5) == 0x80);
    CHECK(get_lane(aglu_combine(Operation::Prod, Datatype::UInt8, lanes8(0xFF), lanes8(0xFF)), 8, 31) == 0x01);
    CHECK(get_lane(aglu_combine(Operation::Min, Datatype::Int8, lanes8(0x80), lanes8(0x7F)), 8, 0) == 0x80);
    CHECK(get_lane(aglu_combine(Operation::Min, Datatype::UInt8, lanes8(0x80), lanes8(0x7F)), 8, 0) == 0x7F);
    const Vector256 min64{0x8000000000000000ull, 0, 0, 0};
    const Vector256 minus1{~0ull, 0, 0, 0};
    CHECK(aglu_combine(Operation::Prod, Datatype::Int64, min64, minus1)[0] == 0x8000000000000000ull);
    CHECK(aglu_combine(Operation::Lxor, Datatype::Int64, min64, minus1)[0] == 0);
    CHECK(aglu_combine(Operation::Land, Datatype::UInt64, min64, minus1)[0] == 1);
}

TEST_CASE("aglu: operand bytes map to lanes little-endian, as in host memory") {
    std::uint8_t bytes_a[32];
    std::uint8_t bytes_b[32];
    for (int k = 0; k < 32; ++k) {
        bytes_a[k] = static_cast<std::uint8_t>(k);
        bytes_b[k] = static_cast<std::uint8_t>(100);
    }
    Vector256 a, b;
    std::memcpy(a.data(), bytes_a, 32);
    std::memcpy(b.data(), bytes_b, 32);
    const Vector256 r = aglu_combine(Operation::Sum, Datatype::UInt8, a, b);
    std::uint8_t out[32];
    std::memcpy(out, r.data(), 32);
    for (int k = 0; k < 32; ++k) CHECK(out[k] == k + 100);
}

TEST_CASE("aglu: float sums and products round to nearest, ties to even") {
    CHECK(core32(Operation::Sum, 0x1p0f, 0x1p-24f) == bits32(0x1p0f));                // tie, stays even
    CHECK(core32(Operation::Sum, 0x1.000002p0f, 0x1p-24f) == bits32(0x1.000004p0f));  // tie, rounds up to even
    CHECK(core32(Operation::Sum, 0x1p0f, 0x1.000002p-24f) == bits32(0x1.000002p0f));  // above half: up
    CHECK(core64(Operation::Sum, 0x1p0, 0x1p-53) == bits64(0x1p0));
    CHECK(core64(Operation::Sum, 0x1.0000000000001p0, 0x1p-53) == bits64(0x1.0000000000002p0));
    CHECK(core32(Operation::Prod, 0x1.000002p0f, 0x1.000002p0f) == bits32(0x1.000004p0f));  // 1+2^-22+2^-46: down
    CHECK(core64(Operation::Prod, 3.0, 1.0 / 3.0) == bits64(3.0 * (1.0 / 3.0)));
}

TEST_CASE("aglu: subnormals are produced and consumed, never flushed to zero") {
    CHECK(core32(Operation::Sum, 0x1p-149f, 0x1p-149f) == 2u);
    CHECK(core32(Operation::Sum, 0x1p-126f, -0x1p-149f) == 0x007FFFFFu);  // normal minus ulp: largest subnormal
    CHECK(core32(Operation::Prod, 0x1p-100f, 0x1p-49f) == 1u);            // exact smallest subnormal
    CHECK(core32(Operation::Prod, 0x1p-100f, 0x1p-50f) == 0u);            // half of it: tie to even, 0
    CHECK(core32(Operation::Prod, 0x1.8p-100f, 0x1p-50f) == 1u);          // 0.75 of it: up
    CHECK(core32(Operation::Prod, -0x1p-100f, 0x1p-60f) == 0x80000000u);  // underflow keeps the sign
    CHECK(core64(Operation::Prod, 0x1p-1000, 0x1p-74) == 1u);
    CHECK(core64(Operation::Sum, 0x0.0000000000001p-1022, 0x0.fffffffffffffp-1022) == bits64(0x1p-1022));
}

TEST_CASE("aglu: float overflow gives infinity and zeros carry IEEE signs") {
    const float max32 = std::numeric_limits<float>::max();
    CHECK(core32(Operation::Sum, max32, max32) == 0x7F800000u);
    CHECK(core32(Operation::Prod, -max32, 2.0f) == 0xFF800000u);
    CHECK(core64(Operation::Prod, 0x1p1000, 0x1p100) == 0x7FF0000000000000ull);
    CHECK(core32(Operation::Sum, 1.0f, -1.0f) == 0x00000000u);
    CHECK(core32(Operation::Sum, -0.0f, -0.0f) == 0x80000000u);
    CHECK(core32(Operation::Sum, 0.0f, -0.0f) == 0x00000000u);
    CHECK(core64(Operation::Prod, -0.0, 5.0) == 0x8000000000000000ull);
    CHECK(core64(Operation::Prod, -0.0, -5.0) == 0);
}

TEST_CASE("aglu: every NaN result is the canonical quiet NaN") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(core32(Operation::Sum, inf, -inf) == kCanonicalNanFloat32);
    CHECK(core32(Operation::Prod, 0.0f, inf) == kCanonicalNanFloat32);
    CHECK(core32(Operation::Sum, f32(0xFFC00123u), 1.0f) == kCanonicalNanFloat32);   // negative NaN, payload
    CHECK(core32(Operation::Prod, 1.0f, f32(0x7F800001u)) == kCanonicalNanFloat32);  // signalling NaN
    CHECK(core32(Operation::Max, f32(0x7F800001u), inf) == kCanonicalNanFloat32);
    CHECK(core64(Operation::Min, 1.0, f64(0xFFF0000000000001ull)) == kCanonicalNanFloat64);
    CHECK(core64(Operation::Sum, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()) ==
          kCanonicalNanFloat64);
}

TEST_CASE("aglu: float MIN and MAX order -0 below +0") {
    CHECK(core32(Operation::Min, 0.0f, -0.0f) == 0x80000000u);
    CHECK(core32(Operation::Min, -0.0f, 0.0f) == 0x80000000u);
    CHECK(core32(Operation::Max, -0.0f, 0.0f) == 0x00000000u);
    CHECK(core64(Operation::Max, 0.0, -0.0) == 0);
    CHECK(core64(Operation::Min, -1.0, -std::numeric_limits<double>::infinity()) == 0xFFF0000000000000ull);
}

TEST_CASE("aglu: float lanes agree with native arithmetic on random and edge operands") {
    AgluStimulus stimulus(11);
    std::vector<Vector256> a, b;
    for (Datatype type : {Datatype::Float32, Datatype::Float64}) {
        stimulus.generate(type, 4000, a, b);
        for (Operation op : aglu_supported_operations(type)) {
            INFO(to_string(op) << " " << to_string(type));
            std::uint64_t wrong = 0;
            for (std::size_t v = 0; v < a.size(); ++v) {
                const Vector256 r = aglu_combine(op, type, a[v], b[v]);
                if (type == Datatype::Float32) {
                    for (unsigned i = 0; i < 8; ++i) {
                        const float expected =
                            reference_float(op, f32(static_cast<std::uint32_t>(get_lane(a[v], 32, i))),
                                            f32(static_cast<std::uint32_t>(get_lane(b[v], 32, i))));
                        wrong += get_lane(r, 32, i) != bits32(expected);
                    }
                } else {
                    for (unsigned i = 0; i < 4; ++i)
                        wrong += r[i] != bits64(reference_float(op, f64(a[v][i]), f64(b[v][i])));
                }
            }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("aglu: MINLOC and MAXLOC pick the better value, ties to the lower index") {
    const std::uint64_t five_at_3 = pair(5, 3);
    const std::uint64_t five_at_1 = pair(5, 1);
    const std::uint64_t seven_at_0 = pair(7, 0);
    CHECK(core_pair(Operation::Minloc, Datatype::Int32Int32, five_at_3, five_at_1) == five_at_1);
    CHECK(core_pair(Operation::Maxloc, Datatype::Int32Int32, five_at_1, five_at_3) == five_at_1);
    CHECK(core_pair(Operation::Minloc, Datatype::Int32Int32, seven_at_0, five_at_3) == five_at_3);
    CHECK(core_pair(Operation::Maxloc, Datatype::Int32Int32, seven_at_0, five_at_3) == seven_at_0);
    CHECK(core_pair(Operation::Minloc, Datatype::Int32Int32, pair(0xFFFFFFFFu, 9), pair(1, 0)) == pair(0xFFFFFFFFu, 9));
    CHECK(core_pair(Operation::Minloc, Datatype::Int32Int32, pair(4, 2), pair(4, -1)) == pair(4, -1));  // signed index
    // float: -0 equals +0, so the index decides and the winner's bits are kept
    const std::uint64_t minus_zero_at_4 = pair(0x80000000u, 4);
    const std::uint64_t plus_zero_at_2 = pair(0x00000000u, 2);
    CHECK(core_pair(Operation::Minloc, Datatype::Float32Int32, minus_zero_at_4, plus_zero_at_2) == plus_zero_at_2);
    CHECK(core_pair(Operation::Maxloc, Datatype::Float32Int32, pair(bits32(2.5f), 1), pair(bits32(-3.0f), 0)) ==
          pair(bits32(2.5f), 1));
}

TEST_CASE("aglu: MINLOC and MAXLOC let a NaN value win, two NaNs tie on the index") {
    const std::uint64_t nan_at_5 = pair(0x7FC00001u, 5);
    const std::uint64_t one_at_0 = pair(bits32(1.0f), 0);
    CHECK(core_pair(Operation::Minloc, Datatype::Float32Int32, one_at_0, nan_at_5) == nan_at_5);
    CHECK(core_pair(Operation::Maxloc, Datatype::Float32Int32, nan_at_5, one_at_0) == nan_at_5);
    const std::uint64_t other_nan_at_2 = pair(0xFF800010u, 2);
    CHECK(core_pair(Operation::Minloc, Datatype::Float32Int32, nan_at_5, other_nan_at_2) == other_nan_at_2);
}

TEST_CASE("aglu: a burst equals vector-by-vector combination, also in place") {
    AgluStimulus stimulus(3);
    std::vector<Vector256> a, b;
    stimulus.generate(Datatype::Float64, 64, a, b);
    std::vector<Vector256> burst(a.size());
    aglu_combine(Operation::Sum, Datatype::Float64, a.data(), b.data(), burst.data(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        CHECK(burst[i] == aglu_combine(Operation::Sum, Datatype::Float64, a[i], b[i]));
    aglu_combine(Operation::Sum, Datatype::Float64, a.data(), b.data(), a.data(), a.size());
    CHECK(a == burst);
}

TEST_CASE("aglu: stimulus is deterministic for a seed") {
    std::vector<Vector256> a1, b1, a2, b2;
    AgluStimulus(42).generate(Datatype::Float32, 100, a1, b1);
    AgluStimulus(42).generate(Datatype::Float32, 100, a2, b2);
    CHECK(a1 == a2);
    CHECK(b1 == b2);
}
