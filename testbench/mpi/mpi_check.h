/* Checks for the MPI test programs (C and C++): a failed CHECK prints the
 * rank, file, line and expression, and the program ends with status 1 at
 * mpi_check_done(). Compiled with isvp-mpicc / isvp-mpicxx. */
#ifndef ISVP_MPI_CHECK_H
#define ISVP_MPI_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static int mpi_check_failures = 0;

static inline int mpi_check_rank(void) {
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

#define CHECK(condition)                                                                                     \
    do {                                                                                                     \
        if (!(condition)) {                                                                                  \
            ++mpi_check_failures;                                                                            \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", mpi_check_rank(), __FILE__, __LINE__, #condition); \
        }                                                                                                    \
    } while (0)

/* CHECK_INT(a, b): a == b, printing both values when not. */
#define CHECK_INT(actual, expected)                                                                        \
    do {                                                                                                   \
        long long check_a_ = (long long)(actual), check_e_ = (long long)(expected);                        \
        if (check_a_ != check_e_) {                                                                        \
            ++mpi_check_failures;                                                                          \
            fprintf(stderr, "FAIL rank %d %s:%d: %s = %lld, expected %s = %lld\n", mpi_check_rank(),       \
                    __FILE__, __LINE__, #actual, check_a_, #expected, check_e_);                           \
        }                                                                                                  \
    } while (0)

/* The error class of an MPI call's return code. */
static inline int mpi_error_class(int code) {
    int error_class = -1;
    MPI_Error_class(code, &error_class);
    return error_class;
}

/* Prints "<name> ok" (or the failure count) and returns the exit status. */
static inline int mpi_check_done(const char* name, int rank) {
    if (mpi_check_failures == 0) {
        printf("%s ok (rank %d)\n", name, rank);
        return 0;
    }
    printf("%s FAILED: %d check(s) (rank %d)\n", name, mpi_check_failures, rank);
    return 1;
}

#endif
