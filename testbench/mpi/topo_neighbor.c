/* The neighbourhood collectives (MPI 3.1 §7.6-7.7), blocking and
 * nonblocking, on Cartesian, graph and distributed graph communicators of
 * 4 ranks. Every block a rank sends says who sent it from which send slot
 * (value sender * 1000 + slot * 10 + element), and every receive slot is
 * checked against the block the standard says lands there:
 *  - Cartesian: per dimension the -1 then the +1 neighbour; block s of a
 *    sender lands in block s ^ 1 of its receiver (MPI 4.0 §8.6), also where
 *    a periodic dimension has extent 2 (both neighbours the same rank) or 1
 *    (the rank itself); MPI_PROC_NULL slots stay untouched;
 *  - graphs: the k-th edge between two ranks carries the k-th block (a
 *    multi-edge and a self loop included).
 * Then the errors: no topology (MPI_ERR_TOPOLOGY), MPI_IN_PLACE
 * (MPI_ERR_BUFFER), a negative count, a NULL request, a neighbour sending
 * more than the receive count (MPI_ERR_TRUNCATE).
 * Usage: topo_neighbor                     the checks above (4 ranks)
 *        topo_neighbor fatal-no-topology   MPI_Ineighbor_alltoall on MPI_COMM_WORLD, default handler
 *        topo_neighbor fatal-inconsistent  an adjacent graph whose ends disagree, default handler */
#include <string.h>

#include "mpi_check.h"

#define MAXN 16
#define SENTINEL (-7)

typedef struct {
    int cart;
    int n_in, n_out;
    int in[MAXN], out[MAXN];
} Neighbours;

static int rank, size;

/* The distributed graph of the test: out-edges of rank r (in this order). */
static int dist_out(int r, int* out) {
    int n = 0;
    out[n++] = (r + 1) % size;
    if (r % 2 == 0) out[n++] = (r + 1) % size; /* a multi-edge */
    if (r == 1) out[n++] = r;                  /* a self loop */
    out[n++] = (r + 2) % size;
    return n;
}

static Neighbours neighbours_of(MPI_Comm comm, int r) {
    Neighbours nb;
    memset(&nb, 0, sizeof nb);
    int topo = MPI_UNDEFINED;
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int ndims = 0, dims[4], periods[4], coords[4], mine[4];
        MPI_Cartdim_get(comm, &ndims);
        MPI_Cart_get(comm, ndims, dims, periods, mine);
        MPI_Cart_coords(comm, r, ndims, coords);
        nb.cart = 1;
        for (int d = 0; d < ndims; ++d)
            for (int step = -1; step <= 1; step += 2) {
                int where[4];
                memcpy(where, coords, sizeof where);
                where[d] += step;
                int other = MPI_PROC_NULL;
                if (periods[d] || (where[d] >= 0 && where[d] < dims[d])) MPI_Cart_rank(comm, where, &other);
                nb.in[nb.n_in++] = other;
                nb.out[nb.n_out++] = other;
            }
    } else if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, r, &nb.n_in);
        MPI_Graph_neighbors(comm, r, MAXN, nb.in);
        nb.n_out = nb.n_in;
        memcpy(nb.out, nb.in, sizeof nb.in);
    } else {
        nb.n_out = dist_out(r, nb.out);
        for (int s = 0; s < size; ++s) { /* in-edges: by source rank, then edge order */
            int out[MAXN];
            const int n = dist_out(s, out);
            for (int k = 0; k < n; ++k)
                if (out[k] == r) nb.in[nb.n_in++] = s;
        }
    }
    return nb;
}

/* The send slot of rank `sender` whose block lands in receive slot i of this rank. */
static int sender_slot(MPI_Comm comm, const Neighbours* me, int i) {
    if (me->cart) return i ^ 1;
    const int sender = me->in[i];
    int occurrence = 0;
    for (int t = 0; t < i; ++t) occurrence += me->in[t] == sender;
    const Neighbours other = neighbours_of(comm, sender);
    for (int j = 0; j < other.n_out; ++j)
        if (other.out[j] == rank && occurrence-- == 0) return j;
    return -1;
}

static int count_for(int sender, int slot) { /* alltoallv/w: zero for some blocks */
    return (sender + slot) % 3;
}

static void wait_or_not(int nonblocking, MPI_Request* request) {
    if (nonblocking) CHECK_INT(MPI_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

static void test_allgather(MPI_Comm comm, const Neighbours* me, int nb) {
    int send[2] = {rank * 1000, rank * 1000 + 1}, recv[2 * MAXN];
    for (int i = 0; i < 2 * MAXN; ++i) recv[i] = SENTINEL;
    MPI_Request request;
    if (nb)
        CHECK_INT(MPI_Ineighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request), MPI_SUCCESS);
    else
        CHECK_INT(MPI_Neighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm), MPI_SUCCESS);
    wait_or_not(nb, &request);
    for (int i = 0; i < me->n_in; ++i)
        for (int k = 0; k < 2; ++k)
            CHECK_INT(recv[2 * i + k], me->in[i] == MPI_PROC_NULL ? SENTINEL : me->in[i] * 1000 + k);

    /* allgatherv: each rank sends 1 + rank % 3 ints, received in reverse slot order. */
    int counts[MAXN], displs[MAXN], at = 0;
    for (int i = me->n_in - 1; i >= 0; --i) {
        counts[i] = me->in[i] == MPI_PROC_NULL ? 0 : 1 + me->in[i] % 3;
        displs[i] = at;
        at += counts[i] + 1; /* a gap that must stay untouched */
    }
    int sendv[3] = {rank * 1000, rank * 1000 + 1, rank * 1000 + 2};
    for (int i = 0; i < 2 * MAXN; ++i) recv[i] = SENTINEL;
    if (nb)
        CHECK_INT(MPI_Ineighbor_allgatherv(sendv, 1 + rank % 3, MPI_INT, recv, counts, displs, MPI_INT, comm, &request),
                  MPI_SUCCESS);
    else
        CHECK_INT(MPI_Neighbor_allgatherv(sendv, 1 + rank % 3, MPI_INT, recv, counts, displs, MPI_INT, comm),
                  MPI_SUCCESS);
    wait_or_not(nb, &request);
    for (int i = 0; i < me->n_in; ++i) {
        for (int k = 0; k < counts[i]; ++k) CHECK_INT(recv[displs[i] + k], me->in[i] * 1000 + k);
        CHECK_INT(recv[displs[i] + counts[i]], SENTINEL);
    }
}

static void test_alltoall(MPI_Comm comm, const Neighbours* me, int nb) {
    int send[3 * MAXN], recv[2 * MAXN];
    for (int j = 0; j < me->n_out; ++j)
        for (int k = 0; k < 2; ++k) send[2 * j + k] = rank * 1000 + j * 10 + k;
    for (int i = 0; i < 2 * MAXN; ++i) recv[i] = SENTINEL;
    MPI_Request request;
    if (nb)
        CHECK_INT(MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request), MPI_SUCCESS);
    else
        CHECK_INT(MPI_Neighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm), MPI_SUCCESS);
    wait_or_not(nb, &request);
    for (int i = 0; i < me->n_in; ++i)
        for (int k = 0; k < 2; ++k)
            CHECK_INT(recv[2 * i + k],
                      me->in[i] == MPI_PROC_NULL ? SENTINEL : me->in[i] * 1000 + sender_slot(comm, me, i) * 10 + k);

    /* alltoallv: block j holds count_for(rank, j) ints (some empty). */
    int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN], at = 0;
    for (int j = 0; j < me->n_out; ++j) {
        scounts[j] = count_for(rank, j);
        sdispls[j] = 3 * j;
        for (int k = 0; k < scounts[j]; ++k) send[3 * j + k] = rank * 1000 + j * 10 + k;
    }
    for (int i = 0; i < me->n_in; ++i) {
        rcounts[i] = me->in[i] == MPI_PROC_NULL ? 0 : count_for(me->in[i], sender_slot(comm, me, i));
        rdispls[i] = at;
        at += rcounts[i] + 1;
    }
    for (int i = 0; i < 2 * MAXN; ++i) recv[i] = SENTINEL;
    if (nb)
        CHECK_INT(
            MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm, &request),
            MPI_SUCCESS);
    else
        CHECK_INT(MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm),
                  MPI_SUCCESS);
    wait_or_not(nb, &request);
    for (int i = 0; i < me->n_in; ++i) {
        for (int k = 0; k < rcounts[i]; ++k)
            CHECK_INT(recv[rdispls[i] + k], me->in[i] * 1000 + sender_slot(comm, me, i) * 10 + k);
        CHECK_INT(recv[rdispls[i] + rcounts[i]], SENTINEL);
    }

    /* alltoallw: ints sent, received as a strided vector type (every other int), byte displacements. */
    MPI_Datatype strided, types_s[MAXN], types_r[MAXN];
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Aint sbytes[MAXN], rbytes[MAXN];
    int wscounts[MAXN], wrcounts[MAXN];
    for (int j = 0; j < me->n_out; ++j) {
        wscounts[j] = 2 * (count_for(rank, j) > 0);
        sbytes[j] = (MPI_Aint)(3 * j * sizeof(int));
        types_s[j] = MPI_INT;
    }
    int wrecv[4 * MAXN];
    for (int i = 0; i < 4 * MAXN; ++i) wrecv[i] = SENTINEL;
    for (int i = 0; i < me->n_in; ++i) {
        wrcounts[i] = me->in[i] == MPI_PROC_NULL ? 0 : (count_for(me->in[i], sender_slot(comm, me, i)) > 0);
        rbytes[i] = (MPI_Aint)(4 * i * sizeof(int));
        types_r[i] = strided;
    }
    for (int j = 0; j < me->n_out; ++j) send[3 * j + 1] = rank * 1000 + j * 10 + 1;
    if (nb) {
        CHECK_INT(
            MPI_Ineighbor_alltoallw(send, wscounts, sbytes, types_s, wrecv, wrcounts, rbytes, types_r, comm, &request),
            MPI_SUCCESS);
        MPI_Type_free(&strided); /* the request holds it */
    } else {
        CHECK_INT(MPI_Neighbor_alltoallw(send, wscounts, sbytes, types_s, wrecv, wrcounts, rbytes, types_r, comm),
                  MPI_SUCCESS);
        MPI_Type_free(&strided);
    }
    wait_or_not(nb, &request);
    for (int i = 0; i < me->n_in; ++i) {
        const int base = me->in[i] * 1000 + sender_slot(comm, me, i) * 10;
        CHECK_INT(wrecv[4 * i], wrcounts[i] ? base : SENTINEL);
        CHECK_INT(wrecv[4 * i + 1], SENTINEL);
        CHECK_INT(wrecv[4 * i + 2], wrcounts[i] ? base + 1 : SENTINEL);
        CHECK_INT(wrecv[4 * i + 3], SENTINEL);
    }
}

static void test_all(MPI_Comm comm, const char* what) {
    if (comm == MPI_COMM_NULL) return;
    const Neighbours me = neighbours_of(comm, rank);
    const int before = mpi_check_failures;
    for (int nb = 0; nb <= 1; ++nb) {
        test_allgather(comm, &me, nb);
        test_alltoall(comm, &me, nb);
    }
    /* A duplicate keeps the topology: the same exchange works on it. */
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    test_alltoall(dup, &me, 1);
    MPI_Comm_free(&dup);
    if (mpi_check_failures != before) fprintf(stderr, "rank %d: failures on %s\n", rank, what);
}

static MPI_Comm cart(int ndims, const int* dims, const int* periods) {
    MPI_Comm comm;
    CHECK_INT(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &comm), MPI_SUCCESS);
    return comm;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "fatal-no-topology") == 0) { /* the default handler ends the job */
        int one = 1, got[4];
        MPI_Request request;
        MPI_Ineighbor_alltoall(&one, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, &request);
    }
    if (argc > 1 && strcmp(argv[1], "fatal-inconsistent") == 0) { /* sources without destinations */
        const int next[1] = {(rank + 1) % size};
        MPI_Comm dist;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, next, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                       0, &dist);
    }
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comms[6];
    int ncomms = 0;
    {
        const int dims[1] = {4}, periodic[1] = {1}, open[1] = {0};
        comms[ncomms++] = cart(1, dims, periodic); /* ring */
        comms[ncomms++] = cart(1, dims, open);     /* ends have MPI_PROC_NULL neighbours */
    }
    {
        const int dims[2] = {2, 2}, periods[2] = {1, 0};
        comms[ncomms++] = cart(2, dims, periods); /* extent 2, periodic: both neighbours one rank */
    }
    {
        const int dims[3] = {1, 4, 1}, periods[3] = {1, 1, 0};
        comms[ncomms++] = cart(3, dims, periods); /* extent 1 periodic: the rank itself, twice */
    }
    {
        /* A graph with a self loop (0-0), a double edge (1-2 twice) and a ring. */
        const int index[4] = {3, 6, 9, 11};
        const int edges[11] = {0, 1, 3, /* 0 */ 0, 2, 2, /* 1 */ 1, 1, 3, /* 2 */ 2, 0 /* 3 */};
        MPI_Comm graph;
        CHECK_INT(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph), MPI_SUCCESS);
        comms[ncomms++] = graph;
    }
    {
        int out[MAXN];
        const int n = dist_out(rank, out);
        MPI_Comm dist;
        const int source[1] = {rank}, degree[1] = {n};
        CHECK_INT(
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, source, degree, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist),
            MPI_SUCCESS);
        comms[ncomms++] = dist;
    }
    const char* names[6] = {"ring", "open line", "2x2", "1x4x1", "graph", "dist graph"};
    for (int c = 0; c < ncomms; ++c) test_all(comms[c], names[c]);

    /* Errors, reported to the caller. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(comms[0], MPI_ERRORS_RETURN);
    int one = 1, got[8];
    MPI_Request request;
    CHECK_INT(mpi_error_class(MPI_Neighbor_allgather(&one, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD)),
              MPI_ERR_TOPOLOGY);
    CHECK_INT(mpi_error_class(MPI_Ineighbor_alltoall(&one, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, &request)),
              MPI_ERR_TOPOLOGY);
    CHECK_INT(mpi_error_class(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, got, 1, MPI_INT, comms[0])),
              MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPI_Neighbor_alltoall(&one, -1, MPI_INT, got, 1, MPI_INT, comms[0])), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Ineighbor_allgather(&one, 1, MPI_INT, got, 1, MPI_INT, comms[0], NULL)), MPI_ERR_ARG);
    /* Neighbours sending more than the receive count: MPI_ERR_TRUNCATE, blocking and nonblocking. */
    int two[2] = {1, 2};
    CHECK_INT(mpi_error_class(MPI_Neighbor_allgather(two, 2, MPI_INT, got, 1, MPI_INT, comms[0])), MPI_ERR_TRUNCATE);
    CHECK_INT(MPI_Ineighbor_allgather(two, 2, MPI_INT, got, 1, MPI_INT, comms[0], &request), MPI_SUCCESS);
    CHECK_INT(mpi_error_class(MPI_Wait(&request, MPI_STATUS_IGNORE)), MPI_ERR_TRUNCATE);
    /* The ring still works. */
    const Neighbours ring = neighbours_of(comms[0], rank);
    test_alltoall(comms[0], &ring, 0);

    for (int c = 0; c < ncomms; ++c)
        if (comms[c] != MPI_COMM_NULL) MPI_Comm_free(&comms[c]);
    const int status = mpi_check_done("topo_neighbor", rank);
    MPI_Finalize();
    return status;
}
