/* Simulated time of the two SmartFuse patterns (docs/PERFORMANCE.md,
 * "SmartFuse fused collectives"): fused_bench is|fem ELEMENTS prints the
 * slowest rank's time of one call (after a warm-up call) in microseconds,
 * and "check ok" when every rank's results equal a plain C reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isvp_fused.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int is = argc > 1 && strcmp(argv[1], "is") == 0;
    const int per_rank = argc > 2 ? atoi(argv[2]) : 4;
    const uint32_t words[] = {0xC6u << 24 | 1u << 20 | 0u << 16 | 4u << 8 | 3u, 3, 3, 0, 1 | 1u << 8, 0, 0, 6, 0, 0};
    MPIX_Cgra_program program;
    MPIX_Cgra_program_create(words, 10, &program);
    const int count = per_rank * size;
    int* local = malloc(sizeof(int) * (size_t)count);
    int* op = malloc(sizeof(int) * (size_t)count);
    int* out = malloc(sizeof(int) * (size_t)count);
    double* data = malloc(sizeof(double) * (size_t)per_rank);
    double* all = malloc(sizeof(double) * (size_t)count);
    int* counts = malloc(sizeof(int) * (size_t)size);
    int* displs = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < count; ++i) local[i] = (rank + i) % 7;
    for (int i = 0; i < per_rank; ++i) data[i] = i;
    double worst = 0;
    for (int round = 0; round < 2; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (is)
            MPIX_Allreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, program, MPI_COMM_WORLD);
        else
            MPIX_Allgather_prefix_allgatherv(data, per_rank, MPI_DOUBLE, all, counts, displs, MPI_COMM_WORLD);
        const double t = (MPI_Wtime() - t0) * 1e6;
        MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    /* The results against plain C references (every path must give them). */
    int bad = 0;
    if (is) {
        for (int r = 0; r < size; ++r) {
            int running = 0;
            for (int i = 0; i < count; ++i) {
                int total = 0;
                for (int q = 0; q < size; ++q) total += (q + i) % 7;
                running += total * 3 + r;
                if (r == rank) bad += op[i] != running;
                if (i / per_rank == rank) bad += out[r * per_rank + i % per_rank] != running;
            }
        }
    } else {
        for (int r = 0; r < size; ++r) {
            bad += counts[r] != per_rank || displs[r] != r * per_rank;
            for (int i = 0; i < per_rank; ++i) bad += all[r * per_rank + i] != i;
        }
    }
    int bad_total = 0;
    MPI_Reduce(&bad, &bad_total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fused %s ranks %d elements %d offloaded %d time_us %.3f check %s\n", is ? "is" : "fem", size,
               per_rank, MPIX_Fused_last_offloaded(), worst, bad_total ? "FAILED" : "ok");
    MPIX_Cgra_program_free(&program);
    MPI_Finalize();
    return rank == 0 && bad_total ? 1 : 0;
}
