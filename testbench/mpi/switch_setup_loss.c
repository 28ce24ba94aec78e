/* Tree set-up under lost packets (collective.placement = switch or
 * collective.mode = sharp; docs/COLLECTIVES.md, "Link faults through the
 * switch engines"):
 *
 *   switch_setup_loss [COMMUNICATORS]
 *       COMMUNICATORS times (default 24): an MPI_Comm_dup of the world, one
 *       MPI_Allreduce of 2 ints (SUM) on it, checked, then MPI_Comm_free.
 *       Every dup joins, configures and leaves a tree, so most packets are
 *       set-up packets (tree joins, configurations, leaves). The calls use
 *       MPI_ERRORS_RETURN: a failed call prints a FAIL line.
 *
 * Each rank prints "switch_setup_loss: rank R: N communicators, F failed". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int communicators = argc > 1 ? atoi(argv[1]) : 24;
    int failed = 0;
    for (int i = 0; i < communicators; ++i) {
        MPI_Comm comm;
        if (MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
            printf("FAIL: rank %d: dup %d failed\n", rank, i);
            ++failed;
            continue;
        }
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        const int in[2] = {rank + i, 1};
        int out[2] = {0, 0};
        const int rc = MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, comm);
        const int expected = size * (size - 1) / 2 + size * i;
        if (rc != MPI_SUCCESS || out[0] != expected || out[1] != size) {
            char text[MPI_MAX_ERROR_STRING] = "";
            int length = 0;
            if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &length);
            printf("FAIL: rank %d: communicator %d: allreduce %s (%d, %d), expected (%d, %d) %s\n", rank, i,
                   rc == MPI_SUCCESS ? "gave" : "failed", out[0], out[1], expected, size, text);
            ++failed;
        }
        if (MPI_Comm_free(&comm) != MPI_SUCCESS) {
            printf("FAIL: rank %d: free %d failed\n", rank, i);
            ++failed;
        }
    }
    printf("switch_setup_loss: rank %d: %d communicators, %d failed\n", rank, communicators, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
