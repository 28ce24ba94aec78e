/* MPI_Allgatherv in the switch (docs/MPI.md, "Offload policy"): the
 * engine's allgather with unequal counts (the counts table in the request)
 * when offload applies, software otherwise; the same bytes either way.
 * Six calls, each checked against a plain C reference: unequal int blocks
 * with empty ones, equal blocks, doubles at displacements that leave gaps
 * (untouched), a strided derived datatype (packed bytes), MPI_IN_PLACE, and
 * all blocks empty but one. Rank 0 prints the simulated time of one call
 * (8 ints per rank on average) so runs can compare the paths. With
 * ISVP_MPI_STATS=1 every rank reports its offload decisions: the test
 * (offload on) expects "offloaded 9 of 9" on rank 0 — the six calls and
 * three barriers are the only ones that can offload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int count_of(int r, int s) {
    switch (s) {
        case 0: return r % 3 == 1 ? 0 : r % 5 + 3;
        case 1: return 4;
        case 5: return r == 1 ? 9 : 0;
        default: return r % 4 + 1;
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int* counts = malloc(sizeof(int) * (size_t)size);
    int* displs = malloc(sizeof(int) * (size_t)size);

    /* 0, 1, 5: ints, packed displacements (0: some blocks empty, 1: equal, 5: one block). */
    const int int_cases[] = {0, 1, 5};
    for (int k = 0; k < 3; ++k) {
        const int s = int_cases[k];
        int total = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = count_of(r, s);
            displs[r] = total;
            total += counts[r];
        }
        int mine[16], *all = malloc(sizeof(int) * (size_t)(total + 1));
        for (int j = 0; j < counts[rank]; ++j) mine[j] = rank * 1000 + j * 7 - 3;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        CHECK_INT(MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        const double took = MPI_Wtime() - t0;
        if (rank == 0 && s == 0) printf("allgatherv_offload: %d ranks, %d ints: %.3f us\n", size, total, took * 1e6);
        for (int r = 0; r < size; ++r)
            for (int j = 0; j < counts[r]; ++j) CHECK_INT(all[displs[r] + j], r * 1000 + j * 7 - 3);
        free(all);
    }

    /* 2: doubles at displacements with gaps (left untouched). */
    {
        int total = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = count_of(r, 2);
            displs[r] = total + 1;
            total += counts[r] + 1;
        }
        double mine[8], *all = malloc(sizeof(double) * (size_t)total);
        for (int i = 0; i < total; ++i) all[i] = -1.5;
        for (int j = 0; j < counts[rank]; ++j) mine[j] = rank + j / 8.0 + 1e-9 * rank;
        CHECK_INT(MPI_Allgatherv(mine, counts[rank], MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        for (int r = 0; r < size; ++r) {
            CHECK(all[displs[r] - 1] == -1.5);
            for (int j = 0; j < counts[r]; ++j) CHECK(all[displs[r] + j] == r + j / 8.0 + 1e-9 * r);
        }
        free(all);
    }

    /* 3: a strided derived type on both sides (every other int). */
    {
        MPI_Datatype pair;
        MPI_Type_vector(1, 1, 2, MPI_INT, &pair);
        MPI_Datatype strided;
        MPI_Type_create_resized(pair, 0, 2 * (MPI_Aint)sizeof(int), &strided);
        MPI_Type_commit(&strided);
        int total = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = count_of(r, 3);
            displs[r] = total;
            total += counts[r];
        }
        int mine[16], *all = malloc(sizeof(int) * 2 * (size_t)total);
        for (int i = 0; i < 2 * total; ++i) all[i] = -7;
        for (int j = 0; j < counts[rank]; ++j) {
            mine[2 * j] = rank * 100 + j;
            mine[2 * j + 1] = -99;
        }
        CHECK_INT(MPI_Allgatherv(mine, counts[rank], strided, all, counts, displs, strided, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        for (int r = 0; r < size; ++r)
            for (int j = 0; j < counts[r]; ++j) {
                CHECK_INT(all[2 * (displs[r] + j)], r * 100 + j);
                CHECK_INT(all[2 * (displs[r] + j) + 1], -7);
            }
        free(all);
        MPI_Type_free(&strided);
        MPI_Type_free(&pair);
    }

    /* 4: MPI_IN_PLACE. */
    {
        int total = 0;
        for (int r = 0; r < size; ++r) {
            counts[r] = count_of(r, 4);
            displs[r] = total;
            total += counts[r];
        }
        int* all = malloc(sizeof(int) * (size_t)total);
        for (int i = 0; i < total; ++i) all[i] = 0;
        for (int j = 0; j < counts[rank]; ++j) all[displs[rank] + j] = -rank - j;
        CHECK_INT(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        for (int r = 0; r < size; ++r)
            for (int j = 0; j < counts[r]; ++j) CHECK_INT(all[displs[r] + j], -r - j);
        free(all);
    }

    free(counts);
    free(displs);
    const int status = mpi_check_done("allgatherv_offload", rank);
    MPI_Finalize();
    return status;
}
