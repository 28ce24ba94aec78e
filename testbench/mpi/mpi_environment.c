/* Environment and error handling, in C: MPI_Init/Finalize and their flags,
 * versions, processor name, simulated MPI_Wtime, predefined attributes,
 * error classes and strings, MPI_ERRORS_RETURN giving the class the
 * standard names for each invalid argument, user error handlers.
 * Run: isvp run -n 2 -- mpi_environment */
#include <string.h>
#include <time.h>

#include "mpi_check.h"

static int handler_calls = 0;
static int handler_code = 0;

static void count_errors(MPI_Comm* comm, int* code, ...) {
    (void)comm;
    ++handler_calls;
    handler_code = *code;
}

static void check_environment(int rank, int size) {
    int flag = 0, version = 0, subversion = 0, length = 0;
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Initialized(&flag);
    CHECK(flag == 1);
    MPI_Finalized(&flag);
    CHECK(flag == 0);
    CHECK(MPI_Get_version(&version, &subversion) == MPI_SUCCESS);
    CHECK_INT(version, 3);
    CHECK_INT(subversion, 1);
    CHECK(MPI_VERSION == 3 && MPI_SUBVERSION == 1);
    CHECK(MPI_Get_library_version(text, &length) == MPI_SUCCESS);
    CHECK(length > 0 && (int)strlen(text) == length && strstr(text, "isvp") != NULL);
    CHECK(MPI_Get_processor_name(text, &length) == MPI_SUCCESS);
    CHECK(length > 0 && length < MPI_MAX_PROCESSOR_NAME && (int)strlen(text) == length);
    CHECK(size == 2 && rank >= 0 && rank < size);

    /* Simulated time: starts near 0, never goes back, advances with communication. */
    double t0 = MPI_Wtime();
    CHECK(t0 >= 0.0 && t0 < 1.0);
    CHECK(MPI_Wtick() > 0.0 && MPI_Wtick() <= 1e-6);
    int token = rank;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t1 = MPI_Wtime();
    CHECK(t1 > t0);
    CHECK_INT(token, 1 - rank);

    int* value = NULL;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag) == MPI_SUCCESS);
    CHECK(flag == 1 && value != NULL && *value >= 32767);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag) == MPI_SUCCESS);
    CHECK(flag == 1 && (*value == 0 || *value == 1));
    CHECK(MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &value, &flag) == MPI_SUCCESS);
    CHECK(flag == 1);
    int provided = -1, main_thread = 0;
    MPI_Query_thread(&provided);
    CHECK_INT(provided, MPI_THREAD_SINGLE);
    MPI_Is_thread_main(&main_thread);
    CHECK(main_thread == 1);
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &length);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
}

static void check_error_strings(void) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0, error_class = -1;
    const int classes[] = {MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT,  MPI_ERR_TYPE,
                           MPI_ERR_TAG, MPI_ERR_COMM,   MPI_ERR_RANK,   MPI_ERR_ROOT,
                           MPI_ERR_OP,  MPI_ERR_ARG,    MPI_ERR_OTHER, MPI_ERR_UNSUPPORTED_OPERATION};
    for (unsigned i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
        CHECK(MPI_Error_class(classes[i], &error_class) == MPI_SUCCESS);
        CHECK_INT(error_class, classes[i]);
        CHECK(MPI_Error_string(classes[i], text, &length) == MPI_SUCCESS);
        CHECK(length > 0 && length < MPI_MAX_ERROR_STRING && (int)strlen(text) == length);
    }
    MPI_Error_string(MPI_ERR_RANK, text, &length);
    CHECK(strstr(text, "MPI_ERR_RANK") != NULL);
}

/* Every invalid argument gives the class MPI 3.1 names, through MPI_ERRORS_RETURN. */
static void check_invalid_arguments(int rank) {
    int value = 0, out[4] = {0}, flag = 0;
    MPI_Datatype uncommitted;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
    CHECK(handler == MPI_ERRORS_RETURN);

    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_NULL)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 1, 0, (MPI_Comm)12345)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPI_Comm_size(MPI_COMM_NULL, &value)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_DATATYPE_NULL, 1, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, (MPI_Datatype)777, 1, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    CHECK_INT(mpi_error_class(MPI_Send(out, 1, uncommitted, 1, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE);
    MPI_Type_free(&uncommitted);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD)), MPI_ERR_RANK);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, -7, 0, MPI_COMM_WORLD)), MPI_ERR_RANK);
    CHECK_INT(mpi_error_class(MPI_Recv(&value, 1, MPI_INT, 5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)), MPI_ERR_RANK);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 1 - rank, -5, MPI_COMM_WORLD)), MPI_ERR_TAG);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 1 - rank, MPI_ANY_TAG, MPI_COMM_WORLD)), MPI_ERR_TAG);
    int* tag_ub = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 1 - rank, *tag_ub + 1, MPI_COMM_WORLD)), MPI_ERR_TAG);
    CHECK_INT(mpi_error_class(MPI_Send(&value, -1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD)), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Send(NULL, 3, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    /* Larger than one message of the platform (2^29 - 1 bytes with its envelope). */
    CHECK_INT(mpi_error_class(MPI_Send(out, 1 << 27, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD)), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Recv(NULL, 3, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)),
              MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPI_Reduce_local(out, out + 2, 2, MPI_INT, MPI_OP_NULL)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Reduce_local(out, out + 2, 1, MPI_INT, MPI_MINLOC)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Reduce_local(out, out + 2, 1, MPI_BYTE, MPI_SUM)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Reduce_local(out, out + 2, -1, MPI_INT, MPI_SUM)), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Win_fence(0, MPI_WIN_NULL)), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_INT(mpi_error_class(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, NULL)), MPI_ERR_ARG);
    /* Zero counts with NULL buffers are fine. */
    CHECK(MPI_Sendrecv(NULL, 0, MPI_INT, 1 - rank, 3, NULL, 0, MPI_INT, 1 - rank, 3, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* A user handler is called with the code; the call returns it. */
    MPI_Errhandler counting;
    CHECK(MPI_Comm_create_errhandler(count_errors, &counting) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting) == MPI_SUCCESS);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, 9, 0, MPI_COMM_WORLD)), MPI_ERR_RANK);
    CHECK_INT(handler_calls, 1);
    CHECK_INT(mpi_error_class(handler_code), MPI_ERR_RANK);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK_INT(handler_calls, 2);
    CHECK_INT(handler_code, MPI_ERR_OTHER);
    MPI_Errhandler_free(&counting);
    CHECK(counting == MPI_ERRHANDLER_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* A duplicate inherits the handler; MPI_COMM_SELF keeps its own (fatal). */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_errhandler(dup, &handler);
    CHECK(handler == MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &handler);
    CHECK(handler == MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL);
    CHECK_INT(mpi_error_class(MPI_Comm_free(&dup)), MPI_ERR_COMM);
    MPI_Comm world = MPI_COMM_WORLD;
    CHECK_INT(mpi_error_class(MPI_Comm_free(&world)), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* `isvp run --compute-scale S`: guest CPU time x S is simulated time.
 * Spins 20 ms of CPU between two MPI_Wtime calls; with S = 1 at least 10 ms
 * must pass, with S = 0 (communication only) no time at all. */
static void check_compute_scale(int charged) {
    const double start = MPI_Wtime();
    const clock_t until = clock() + CLOCKS_PER_SEC / 50;
    volatile unsigned spin = 0;
    while (clock() < until) ++spin;
    const double spent = MPI_Wtime() - start;
    if (charged)
        CHECK(spent >= 0.010 && spent < 10.0);
    else
        CHECK(spent == 0.0);
}

int main(int argc, char** argv) {
    int flag = 1, rank = -1, size = 0;
    MPI_Initialized(&flag);
    CHECK(flag == 0);
    CHECK(MPI_Wtime() == 0.0);
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_environment(rank, size);
    check_error_strings();
    check_invalid_arguments(rank);
    if (argc > 1 && strcmp(argv[1], "compute-charged") == 0) check_compute_scale(1);
    if (argc > 1 && strcmp(argv[1], "compute-free") == 0) check_compute_scale(0);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    MPI_Finalized(&flag);
    CHECK(flag == 1);
    return mpi_check_done("mpi_environment", rank);
}
