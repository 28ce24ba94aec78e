/* The collectives on an inter-communicator (MPI 3.1 §5.2.2), blocking or,
 * with the argument "nonblocking", their nonblocking forms:
 * rooted ones with MPI_ROOT / MPI_PROC_NULL / the remote root's rank, and
 * the all-to-all kinds where each group receives what the other sent. Run
 * with 5 ranks: group A = world {0, 2, 4}, group B = world {3, 1} (in
 * local-rank order), so the groups differ in size and order. */
#include <string.h>

#include "mpi_check.h"

static int world_rank, in_a, local_rank, local_size, remote_size;
/* Argument "nonblocking": every collective as its nonblocking form + MPI_Wait. */
static int nonblocking;

#define COLL(blocking, started, ...)                    \
    do {                                                \
        if (nonblocking) {                              \
            MPI_Request request_;                       \
            started(__VA_ARGS__, &request_);            \
            MPI_Wait(&request_, MPI_STATUS_IGNORE);     \
        } else {                                        \
            blocking(__VA_ARGS__);                      \
        }                                               \
    } while (0)
static const int a_members[3] = {0, 2, 4};
static const int b_members[2] = {3, 1};

static int remote_world(int r) {
    return in_a ? b_members[r] : a_members[r];
}
static int local_world(int r) {
    return in_a ? a_members[r] : b_members[r];
}

/* root argument: `root_group_is_a` says which group holds the root, `root` its local rank. */
static int root_arg(int root_group_is_a, int root) {
    if (in_a == root_group_is_a) return local_rank == root ? MPI_ROOT : MPI_PROC_NULL;
    return root;
}

static void check_bcast(MPI_Comm inter) {
    int buffer[8];
    for (int i = 0; i < 8; ++i) buffer[i] = -1;
    /* A's local rank 1 (world 2) sends 4 ints; B receives them as 2 x vector(2, 1, 2). */
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    const int root = root_arg(1, 1);
    if (root == MPI_ROOT)
        for (int i = 0; i < 4; ++i) buffer[i] = 200 + i;
    if (in_a)
        COLL(MPI_Bcast, MPI_Ibcast, buffer, 4, MPI_INT, root, inter);
    else
        COLL(MPI_Bcast, MPI_Ibcast, buffer, 2, strided, root, inter);
    if (!in_a) {
        /* vector(2,1,2) has extent 3 ints: elements at 0, 2, 3, 5 */
        CHECK_INT(buffer[0], 200);
        CHECK_INT(buffer[2], 201);
        CHECK_INT(buffer[3], 202);
        CHECK_INT(buffer[5], 203);
        CHECK_INT(buffer[1], -1);
    } else if (root == MPI_PROC_NULL) {
        CHECK_INT(buffer[0], -1); /* untouched */
    }
    MPI_Type_free(&strided);
    /* The other way: B's local rank 0 (world 3) is the root. */
    double value = in_a ? 0.0 : (local_rank == 0 ? 3.5 : -1.0);
    COLL(MPI_Bcast, MPI_Ibcast, &value, 1, MPI_DOUBLE, root_arg(0, 0), inter);
    if (in_a) CHECK(value == 3.5);
    if (!in_a && local_rank == 1) CHECK(value == -1.0);
}

static void check_reduce(MPI_Comm inter) {
    int send[3], recv[3] = {-1, -1, -1};
    for (int i = 0; i < 3; ++i) send[i] = world_rank * 100 + i;
    /* Root: A's local rank 0; it receives B's sum. */
    const int root = root_arg(1, 0);
    COLL(MPI_Reduce, MPI_Ireduce, send, recv, 3, MPI_INT, MPI_SUM, root, inter);
    if (root == MPI_ROOT)
        for (int i = 0; i < 3; ++i) CHECK_INT(recv[i], (3 + 1) * 100 + 2 * i);
    else
        CHECK_INT(recv[0], -1);
    /* Root: B's local rank 1 (world 1); it receives A's maximum. */
    COLL(MPI_Reduce, MPI_Ireduce, send, recv, 3, MPI_INT, MPI_MAX, root_arg(0, 1), inter);
    if (!in_a && local_rank == 1)
        for (int i = 0; i < 3; ++i) CHECK_INT(recv[i], 400 + i);
}

static void check_allreduce(MPI_Comm inter) {
    long long send[3], recv[3];
    for (int i = 0; i < 3; ++i) send[i] = world_rank * 100 + i;
    COLL(MPI_Allreduce, MPI_Iallreduce, send, recv, 3, MPI_LONG_LONG, MPI_SUM, inter);
    for (int i = 0; i < 3; ++i) {
        long long expected = 0;
        for (int r = 0; r < remote_size; ++r) expected += remote_world(r) * 100 + i;
        CHECK_INT(recv[i], expected);
    }
    float f = (float)world_rank, g = -1.0f;
    COLL(MPI_Allreduce, MPI_Iallreduce, &f, &g, 1, MPI_FLOAT, MPI_MIN, inter);
    CHECK(g == (in_a ? 1.0f : 0.0f));
}

static void check_gather(MPI_Comm inter) {
    int send[2] = {world_rank * 100, world_rank * 100 + 1}, recv[6];
    for (int i = 0; i < 6; ++i) recv[i] = -1;
    /* Root: B's local rank 1; A's members send two ints each. */
    const int root = root_arg(0, 1);
    COLL(MPI_Gather, MPI_Igather, send, 2, MPI_INT, recv, 2, MPI_INT, root, inter);
    if (root == MPI_ROOT)
        for (int r = 0; r < 3; ++r) {
            CHECK_INT(recv[2 * r], a_members[r] * 100);
            CHECK_INT(recv[2 * r + 1], a_members[r] * 100 + 1);
        }
    /* Gatherv: root A's local rank 2; B's local rank j sends j + 1 ints. */
    int counts[2] = {1, 2}, displs[2] = {5, 0}, vsend[2] = {world_rank, world_rank + 1000};
    for (int i = 0; i < 6; ++i) recv[i] = -1;
    const int vroot = root_arg(1, 2);
    COLL(MPI_Gatherv, MPI_Igatherv, vsend, in_a ? 0 : local_rank + 1, MPI_INT, recv, counts, displs, MPI_INT, vroot, inter);
    if (vroot == MPI_ROOT) {
        CHECK_INT(recv[5], 3);
        CHECK_INT(recv[0], 1);
        CHECK_INT(recv[1], 1001);
        CHECK_INT(recv[2], -1);
    }
}

static void check_scatter(MPI_Comm inter) {
    /* Root: A's local rank 0 sends two ints to each of B's members. */
    int send[4] = {10, 11, 20, 21}, recv[3] = {-1, -1, -1};
    const int root = root_arg(1, 0);
    COLL(MPI_Scatter, MPI_Iscatter, send, 2, MPI_INT, recv, 2, MPI_INT, root, inter);
    if (!in_a) {
        CHECK_INT(recv[0], 10 * (local_rank + 1));
        CHECK_INT(recv[1], 10 * (local_rank + 1) + 1);
    }
    /* Scatterv: root B's local rank 0 sends j + 1 ints to A's local rank j. */
    int vsend[6] = {0, 1, 2, 3, 4, 5}, counts[3] = {1, 2, 3}, displs[3] = {5, 3, 0};
    for (int i = 0; i < 3; ++i) recv[i] = -1;
    COLL(MPI_Scatterv, MPI_Iscatterv, vsend, counts, displs, MPI_INT, recv, in_a ? local_rank + 1 : 0, MPI_INT, root_arg(0, 0), inter);
    if (in_a)
        for (int k = 0; k <= local_rank; ++k) CHECK_INT(recv[k], displs[local_rank] + k);
}

static void check_allgather(MPI_Comm inter) {
    int send[2] = {world_rank * 100, world_rank * 100 + 1}, recv[6];
    COLL(MPI_Allgather, MPI_Iallgather, send, 2, MPI_INT, recv, 2, MPI_INT, inter);
    for (int r = 0; r < remote_size; ++r) {
        CHECK_INT(recv[2 * r], remote_world(r) * 100);
        CHECK_INT(recv[2 * r + 1], remote_world(r) * 100 + 1);
    }
    /* Allgatherv: local rank j sends j + 1 ints; blocks land in reverse order. */
    int vsend[3] = {world_rank, world_rank + 1, world_rank + 2}, vrecv[8], counts[3], displs[3], at = 0;
    for (int r = remote_size - 1; r >= 0; --r) {
        counts[r] = r + 1;
        displs[r] = at;
        at += r + 1;
    }
    for (int i = 0; i < 8; ++i) vrecv[i] = -1;
    COLL(MPI_Allgatherv, MPI_Iallgatherv, vsend, local_rank + 1, MPI_INT, vrecv, counts, displs, MPI_INT, inter);
    for (int r = 0; r < remote_size; ++r)
        for (int k = 0; k <= r; ++k) CHECK_INT(vrecv[displs[r] + k], remote_world(r) + k);
}

/* The large-count forms: their count arrays cover the remote group (and
   at an MPI_ROOT root), as the int forms' do. Groups of 3 and 2, so a
   local-size array would be too long on one side and too short on the other. */
static void check_large_count(MPI_Comm inter) {
    MPI_Count counts[3];
    MPI_Aint displs[3];
    int vsend[6] = {0, 1, 2, 3, 4, 5}, recv[8];
    /* Scatterv_c: root B's local rank 1 sends j + 1 ints to A's local rank j. */
    for (int j = 0; j < 3; ++j) {
        counts[j] = j + 1;
        displs[j] = j == 0 ? 5 : j == 1 ? 3 : 0;
    }
    for (int i = 0; i < 8; ++i) recv[i] = -1;
    COLL(MPI_Scatterv_c, MPI_Iscatterv_c, vsend, counts, displs, MPI_INT, recv, in_a ? local_rank + 1 : 0, MPI_INT,
         root_arg(0, 1), inter);
    if (in_a)
        for (int k = 0; k <= local_rank; ++k) CHECK_INT(recv[k], (int)displs[local_rank] + k);
    /* Allgatherv_c: local rank j sends j + 1 ints; remote blocks in reverse order. */
    int mine[3] = {world_rank, world_rank + 1, world_rank + 2};
    MPI_Aint at = 0;
    for (int r = remote_size - 1; r >= 0; --r) {
        counts[r] = r + 1;
        displs[r] = at;
        at += r + 1;
    }
    for (int i = 0; i < 8; ++i) recv[i] = -1;
    COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, mine, local_rank + 1, MPI_INT, recv, counts, displs, MPI_INT, inter);
    for (int r = 0; r < remote_size; ++r)
        for (int k = 0; k <= r; ++k) CHECK_INT(recv[displs[r] + k], remote_world(r) + k);
    /* Alltoallv_c: one int to each remote rank, received in reverse order. */
    int send[3];
    MPI_Count scounts[3], rcounts[3];
    MPI_Aint sdispls[3], rdispls[3];
    for (int j = 0; j < remote_size; ++j) {
        send[j] = world_rank * 100 + j;
        scounts[j] = rcounts[j] = 1;
        sdispls[j] = j;
        rdispls[j] = remote_size - 1 - j;
    }
    COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, inter);
    for (int j = 0; j < remote_size; ++j) CHECK_INT(recv[remote_size - 1 - j], remote_world(j) * 100 + local_rank);
}

static void check_alltoall(MPI_Comm inter) {
    int send[3], recv[3];
    for (int j = 0; j < remote_size; ++j) send[j] = world_rank * 100 + j;
    COLL(MPI_Alltoall, MPI_Ialltoall, send, 1, MPI_INT, recv, 1, MPI_INT, inter);
    for (int j = 0; j < remote_size; ++j) CHECK_INT(recv[j], remote_world(j) * 100 + local_rank);
    /* Alltoallv: to remote j, j + 1 ints; from remote j, local_rank + 1 ints. */
    int vsend[6], vrecv[6], scounts[3], sdispls[3], rcounts[3], rdispls[3], at = 0;
    for (int j = 0; j < remote_size; ++j) {
        scounts[j] = j + 1;
        sdispls[j] = at;
        for (int k = 0; k <= j; ++k) vsend[at + k] = world_rank * 1000 + j * 10 + k;
        at += j + 1;
        rcounts[j] = local_rank + 1;
        rdispls[j] = j * (local_rank + 1);
    }
    COLL(MPI_Alltoallv, MPI_Ialltoallv, vsend, scounts, sdispls, MPI_INT, vrecv, rcounts, rdispls, MPI_INT, inter);
    for (int j = 0; j < remote_size; ++j)
        for (int k = 0; k <= local_rank; ++k)
            CHECK_INT(vrecv[rdispls[j] + k], remote_world(j) * 1000 + local_rank * 10 + k);
    /* Alltoallw: one int per peer, byte displacements, the order reversed on receipt. */
    MPI_Datatype types[3] = {MPI_INT, MPI_INT, MPI_INT};
    int ones[3] = {1, 1, 1}, wsdispls[3], wrdispls[3];
    for (int j = 0; j < remote_size; ++j) {
        wsdispls[j] = j * (int)sizeof(int);
        wrdispls[j] = (remote_size - 1 - j) * (int)sizeof(int);
    }
    COLL(MPI_Alltoallw, MPI_Ialltoallw, send, ones, wsdispls, types, recv, ones, wrdispls, types, inter);
    for (int j = 0; j < remote_size; ++j) CHECK_INT(recv[remote_size - 1 - j], remote_world(j) * 100 + local_rank);
}

static void check_reduce_scatter(MPI_Comm inter) {
    /* 6 elements in both groups: A has recvcount 2 (3 ranks), B 3 (2 ranks). */
    int send[6], recv[6];
    for (int i = 0; i < 6; ++i) send[i] = world_rank * 10 + i;
    const int recvcount = in_a ? 2 : 3;
    COLL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, send, recv, recvcount, MPI_INT, MPI_SUM, inter);
    for (int k = 0; k < recvcount; ++k) {
        const int i = local_rank * recvcount + k;
        int expected = 0;
        for (int r = 0; r < remote_size; ++r) expected += remote_world(r) * 10 + i;
        CHECK_INT(recv[k], expected);
    }
    /* Reduce_scatter: A {1, 2, 3}, B {4, 2}. */
    const int a_counts[3] = {1, 2, 3}, b_counts[2] = {4, 2};
    const int* counts = in_a ? a_counts : b_counts;
    int first = 0;
    for (int r = 0; r < local_rank; ++r) first += counts[r];
    COLL(MPI_Reduce_scatter, MPI_Ireduce_scatter, send, recv, counts, MPI_INT, MPI_MAX, inter);
    for (int k = 0; k < counts[local_rank]; ++k) CHECK_INT(recv[k], (in_a ? 3 : 4) * 10 + first + k);
}

/* Nonblocking: two collectives in flight at once, completed in reverse order. */
static void check_overlap(MPI_Comm inter) {
    int a = world_rank, b = world_rank * 2, sum_a = -1, max_b = -1;
    MPI_Request requests[2];
    MPI_Iallreduce(&a, &sum_a, 1, MPI_INT, MPI_SUM, inter, &requests[0]);
    MPI_Iallreduce(&b, &max_b, 1, MPI_INT, MPI_MAX, inter, &requests[1]);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    CHECK_INT(sum_a, in_a ? 3 + 1 : 0 + 2 + 4);
    CHECK_INT(max_b, in_a ? 6 : 8);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    nonblocking = argc > 1 && strcmp(argv[1], "nonblocking") == 0;
    int world_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size != 5) {
        if (world_rank == 0) fprintf(stderr, "coll_intercomm needs 5 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    in_a = world_rank % 2 == 0;
    local_size = in_a ? 3 : 2;
    remote_size = in_a ? 2 : 3;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, in_a ? world_rank : -world_rank, &local);
    MPI_Comm_rank(local, &local_rank);
    CHECK_INT(local_world(local_rank), world_rank);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 3 : 0, 1, &inter);
    for (int round = 0; round < 2; ++round) { /* twice: the sequences stay in step */
        COLL(MPI_Barrier, MPI_Ibarrier, inter);
        check_bcast(inter);
        check_reduce(inter);
        check_allreduce(inter);
        check_gather(inter);
        check_scatter(inter);
        check_allgather(inter);
        check_alltoall(inter);
        check_large_count(inter);
        check_reduce_scatter(inter);
        if (nonblocking) check_overlap(inter);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    const int status = mpi_check_done("coll_intercomm", world_rank);
    MPI_Finalize();
    return status;
}
