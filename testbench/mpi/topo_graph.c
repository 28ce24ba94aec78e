/* Graph and distributed graph topologies (MPI 3.1 §7.5.3-7.5.5) on 4 ranks:
 * MPI_Graph_create and its queries (Graphdims_get, Graph_get, Graph_neighbors(_count),
 * Graph_map, Topo_test = MPI_GRAPH), fewer nodes than ranks (MPI_COMM_NULL),
 * an empty graph; MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create
 * (weights, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY, edges given by another rank,
 * Topo_test = MPI_DIST_GRAPH); MPI_Comm_dup keeping every kind of topology.
 * Errors fail every rank alike: an invalid edge passed by one rank, ranks
 * passing different graphs, an adjacent graph whose ends disagree, some
 * ranks unweighted and others not; a query of the wrong topology kind is
 * MPI_ERR_TOPOLOGY. And MPI_Dims_create's balanced choices. */
#include <string.h>

#include "mpi_check.h"

static int rank, size;

static void check_graph_queries(MPI_Comm graph, const int* index, const int* edges, int nnodes) {
    int topo = -1, n = -1, e = -1;
    CHECK_INT(MPI_Topo_test(graph, &topo), MPI_SUCCESS);
    CHECK_INT(topo, MPI_GRAPH);
    CHECK_INT(MPI_Graphdims_get(graph, &n, &e), MPI_SUCCESS);
    CHECK_INT(n, nnodes);
    CHECK_INT(e, index[nnodes - 1]);
    int got_index[8], got_edges[16];
    CHECK_INT(MPI_Graph_get(graph, 8, 16, got_index, got_edges), MPI_SUCCESS);
    for (int i = 0; i < nnodes; ++i) CHECK_INT(got_index[i], index[i]);
    for (int k = 0; k < index[nnodes - 1]; ++k) CHECK_INT(got_edges[k], edges[k]);
    /* Smaller arrays get what fits. */
    int short_index[2] = {-1, -1}, short_edges[2] = {-1, -1};
    CHECK_INT(MPI_Graph_get(graph, 1, 1, short_index, short_edges), MPI_SUCCESS);
    CHECK_INT(short_index[0], index[0]);
    CHECK_INT(short_index[1], -1);
    CHECK_INT(short_edges[0], edges[0]);
    CHECK_INT(short_edges[1], -1);
    for (int r = 0; r < nnodes; ++r) {
        const int first = r == 0 ? 0 : index[r - 1];
        int count = -1, neighbours[16];
        CHECK_INT(MPI_Graph_neighbors_count(graph, r, &count), MPI_SUCCESS);
        CHECK_INT(count, index[r] - first);
        CHECK_INT(MPI_Graph_neighbors(graph, r, 16, neighbours), MPI_SUCCESS);
        for (int k = 0; k < count; ++k) CHECK_INT(neighbours[k], edges[first + k]);
    }
}

static void test_graph(void) {
    /* The example of MPI 3.1 §7.5.3 plus a self loop and a double edge: 0-0, 0-1, 0-3, 1-2 twice, 2-3. */
    const int index[4] = {3, 6, 9, 11};
    const int edges[11] = {0, 1, 3, 0, 2, 2, 1, 1, 3, 2, 0};
    MPI_Comm graph;
    CHECK_INT(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 1, &graph), MPI_SUCCESS);
    CHECK(graph != MPI_COMM_NULL);
    int graph_rank = -1;
    MPI_Comm_rank(graph, &graph_rank);
    CHECK_INT(graph_rank, rank);
    check_graph_queries(graph, index, edges, 4);
    MPI_Comm dup;
    CHECK_INT(MPI_Comm_dup(graph, &dup), MPI_SUCCESS);
    check_graph_queries(dup, index, edges, 4);
    MPI_Comm_free(&dup);
    /* A Cartesian query on a graph communicator. */
    MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
    int ndims = -1;
    CHECK_INT(mpi_error_class(MPI_Cartdim_get(graph, &ndims)), MPI_ERR_TOPOLOGY);
    CHECK_INT(mpi_error_class(MPI_Dist_graph_neighbors_count(graph, &ndims, &ndims, &ndims)), MPI_ERR_TOPOLOGY);
    int count = 0;
    CHECK_INT(mpi_error_class(MPI_Graph_neighbors_count(graph, 4, &count)), MPI_ERR_RANK);
    MPI_Comm_free(&graph);

    /* Three nodes of four ranks: rank 3 is not in the graph. */
    const int index3[3] = {1, 2, 2};
    const int edges3[2] = {1, 0};
    CHECK_INT(MPI_Graph_create(MPI_COMM_WORLD, 3, index3, edges3, 0, &graph), MPI_SUCCESS);
    if (rank == 3) {
        CHECK(graph == MPI_COMM_NULL);
    } else {
        check_graph_queries(graph, index3, edges3, 3);
        MPI_Comm_free(&graph);
    }
    int newrank = -2;
    CHECK_INT(MPI_Graph_map(MPI_COMM_WORLD, 3, index3, edges3, &newrank), MPI_SUCCESS);
    CHECK_INT(newrank, rank < 3 ? rank : MPI_UNDEFINED);
    /* No nodes: MPI_COMM_NULL everywhere. */
    CHECK_INT(MPI_Graph_create(MPI_COMM_WORLD, 0, index3, edges3, 0, &graph), MPI_SUCCESS);
    CHECK(graph == MPI_COMM_NULL);
}

static void test_graph_errors(void) {
    MPI_Comm graph = MPI_COMM_NULL;
    const int index[4] = {1, 2, 3, 4};
    int edges[4] = {1, 0, 3, 2};
    /* Rank 2 alone passes an edge to node 9: every rank fails (none waits in a collective). */
    if (rank == 2) edges[0] = 9;
    CHECK_INT(mpi_error_class(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph)), MPI_ERR_ARG);
    CHECK(graph == MPI_COMM_NULL);
    /* Valid but different graphs. */
    if (rank == 2) edges[0] = 2;
    CHECK_INT(mpi_error_class(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph)), MPI_ERR_ARG);
    /* Rank 1 alone passes a NULL result pointer: every rank fails. */
    if (rank == 2) edges[0] = 1;
    CHECK_INT(mpi_error_class(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, rank == 1 ? NULL : &graph)),
              MPI_ERR_ARG);
    /* More nodes than ranks. */
    const int index5[5] = {0, 0, 0, 0, 0};
    CHECK_INT(mpi_error_class(MPI_Graph_create(MPI_COMM_WORLD, 5, index5, edges, 0, &graph)), MPI_ERR_ARG);
    int nnodes = 0, nedges = 0;
    CHECK_INT(mpi_error_class(MPI_Graphdims_get(MPI_COMM_WORLD, &nnodes, &nedges)), MPI_ERR_TOPOLOGY);
}

static void test_dist_graph(void) {
    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    int indegree = -1, outdegree = -1, weighted = -1, topo = -1;
    int sources[8], destinations[8], sweights[8], dweights[8];
    /* Adjacent, weighted: in from previous (weight 10 * previous), out to next twice (weights 10 * rank, + 1). */
    {
        const int src[2] = {previous, previous}, sw[2] = {10 * previous, 10 * previous + 1};
        const int dst[2] = {next, next}, dw[2] = {10 * rank, 10 * rank + 1};
        MPI_Comm dist;
        CHECK_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 1, &dist),
                  MPI_SUCCESS);
        for (int copy = 0; copy < 2; ++copy) {
            MPI_Comm comm = dist;
            if (copy) MPI_Comm_dup(dist, &comm);
            CHECK_INT(MPI_Topo_test(comm, &topo), MPI_SUCCESS);
            CHECK_INT(topo, MPI_DIST_GRAPH);
            CHECK_INT(MPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted), MPI_SUCCESS);
            CHECK_INT(indegree, 2);
            CHECK_INT(outdegree, 2);
            CHECK_INT(weighted, 1);
            CHECK_INT(MPI_Dist_graph_neighbors(comm, 8, sources, sweights, 8, destinations, dweights), MPI_SUCCESS);
            for (int i = 0; i < 2; ++i) {
                CHECK_INT(sources[i], src[i]);
                CHECK_INT(sweights[i], sw[i]);
                CHECK_INT(destinations[i], dst[i]);
                CHECK_INT(dweights[i], dw[i]);
            }
            if (copy) MPI_Comm_free(&comm);
        }
        MPI_Comm_free(&dist);
    }
    /* Adjacent, unweighted: weighted = 0, weight arrays may be MPI_UNWEIGHTED and are not written. */
    {
        const int src[1] = {previous}, dst[1] = {next};
        MPI_Comm dist;
        CHECK_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                                 MPI_INFO_NULL, 0, &dist),
                  MPI_SUCCESS);
        CHECK_INT(MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted), MPI_SUCCESS);
        CHECK_INT(weighted, 0);
        sweights[0] = -5;
        CHECK_INT(MPI_Dist_graph_neighbors(dist, 1, sources, sweights, 1, destinations, MPI_UNWEIGHTED), MPI_SUCCESS);
        CHECK_INT(sources[0], previous);
        CHECK_INT(destinations[0], next);
        CHECK_INT(sweights[0], -5);
        MPI_Comm_free(&dist);
    }
    /* No edges with MPI_WEIGHTS_EMPTY: weighted. */
    {
        MPI_Comm dist;
        CHECK_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                                 MPI_INFO_NULL, 0, &dist),
                  MPI_SUCCESS);
        CHECK_INT(MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted), MPI_SUCCESS);
        CHECK_INT(indegree + outdegree, 0);
        CHECK_INT(weighted, 1);
        MPI_Comm_free(&dist);
    }
    /* MPI_Dist_graph_create: rank 0 gives every edge r -> r+1 (weight r) and r -> r+2 (weight 100 + r);
     * rank 3 adds a self loop 3 -> 3 (weight 7). In-edges are ordered by the rank that gave them. */
    {
        int n = 0, src[4], degrees[4], dst[8], w[8];
        if (rank == 0) {
            n = 4;
            for (int r = 0; r < 4; ++r) {
                src[r] = r;
                degrees[r] = 2;
                dst[2 * r] = (r + 1) % 4;
                w[2 * r] = r;
                dst[2 * r + 1] = (r + 2) % 4;
                w[2 * r + 1] = 100 + r;
            }
        } else if (rank == 3) {
            n = 1;
            src[0] = 3;
            degrees[0] = 1;
            dst[0] = 3;
            w[0] = 7;
        }
        MPI_Comm dist;
        CHECK_INT(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, degrees, dst, w, MPI_INFO_NULL, 0, &dist), MPI_SUCCESS);
        CHECK_INT(MPI_Topo_test(dist, &topo), MPI_SUCCESS);
        CHECK_INT(topo, MPI_DIST_GRAPH);
        CHECK_INT(MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted), MPI_SUCCESS);
        CHECK_INT(indegree, rank == 3 ? 3 : 2);
        CHECK_INT(outdegree, rank == 3 ? 3 : 2);
        CHECK_INT(weighted, 1);
        CHECK_INT(MPI_Dist_graph_neighbors(dist, 8, sources, sweights, 8, destinations, dweights), MPI_SUCCESS);
        /* Rank 0's list, in its order: edges (r, r+1), (r, r+2) for r = 0..3. */
        const int from1 = (rank + 3) % 4, from2 = (rank + 2) % 4;
        const int first = from1 < from2 ? from1 : from2, second = from1 < from2 ? from2 : from1;
        CHECK_INT(sources[0], first);
        CHECK_INT(sweights[0], first == from1 ? from1 : 100 + from2);
        CHECK_INT(sources[1], second);
        CHECK_INT(sweights[1], second == from1 ? from1 : 100 + from2);
        CHECK_INT(destinations[0], (rank + 1) % 4);
        CHECK_INT(dweights[0], rank);
        CHECK_INT(destinations[1], (rank + 2) % 4);
        CHECK_INT(dweights[1], 100 + rank);
        if (rank == 3) {
            CHECK_INT(sources[2], 3);
            CHECK_INT(sweights[2], 7);
            CHECK_INT(destinations[2], 3);
            CHECK_INT(dweights[2], 7);
        }
        MPI_Comm_free(&dist);
    }
    /* Every rank passing MPI_UNWEIGHTED with no edges: unweighted. */
    {
        MPI_Comm dist;
        CHECK_INT(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist),
                  MPI_SUCCESS);
        CHECK_INT(MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted), MPI_SUCCESS);
        CHECK_INT(indegree + outdegree + weighted, 0);
        MPI_Comm_free(&dist);
    }
}

static void test_dist_graph_errors(void) {
    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    MPI_Comm dist = MPI_COMM_NULL;
    /* The ends of the edges disagree: everyone lists `next` as its source. */
    const int wrong[1] = {next}, right[1] = {previous}, dst[1] = {next};
    CHECK_INT(mpi_error_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, wrong, MPI_UNWEIGHTED, 1, dst,
                                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist)),
              MPI_ERR_ARG);
    CHECK(dist == MPI_COMM_NULL);
    /* Rank 1 alone unweighted. */
    const int w[1] = {1};
    const int* weights = rank == 1 ? MPI_UNWEIGHTED : w;
    CHECK_INT(mpi_error_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, right, weights, 1, dst, weights,
                                                             MPI_INFO_NULL, 0, &dist)),
              MPI_ERR_ARG);
    /* Rank 0 alone names a rank outside the communicator: every rank fails. */
    const int bad[1] = {rank == 0 ? size : next}, one[1] = {1}, me[1] = {rank};
    const int expected = rank == 0 ? MPI_ERR_RANK : MPI_ERR_ARG;
    CHECK_INT(mpi_error_class(
                  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, one, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist)),
              expected);
    /* A negative weight; MPI_WEIGHTS_EMPTY with edges. */
    const int negative[1] = {-1};
    CHECK_INT(
        mpi_error_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, one, dst, negative, MPI_INFO_NULL, 0, &dist)),
        MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(
                  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, one, dst, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dist)),
              MPI_ERR_ARG);
    CHECK(dist == MPI_COMM_NULL);
    /* The communicators made so far still work: a valid graph after the failures. */
    CHECK_INT(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, one, dst, w, MPI_INFO_NULL, 0, &dist), MPI_SUCCESS);
    int indegree = -1, outdegree = -1, weighted = -1;
    MPI_Dist_graph_neighbors_count(dist, &indegree, &outdegree, &weighted);
    CHECK_INT(indegree, 1);
    CHECK_INT(outdegree, 1);
    MPI_Comm_free(&dist);
}

static void test_cart_dup(void) {
    const int dims[2] = {2, 2}, periods[2] = {1, 0};
    MPI_Comm cart, dup;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &dup);
    int topo = -1, got_dims[2], got_periods[2], coords[2];
    MPI_Topo_test(dup, &topo);
    CHECK_INT(topo, MPI_CART);
    CHECK_INT(MPI_Cart_get(dup, 2, got_dims, got_periods, coords), MPI_SUCCESS);
    CHECK_INT(got_dims[0] * 10 + got_dims[1], 22);
    CHECK_INT(got_periods[0] * 10 + got_periods[1], 10);
    CHECK_INT(coords[0] * 2 + coords[1], rank);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int nnodes = 0, nedges = 0;
    CHECK_INT(mpi_error_class(MPI_Graphdims_get(dup, &nnodes, &nedges)), MPI_ERR_TOPOLOGY);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
    MPI_Topo_test(MPI_COMM_WORLD, &topo);
    CHECK_INT(topo, MPI_UNDEFINED);
}

/* MPI_Dims_create: the most balanced factorisation (smallest spread; ties
 * broken as MPICH does), non-increasing, fixed entries kept. */
static void test_dims(void) {
    static const struct {
        int nodes, ndims, dims[5];
    } cases[] = {{72, 2, {9, 8}},          {5040, 3, {21, 16, 15}},       {10800, 3, {27, 20, 20}},
                 {5616, 4, {13, 9, 8, 6}}, {98784, 5, {14, 14, 9, 8, 7}}, {999983, 2, {999983, 1}},
                 {1, 3, {1, 1, 1}}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        int dims[5] = {0, 0, 0, 0, 0};
        CHECK_INT(MPI_Dims_create(cases[c].nodes, cases[c].ndims, dims), MPI_SUCCESS);
        for (int d = 0; d < cases[c].ndims; ++d) CHECK_INT(dims[d], cases[c].dims[d]);
    }
    int fixed[3] = {0, 3, 0};
    CHECK_INT(MPI_Dims_create(72, 3, fixed), MPI_SUCCESS);
    CHECK_INT(fixed[0] * 100 + fixed[1] * 10 + fixed[2], 634);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CHECK(MPI_UNWEIGHTED != NULL);
    CHECK(MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
    test_dims();
    test_graph();
    test_dist_graph();
    test_cart_dup();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_graph_errors();
    test_dist_graph_errors();
    const int status = mpi_check_done("topo_graph", rank);
    MPI_Finalize();
    return status;
}
