/* Nonblocking fused collectives (isvp_fused.h MPIX_I..., docs/FUSED.md):
 *   - each MPIX_I... call gives the same bytes as its blocking form and
 *     takes the same path (MPIX_Fused_last_offloaded), offloaded (small op
 *     arrays, offload on) and in the fallback (large arrays, offload off);
 *   - requests overlap other traffic: two fused calls in flight on two
 *     communicators, user point-to-point, a blocking Allreduce and an
 *     Ibarrier on the same communicator, completed by MPI_Waitall in reverse
 *     order; the program freed before the wait; MPI_Test until done;
 *   - offloaded, the call returns before the collective is done;
 *   - errors: bad arguments refused at the call (MPI_ERR_ARG, _TYPE,
 *     _COUNT), and (offload on) members that disagree on the count get an
 *     error from MPI_Wait on every rank, and the next call works. */
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

/* A program on doubles: x * 0.5 + element index. */
static MPIX_Cgra_program double_program(void) {
    double half = 0.5;
    uint64_t bits;
    memcpy(&bits, &half, 8);
    const uint32_t words[] = {cgra_head(3, 2, 2), 3, (uint32_t)bits, (uint32_t)(bits >> 32), 1 | 2u << 8, 0, 0};
    MPIX_Cgra_program p = MPIX_CGRA_PROGRAM_NULL;
    CHECK_INT(MPIX_Cgra_program_create(words, 7, &p), MPI_SUCCESS);
    return p;
}

static void fill_ints(int* v, int n, int rank) {
    for (int i = 0; i < n; ++i) v[i] = (rank * 7 + i * 3) % 11;
}

static void fill_doubles(double* v, int n, int rank) {
    for (int i = 0; i < n; ++i) v[i] = rank * 0.1 + i * 1e-3 + 1.0 / (i + 3);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int offload = offload_on();
    MPIX_Cgra_program is = cgra_is_program(), dbl = double_program();
    MPI_Request request;

    /* IS: Allreduce -> op -> Alltoall, blocking and nonblocking alike. */
    const int per_rank[] = {1, 16, 1100};
    for (int s = 0; s < 3; ++s) {
        const int count = per_rank[s] * size;
        int* local = malloc(sizeof(int) * (size_t)count);
        int *op1 = malloc(sizeof(int) * (size_t)count), *out1 = malloc(sizeof(int) * (size_t)count);
        int *op2 = malloc(sizeof(int) * (size_t)count), *out2 = malloc(sizeof(int) * (size_t)count);
        fill_ints(local, count, rank);
        CHECK_INT(MPIX_Allreduce_op_alltoall(local, op1, out1, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        const int path = MPIX_Fused_last_offloaded();
        CHECK_INT(path, offload && count * 4 <= 16384 ? 2 : 0);
        CHECK_INT(MPIX_Iallreduce_op_alltoall(local, op2, out2, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        CHECK_INT(MPIX_Fused_last_offloaded(), path);
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(request == MPI_REQUEST_NULL);
        CHECK(memcmp(op1, op2, sizeof(int) * (size_t)count) == 0);
        CHECK(memcmp(out1, out2, sizeof(int) * (size_t)count) == 0);
        free(local);
        free(op1);
        free(out1);
        free(op2);
        free(out2);
    }

    /* Semi-fused Allreduce on doubles (offloaded when small) and Allgather, bit for bit. */
    const int dcounts[] = {5, 3000};
    for (int s = 0; s < 2; ++s) {
        const int n = dcounts[s];
        double* in = malloc(sizeof(double) * (size_t)n * (size_t)size);
        double* a = malloc(sizeof(double) * (size_t)n * (size_t)size);
        double* b = malloc(sizeof(double) * (size_t)n * (size_t)size);
        fill_doubles(in, n, rank);
        CHECK_INT(MPIX_Allreduce_op(in, a, n, MPI_DOUBLE, MPI_SUM, dbl, MPI_COMM_WORLD), MPI_SUCCESS);
        int path = MPIX_Fused_last_offloaded();
        CHECK_INT(path, offload && n * 8 <= 16384);
        CHECK_INT(MPIX_Iallreduce_op(in, b, n, MPI_DOUBLE, MPI_SUM, dbl, MPI_COMM_WORLD, &request), MPI_SUCCESS);
        CHECK_INT(MPIX_Fused_last_offloaded(), path);
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(memcmp(a, b, sizeof(double) * (size_t)n) == 0);
        CHECK_INT(MPIX_Allgather_op(in, a, n, MPI_DOUBLE, dbl, MPI_COMM_WORLD), MPI_SUCCESS);
        path = MPIX_Fused_last_offloaded();
        CHECK_INT(MPIX_Iallgather_op(in, b, n, MPI_DOUBLE, dbl, MPI_COMM_WORLD, &request), MPI_SUCCESS);
        CHECK_INT(MPIX_Fused_last_offloaded(), path);
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(memcmp(a, b, sizeof(double) * (size_t)n * (size_t)size) == 0);
        free(in);
        free(a);
        free(b);
    }

    /* FEM: Allgather -> prefix sum -> Allgatherv. */
    for (int s = 0; s < 2; ++s) {
        const int mine = s == 0 ? rank % 3 + 1 : 600 + rank;
        double* data = malloc(sizeof(double) * (size_t)mine);
        for (int j = 0; j < mine; ++j) data[j] = rank * 1000.0 + j * 0.25;
        int total = 0;
        for (int r = 0; r < size; ++r) total += s == 0 ? r % 3 + 1 : 600 + r;
        double* all1 = malloc(sizeof(double) * (size_t)total);
        double* all2 = malloc(sizeof(double) * (size_t)total);
        int *c1 = malloc(sizeof(int) * (size_t)size), *d1 = malloc(sizeof(int) * (size_t)size);
        int *c2 = malloc(sizeof(int) * (size_t)size), *d2 = malloc(sizeof(int) * (size_t)size);
        CHECK_INT(MPIX_Allgather_prefix_allgatherv(data, mine, MPI_DOUBLE, all1, c1, d1, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        const int path = MPIX_Fused_last_offloaded();
        CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data, mine, MPI_DOUBLE, all2, c2, d2, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        /* Both fully fused: the engine starts the Allgatherv. */
        CHECK_INT(path, offload ? 2 : 0);
        CHECK_INT(MPIX_Fused_last_offloaded(), path);
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(memcmp(c1, c2, sizeof(int) * (size_t)size) == 0);
        CHECK(memcmp(d1, d2, sizeof(int) * (size_t)size) == 0);
        CHECK(memcmp(all1, all2, sizeof(double) * (size_t)total) == 0);
        int at = 0;
        for (int r = 0; r < size; ++r) {
            const int n = s == 0 ? r % 3 + 1 : 600 + r;
            CHECK_INT(c2[r], n);
            CHECK_INT(d2[r], at);
            for (int j = 0; j < n; ++j) CHECK(all2[at + j] == r * 1000.0 + j * 0.25);
            at += n;
        }
        free(data);
        free(all1);
        free(all2);
        free(c1);
        free(d1);
        free(c2);
        free(d2);
    }

    /* Overlap: fused calls in flight with other traffic. */
    {
        MPI_Comm other;
        CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &other), MPI_SUCCESS);
        MPIX_Cgra_program temporary = cgra_is_program();
        const int count = 4 * size;
        int local[4 * 64], op[4 * 64], out[4 * 64], ref_op[4 * 64], ref_out[4 * 64];
        int values[3] = {rank, rank + 1, rank + 2}, gathered[3 * 64], ref_gathered[3 * 64];
        fill_ints(local, count, rank);
        CHECK_INT(MPIX_Allreduce_op_alltoall(local, ref_op, ref_out, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        CHECK_INT(MPIX_Allgather_op(values, ref_gathered, 3, MPI_INT, is, other), MPI_SUCCESS);

        MPI_Request requests[6];
        CHECK_INT(MPIX_Iallreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, temporary, MPI_COMM_WORLD,
                                              &requests[0]),
                  MPI_SUCCESS);
        CHECK_INT(MPIX_Cgra_program_free(&temporary), MPI_SUCCESS); /* the request keeps its copy */
        CHECK_INT(MPIX_Iallgather_op(values, gathered, 3, MPI_INT, is, other, &requests[1]), MPI_SUCCESS);
        int token_out = rank * 100, token_in = -1;
        CHECK_INT(MPI_Irecv(&token_in, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &requests[2]),
                  MPI_SUCCESS);
        CHECK_INT(MPI_Isend(&token_out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &requests[3]), MPI_SUCCESS);
        int one = 1, sum = 0;
        CHECK_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_INT(sum, size);
        CHECK_INT(MPI_Ibarrier(MPI_COMM_WORLD, &requests[4]), MPI_SUCCESS);
        int x = rank + 1, y = 0;
        CHECK_INT(MPIX_Iallreduce_op(&x, &y, 1, MPI_INT, MPI_SUM, is, other, &requests[5]), MPI_SUCCESS);
        MPI_Request reversed[6];
        for (int i = 0; i < 6; ++i) reversed[i] = requests[5 - i];
        CHECK_INT(MPI_Waitall(6, reversed, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK(memcmp(op, ref_op, sizeof(int) * (size_t)count) == 0);
        CHECK(memcmp(out, ref_out, sizeof(int) * (size_t)count) == 0);
        CHECK(memcmp(gathered, ref_gathered, sizeof(int) * 3 * (size_t)size) == 0);
        CHECK_INT(token_in, ((rank + size - 1) % size) * 100);
        CHECK_INT(y, size * (size + 1) / 2 * 3 + rank);

        /* MPI_Test until done. */
        int flag = 0, polls = 0;
        CHECK_INT(MPIX_Iallreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        while (!flag && polls < 1000000) {
            CHECK_INT(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
            ++polls;
        }
        CHECK(flag);
        CHECK(memcmp(out, ref_out, sizeof(int) * (size_t)count) == 0);

        /* Offloaded, the call returns at once: the wait takes the collective's time. */
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        CHECK_INT(MPIX_Allreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        const double blocking = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t1 = MPI_Wtime();
        CHECK_INT(MPIX_Iallreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        const double call = MPI_Wtime() - t1;
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        const double total = MPI_Wtime() - t1;
        if (rank == 0)
            printf("fused_nonblocking: blocking %.3f us, nonblocking call %.3f us, call + wait %.3f us\n",
                   blocking * 1e6, call * 1e6, total * 1e6);
        if (offload) CHECK(call < blocking / 2);
        CHECK_INT(MPI_Comm_free(&other), MPI_SUCCESS);
    }

    /* Errors at the call. */
    int a[64] = {0}, b[64], c[64], counts[64], displs[64];
    CHECK_INT(MPIX_Iallreduce_op(a, b, 4, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_INT(MPIX_Iallreduce_op(a, b, 4, MPI_INT, MPI_SUM, MPIX_CGRA_PROGRAM_NULL, MPI_COMM_WORLD, &request),
              MPI_ERR_ARG);
    CHECK_INT(MPIX_Iallgather_op(a, b, 1, MPI_DOUBLE, is, MPI_COMM_WORLD, &request), MPI_ERR_TYPE);
    CHECK_INT(MPIX_Iallreduce_op(a, b, -1, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request), MPI_ERR_COUNT);
    CHECK_INT(MPIX_Iallreduce_op_alltoall(a, b, c, size + 1, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request),
              MPI_ERR_COUNT);
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_COMM_WORLD, &request),
              MPI_ERR_ARG);
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(a, -2, MPI_INT, b, counts, displs, MPI_COMM_WORLD, &request),
              MPI_ERR_COUNT);
    CHECK_INT(MPIX_Iallreduce_op(a, b, 4, MPI_INT, MPI_SUM, is, MPI_COMM_NULL, &request), MPI_ERR_COMM);
    /* Members disagreeing on the count: the switch refuses the collective on
     * every member, MPI_Wait says so, and the communicator goes on. */
    if (offload && size > 1) {
        CHECK_INT(MPIX_Iallreduce_op(a, b, rank == 0 ? 4 : 8, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request),
                  MPI_SUCCESS);
        CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS);
    }
    for (int i = 0; i < 4; ++i) a[i] = i;
    CHECK_INT(MPIX_Iallreduce_op(a, b, 4, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &request), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), offload);
    int running = 0;
    for (int i = 0; i < 4; ++i) {
        running += i * size * 3 + rank;
        CHECK_INT(b[i], running);
    }

    MPIX_Cgra_program_free(&is);
    MPIX_Cgra_program_free(&dbl);
    const int status = mpi_check_done("fused_nonblocking", rank);
    MPI_Finalize();
    return status;
}
