/* Where the ranks run (`isvp run --map-by`, `--rankfile`): each rank prints
 * the node it runs on (MPI_Get_processor_name: "isvp-nodeK", from its
 * device's node address), then exchanges messages that only arrive right if
 * every driver addresses the node its peer was placed on and names the
 * sender by its rank: a ring with a named source, one with MPI_ANY_SOURCE
 * (status.MPI_SOURCE must be the left neighbour's rank), an Allreduce and a
 * rooted Reduce and Bcast from the last rank. Rank 0 then times a ping-pong
 * with rank 1 and, on every rank, an 8-byte MPI_Allreduce (simulated time,
 * the slowest rank's mean of 10 calls), so a test or a placement study can
 * see what the placement changed:
 *
 *   rank R of N on isvp-nodeK
 *   pingpong 0-1 8 B: T us
 *   allreduce 8 B: T us
 */
#include <string.h>

#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    printf("rank %d of %d on %s\n", rank, size, name);
    fflush(stdout);

    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int token = 1000 + rank, got = -1;
    MPI_Status status;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &status);
    CHECK_INT(got, 1000 + left);
    CHECK_INT(status.MPI_SOURCE, left);
    /* A message of several packets, received from any source. */
    enum { LONG = 5000 };
    static int out[LONG], in[LONG];
    for (int i = 0; i < LONG; ++i) out[i] = rank * LONG + i;
    MPI_Request request;
    MPI_Irecv(in, LONG, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &request);
    MPI_Send(out, LONG, MPI_INT, right, 8, MPI_COMM_WORLD);
    MPI_Wait(&request, &status);
    CHECK_INT(status.MPI_SOURCE, left);
    CHECK_INT(in[0], left * LONG);
    CHECK_INT(in[LONG - 1], left * LONG + LONG - 1);

    long long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(sum, (long long)size * (size + 1) / 2);
    long long ranks_seen = 0;
    MPI_Reduce(&mine, &ranks_seen, 1, MPI_LONG_LONG, MPI_MAX, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) CHECK_INT(ranks_seen, size);
    int from_last = rank == size - 1 ? 4242 : 0;
    MPI_Bcast(&from_last, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    CHECK_INT(from_last, 4242);

    if (size >= 2 && rank < 2) {
        char byte[8] = {0};
        const int peer = 1 - rank, rounds = 10;
        MPI_Barrier(MPI_COMM_SELF);
        const double start = MPI_Wtime();
        for (int i = 0; i < rounds; ++i) {
            if (rank == 0) {
                MPI_Send(byte, 8, MPI_CHAR, peer, 9, MPI_COMM_WORLD);
                MPI_Recv(byte, 8, MPI_CHAR, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(byte, 8, MPI_CHAR, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(byte, 8, MPI_CHAR, peer, 9, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) printf("pingpong 0-1 8 B: %.3f us\n", (MPI_Wtime() - start) * 1e6 / (2.0 * rounds));
    }
    {
        double value[1] = {1.0}, total[1];
        const int rounds = 10;
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        for (int i = 0; i < rounds; ++i) MPI_Allreduce(value, total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double mean = (MPI_Wtime() - start) / rounds;
        CHECK(total[0] == (double)size);
        double worst = 0;
        MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("allreduce 8 B: %.3f us\n", worst * 1e6);
    }
    MPI_Finalize();
    return mpi_check_done("rank_placement", rank);
}
