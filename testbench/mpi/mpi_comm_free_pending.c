/* MPI 3.1 6.4.3: MPI_Comm_free marks the communicator for deallocation;
 * operations still pending on it complete normally. The communicator's
 * members and ID stay until no request uses it, so a communicator created
 * afterwards never takes an ID whose old messages are still in flight.
 * Modes (4 ranks):
 *   ibcast  Ibcast on a dup, free it, then wait: the value arrives
 *   reuse   the same, then a new dup with its own Ibcast (other root)
 *   p2p     Irecv (one from ANY_SOURCE) and Isend/Issend pending on a freed
 *           dup, matched after the free; a new dup sends the same tags
 *   late    (offload off: freeing c is then local) rank 3's Irecv(ANY_SOURCE)
 *           on a freed c stays pending while ranks 0 and 3 create d from
 *           another parent and rank 0 sends on d with the same tag; rank 2
 *           sends on c only after that. d must not take c's ID.
 *   cycles  300 dup/Ibcast/free cycles, each Ibcast waited one cycle later
 *           (more cycles than communicator IDs: the IDs come back) */
#include <string.h>

#include "mpi_check.h"

static void ibcast(int rank) {
    int a = rank == 0 ? 111 : -1;
    MPI_Comm c;
    MPI_Request r;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK_INT(MPI_Ibcast(&a, 1, MPI_INT, 0, c, &r), MPI_SUCCESS);
    CHECK_INT(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);
    CHECK_INT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(a, 111);
}

static void reuse(int rank) {
    int a = rank == 0 ? 111 : -1, b = rank == 2 ? 222 : -1;
    MPI_Comm c, d;
    MPI_Request r[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Ibcast(&a, 1, MPI_INT, 0, c, &r[0]);
    MPI_Comm_free(&c);
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Ibcast(&b, 1, MPI_INT, 2, d, &r[1]);
    CHECK_INT(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_INT(a, 111);
    CHECK_INT(b, 222);
    /* d still works for a blocking collective after the old one is gone */
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK_INT(sum, 6);
    MPI_Comm_free(&d);
}

static void p2p(int rank) {
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int old_any = -1, old_two = -1, fresh = -1;
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status s[3];
    const int v1 = 101, v2 = 102, n1 = 201, n3 = 203;
    if (rank == 0) {
        MPI_Irecv(&old_any, 1, MPI_INT, MPI_ANY_SOURCE, 7, c, &r[0]);
        MPI_Irecv(&old_two, 1, MPI_INT, 2, 8, c, &r[1]);
    }
    if (rank == 1) MPI_Issend(&v1, 1, MPI_INT, 0, 7, c, &r[0]);
    if (rank == 2) MPI_Isend(&v2, 1, MPI_INT, 0, 8, c, &r[0]);
    CHECK_INT(MPI_Comm_free(&c), MPI_SUCCESS);
    /* A new communicator over the same ranks, the same tags: its messages
     * must not match the receives still pending on the freed one. */
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (rank == 1) MPI_Send(&n1, 1, MPI_INT, 0, 7, d);
    if (rank == 3) MPI_Send(&n3, 1, MPI_INT, 0, 7, d);
    if (rank == 0) {
        MPI_Recv(&fresh, 1, MPI_INT, 3, 7, d, &s[2]);
        CHECK_INT(fresh, n3);
        MPI_Recv(&fresh, 1, MPI_INT, 1, 7, d, &s[2]);
        CHECK_INT(fresh, n1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(MPI_Waitall(3, r, s), MPI_SUCCESS);
    if (rank == 0) {
        CHECK_INT(old_any, v1);
        CHECK_INT(s[0].MPI_SOURCE, 1);
        CHECK_INT(old_two, v2);
        CHECK_INT(s[1].MPI_SOURCE, 2);
    }
    MPI_Comm_free(&d);
}

static void late(int rank) {
    MPI_Comm p, c, d = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == 3 ? 0 : MPI_UNDEFINED, 0, &p);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int old = -1, fresh = -1, go = 0;
    const int two = 2, zero = 100;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status s;
    if (rank == 3) MPI_Irecv(&old, 1, MPI_INT, MPI_ANY_SOURCE, 5, c, &r);
    if (rank == 2) {
        MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Isend(&two, 1, MPI_INT, 3, 5, c, &r);
    }
    CHECK_INT(MPI_Comm_free(&c), MPI_SUCCESS);
    if (rank == 0 || rank == 3) MPI_Comm_dup(p, &d);
    if (rank == 0) {
        MPI_Send(&zero, 1, MPI_INT, 1, 5, d);
        MPI_Send(&go, 1, MPI_INT, 2, 99, MPI_COMM_WORLD);
    }
    if (rank == 3) {
        MPI_Recv(&fresh, 1, MPI_INT, MPI_ANY_SOURCE, 5, d, MPI_STATUS_IGNORE);
        CHECK_INT(fresh, zero);
    }
    CHECK_INT(MPI_Wait(&r, &s), MPI_SUCCESS);
    if (rank == 3) {
        CHECK_INT(old, two);
        CHECK_INT(s.MPI_SOURCE, 2);
    }
    if (d != MPI_COMM_NULL) MPI_Comm_free(&d);
    if (p != MPI_COMM_NULL) MPI_Comm_free(&p);
}

static void cycles(int rank, int size) {
    enum { kCycles = 300 };
    int value[2] = {-1, -1};
    MPI_Request pending = MPI_REQUEST_NULL;
    for (int i = 0; i < kCycles; ++i) {
        MPI_Comm c;
        CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
        int* mine = &value[i % 2];
        const int root = i % size;
        *mine = rank == root ? 1000 + i : -1;
        MPI_Request r;
        CHECK_INT(MPI_Ibcast(mine, 1, MPI_INT, root, c, &r), MPI_SUCCESS);
        CHECK_INT(MPI_Comm_free(&c), MPI_SUCCESS);
        if (pending != MPI_REQUEST_NULL) {
            CHECK_INT(MPI_Wait(&pending, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK_INT(value[(i - 1) % 2], 1000 + i - 1);
        }
        pending = r;
    }
    CHECK_INT(MPI_Wait(&pending, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(value[(kCycles - 1) % 2], 1000 + kCycles - 1);
    /* IDs were given back: a new communicator and a collective on it work */
    MPI_Comm d;
    CHECK_INT(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK_INT(sum, size * (size - 1) / 2);
    MPI_Comm_free(&d);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "";
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "mpi_comm_free_pending: run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(mode, "ibcast") == 0)
        ibcast(rank);
    else if (strcmp(mode, "reuse") == 0)
        reuse(rank);
    else if (strcmp(mode, "p2p") == 0)
        p2p(rank);
    else if (strcmp(mode, "late") == 0)
        late(rank);
    else if (strcmp(mode, "cycles") == 0)
        cycles(rank, size);
    else {
        if (rank == 0) fprintf(stderr, "mpi_comm_free_pending: mode ibcast, reuse, p2p, late or cycles\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int status = mpi_check_done("mpi_comm_free_pending", rank);
    MPI_Finalize();
    return status;
}
