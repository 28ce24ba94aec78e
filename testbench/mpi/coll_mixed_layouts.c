/* Reductions whose ranks pass the same type signature in different memory
 * layouts — legal MPI: the standard matches type signatures, not layouts.
 * Even ranks use strided types (an int, a gap, an int, ...), odd ranks
 * plain MPI_INT; every rank must take the same path (switch or software),
 * or the job deadlocks: the offload decision used to depend on each rank's
 * own layout. Allreduce (also in place), Reduce with the root strided and
 * with the root plain, Reduce_scatter_block, Reduce_scatter, and
 * persistent Allreduce_init/Reduce_init started twice, and MPI_BOTTOM with
 * types of absolute addresses (Allreduce and Reduce in place; MPI_BOTTOM is
 * a null pointer, which must not read as "no buffer"), and a send type
 * whose elements overlap (extent below the true extent: legal for sending;
 * the software path once combined them in a buffer of that layout, where
 * they clobbered each other). Gaps stay untouched.
 * ISVP_MPI_STATS=1 shows the calls offloaded (offload on). */
#include <string.h>

#include "mpi_check.h"

#define GAP (-7)
#define N 4 /* ints per contribution */

static int rank, size;
static MPI_Datatype strided; /* N ints, each followed by a gap: vector(N, 1, 2, MPI_INT) */
static MPI_Datatype pair;    /* 2 ints with a gap between: vector(2, 1, 2, MPI_INT), resized to 4 ints */

static int contribution(int r, int k, int round) { return (r + 1) * 100 + k * 3 + round; }
static int total(int k, int round) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += contribution(r, k, round);
    return sum;
}
static int strided_here(void) { return rank % 2 == 0; }

/* `buffer` holds N ints in this rank's layout (strided: 2N slots). */
static void fill(int* buffer, int round) {
    for (int i = 0; i < 2 * N; ++i) buffer[i] = GAP;
    for (int k = 0; k < N; ++k) buffer[strided_here() ? 2 * k : k] = contribution(rank, k, round);
}
static void check_result(const char* what, const int* buffer, int round) {
    for (int k = 0; k < N; ++k) {
        const int at = strided_here() ? 2 * k : k;
        if (buffer[at] != total(k, round)) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL rank %d: %s: element %d = %d, expected %d\n", rank, what, k, buffer[at],
                    total(k, round));
        }
        if (strided_here() && buffer[2 * k + 1] != GAP) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL rank %d: %s: the gap after element %d was written (%d)\n", rank, what, k,
                    buffer[2 * k + 1]);
        }
    }
}
/* (buffer, count, datatype) of N ints in this rank's layout. */
static int count_here(void) { return strided_here() ? 1 : N; }
static MPI_Datatype type_here(void) { return strided_here() ? strided : MPI_INT; }

static void allreduce(void) {
    int send[2 * N], recv[2 * N];
    fill(send, 0);
    for (int i = 0; i < 2 * N; ++i) recv[i] = GAP;
    CHECK_INT(MPI_Allreduce(send, recv, count_here(), type_here(), MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    check_result("Allreduce", recv, 0);
    int both[2 * N];
    fill(both, 1);
    CHECK_INT(MPI_Allreduce(MPI_IN_PLACE, both, count_here(), type_here(), MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    check_result("Allreduce in place", both, 1);
}

static void reduce(int root) {
    int send[2 * N], recv[2 * N];
    fill(send, 2);
    for (int i = 0; i < 2 * N; ++i) recv[i] = GAP;
    CHECK_INT(MPI_Reduce(send, recv, count_here(), type_here(), MPI_SUM, root, MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == root) check_result(root % 2 == 0 ? "Reduce (strided root)" : "Reduce (plain root)", recv, 2);
}

/* Reduce_scatter: each rank gets 2 ints; strided ranks describe a block as
 * one `pair`, plain ranks as 2 MPI_INT. */
static void reduce_scatter(int blocked) {
    int send[4 * 64], recv[4];
    for (int i = 0; i < 4 * size; ++i) send[i] = GAP;
    for (int b = 0; b < size; ++b)
        for (int j = 0; j < 2; ++j) {
            const int at = strided_here() ? b * 4 + 2 * j : b * 2 + j;
            send[at] = contribution(rank, b * 2 + j, 3);
        }
    for (int i = 0; i < 4; ++i) recv[i] = GAP;
    const int per_rank = strided_here() ? 1 : 2;
    const MPI_Datatype type = strided_here() ? pair : MPI_INT;
    if (blocked) {
        CHECK_INT(MPI_Reduce_scatter_block(send, recv, per_rank, type, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    } else {
        int counts[64];
        for (int r = 0; r < size; ++r) counts[r] = per_rank;
        CHECK_INT(MPI_Reduce_scatter(send, recv, counts, type, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    }
    for (int j = 0; j < 2; ++j) {
        const int at = strided_here() ? 2 * j : j;
        int expected = 0;
        for (int r = 0; r < size; ++r) expected += contribution(r, rank * 2 + j, 3);
        if (recv[at] != expected) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL rank %d: Reduce_scatter%s: element %d = %d, expected %d\n", rank,
                    blocked ? "_block" : "", j, recv[at], expected);
        }
    }
    if (strided_here() && recv[1] != GAP) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL rank %d: Reduce_scatter%s: the gap was written\n", rank, blocked ? "_block" : "");
    }
}

static void persistent(void) {
    int send[2 * N], recv[2 * N], root_recv[2 * N];
    MPI_Request requests[2];
    CHECK_INT(MPI_Allreduce_init(send, recv, count_here(), type_here(), MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &requests[0]),
              MPI_SUCCESS);
    CHECK_INT(MPI_Reduce_init(send, root_recv, count_here(), type_here(), MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &requests[1]),
              MPI_SUCCESS);
    for (int round = 4; round < 6; ++round) {
        fill(send, round);  /* a new contribution before each start */
        for (int i = 0; i < 2 * N; ++i) recv[i] = root_recv[i] = GAP;
        CHECK_INT(MPI_Start(&requests[0]), MPI_SUCCESS);
        CHECK_INT(MPI_Wait(&requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
        check_result("Allreduce_init", recv, round);
        CHECK_INT(MPI_Start(&requests[1]), MPI_SUCCESS);
        CHECK_INT(MPI_Wait(&requests[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (rank == 0) check_result("Reduce_init", root_recv, round);
    }
    CHECK_INT(MPI_Request_free(&requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Request_free(&requests[1]), MPI_SUCCESS);
}

/* MPI_BOTTOM with a one-block struct at this rank's buffer's absolute
 * address: strided on even ranks, contiguous(N, MPI_INT) on odd ones. */
static void bottom(void) {
    int buffer[2 * N];
    MPI_Aint address;
    MPI_Get_address(buffer, &address);
    MPI_Datatype block, absolute;
    if (strided_here())
        MPI_Type_dup(strided, &block);
    else
        MPI_Type_contiguous(N, MPI_INT, &block);
    int one = 1;
    MPI_Type_create_struct(1, &one, &address, &block, &absolute);
    MPI_Type_commit(&absolute);
    fill(buffer, 6);
    CHECK_INT(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, absolute, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    check_result("Allreduce on MPI_BOTTOM", buffer, 6);
    fill(buffer, 7);
    const int root = 1;
    CHECK_INT(MPI_Reduce(rank == root ? MPI_IN_PLACE : MPI_BOTTOM, rank == root ? MPI_BOTTOM : NULL, 1, absolute,
                         MPI_SUM, root, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (rank == root) check_result("Reduce into MPI_BOTTOM", buffer, 7);
    MPI_Type_free(&absolute);
    MPI_Type_free(&block);
}

/* Reduce_scatter_block whose send type's elements overlap: element e reads
 * ints e and e + 2 (vector(2, 1, 2, MPI_INT) resized to one int). */
static void overlapping(void) {
    MPI_Datatype two, overlap;
    MPI_Type_vector(2, 1, 2, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, (MPI_Aint)sizeof(int), &overlap);
    MPI_Type_commit(&overlap);
    int send[64 + 2], recv[3] = {GAP, GAP, GAP};
    for (int i = 0; i < size + 2; ++i) send[i] = contribution(rank, i, 8);
    CHECK_INT(MPI_Reduce_scatter_block(send, recv, 1, overlap, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    int first = 0, second = 0;
    for (int r = 0; r < size; ++r) {
        first += contribution(r, rank, 8);
        second += contribution(r, rank + 2, 8);
    }
    CHECK_INT(recv[0], first);
    CHECK_INT(recv[1], GAP);
    CHECK_INT(recv[2], second);
    MPI_Type_free(&overlap);
    MPI_Type_free(&two);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Datatype two;
    MPI_Type_vector(2, 1, 2, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, 4 * (MPI_Aint)sizeof(int), &pair);
    MPI_Type_commit(&pair);
    MPI_Type_free(&two);
    allreduce();
    reduce(0); /* strided root */
    reduce(1); /* plain root */
    reduce_scatter(1);
    reduce_scatter(0);
    persistent();
    bottom();
    overlapping();
    MPI_Type_free(&strided);
    MPI_Type_free(&pair);
    const int status = mpi_check_done("coll_mixed_layouts", rank);
    MPI_Finalize();
    return status;
}
