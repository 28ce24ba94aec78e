// User-defined reduction operations in every reduction collective, in C++.
//
// The non-commutative op is the 2x2 matrix product (uint32 arithmetic, mod
// 2^32): the standard requires the result a0 * a1 * ... * a(n-1) in rank
// order, which a reference computed on every rank checks, for MPI_Reduce
// (every root), MPI_Allreduce (short, and long enough for the
// reduce-scatter + allgather algorithm; in place), MPI_Reduce_scatter_block,
// MPI_Reduce_scatter with unequal counts, MPI_Scan and MPI_Exscan, on
// communicators of every size 1 .. world size (and reversed keys). The
// matrices travel in two layouts: contiguous (MPI_Type_contiguous) and
// strided with gaps (MPI_Type_vector resized), which the user function
// reads by datatype. A commutative user op (wrap-around sum) is checked too.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_check.h"

namespace {

struct Matrix {
    std::uint32_t a, b, c, d;  // [[a b] [c d]]
    bool operator==(const Matrix& o) const { return a == o.a && b == o.b && c == o.c && d == o.d; }
};

Matrix multiply(const Matrix& x, const Matrix& y) {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}

Matrix identity() {
    return {1, 0, 0, 1};
}

/// Element i of comm rank r's contribution.
Matrix contribution(int r, int i) {
    const auto u = static_cast<std::uint32_t>(r), v = static_cast<std::uint32_t>(i);
    return {1 + u, v + 2, 3 * u + 1 + v, 1 + (u ^ v)};
}

/// Ranks first..last in order.
Matrix product(int first, int last, int i) {
    Matrix m = identity();
    for (int r = first; r <= last; ++r) m = multiply(m, contribution(r, i));
    return m;
}

// The strided layout: a b _ c d _ (uint32 words), extent 24 bytes.
MPI_Datatype strided_type = MPI_DATATYPE_NULL;
MPI_Datatype contiguous_type = MPI_DATATYPE_NULL;
constexpr int kStridedWords = 6;

/// A buffer of matrices in one of the two layouts.
struct Layout {
    MPI_Datatype type;
    int words;  // uint32 words per element (extent / 4)
    std::size_t offset(int part) const { return words == 4 ? part : part < 2 ? part : part + 1; }
    Matrix get(const std::vector<std::uint32_t>& buffer, int i) const {
        const std::uint32_t* e = buffer.data() + static_cast<std::size_t>(i) * words;
        return {e[offset(0)], e[offset(1)], e[offset(2)], e[offset(3)]};
    }
    void put(std::vector<std::uint32_t>& buffer, int i, const Matrix& m) const {
        std::uint32_t* e = buffer.data() + static_cast<std::size_t>(i) * words;
        e[offset(0)] = m.a;
        e[offset(1)] = m.b;
        e[offset(2)] = m.c;
        e[offset(3)] = m.d;
    }
    std::vector<std::uint32_t> make(int n) const {
        // Gaps hold a marker the user function must never see in a result.
        return std::vector<std::uint32_t>(static_cast<std::size_t>(n) * words + 1, 0xDEADBEEFu);
    }
};

extern "C" void matrix_product(void* in, void* inout, int* len, MPI_Datatype* type) {
    const Layout layout{*type, *type == strided_type ? kStridedWords : 4};
    const auto* x = static_cast<const std::uint32_t*>(in);
    auto* y = static_cast<std::uint32_t*>(inout);
    for (int i = 0; i < *len; ++i) {
        const std::uint32_t* a = x + static_cast<std::size_t>(i) * layout.words;
        std::uint32_t* b = y + static_cast<std::size_t>(i) * layout.words;
        const Matrix left{a[layout.offset(0)], a[layout.offset(1)], a[layout.offset(2)], a[layout.offset(3)]};
        const Matrix right{b[layout.offset(0)], b[layout.offset(1)], b[layout.offset(2)], b[layout.offset(3)]};
        const Matrix m = multiply(left, right);
        b[layout.offset(0)] = m.a;
        b[layout.offset(1)] = m.b;
        b[layout.offset(2)] = m.c;
        b[layout.offset(3)] = m.d;
    }
}

extern "C" void wrapping_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    const auto* x = static_cast<const std::uint32_t*>(in);
    auto* y = static_cast<std::uint32_t*>(inout);
    for (int i = 0; i < *len; ++i) y[i] += x[i];
}

std::string where;  // the communicator and layout under test

void expect(const char* call, const Layout& layout, const std::vector<std::uint32_t>& got, int n, int first_element,
            int first_rank, int last_rank) {
    for (int i = 0; i < n; ++i)
        if (!(layout.get(got, i) == product(first_rank, last_rank, first_element + i))) {
            ++mpi_check_failures;
            std::fprintf(stderr, "FAIL rank %d: %s on %s: element %d is not the product of ranks %d..%d in order\n",
                         mpi_check_rank(), call, where.c_str(), i, first_rank, last_rank);
            return;
        }
}

void ok(int code, const char* call) {
    if (code == MPI_SUCCESS) return;
    ++mpi_check_failures;
    std::fprintf(stderr, "FAIL rank %d: %s on %s returned error class %d\n", mpi_check_rank(), call, where.c_str(),
                 mpi_error_class(code));
}

void non_commutative(MPI_Comm comm, MPI_Op op, const Layout& layout) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    // 5 matrices: the short algorithms; 300 (4.8 KiB packed): the long ones.
    for (const int n : {5, 300}) {
        std::vector<std::uint32_t> send = layout.make(n * size), recv = layout.make(n * size);
        for (int i = 0; i < n * size; ++i) layout.put(send, i, contribution(rank, i));

        for (const int root : {0, size / 2, size - 1}) {
            recv = layout.make(n);
            ok(MPI_Reduce(send.data(), recv.data(), n, layout.type, op, root, comm), "MPI_Reduce");
            if (rank == root) expect("MPI_Reduce", layout, recv, n, 0, 0, size - 1);
        }
        recv = layout.make(n);
        ok(MPI_Allreduce(send.data(), recv.data(), n, layout.type, op, comm), "MPI_Allreduce");
        expect("MPI_Allreduce", layout, recv, n, 0, 0, size - 1);
        recv = send;
        ok(MPI_Allreduce(MPI_IN_PLACE, recv.data(), n, layout.type, op, comm), "MPI_Allreduce in place");
        expect("MPI_Allreduce in place", layout, recv, n, 0, 0, size - 1);

        recv = layout.make(n);
        ok(MPI_Reduce_scatter_block(send.data(), recv.data(), n, layout.type, op, comm), "MPI_Reduce_scatter_block");
        expect("MPI_Reduce_scatter_block", layout, recv, n, rank * n, 0, size - 1);

        std::vector<int> counts(static_cast<std::size_t>(size));
        int start = 0;
        for (int r = 0; r < size; ++r) {
            counts[static_cast<std::size_t>(r)] = (r * 7 + n) % (n + 1);  // some zero, all <= n
            if (r < rank) start += counts[static_cast<std::size_t>(r)];
        }
        recv = layout.make(n);
        ok(MPI_Reduce_scatter(send.data(), recv.data(), counts.data(), layout.type, op, comm), "MPI_Reduce_scatter");
        expect("MPI_Reduce_scatter", layout, recv, counts[static_cast<std::size_t>(rank)], start, 0, size - 1);

        recv = layout.make(n);
        ok(MPI_Scan(send.data(), recv.data(), n, layout.type, op, comm), "MPI_Scan");
        expect("MPI_Scan", layout, recv, n, 0, 0, rank);
        recv = layout.make(n);
        ok(MPI_Exscan(send.data(), recv.data(), n, layout.type, op, comm), "MPI_Exscan");
        if (rank > 0) expect("MPI_Exscan", layout, recv, n, 0, 0, rank - 1);
        recv = send;
        ok(MPI_Exscan(MPI_IN_PLACE, recv.data(), n, layout.type, op, comm), "MPI_Exscan in place");
        if (rank > 0) expect("MPI_Exscan in place", layout, recv, n, 0, 0, rank - 1);
    }
}

void commutative(MPI_Comm comm, MPI_Op op) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 777;
    std::vector<std::uint32_t> send(n), recv(n);
    for (int i = 0; i < n; ++i) send[static_cast<std::size_t>(i)] = 0xF0000000u + static_cast<std::uint32_t>(rank * i);
    ok(MPI_Allreduce(send.data(), recv.data(), n, MPI_UINT32_T, op, comm), "MPI_Allreduce (commutative user op)");
    for (int i = 0; i < n; ++i) {
        std::uint32_t want = 0;
        for (int r = 0; r < size; ++r) want += 0xF0000000u + static_cast<std::uint32_t>(r * i);
        if (recv[static_cast<std::size_t>(i)] != want) {
            ++mpi_check_failures;
            std::fprintf(stderr, "FAIL rank %d: commutative user op on %s: element %d\n", mpi_check_rank(),
                         where.c_str(), i);
            break;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Type_contiguous(4, MPI_UINT32_T, &contiguous_type);
    MPI_Type_commit(&contiguous_type);
    MPI_Datatype vector;
    MPI_Type_vector(2, 2, 3, MPI_UINT32_T, &vector);  // a b _ c d
    MPI_Type_create_resized(vector, 0, kStridedWords * 4, &strided_type);
    MPI_Type_commit(&strided_type);
    MPI_Type_free(&vector);

    MPI_Op product_op, sum_op;
    MPI_Op_create(matrix_product, 0, &product_op);
    MPI_Op_create(wrapping_sum, 1, &sum_op);
    int commute = -1;
    MPI_Op_commutative(product_op, &commute);
    CHECK_INT(commute, 0);

    const Layout layouts[] = {{contiguous_type, 4}, {strided_type, kStridedWords}};
    // Every size 1 .. size: the first k ranks and the rest; then reversed keys.
    for (int k = 1; k <= size; ++k) {
        MPI_Comm comm;
        if (k == size)
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        else
            MPI_Comm_split(MPI_COMM_WORLD, rank < k, rank, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        int comm_size;
        MPI_Comm_size(comm, &comm_size);
        for (const Layout& layout : layouts) {
            where = std::to_string(comm_size) + " ranks, " + (layout.words == 4 ? "contiguous" : "strided");
            non_commutative(comm, product_op, layout);
        }
        where = std::to_string(comm_size) + " ranks";
        commutative(comm, sum_op);
        MPI_Comm_free(&comm);
    }
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_set_errhandler(reversed, MPI_ERRORS_RETURN);
    where = "reversed keys, strided";
    non_commutative(reversed, product_op, layouts[1]);
    MPI_Comm_free(&reversed);

    MPI_Op_free(&product_op);
    MPI_Op_free(&sum_op);
    MPI_Type_free(&contiguous_type);
    MPI_Type_free(&strided_type);
    MPI_Finalize();
    return mpi_check_done("coll_user_ops", rank);
}
