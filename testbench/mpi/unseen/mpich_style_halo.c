/* Written in the style of the MPICH test suite (test/mpi/...; not a copy):
 * MTest-like helpers, an error counter, "No Errors" from rank 0 at the
 * end. A 1-D decomposed 2-D grid exchanges ghost columns with an
 * MPI_Type_vector and MPI_Sendrecv (MPI_PROC_NULL at the edges), runs a few
 * Jacobi sweeps, checks the result against a serial computation, and
 * passes a token around a ring. Uses MPI_TAG_UB, MPI_Wtime, MPI_Allreduce,
 * MPI_Reduce, MPI_Bcast, MPI_Barrier. Part of the "unseen program" check. */
#include "mpi.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 12 /* rows */
#define NY 4  /* interior columns per process */
#define SWEEPS 5

static int verbose = 0;

static void MTest_Init(int* argc, char*** argv) {
    int flag;
    MPI_Initialized(&flag);
    if (!flag) MPI_Init(argc, argv);
    if (getenv("MPITEST_VERBOSE")) verbose = 1;
}

static void MTest_Finalize(int errs) {
    int rank, toterrs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errs, &toterrs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (toterrs)
            printf(" Found %d errors\n", toterrs);
        else
            printf(" No Errors\n");
        fflush(stdout);
    }
}

static double initial(int row, int global_column) { return (double)((row * 7 + global_column * 3) % 11); }

int main(int argc, char* argv[]) {
    int errs = 0, rank, size, flag, i, j, s;
    int* tag_ub;
    double grid[NX][NY + 2], next[NX][NY + 2];
    MPI_Datatype column;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (!flag || *tag_ub < 32767) {
        errs++;
        printf("MPI_TAG_UB is %d, below the standard's minimum\n", flag ? *tag_ub : -1);
    }

    MPI_Type_vector(NX, 1, NY + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY + 2; j++) grid[i][j] = (j >= 1 && j <= NY) ? initial(i, rank * NY + j - 1) : -1.0;

    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double t0 = MPI_Wtime();
    for (s = 0; s < SWEEPS; s++) {
        MPI_Sendrecv(&grid[0][NY], 1, column, right, 10, &grid[0][0], 1, column, left, 10, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&grid[0][1], 1, column, left, 11, &grid[0][NY + 1], 1, column, right, 11, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (i = 0; i < NX; i++)
            for (j = 1; j <= NY; j++) {
                double up = i > 0 ? grid[i - 1][j] : grid[i][j];
                double down = i < NX - 1 ? grid[i + 1][j] : grid[i][j];
                double west = (left == MPI_PROC_NULL && j == 1) ? grid[i][j] : grid[i][j - 1];
                double east = (right == MPI_PROC_NULL && j == NY) ? grid[i][j] : grid[i][j + 1];
                next[i][j] = 0.25 * (up + down + west + east);
            }
        for (i = 0; i < NX; i++)
            for (j = 1; j <= NY; j++) grid[i][j] = next[i][j];
    }
    double elapsed = MPI_Wtime() - t0;
    if (elapsed <= 0.0) {
        errs++;
        printf("MPI_Wtime did not advance over the sweeps\n");
    }

    /* The same sweeps on the whole grid, serially, on every rank. */
    int columns = NY * size;
    double* whole = malloc(sizeof(double) * NX * columns);
    double* after = malloc(sizeof(double) * NX * columns);
    for (i = 0; i < NX; i++)
        for (j = 0; j < columns; j++) whole[i * columns + j] = initial(i, j);
    for (s = 0; s < SWEEPS; s++) {
        for (i = 0; i < NX; i++)
            for (j = 0; j < columns; j++) {
                double c = whole[i * columns + j];
                double up = i > 0 ? whole[(i - 1) * columns + j] : c;
                double down = i < NX - 1 ? whole[(i + 1) * columns + j] : c;
                double west = j > 0 ? whole[i * columns + j - 1] : c;
                double east = j < columns - 1 ? whole[i * columns + j + 1] : c;
                after[i * columns + j] = 0.25 * (up + down + west + east);
            }
        double* swap = whole;
        whole = after;
        after = swap;
    }
    double local_error = 0.0, max_error = 0.0;
    for (i = 0; i < NX; i++)
        for (j = 1; j <= NY; j++) {
            double d = fabs(grid[i][j] - whole[i * columns + rank * NY + j - 1]);
            if (d > local_error) local_error = d;
        }
    MPI_Reduce(&local_error, &max_error, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Bcast(&max_error, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (max_error > 1e-12) {
        errs++;
        if (rank == 0) printf("halo exchange result differs from the serial one by %g\n", max_error);
    }
    if (verbose && rank == 0) printf("sweeps took %g s simulated\n", elapsed);
    free(whole);
    free(after);

    /* A token around the ring, each rank adding its rank. */
    int token = 0;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (token != size * (size - 1) / 2) {
            errs++;
            printf("ring token is %d, expected %d\n", token, size * (size - 1) / 2);
        }
    } else {
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Type_free(&column);
    MTest_Finalize(errs);
    MPI_Finalize();
    return 0;
}
