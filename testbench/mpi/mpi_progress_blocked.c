/* Progress while a rank is blocked inside the driver (MPI 3.1 §3.7.4
 * progress rule, §5.12 nonblocking collectives): every program here is valid
 * MPI and must complete; before the driver's progress hook each one ended in
 * the simulator's deadlock report.
 *
 *   ssend-barrier | ssend-bcast | ssend-allreduce | ssend-dup  (2+ ranks)
 *     rank 0 Ssends to rank 1, then enters the collective; rank 1 posts the
 *     Irecv, enters the collective (or MPI_Comm_dup), then waits. Rank 0's
 *     Ssend completes only if rank 1 acknowledges while blocked in the
 *     collective (software, offloaded, or a communicator call).
 *   ibcast-dup | ibcast-barrier  (4 ranks, binomial Ibcast from root 0:
 *     rank 2 forwards to rank 3)
 *     odd ranks Wait for the Ibcast first, even ranks enter MPI_Comm_dup or
 *     MPI_Barrier first: rank 2 must forward the Ibcast data while blocked
 *     in the communicator call or the (offloaded) barrier.
 *
 * Run: isvp run -n 4 --offload on|off --set topology.torus=2x2x1 -- mpi_progress_blocked MODE
 */
#include <string.h>

#include "mpi_check.h"

static int rank = -1, size = 0;

static void collective(const char* what, MPI_Comm* dup) {
    int v = rank + 1, s = 0;
    if (strcmp(what, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(what, "bcast") == 0) {
        v = rank == 0 ? 1234 : -1;
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK_INT(v, 1234);
    } else if (strcmp(what, "allreduce") == 0) {
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK_INT(s, size * (size + 1) / 2);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, dup);
    }
}

static void ssend_then(const char* what) {
    MPI_Comm dup = MPI_COMM_NULL;
    int x = 42, y = 0;
    if (rank == 0) {
        MPI_Ssend(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        collective(what, &dup);
    } else if (rank == 1) {
        MPI_Request r;
        MPI_Irecv(&y, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r);
        collective(what, &dup);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK_INT(y, 42);
    } else {
        collective(what, &dup);
    }
    if (dup != MPI_COMM_NULL) {
        int dup_size = 0;
        MPI_Comm_size(dup, &dup_size);
        CHECK_INT(dup_size, size);
        MPI_Comm_free(&dup);
    }
}

static void ibcast_then(const char* what) {
    MPI_Comm dup = MPI_COMM_NULL;
    int buf = rank == 0 ? 99 : 0;
    MPI_Request r;
    MPI_Ibcast(&buf, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    if (rank % 2 == 1) { /* leaves of the 4-rank binomial tree */
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        collective(what, &dup);
    } else { /* 0 and 2 (2 forwards to 3) */
        collective(what, &dup);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    CHECK_INT(buf, 99);
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "";
    if (strncmp(mode, "ssend-", 6) == 0 && size >= 2) {
        ssend_then(mode + 6);
    } else if (strncmp(mode, "ibcast-", 7) == 0 && size == 4) {
        ibcast_then(mode + 7);
    } else {
        if (rank == 0) fprintf(stderr, "unknown mode '%s' for %d ranks\n", mode, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return mpi_check_done("mpi_progress_blocked", rank);
}
