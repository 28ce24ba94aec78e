/* Inter-communicators (MPI 3.1 §6.6): creation, queries, point-to-point
 * (ranks name the remote group), dup/split/create/compare/free, merge, and
 * errors. Run with 5 ranks: group A = world ranks {0, 2, 4} (local ranks in
 * that order), group B = {3, 1} (key -rank: local rank 0 is world 3), so
 * local, remote and world ranks all differ and the groups differ in size. */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int world_rank, world_size;
static int in_a;                /* this rank is in group A */
static int local_size, remote_size;
static int a_members[3] = {0, 2, 4};
static int b_members[2] = {3, 1};

static int remote_world(int remote_rank) {
    return in_a ? b_members[remote_rank] : a_members[remote_rank];
}

/* The world ranks of a group, in group order. */
static void group_worlds(MPI_Group group, int n, int* worlds) {
    MPI_Group world_group;
    int ranks[8];
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int i = 0; i < n; ++i) ranks[i] = i;
    MPI_Group_translate_ranks(group, n, ranks, world_group, worlds);
    MPI_Group_free(&world_group);
}

static void check_queries(MPI_Comm inter) {
    int flag = -1, size = -1, rsize = -1, worlds[8];
    MPI_Group group;
    MPI_Comm_test_inter(inter, &flag);
    CHECK_INT(flag, 1);
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    CHECK_INT(flag, 0);
    MPI_Comm_size(inter, &size);
    CHECK_INT(size, local_size);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_INT(rsize, remote_size);
    MPI_Comm_remote_group(inter, &group);
    MPI_Group_size(group, &size);
    CHECK_INT(size, remote_size);
    group_worlds(group, remote_size, worlds);
    for (int i = 0; i < remote_size; ++i) CHECK_INT(worlds[i], remote_world(i));
    MPI_Group_free(&group);
    MPI_Comm_group(inter, &group);
    group_worlds(group, local_size, worlds);
    for (int i = 0; i < local_size; ++i) CHECK_INT(worlds[i], in_a ? a_members[i] : b_members[i]);
    MPI_Group_free(&group);
}

/* Every rank sends its world rank to every remote rank (tag = its local
 * rank), then receives from each remote rank by rank and by MPI_ANY_SOURCE. */
static void check_point_to_point(MPI_Comm inter, int local_rank) {
    for (int r = 0; r < remote_size; ++r) {
        MPI_Send(&world_rank, 1, MPI_INT, r, local_rank, inter);
        MPI_Send(&world_rank, 1, MPI_INT, r, 50 + local_rank, inter);
    }
    for (int r = remote_size - 1; r >= 0; --r) {
        int value = -1;
        MPI_Status status;
        MPI_Recv(&value, 1, MPI_INT, r, r, inter, &status);
        CHECK_INT(value, remote_world(r));
        CHECK_INT(status.MPI_SOURCE, r);
        CHECK_INT(status.MPI_TAG, r);
    }
    for (int i = 0; i < remote_size; ++i) {
        int value = -1, flag = 0;
        MPI_Status status;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &status);
        CHECK(status.MPI_SOURCE >= 0 && status.MPI_SOURCE < remote_size);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &status);
        CHECK_INT(value, remote_world(status.MPI_SOURCE));
        CHECK_INT(status.MPI_TAG, 50 + status.MPI_SOURCE);
        MPI_Iprobe(MPI_ANY_SOURCE, 50 + status.MPI_SOURCE, inter, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0);
    }
    /* Nonblocking: local rank i < 2 exchanges with remote rank i; A's local
     * rank 2 sends to MPI_PROC_NULL. */
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int out = world_rank * 10, in = -1;
    if (local_rank < 2) MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, inter, &requests[0]);
    MPI_Isend(&out, 1, MPI_INT, local_rank < 2 ? local_rank : MPI_PROC_NULL, 9, inter, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (local_rank < 2) CHECK_INT(in, remote_world(local_rank) * 10);
}

/* Two inter-communicators between the same groups keep their messages apart. */
static void check_separation(MPI_Comm inter, MPI_Comm other, int local_rank) {
    if (local_rank != 0) return;
    int one = 1, two = 2, got = 0;
    MPI_Send(&one, 1, MPI_INT, 0, 3, other);
    MPI_Send(&two, 1, MPI_INT, 0, 3, inter);
    MPI_Recv(&got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    CHECK_INT(got, 2);
    MPI_Recv(&got, 1, MPI_INT, 0, 3, other, MPI_STATUS_IGNORE);
    CHECK_INT(got, 1);
}

static void check_split(MPI_Comm inter, int local_rank) {
    /* Colour by local rank parity, key reversing the order: A {0,2,4} gives
     * colour 0 = {4, 0} and colour 1 = {2}; B {3,1} gives {3} and {1}. */
    MPI_Comm part;
    MPI_Comm_split(inter, local_rank % 2, -local_rank, &part);
    CHECK(part != MPI_COMM_NULL);
    int size = -1, rsize = -1, rank = -1, flag = 0;
    MPI_Comm_test_inter(part, &flag);
    CHECK_INT(flag, 1);
    MPI_Comm_size(part, &size);
    MPI_Comm_remote_size(part, &rsize);
    MPI_Comm_rank(part, &rank);
    if (in_a) {
        CHECK_INT(size, local_rank % 2 == 0 ? 2 : 1);
        CHECK_INT(rsize, 1);
        CHECK_INT(rank, local_rank == 2 ? 0 : local_rank == 0 && size == 2 ? 1 : 0);
    } else {
        CHECK_INT(size, 1);
        CHECK_INT(rsize, local_rank % 2 == 0 ? 2 : 1);
    }
    /* Exchange over the part: B's member sends to every A member of its colour. */
    int value = world_rank, got = -1;
    if (!in_a) {
        for (int r = 0; r < rsize; ++r) MPI_Send(&value, 1, MPI_INT, r, 1, part);
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, 1, part, MPI_STATUS_IGNORE);
        CHECK_INT(got, b_members[local_rank % 2]);
    }
    MPI_Comm_free(&part);
    CHECK(part == MPI_COMM_NULL);
    /* MPI_UNDEFINED, and a colour the other group does not have: MPI_COMM_NULL. */
    MPI_Comm_split(inter, in_a ? (local_rank == 2 ? 7 : MPI_UNDEFINED) : 0, 0, &part);
    CHECK(part == MPI_COMM_NULL);
}

static void check_create(MPI_Comm inter, int local_rank) {
    /* A keeps its local ranks 2, 0 (that order); B keeps its local rank 1. */
    MPI_Group local_group, sub;
    MPI_Comm_group(inter, &local_group);
    int a_ranks[2] = {2, 0}, b_ranks[1] = {1};
    MPI_Group_incl(local_group, in_a ? 2 : 1, in_a ? a_ranks : b_ranks, &sub);
    MPI_Comm made;
    MPI_Comm_create(inter, sub, &made);
    const int member = in_a ? (local_rank == 2 || local_rank == 0) : local_rank == 1;
    CHECK_INT(made != MPI_COMM_NULL, member);
    if (made != MPI_COMM_NULL) {
        int size = -1, rsize = -1, rank = -1;
        MPI_Comm_size(made, &size);
        MPI_Comm_remote_size(made, &rsize);
        MPI_Comm_rank(made, &rank);
        CHECK_INT(size, in_a ? 2 : 1);
        CHECK_INT(rsize, in_a ? 1 : 2);
        if (in_a) CHECK_INT(rank, local_rank == 2 ? 0 : 1);
        int sum = 0, mine = world_rank;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, made);
        CHECK_INT(sum, in_a ? 1 : 4 + 0); /* A gets B's {1}; B gets A's {4, 0} */
        MPI_Comm_free(&made);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&local_group);
}

/* MPI_Comm_create on an intra-communicator with disjoint groups (MPI 2.2):
 * group A's members pass A, group B's pass B; each gets its own group's
 * communicator, ordered as the group. */
static void check_create_disjoint(void) {
    MPI_Group world_group, mine;
    MPI_Comm made;
    int size = -1, rank = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, in_a ? 3 : 2, in_a ? a_members : b_members, &mine);
    MPI_Comm_create(MPI_COMM_WORLD, mine, &made);
    CHECK(made != MPI_COMM_NULL);
    MPI_Comm_size(made, &size);
    MPI_Comm_rank(made, &rank);
    CHECK_INT(size, local_size);
    CHECK_INT(in_a ? a_members[rank] : b_members[rank], world_rank);
    MPI_Comm_free(&made);
    MPI_Group_free(&mine);
    MPI_Group_free(&world_group);
}

static void check_merge(MPI_Comm inter) {
    /* high: A false, B true -> A first. */
    MPI_Comm merged;
    int size = -1, rank = -1, flag = 1;
    MPI_Intercomm_merge(inter, in_a ? 0 : 1, &merged);
    MPI_Comm_test_inter(merged, &flag);
    CHECK_INT(flag, 0);
    MPI_Comm_size(merged, &size);
    CHECK_INT(size, 5);
    MPI_Group group;
    int worlds[5];
    MPI_Comm_group(merged, &group);
    group_worlds(group, 5, worlds);
    const int a_first[5] = {0, 2, 4, 3, 1}, b_first[5] = {3, 1, 0, 2, 4};
    for (int i = 0; i < 5; ++i) CHECK_INT(worlds[i], a_first[i]);
    MPI_Group_free(&group);
    MPI_Comm_rank(merged, &rank);
    int sum = 0, one = rank;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK_INT(sum, 10);
    MPI_Comm_free(&merged);
    /* Reversed flags: B first. */
    MPI_Intercomm_merge(inter, in_a ? 1 : 0, &merged);
    MPI_Comm_group(merged, &group);
    group_worlds(group, 5, worlds);
    for (int i = 0; i < 5; ++i) CHECK_INT(worlds[i], b_first[i]);
    MPI_Group_free(&group);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    /* Equal flags: the group whose leader has the lower world rank (A: 0) first. */
    MPI_Intercomm_merge(inter, 1, &merged);
    MPI_Comm_group(merged, &group);
    group_worlds(group, 5, worlds);
    for (int i = 0; i < 5; ++i) CHECK_INT(worlds[i], a_first[i]);
    MPI_Group_free(&group);
    MPI_Comm_free(&merged);
}

static void check_errors(MPI_Comm inter) {
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int value = 0, size = 0;
    MPI_Request request;
    CHECK_INT(mpi_error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &size)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPI_Send(&value, 1, MPI_INT, remote_size, 0, inter)), MPI_ERR_RANK);
    CHECK_INT(mpi_error_class(MPI_Bcast(&value, 1, MPI_INT, remote_size, inter)), MPI_ERR_ROOT);
    CHECK_INT(mpi_error_class(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, inter)), MPI_ERR_BUFFER);
    CHECK_INT(mpi_error_class(MPI_Scan(&value, &size, 1, MPI_INT, MPI_SUM, inter)), MPI_ERR_COMM);
    MPI_Comm split = MPI_COMM_NULL;
    CHECK_INT(mpi_error_class(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split)),
              MPI_ERR_UNSUPPORTED_OPERATION);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(MPI_ERR_UNSUPPORTED_OPERATION, text, &length);
    CHECK(strstr(text, "MPI_Comm_split_type on an inter-communicator is not supported") != NULL);
    CHECK_INT(mpi_error_class(MPI_Iscan(&value, &size, 1, MPI_INT, MPI_SUM, inter, &request)), MPI_ERR_COMM);
    /* Persistent collectives on an inter-communicator are MPI 4.0 but not
       run here: refused by name; Comm_create_group takes intra only. */
    request = MPI_REQUEST_NULL;
    CHECK_INT(mpi_error_class(MPI_Allreduce_init(&value, &size, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &request)),
              MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(request == MPI_REQUEST_NULL);
    MPI_Group local_group;
    MPI_Comm_group(inter, &local_group);
    CHECK_INT(mpi_error_class(MPI_Comm_create_group(inter, local_group, 0, &split)), MPI_ERR_COMM);
    MPI_Group_free(&local_group);
    MPI_Comm dup, made = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK_INT(mpi_error_class(MPI_Intercomm_merge(dup, 0, &dup)), MPI_ERR_COMM);
    CHECK_INT(mpi_error_class(MPI_Intercomm_create(dup, 5, MPI_COMM_WORLD, 0, 1, &made)), MPI_ERR_RANK);
    CHECK_INT(mpi_error_class(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &made)), MPI_ERR_COMM);
    CHECK(made == MPI_COMM_NULL);
    MPI_Comm_free(&dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Cancel of a send nobody receives asks the rank the send names, in the
   remote group: A's ranks send to B's rank 1 (world 1; read as a local rank
   it would be A's world 2, which answers "not cancelled"), cancel, and see
   it cancelled; the message is never received. */
static void check_cancel(MPI_Comm inter) {
    if (in_a) {
        int value = world_rank;
        MPI_Request request;
        MPI_Isend(&value, 1, MPI_INT, 1, 4242, inter, &request);
        MPI_Cancel(&request);
        MPI_Status status;
        MPI_Wait(&request, &status);
        int cancelled = 0;
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int pending = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 4242, inter, &pending, MPI_STATUS_IGNORE);
    CHECK_INT(pending, 0);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size != 5) {
        if (world_rank == 0) fprintf(stderr, "mpi_intercomm needs 5 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    in_a = world_rank % 2 == 0;
    local_size = in_a ? 3 : 2;
    remote_size = in_a ? 2 : 3;
    MPI_Comm local, inter, other, dup;
    MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, in_a ? world_rank : -world_rank, &local);
    int local_rank = -1;
    MPI_Comm_rank(local, &local_rank);
    /* Leaders: A's local rank 0 (world 0), B's local rank 1 (world 1) named in world. */
    MPI_Intercomm_create(local, in_a ? 0 : 1, MPI_COMM_WORLD, in_a ? 1 : 0, 77, &inter);
    check_queries(inter);
    check_point_to_point(inter, local_rank);
    check_cancel(inter);

    int result = 0;
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_compare(inter, dup, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    MPI_Comm_compare(inter, inter, &result);
    CHECK_INT(result, MPI_IDENT);
    MPI_Comm_compare(inter, local, &result);
    CHECK_INT(result, MPI_UNEQUAL);
    check_queries(dup);
    check_separation(inter, dup, local_rank);
    /* A second inter-communicator between the same groups, other leaders and peer communicator. */
    MPI_Comm world_dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
    MPI_Intercomm_create(local, in_a ? 2 : 0, world_dup, in_a ? 3 : 4, 5, &other);
    MPI_Comm_compare(inter, other, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    check_separation(inter, other, local_rank);

    check_split(inter, local_rank);
    check_create(inter, local_rank);
    check_merge(inter);
    check_create_disjoint();
    check_errors(dup);

    MPI_Comm_free(&other);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&world_dup);
    MPI_Comm_free(&inter);
    CHECK(inter == MPI_COMM_NULL);
    MPI_Comm_free(&local);
    const int status = mpi_check_done("mpi_intercomm", world_rank);
    MPI_Finalize();
    return status;
}
