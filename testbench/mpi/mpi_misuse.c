/* Programs that use MPI in the wrong order or from the wrong thread get a
 * message saying so (not a device protocol error or "before MPI_Init").
 *
 *   mpi_misuse double-finalize   MPI_Finalize twice: fatal, "after MPI_Finalize"
 *   mpi_misuse after-finalize    MPI_Barrier after MPI_Finalize: the same
 *   mpi_misuse thread-funneled   MPI_THREAD_MULTIPLE asked, FUNNELED given; two
 *                                threads send/receive: fatal, "called from a
 *                                thread other than the main thread"
 *   mpi_misuse thread-single     MPI_Init (SINGLE), a second thread calls MPI_Send: fatal
 *   mpi_misuse pending-finalize  MPI_Finalize with an MPI_Iallreduce, an MPI_Irecv and an
 *                                MPI_Comm_idup never completed: each rank's stderr names them,
 *                                and the job still ends cleanly
 *   mpi_misuse thread-return     FUNNELED, MPI_ERRORS_RETURN: a second thread's
 *                                MPI_Send returns MPI_ERR_OTHER and sends nothing,
 *                                its MPI_Is_thread_main says 0; the main thread
 *                                goes on and the job ends cleanly */
#include <pthread.h>
#include <string.h>

#include "mpi_check.h"

static int rank, size;
static int worker_send_status, worker_is_main = -1;

static void* send_from_worker(void* tag) {
    int value = rank;
    for (int i = 0; i < 100; ++i)
        worker_send_status = MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, (int)(long)tag, MPI_COMM_WORLD);
    MPI_Is_thread_main(&worker_is_main);
    return NULL;
}

static void run_workers(int count) {
    pthread_t workers[2];
    for (int t = 0; t < count; ++t) pthread_create(&workers[t], NULL, send_from_worker, (void*)(long)(t + 1));
    for (int t = 0; t < count; ++t) pthread_join(workers[t], NULL);
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    int provided = -1;
    if (strcmp(mode, "thread-single") == 0)
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "double-finalize") == 0) {
        MPI_Finalize();
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "after-finalize") == 0) {
        MPI_Finalize();
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    if (strcmp(mode, "pending-finalize") == 0) {
        int in = rank + 1, out = 0, never = 0;
        MPI_Request requests[3];
        MPI_Comm dup;
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(&never, 1, MPI_INT, (rank + 1) % size, 77, MPI_COMM_WORLD, &requests[1]);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &requests[2]);
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "thread-funneled") == 0 || strcmp(mode, "thread-single") == 0) run_workers(2);
    if (strcmp(mode, "thread-return") == 0) {
        CHECK_INT(provided, MPI_THREAD_FUNNELED);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        run_workers(1);
        CHECK_INT(mpi_error_class(worker_send_status), MPI_ERR_OTHER);
        CHECK_INT(worker_is_main, 0);
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(worker_send_status, text, &length);
        CHECK(strstr(text,
                     "MPI_Send: called from a thread other than the main thread "
                     "(thread level MPI_THREAD_FUNNELED)") != NULL);
        /* The main thread goes on; the worker sent nothing (no tag-1 message). */
        int mine = rank, got = -1, flag = 1;
        MPI_Sendrecv(&mine, 1, MPI_INT, (rank + 1) % size, 9, &got, 1, MPI_INT, (rank + size - 1) % size, 9,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_INT(got, (rank + size - 1) % size);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0);
    }
    const int status = mpi_check_done("mpi_misuse", rank);
    MPI_Finalize();
    return status;
}
