#include "isvp/reduction_types.h"

#include <array>
#include <cctype>

namespace isvp {
namespace {

constexpr std::array<std::string_view, kOperationCount> kOperationNames = {
    "SUM", "PROD", "MIN", "MAX", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR", "MINLOC", "MAXLOC"};

constexpr std::array<std::string_view, kDatatypeCount> kDatatypeNames = {
    "int8",   "int16",  "int32",   "int64",   "uint8",         "uint16",
    "uint32", "uint64", "float32", "float64", "float32_int32", "int32_int32"};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

}  // namespace

std::string_view to_string(Operation op) {
    return kOperationNames.at(static_cast<std::size_t>(op));
}
std::string_view to_string(Datatype type) {
    return kDatatypeNames.at(static_cast<std::size_t>(type));
}

std::optional<Operation> parse_operation(std::string_view name) {
    for (int i = 0; i < kOperationCount; ++i)
        if (equal_ignoring_case(name, kOperationNames[i])) return static_cast<Operation>(i);
    return std::nullopt;
}

std::optional<Datatype> parse_datatype(std::string_view name) {
    for (int i = 0; i < kDatatypeCount; ++i)
        if (equal_ignoring_case(name, kDatatypeNames[i])) return static_cast<Datatype>(i);
    return std::nullopt;
}

std::size_t element_size(Datatype type) {
    switch (type) {
        case Datatype::Int8:
        case Datatype::UInt8:
            return 1;
        case Datatype::Int16:
        case Datatype::UInt16:
            return 2;
        case Datatype::Int32:
        case Datatype::UInt32:
        case Datatype::Float32:
            return 4;
        case Datatype::Int64:
        case Datatype::UInt64:
        case Datatype::Float64:
        case Datatype::Float32Int32:
        case Datatype::Int32Int32:
            return 8;
    }
    return 0;
}

bool is_floating(Datatype type) {
    return type == Datatype::Float32 || type == Datatype::Float64;
}
bool is_signed_integer(Datatype type) {
    return type == Datatype::Int8 || type == Datatype::Int16 || type == Datatype::Int32 || type == Datatype::Int64;
}
bool is_unsigned_integer(Datatype type) {
    return type == Datatype::UInt8 || type == Datatype::UInt16 || type == Datatype::UInt32 || type == Datatype::UInt64;
}
bool is_pair(Datatype type) {
    return type == Datatype::Float32Int32 || type == Datatype::Int32Int32;
}

std::optional<Operation> operation_from_code(unsigned code) {
    if (code >= static_cast<unsigned>(kOperationCount)) return std::nullopt;
    return static_cast<Operation>(code);
}

std::optional<Datatype> datatype_from_code(unsigned code) {
    if (code >= static_cast<unsigned>(kDatatypeCount)) return std::nullopt;
    return static_cast<Datatype>(code);
}

}  // namespace isvp
