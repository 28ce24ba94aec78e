/* The guest of the debugging tests (testbench/cmake/mpi_debug.cmake,
 * docs/DEBUGGING.md): an Allreduce, a ring exchange with MPI_Sendrecv (whose
 * send is the driver's Driver::send, the breakpoint of the gdb test) and a
 * second Allreduce; each rank prints its results and its simulated time, so
 * a run under a debugger can be compared with one without.
 *
 *   debug_rank        the exchange
 *   debug_rank stop   rank 1 stops itself (SIGSTOP) after the first
 *                     Allreduce, as at a breakpoint; it goes on when it gets
 *                     SIGCONT (the test sends it a few seconds later)
 *
 * Run: isvp run -n 4 --debug-rank 1 -- debug_rank
 */
#include <signal.h>
#include <string.h>

#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int stop = argc > 1 && strcmp(argv[1], "stop") == 0;

    long value = rank + 1, sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(sum, (long)size * (size + 1) / 2);
    if (stop && rank == 1) raise(SIGSTOP);

    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    long token = 100L * rank + 7, received = -1;
    MPI_Sendrecv(&token, 1, MPI_LONG, next, 5, &received, 1, MPI_LONG, previous, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK_INT(received, 100L * previous + 7);

    long total = 0;
    MPI_Allreduce(&received, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(total, 100L * size * (size - 1) / 2 + 7L * size);
    const double now_us = MPI_Wtime() * 1e6;
    printf("result rank %d: sum %ld, from rank %d got %ld, total %ld, simulated %.6f us\n", rank, sum, previous,
           received, total, now_us);
    fflush(stdout);
    MPI_Finalize();
    return mpi_check_done("debug_rank", rank);
}
