// Datatypes: the predefined C types with the exact sizes and extents of
// their C types and structs, derived-type constructors, and the pack/unpack
// engine every send, receive and collective uses.
//
// A type is kept as its type map flattened into segments — runs of basic
// elements of one predefined type at an offset — merged where consecutive,
// plus MPI's bounds (lb, extent) and true bounds. A type whose data of any
// count is one gap-free run is `contiguous`: pack and unpack are a memcpy.
#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <map>

#include "attributes.h"
#include "basic_types.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

template <class Value, class Index>
struct PairOf {
    Value value;
    Index index;
};

template <class C>
BasicType scalar(MPI_Datatype handle, const char* name, BasicKind kind, std::optional<isvp::Datatype> aglu) {
    BasicType type;
    type.handle = handle;
    type.name = name;
    type.size = sizeof(C);
    type.extent = sizeof(C);
    type.alignment = alignof(C);
    type.kind = kind;
    type.aglu = aglu;
    type.pieces[0] = {0, sizeof(C)};
    type.value = handle;
    return type;
}

/// A MINLOC/MAXLOC pair {Value value; Index index;}: the C pairs have an
/// int index, the Fortran ones (MPI_2REAL ...) an index of the value's type.
template <class Value, class Index = int>
BasicType pair(MPI_Datatype handle, const char* name, MPI_Datatype value, std::optional<isvp::Datatype> aglu) {
    using P = PairOf<Value, Index>;
    BasicType type;
    type.handle = handle;
    type.name = name;
    type.size = sizeof(Value) + sizeof(Index);
    type.extent = sizeof(P);
    type.alignment = alignof(P);
    type.kind = BasicKind::Pair;
    type.aglu = aglu;
    type.elements = 2;
    type.value = value;
    const std::size_t index_at = offsetof(P, index);
    if (index_at == sizeof(Value)) {
        type.pieces[0] = {0, sizeof(Value) + sizeof(Index)};
    } else {
        type.pieces[0] = {0, sizeof(Value)};
        type.pieces[1] = {index_at, sizeof(Index)};
        type.piece_count = 2;
    }
    return type;
}

using D = isvp::Datatype;
using K = BasicKind;

const std::vector<BasicType>& basic_table() {
    static const std::vector<BasicType> table = {
        scalar<char>(MPI_CHAR, "MPI_CHAR", K::Character, D::Int8),
        scalar<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", K::SignedInteger, D::Int8),
        scalar<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", K::UnsignedInteger, D::UInt8),
        scalar<unsigned char>(MPI_BYTE, "MPI_BYTE", K::Byte, D::UInt8),
        scalar<wchar_t>(MPI_WCHAR, "MPI_WCHAR", K::Character, D::Int32),
        scalar<short>(MPI_SHORT, "MPI_SHORT", K::SignedInteger, D::Int16),
        scalar<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", K::UnsignedInteger, D::UInt16),
        scalar<int>(MPI_INT, "MPI_INT", K::SignedInteger, D::Int32),
        scalar<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED", K::UnsignedInteger, D::UInt32),
        scalar<long>(MPI_LONG, "MPI_LONG", K::SignedInteger, D::Int64),
        scalar<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", K::UnsignedInteger, D::UInt64),
        scalar<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", K::SignedInteger, D::Int64),
        scalar<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", K::UnsignedInteger, D::UInt64),
        scalar<float>(MPI_FLOAT, "MPI_FLOAT", K::Floating, D::Float32),
        scalar<double>(MPI_DOUBLE, "MPI_DOUBLE", K::Floating, D::Float64),
        scalar<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", K::Floating, std::nullopt),
        scalar<bool>(MPI_C_BOOL, "MPI_C_BOOL", K::Logical, D::UInt8),
        scalar<std::int8_t>(MPI_INT8_T, "MPI_INT8_T", K::SignedInteger, D::Int8),
        scalar<std::int16_t>(MPI_INT16_T, "MPI_INT16_T", K::SignedInteger, D::Int16),
        scalar<std::int32_t>(MPI_INT32_T, "MPI_INT32_T", K::SignedInteger, D::Int32),
        scalar<std::int64_t>(MPI_INT64_T, "MPI_INT64_T", K::SignedInteger, D::Int64),
        scalar<std::uint8_t>(MPI_UINT8_T, "MPI_UINT8_T", K::UnsignedInteger, D::UInt8),
        scalar<std::uint16_t>(MPI_UINT16_T, "MPI_UINT16_T", K::UnsignedInteger, D::UInt16),
        scalar<std::uint32_t>(MPI_UINT32_T, "MPI_UINT32_T", K::UnsignedInteger, D::UInt32),
        scalar<std::uint64_t>(MPI_UINT64_T, "MPI_UINT64_T", K::UnsignedInteger, D::UInt64),
        scalar<MPI_Aint>(MPI_AINT, "MPI_AINT", K::Multilanguage, D::Int64),
        scalar<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET", K::Multilanguage, D::Int64),
        scalar<MPI_Count>(MPI_COUNT, "MPI_COUNT", K::Multilanguage, D::Int64),
        scalar<unsigned char>(MPI_PACKED, "MPI_PACKED", K::Packed, D::UInt8),
        scalar<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", K::Complex, std::nullopt),
        scalar<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", K::Complex, std::nullopt),
        scalar<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", K::Complex,
                                          std::nullopt),
        pair<float>(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, D::Float32Int32),
        pair<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, std::nullopt),
        pair<long>(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, std::nullopt),
        pair<int>(MPI_2INT, "MPI_2INT", MPI_INT, D::Int32Int32),
        pair<short>(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, std::nullopt),
        pair<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, std::nullopt),
        // Fortran types with gfortran's default kinds (MPI 3.1 §3.2.2, §5.9.2).
        scalar<char>(MPI_CHARACTER, "MPI_CHARACTER", K::Character, D::Int8),
        scalar<std::int32_t>(MPI_LOGICAL, "MPI_LOGICAL", K::Logical, D::Int32),
        scalar<std::int32_t>(MPI_INTEGER, "MPI_INTEGER", K::SignedInteger, D::Int32),
        scalar<float>(MPI_REAL, "MPI_REAL", K::Floating, D::Float32),
        scalar<double>(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", K::Floating, D::Float64),
        scalar<std::complex<float>>(MPI_COMPLEX, "MPI_COMPLEX", K::Complex, std::nullopt),
        scalar<std::complex<double>>(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", K::Complex, std::nullopt),
        pair<std::int32_t>(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, D::Int32Int32),
        pair<float, float>(MPI_2REAL, "MPI_2REAL", MPI_REAL, std::nullopt),
        pair<double, double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, std::nullopt),
        scalar<std::int8_t>(MPI_INTEGER1, "MPI_INTEGER1", K::SignedInteger, D::Int8),
        scalar<std::int16_t>(MPI_INTEGER2, "MPI_INTEGER2", K::SignedInteger, D::Int16),
        scalar<std::int32_t>(MPI_INTEGER4, "MPI_INTEGER4", K::SignedInteger, D::Int32),
        scalar<std::int64_t>(MPI_INTEGER8, "MPI_INTEGER8", K::SignedInteger, D::Int64),
        scalar<float>(MPI_REAL4, "MPI_REAL4", K::Floating, D::Float32),
        scalar<double>(MPI_REAL8, "MPI_REAL8", K::Floating, D::Float64),
        scalar<std::complex<float>>(MPI_COMPLEX8, "MPI_COMPLEX8", K::Complex, std::nullopt),
        scalar<std::complex<double>>(MPI_COMPLEX16, "MPI_COMPLEX16", K::Complex, std::nullopt),
        // Same layout as C types above, their own names (MPI 3.1 §3.2.2, §17.2.6).
        scalar<std::complex<float>>(MPI_C_COMPLEX, "MPI_C_COMPLEX", K::Complex, std::nullopt),
        scalar<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL", K::Logical, D::UInt8),
        scalar<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", K::Complex, std::nullopt),
        scalar<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", K::Complex, std::nullopt),
        scalar<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", K::Complex,
                                          std::nullopt),
        scalar<Int128>(MPI_INTEGER16, "MPI_INTEGER16", K::SignedInteger, std::nullopt),
    };
    return table;
}

std::size_t index_of(MPI_Datatype handle) {
    return static_cast<unsigned>(handle) & 0xFFFFFFu;
}

const BasicType& basic(MPI_Datatype handle) {
    return *basic_type(handle);
}

/// a x b, a displacement in bytes; MPI_ERR_ARG naming `what` when it
/// passes what MPI_Aint counts (it would wrap to a wrong displacement).
MPI_Aint scaled(MPI_Aint a, MPI_Aint b, const std::string& what) {
    MPI_Aint product = 0;
    if (__builtin_mul_overflow(a, b, &product))
        fail(MPI_ERR_ARG, what + ": " + std::to_string(a) + " x " + std::to_string(b) +
                              " bytes is beyond what MPI_Aint counts (2^63 - 1)");
    return product;
}

/// Accumulates a type map from blocks of other types (every constructor).
///
/// Bounds follow MPI 3.1 §4.1.6: the lower bound is the lowest explicit lb
/// marker if the blocks carry any (MPI_LB, or a type with an lb set by
/// MPI_Type_create_resized or inherited from one), else the lowest data;
/// the upper bound likewise with ub markers and the highest data. A block
/// of a type without data carries only its markers.
class Builder {
  public:
    /// `blocklength` consecutive copies of `type` starting at `displacement`.
    void add(const Type& type, MPI_Aint displacement, std::size_t blocklength) {
        if (blocklength == 0) return;
        // Sizes and bounds are MPI_Aint / MPI_Count: a type beyond them (a
        // contiguous of 2^30 contiguous of 2^30 x 16 bytes) would wrap to a
        // small or zero size that messages then silently use.
        MPI_Aint block_bytes = 0, last_shift = 0;
        if (__builtin_mul_overflow(static_cast<MPI_Aint>(type.size), static_cast<MPI_Aint>(blocklength),
                                   &block_bytes) ||
            __builtin_add_overflow(bytes_, block_bytes, &bytes_) ||
            __builtin_mul_overflow(static_cast<MPI_Aint>(blocklength - 1), type.extent, &last_shift))
            fail(MPI_ERR_ARG, "the type would be larger than MPI_Aint counts (2^63 - 1 bytes): " +
                                  std::to_string(blocklength) + " copies of a type of " + std::to_string(type.size) +
                                  " bytes and extent " + std::to_string(type.extent));
        // Copy k has bounds lb + k * extent and ub + k * extent (the extent
        // may be negative): the lowest lb and highest ub of the block.
        const MPI_Aint block_lb = displacement + type.lb + std::min<MPI_Aint>(0, last_shift);
        const MPI_Aint block_ub = displacement + type.lb + type.extent + std::max<MPI_Aint>(0, last_shift);
        const bool data = !type.segments.empty();
        if (type.explicit_lb)
            lb_marker_.note_low(block_lb);
        else if (data)
            lb_data_.note_low(block_lb);
        if (type.explicit_ub)
            ub_marker_.note_high(block_ub);
        else if (data)
            ub_data_.note_high(block_ub);
        alignment_ = std::max(alignment_, type.alignment);
        if (type.segments.size() == 1) {
            // One run whose copies abut (a predefined or contiguous type): one
            // longer run, whatever the block length.
            const Segment& only = type.segments.front();
            const BasicType& b = basic(only.basic);
            if (b.dense() && type.extent == static_cast<MPI_Aint>(only.count * b.extent)) {
                append({displacement + only.offset, only.count * blocklength, only.basic});
                return;
            }
        }
        for (std::size_t copy = 0; copy < blocklength; ++copy) {
            const MPI_Aint base = displacement + static_cast<MPI_Aint>(copy) * type.extent;
            for (const Segment& segment : type.segments) append({base + segment.offset, segment.count, segment.basic});
        }
    }

    /// The finished type; a struct's extent is padded to its alignment
    /// (as the C compiler pads the struct) unless its ub is explicit.
    Type build(int combiner, bool pad_to_alignment) const {
        Type type;
        type.segments = segments_;
        type.combiner = combiner;
        type.explicit_lb = lb_marker_.any;
        type.explicit_ub = ub_marker_.any;
        type.alignment = alignment_;
        type.lb = lb_marker_.any ? lb_marker_.value : lb_data_.any ? lb_data_.value : 0;
        MPI_Aint ub = ub_marker_.any ? ub_marker_.value : ub_data_.any ? ub_data_.value : 0;
        if (pad_to_alignment && !ub_marker_.any && alignment_ > 1) {
            const auto align = static_cast<MPI_Aint>(alignment_);
            const MPI_Aint span = ub - type.lb;
            ub += (align - span % align) % align;
        }
        type.extent = ub - type.lb;
        finish(type);
        return type;
    }

  private:
    void append(const Segment& segment) {
        if (segment.count == 0) return;
        if (!segments_.empty()) {
            Segment& last = segments_.back();
            if (last.basic == segment.basic &&
                last.offset + static_cast<MPI_Aint>(last.count * basic(last.basic).extent) == segment.offset) {
                last.count += segment.count;
                return;
            }
        }
        if (segments_.size() >= kMaxSegments)
            fail(MPI_ERR_NO_MEM, "the type map has more than " + std::to_string(kMaxSegments) +
                                     " runs of basic elements; isvp keeps type maps flattened and does not "
                                     "support types this fragmented");
        segments_.push_back(segment);
    }

    /// At most this many runs per type (24 bytes each): a vector of a
    /// billion strided blocks is refused with an error instead of
    /// exhausting the memory of the host.
    static constexpr std::size_t kMaxSegments = std::size_t{1} << 23;

    /// The lowest or highest of the values noted so far, if any.
    struct Extreme {
        bool any = false;
        MPI_Aint value = 0;
        void note_low(MPI_Aint v) {
            value = any ? std::min(value, v) : v;
            any = true;
        }
        void note_high(MPI_Aint v) {
            value = any ? std::max(value, v) : v;
            any = true;
        }
    };

    std::vector<Segment> segments_;
    MPI_Aint bytes_ = 0;  ///< data bytes of the blocks so far
    Extreme lb_marker_;  ///< lowest explicit lb of the blocks
    Extreme ub_marker_;  ///< highest explicit ub
    Extreme lb_data_;    ///< lowest lb of blocks with data and no explicit lb
    Extreme ub_data_;    ///< highest ub of blocks with data and no explicit ub
    std::size_t alignment_ = 1;

  public:
    /// Size, true bounds, contiguity and uniformity from the segments.
    static void finish(Type& type) {
        type.size = 0;
        type.uniform_count = 0;
        MPI_Aint low = std::numeric_limits<MPI_Aint>::max(), high = std::numeric_limits<MPI_Aint>::min();
        bool uniform = true;
        for (const Segment& segment : type.segments) {
            const BasicType& b = basic(segment.basic);
            type.size += segment.count * b.size;
            const Piece& last_piece = b.pieces[b.piece_count - 1];
            low = std::min(low, segment.offset);
            high = std::max(high, segment.offset + static_cast<MPI_Aint>((segment.count - 1) * b.extent +
                                                                         last_piece.offset + last_piece.bytes));
            if (segment.basic != type.segments.front().basic) uniform = false;
            type.uniform_count += segment.count;
        }
        if (type.segments.empty()) {
            type.true_lb = 0;
            type.true_extent = 0;
        } else {
            type.true_lb = low;
            type.true_extent = high - low;
        }
        type.uniform = !type.segments.empty() && uniform ? type.segments.front().basic : MPI_DATATYPE_NULL;
        if (type.uniform == MPI_DATATYPE_NULL) type.uniform_count = 0;
        type.aglu = type.uniform != MPI_DATATYPE_NULL ? basic(type.uniform).aglu : std::nullopt;
        type.contiguous =
            type.segments.empty() || (type.segments.size() == 1 && basic(type.segments.front().basic).dense() &&
                                      type.extent == static_cast<MPI_Aint>(type.size));
    }
};

Type predefined_type(const BasicType& b) {
    Type type;
    type.handle = b.handle;
    type.predefined = true;
    type.committed = true;
    type.lb = 0;
    type.extent = static_cast<MPI_Aint>(b.extent);
    type.alignment = b.alignment;
    type.segments = {{0, 1, b.handle}};
    type.name = b.name;
    Builder::finish(type);
    return type;
}

MPI_Datatype register_type(Type type) {
    auto made = std::make_shared<Type>(std::move(type));
    const MPI_Datatype handle = datatypes().add(made);
    made->handle = handle;
    return handle;
}

void check_out(MPI_Datatype* newtype) {
    if (newtype == nullptr) fail(MPI_ERR_ARG, "newtype is NULL");
}

void check_count_arg(int count, const char* what) {
    if (count < 0) fail(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
}

void check_array(const void* array, int count, const char* what) {
    if (count > 0 && array == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
}

/// Builds an hindexed type from block lengths and byte displacements.
Type hindexed(int count, const int* lengths, const MPI_Aint* displacements, const Type& old, int combiner) {
    Builder builder;
    for (int i = 0; i < count; ++i) {
        if (lengths[i] < 0)
            fail(MPI_ERR_ARG,
                 "array_of_blocklengths[" + std::to_string(i) + "] = " + std::to_string(lengths[i]) + " is negative");
        builder.add(old, displacements[i], static_cast<std::size_t>(lengths[i]));
    }
    return builder.build(combiner, false);
}

Type hvector(int count, int blocklength, MPI_Aint stride, const Type& old, int combiner) {
    Builder builder;
    for (int i = 0; i < count; ++i)
        builder.add(old, scaled(stride, i, "block " + std::to_string(i) + "'s displacement"),
                    static_cast<std::size_t>(blocklength));
    return builder.build(combiner, false);
}

Type resized(const Type& old, MPI_Aint lb, MPI_Aint extent) {
    Type type = old;
    type.predefined = false;
    type.committed = false;
    type.name.clear();
    type.attributes.clear();
    type.lb = lb;
    type.extent = extent;
    type.explicit_lb = true;
    type.explicit_ub = true;
    type.combiner = MPI_COMBINER_RESIZED;
    Builder::finish(type);
    return type;
}

/// Records the constructor's arguments for MPI_Type_get_contents.
MPI_Datatype register_with_contents(Type type, std::vector<int> integers, std::vector<MPI_Aint> addresses,
                                    std::vector<MPI_Datatype> types) {
    type.integers = std::move(integers);
    type.addresses = std::move(addresses);
    type.types = std::move(types);
    return register_type(std::move(type));
}

/// Calls `visit(pointer into buffer, bytes)` for each piece of data of
/// `count` elements in type-map order, stopping after `limit` bytes.
template <class Visit>
void for_each_piece(std::uint8_t* buffer, std::size_t count, const Type& type, std::size_t limit, Visit visit) {
    std::size_t done = 0;
    for (std::size_t i = 0; i < count && done < limit; ++i) {
        std::uint8_t* element = buffer + static_cast<MPI_Aint>(i) * type.extent;
        for (const Segment& segment : type.segments) {
            const BasicType& b = basic(segment.basic);
            std::uint8_t* at = element + segment.offset;
            if (b.dense()) {
                const std::size_t bytes = std::min(segment.count * b.size, limit - done);
                visit(at, bytes);
                done += bytes;
            } else {
                for (std::size_t unit = 0; unit < segment.count && done < limit; ++unit)
                    for (int p = 0; p < b.piece_count && done < limit; ++p) {
                        const std::size_t bytes = std::min(b.pieces[p].bytes, limit - done);
                        visit(at + unit * b.extent + b.pieces[p].offset, bytes);
                        done += bytes;
                    }
            }
            if (done >= limit) return;
        }
    }
}

/// MPI_Pack / MPI_Unpack: `bytes` at `position` must fit a buffer of `limit` bytes.
void check_pack_room(int incount, const Type& type, const int* position, int limit, const char* limit_name) {
    check_count_arg(incount, "count");
    if (position == nullptr) fail(MPI_ERR_ARG, "position is NULL");
    const std::size_t bytes = static_cast<std::size_t>(incount) * type.size;
    if (*position < 0 || limit < 0 || static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(limit))
        fail(MPI_ERR_TRUNCATE, std::to_string(bytes) + " bytes at position " + std::to_string(*position) +
                                   " do not fit " + limit_name + " " + std::to_string(limit));
}

const MPI_Status* check_status(const MPI_Status* status) {
    if (status == nullptr || status == MPI_STATUS_IGNORE) fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    return status;
}

/// The smallest IEEE type (float, double, x87 long double) with precision p
/// and decimal exponent range r (MPI_UNDEFINED: any), as gfortran's
/// SELECTED_REAL_KIND; `complex` selects the complex type of the same kind.
MPI_Datatype f90_real_base(int p, int r, bool complex) {
    const int precision = p == MPI_UNDEFINED ? 0 : p, range = r == MPI_UNDEFINED ? 0 : r;
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
    if (precision < 0 || range < 0)
        fail(MPI_ERR_ARG, "p " + std::to_string(p) + " and r " + std::to_string(r) + " must not be negative");
    if (precision <= 6 && range <= 37) return complex ? MPI_COMPLEX8 : MPI_REAL4;
    if (precision <= 15 && range <= 307) return complex ? MPI_COMPLEX16 : MPI_REAL8;
    if (precision <= 18 && range <= 4931) return complex ? MPI_C_LONG_DOUBLE_COMPLEX : MPI_LONG_DOUBLE;
    fail(MPI_ERR_ARG, "no real type has precision " + std::to_string(p) + " and range " + std::to_string(r) +
                          " (at most 18 digits and range 4931)");
}

/// The indices of dimension `d` of a distributed array that process
/// coordinate `coord` owns, as (start, length) runs in increasing order
/// (MPI 3.1 §4.1.4: BLOCK, CYCLIC and NONE distributions).
std::vector<std::pair<long long, long long>> darray_runs(int d, int gsize, int distrib, int darg, int psize,
                                                         int coord) {
    const std::string where = "dimension " + std::to_string(d) + ": ";
    if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
        fail(MPI_ERR_ARG, where + "darg " + std::to_string(darg) + " must be positive or MPI_DISTRIBUTE_DFLT_DARG");
    std::vector<std::pair<long long, long long>> runs;
    switch (distrib) {
        case MPI_DISTRIBUTE_NONE:
            if (psize != 1)
                fail(MPI_ERR_ARG, where + "MPI_DISTRIBUTE_NONE needs psize 1, got " + std::to_string(psize));
            runs.emplace_back(0, gsize);
            return runs;
        case MPI_DISTRIBUTE_BLOCK: {
            const long long block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
            if (block * psize < gsize)
                fail(MPI_ERR_ARG, where + "block size " + std::to_string(block) + " times " + std::to_string(psize) +
                                      " processes does not cover gsize " + std::to_string(gsize));
            const long long start = block * coord;
            if (start < gsize) runs.emplace_back(start, std::min(block, gsize - start));
            return runs;
        }
        case MPI_DISTRIBUTE_CYCLIC: {
            const long long block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
            for (long long start = block * coord; start < gsize; start += block * psize)
                runs.emplace_back(start, std::min(block, gsize - start));
            return runs;
        }
        default:
            fail(MPI_ERR_ARG, where + "distribution " + std::to_string(distrib) +
                                  " is not MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE");
    }
}

/// The type MPI_Type_create_f90_*(arguments) returns: `base` under the F90
/// combiner with the arguments as contents, predefined (it cannot be
/// freed), one handle per distinct call as the standard requires.
MPI_Datatype f90_type(int combiner, MPI_Datatype base, std::vector<int> arguments) {
    static std::map<std::vector<int>, MPI_Datatype> made;  // (combiner, arguments...) -> handle
    std::vector<int> key{combiner};
    key.insert(key.end(), arguments.begin(), arguments.end());
    const auto found = made.find(key);
    if (found != made.end() && find_datatype(found->second) != nullptr) return found->second;
    Type type = *find_datatype(base);
    type.combiner = combiner;
    type.integers = std::move(arguments);
    const MPI_Datatype handle = register_type(std::move(type));
    made[key] = handle;
    return handle;
}

}  // namespace

const BasicType* basic_type(MPI_Datatype handle) noexcept {
    const auto bits = static_cast<unsigned>(handle);
    if (bits >> 24 != kind::kDatatype) return nullptr;
    const std::size_t index = bits & 0xFFFFFFu;
    if (index == 0 || index > basic_table().size()) return nullptr;
    return &basic_table()[index - 1];
}

HandleTable<Type>& datatypes() {
    static HandleTable<Type> table = [] {
        HandleTable<Type> made(kind::kDatatype);
        made.put(0, nullptr);
        for (const BasicType& b : basic_table())
            made.put(index_of(b.handle), std::make_shared<Type>(predefined_type(b)));
        // The MPI-1 markers: no data, an explicit bound at displacement 0.
        for (const MPI_Datatype marker : {MPI_LB, MPI_UB}) {
            auto type = std::make_shared<Type>();
            type->handle = marker;
            type->predefined = true;
            type->committed = true;
            type->contiguous = true;
            type->explicit_lb = marker == MPI_LB;
            type->explicit_ub = marker == MPI_UB;
            type->name = marker == MPI_LB ? "MPI_LB" : "MPI_UB";
            made.put(index_of(marker), type);
        }
        return made;
    }();
    return table;
}

const Type* find_datatype(MPI_Datatype handle) noexcept {
    return datatypes().find(handle);
}

const Type& check_datatype(MPI_Datatype handle, const char* what, bool allow_uncommitted) {
    if (handle == MPI_DATATYPE_NULL) fail(MPI_ERR_TYPE, std::string(what) + " is MPI_DATATYPE_NULL");
    const Type* type = find_datatype(handle);
    if (type == nullptr)
        fail(MPI_ERR_TYPE, std::string(what) + " " + std::to_string(handle) + " is not a valid datatype");
    if (!type->committed && !allow_uncommitted)
        fail(MPI_ERR_TYPE, std::string(what) + " is not committed (call MPI_Type_commit first)");
    return *type;
}

const Type& check_datatype(MPI_Datatype handle, bool allow_uncommitted) {
    return check_datatype(handle, "datatype", allow_uncommitted);
}

void pack(const void* buffer, std::size_t count, const Type& type, void* packed) {
    if (count == 0 || type.size == 0) return;
    auto* out = static_cast<std::uint8_t*>(packed);
    auto* in = const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(buffer));
    if (type.contiguous) {
        std::memcpy(out, in + type.true_lb, count * type.size);
        return;
    }
    for_each_piece(in, count, type, count * type.size, [&](std::uint8_t* at, std::size_t bytes) {
        std::memcpy(out, at, bytes);
        out += bytes;
    });
}

void unpack(const void* packed, std::size_t bytes, std::size_t count, const Type& type, void* buffer) {
    bytes = std::min(bytes, count * type.size);
    if (bytes == 0) return;
    const auto* in = static_cast<const std::uint8_t*>(packed);
    auto* out = static_cast<std::uint8_t*>(buffer);
    if (type.contiguous) {
        std::memcpy(out + type.true_lb, in, bytes);
        return;
    }
    for_each_piece(out, count, type, bytes, [&](std::uint8_t* at, std::size_t piece) {
        std::memcpy(at, in, piece);
        in += piece;
    });
}

std::size_t basic_elements(const Type& type, std::size_t bytes) {
    if (type.size == 0) return 0;
    std::size_t per_element = 0;
    for (const Segment& segment : type.segments)
        per_element += segment.count * static_cast<std::size_t>(basic(segment.basic).elements);
    std::size_t elements = bytes / type.size * per_element;
    std::size_t rest = bytes % type.size;
    for (const Segment& segment : type.segments) {
        if (rest == 0) break;
        const BasicType& b = basic(segment.basic);
        const std::size_t whole = std::min(segment.count, rest / b.size);
        elements += whole * static_cast<std::size_t>(b.elements);
        rest -= whole * b.size;
        if (whole < segment.count) {
            // A pair cut after its value still counts the value.
            if (b.elements == 2 && rest >= basic(b.value).size) ++elements;
            break;
        }
    }
    return elements;
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
    return entry("MPI_Type_size", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = type.size > static_cast<std::size_t>(std::numeric_limits<int>::max()) ? MPI_UNDEFINED
                                                                                      : static_cast<int>(type.size);
    });
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
    return entry("MPI_Type_size_x", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = static_cast<MPI_Count>(type.size);
    });
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
    return entry("MPI_Type_get_extent", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (lb == nullptr || extent == nullptr) fail(MPI_ERR_ARG, "lb or extent is NULL");
        *lb = type.lb;
        *extent = type.extent;
    });
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    MPI_Aint low = 0, span = 0;  // MPI_Aint and MPI_Count are both 64-bit here
    const int status = PMPI_Type_get_extent(datatype, lb ? &low : nullptr, extent ? &span : nullptr);
    if (status == MPI_SUCCESS) *lb = low, *extent = span;
    return status;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
    return entry("MPI_Type_get_true_extent", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (true_lb == nullptr || true_extent == nullptr) fail(MPI_ERR_ARG, "true_lb or true_extent is NULL");
        *true_lb = type.true_lb;
        *true_extent = type.true_extent;
    });
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
    MPI_Aint low = 0, span = 0;
    const int status = PMPI_Type_get_true_extent(datatype, true_lb ? &low : nullptr, true_extent ? &span : nullptr);
    if (status == MPI_SUCCESS) *true_lb = low, *true_extent = span;
    return status;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
    return entry("MPI_Type_get_name", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (type_name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "type_name or resultlen is NULL");
        const std::string text = type.name.substr(0, MPI_MAX_OBJECT_NAME - 1);
        text.copy(type_name, text.size());
        type_name[text.size()] = '\0';
        *resultlen = static_cast<int>(text.size());
    });
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
    return entry("MPI_Type_set_name", MPI_COMM_WORLD, [&] {
        check_datatype(datatype, true);
        if (type_name == nullptr) fail(MPI_ERR_ARG, "type_name is NULL");
        datatypes().find(datatype)->name = std::string(type_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    });
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_contiguous", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        Builder builder;
        builder.add(old, 0, static_cast<std::size_t>(count));
        *newtype = register_with_contents(builder.build(MPI_COMBINER_CONTIGUOUS, false), {count}, {}, {oldtype});
    });
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_vector", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_count_arg(blocklength, "blocklength");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        *newtype = register_with_contents(
            hvector(count, blocklength, scaled(stride, old.extent, "stride"), old, MPI_COMBINER_VECTOR),
            {count, blocklength, stride}, {}, {oldtype});
    });
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_hvector", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_count_arg(blocklength, "blocklength");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        *newtype = register_with_contents(hvector(count, blocklength, stride, old, MPI_COMBINER_HVECTOR),
                                          {count, blocklength}, {stride}, {oldtype});
    });
}

int PMPI_Type_indexed(int count, const int lengths[], const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
    return entry("MPI_Type_indexed", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_array(lengths, count, "array_of_blocklengths");
        check_array(displacements, count, "array_of_displacements");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        std::vector<MPI_Aint> bytes;
        std::vector<int> integers{count};
        for (int i = 0; i < count; ++i) {
            bytes.push_back(scaled(displacements[i], old.extent, "array_of_displacements[" + std::to_string(i) + "]"));
            integers.push_back(lengths[i]);
        }
        for (int i = 0; i < count; ++i) integers.push_back(displacements[i]);
        *newtype = register_with_contents(hindexed(count, lengths, bytes.data(), old, MPI_COMBINER_INDEXED),
                                          std::move(integers), {}, {oldtype});
    });
}

int PMPI_Type_create_hindexed(int count, const int lengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
    return entry("MPI_Type_create_hindexed", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_array(lengths, count, "array_of_blocklengths");
        check_array(displacements, count, "array_of_displacements");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        std::vector<int> integers{count};
        integers.insert(integers.end(), lengths, lengths + count);
        *newtype = register_with_contents(hindexed(count, lengths, displacements, old, MPI_COMBINER_HINDEXED),
                                          std::move(integers),
                                          std::vector<MPI_Aint>(displacements, displacements + count), {oldtype});
    });
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
    return entry("MPI_Type_create_indexed_block", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_count_arg(blocklength, "blocklength");
        check_array(displacements, count, "array_of_displacements");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        std::vector<int> lengths(static_cast<std::size_t>(count), blocklength);
        std::vector<MPI_Aint> bytes;
        for (int i = 0; i < count; ++i)
            bytes.push_back(scaled(displacements[i], old.extent, "array_of_displacements[" + std::to_string(i) + "]"));
        std::vector<int> integers{count, blocklength};
        integers.insert(integers.end(), displacements, displacements + count);
        *newtype =
            register_with_contents(hindexed(count, lengths.data(), bytes.data(), old, MPI_COMBINER_INDEXED_BLOCK),
                                   std::move(integers), {}, {oldtype});
    });
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype* newtype) {
    return entry("MPI_Type_create_hindexed_block", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_count_arg(blocklength, "blocklength");
        check_array(displacements, count, "array_of_displacements");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        std::vector<int> lengths(static_cast<std::size_t>(count), blocklength);
        *newtype = register_with_contents(
            hindexed(count, lengths.data(), displacements, old, MPI_COMBINER_HINDEXED_BLOCK), {count, blocklength},
            std::vector<MPI_Aint>(displacements, displacements + count), {oldtype});
    });
}

int PMPI_Type_create_struct(int count, const int lengths[], const MPI_Aint displacements[], const MPI_Datatype types[],
                            MPI_Datatype* newtype) {
    return entry("MPI_Type_create_struct", MPI_COMM_WORLD, [&] {
        check_count_arg(count, "count");
        check_array(lengths, count, "array_of_blocklengths");
        check_array(displacements, count, "array_of_displacements");
        check_array(types, count, "array_of_types");
        check_out(newtype);
        Builder builder;
        for (int i = 0; i < count; ++i) {
            const std::string which = "array_of_types[" + std::to_string(i) + "]";
            const Type& member = check_datatype(types[i], which.c_str(), true);
            if (lengths[i] < 0)
                fail(MPI_ERR_ARG, "array_of_blocklengths[" + std::to_string(i) + "] = " + std::to_string(lengths[i]) +
                                      " is negative");
            builder.add(member, displacements[i], static_cast<std::size_t>(lengths[i]));
        }
        std::vector<int> integers{count};
        integers.insert(integers.end(), lengths, lengths + count);
        *newtype = register_with_contents(builder.build(MPI_COMBINER_STRUCT, true), std::move(integers),
                                          std::vector<MPI_Aint>(displacements, displacements + count),
                                          std::vector<MPI_Datatype>(types, types + count));
    });
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_resized", MPI_COMM_WORLD, [&] {
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        *newtype = register_with_contents(resized(old, lb, extent), {}, {lb, extent}, {oldtype});
    });
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_subarray", MPI_COMM_WORLD, [&] {
        if (ndims <= 0) fail(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " must be positive");
        check_array(sizes, ndims, "array_of_sizes");
        check_array(subsizes, ndims, "array_of_subsizes");
        check_array(starts, ndims, "array_of_starts");
        if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
            fail(MPI_ERR_ARG, "order " + std::to_string(order) + " is not MPI_ORDER_C or MPI_ORDER_FORTRAN");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        for (int d = 0; d < ndims; ++d)
            if (sizes[d] <= 0 || subsizes[d] <= 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
                fail(MPI_ERR_ARG, "dimension " + std::to_string(d) + ": size " + std::to_string(sizes[d]) +
                                      ", subsize " + std::to_string(subsizes[d]) + ", start " +
                                      std::to_string(starts[d]) + " do not fit (0 <= start, start + subsize <= size)");
        // Innermost dimension first: C order ends with it, Fortran starts with it.
        Type type = old;
        MPI_Aint stride = old.extent, displacement = 0;
        for (int i = 0; i < ndims; ++i) {
            const int d = order == MPI_ORDER_C ? ndims - 1 - i : i;
            type = hvector(subsizes[d], 1, stride, type, MPI_COMBINER_HVECTOR);
            displacement += starts[d] * stride;
            stride *= sizes[d];
        }
        const int one = 1;
        type = hindexed(1, &one, &displacement, type, MPI_COMBINER_HINDEXED);
        type = resized(type, 0, stride);
        type.combiner = MPI_COMBINER_SUBARRAY;
        std::vector<int> integers{ndims};
        integers.insert(integers.end(), sizes, sizes + ndims);
        integers.insert(integers.end(), subsizes, subsizes + ndims);
        integers.insert(integers.end(), starts, starts + ndims);
        integers.push_back(order);
        *newtype = register_with_contents(std::move(type), std::move(integers), {}, {oldtype});
    });
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[], const int dargs[],
                            const int psizes[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_darray", MPI_COMM_WORLD, [&] {
        if (size <= 0) fail(MPI_ERR_ARG, "size " + std::to_string(size) + " must be positive");
        if (rank < 0 || rank >= size)
            fail(MPI_ERR_ARG, "rank " + std::to_string(rank) + " is outside 0 .. " + std::to_string(size - 1));
        if (ndims <= 0) fail(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " must be positive");
        check_array(gsizes, ndims, "array_of_gsizes");
        check_array(distribs, ndims, "array_of_distribs");
        check_array(dargs, ndims, "array_of_dargs");
        check_array(psizes, ndims, "array_of_psizes");
        if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
            fail(MPI_ERR_ARG, "order " + std::to_string(order) + " is not MPI_ORDER_C or MPI_ORDER_FORTRAN");
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        long long processes = 1;
        for (int d = 0; d < ndims; ++d) {
            if (gsizes[d] <= 0 || psizes[d] <= 0)
                fail(MPI_ERR_ARG, "dimension " + std::to_string(d) + ": gsize " + std::to_string(gsizes[d]) +
                                      " and psize " + std::to_string(psizes[d]) + " must be positive");
            processes *= psizes[d];
        }
        if (processes != size)
            fail(MPI_ERR_ARG, "the process grid (product of array_of_psizes) has " + std::to_string(processes) +
                                  " processes, size is " + std::to_string(size));
        // The process grid is row-major whatever `order` is (MPI 3.1 §4.1.4).
        std::vector<int> coords(static_cast<std::size_t>(ndims));
        for (int d = ndims - 1, rest = rank; d >= 0; --d) {
            coords[d] = rest % psizes[d];
            rest /= psizes[d];
        }
        // Innermost array dimension first; each dimension places copies of
        // the type of the dimensions inside it at the indices this process owns.
        Type type = old;
        MPI_Aint stride = old.extent;
        for (int i = 0; i < ndims; ++i) {
            const int d = order == MPI_ORDER_C ? ndims - 1 - i : i;
            Builder builder;
            for (const auto& [start, length] : darray_runs(d, gsizes[d], distribs[d], dargs[d], psizes[d], coords[d])) {
                if (i == 0) {
                    builder.add(old, start * stride, static_cast<std::size_t>(length));
                    continue;
                }
                for (long long index = start; index < start + length; ++index) builder.add(type, index * stride, 1);
            }
            type = builder.build(MPI_COMBINER_DARRAY, false);
            stride *= gsizes[d];
        }
        type = resized(type, 0, stride);
        type.combiner = MPI_COMBINER_DARRAY;
        std::vector<int> integers{size, rank, ndims};
        for (const int* array : {gsizes, distribs, dargs, psizes})
            integers.insert(integers.end(), array, array + ndims);
        integers.push_back(order);
        *newtype = register_with_contents(std::move(type), std::move(integers), {}, {oldtype});
    });
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return entry("MPI_Type_dup", MPI_COMM_WORLD, [&] {
        const Type& old = check_datatype(oldtype, "oldtype", true);
        check_out(newtype);
        *newtype = MPI_DATATYPE_NULL;  // stays so when a copy function fails
        Type copy = old;
        copy.predefined = false;
        copy.combiner = MPI_COMBINER_DUP;
        copy.name.clear();
        copy_type_attributes(old, copy);
        *newtype = register_with_contents(std::move(copy), {}, {}, {oldtype});
    });
}

int PMPI_Type_commit(MPI_Datatype* datatype) {
    return entry("MPI_Type_commit", MPI_COMM_WORLD, [&] {
        if (datatype == nullptr) fail(MPI_ERR_ARG, "datatype is NULL");
        check_datatype(*datatype, true);
        datatypes().find(*datatype)->committed = true;
    });
}

int PMPI_Type_free(MPI_Datatype* datatype) {
    return entry("MPI_Type_free", MPI_COMM_WORLD, [&] {
        if (datatype == nullptr) fail(MPI_ERR_ARG, "datatype is NULL");
        const Type& type = check_datatype(*datatype, true);
        if (type.predefined) fail(MPI_ERR_TYPE, "predefined datatype " + type.name + " cannot be freed");
        delete_type_attributes(*datatypes().find(*datatype));
        datatypes().remove(*datatype);  // pending requests hold their own reference
        *datatype = MPI_DATATYPE_NULL;
    });
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
    return entry("MPI_Type_get_envelope", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (!num_integers || !num_addresses || !num_datatypes || !combiner) fail(MPI_ERR_ARG, "an output is NULL");
        *num_integers = static_cast<int>(type.integers.size());
        *num_addresses = static_cast<int>(type.addresses.size());
        *num_datatypes = static_cast<int>(type.types.size());
        *combiner = type.combiner;
    });
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int integers[], MPI_Aint addresses[], MPI_Datatype types[]) {
    return entry("MPI_Type_get_contents", MPI_COMM_WORLD, [&] {
        const Type& type = check_datatype(datatype, true);
        if (type.combiner == MPI_COMBINER_NAMED) fail(MPI_ERR_TYPE, "a named predefined datatype has no contents");
        if (max_integers < static_cast<int>(type.integers.size()) ||
            max_addresses < static_cast<int>(type.addresses.size()) ||
            max_datatypes < static_cast<int>(type.types.size()))
            fail(MPI_ERR_ARG, "the arrays are smaller than MPI_Type_get_envelope says");
        std::copy(type.integers.begin(), type.integers.end(), integers);
        std::copy(type.addresses.begin(), type.addresses.end(), addresses);
        std::copy(type.types.begin(), type.types.end(), types);
    });
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
    return entry("MPI_Type_match_size", MPI_COMM_WORLD, [&] {
        if (datatype == nullptr) fail(MPI_ERR_ARG, "datatype is NULL");
        // The Fortran sized types where there is one (as MPICH answers), else C's.
        const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_LONG_DOUBLE};
        const MPI_Datatype integers[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16};
        const MPI_Datatype complexes[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_C_LONG_DOUBLE_COMPLEX};
        auto pick = [&](const MPI_Datatype* list, std::size_t n) {
            for (std::size_t i = 0; i < n; ++i)
                if (basic_type(list[i])->size == static_cast<std::size_t>(size)) return list[i];
            fail(MPI_ERR_ARG,
                 "no predefined type of class " + std::to_string(typeclass) + " has size " + std::to_string(size));
        };
        if (typeclass == MPI_TYPECLASS_REAL)
            *datatype = pick(reals, 3);
        else if (typeclass == MPI_TYPECLASS_INTEGER)
            *datatype = pick(integers, 5);
        else if (typeclass == MPI_TYPECLASS_COMPLEX)
            *datatype = pick(complexes, 3);
        else
            fail(MPI_ERR_ARG, "typeclass " + std::to_string(typeclass) + " is not an MPI_TYPECLASS_*");
    });
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_f90_integer", MPI_COMM_WORLD, [&] {
        check_out(newtype);
        // The smallest integer with at least r decimal digits of range.
        const int range = r == MPI_UNDEFINED ? 0 : r;
        MPI_Datatype base = MPI_DATATYPE_NULL;
        if (range < 0 || range > 18)
            fail(MPI_ERR_ARG, "no integer type has a decimal range of " + std::to_string(r) + " digits (at most 18)");
        base = range <= 2 ? MPI_INTEGER1 : range <= 4 ? MPI_INTEGER2 : range <= 9 ? MPI_INTEGER4 : MPI_INTEGER8;
        *newtype = f90_type(MPI_COMBINER_F90_INTEGER, base, {r});
    });
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_f90_real", MPI_COMM_WORLD, [&] {
        check_out(newtype);
        *newtype = f90_type(MPI_COMBINER_F90_REAL, f90_real_base(p, r, false), {p, r});
    });
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
    return entry("MPI_Type_create_f90_complex", MPI_COMM_WORLD, [&] {
        check_out(newtype);
        *newtype = f90_type(MPI_COMBINER_F90_COMPLEX, f90_real_base(p, r, true), {p, r});
    });
}

// MPI-1 names of the constructors and bounds queries.
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
    MPI_Aint lb = 0;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
    MPI_Aint extent = 0;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
    MPI_Aint lb = 0, extent = 0;
    const int status = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (status == MPI_SUCCESS && displacement != nullptr) *displacement = lb + extent;
    return status;
}
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}
int PMPI_Type_hindexed(int count, int lengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
    return PMPI_Type_create_hindexed(count, lengths, displacements, oldtype, newtype);
}
int PMPI_Type_struct(int count, int lengths[], MPI_Aint displacements[], MPI_Datatype types[], MPI_Datatype* newtype) {
    return PMPI_Type_create_struct(count, lengths, displacements, types, newtype);
}

int PMPI_Get_address(const void* location, MPI_Aint* address) {
    return entry("MPI_Get_address", MPI_COMM_WORLD, [&] {
        if (address == nullptr) fail(MPI_ERR_ARG, "address is NULL");
        *address = reinterpret_cast<MPI_Aint>(location);
    });
}

int PMPI_Address(void* location, MPI_Aint* address) {
    return PMPI_Get_address(location, address);
}

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    return base + disp;
}
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    return addr1 - addr2;
}

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    return entry("MPI_Get_count", MPI_COMM_WORLD, [&] {
        check_status(status);
        const Type& type = check_datatype(datatype);
        if (count == nullptr) fail(MPI_ERR_ARG, "count is NULL");
        const auto bytes = static_cast<std::size_t>(status->isvp_bytes);
        if (type.size == 0)
            *count = 0;
        else if (bytes % type.size != 0 ||
                 bytes / type.size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            *count = MPI_UNDEFINED;
        else
            *count = static_cast<int>(bytes / type.size);
    });
}

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    return entry("MPI_Get_elements_x", MPI_COMM_WORLD, [&] {
        check_status(status);
        const Type& type = check_datatype(datatype);
        if (count == nullptr) fail(MPI_ERR_ARG, "count is NULL");
        *count = static_cast<MPI_Count>(basic_elements(type, static_cast<std::size_t>(status->isvp_bytes)));
    });
}

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    MPI_Count elements = 0;
    const int result = PMPI_Get_elements_x(status, datatype, &elements);
    if (result == MPI_SUCCESS && count != nullptr)
        *count = elements > std::numeric_limits<int>::max() ? MPI_UNDEFINED : static_cast<int>(elements);
    return result;
}

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    return entry("MPI_Status_set_elements_x", MPI_COMM_WORLD, [&] {
        check_status(status);
        const Type& type = check_datatype(datatype);
        if (count < 0) fail(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
        status->isvp_bytes = count * static_cast<MPI_Count>(type.size);
    });
}

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
    return PMPI_Status_set_elements_x(status, datatype, count);
}

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
    return entry("MPI_Status_set_cancelled", MPI_COMM_WORLD, [&] {
        check_status(status);
        status->isvp_cancelled = flag ? 1 : 0;
    });
}

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
    return entry("MPI_Test_cancelled", MPI_COMM_WORLD, [&] {
        check_status(status);
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        *flag = status->isvp_cancelled;
    });
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
    return entry("MPI_Pack_size", comm, [&] {
        check_comm(comm);
        check_count_arg(incount, "incount");
        const Type& type = check_datatype(datatype);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        const std::size_t bytes = static_cast<std::size_t>(incount) * type.size;
        // Not cut to an int (2^30 doubles would say 0 bytes, 3 GiB a negative size).
        if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            fail(MPI_ERR_COUNT, "incount " + std::to_string(incount) + " x " + std::to_string(type.size) +
                                    " bytes = " + std::to_string(bytes) +
                                    " does not fit an int (MPI_Pack_size_c gives it as an MPI_Count)");
        *size = static_cast<int>(bytes);
    });
}

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
    return entry("MPI_Pack", comm, [&] {
        check_comm(comm);
        const Type& type = check_datatype(datatype);
        check_pack_room(incount, type, position, outsize, "outsize");
        check_buffer(inbuf, incount, type, "inbuf");
        if (incount > 0 && type.size > 0 && outbuf == nullptr) fail(MPI_ERR_BUFFER, "outbuf is NULL");
        pack(inbuf, static_cast<std::size_t>(incount), type, static_cast<std::uint8_t*>(outbuf) + *position);
        *position += static_cast<int>(static_cast<std::size_t>(incount) * type.size);
    });
}

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
    return entry("MPI_Unpack", comm, [&] {
        check_comm(comm);
        const Type& type = check_datatype(datatype);
        check_pack_room(outcount, type, position, insize, "insize");
        check_buffer(outbuf, outcount, type, "outbuf");
        const std::size_t bytes = static_cast<std::size_t>(outcount) * type.size;
        if (bytes > 0 && inbuf == nullptr) fail(MPI_ERR_BUFFER, "inbuf is NULL");
        unpack(static_cast<const std::uint8_t*>(inbuf) + *position, bytes, static_cast<std::size_t>(outcount), type,
               outbuf);
        *position += static_cast<int>(bytes);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Type_size)
ISVP_MPI_ALIAS(Type_size_x)
ISVP_MPI_ALIAS(Type_get_extent)
ISVP_MPI_ALIAS(Type_get_extent_x)
ISVP_MPI_ALIAS(Type_get_true_extent)
ISVP_MPI_ALIAS(Type_get_true_extent_x)
ISVP_MPI_ALIAS(Type_get_name)
ISVP_MPI_ALIAS(Type_set_name)
ISVP_MPI_ALIAS(Type_contiguous)
ISVP_MPI_ALIAS(Type_vector)
ISVP_MPI_ALIAS(Type_create_hvector)
ISVP_MPI_ALIAS(Type_indexed)
ISVP_MPI_ALIAS(Type_create_hindexed)
ISVP_MPI_ALIAS(Type_create_indexed_block)
ISVP_MPI_ALIAS(Type_create_hindexed_block)
ISVP_MPI_ALIAS(Type_create_struct)
ISVP_MPI_ALIAS(Type_create_resized)
ISVP_MPI_ALIAS(Type_create_subarray)
ISVP_MPI_ALIAS(Type_create_darray)
ISVP_MPI_ALIAS(Type_dup)
ISVP_MPI_ALIAS(Type_commit)
ISVP_MPI_ALIAS(Type_free)
ISVP_MPI_ALIAS(Type_get_envelope)
ISVP_MPI_ALIAS(Type_get_contents)
ISVP_MPI_ALIAS(Type_match_size)
ISVP_MPI_ALIAS(Type_create_f90_integer)
ISVP_MPI_ALIAS(Type_create_f90_real)
ISVP_MPI_ALIAS(Type_create_f90_complex)
ISVP_MPI_ALIAS(Type_extent)
ISVP_MPI_ALIAS(Type_lb)
ISVP_MPI_ALIAS(Type_ub)
ISVP_MPI_ALIAS(Type_hvector)
ISVP_MPI_ALIAS(Type_hindexed)
ISVP_MPI_ALIAS(Type_struct)
ISVP_MPI_ALIAS(Get_address)
ISVP_MPI_ALIAS(Address)
ISVP_MPI_ALIAS(Aint_add)
ISVP_MPI_ALIAS(Aint_diff)
ISVP_MPI_ALIAS(Get_count)
ISVP_MPI_ALIAS(Get_elements)
ISVP_MPI_ALIAS(Get_elements_x)
ISVP_MPI_ALIAS(Status_set_elements)
ISVP_MPI_ALIAS(Status_set_elements_x)
ISVP_MPI_ALIAS(Status_set_cancelled)
ISVP_MPI_ALIAS(Test_cancelled)
ISVP_MPI_ALIAS(Pack_size)
ISVP_MPI_ALIAS(Pack)
ISVP_MPI_ALIAS(Unpack)
