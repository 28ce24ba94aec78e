// Reduction operations: the predefined ops on the types the MPI standard
// allows them on (MPI 3.1 §5.9.2), user ops from MPI_Op_create, and
// reduce_local, the combining step of every software reduction.
//
// Predefined ops on types the AgLU computes (all integer types, FLOAT,
// DOUBLE, FLOAT_INT, 2INT, C_BOOL as uint8) use the AgLU's own arithmetic,
// so a software reduction gives bit for bit what the switch gives. LONG
// DOUBLE, the complex types and the other pair types are combined here.
#include <complex>
#include <cstring>

#include "basic_types.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

using isvp::Operation;

HandleTable<Op>& operations() {
    static HandleTable<Op> table = [] {
        HandleTable<Op> made(kind::kOp);
        made.put(0, nullptr);
        const std::pair<MPI_Op, std::optional<Operation>> predefined[] = {
            {MPI_MAX, Operation::Max},   {MPI_MIN, Operation::Min},       {MPI_SUM, Operation::Sum},
            {MPI_PROD, Operation::Prod}, {MPI_LAND, Operation::Land},     {MPI_BAND, Operation::Band},
            {MPI_LOR, Operation::Lor},   {MPI_BOR, Operation::Bor},       {MPI_LXOR, Operation::Lxor},
            {MPI_BXOR, Operation::Bxor}, {MPI_MINLOC, Operation::Minloc}, {MPI_MAXLOC, Operation::Maxloc},
            {MPI_REPLACE, std::nullopt}, {MPI_NO_OP, std::nullopt},
        };
        for (const auto& [handle, operation] : predefined) {
            auto op = std::make_shared<Op>();
            op->handle = handle;
            op->predefined = operation;
            made.put(static_cast<unsigned>(handle) & 0xFFFFFFu, op);
        }
        return made;
    }();
    return table;
}

std::string op_name(const Op& op) {
    if (op.handle == MPI_REPLACE) return "MPI_REPLACE";
    if (op.handle == MPI_NO_OP) return "MPI_NO_OP";
    if (!op.predefined) return "a user operation";
    return "MPI_" + std::string(to_string(*op.predefined));
}

/// The MPI standard's table: which groups of types a predefined op takes.
bool allowed(Operation op, BasicKind kind) {
    const bool integer = kind == BasicKind::SignedInteger || kind == BasicKind::UnsignedInteger;
    switch (op) {
        case Operation::Max:
        case Operation::Min:
            return integer || kind == BasicKind::Floating || kind == BasicKind::Multilanguage;
        case Operation::Sum:
        case Operation::Prod:
            return integer || kind == BasicKind::Floating || kind == BasicKind::Complex ||
                   kind == BasicKind::Multilanguage;
        case Operation::Land:
        case Operation::Lor:
        case Operation::Lxor:
            return integer || kind == BasicKind::Logical;
        case Operation::Band:
        case Operation::Bor:
        case Operation::Bxor:
            return integer || kind == BasicKind::Byte || kind == BasicKind::Multilanguage;
        case Operation::Minloc:
        case Operation::Maxloc:
            return kind == BasicKind::Pair;
    }
    return false;
}

template <class T>
T load(const std::uint8_t* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

template <class T>
void store(std::uint8_t* at, const T& value) {
    std::memcpy(at, &value, sizeof value);
}

/// inout = in op inout for arithmetic T (long double, complex).
template <class T>
void arithmetic(Operation op, const std::uint8_t* in, std::uint8_t* inout, std::size_t n, std::size_t stride) {
    for (std::size_t i = 0; i < n; ++i, in += stride, inout += stride) {
        const T a = load<T>(in), b = load<T>(inout);
        T r = b;
        if (op == Operation::Sum) r = a + b;
        if (op == Operation::Prod) r = a * b;
        if constexpr (!std::is_same_v<T, std::complex<float>> && !std::is_same_v<T, std::complex<double>> &&
                      !std::is_same_v<T, std::complex<long double>>) {
            if (op == Operation::Min) r = a < b ? a : b;
            if (op == Operation::Max) r = a > b ? a : b;
        }
        store(inout, r);
    }
}

/// inout = in op inout on MPI_INTEGER16 (two's complement; sums and
/// products wrap, as the AgLU's integers do).
void integer128(Operation op, const std::uint8_t* in, std::uint8_t* inout, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i, in += sizeof(Int128), inout += sizeof(Int128)) {
        const Int128 a = load<Int128>(in), b = load<Int128>(inout);
        const auto ua = static_cast<UInt128>(a), ub = static_cast<UInt128>(b);
        UInt128 r = ub;
        switch (op) {
            case Operation::Sum:
                r = ua + ub;
                break;
            case Operation::Prod:
                r = ua * ub;
                break;
            case Operation::Min:
                r = a < b ? ua : ub;
                break;
            case Operation::Max:
                r = a > b ? ua : ub;
                break;
            case Operation::Land:
                r = a != 0 && b != 0;
                break;
            case Operation::Lor:
                r = a != 0 || b != 0;
                break;
            case Operation::Lxor:
                r = (a != 0) != (b != 0);
                break;
            case Operation::Band:
                r = ua & ub;
                break;
            case Operation::Bor:
                r = ua | ub;
                break;
            case Operation::Bxor:
                r = ua ^ ub;
                break;
            default:
                break;  // MINLOC/MAXLOC: refused by check_op_on_type
        }
        store(inout, r);
    }
}

/// MINLOC/MAXLOC on {V value; I index;} (I is int for the C pairs, V for
/// the Fortran ones): the better value wins; on a tie the lower index.
template <class V, class I = int>
void location(Operation op, const BasicType& b, const std::uint8_t* in, std::uint8_t* inout, std::size_t n) {
    const std::size_t index_at = b.piece_count == 2 ? b.pieces[1].offset : sizeof(V);
    for (std::size_t i = 0; i < n; ++i, in += b.extent, inout += b.extent) {
        const V a = load<V>(in), c = load<V>(inout);
        const I ai = load<I>(in + index_at), ci = load<I>(inout + index_at);
        const bool better = op == Operation::Minloc ? a < c : a > c;
        if (better) {
            store(inout, a);
            store(inout + index_at, ai);
        } else if (a == c && ai < ci) {
            store(inout + index_at, ai);
        }
    }
}

/// inout = in op inout on n consecutive elements of predefined type b.
void combine_basic(Operation op, const BasicType& b, const std::uint8_t* in, std::uint8_t* inout, std::size_t n) {
    if (n == 0) return;
    if (b.aglu) {
        // in op inout with the AgLU's arithmetic; every predefined op is commutative.
        guest::combine_elements(op, *b.aglu, in, inout, inout, n * b.size);
        return;
    }
    switch (b.handle) {
        case MPI_LONG_DOUBLE:
            return arithmetic<long double>(op, in, inout, n, b.extent);
        case MPI_C_FLOAT_COMPLEX:
        case MPI_C_COMPLEX:
        case MPI_CXX_FLOAT_COMPLEX:
        case MPI_COMPLEX:
        case MPI_COMPLEX8:
            return arithmetic<std::complex<float>>(op, in, inout, n, b.extent);
        case MPI_C_DOUBLE_COMPLEX:
        case MPI_CXX_DOUBLE_COMPLEX:
        case MPI_DOUBLE_COMPLEX:
        case MPI_COMPLEX16:
            return arithmetic<std::complex<double>>(op, in, inout, n, b.extent);
        case MPI_C_LONG_DOUBLE_COMPLEX:
        case MPI_CXX_LONG_DOUBLE_COMPLEX:
            return arithmetic<std::complex<long double>>(op, in, inout, n, b.extent);
        case MPI_DOUBLE_INT:
            return location<double>(op, b, in, inout, n);
        case MPI_LONG_INT:
            return location<long>(op, b, in, inout, n);
        case MPI_SHORT_INT:
            return location<short>(op, b, in, inout, n);
        case MPI_LONG_DOUBLE_INT:
            return location<long double>(op, b, in, inout, n);
        case MPI_INTEGER16:
            return integer128(op, in, inout, n);
        case MPI_2REAL:
            return location<float, float>(op, b, in, inout, n);
        case MPI_2DOUBLE_PRECISION:
            return location<double, double>(op, b, in, inout, n);
        default:
            fail(MPI_ERR_INTERN, std::string("no software combining for ") + b.name);
    }
}

}  // namespace

const Op& check_op(MPI_Op handle) {
    if (handle == MPI_OP_NULL) fail(MPI_ERR_OP, "op is MPI_OP_NULL");
    const Op* op = operations().find(handle);
    if (op == nullptr) fail(MPI_ERR_OP, "op " + std::to_string(handle) + " is not a valid operation");
    return *op;
}

void check_op_on_type(const Op& op, const Type& type) {
    if (op.user != nullptr) return;
    if (!op.predefined) fail(MPI_ERR_OP, op_name(op) + " is only for one-sided accumulate operations");
    if (type.segments.empty()) return;  // no data to combine
    const std::string name = type.name.empty() ? "a derived datatype" : type.name;
    if (type.uniform == MPI_DATATYPE_NULL)
        fail(MPI_ERR_OP, op_name(op) + " is not defined on " + name +
                             ": a predefined operation needs one predefined type throughout");
    const BasicType& b = *basic_type(type.uniform);
    if (!allowed(*op.predefined, b.kind))
        fail(MPI_ERR_OP, op_name(op) + " is not defined on " + std::string(b.name) +
                             (type.predefined ? "" : " (the elements of " + name + ")"));
}

void reduce_local(const void* in, void* inout, std::size_t count, MPI_Datatype datatype, const Op& op) {
    if (count == 0) return;
    if (op.user_c != nullptr) {  // MPI_Op_create_c
        MPI_Count length = static_cast<MPI_Count>(count);
        MPI_Datatype handle = datatype;
        op.user_c(const_cast<void*>(in), inout, &length, &handle);
        return;
    }
    if (op.user != nullptr) {
        int length = static_cast<int>(count);
        MPI_Datatype handle = datatype;
        op.user(const_cast<void*>(in), inout, &length, &handle);
        return;
    }
    const Type& type = check_datatype(datatype);
    check_op_on_type(op, type);
    const auto* source = static_cast<const std::uint8_t*>(in);
    auto* target = static_cast<std::uint8_t*>(inout);
    if (type.segments.empty()) return;
    const BasicType& b = *basic_type(type.uniform);
    if (type.contiguous) {
        combine_basic(*op.predefined, b, source + type.true_lb, target + type.true_lb, count * type.uniform_count);
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        const MPI_Aint base = static_cast<MPI_Aint>(i) * type.extent;
        for (const Segment& segment : type.segments)
            combine_basic(*op.predefined, b, source + base + segment.offset, target + base + segment.offset,
                          segment.count);
    }
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
    return entry("MPI_Op_create", MPI_COMM_WORLD, [&] {
        if (user_fn == nullptr) fail(MPI_ERR_ARG, "user_fn is NULL");
        if (op == nullptr) fail(MPI_ERR_ARG, "op is NULL");
        auto made = std::make_shared<Op>();
        made->user = user_fn;
        made->commutative = commute != 0;
        *op = operations().add(made);
        made->handle = *op;
    });
}

/// Marks an MPI_Op_create_c op as a user op (Op::user); reduce_local calls Op::user_c instead.
static void large_count_user_op(void*, void*, int*, MPI_Datatype*) {}

int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
    return entry("MPI_Op_create_c", MPI_COMM_WORLD, [&] {
        if (user_fn == nullptr) fail(MPI_ERR_ARG, "user_fn is NULL");
        if (op == nullptr) fail(MPI_ERR_ARG, "op is NULL");
        auto made = std::make_shared<Op>();
        made->user = large_count_user_op;
        made->user_c = user_fn;
        made->commutative = commute != 0;
        *op = operations().add(made);
        made->handle = *op;
    });
}

int PMPI_Op_free(MPI_Op* op) {
    return entry("MPI_Op_free", MPI_COMM_WORLD, [&] {
        if (op == nullptr) fail(MPI_ERR_ARG, "op is NULL");
        const Op& found = check_op(*op);
        if (found.user == nullptr) fail(MPI_ERR_OP, op_name(found) + " is predefined and cannot be freed");
        operations().remove(*op);
        *op = MPI_OP_NULL;
    });
}

int PMPI_Op_commutative(MPI_Op op, int* commute) {
    return entry("MPI_Op_commutative", MPI_COMM_WORLD, [&] {
        const Op& found = check_op(op);
        if (commute == nullptr) fail(MPI_ERR_ARG, "commute is NULL");
        *commute = found.commutative ? 1 : 0;
    });
}

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
    return entry("MPI_Reduce_local", MPI_COMM_WORLD, [&] {
        check_count(count, "count");
        const Type& type = check_datatype(datatype);
        const Op& found = check_op(op);
        check_op_on_type(found, type);
        check_buffer(inbuf, count, type, "inbuf");
        check_buffer(inoutbuf, count, type, "inoutbuf");
        reduce_local(inbuf, inoutbuf, static_cast<std::size_t>(count), datatype, found);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Op_create)
ISVP_MPI_ALIAS(Op_create_c)
ISVP_MPI_ALIAS(Op_free)
ISVP_MPI_ALIAS(Op_commutative)
ISVP_MPI_ALIAS(Reduce_local)
