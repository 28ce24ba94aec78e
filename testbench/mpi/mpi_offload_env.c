/* ISVP_MPI_OFFLOAD set differently by the ranks: the job agrees at MPI_Init
 * (offload only if every rank allows it), so collectives on the world, a
 * duplicate and a split match and give the right results.
 *
 *   mpi_offload_env RANK   rank RANK sets ISVP_MPI_OFFLOAD=0 before MPI_Init
 *                          (its global rank, from ISVP_RANK)
 *
 * With ISVP_MPI_STATS=1 every rank then reports 0 calls offloaded, and rank
 * 0 says on stderr that ISVP_MPI_OFFLOAD is 0 on 1 of N ranks. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <stdlib.h>

#include "mpi_check.h"

int main(int argc, char** argv) {
    const char* launched_as = getenv("ISVP_RANK");
    if (argc > 1 && launched_as != NULL && atoi(launched_as) == atoi(argv[1])) setenv("ISVP_MPI_OFFLOAD", "0", 1);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int sum = -1, values[64];
    CHECK_INT(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(sum, size * (size - 1) / 2);

    MPI_Comm dup, half;
    CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    sum = -1;
    CHECK_INT(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup), MPI_SUCCESS);
    CHECK_INT(sum, size * (size - 1) / 2);
    for (int i = 0; i < 64; ++i) values[i] = rank == size - 1 ? i * 3 : -1;
    CHECK_INT(MPI_Bcast(values, 64, MPI_INT, size - 1, dup), MPI_SUCCESS);
    for (int i = 0; i < 64; ++i) CHECK_INT(values[i], i * 3);

    CHECK_INT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half), MPI_SUCCESS);
    int half_size = 0, maximum = -1;
    MPI_Comm_size(half, &half_size);
    CHECK_INT(MPI_Allreduce(&rank, &maximum, 1, MPI_INT, MPI_MAX, half), MPI_SUCCESS);
    CHECK_INT(maximum, (size - 1) % 2 == rank % 2 ? size - 1 : size - 2);
    CHECK_INT(MPI_Barrier(half), MPI_SUCCESS);

    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    const int status = mpi_check_done("mpi_offload_env", rank);
    MPI_Finalize();
    return status;
}
