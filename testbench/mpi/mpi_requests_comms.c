/* Generalized requests (MPI_Grequest_start / _complete), MPI_Comm_idup,
 * MPI_Comm_idup_with_info and MPI_Comm_create_group (collective over the
 * group only: the other ranks never call it). */
#include <string.h>

#include "mpi_check.h"

static int rank_, size_;

struct state {
    int queried, freed, cancelled, cancel_complete;
};

static int query_fn(void* extra, MPI_Status* status) {
    struct state* s = (struct state*)extra;
    ++s->queried;
    status->MPI_SOURCE = 5;
    status->MPI_TAG = 6;
    MPI_Status_set_cancelled(status, s->cancelled > 0);
    MPI_Status_set_elements(status, MPI_INT, 3);
    return MPI_SUCCESS;
}
static int free_fn(void* extra) {
    ++((struct state*)extra)->freed;
    return MPI_SUCCESS;
}
static int cancel_fn(void* extra, int complete) {
    struct state* s = (struct state*)extra;
    ++s->cancelled;
    s->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void generalized_requests(void) {
    struct state s = {0, 0, 0, 0};
    MPI_Request r;
    MPI_Status status;
    int flag = 1;
    CHECK_INT(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r), MPI_SUCCESS);
    CHECK_INT(MPI_Test(&r, &flag, &status), MPI_SUCCESS);
    CHECK_INT(flag, 0);
    CHECK_INT(s.queried, 0);
    CHECK_INT(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&r, &status), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_INT(s.queried, 1);
    CHECK_INT(s.freed, 1);
    CHECK_INT(status.MPI_SOURCE, 5);
    CHECK_INT(status.MPI_TAG, 6);
    int count = 0;
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK_INT(count, 3);

    /* Cancel before completion: cancel_fn(complete = 0); the status says cancelled. */
    memset(&s, 0, sizeof s);
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r);
    CHECK_INT(MPI_Cancel(&r), MPI_SUCCESS);
    CHECK_INT(s.cancelled, 1);
    CHECK_INT(s.cancel_complete, 0);
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &status);
    MPI_Test_cancelled(&status, &flag);
    CHECK_INT(flag, 1);

    /* Request_free before completion: free_fn runs at MPI_Grequest_complete, query_fn never. */
    memset(&s, 0, sizeof s);
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r);
    MPI_Request saved = r;
    CHECK_INT(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_INT(s.freed, 0);
    CHECK_INT(MPI_Grequest_complete(saved), MPI_SUCCESS);
    CHECK_INT(s.freed, 1);
    CHECK_INT(s.queried, 0);

    /* Waitall over a generalized request and a receive. */
    memset(&s, 0, sizeof s);
    MPI_Request two[2];
    int in = -1, out = rank_;
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &two[0]);
    MPI_Irecv(&in, 1, MPI_INT, (rank_ + size_ - 1) % size_, 3, MPI_COMM_WORLD, &two[1]);
    MPI_Send(&out, 1, MPI_INT, (rank_ + 1) % size_, 3, MPI_COMM_WORLD);
    MPI_Grequest_complete(two[0]);
    CHECK_INT(MPI_Waitall(2, two, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_INT(in, (rank_ + size_ - 1) % size_);
    CHECK_INT(s.freed, 1);
}

static void idup(void) {
    MPI_Comm copy, with_info;
    MPI_Request r[3];
    int one = 1, sum = 0;
    /* An idup while a nonblocking collective on the parent is pending. */
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    CHECK_INT(MPI_Comm_idup(MPI_COMM_WORLD, &copy, &r[1]), MPI_SUCCESS);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    CHECK_INT(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &with_info, &r[2]), MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK_INT(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_INT(sum, size_);
    int result = -1;
    MPI_Comm_compare(MPI_COMM_WORLD, copy, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    int value = rank_, total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, copy);
    CHECK_INT(total, size_ * (size_ - 1) / 2);
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_MAX, with_info);
    CHECK_INT(total, size_ - 1);

    /* MPI_Comm_idup returns at once (MPICH's comm_idup): every rank but 0
     * idups, then Ssends to rank 0, which idups only once it has received
     * them all. */
    MPI_Comm late;
    MPI_Request request;
    int token = rank_;
    if (rank_ == 0) {
        for (int r = 1; r < size_; ++r) MPI_Recv(&token, 1, MPI_INT, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &late, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &late, &request);
        MPI_Ssend(&token, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, late);
    CHECK_INT(total, size_ * (size_ - 1) / 2);

    /* Idups of two parents started in opposite orders on odd and even ranks. */
    MPI_Comm a, b;
    MPI_Request two[2];
    if (rank_ % 2) {
        MPI_Comm_idup(copy, &a, &two[0]);
        MPI_Comm_idup(with_info, &b, &two[1]);
    } else {
        MPI_Comm_idup(with_info, &b, &two[1]);
        MPI_Comm_idup(copy, &a, &two[0]);
    }
    CHECK_INT(MPI_Waitall(2, two, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, a);
    CHECK_INT(total, size_ * (size_ - 1) / 2);
    MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_MIN, b);
    CHECK_INT(total, 0);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&late);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&with_info);
}

/* The even ranks make a communicator in reverse rank order; the odd ranks
 * never call MPI_Comm_create_group and meanwhile exchange messages among
 * themselves (with two tags: two groups at once on the odd side). */
static void create_group(void) {
    MPI_Group world, evens, odds_low;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[64], n = 0;
    for (int r = size_ - 1; r >= 0; --r)
        if (r % 2 == 0) members[n++] = r;
    MPI_Group_incl(world, n, members, &evens);
    if (rank_ % 2 == 0) {
        MPI_Comm made;
        CHECK_INT(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &made), MPI_SUCCESS);
        CHECK(made != MPI_COMM_NULL);
        int me = -1, size = 0;
        MPI_Comm_rank(made, &me);
        MPI_Comm_size(made, &size);
        CHECK_INT(size, n);
        for (int i = 0; i < n; ++i)
            if (members[i] == rank_) CHECK_INT(me, i);
        int value = rank_, total = 0;
        MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, made);
        int expected = 0;
        for (int i = 0; i < n; ++i) expected += members[i];
        CHECK_INT(total, expected);
        int root_rank = -1;
        if (me == 0) root_rank = rank_;
        MPI_Bcast(&root_rank, 1, MPI_INT, 0, made);
        CHECK_INT(root_rank, members[0]);
        MPI_Comm_free(&made);
    } else {
        /* Odd ranks: a create_group of their own (tag 8) over the odd ranks. */
        int odd[64], m = 0;
        for (int r = 1; r < size_; r += 2) odd[m++] = r;
        MPI_Group_incl(world, m, odd, &odds_low);
        MPI_Comm made;
        CHECK_INT(MPI_Comm_create_group(MPI_COMM_WORLD, odds_low, 8, &made), MPI_SUCCESS);
        int value = 1, total = 0;
        MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, made);
        CHECK_INT(total, m);
        MPI_Comm_free(&made);
        MPI_Group_free(&odds_low);
    }
    /* A rank outside the group gets MPI_COMM_NULL; a bad tag is MPI_ERR_TAG. */
    MPI_Comm none = MPI_COMM_WORLD;
    MPI_Group self;
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &self);
    if (rank_ != 0) {
        CHECK_INT(MPI_Comm_create_group(MPI_COMM_WORLD, self, 1, &none), MPI_SUCCESS);
        CHECK(none == MPI_COMM_NULL);
    } else {
        CHECK_INT(MPI_Comm_create_group(MPI_COMM_WORLD, self, 1, &none), MPI_SUCCESS);
        int size = 0;
        MPI_Comm_size(none, &size);
        CHECK_INT(size, 1);
        MPI_Comm_free(&none);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Comm_create_group(MPI_COMM_WORLD, self, -3, &none)), MPI_ERR_TAG);
    /* An idup's request is a nonblocking collective's: it cannot be freed
       before it completes (the duplicate would be made through a stale
       pointer, or never, with the other members waiting for it). */
    MPI_Comm pending = MPI_COMM_NULL;
    MPI_Request idup_request;
    MPI_Comm_idup(MPI_COMM_WORLD, &pending, &idup_request);
    CHECK_INT(mpi_error_class(MPI_Request_free(&idup_request)), MPI_ERR_REQUEST);
    CHECK(idup_request != MPI_REQUEST_NULL);
    MPI_Wait(&idup_request, MPI_STATUS_IGNORE);
    CHECK(pending != MPI_COMM_NULL);
    MPI_Comm_free(&pending);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&self);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    generalized_requests();
    idup();
    create_group();
    const int status = mpi_check_done("mpi_requests_comms", rank_);
    MPI_Finalize();
    return status;
}
