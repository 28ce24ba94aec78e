/* ring.c: the MPI program of the README's examples. A token goes once
 * round the ranks (each adds its rank), then an Allreduce and a Bcast check
 * the sum; rank 0 prints it with the simulated time (MPI_Wtime).
 *
 *   ./build/bin/isvp-mpicc -O2 docs/examples/ring.c -o ring
 *   ./build/platform/isvp run -np 8 --set topology.torus=2x2x2 ./ring
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const double start = MPI_Wtime();

    int token = 0;
    if (size > 1) {
        const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, previous, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, previous, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    const int ok = token == sum && sum == size * (size - 1) / 2;
    if (rank == 0)
        printf("ring: %d ranks, token %d, allreduce %d: %s (%.3f us simulated)\n", size, token, sum,
               ok ? "ok" : "WRONG", (MPI_Wtime() - start) * 1e6);
    MPI_Finalize();
    return ok ? 0 : 1;
}
