/* Two semi-fused collectives in flight on two communicators of the same
 * ranks (two contexts of each engine, one CGRA event between them): a long
 * program started first and a short one started later, which can finish
 * first. The later program's notification was overridden by the earlier
 * one's and the collective waited for an engine run that, in a quiet system,
 * never came: with 4096 elements and one Allreduce between the two starts,
 * every rank waited for its completion interrupt (a deadlock). Each case
 * must complete with the bytes of the blocking calls. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgra_programs.h"
#include "isvp_fused.h"
#include "mpi_check.h"

/* The long call on `other`, `between` blocking Allreduces on the world, the
 * short call on the world; both waited for together. */
static void two_in_flight(int count, int between, MPIX_Cgra_program is, MPI_Comm other, int rank) {
    int* in = malloc(sizeof(int) * (size_t)count);
    int* out = malloc(sizeof(int) * (size_t)count);
    int* ref = malloc(sizeof(int) * (size_t)count);
    CHECK(in != NULL && out != NULL && ref != NULL);
    for (int i = 0; i < count; ++i) in[i] = (rank * 7 + i * 3) % 11;
    CHECK_INT(MPIX_Allreduce_op(in, ref, count, MPI_INT, MPI_SUM, is, other), MPI_SUCCESS);
    int x = rank + 1, y = 0, y_ref = 0;
    CHECK_INT(MPIX_Allreduce_op(&x, &y_ref, 1, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request requests[2];
    CHECK_INT(MPIX_Iallreduce_op(in, out, count, MPI_INT, MPI_SUM, is, other, &requests[0]), MPI_SUCCESS);
    int one = 1, sum = 0;
    for (int i = 0; i < between; ++i) {
        CHECK_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_INT(sum, 4);
    }
    CHECK_INT(MPIX_Iallreduce_op(&x, &y, 1, MPI_INT, MPI_SUM, is, MPI_COMM_WORLD, &requests[1]), MPI_SUCCESS);
    CHECK_INT(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(memcmp(out, ref, sizeof(int) * (size_t)count) == 0);
    CHECK_INT(y, y_ref);
    free(in);
    free(out);
    free(ref);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(size, 4);
    MPIX_Cgra_program is = cgra_is_program();
    MPI_Comm other;
    CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &other), MPI_SUCCESS);
    const int counts[] = {1024, 4096};
    for (int c = 0; c < 2; ++c)
        for (int between = 0; between <= 2; ++between) two_in_flight(counts[c], between, is, other, rank);
    CHECK_INT(MPI_Comm_free(&other), MPI_SUCCESS);
    CHECK_INT(MPIX_Cgra_program_free(&is), MPI_SUCCESS);
    if (rank == 0) printf("fused_two_programs: passed\n");
    MPI_Finalize();
    return 0;
}
