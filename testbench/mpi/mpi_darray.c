/* MPI_Type_create_darray (MPI 3.1 §4.1.4) on 4 ranks: BLOCK, CYCLIC(k)
 * and NONE distributions, C and Fortran order, 2 and 3 dimensions, default
 * and explicit dargs, a partial last cyclic block. Each rank's type must
 * select exactly the elements a reference ownership rule gives it, in
 * increasing address order (MPI_Pack), have lb 0 and the global array's
 * extent, and communicate: rank 0 assembles the whole array from every
 * rank's part received with that rank's darray type. Bad arguments are
 * errors. */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define MAX_ELEMENTS 512

static int rank, size;

typedef struct {
    const char* name;
    int ndims;
    int gsizes[3];
    int distribs[3];
    int dargs[3];
    int psizes[3];
    int order;
} Case;

/* The coordinate of the process owning index `index` of one dimension. */
static int owner(int index, int gsize, int distrib, int darg, int psize) {
    if (distrib == MPI_DISTRIBUTE_NONE) return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        const int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        return index / block;
    }
    const int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (index / block) % psize;
}

/* The global linear indices process `who` owns, in increasing address order. */
static int expected_elements(const Case* c, int who, int* out) {
    int coords[3], total = 1, n = 0;
    for (int d = c->ndims - 1, rest = who; d >= 0; --d) { /* process grid: row-major */
        coords[d] = rest % c->psizes[d];
        rest /= c->psizes[d];
    }
    for (int d = 0; d < c->ndims; ++d) total *= c->gsizes[d];
    for (int linear = 0; linear < total; ++linear) {
        /* Array indices of address `linear` in the case's storage order. */
        int index[3], rest = linear, mine = 1;
        for (int i = 0; i < c->ndims; ++i) {
            const int d = c->order == MPI_ORDER_C ? c->ndims - 1 - i : i; /* fastest first */
            index[d] = rest % c->gsizes[d];
            rest /= c->gsizes[d];
        }
        for (int d = 0; d < c->ndims; ++d)
            if (owner(index[d], c->gsizes[d], c->distribs[d], c->dargs[d], c->psizes[d]) != coords[d]) mine = 0;
        if (mine) out[n++] = linear;
    }
    return n;
}

static MPI_Datatype make(const Case* c, int who) {
    MPI_Datatype type;
    CHECK_INT(MPI_Type_create_darray(size, who, c->ndims, c->gsizes, c->distribs, c->dargs, c->psizes, c->order,
                                     MPI_INT, &type),
              MPI_SUCCESS);
    MPI_Type_commit(&type);
    return type;
}

static void run_case(const Case* c) {
    int total = 1, global[MAX_ELEMENTS], expected[MAX_ELEMENTS], packed[MAX_ELEMENTS];
    for (int d = 0; d < c->ndims; ++d) total *= c->gsizes[d];
    for (int i = 0; i < total; ++i) global[i] = 1000 + i;

    MPI_Datatype type = make(c, rank);
    const int n = expected_elements(c, rank, expected);
    int type_size = -1;
    MPI_Aint lb = -1, extent = -1;
    MPI_Type_size(type, &type_size);
    MPI_Type_get_extent(type, &lb, &extent);
    CHECK_INT(type_size, n * (int)sizeof(int));
    CHECK_INT(lb, 0);
    CHECK_INT(extent, total * (MPI_Aint)sizeof(int));

    int position = 0;
    CHECK_INT(MPI_Pack(global, 1, type, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(position, n * (int)sizeof(int));
    for (int i = 0; i < n; ++i)
        if (packed[i] != 1000 + expected[i]) {
            fprintf(stderr, "FAIL %s rank %d: element %d is %d, expected %d\n", c->name, rank, i, packed[i],
                    1000 + expected[i]);
            ++mpi_check_failures;
            break;
        }

    /* Rank 0 assembles the array: each rank sends its part packed; rank 0
     * receives it with that rank's darray type. Every element arrives once. */
    MPI_Send(packed, n, MPI_INT, 0, 5, MPI_COMM_WORLD);
    if (rank == 0) {
        int assembled[MAX_ELEMENTS];
        for (int i = 0; i < total; ++i) assembled[i] = -1;
        for (int from = 0; from < size; ++from) {
            MPI_Datatype theirs = make(c, from);
            MPI_Status status;
            CHECK_INT(MPI_Recv(assembled, 1, theirs, from, 5, MPI_COMM_WORLD, &status), MPI_SUCCESS);
            MPI_Type_free(&theirs);
        }
        for (int i = 0; i < total; ++i)
            if (assembled[i] != 1000 + i) {
                fprintf(stderr, "FAIL %s: assembled element %d is %d\n", c->name, i, assembled[i]);
                ++mpi_check_failures;
                break;
            }
    }
    /* The constructor's arguments come back from MPI_Type_get_contents. */
    int integers, addresses, datatypes, combiner, contents[4 * 3 + 4];
    MPI_Datatype old;
    MPI_Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner);
    CHECK_INT(combiner, MPI_COMBINER_DARRAY);
    CHECK_INT(integers, 4 * c->ndims + 4);
    CHECK_INT(datatypes, 1);
    MPI_Type_get_contents(type, integers, 0, 1, contents, NULL, &old);
    CHECK_INT(contents[0], size);
    CHECK_INT(contents[1], rank);
    CHECK_INT(contents[2], c->ndims);
    CHECK_INT(contents[3 + 3 * c->ndims], c->psizes[0]);
    CHECK_INT(contents[integers - 1], c->order);
    CHECK(old == MPI_INT);
    MPI_Type_free(&type);
}

static void bad_arguments(void) {
    const int gsizes[2] = {4, 4}, block[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    const int none[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG,
                                                                               MPI_DISTRIBUTE_DFLT_DARG};
    const int grid[2] = {2, 2}, wrong_grid[2] = {4, 2}, small[2] = {1, 1}, bad_dist[2] = {7, MPI_DISTRIBUTE_BLOCK};
    MPI_Datatype type;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* The process grid does not have `size` processes. */
    CHECK_INT(mpi_error_class(MPI_Type_create_darray(4, 0, 2, gsizes, block, dflt, wrong_grid, MPI_ORDER_C,
                                                     MPI_INT, &type)),
              MPI_ERR_ARG);
    /* NONE needs one process in its dimension. */
    CHECK_INT(mpi_error_class(
                  MPI_Type_create_darray(4, 0, 2, gsizes, none, dflt, grid, MPI_ORDER_C, MPI_INT, &type)),
              MPI_ERR_ARG);
    /* Blocks of 1 on 2 processes do not cover 4 elements. */
    CHECK_INT(mpi_error_class(
                  MPI_Type_create_darray(4, 0, 2, gsizes, block, small, grid, MPI_ORDER_C, MPI_INT, &type)),
              MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(
                  MPI_Type_create_darray(4, 0, 2, gsizes, bad_dist, dflt, grid, MPI_ORDER_C, MPI_INT, &type)),
              MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_create_darray(4, 4, 2, gsizes, block, dflt, grid, MPI_ORDER_C, MPI_INT,
                                                     &type)),
              MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_create_darray(4, 0, 2, gsizes, block, dflt, grid, 99, MPI_INT, &type)),
              MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "mpi_darray needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    const Case cases[] = {
        {"block-block C", 2, {5, 7}, {B, B}, {D, D}, {2, 2}, MPI_ORDER_C},
        {"block-block Fortran", 2, {5, 7}, {B, B}, {D, D}, {2, 2}, MPI_ORDER_FORTRAN},
        {"cyclic2-block3 Fortran", 2, {6, 5}, {C, B}, {2, 3}, {2, 2}, MPI_ORDER_FORTRAN},
        {"cyclic3 partial C", 2, {7, 8}, {C, C}, {3, 3}, {2, 2}, MPI_ORDER_C},
        {"cyclic-none-block 3d C", 3, {4, 3, 5}, {C, N, B}, {D, D, D}, {2, 1, 2}, MPI_ORDER_C},
        {"block-cyclic-none 3d Fortran", 3, {5, 6, 3}, {B, C, N}, {D, 4, D}, {1, 4, 1}, MPI_ORDER_FORTRAN},
        {"one dimension cyclic", 1, {10}, {C}, {D}, {4}, MPI_ORDER_C},
        {"empty part", 1, {3}, {B}, {1}, {4}, MPI_ORDER_C}, /* rank 3 owns nothing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) run_case(&cases[i]);
    bad_arguments();
    const int status = mpi_check_done("mpi_darray", rank);
    MPI_Finalize();
    return status;
}
