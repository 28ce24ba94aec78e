/* Ways a rank can end a job, one per run (rank 1 misbehaves, rank 0 waits
 * for a message that never comes, or computes forever):
 *   abort        MPI_Abort(MPI_COMM_WORLD, 3)
 *   nofinalize   returns from main without MPI_Finalize
 *   crash        a segmentation fault
 *   fatal        MPI_Send to rank 7 of 2 under MPI_ERRORS_ARE_FATAL
 *   busy         like abort, but rank 0 is computing (not in an MPI call)
 *   unsupported  calls MPI_Win_create (not supported)
 *   outofstep    under MPI_ERRORS_RETURN rank 0 calls MPI_Allreduce, rank 1
 *                skips it: rank 1's MPI_Finalize barrier meets it (error 3)
 *                and MPI_Finalize returns an error, printed; rank 1 has
 *                still finished (not "must call MPI_Finalize")
 * The launcher must end the job promptly, name the rank and what happened,
 * and leave no process or shared memory behind.
 * Run: isvp run -n 2 -- mpi_failures MODE */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

int main(int argc, char** argv) {
    int rank = -1, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char* mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "outofstep") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (rank == 0) MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        const int code = MPI_Finalize();
        if (rank == 1) {
            char text[MPI_MAX_ERROR_STRING];
            int length = 0, error_class = 0;
            MPI_Error_class(code, &error_class);
            MPI_Error_string(code, text, &length);
            int finalized = 0;
            MPI_Finalized(&finalized);
            fprintf(stderr, "rank 1: MPI_Finalize returned class %d (finalized %d): %s\n", error_class, finalized,
                    text);
        }
        return 0;
    }
    if (rank == 1) {
        if (strcmp(mode, "abort") == 0 || strcmp(mode, "busy") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
        if (strcmp(mode, "nofinalize") == 0) return 0;
        if (strcmp(mode, "crash") == 0) {
            volatile int* nowhere = NULL;
            *nowhere = 1;
        }
        if (strcmp(mode, "fatal") == 0) MPI_Send(&value, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
        if (strcmp(mode, "unsupported") == 0) {
            MPI_Win window;
            MPI_Win_create(&value, sizeof value, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &window);
        }
    }
    if (rank == 0) {
        if (strcmp(mode, "busy") == 0)
            for (;;) sleep(1); /* never calls MPI again: the launcher must kill it */
        MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
