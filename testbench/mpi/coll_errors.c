/* Argument errors in the collectives return the MPI standard's error class
 * under MPI_ERRORS_RETURN, before any communication, so the communicator
 * stays usable: invalid communicator (MPI_ERR_COMM), datatype (MPI_ERR_TYPE),
 * op or op/datatype pair (MPI_ERR_OP), root (MPI_ERR_ROOT), count
 * (MPI_ERR_COUNT), buffer (MPI_ERR_BUFFER: NULL with data, MPI_IN_PLACE
 * where the standard does not allow it, send and receive buffer the same),
 * NULL count/displacement arrays (MPI_ERR_ARG), mismatched send and receive
 * sizes (MPI_ERR_TRUNCATE; for Allgather(v) also a contribution shorter than
 * its block). Every rank makes the same erroneous calls.
 *
 * Usage: coll_errors            the checks above, then a working collective
 *        coll_errors fatal-root MPI_Bcast with root 7 under the default handler
 *        coll_errors fatal-in-place  MPI_Allreduce with recvbuf MPI_IN_PLACE */
#include <string.h>

#include "mpi_check.h"

static void expect_class(int code, int error_class, const char* call) {
    const int got = mpi_error_class(code);
    if (code == MPI_SUCCESS || got != error_class) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL rank %d: %s returned %s %d, expected class %d\n", mpi_check_rank(), call,
                code == MPI_SUCCESS ? "MPI_SUCCESS" : "class", code == MPI_SUCCESS ? 0 : got, error_class);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm world = MPI_COMM_WORLD;
    int a[64] = {0}, b[64] = {0}, counts[64], displs[64];
    for (int i = 0; i < 64; ++i) {
        counts[i] = 1;
        displs[i] = i;
    }

    if (argc > 1 && strcmp(argv[1], "fatal-root") == 0) {
        MPI_Bcast(a, 1, MPI_INT, 7, world);
        return 0; /* not reached: the default handler ends the job */
    }
    if (argc > 1 && strcmp(argv[1], "fatal-in-place") == 0) {
        MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world);
        return 0;
    }

    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    const int other = (rank + 1) % size; /* a root that is not this rank */

    /* Communicators: null, freed */
    expect_class(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier(MPI_COMM_NULL)");
    expect_class(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Bcast(MPI_COMM_NULL)");
    MPI_Comm freed;
    MPI_Comm_dup(world, &freed);
    const MPI_Comm stale = freed;
    MPI_Comm_free(&freed);
    expect_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, stale), MPI_ERR_COMM, "MPI_Allreduce(freed comm)");

    /* Counts */
    expect_class(MPI_Bcast(a, -1, MPI_INT, 0, world), MPI_ERR_COUNT, "MPI_Bcast(count -1)");
    expect_class(MPI_Allreduce(a, b, -3, MPI_INT, MPI_SUM, world), MPI_ERR_COUNT, "MPI_Allreduce(count -3)");
    expect_class(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, world), MPI_ERR_COUNT, "MPI_Allgather(sendcount -1)");
    counts[size - 1] = -2;
    expect_class(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, world), MPI_ERR_COUNT,
                 "MPI_Alltoallv(negative sendcounts)");
    expect_class(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, world), MPI_ERR_COUNT,
                 "MPI_Reduce_scatter(negative recvcounts)");
    expect_class(MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, rank, world), MPI_ERR_COUNT,
                 "MPI_Gatherv(negative recvcounts at the root)");
    counts[size - 1] = 1;

    /* Datatypes: null, uncommitted */
    expect_class(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, world), MPI_ERR_TYPE, "MPI_Bcast(MPI_DATATYPE_NULL)");
    expect_class(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, world), MPI_ERR_TYPE,
                 "MPI_Allgather(recvtype null)");
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    expect_class(MPI_Allreduce(a, b, 1, uncommitted, MPI_SUM, world), MPI_ERR_TYPE,
                 "MPI_Allreduce(uncommitted type)");
    expect_class(MPI_Scatter(a, 1, uncommitted, b, 2, MPI_INT, rank, world), MPI_ERR_TYPE,
                 "MPI_Scatter(uncommitted sendtype at the root)");
    MPI_Type_free(&uncommitted);

    /* Operations: null, not defined on the datatype, accumulate-only */
    expect_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, world), MPI_ERR_OP, "MPI_Allreduce(MPI_OP_NULL)");
    expect_class(MPI_Reduce(a, b, 1, MPI_BYTE, MPI_SUM, 0, world), MPI_ERR_OP, "MPI_Reduce(SUM on MPI_BYTE)");
    expect_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, world), MPI_ERR_OP, "MPI_Allreduce(MINLOC on MPI_INT)");
    expect_class(MPI_Scan(a, b, 1, MPI_DOUBLE, MPI_LAND, world), MPI_ERR_OP, "MPI_Scan(LAND on MPI_DOUBLE)");
    expect_class(MPI_Exscan(a, b, 1, MPI_INT, MPI_REPLACE, world), MPI_ERR_OP, "MPI_Exscan(MPI_REPLACE)");
    expect_class(MPI_Reduce_scatter_block(a, b, 1, MPI_CHAR, MPI_MAX, world), MPI_ERR_OP,
                 "MPI_Reduce_scatter_block(MAX on MPI_CHAR)");

    /* Roots */
    expect_class(MPI_Bcast(a, 1, MPI_INT, size, world), MPI_ERR_ROOT, "MPI_Bcast(root = size)");
    expect_class(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1, world), MPI_ERR_ROOT, "MPI_Reduce(root -1)");
    expect_class(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, size + 3, world), MPI_ERR_ROOT, "MPI_Gather(root)");
    expect_class(MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, -2, world), MPI_ERR_ROOT,
                 "MPI_Scatterv(root -2)");

    /* Buffers: NULL with data, MPI_IN_PLACE where not allowed, aliasing */
    expect_class(MPI_Bcast(NULL, 1, MPI_INT, 0, world), MPI_ERR_BUFFER, "MPI_Bcast(NULL)");
    expect_class(MPI_Allreduce(a, NULL, 4, MPI_INT, MPI_SUM, world), MPI_ERR_BUFFER, "MPI_Allreduce(recvbuf NULL)");
    expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, world), MPI_ERR_BUFFER, "MPI_Bcast(MPI_IN_PLACE)");
    expect_class(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world), MPI_ERR_BUFFER,
                 "MPI_Allreduce(recvbuf MPI_IN_PLACE)");
    expect_class(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, world), MPI_ERR_BUFFER, "MPI_Allreduce(sendbuf == recvbuf)");
    expect_class(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, other, world), MPI_ERR_BUFFER,
                 "MPI_Reduce(sendbuf MPI_IN_PLACE at a non-root)");
    expect_class(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, other, world), MPI_ERR_BUFFER,
                 "MPI_Scatter(recvbuf MPI_IN_PLACE at a non-root)");
    expect_class(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, rank, world), MPI_ERR_BUFFER,
                 "MPI_Scatter(sendbuf MPI_IN_PLACE at the root)");
    expect_class(MPI_Gather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, rank, world), MPI_ERR_BUFFER,
                 "MPI_Gather(recvbuf MPI_IN_PLACE at the root)");
    expect_class(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, other, world), MPI_ERR_BUFFER,
                 "MPI_Gather(sendbuf MPI_IN_PLACE at a non-root)");
    expect_class(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "MPI_Allgather(recvbuf MPI_IN_PLACE)");
    expect_class(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "MPI_Alltoall(recvbuf MPI_IN_PLACE)");
    expect_class(MPI_Scan(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world), MPI_ERR_BUFFER, "MPI_Scan(recvbuf MPI_IN_PLACE)");
    expect_class(MPI_Reduce_scatter_block(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, world), MPI_ERR_BUFFER,
                 "MPI_Reduce_scatter_block(recvbuf MPI_IN_PLACE)");
    /* ... nor point-to-point or packing (they used to read or write through
     * it: a segmentation fault) */
    {
        MPI_Request request = MPI_REQUEST_NULL;
        char packed[64];
        int position = 0;
        expect_class(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, other, 0, world), MPI_ERR_BUFFER, "MPI_Send(MPI_IN_PLACE)");
        expect_class(MPI_Isend(MPI_IN_PLACE, 1, MPI_INT, other, 0, world, &request), MPI_ERR_BUFFER,
                     "MPI_Isend(MPI_IN_PLACE)");
        expect_class(MPI_Recv(MPI_IN_PLACE, 1, MPI_INT, other, 0, world, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
                     "MPI_Recv(MPI_IN_PLACE)");
        expect_class(MPI_Sendrecv(MPI_IN_PLACE, 1, MPI_INT, other, 0, b, 1, MPI_INT, other, 0, world,
                                  MPI_STATUS_IGNORE),
                     MPI_ERR_BUFFER, "MPI_Sendrecv(sendbuf MPI_IN_PLACE)");
        expect_class(MPI_Pack(MPI_IN_PLACE, 1, MPI_INT, packed, (int)sizeof packed, &position, world), MPI_ERR_BUFFER,
                     "MPI_Pack(MPI_IN_PLACE)");
        /* Sendrecv's buffers must be disjoint (checked for contiguous data) */
        expect_class(MPI_Sendrecv(a, 2, MPI_INT, other, 0, a + 1, 2, MPI_INT, other, 0, world, MPI_STATUS_IGNORE),
                     MPI_ERR_BUFFER, "MPI_Sendrecv(overlapping buffers)");
        /* (both sides MPI_PROC_NULL: nothing moves, one buffer is fine) */
        CHECK_INT(
            MPI_Sendrecv(a, 2, MPI_INT, MPI_PROC_NULL, 0, a, 2, MPI_INT, MPI_PROC_NULL, 0, world, MPI_STATUS_IGNORE),
            MPI_SUCCESS);
        expect_class(MPI_Isendrecv(a, 2, MPI_INT, other, 0, a + 1, 2, MPI_INT, other, 0, world, &request),
                     MPI_ERR_BUFFER, "MPI_Isendrecv(overlapping buffers)");
        /* MPI_ANY_SOURCE receives; it is no destination */
        expect_class(MPI_Send(a, 1, MPI_INT, MPI_ANY_SOURCE, 0, world), MPI_ERR_RANK, "MPI_Send(MPI_ANY_SOURCE)");
    }

    /* NULL count and displacement arrays */
    expect_class(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, world), MPI_ERR_ARG,
                 "MPI_Reduce_scatter(recvcounts NULL)");
    expect_class(MPI_Allgatherv(a, 1, MPI_INT, b, counts, NULL, MPI_INT, world), MPI_ERR_ARG,
                 "MPI_Allgatherv(displs NULL)");
    expect_class(MPI_Scatterv(a, NULL, displs, MPI_INT, b, 1, MPI_INT, rank, world), MPI_ERR_ARG,
                 "MPI_Scatterv(sendcounts NULL at the root)");

    /* Send and receive sizes that cannot match */
    expect_class(MPI_Alltoall(a, 2, MPI_INT, b, 1, MPI_INT, world), MPI_ERR_TRUNCATE,
                 "MPI_Alltoall(2 ints sent, 1 received per rank)");
    expect_class(MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT, world), MPI_ERR_TRUNCATE,
                 "MPI_Allgather(2 ints sent into blocks of 1)");
    /* ... and shorter ones, which would reach every rank padded with zeros */
    expect_class(MPI_Allgather(a, 1, MPI_INT, b, 2, MPI_INT, world), MPI_ERR_TRUNCATE,
                 "MPI_Allgather(1 int sent into blocks of 2)");
    counts[rank] = 2;
    expect_class(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, world), MPI_ERR_TRUNCATE,
                 "MPI_Allgatherv(1 int sent, recvcounts[rank] 2)");
    MPI_Request request = MPI_REQUEST_NULL;
    expect_class(MPI_Iallgather(a, 1, MPI_INT, b, 2, MPI_INT, world, &request), MPI_ERR_TRUNCATE,
                 "MPI_Iallgather(1 int sent into blocks of 2)");
    counts[rank] = 1;

    /* Nothing was sent: the communicator still works. */
    int one = 1, sum = 0;
    CHECK_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world), MPI_SUCCESS);
    CHECK_INT(sum, size);
    CHECK_INT(MPI_Barrier(world), MPI_SUCCESS);

    MPI_Finalize();
    return mpi_check_done("coll_errors", rank);
}
