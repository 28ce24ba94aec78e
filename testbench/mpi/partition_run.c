/* A guest MPI program for `isvp run --partitions P` (docs/PARTITIONS.md):
 * point-to-point around a ring and collectives of 8 bytes to 64 KiB
 * (offloaded where the switch runs them), then every rank prints one line
 * with a digest of what it received and the simulated time (MPI_Wtime) at
 * each step. CTest runs it with 1 and 2 partitions and compares the lines
 * (sorted: ranks of different partitions print through different
 * processes) and the merged --stats. `partition_run ROUNDS` repeats the
 * exchanges ROUNDS times (a long job for the killed-partition test). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { MAX_COUNT = 16384 }; /* 64 KiB of int32 */

static uint64_t digest = 1469598103934665603ull; /* FNV-1a over every byte received */

static void absorb(const void* data, size_t bytes) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t i = 0; i < bytes; ++i) digest = (digest ^ p[i]) * 1099511628211ull;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t* send = malloc(sizeof(int32_t) * MAX_COUNT * (size_t)size);
    int32_t* recv = malloc(sizeof(int32_t) * MAX_COUNT * (size_t)size);
    CHECK(send != NULL && recv != NULL);
    for (int i = 0; i < MAX_COUNT * size; ++i) send[i] = rank * 7919 + i;
    const long rounds = argc > 1 ? atol(argv[1]) : 1;
    double times[4 * 3];
    int step = 0;
    const int counts[] = {2, 1024, MAX_COUNT}; /* 8 B, 4 KiB, 64 KiB */
    for (int c = 0; c < 3 * rounds; ++c) {
        if (c % 3 == 0) step = 0;
        const int count = counts[c % 3];
        /* Ring: send right, receive from the left. */
        MPI_Sendrecv(send, count, MPI_INT32_T, (rank + 1) % size, 1, recv, count, MPI_INT32_T, (rank + size - 1) % size,
                     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        absorb(recv, sizeof(int32_t) * (size_t)count);
        times[step++] = MPI_Wtime();
        MPI_Allreduce(send, recv, count, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
        absorb(recv, sizeof(int32_t) * (size_t)count);
        times[step++] = MPI_Wtime();
        memcpy(recv, send, sizeof(int32_t) * (size_t)count);
        MPI_Bcast(recv, count, MPI_INT32_T, size - 1, MPI_COMM_WORLD);
        absorb(recv, sizeof(int32_t) * (size_t)count);
        times[step++] = MPI_Wtime();
        MPI_Allgather(send, count / 2, MPI_INT32_T, recv, count / 2, MPI_INT32_T, MPI_COMM_WORLD);
        absorb(recv, sizeof(int32_t) * (size_t)(count / 2) * (size_t)size);
        times[step++] = MPI_Wtime();
    }
    printf("rank %d digest %016llx times_us", rank, (unsigned long long)digest);
    for (int i = 0; i < step; ++i) printf(" %.6f", times[i] * 1e6);
    printf("\n");
    free(send);
    free(recv);
    const int status = mpi_check_done("partition_run", rank);
    MPI_Finalize();
    return status;
}
