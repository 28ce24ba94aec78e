/* Higher-order collectives' timing (docs/PERFORMANCE.md, scripts/hoc_table.sh):
 *   hoc_bench pgemm N     C = A . B, N x N doubles (N a multiple of the size)
 *   hoc_bench spmv C W    banded SpMV, C columns per rank, half-bandwidth W
 * Two rounds, the second timed (simulated µs, the slowest rank). Prints the
 * path the call took (MPIX_Hoc_last_offloaded). */
#include <stdlib.h>
#include <string.h>

#include "isvp_fused.h"
#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int pgemm = argc > 1 && strcmp(argv[1], "pgemm") == 0;
    const int n = argc > 2 ? atoi(argv[2]) : 64;
    const int w = argc > 3 ? atoi(argv[3]) : 4;
    size_t in1, in2, out;
    if (pgemm) {
        in1 = (size_t)n * (size_t)(n / size);
        in2 = in1;
        out = in1;
    } else {
        in1 = (size_t)n * (size_t)(2 * w + 1);
        in2 = (size_t)n;
        out = (size_t)n;
    }
    double* a = malloc(sizeof(double) * in1);
    double* b = malloc(sizeof(double) * in2);
    double* c = malloc(sizeof(double) * out);
    for (size_t i = 0; i < in1; ++i) a[i] = (double)((i + (size_t)rank) % 7);
    for (size_t i = 0; i < in2; ++i) b[i] = (double)(i % 5);
    double worst = 0;
    int status = MPI_SUCCESS;
    for (int round = 0; round < 2; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        status |= pgemm ? MPIX_Pgemm(a, b, c, n, n, n, MPI_DOUBLE, MPI_COMM_WORLD)
                        : MPIX_Spmv_band(a, b, c, n, w, MPI_DOUBLE, MPI_COMM_WORLD);
        const double t = (MPI_Wtime() - t0) * 1e6;
        MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("hoc %s ranks %d n %d offloaded %d time_us %.3f\n", pgemm ? "pgemm" : "spmv", size, n,
               MPIX_Hoc_last_offloaded(), worst);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return status == MPI_SUCCESS ? 0 : 1;
}
