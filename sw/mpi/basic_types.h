// The predefined MPI datatypes as the library sees them: C size, extent and
// alignment, which reductions the standard allows on them (their "kind"),
// the AgLU datatype when the switch can compute on them, and where the data
// lies inside a pair type's struct. Private to libisvp_mpi.
#pragma once

#include <cstddef>
#include <optional>

#include <mpi.h>

#include "isvp/reduction_types.h"

namespace isvp::mpi {

/// MPI_INTEGER16 (gfortran's INTEGER(16)): GCC's 128-bit integers.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// The MPI standard's groups of predefined types for reductions (MPI 3.1
/// §5.9.2): which predefined operations each group allows.
enum class BasicKind {
    Character,        ///< MPI_CHAR, MPI_WCHAR: no reductions
    SignedInteger,    ///< C integer, signed
    UnsignedInteger,  ///< C integer, unsigned
    Floating,         ///< MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE
    Logical,          ///< MPI_C_BOOL
    Byte,             ///< MPI_BYTE
    Complex,          ///< MPI_C_*_COMPLEX
    Multilanguage,    ///< MPI_AINT, MPI_OFFSET, MPI_COUNT (signed 64-bit)
    Pair,             ///< MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT (MINLOC/MAXLOC)
    Packed,           ///< MPI_PACKED: no reductions
};

/// A contiguous piece of data inside one element (two for MPI_SHORT_INT).
struct Piece {
    std::size_t offset = 0;
    std::size_t bytes = 0;
};

struct BasicType {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    const char* name = "";
    std::size_t size = 0;       ///< data bytes
    std::size_t extent = 0;     ///< sizeof the C type (struct for pairs)
    std::size_t alignment = 1;  ///< alignof the C type
    BasicKind kind = BasicKind::Byte;
    std::optional<isvp::Datatype> aglu;  ///< what the switch computes it as
    Piece pieces[2];                     ///< data inside the element
    int piece_count = 1;
    int elements = 1;                        ///< basic elements (2 for pairs: value and index)
    MPI_Datatype value = MPI_DATATYPE_NULL;  ///< pairs: the value's type; others: itself
    bool dense() const { return size == extent; }
};

/// The predefined type of `handle`, or nullptr.
const BasicType* basic_type(MPI_Datatype handle) noexcept;

}  // namespace isvp::mpi
