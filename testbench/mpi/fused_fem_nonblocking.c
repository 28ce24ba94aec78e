/* The nonblocking FEM call fully fused (MPIX_Iallgather_prefix_allgatherv,
 * docs/FUSED.md): the counts' allgather, the prefix sum in the CGRA and the
 * data's allgather with unequal counts that the engine starts, posted at
 * the call and completed by MPI_Wait / MPI_Test / MPI_Waitall:
 *   - the same counts, displacements and bytes as the blocking call and as
 *     the host software version (MPI_Allgather, a C prefix sum,
 *     MPI_Allgatherv), doubles and int32, unequal and empty blocks;
 *   - two requests in flight on two communicators with point-to-point, a
 *     blocking MPI_Allreduce and an MPI_Ibarrier, one MPI_Waitall in
 *     reverse order; an MPI_Test loop;
 *   - offloaded, the call returns before the collective is done;
 *   - members disagreeing on the datatype (offload on): MPI_Wait fails on
 *     every member, the next call works.
 * Argument "small" (run with collective.max_buffer_bytes=2048): the largest
 * case's blocks exceed the switch's buffer and go through software
 * (blocking path 1; the nonblocking call says 2 at the call: it is decided
 * when the block ends arrive). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isvp_fused.h"
#include "mpi_check.h"

static int offload_on(void) {
    const char* v = getenv("ISVP_MPI_OFFLOAD");
    return v == NULL || strcmp(v, "0") != 0;
}

static int block_of(int r, int s) {
    switch (s) {
        case 0: return r % 3 + 1;
        case 1: return r % 2 == 0 ? 0 : 5 + r; /* empty blocks */
        default: return 200 + 7 * r;
    }
}

static double value(int r, int j) { return r * 1000.0 + j * 0.25 + 1.0 / (j + 7); }

/* Blocking, nonblocking and host software alike; returns the blocking path. */
static int check_fem(int s, int rank, int size, MPI_Comm comm) {
    const int mine = block_of(rank, s);
    double* data = malloc(sizeof(double) * (size_t)(mine + 1));
    for (int j = 0; j < mine; ++j) data[j] = value(rank, j);
    int total = 0;
    for (int r = 0; r < size; ++r) total += block_of(r, s);
    double *a = malloc(sizeof(double) * (size_t)(total + 1)), *b = malloc(sizeof(double) * (size_t)(total + 1));
    double* ref = malloc(sizeof(double) * (size_t)(total + 1));
    int *ca = malloc(sizeof(int) * (size_t)size), *da = malloc(sizeof(int) * (size_t)size);
    int *cb = malloc(sizeof(int) * (size_t)size), *db = malloc(sizeof(int) * (size_t)size);
    int *cr = malloc(sizeof(int) * (size_t)size), *dr = malloc(sizeof(int) * (size_t)size);
    CHECK_INT(MPIX_Allgather_prefix_allgatherv(data, mine, MPI_DOUBLE, a, ca, da, comm), MPI_SUCCESS);
    const int path = MPIX_Fused_last_offloaded();
    MPI_Request request;
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data, mine, MPI_DOUBLE, b, cb, db, comm, &request), MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), path == 1 ? 2 : path); /* beyond the buffer: known only later */
    CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* Once it has completed, the nonblocking call says what the blocking one
     * does: 1 for blocks the switch's buffer could not hold. */
    CHECK_INT(MPIX_Fused_last_offloaded(), path);
    /* Host software: the counts' allgather, the prefix sum, the allgatherv. */
    CHECK_INT(MPI_Allgather(&mine, 1, MPI_INT, cr, 1, MPI_INT, comm), MPI_SUCCESS);
    for (int r = 0, at = 0; r < size; ++r) {
        dr[r] = at;
        at += cr[r];
    }
    CHECK_INT(MPI_Allgatherv(data, mine, MPI_DOUBLE, ref, cr, dr, MPI_DOUBLE, comm), MPI_SUCCESS);
    CHECK(memcmp(ca, cr, sizeof(int) * (size_t)size) == 0 && memcmp(cb, cr, sizeof(int) * (size_t)size) == 0);
    CHECK(memcmp(da, dr, sizeof(int) * (size_t)size) == 0 && memcmp(db, dr, sizeof(int) * (size_t)size) == 0);
    CHECK(memcmp(a, ref, sizeof(double) * (size_t)total) == 0);
    CHECK(memcmp(b, ref, sizeof(double) * (size_t)total) == 0);
    for (int r = 0, at = 0; r < size; ++r)
        for (int j = 0; j < block_of(r, s); ++j, ++at) CHECK(b[at] == value(r, j));
    free(data);
    free(a);
    free(b);
    free(ref);
    free(ca);
    free(da);
    free(cb);
    free(db);
    free(cr);
    free(dr);
    return path;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int offload = offload_on();
    const int small = argc > 1 && strcmp(argv[1], "small") == 0;

    for (int s = 0; s < 3; ++s)
        CHECK_INT(check_fem(s, rank, size, MPI_COMM_WORLD), offload ? (small && s == 2 ? 1 : 2) : 0);

    /* In flight with other traffic, on two communicators. */
    MPI_Comm other;
    CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &other), MPI_SUCCESS);
    MPI_Comm_set_errhandler(other, MPI_ERRORS_RETURN);
    int mine1 = rank + 1, mine2 = 3;
    int data1[64], data2[3] = {rank, -rank, 7};
    for (int j = 0; j < mine1; ++j) data1[j] = rank * 100 + j;
    int all1[64 * 65 / 2 + 1], all2[3 * 64], c1[64], d1[64], c2[64], d2[64];
    MPI_Request requests[5];
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data1, mine1, MPI_INT, all1, c1, d1, MPI_COMM_WORLD, &requests[0]),
              MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), offload ? 2 : 0);
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data2, mine2, MPI_INT, all2, c2, d2, other, &requests[1]),
              MPI_SUCCESS);
    int token_out = rank * 10, token_in = -1;
    CHECK_INT(MPI_Irecv(&token_in, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &requests[2]),
              MPI_SUCCESS);
    CHECK_INT(MPI_Isend(&token_out, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD, &requests[3]), MPI_SUCCESS);
    int one = 1, sum = 0;
    CHECK_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(sum, size);
    CHECK_INT(MPI_Ibarrier(other, &requests[4]), MPI_SUCCESS);
    MPI_Request reversed[5];
    for (int i = 0; i < 5; ++i) reversed[i] = requests[4 - i];
    CHECK_INT(MPI_Waitall(5, reversed, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_INT(token_in, ((rank + size - 1) % size) * 10);
    for (int r = 0, at = 0; r < size; ++r) {
        CHECK_INT(c1[r], r + 1);
        CHECK_INT(d1[r], at);
        for (int j = 0; j <= r; ++j) CHECK_INT(all1[at + j], r * 100 + j);
        at += r + 1;
        CHECK_INT(c2[r], 3);
        CHECK_INT(d2[r], 3 * r);
        CHECK_INT(all2[3 * r], r);
        CHECK_INT(all2[3 * r + 1], -r);
        CHECK_INT(all2[3 * r + 2], 7);
    }

    /* MPI_Test until done. */
    int flag = 0;
    long polls = 0;
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data2, mine2, MPI_INT, all2, c2, d2, other, &requests[0]),
              MPI_SUCCESS);
    while (!flag && polls < 1000000) {
        CHECK_INT(MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ++polls;
    }
    CHECK(flag);
    for (int r = 0; r < size; ++r) CHECK_INT(all2[3 * r + 1], -r);

    /* Offloaded, the call returns at once: the wait takes the collective's time. */
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    CHECK_INT(MPIX_Allgather_prefix_allgatherv(data1, mine1, MPI_INT, all1, c1, d1, MPI_COMM_WORLD), MPI_SUCCESS);
    const double blocking = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data1, mine1, MPI_INT, all1, c1, d1, MPI_COMM_WORLD, &requests[0]),
              MPI_SUCCESS);
    const double call = MPI_Wtime() - t1;
    CHECK_INT(MPI_Wait(&requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    if (rank == 0)
        printf("fused_fem_nonblocking: blocking %.3f us, nonblocking call %.3f us, call + wait %.3f us\n",
               blocking * 1e6, call * 1e6, (MPI_Wtime() - t1) * 1e6);
    if (offload) CHECK(call < blocking / 2);

    /* Members disagreeing on the datatype: the switch refuses the data's
     * allgather on every member; MPI_Wait says so, the next call works. */
    if (offload && size > 1) {
        float f[3] = {1, 2, 3};
        CHECK_INT(MPIX_Iallgather_prefix_allgatherv(rank == 0 ? (void*)data2 : (void*)f, 3,
                                                    rank == 0 ? MPI_INT : MPI_FLOAT, all2, c2, d2, other,
                                                    &requests[0]),
                  MPI_SUCCESS);
        CHECK(MPI_Wait(&requests[0], MPI_STATUS_IGNORE) != MPI_SUCCESS);
    }
    CHECK_INT(MPIX_Iallgather_prefix_allgatherv(data2, mine2, MPI_INT, all2, c2, d2, other, &requests[0]),
              MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int r = 0; r < size; ++r) CHECK_INT(all2[3 * r + 2], 7);

    CHECK_INT(MPI_Comm_free(&other), MPI_SUCCESS);
    const int status = mpi_check_done("fused_fem_nonblocking", rank);
    MPI_Finalize();
    return status;
}
