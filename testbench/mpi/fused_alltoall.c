/* The fully fused NAS IS pattern with the switch's own Alltoall
 * (MPIX_Allreduce_op_alltoall, docs/FUSED.md): the allreduce, the CGRA
 * program and a personalised exchange (block j of each rank's output to
 * rank j) all in the switch. Against the host software version on the same
 * run — MPI_Allreduce, the program written out in C, MPI_Alltoall — bit for
 * bit (memcmp), int32 and float, blocking and nonblocking:
 *   - path 2 (fully fused) on every size with offload on — power-of-two
 *     sizes run the hypercube exchange, others fold the ranks above the
 *     power of two onto their neighbours — 0 with offload off;
 *   - several blocks per rank (1, 3, up to the 16 KiB rule) and one array
 *     past the rule (the fallback);
 *   - members disagreeing on the count (offload on): every member gets an
 *     error, and the next fused call works. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgra_programs.h"
#include "isvp_fused.h"
#include "mpi_check.h"

static int offload_on(void) {
    const char* v = getenv("ISVP_MPI_OFFLOAD");
    return v == NULL || strcmp(v, "0") != 0;
}

/* x * 3 + rank + index (int32: MUL 3, ADD rank, ADD index). */
static void int_op(int* x, int n, int rank) {
    for (int i = 0; i < n; ++i) x[i] = (int)((unsigned)x[i] * 3u + (unsigned)rank + (unsigned)i);
}

/* x * 0.75f + rank + index (float: MUL 0.75, ADD rank, ADD index), in that order. */
static void float_op(float* x, int n, int rank) {
    for (int i = 0; i < n; ++i) {
        float v = x[i] * 0.75f;
        v = v + (float)rank;
        v = v + (float)i;
        x[i] = v;
    }
}

/* One IS call of `count` elements, fused and nonblocking, against the host
 * software version; returns the path the blocking call took. */
static int check_is(MPIX_Cgra_program program, MPI_Datatype type, int count, int rank, int size) {
    const size_t bytes = 4 * (size_t)count; /* int32 or float */
    unsigned char* local = malloc(bytes);
    unsigned char *op = malloc(bytes), *out = malloc(bytes), *op2 = malloc(bytes), *out2 = malloc(bytes);
    unsigned char *ref_op = malloc(bytes), *ref_out = malloc(bytes);
    for (int i = 0; i < count; ++i) {
        if (type == MPI_INT) {
            ((int*)local)[i] = (rank * 7 + i * 3) % 11 - 5 + (i % 5) * 100000;
        } else {
            ((float*)local)[i] = rank * 0.1f + i * 0.01f + 1.0f / (float)(i + 3);
        }
    }
    CHECK_INT(MPIX_Allreduce_op_alltoall(local, op, out, count, type, MPI_SUM, program, MPI_COMM_WORLD), MPI_SUCCESS);
    const int path = MPIX_Fused_last_offloaded();
    MPI_Request request;
    CHECK_INT(MPIX_Iallreduce_op_alltoall(local, op2, out2, count, type, MPI_SUM, program, MPI_COMM_WORLD, &request),
              MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), path);
    CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* The host software version: the same allreduce (in the switch with
     * offload on: the same fold), the program in C, a software alltoall. */
    CHECK_INT(MPI_Allreduce(local, ref_op, count, type, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    if (type == MPI_INT)
        int_op((int*)ref_op, count, rank);
    else
        float_op((float*)ref_op, count, rank);
    CHECK_INT(MPI_Alltoall(ref_op, count / size, type, ref_out, count / size, type, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(memcmp(op, ref_op, bytes) == 0);
    CHECK(memcmp(out, ref_out, bytes) == 0);
    CHECK(memcmp(op2, ref_op, bytes) == 0);
    CHECK(memcmp(out2, ref_out, bytes) == 0);
    free(local);
    free(op);
    free(out);
    free(op2);
    free(out2);
    free(ref_op);
    free(ref_out);
    return path;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int offload = offload_on();

    const uint32_t int_words[] = {cgra_head(0, 4, 3), 3, 3, 0, 1 | 1u << 8, 0, 0, 1 | 2u << 8, 0, 0};
    float three_quarters = 0.75f;
    uint32_t tq_bits;
    memcpy(&tq_bits, &three_quarters, 4);
    const uint32_t float_words[] = {cgra_head(2, 8, 3), 3, tq_bits, 0, 1 | 1u << 8, 0, 0, 1 | 2u << 8, 0, 0};
    MPIX_Cgra_program ints, floats;
    CHECK_INT(MPIX_Cgra_program_create(int_words, 10, &ints), MPI_SUCCESS);
    CHECK_INT(MPIX_Cgra_program_create(float_words, 10, &floats), MPI_SUCCESS);

    /* Blocks of 1, 3, and as many as the 16 KiB rule allows; then past it. */
    const int per_rank[] = {1, 3, 4096 / size, 4096 / size + 1};
    for (int s = 0; s < 4; ++s) {
        const int count = per_rank[s] * size;
        const int expected = offload && count * 4 <= 16384 ? 2 : 0;
        CHECK_INT(check_is(ints, MPI_INT, count, rank, size), expected);
        CHECK_INT(check_is(floats, MPI_FLOAT, count, rank, size), expected);
    }

    /* Members disagreeing on the count: an error on every member (the
     * switch refuses the allreduce), then the next call works. */
    if (offload && size > 1) {
        int a[128] = {0}, b[128], c[128];
        const int count = rank == 0 ? 2 * size : size;
        CHECK(MPIX_Allreduce_op_alltoall(a, b, c, count, MPI_INT, MPI_SUM, ints, MPI_COMM_WORLD) != MPI_SUCCESS);
        MPI_Request request;
        CHECK_INT(MPIX_Iallreduce_op_alltoall(a, b, c, count, MPI_INT, MPI_SUM, ints, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS);
    }
    CHECK_INT(check_is(ints, MPI_INT, 2 * size, rank, size), offload ? 2 : 0);

    MPIX_Cgra_program_free(&ints);
    MPIX_Cgra_program_free(&floats);
    const int status = mpi_check_done("fused_alltoall", rank);
    MPI_Finalize();
    return status;
}
