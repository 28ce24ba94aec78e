// The arithmetic is written on native types: the host FPU (SSE on x86-64,
// round-to-nearest-even, subnormals enabled, no contraction — see the
// compile options in CMakeLists.txt) is the IEEE 754 reference that the RTL's
// own float units are checked against.
#include "isvp/aglu_core.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace isvp {
namespace {

template <typename F>
F canonical_nan() {
    if constexpr (std::is_same_v<F, float>) {
        float value;
        std::memcpy(&value, &kCanonicalNanFloat32, sizeof value);
        return value;
    } else {
        double value;
        std::memcpy(&value, &kCanonicalNanFloat64, sizeof value);
        return value;
    }
}

template <typename F>
F canonicalise(F value) {
    return std::isnan(value) ? canonical_nan<F>() : value;
}

// IEEE 754-2019 minimum/maximum: NaN propagates (canonical), -0 < +0.
template <typename F>
F float_min(F a, F b) {
    if (std::isnan(a) || std::isnan(b)) return canonical_nan<F>();
    if (a == b) return std::signbit(a) ? a : b;  // only ±0 can differ here
    return a < b ? a : b;
}

template <typename F>
F float_max(F a, F b) {
    if (std::isnan(a) || std::isnan(b)) return canonical_nan<F>();
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
}

template <typename F>
F combine_float(Operation op, F a, F b) {
    switch (op) {
        case Operation::Sum:
            return canonicalise(a + b);
        case Operation::Prod:
            return canonicalise(a * b);
        case Operation::Min:
            return float_min(a, b);
        case Operation::Max:
            return float_max(a, b);
        default:
            return F{};  // unreachable: support is checked before dispatch
    }
}

template <typename T>
T combine_integer(Operation op, T a, T b) {
    // Arithmetic in an unsigned type at least as wide as `unsigned`, so that
    // wrap-around is defined and small types do not promote to signed int.
    using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    const Wide wa = static_cast<Wide>(a);
    const Wide wb = static_cast<Wide>(b);
    switch (op) {
        case Operation::Sum:
            return static_cast<T>(wa + wb);
        case Operation::Prod:
            return static_cast<T>(wa * wb);
        case Operation::Min:
            return a < b ? a : b;
        case Operation::Max:
            return a > b ? a : b;
        case Operation::Land:
            return static_cast<T>((a != 0) && (b != 0));
        case Operation::Lor:
            return static_cast<T>((a != 0) || (b != 0));
        case Operation::Lxor:
            return static_cast<T>((a != 0) != (b != 0));
        case Operation::Band:
            return static_cast<T>(a & b);
        case Operation::Bor:
            return static_cast<T>(a | b);
        case Operation::Bxor:
            return static_cast<T>(a ^ b);
        default:
            return T{};
    }
}

// A MINLOC/MAXLOC pair lane: value in bits [31:0], signed index in [63:32].
// The result is always one of the two input pairs, bit for bit.
template <typename V>
std::uint64_t combine_pair(bool minloc, std::uint64_t a, std::uint64_t b) {
    V value_a;
    V value_b;
    const auto low_a = static_cast<std::uint32_t>(a);
    const auto low_b = static_cast<std::uint32_t>(b);
    std::memcpy(&value_a, &low_a, sizeof value_a);
    std::memcpy(&value_b, &low_b, sizeof value_b);
    const auto index_a = static_cast<std::int32_t>(static_cast<std::uint32_t>(a >> 32));
    const auto index_b = static_cast<std::int32_t>(static_cast<std::uint32_t>(b >> 32));

    bool a_wins;
    bool nan_a = false;
    bool nan_b = false;
    if constexpr (std::is_floating_point_v<V>) {
        nan_a = std::isnan(value_a);
        nan_b = std::isnan(value_b);
    }
    if (nan_a || nan_b)
        a_wins = (nan_a && nan_b) ? index_a <= index_b : nan_a;  // a NaN value wins
    else if (value_a == value_b)
        a_wins = index_a <= index_b;  // MPI: ties go to the lower index
    else
        a_wins = minloc ? value_a < value_b : value_a > value_b;
    return a_wins ? a : b;
}

template <typename T>
void combine_lanes(Operation op, const Vector256& a, const Vector256& b, Vector256& out) {
    constexpr std::size_t kLanes = kVectorBytes / sizeof(T);
    T lanes_a[kLanes];
    T lanes_b[kLanes];
    std::memcpy(lanes_a, a.data(), kVectorBytes);
    std::memcpy(lanes_b, b.data(), kVectorBytes);
    for (std::size_t i = 0; i < kLanes; ++i) {
        if constexpr (std::is_floating_point_v<T>)
            lanes_a[i] = combine_float(op, lanes_a[i], lanes_b[i]);
        else
            lanes_a[i] = combine_integer(op, lanes_a[i], lanes_b[i]);
    }
    std::memcpy(out.data(), lanes_a, kVectorBytes);
}

template <typename V>
void combine_pairs(Operation op, const Vector256& a, const Vector256& b, Vector256& out) {
    const bool minloc = op == Operation::Minloc;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = combine_pair<V>(minloc, a[i], b[i]);
}

void combine_one(Operation op, Datatype type, const Vector256& a, const Vector256& b, Vector256& out) {
    switch (type) {
        case Datatype::Int8:
            combine_lanes<std::int8_t>(op, a, b, out);
            break;
        case Datatype::Int16:
            combine_lanes<std::int16_t>(op, a, b, out);
            break;
        case Datatype::Int32:
            combine_lanes<std::int32_t>(op, a, b, out);
            break;
        case Datatype::Int64:
            combine_lanes<std::int64_t>(op, a, b, out);
            break;
        case Datatype::UInt8:
            combine_lanes<std::uint8_t>(op, a, b, out);
            break;
        case Datatype::UInt16:
            combine_lanes<std::uint16_t>(op, a, b, out);
            break;
        case Datatype::UInt32:
            combine_lanes<std::uint32_t>(op, a, b, out);
            break;
        case Datatype::UInt64:
            combine_lanes<std::uint64_t>(op, a, b, out);
            break;
        case Datatype::Float32:
            combine_lanes<float>(op, a, b, out);
            break;
        case Datatype::Float64:
            combine_lanes<double>(op, a, b, out);
            break;
        case Datatype::Float32Int32:
            combine_pairs<float>(op, a, b, out);
            break;
        case Datatype::Int32Int32:
            combine_pairs<std::int32_t>(op, a, b, out);
            break;
    }
}

}  // namespace

bool aglu_supports(Operation op, Datatype type) {
    if (is_pair(type)) return op == Operation::Minloc || op == Operation::Maxloc;
    if (is_floating(type))
        return op == Operation::Sum || op == Operation::Prod || op == Operation::Min || op == Operation::Max;
    return op != Operation::Minloc && op != Operation::Maxloc;  // integers: everything but the pair ops
}

std::vector<Operation> aglu_supported_operations(Datatype type) {
    std::vector<Operation> operations;
    for (int code = 0; code < kOperationCount; ++code) {
        const auto op = static_cast<Operation>(code);
        if (aglu_supports(op, type)) operations.push_back(op);
    }
    return operations;
}

void aglu_require_supported(Operation op, Datatype type) {
    if (aglu_supports(op, type)) return;
    std::string accepted;
    for (const Operation supported : aglu_supported_operations(type))
        accepted += (accepted.empty() ? "" : ", ") + std::string(to_string(supported));
    throw UnsupportedReduction("aglu: unsupported (operation, datatype) pair (" + std::string(to_string(op)) + ", " +
                               std::string(to_string(type)) + "); " + std::string(to_string(type)) + " supports " +
                               accepted);
}

Vector256 aglu_combine(Operation op, Datatype type, const Vector256& a, const Vector256& b) {
    aglu_require_supported(op, type);
    Vector256 out;
    combine_one(op, type, a, b, out);
    return out;
}

void aglu_combine(Operation op, Datatype type, const Vector256* a, const Vector256* b, Vector256* out,
                  std::size_t count) {
    aglu_require_supported(op, type);
    for (std::size_t i = 0; i < count; ++i) combine_one(op, type, a[i], b[i], out[i]);
}

}  // namespace isvp
