/* Collectives around the switch's buffer limit (collective.max_buffer_bytes,
 * which the driver reads from ACCEL_MAX_BUFFER_BYTES): a call whose buffer
 * (all blocks) fits may run in the switch, one element more runs in
 * software — the same results either way, never the switch's error 4.
 *
 *   mpi_switch_buffer_limit LIMIT        every offloadable collective at
 *                                        LIMIT bytes, then one element over
 *   mpi_switch_buffer_limit LIMIT bcast  only an MPI_Bcast of LIMIT + 1 bytes
 *
 * LIMIT is the value given to --set collective.max_buffer_bytes (or the
 * default, 64 MiB); it must be a multiple of 4 x the number of ranks. With
 * ISVP_MPI_STATS=1 every rank reports 7 of 14 calls offloaded (offload on). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int rank, size;

static unsigned char pattern(size_t i, int seed) {
    return (unsigned char)(i * 7 + (size_t)seed * 13 + (i >> 9));
}

/* MPI_Bcast of `bytes` from the last rank. */
static void bcast(size_t bytes) {
    const int root = size - 1;
    unsigned char* buffer = malloc(bytes);
    for (size_t i = 0; i < bytes; ++i) buffer[i] = rank == root ? pattern(i, root) : 0;
    CHECK_INT(MPI_Bcast(buffer, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD), MPI_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; ++i) wrong += buffer[i] != pattern(i, root);
    CHECK_INT(wrong, 0);
    free(buffer);
}

/* MPI_Allreduce and MPI_Reduce (root 0) of `count` ints, SUM. */
static void reductions(size_t count) {
    int32_t* send = malloc(count * sizeof *send);
    int32_t* recv = malloc(count * sizeof *recv);
    for (size_t i = 0; i < count; ++i) send[i] = (int32_t)(i % 1000003) + rank;
    const int32_t ranks_sum = size * (size - 1) / 2;
    CHECK_INT(MPI_Allreduce(send, recv, (int)count, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) wrong += recv[i] != size * (int32_t)(i % 1000003) + ranks_sum;
    CHECK_INT(wrong, 0);
    memset(recv, 0, count * sizeof *recv);
    CHECK_INT(MPI_Reduce(send, recv, (int)count, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    wrong = 0;
    if (rank == 0)
        for (size_t i = 0; i < count; ++i) wrong += recv[i] != size * (int32_t)(i % 1000003) + ranks_sum;
    CHECK_INT(wrong, 0);
    free(send);
    free(recv);
}

/* MPI_Reduce_scatter_block of `block` ints per rank, SUM. */
static void reduce_scatter(size_t block) {
    const size_t count = block * (size_t)size;
    int32_t* send = malloc(count * sizeof *send);
    int32_t* recv = malloc(block * sizeof *recv);
    for (size_t i = 0; i < count; ++i) send[i] = (int32_t)i + rank;
    CHECK_INT(MPI_Reduce_scatter_block(send, recv, (int)block, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < block; ++i)
        wrong += recv[i] != size * (int32_t)(block * (size_t)rank + i) + size * (size - 1) / 2;
    CHECK_INT(wrong, 0);
    free(send);
    free(recv);
}

/* MPI_Scatter (root 0), MPI_Gather (root 0), MPI_Allgather of `block` bytes per rank. */
static void movement(size_t block) {
    const size_t all = block * (size_t)size;
    unsigned char* whole = malloc(all);
    unsigned char* mine = malloc(block);
    for (size_t i = 0; i < all; ++i) whole[i] = pattern(i, 0);
    CHECK_INT(MPI_Scatter(whole, (int)block, MPI_BYTE, mine, (int)block, MPI_BYTE, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < block; ++i) wrong += mine[i] != pattern(block * (size_t)rank + i, 0);
    CHECK_INT(wrong, 0);

    for (size_t i = 0; i < block; ++i) mine[i] = pattern(i, rank + 1);
    memset(whole, 0, all);
    CHECK_INT(MPI_Gather(mine, (int)block, MPI_BYTE, whole, (int)block, MPI_BYTE, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    wrong = 0;
    if (rank == 0)
        for (size_t i = 0; i < all; ++i) wrong += whole[i] != pattern(i % block, (int)(i / block) + 1);
    CHECK_INT(wrong, 0);

    memset(whole, 0, all);
    CHECK_INT(MPI_Allgather(mine, (int)block, MPI_BYTE, whole, (int)block, MPI_BYTE, MPI_COMM_WORLD), MPI_SUCCESS);
    wrong = 0;
    for (size_t i = 0; i < all; ++i) wrong += whole[i] != pattern(i % block, (int)(i / block) + 1);
    CHECK_INT(wrong, 0);
    free(whole);
    free(mine);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t limit = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 0;
    CHECK(limit > 0 && limit % (4 * (size_t)size) == 0);
    if (argc > 2 && strcmp(argv[2], "bcast") == 0) {
        bcast(limit + 1);
    } else if (limit > 0) {
        for (int over = 0; over <= 1; ++over) { /* at the limit, then one element more */
            bcast(limit + (size_t)over);
            reductions(limit / 4 + (size_t)over);
            reduce_scatter(limit / 4 / (size_t)size + (size_t)over);
            movement(limit / (size_t)size + (size_t)over);
        }
    }
    const int status = mpi_check_done("mpi_switch_buffer_limit", rank);
    MPI_Finalize();
    return status;
}
