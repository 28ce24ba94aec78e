// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size in the
// "external32" representation (MPI 3.1 §13.5.2): every basic element
// big-endian, with the standard's fixed sizes (Table 13.2), which differ
// from this platform's for MPI_LONG / MPI_UNSIGNED_LONG (4 bytes, not 8) and
// MPI_WCHAR (2, not 4). Floating point is IEEE 754 as on the host; long
// double, the x87 80-bit format here, becomes binary128 (16 bytes) and back
// (the extra fraction bits of a binary128 are cut when unpacking). Complex
// types are two reals, pair types their value then their index. An integer
// that does not fit its external size (a long above 2^31 - 1) is
// MPI_ERR_CONVERSION, named with its value.
//
// The only data representation is "external32"; "native" and "internal"
// are file-view representations of MPI-IO, which is not supported.
#include <cstring>
#include <limits>

#include "basic_types.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

static_assert(std::numeric_limits<long double>::digits == 64, "long double must be the x87 80-bit format");

/// One scalar inside a basic element: where, and of which predefined scalar type.
struct Component {
    std::size_t offset = 0;
    MPI_Datatype scalar = MPI_DATATYPE_NULL;
};

/// The scalars of basic type `b` in external32 order (at most two).
int components(const BasicType& b, Component out[2]) {
    switch (b.handle) {
        case MPI_C_FLOAT_COMPLEX:
        case MPI_C_COMPLEX:
        case MPI_CXX_FLOAT_COMPLEX:
        case MPI_COMPLEX:
        case MPI_COMPLEX8:
            out[0] = {0, MPI_FLOAT};
            out[1] = {4, MPI_FLOAT};
            return 2;
        case MPI_C_DOUBLE_COMPLEX:
        case MPI_CXX_DOUBLE_COMPLEX:
        case MPI_DOUBLE_COMPLEX:
        case MPI_COMPLEX16:
            out[0] = {0, MPI_DOUBLE};
            out[1] = {8, MPI_DOUBLE};
            return 2;
        case MPI_C_LONG_DOUBLE_COMPLEX:
        case MPI_CXX_LONG_DOUBLE_COMPLEX:
            out[0] = {0, MPI_LONG_DOUBLE};
            out[1] = {sizeof(long double), MPI_LONG_DOUBLE};
            return 2;
        default:
            break;
    }
    if (b.kind != BasicKind::Pair) {
        out[0] = {0, b.handle};
        return 1;
    }
    // The C pairs have an int index, the Fortran ones an index of the value's type.
    const bool fortran = b.handle == MPI_2INTEGER || b.handle == MPI_2REAL || b.handle == MPI_2DOUBLE_PRECISION;
    out[0] = {0, b.value};
    out[1] = {b.piece_count == 2 ? b.pieces[1].offset : basic_type(b.value)->size, fortran ? b.value : MPI_INT};
    return 2;
}

/// Bytes of a scalar in external32 (Table 13.2).
std::size_t external_bytes(MPI_Datatype scalar) {
    if (scalar == MPI_LONG || scalar == MPI_UNSIGNED_LONG) return 4;
    if (scalar == MPI_WCHAR) return 2;
    return basic_type(scalar)->size;
}

std::size_t external_element_bytes(const BasicType& b) {
    Component parts[2];
    const int n = components(b, parts);
    std::size_t bytes = 0;
    for (int i = 0; i < n; ++i) bytes += external_bytes(parts[i].scalar);
    return bytes;
}

enum class Conversion { Bytes, Signed, Unsigned, Float, LongDouble };

Conversion conversion_of(MPI_Datatype scalar) {
    const BasicType& b = *basic_type(scalar);
    if (scalar == MPI_LONG_DOUBLE) return Conversion::LongDouble;
    if (b.size == 1) return Conversion::Bytes;
    switch (b.kind) {
        case BasicKind::Floating:
            return Conversion::Float;
        case BasicKind::UnsignedInteger:
        case BasicKind::Character:  // MPI_WCHAR
            return Conversion::Unsigned;
        default:
            return Conversion::Signed;  // signed integers, LOGICAL, AINT/OFFSET/COUNT
    }
}

void put_big_endian(std::uint64_t value, std::uint8_t* out, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * (bytes - 1 - i)));
}

std::uint64_t get_big_endian(const std::uint8_t* in, std::size_t bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value = value << 8 | in[i];
    return value;
}

/// The native little-endian integer at `at` of `bytes`, sign-extended when `is_signed`.
std::uint64_t get_native(const std::uint8_t* at, std::size_t bytes, bool is_signed) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(at[i]) << (8 * i);
    if (is_signed && bytes < 8 && (value >> (8 * bytes - 1) & 1u)) value |= ~std::uint64_t{0} << (8 * bytes);
    return value;
}

void put_native(std::uint64_t value, std::uint8_t* at, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) at[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

/// Whether `value` (sign-extended when `is_signed`) fits `bytes`.
bool fits(std::uint64_t value, std::size_t bytes, bool is_signed) {
    if (bytes >= 8) return true;
    if (!is_signed) return value >> (8 * bytes) == 0;
    const auto v = static_cast<std::int64_t>(value);
    const std::int64_t limit = std::int64_t{1} << (8 * bytes - 1);
    return v >= -limit && v < limit;
}

/// Converts the native scalar at `native` to external32 at `external`.
void to_external(MPI_Datatype scalar, const std::uint8_t* native, std::uint8_t* external) {
    const std::size_t size = basic_type(scalar)->size, bytes = external_bytes(scalar);
    switch (conversion_of(scalar)) {
        case Conversion::Bytes:
            std::memcpy(external, native, size);
            return;
        case Conversion::Signed:
        case Conversion::Unsigned: {
            if (size > 8) {  // MPI_INTEGER16: the same 16 bytes, big-endian
                for (std::size_t i = 0; i < size; ++i) external[i] = native[size - 1 - i];
                return;
            }
            const bool is_signed = conversion_of(scalar) == Conversion::Signed;
            const std::uint64_t value = get_native(native, size, is_signed);
            if (!fits(value, bytes, is_signed))
                fail(MPI_ERR_CONVERSION,
                     std::string(basic_type(scalar)->name) + " value " +
                         (is_signed ? std::to_string(static_cast<std::int64_t>(value)) : std::to_string(value)) +
                         " does not fit its " + std::to_string(bytes) + " bytes in external32");
            put_big_endian(value, external, bytes);
            return;
        }
        case Conversion::Float:
            put_big_endian(get_native(native, size, false), external, size);
            return;
        case Conversion::LongDouble: {
            // x87: 64-bit significand with an explicit integer bit, then sign and
            // 15-bit exponent. binary128: sign, the same exponent, 112-bit fraction.
            const std::uint64_t significand = get_native(native, 8, false);
            const std::uint64_t sign_exponent = get_native(native + 8, 2, false);
            const std::uint64_t fraction = significand & ~(std::uint64_t{1} << 63);
            put_big_endian(sign_exponent << 48 | fraction >> 15, external, 8);
            put_big_endian((fraction & 0x7FFFu) << 49, external + 8, 8);
            return;
        }
    }
}

/// Converts external32 at `external` to the native scalar at `native`.
void from_external(MPI_Datatype scalar, const std::uint8_t* external, std::uint8_t* native) {
    const std::size_t size = basic_type(scalar)->size, bytes = external_bytes(scalar);
    switch (conversion_of(scalar)) {
        case Conversion::Bytes:
            std::memcpy(native, external, size);
            return;
        case Conversion::Signed:
        case Conversion::Unsigned: {
            if (size > 8) {
                for (std::size_t i = 0; i < size; ++i) native[i] = external[size - 1 - i];
                return;
            }
            std::uint64_t value = get_big_endian(external, bytes);
            if (conversion_of(scalar) == Conversion::Signed && bytes < 8 && (value >> (8 * bytes - 1) & 1u))
                value |= ~std::uint64_t{0} << (8 * bytes);
            put_native(value, native, size);
            return;
        }
        case Conversion::Float:
            put_native(get_big_endian(external, size), native, size);
            return;
        case Conversion::LongDouble: {
            const std::uint64_t high = get_big_endian(external, 8), low = get_big_endian(external + 8, 8);
            const std::uint64_t sign_exponent = high >> 48;
            const std::uint64_t integer_bit = (sign_exponent & 0x7FFFu) != 0 ? std::uint64_t{1} << 63 : 0;
            const std::uint64_t significand = integer_bit | (high & 0xFFFFFFFFFFFFu) << 15 | low >> 49;
            std::memset(native, 0, size);
            put_native(significand, native, 8);
            put_native(sign_exponent, native + 8, 2);
            return;
        }
    }
}

/// Calls visit(native address, scalar type) for every scalar of `count`
/// elements of `type` at `buffer`, in type-map order.
template <class Visit>
void for_each_scalar(std::uint8_t* buffer, std::size_t count, const Type& type, Visit visit) {
    for (std::size_t i = 0; i < count; ++i) {
        std::uint8_t* element = buffer + static_cast<MPI_Aint>(i) * type.extent;
        for (const Segment& segment : type.segments) {
            const BasicType& b = *basic_type(segment.basic);
            Component parts[2];
            const int n = components(b, parts);
            for (std::size_t unit = 0; unit < segment.count; ++unit) {
                std::uint8_t* at = element + segment.offset + static_cast<MPI_Aint>(unit * b.extent);
                for (int p = 0; p < n; ++p) visit(at + parts[p].offset, parts[p].scalar);
            }
        }
    }
}

std::size_t external_size(const Type& type) {
    std::size_t bytes = 0;
    for (const Segment& segment : type.segments)
        bytes += segment.count * external_element_bytes(*basic_type(segment.basic));
    return bytes;
}

void check_datarep(const char* datarep) {
    if (datarep == nullptr) fail(MPI_ERR_ARG, "datarep is NULL");
    if (std::strcmp(datarep, "external32") != 0)
        fail(MPI_ERR_UNSUPPORTED_DATAREP,
             "datarep \"" + std::string(datarep) + "\" is not supported (only \"external32\")");
}

/// `bytes` at *position must fit a buffer of `limit` bytes.
void check_room(std::size_t bytes, const MPI_Aint* position, MPI_Aint limit, const char* limit_name) {
    if (position == nullptr) fail(MPI_ERR_ARG, "position is NULL");
    if (*position < 0 || limit < 0 || static_cast<std::size_t>(*position) + bytes > static_cast<std::size_t>(limit))
        fail(MPI_ERR_TRUNCATE, std::to_string(bytes) + " bytes at position " + std::to_string(*position) +
                                   " do not fit " + limit_name + " " + std::to_string(limit));
}

}  // namespace

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
    return entry("MPI_Pack_external_size", MPI_COMM_WORLD, [&] {
        check_datarep(datarep);
        check_count(incount, "incount");
        const Type& type = check_datatype(datatype);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = static_cast<MPI_Aint>(static_cast<std::size_t>(incount) * external_size(type));
    });
}

int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
    return entry("MPI_Pack_external", MPI_COMM_WORLD, [&] {
        check_datarep(datarep);
        check_count(incount, "incount");
        const Type& type = check_datatype(datatype);
        const std::size_t bytes = static_cast<std::size_t>(incount) * external_size(type);
        check_room(bytes, position, outsize, "outsize");
        check_buffer(inbuf, incount, type, "inbuf");
        if (bytes > 0 && outbuf == nullptr) fail(MPI_ERR_BUFFER, "outbuf is NULL");
        auto* out = static_cast<std::uint8_t*>(outbuf) + *position;
        for_each_scalar(const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(inbuf)),
                        static_cast<std::size_t>(incount), type, [&](const std::uint8_t* at, MPI_Datatype scalar) {
                            to_external(scalar, at, out);
                            out += external_bytes(scalar);
                        });
        *position += static_cast<MPI_Aint>(bytes);
    });
}

int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype datatype) {
    return entry("MPI_Unpack_external", MPI_COMM_WORLD, [&] {
        check_datarep(datarep);
        check_count(outcount, "outcount");
        const Type& type = check_datatype(datatype);
        const std::size_t bytes = static_cast<std::size_t>(outcount) * external_size(type);
        check_room(bytes, position, insize, "insize");
        check_buffer(outbuf, outcount, type, "outbuf");
        if (bytes > 0 && inbuf == nullptr) fail(MPI_ERR_BUFFER, "inbuf is NULL");
        const auto* in = static_cast<const std::uint8_t*>(inbuf) + *position;
        for_each_scalar(static_cast<std::uint8_t*>(outbuf), static_cast<std::size_t>(outcount), type,
                        [&](std::uint8_t* at, MPI_Datatype scalar) {
                            from_external(scalar, in, at);
                            in += external_bytes(scalar);
                        });
        *position += static_cast<MPI_Aint>(bytes);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Pack_external_size)
ISVP_MPI_ALIAS(Pack_external)
ISVP_MPI_ALIAS(Unpack_external)
