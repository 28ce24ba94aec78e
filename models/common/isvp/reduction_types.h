// Reduction operation and datatype encodings.
//
// These are the 4-bit `operation` and `datatype` fields of the processor and
// network packet headers (DESIGN §3.5) and the `in_op` / `in_dtype` ports of
// the RTL AgLU (rtl/aglu/aglu.v). One definition, used by models, the RTL
// wrapper and the guest driver: change a value here and in the RTL together.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace isvp {

/// MPI reduction operations as the switch encodes them (4 bits).
enum class Operation : std::uint8_t {
    Sum = 0,
    Prod = 1,
    Min = 2,
    Max = 3,
    Land = 4,
    Lor = 5,
    Lxor = 6,
    Band = 7,
    Bor = 8,
    Bxor = 9,
    Minloc = 10,
    Maxloc = 11,
};
inline constexpr int kOperationCount = 12;

/// Element datatypes as the switch encodes them (4 bits). The two pair types
/// are MPI's (value, int index) structs used by MINLOC/MAXLOC.
enum class Datatype : std::uint8_t {
    Int8 = 0,
    Int16 = 1,
    Int32 = 2,
    Int64 = 3,
    UInt8 = 4,
    UInt16 = 5,
    UInt32 = 6,
    UInt64 = 7,
    Float32 = 8,
    Float64 = 9,
    Float32Int32 = 10,  ///< MPI_FLOAT_INT: {float value; int index;}
    Int32Int32 = 11,    ///< MPI_2INT: {int value; int index;}
};
inline constexpr int kDatatypeCount = 12;

/// Upper-case name as used in messages and reports ("SUM", "MINLOC").
std::string_view to_string(Operation op);
/// Lower-case name as used in configuration and reports ("int32", "float32_int32").
std::string_view to_string(Datatype type);

/// Parses a name case-insensitively; nullopt when it is not one.
std::optional<Operation> parse_operation(std::string_view name);
std::optional<Datatype> parse_datatype(std::string_view name);

/// Size of one element in bytes (a pair counts as one 8-byte element).
std::size_t element_size(Datatype type);
bool is_floating(Datatype type);
bool is_signed_integer(Datatype type);
bool is_unsigned_integer(Datatype type);
bool is_pair(Datatype type);

/// Decodes a raw 4-bit field; nullopt for reserved encodings.
std::optional<Operation> operation_from_code(unsigned code);
std::optional<Datatype> datatype_from_code(unsigned code);

}  // namespace isvp
