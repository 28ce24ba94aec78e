/* Communicators and groups, in C: dup, split (colour, key order, ties by
 * old rank, MPI_UNDEFINED giving MPI_COMM_NULL), compare, groups (incl,
 * excl, ranges, union, intersection, difference, translate, compare),
 * MPI_Comm_create, split_type, names, attributes with copy and delete
 * callbacks, messages on split communicators, MPI_Dims_create, Cartesian
 * communicators (create, get, rank, coords, shift, sub, dup).
 * Run: isvp run -n 8 --set topology.torus=2x2x2 -- mpi_communicators */
#include <string.h>

#include "mpi_check.h"

static int rank = -1, size = 0;

static void check_split(void) {
    /* Colour = rank % 3, key = -rank: members in reverse world order. */
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &split);
    int split_rank = -1, split_size = 0;
    MPI_Comm_rank(split, &split_rank);
    MPI_Comm_size(split, &split_size);
    int expected_size = 0, expected_rank = 0;
    for (int r = 0; r < size; ++r)
        if (r % 3 == rank % 3) {
            ++expected_size;
            if (r > rank) ++expected_rank;
        }
    CHECK_INT(split_size, expected_size);
    CHECK_INT(split_rank, expected_rank);
    /* Messages stay inside the new communicator: a ring there. */
    const int right = (split_rank + 1) % split_size, left = (split_rank + split_size - 1) % split_size;
    int token = rank, from = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 0, &from, 1, MPI_INT, left, 0, split, MPI_STATUS_IGNORE);
    int expected_from = -1;
    for (int r = 0; r < size; ++r) /* world rank of comm rank `left` */
        if (r % 3 == rank % 3) {
            int position = 0;
            for (int q = 0; q < size; ++q)
                if (q % 3 == rank % 3 && q > r) ++position;
            if (position == left) expected_from = r;
        }
    CHECK_INT(from, expected_from);
    int result = -1;
    MPI_Comm_compare(split, split, &result);
    CHECK_INT(result, MPI_IDENT);
    MPI_Comm_compare(split, MPI_COMM_WORLD, &result);
    CHECK_INT(result, MPI_UNEQUAL);
    MPI_Comm_free(&split);

    /* Equal keys: ties broken by the old rank. MPI_UNDEFINED: no communicator. */
    MPI_Comm halves;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : rank % 2, 7, &halves);
    if (rank == 0) {
        CHECK(halves == MPI_COMM_NULL);
    } else {
        int half_rank = -1;
        MPI_Comm_rank(halves, &half_rank);
        CHECK_INT(half_rank, rank % 2 ? rank / 2 : rank / 2 - 1);
        MPI_Comm_free(&halves);
    }

    /* dup: congruent; reversed order: similar. */
    MPI_Comm dup, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(dup, MPI_COMM_WORLD, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_compare(reversed, MPI_COMM_WORLD, &result);
    CHECK_INT(result, MPI_SIMILAR);
    int reversed_rank = -1;
    MPI_Comm_rank(reversed, &reversed_rank);
    CHECK_INT(reversed_rank, size - 1 - rank);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&dup);

    /* Many communicators at once: more than the switch's 32 context IDs. */
    MPI_Comm many[40];
    for (int i = 0; i < 40; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &many[i]);
    int sum = 0, value = rank;
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 1, &sum, 1, MPI_INT, (rank + size - 1) % size, 1, many[39],
                 MPI_STATUS_IGNORE);
    CHECK_INT(sum, (rank + size - 1) % size);
    for (int i = 0; i < 40; ++i) MPI_Comm_free(&many[i]);

    /* MPI_COMM_TYPE_SHARED: every rank is its own node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    CHECK_INT(node_size, 1);
    MPI_Comm_free(&node);
}

static void check_groups(void) {
    MPI_Group world, evens, odds, first_three, all, none, back;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = 0, r = -1, result = -1;
    MPI_Group_size(world, &n);
    MPI_Group_rank(world, &r);
    CHECK(n == size && r == rank);
    int even_ranks[4] = {0, 2, 4, 6};
    MPI_Group_incl(world, 4, even_ranks, &evens);
    MPI_Group_excl(world, 4, even_ranks, &odds);
    int range[1][3] = {{0, 2, 1}};
    MPI_Group_range_incl(world, 1, range, &first_three);
    MPI_Group_size(first_three, &n);
    CHECK_INT(n, 3);
    MPI_Group_rank(evens, &r);
    CHECK_INT(r, rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED);
    int from[3] = {1, 3, MPI_PROC_NULL}, to[3];
    MPI_Group_translate_ranks(odds, 3, from, world, to);
    CHECK(to[0] == 3 && to[1] == 7 && to[2] == MPI_PROC_NULL);
    MPI_Group_translate_ranks(world, 2, even_ranks, odds, to);
    CHECK(to[0] == MPI_UNDEFINED && to[1] == MPI_UNDEFINED);
    MPI_Group_union(evens, odds, &all);
    MPI_Group_compare(all, world, &result);
    CHECK_INT(result, MPI_SIMILAR);
    MPI_Group_intersection(evens, odds, &none);
    CHECK(none == MPI_GROUP_EMPTY);
    MPI_Group_difference(world, odds, &back);
    MPI_Group_compare(back, evens, &result);
    CHECK_INT(result, MPI_IDENT);

    /* MPI_Comm_create from the even group: odd ranks get MPI_COMM_NULL. */
    MPI_Comm even_comm;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even_comm);
    if (rank % 2 == 0) {
        int even_rank = -1;
        MPI_Comm_rank(even_comm, &even_rank);
        CHECK_INT(even_rank, rank / 2);
        MPI_Comm_free(&even_comm);
    } else {
        CHECK(even_comm == MPI_COMM_NULL);
    }
    MPI_Group groups[6] = {world, evens, odds, first_three, all, back};
    for (int i = 0; i < 6; ++i) MPI_Group_free(&groups[i]);
    MPI_Group_free(&none);
    CHECK(none == MPI_GROUP_NULL);
}

static int copies = 0, deletions = 0;

static int copy_attribute(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
    (void)comm, (void)keyval, (void)extra;
    ++copies;
    *(void**)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_attribute(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    ++deletions;
    return MPI_SUCCESS;
}

static void check_attributes_and_names(void) {
    int keyval = MPI_KEYVAL_INVALID, flag = 0;
    static int payload = 42;
    MPI_Comm_create_keyval(copy_attribute, delete_attribute, &keyval, NULL);
    MPI_Comm dup, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, keyval, &payload);
    int* value = NULL;
    MPI_Comm_get_attr(dup, keyval, &value, &flag);
    CHECK(flag == 1 && value == &payload);
    MPI_Comm_dup(dup, &dup2);
    CHECK_INT(copies, 1);
    MPI_Comm_get_attr(dup2, keyval, &value, &flag);
    CHECK(flag == 1 && *value == 42);
    MPI_Comm_free(&dup2);
    CHECK_INT(deletions, 1);
    MPI_Comm_delete_attr(dup, keyval);
    CHECK_INT(deletions, 2);
    MPI_Comm_get_attr(dup, keyval, &value, &flag);
    CHECK(flag == 0);
    MPI_Comm_free_keyval(&keyval);
    CHECK(keyval == MPI_KEYVAL_INVALID);

    char name[MPI_MAX_OBJECT_NAME];
    int length = -1;
    MPI_Comm_get_name(dup, name, &length);
    CHECK(length == 0);
    MPI_Comm_set_name(dup, "solver");
    MPI_Comm_get_name(dup, name, &length);
    CHECK(strcmp(name, "solver") == 0 && length == 6);
    MPI_Comm_free(&dup);
}

static void check_dims(void) {
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(12, 2, dims);
    CHECK(dims[0] == 4 && dims[1] == 3);
    dims[0] = dims[1] = dims[2] = 0;
    MPI_Dims_create(16, 3, dims);
    CHECK(dims[0] == 4 && dims[1] == 2 && dims[2] == 2);
    int fixed[2] = {0, 5};
    MPI_Dims_create(10, 2, fixed);
    CHECK(fixed[0] == 2 && fixed[1] == 5);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {0, 3};
    CHECK_INT(mpi_error_class(MPI_Dims_create(10, 2, bad)), MPI_ERR_DIMS);
    int status = 0;
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK_INT(status, MPI_UNDEFINED);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A 2x4 grid, periodic along the rows (dimension 1) only. */
static void check_cartesian(void) {
    int dims[2] = {2, 4}, periods[2] = {0, 1}, status = -1;
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Topo_test(grid, &status);
    CHECK_INT(status, MPI_CART);
    int ndims = 0, got_dims[2], got_periods[2], coords[2], grid_rank = -1;
    MPI_Cartdim_get(grid, &ndims);
    MPI_Cart_get(grid, 2, got_dims, got_periods, coords);
    MPI_Comm_rank(grid, &grid_rank);
    CHECK(ndims == 2 && got_dims[1] == 4 && got_periods[0] == 0 && got_periods[1] == 1);
    CHECK(coords[0] == grid_rank / 4 && coords[1] == grid_rank % 4);
    int back = -1;
    MPI_Cart_rank(grid, coords, &back);
    CHECK_INT(back, grid_rank);
    int wrapped[2] = {coords[0], coords[1] + 4};
    MPI_Cart_rank(grid, wrapped, &back);
    CHECK_INT(back, grid_rank);
    int up = -2, down = -2, left = -2, right = -2;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    CHECK_INT(up, coords[0] == 0 ? MPI_PROC_NULL : grid_rank - 4);
    CHECK_INT(down, coords[0] == 1 ? MPI_PROC_NULL : grid_rank + 4);
    CHECK_INT(left, coords[0] * 4 + (coords[1] + 3) % 4);
    CHECK_INT(right, coords[0] * 4 + (coords[1] + 1) % 4);
    /* A halo exchange on the shifts: MPI_PROC_NULL at the open edges. */
    int mine = grid_rank, from_up = -1, from_left = -1;
    MPI_Sendrecv(&mine, 1, MPI_INT, down, 0, &from_up, 1, MPI_INT, up, 0, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&mine, 1, MPI_INT, right, 1, &from_left, 1, MPI_INT, left, 1, grid, MPI_STATUS_IGNORE);
    CHECK_INT(from_up, up == MPI_PROC_NULL ? -1 : up);
    CHECK_INT(from_left, left);
    /* Rows: keep dimension 1. */
    int remain[2] = {0, 1}, row_size = 0, row_dims[1];
    MPI_Comm row;
    MPI_Cart_sub(grid, remain, &row);
    MPI_Comm_size(row, &row_size);
    MPI_Cart_get(row, 1, row_dims, got_periods, coords);
    CHECK(row_size == 4 && row_dims[0] == 4 && got_periods[0] == 1 && coords[0] == grid_rank % 4);
    MPI_Comm_free(&row);
    MPI_Comm copy;
    MPI_Comm_dup(grid, &copy);
    MPI_Topo_test(copy, &status);
    CHECK_INT(status, MPI_CART);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&grid);
    /* A smaller grid leaves the last ranks out. */
    int small[2] = {3, 2}, none[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, small, none, 0, &grid);
    CHECK(rank < 6 ? grid != MPI_COMM_NULL : grid == MPI_COMM_NULL);
    if (grid != MPI_COMM_NULL) MPI_Comm_free(&grid);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &up, &down)), MPI_ERR_TOPOLOGY);
    int too_big[2] = {3, 3};
    CHECK_INT(mpi_error_class(MPI_Cart_create(MPI_COMM_WORLD, 2, too_big, none, 0, &grid)), MPI_ERR_DIMS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(size, 8);
    check_split();
    check_groups();
    check_attributes_and_names();
    check_dims();
    check_cartesian();
    MPI_Finalize();
    return mpi_check_done("mpi_communicators", rank);
}
