/* MPI 4.0 persistent collectives: every MPI_X_init against a locally
 * computed reference over several starts with new data each time, on the
 * world and a split communicator; starts in different orders on different
 * ranks (matching follows the _init order); Startall; a float Allreduce_init
 * bit-identical to MPI_Allreduce (the same offload decision); derived
 * datatypes; inactive-request semantics and errors.
 * Usage: coll_persistent [count|alltoall|many]  — "count" runs only 6
 * offloadable starts (for ISVP_MPI_STATS), "alltoall" only the 6 starts of
 * alltoall_forms; "many" 40 Allreduce_init at once, more than
 * the switch has contexts for. */
#include <stdint.h>
#include <string.h>

#include "mpi_check.h"

#define N 7
#define STARTS 3

static int rank_, size_;

/* The value rank r contributes at start s, element i. */
static int value(int r, int s, int i) {
    return (r + 1) * 100 + s * 10 + i;
}

static void start_wait(MPI_Request* request) {
    CHECK_INT(MPI_Start(request), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

static void every_collective(MPI_Comm comm) {
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    const int root = n - 1;
    int send[N], recv[N], all_send[N * 16], all_recv[N * 16];
    int counts[16], displs[16], vcounts[16];
    MPI_Request r[16];
    int k = 0;
    MPI_Bcast_init(recv, N, MPI_INT, root, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Reduce_init(send, recv, N, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Allreduce_init(send, recv, N, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Scatter_init(all_send, N, MPI_INT, recv, N, MPI_INT, 0, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Gather_init(send, N, MPI_INT, all_recv, N, MPI_INT, root, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Allgather_init(send, N, MPI_INT, all_recv, N, MPI_INT, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Reduce_scatter_block_init(all_send, recv, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[k++]);
    for (int i = 0; i < n; ++i) {
        counts[i] = 1 + i % 3;
        vcounts[i] = 1 + (me + i) % 3; /* symmetric: what me sends to i, i sends to me */
        displs[i] = i * N;
    }
    MPI_Reduce_scatter_init(all_send, recv, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Scan_init(send, recv, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Exscan_init(send, recv, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &r[k++]);
    MPI_Gatherv_init(send, counts[me], MPI_INT, all_recv, counts, displs, MPI_INT, 0, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Scatterv_init(all_send, counts, displs, MPI_INT, recv, counts[me], MPI_INT, 0, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Allgatherv_init(send, counts[me], MPI_INT, all_recv, counts, displs, MPI_INT, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Alltoall_init(all_send, N, MPI_INT, all_recv, N, MPI_INT, comm, MPI_INFO_NULL, &r[k++]);
    MPI_Alltoallv_init(all_send, vcounts, displs, MPI_INT, all_recv, vcounts, displs, MPI_INT, comm, MPI_INFO_NULL,
                       &r[k++]);
    for (int s = 0; s < STARTS; ++s) {
        int q = 0;
        /* Bcast */
        for (int i = 0; i < N; ++i) recv[i] = me == root ? value(root, s, i) : -1;
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) CHECK_INT(recv[i], value(root, s, i));
        /* Reduce */
        for (int i = 0; i < N; ++i) send[i] = value(me, s, i), recv[i] = -1;
        start_wait(&r[q++]);
        if (me == root)
            for (int i = 0; i < N; ++i) {
                int sum = 0;
                for (int p = 0; p < n; ++p) sum += value(p, s, i);
                CHECK_INT(recv[i], sum);
            }
        /* Allreduce MAX */
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) CHECK_INT(recv[i], value(n - 1, s, i));
        /* Scatter from 0 */
        for (int i = 0; i < N * n; ++i) all_send[i] = value(i / N, s, i % N);
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) CHECK_INT(recv[i], value(me, s, i));
        /* Gather to root */
        for (int i = 0; i < N * n; ++i) all_recv[i] = -1;
        start_wait(&r[q++]);
        if (me == root)
            for (int i = 0; i < N * n; ++i) CHECK_INT(all_recv[i], value(i / N, s, i % N));
        /* Allgather */
        for (int i = 0; i < N * n; ++i) all_recv[i] = -1;
        start_wait(&r[q++]);
        for (int i = 0; i < N * n; ++i) CHECK_INT(all_recv[i], value(i / N, s, i % N));
        /* Reduce_scatter_block: block b of rank p is value(p, s, b) + i */
        for (int i = 0; i < N * n; ++i) all_send[i] = value(me, s, i / N) + i % N;
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) {
            int sum = 0;
            for (int p = 0; p < n; ++p) sum += value(p, s, me) + i;
            CHECK_INT(recv[i], sum);
        }
        /* Reduce_scatter, counts 1 + b % 3: element j of the input is value(me, s, j) */
        for (int i = 0; i < N * n; ++i) all_send[i] = value(me, s, i);
        start_wait(&r[q++]);
        {
            int at = 0;
            for (int b = 0; b < me; ++b) at += counts[b];
            for (int i = 0; i < counts[me]; ++i) {
                int sum = 0;
                for (int p = 0; p < n; ++p) sum += value(p, s, at + i);
                CHECK_INT(recv[i], sum);
            }
        }
        /* Scan, Exscan */
        for (int i = 0; i < N; ++i) send[i] = value(me, s, i);
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) {
            int sum = 0;
            for (int p = 0; p <= me; ++p) sum += value(p, s, i);
            CHECK_INT(recv[i], sum);
        }
        for (int i = 0; i < N; ++i) recv[i] = -5;
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) {
            int sum = 0;
            for (int p = 0; p < me; ++p) sum += value(p, s, i);
            CHECK_INT(recv[i], me == 0 ? -5 : sum);
        }
        /* Barrier */
        start_wait(&r[q++]);
        /* Gatherv to 0: rank p sends counts[p] values */
        for (int i = 0; i < N; ++i) send[i] = value(me, s, i);
        for (int i = 0; i < N * n; ++i) all_recv[i] = -1;
        start_wait(&r[q++]);
        if (me == 0)
            for (int p = 0; p < n; ++p)
                for (int i = 0; i < N; ++i) CHECK_INT(all_recv[p * N + i], i < counts[p] ? value(p, s, i) : -1);
        /* Scatterv from 0 */
        for (int i = 0; i < N * n; ++i) all_send[i] = value(i / N, s, i % N);
        for (int i = 0; i < N; ++i) recv[i] = -1;
        start_wait(&r[q++]);
        for (int i = 0; i < N; ++i) CHECK_INT(recv[i], i < counts[me] ? value(me, s, i) : -1);
        /* Allgatherv */
        for (int i = 0; i < N * n; ++i) all_recv[i] = -1;
        start_wait(&r[q++]);
        for (int p = 0; p < n; ++p)
            for (int i = 0; i < N; ++i) CHECK_INT(all_recv[p * N + i], i < counts[p] ? value(p, s, i) : -1);
        /* Alltoall: block b of rank p's send is value(p, s, b) + i */
        for (int i = 0; i < N * n; ++i) all_send[i] = value(me, s, i / N) + i % N;
        start_wait(&r[q++]);
        for (int i = 0; i < N * n; ++i) CHECK_INT(all_recv[i], value(i / N, s, me) + i % N);
        /* Alltoallv with vcounts[b] of each block */
        for (int i = 0; i < N * n; ++i) all_recv[i] = -1;
        start_wait(&r[q++]);
        for (int p = 0; p < n; ++p)
            for (int i = 0; i < N; ++i)
                CHECK_INT(all_recv[p * N + i], i < vcounts[p] ? value(p, s, me) + i : -1);
        CHECK_INT(q, k);
    }
    for (int i = 0; i < k; ++i) {
        CHECK_INT(MPI_Request_free(&r[i]), MPI_SUCCESS);
        CHECK(r[i] == MPI_REQUEST_NULL);
    }
}

/* Matching follows the _init order: rank 0 starts Bcast then Barrier, the
 * others the reverse (MPICH's p_order); two Allreduce_init started in
 * opposite orders on odd and even ranks, completed by one Waitall. */
static void start_order(void) {
    int a = -1, x = rank_ + 1, y = 10 * (rank_ + 1), sx = 0, sy = 0;
    MPI_Request r[4];
    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Allreduce_init(&x, &sx, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    MPI_Allreduce_init(&y, &sy, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    for (int s = 0; s < STARTS; ++s) {
        a = rank_ == 0 ? 42 + s : -1;
        if (rank_ == 0) {
            MPI_Start(&r[0]);
            MPI_Start(&r[1]);
        } else {
            MPI_Start(&r[1]);
            MPI_Start(&r[0]);
        }
        if (rank_ % 2) {
            MPI_Start(&r[2]);
            MPI_Start(&r[3]);
        } else {
            MPI_Start(&r[3]);
            MPI_Start(&r[2]);
        }
        CHECK_INT(MPI_Waitall(4, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK_INT(a, 42 + s);
        CHECK_INT(sx, size_ * (size_ + 1) / 2);
        CHECK_INT(sy, 10 * size_ * (size_ + 1) / 2);
    }
    /* Startall, then a Test loop. */
    for (int s = 0; s < 2; ++s) {
        a = rank_ == 0 ? 7 + s : -1;
        CHECK_INT(MPI_Startall(4, r), MPI_SUCCESS);
        int flag = 0;
        while (!flag) CHECK_INT(MPI_Testall(4, r, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK_INT(a, 7 + s);
        CHECK_INT(sx, size_ * (size_ + 1) / 2);
    }
    for (int i = 0; i < 4; ++i) MPI_Request_free(&r[i]);

    /* Many at once (each offloaded one on its own switch context): twelve
     * Allreduce_init started in opposite orders on odd and even ranks. */
    enum { MANY = 12 };
    int in[MANY], out[MANY];
    MPI_Request many[MANY];
    for (int i = 0; i < MANY; ++i)
        MPI_Allreduce_init(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &many[i]);
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < MANY; ++i) in[i] = (rank_ + 1) * (i + s + 1), out[i] = -1;
        for (int i = 0; i < MANY; ++i) MPI_Start(&many[rank_ % 2 ? MANY - 1 - i : i]);
        CHECK_INT(MPI_Waitall(MANY, many, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int i = 0; i < MANY; ++i) CHECK_INT(out[i], size_ * (size_ + 1) / 2 * (i + s + 1));
    }
    for (int i = 0; i < MANY; ++i) MPI_Request_free(&many[i]);
}

/* Inactive requests: Wait and Test return at once with an empty status;
 * Start of an active request and Request_free of an active one are
 * MPI_ERR_REQUEST; completion makes the request inactive again. */
static void inactive_semantics(void) {
    int a = rank_, sum = 0;
    MPI_Request r;
    MPI_Status status;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_INT(MPI_Allreduce_init(&a, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_SUCCESS);
    status.MPI_TAG = 42;
    status.MPI_SOURCE = 42;
    CHECK_INT(MPI_Wait(&r, &status), MPI_SUCCESS);
    CHECK_INT(status.MPI_TAG, MPI_ANY_TAG);
    CHECK_INT(status.MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK(r != MPI_REQUEST_NULL);
    int flag = 0;
    CHECK_INT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(flag, 1);
    CHECK_INT(MPI_Start(&r), MPI_SUCCESS);
    CHECK_INT(mpi_error_class(MPI_Start(&r)), MPI_ERR_REQUEST);
    CHECK_INT(mpi_error_class(MPI_Request_free(&r)), MPI_ERR_REQUEST);
    CHECK_INT(mpi_error_class(MPI_Cancel(&r)), MPI_ERR_REQUEST);
    CHECK_INT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(sum, size_ * (size_ - 1) / 2);
    CHECK(r != MPI_REQUEST_NULL);
    /* Errors at _init name the call and leave no request behind. */
    MPI_Request bad = MPI_REQUEST_NULL;
    CHECK_INT(mpi_error_class(MPI_Bcast_init(&a, 1, MPI_INT, size_, MPI_COMM_WORLD, MPI_INFO_NULL, &bad)),
              MPI_ERR_ROOT);
    CHECK_INT(mpi_error_class(MPI_Allreduce_init(&a, &sum, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &bad)),
              MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Allreduce_init(&a, &sum, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, MPI_INFO_NULL, &bad)),
              MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL)), MPI_ERR_ARG);
    CHECK(bad == MPI_REQUEST_NULL);
    CHECK_INT(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A float Allreduce_init gives exactly MPI_Allreduce's result (same offload
 * decision, same operand order), short and long vectors. */
static void float_identical(void) {
    enum { LONG = 1500 };
    static float in[LONG], persistent[LONG], blocking[LONG];
    const int lengths[2] = {5, LONG};
    for (int l = 0; l < 2; ++l) {
        const int n = lengths[l];
        MPI_Request r;
        MPI_Allreduce_init(in, persistent, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int s = 0; s < 2; ++s) {
            for (int i = 0; i < n; ++i) in[i] = 1.0f / (float)(3 + rank_ * 7 + i + s) * (rank_ % 2 ? 1e6f : 1e-3f);
            start_wait(&r);
            MPI_Allreduce(in, blocking, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(memcmp(persistent, blocking, sizeof(float) * (size_t)n) == 0);
        }
        MPI_Request_free(&r);
    }
}

/* Derived datatypes: a strided Bcast (gaps untouched) and Allgather into a
 * vector type, Reduce with MPI_IN_PLACE at the root. */
static void derived_types(void) {
    MPI_Datatype strided;
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int buffer[6], gathered[6 * 16];
    MPI_Request r[3];
    MPI_Bcast_init(buffer, 1, strided, 1 % size_, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allgather_init(buffer, 1, strided, gathered, 3, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    int own[2], total[2];
    MPI_Reduce_init(rank_ == 0 ? MPI_IN_PLACE : own, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                    &r[2]);
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < 6; ++i) buffer[i] = rank_ == 1 % size_ ? (i % 2 ? -7 : 50 + i + s) : (i % 2 ? -7 : -1);
        start_wait(&r[0]);
        for (int i = 0; i < 6; ++i) CHECK_INT(buffer[i], i % 2 ? -7 : 50 + i + s);
        for (int i = 0; i < 6; ++i) buffer[i] = i % 2 ? -7 : rank_ * 10 + i + s;
        start_wait(&r[1]);
        for (int p = 0; p < size_; ++p)
            for (int j = 0; j < 3; ++j) CHECK_INT(gathered[p * 3 + j], p * 10 + 2 * j + s);
        own[0] = rank_ + s;
        own[1] = 1;
        if (rank_ == 0) total[0] = s, total[1] = 1;
        start_wait(&r[2]);
        if (rank_ == 0) {
            CHECK_INT(total[0], size_ * (size_ - 1) / 2 + size_ * s);
            CHECK_INT(total[1], size_);
        }
    }
    for (int i = 0; i < 3; ++i) MPI_Request_free(&r[i]);
    MPI_Type_free(&strided);
}

/* MPI_IN_PLACE forms: Allreduce, Allgather, Gather and Scatter at the root. */
static void in_place_forms(void) {
    int sum[3], all[3 * 16], block[3];
    MPI_Request r[4];
    MPI_Allreduce_init(MPI_IN_PLACE, sum, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 3, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    if (rank_ == 0) {
        MPI_Gather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 3, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
        MPI_Scatter_init(all, 3, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    } else {
        MPI_Gather_init(block, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
        MPI_Scatter_init(NULL, 0, MPI_DATATYPE_NULL, block, 3, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    }
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < 3; ++i) sum[i] = rank_ + i + s;
        start_wait(&r[0]);
        for (int i = 0; i < 3; ++i) CHECK_INT(sum[i], size_ * (size_ - 1) / 2 + size_ * (i + s));
        for (int i = 0; i < 3 * size_; ++i) all[i] = i / 3 == rank_ ? rank_ * 10 + i % 3 + s : -1;
        start_wait(&r[1]);
        for (int i = 0; i < 3 * size_; ++i) CHECK_INT(all[i], (i / 3) * 10 + i % 3 + s);
        for (int i = 0; i < 3; ++i) block[i] = rank_ * 100 + i + s;
        if (rank_ == 0)
            for (int i = 0; i < 3 * size_; ++i) all[i] = i < 3 ? i + s : -1;
        start_wait(&r[2]);
        if (rank_ == 0)
            for (int i = 0; i < 3 * size_; ++i) CHECK_INT(all[i], (i / 3) * 100 + i % 3 + s);
        if (rank_ == 0)
            for (int i = 0; i < 3 * size_; ++i) all[i] = 1000 + i + s;
        for (int i = 0; i < 3; ++i) block[i] = -1;
        start_wait(&r[3]);
        if (rank_ == 0)
            for (int i = 0; i < 3; ++i) CHECK_INT(all[i], 1000 + i + s); /* the root's block stays */
        else
            for (int i = 0; i < 3; ++i) CHECK_INT(block[i], 1000 + rank_ * 3 + i + s);
    }
    for (int i = 0; i < 4; ++i) MPI_Request_free(&r[i]);
}

/* Six starts of collectives the switch can run, nothing else (for ISVP_MPI_STATS). */
static void counted_starts(void) {
    int a = rank_, sum = 0;
    MPI_Request r[2];
    MPI_Allreduce_init(&a, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int s = 0; s < 3; ++s) {
        a = rank_;
        start_wait(&r[0]);
        CHECK_INT(sum, size_ * (size_ - 1) / 2);
        start_wait(&r[1]);
        CHECK_INT(a, 0);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

/* MPI_Alltoall_init as the blocking MPI_Alltoall offloads it: contiguous
 * blocks, strided send and receive types (the receive's gaps untouched),
 * MPI_IN_PLACE; all three outstanding at once on one communicator (each
 * has a context of its own), then started in the reverse order. Results
 * against the definition. Six starts, nothing else (for ISVP_MPI_STATS). */
static void alltoall_forms(void) {
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided); /* 2 ints, a gap between: extent 3 */
    MPI_Type_commit(&strided);
    int plain_send[2 * 16], plain_recv[2 * 16], strided_send[3 * 16], strided_recv[3 * 16], in_place[2 * 16];
    MPI_Request r[3];
    MPI_Alltoall_init(plain_send, 2, MPI_INT, plain_recv, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Alltoall_init(strided_send, 1, strided, strided_recv, 1, strided, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    for (int s = 0; s < 2; ++s) {
        for (int b = 0; b < size_; ++b)
            for (int j = 0; j < 2; ++j) {
                plain_send[2 * b + j] = value(rank_, s, b) + j;
                plain_recv[2 * b + j] = -1;
                strided_send[3 * b + 2 * j] = value(rank_, s, b) + 50 + j;
                in_place[2 * b + j] = value(rank_, s, b) + 90 + j;
            }
        for (int i = 0; i < 3 * size_; ++i) {
            if (i % 3 == 1) strided_send[i] = -5;
            strided_recv[i] = -7;
        }
        if (s == 0) {
            CHECK_INT(MPI_Startall(3, r), MPI_SUCCESS);
        } else {
            for (int i = 2; i >= 0; --i) CHECK_INT(MPI_Start(&r[i]), MPI_SUCCESS);
        }
        CHECK_INT(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int p = 0; p < size_; ++p)
            for (int j = 0; j < 2; ++j) {
                CHECK_INT(plain_recv[2 * p + j], value(p, s, rank_) + j);
                CHECK_INT(strided_recv[3 * p + 2 * j], value(p, s, rank_) + 50 + j);
                CHECK_INT(in_place[2 * p + j], value(p, s, rank_) + 90 + j);
            }
        for (int p = 0; p < size_; ++p) CHECK_INT(strided_recv[3 * p + 1], -7);
    }
    for (int i = 0; i < 3; ++i) MPI_Request_free(&r[i]);
    MPI_Type_free(&strided);
}

/* More persistent collectives than the switch has communicator-table rows:
 * the first ones get a context each, the members agree to run the rest in
 * software; every result is right; a communicator made afterwards works. */
static void more_than_the_switch_holds(void) {
    enum { M = 40 };
    int in[M], out[M];
    MPI_Request r[M];
    for (int i = 0; i < M; ++i)
        MPI_Allreduce_init(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[i]);
    for (int i = 0; i < M; ++i) in[i] = i + rank_;
    CHECK_INT(MPI_Startall(M, r), MPI_SUCCESS);
    CHECK_INT(MPI_Waitall(M, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < M; ++i) CHECK_INT(out[i], i * size_ + size_ * (size_ - 1) / 2);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    CHECK_INT(sum, size_);
    for (int i = 0; i < M; ++i) MPI_Request_free(&r[i]);
    MPI_Comm_free(&dup);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc > 1 && strcmp(argv[1], "count") == 0) {
        counted_starts();
    } else if (argc > 1 && strcmp(argv[1], "alltoall") == 0) {
        alltoall_forms();
    } else if (argc > 1 && strcmp(argv[1], "many") == 0) {
        more_than_the_switch_holds();
    } else {
        every_collective(MPI_COMM_WORLD);
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, size_ - rank_, &half);
        every_collective(half);
        MPI_Comm_free(&half);
        start_order();
        inactive_semantics();
        float_identical();
        derived_types();
        in_place_forms();
        alltoall_forms();
    }
    const int status = mpi_check_done("coll_persistent", rank_);
    MPI_Finalize();
    return status;
}
