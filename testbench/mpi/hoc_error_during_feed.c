/* An offloaded PGEMM whose members disagree (rank 0 passes MPI_DOUBLE, the
 * others MPI_INT64_T: the same kernel shape, a different datatype) fails in
 * the switch's argument agreement 0.5 µs into the call, while the ingress
 * kernel (m = n = 128, k = 512 per rank: 4 µs of kernel time per packet of
 * output) is still feeding its output into the reduce-scatter. The engine
 * ends the feed with the collective; the host gets the error, and its next
 * requests (the barrier, then a correct PGEMM, with offload on) must run in
 * the switch and give the reference result: nothing of the failed request
 * is waited for or taken from them (docs/FUSED.md). */
#include <stdint.h>
#include <stdlib.h>

#include "isvp_fused.h"
#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int m = 128, n = 128, k = 512 * size, kl = k / size, ml = m / size;
    double* a = malloc(sizeof(double) * (size_t)(m * kl));
    double* b = malloc(sizeof(double) * (size_t)(kl * n));
    double* c = malloc(sizeof(double) * (size_t)(ml * n));
    for (int i = 0; i < m; ++i)
        for (int t = 0; t < kl; ++t) a[i * kl + t] = (double)((i + rank * kl + t) % 3);
    for (int t = 0; t < kl; ++t)
        for (int j = 0; j < n; ++j) b[t * n + j] = (double)((rank * kl + t + j) % 2);
    const int bad = MPIX_Pgemm(a, b, c, m, n, k, rank == 0 ? MPI_DOUBLE : MPI_INT64_T, MPI_COMM_WORLD);
    CHECK(bad != MPI_SUCCESS);
    CHECK_INT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Pgemm(a, b, c, m, n, k, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Hoc_last_offloaded(), 1);
    int wrong = 0;
    for (int i = 0; i < ml; ++i)
        for (int j = 0; j < n; ++j) {
            double want = 0;
            for (int t = 0; t < k; ++t) want += (double)((rank * ml + i + t) % 3) * (double)((t + j) % 2);
            wrong += c[i * n + j] != want;
        }
    CHECK_INT(wrong, 0);
    free(a);
    free(b);
    free(c);
    const int status = mpi_check_done("hoc_error_during_feed", rank);
    MPI_Finalize();
    return status;
}
