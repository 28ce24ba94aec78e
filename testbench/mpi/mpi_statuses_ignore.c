/* MPI_STATUSES_IGNORE and MPI_WEIGHTS_EMPTY (odd pointer constants) passed
 * where mpi.h takes arrays compile without warnings under -Wall -Wextra
 * -Werror at -O0 and -O2 (GCC 11+ -Wstringop-overflow), and work: a ring
 * exchange completed by Waitall, Testall, Waitsome and Testsome. */
#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    for (int round = 0; round < 4; ++round) {
        int mine = rank * 10 + round, got = -1, flag = 0, outcount = 0, indices[2];
        MPI_Request requests[2];
        MPI_Irecv(&got, 1, MPI_INT, previous, round, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(&mine, 1, MPI_INT, next, round, MPI_COMM_WORLD, &requests[1]);
        if (round == 0) CHECK_INT(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        if (round == 1)
            while (!flag) CHECK_INT(MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int done = 0; round == 2 && done < 2; done += outcount)
            CHECK_INT(MPI_Waitsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int done = 0; round == 3 && done < 2; done += outcount)
            CHECK_INT(MPI_Testsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK_INT(got, previous * 10 + round);
    }
    /* MPI_WEIGHTS_EMPTY where mpi.h takes weight arrays (no edges). */
    MPI_Comm graph = MPI_COMM_NULL;
    int indegree = -1, outdegree = -1, weighted = -1;
    CHECK_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                             MPI_INFO_NULL, 0, &graph),
              MPI_SUCCESS);
    CHECK_INT(MPI_Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted), MPI_SUCCESS);
    CHECK_INT(indegree + outdegree, 0);
    CHECK_INT(weighted, 1);
    MPI_Comm_free(&graph);
    const int status = mpi_check_done("mpi_statuses_ignore", rank);
    MPI_Finalize();
    return status;
}
