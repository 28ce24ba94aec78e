#define _POSIX_C_SOURCE 200809L
/* Higher-order collectives (isvp_fused.h, docs/FUSED.md) against plain C
 * references: MPIX_Pgemm (C = A . B, A by column blocks, B and C by row
 * blocks) and MPIX_Spmv_band (banded y = A . x, column blocks, halo rows
 * reaching one or more neighbours), int32, int64, float and double, several sizes;
 * with offload on they run in the switch (MPIX_Hoc_last_offloaded() == 1),
 * with ISVP_MPI_HOC_THRESHOLD=0 (set here) or offload off on the host; a
 * double PGEMM with non-integer values gives the same bits on both paths
 * (offload on: both reduce-scatters are the switch's). Bad arguments are
 * refused with the MPI error class, and calls afterwards still work. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "isvp_fused.h"
#include "mpi_check.h"

static int rank, size, offload;
static MPI_Comm comm; /* the communicator under test */

/* Element `at` of a buffer of `type` (int32, int64, float, double). */
static void put(char* p, size_t at, MPI_Datatype type, int64_t v) {
    if (type == MPI_INT)
        ((int32_t*)p)[at] = (int32_t)v;
    else if (type == MPI_INT64_T)
        ((int64_t*)p)[at] = v;
    else if (type == MPI_FLOAT)
        ((float*)p)[at] = (float)v;
    else
        ((double*)p)[at] = (double)v;
}

static int64_t a_at(int i, int t) {
    return (i * 7 + t * 3) % 11 - 5;
}
static int64_t b_at(int t, int j) {
    return (t * 5 + j * 2) % 13 - 6;
}

/* elem: 4 int32, 8 int64, 0 double. scale multiplies A (int64: beyond 32 bits). */
static void pgemm_case(int m, int n, int k, MPI_Datatype type, int64_t scale, int expect_path) {
    const int kl = k / size, ml = m / size;
    const size_t e = type == MPI_INT || type == MPI_FLOAT ? 4 : 8;
    char* a = malloc(e * (size_t)(m * kl));
    char* b = malloc(e * (size_t)(kl * n));
    char* c = malloc(e * (size_t)(ml * n) + 1);
    for (int i = 0; i < m; ++i)
        for (int t = 0; t < kl; ++t) {
            const int64_t v = a_at(i, rank * kl + t) * scale;
            const size_t at = (size_t)(i * kl + t);
            put(a, at, type, v);
        }
    for (int t = 0; t < kl; ++t)
        for (int j = 0; j < n; ++j) {
            const int64_t v = b_at(rank * kl + t, j);
            const size_t at = (size_t)(t * n + j);
            put(b, at, type, v);
        }
    CHECK_INT(MPIX_Pgemm(a, b, c, m, n, k, type, comm), MPI_SUCCESS);
    CHECK_INT(MPIX_Hoc_last_offloaded(), expect_path);
    int bad = 0;
    for (int i = 0; i < ml; ++i)
        for (int j = 0; j < n; ++j) {
            int64_t want = 0;
            for (int t = 0; t < k; ++t) want += a_at(rank * ml + i, t) * scale * b_at(t, j);
            const size_t at = (size_t)(i * n + j);
            const int ok = type == MPI_INT       ? ((int32_t*)c)[at] == (int32_t)want
                           : type == MPI_INT64_T ? ((int64_t*)c)[at] == want
                           : type == MPI_FLOAT   ? ((float*)c)[at] == (float)want
                                                 : ((double*)c)[at] == (double)want;
            if (!ok && bad++ < 3) CHECK(ok);
        }
    CHECK_INT(bad, 0);
    free(a);
    free(b);
    free(c);
}

static int64_t band_at(int row, int col) {
    return (row * 3 + col * 5) % 7 - 3;
}
static int64_t x_at(int g) {
    return g % 5 - 2;
}

static void spmv_case(int cols, int w, MPI_Datatype type, int expect_path) {
    const int rows = cols * size, width = 2 * w + 1;
    const size_t e = type == MPI_INT || type == MPI_FLOAT ? 4 : 8;
    char* band = malloc(e * (size_t)(cols * width));
    char* x = malloc(e * (size_t)cols);
    char* y = malloc(e * (size_t)cols);
    for (int j = 0; j < cols; ++j) {
        const int g = rank * cols + j;
        for (int d = -w; d <= w; ++d) {
            /* rows outside the matrix: garbage the kernel must ignore */
            const int64_t v = g + d >= 0 && g + d < rows ? band_at(g + d, g) : 1000;
            const size_t at = (size_t)(j * width + w + d);
            put(band, at, type, v);
        }
        put(x, (size_t)j, type, x_at(g));
    }
    CHECK_INT(MPIX_Spmv_band(band, x, y, cols, w, type, comm), MPI_SUCCESS);
    CHECK_INT(MPIX_Hoc_last_offloaded(), expect_path);
    int bad = 0;
    for (int i = 0; i < cols; ++i) {
        const int row = rank * cols + i;
        int64_t want = 0;
        for (int col = row - w; col <= row + w; ++col)
            if (col >= 0 && col < rows) want += band_at(row, col) * x_at(col);
        const int ok = type == MPI_INT       ? ((int32_t*)y)[i] == (int32_t)want
                       : type == MPI_INT64_T ? ((int64_t*)y)[i] == want
                       : type == MPI_FLOAT   ? ((float*)y)[i] == (float)want
                                             : ((double*)y)[i] == (double)want;
        if (!ok && bad++ < 3) CHECK(ok);
    }
    CHECK_INT(bad, 0);
    free(band);
    free(x);
    free(y);
}

/* Non-integer doubles: the switch's path and the host baseline give the same bits. */
static void pgemm_double_bits(int m, int n, int k) {
    const int kl = k / size, ml = m / size;
    double* a = malloc(sizeof(double) * (size_t)(m * kl));
    double* b = malloc(sizeof(double) * (size_t)(kl * n));
    double* c1 = malloc(sizeof(double) * (size_t)(ml * n));
    double* c2 = malloc(sizeof(double) * (size_t)(ml * n));
    for (int i = 0; i < m * kl; ++i) a[i] = 0.1 * (i % 17) + rank * 0.37;
    for (int i = 0; i < kl * n; ++i) b[i] = 1.0 / (1 + i % 13) - rank * 0.11;
    CHECK_INT(MPIX_Pgemm(a, b, c1, m, n, k, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Hoc_last_offloaded(), offload);
    setenv("ISVP_MPI_HOC_THRESHOLD", "0", 1);
    CHECK_INT(MPIX_Pgemm(a, b, c2, m, n, k, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Hoc_last_offloaded(), 0);
    unsetenv("ISVP_MPI_HOC_THRESHOLD");
    CHECK(memcmp(c1, c2, sizeof(double) * (size_t)(ml * n)) == 0);
    free(a);
    free(b);
    free(c1);
    free(c2);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    comm = MPI_COMM_WORLD;
    const char* v = getenv("ISVP_MPI_OFFLOAD");
    offload = v == NULL || strcmp(v, "0") != 0;

    const MPI_Datatype types[] = {MPI_INT, MPI_INT64_T, MPI_DOUBLE, MPI_FLOAT};
    for (int t = 0; t < 4; ++t) {
        const int64_t scale = types[t] == MPI_INT64_T ? 1000000007 : 1;
        pgemm_case(size, 1, size, types[t], scale, offload);
        pgemm_case(2 * size, 5, 3 * size, types[t], scale, offload);
        pgemm_case(4 * size, 16, size, types[t], scale, offload);
        spmv_case(1, 0, types[t], offload);
        spmv_case(5, 2, types[t], offload);
        spmv_case(3, 7, types[t], offload); /* the halo spans more than one neighbour */
    }
    /* Above the threshold: the host baseline, same results. */
    setenv("ISVP_MPI_HOC_THRESHOLD", "0", 1);
    pgemm_case(2 * size, 5, 3 * size, MPI_INT, 1, 0);
    spmv_case(5, 2, MPI_DOUBLE, 0);
    unsetenv("ISVP_MPI_HOC_THRESHOLD");
    pgemm_double_bits(2 * size, 7, 2 * size);

    /* Bad arguments. */
    int one[64] = {0}, out[64];
    if (size > 1) {
        CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, out, size + 1, 1, size, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_DIMS);
        CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, out, size, 1, size + 1, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_DIMS);
    }
    CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, out, 0, 1, size, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_DIMS);
    CHECK_INT(mpi_error_class(MPIX_Pgemm(NULL, one, out, size, 1, size, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, NULL, size, 1, size, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, out, size, 1, size, MPI_CHAR, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    CHECK_INT(mpi_error_class(MPIX_Pgemm(one, one, out, size, 1, size, MPI_INT, MPI_COMM_NULL)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPIX_Spmv_band(one, one, out, 1, 256, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_DIMS);
    CHECK_INT(mpi_error_class(MPIX_Spmv_band(one, one, out, 0, 1, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_DIMS);
    CHECK_INT(mpi_error_class(MPIX_Spmv_band(one, NULL, out, 1, 1, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPIX_Spmv_band(one, one, out, 1, 1, MPI_FLOAT_INT, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    /* An ingress kernel is not a result-stream program. */
    const uint32_t gemm[] = {0xC6u << 24 | 1u << 20 | 0u << 16 | 1u << 8 | 1u, 10, 1u | 1u << 16, 1};
    MPIX_Cgra_program p;
    CHECK_INT(MPIX_Cgra_program_create(gemm, 4, &p), MPI_SUCCESS);
    CHECK_INT(mpi_error_class(MPIX_Allreduce_op(one, out, 1, MPI_INT, MPI_SUM, p, MPI_COMM_WORLD)), MPI_ERR_ARG);
    MPIX_Cgra_program_free(&p);
    /* Still working. */
    pgemm_case(2 * size, 3, size, MPI_INT, 1, offload);
    spmv_case(2, 1, MPI_INT, offload);

    /* A split communicator (odd / even world ranks, reversed): the kernels
     * use the comm rank (SPMV_BAND's columns, the blocks of C). */
    if (size >= 4) {
        const int world_rank = rank, world_size = size;
        CHECK_INT(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &comm), MPI_SUCCESS);
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        CHECK_INT(rank, (world_size - 1 - world_rank) / 2);
        pgemm_case(2 * size, 3, 2 * size, MPI_INT64_T, 3, offload);
        spmv_case(3, 4, MPI_INT, offload);
        spmv_case(4, 1, MPI_DOUBLE, offload);
        MPI_Comm_free(&comm);
        comm = MPI_COMM_WORLD;
        rank = world_rank;
        size = world_size;
    }

    const int status = mpi_check_done("hoc_collectives", rank);
    MPI_Finalize();
    return status;
}
