/* Plain MPI_Alltoall in the switch (the engine's Alltoall, any communicator
 * size; docs/MPI.md, "Collectives"): on the world and on a split
 * communicator whose ranks run opposite to the world's, for MPI_INT,
 * MPI_DOUBLE, MPI_CHAR, MPI_SHORT, a strided derived type, differing send
 * and receive types and MPI_IN_PLACE, the result equals
 *   - the direct definition (block s of rank r = rank s's block r), and
 *   - MPI_Alltoallv with the same blocks (always the host's pairwise
 *     exchange) byte for byte (memcmp).
 * Run with offload on and off; the CTest wrapper checks with ISVP_MPI_STATS
 * that the calls went to the switch (or, beyond the switch's buffer, not). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

/* The value of element i of the block from source s to destination d. */
static int value(int s, int d, int i) {
    return s * 100000 + d * 100 + i;
}

/* `count` elements of `type` per block; elements are ints, doubles, chars or
 * shorts (`kind` 0..3) holding value(s, d, i). */
static void check_basic(MPI_Comm comm, MPI_Datatype type, int kind, int count) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t esize = kind == 0 ? 4 : kind == 1 ? 8 : kind == 2 ? 1 : 2;
    const size_t bytes = esize * (size_t)count * (size_t)size;
    unsigned char *send = malloc(bytes + 1), *recv = malloc(bytes + 1), *soft = malloc(bytes + 1);
    unsigned char* place = malloc(bytes + 1);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < count; ++i) {
            const size_t at = (size_t)d * (size_t)count + (size_t)i;
            const int v = value(rank, d, i);
            if (kind == 0) ((int*)send)[at] = v;
            if (kind == 1) ((double*)send)[at] = v + 0.25;
            if (kind == 2) ((char*)send)[at] = (char)(v & 0x7F);
            if (kind == 3) ((short*)send)[at] = (short)(v & 0x7FFF);
        }
    memset(recv, 0xAB, bytes);
    CHECK_INT(MPI_Alltoall(send, count, type, recv, count, type, comm), MPI_SUCCESS);
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) {
            const size_t at = (size_t)s * (size_t)count + (size_t)i;
            const int v = value(s, rank, i);
            if (kind == 0) CHECK_INT(((int*)recv)[at], v);
            if (kind == 1) CHECK(((double*)recv)[at] == v + 0.25);
            if (kind == 2) CHECK_INT(((char*)recv)[at], (char)(v & 0x7F));
            if (kind == 3) CHECK_INT(((short*)recv)[at], (short)(v & 0x7FFF));
        }
    /* The host's software exchange, same blocks. */
    int* counts = malloc(sizeof(int) * (size_t)size);
    int* displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) {
        counts[r] = count;
        displs[r] = r * count;
    }
    memset(soft, 0xCD, bytes);
    CHECK_INT(MPI_Alltoallv(send, counts, displs, type, soft, counts, displs, type, comm), MPI_SUCCESS);
    CHECK(memcmp(recv, soft, bytes) == 0);
    /* In place: the data comes from recvbuf and the result replaces it. */
    memcpy(place, send, bytes);
    CHECK_INT(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, place, count, type, comm), MPI_SUCCESS);
    CHECK(memcmp(place, soft, bytes) == 0);
    free(counts);
    free(displs);
    free(send);
    free(recv);
    free(soft);
    free(place);
}

/* A strided receive type (every other int) and a contiguous send type of
 * the same signature: the blocks land in the even slots, the odd ones are
 * untouched. */
static void check_derived(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int count = 3;
    MPI_Datatype strided, resized;
    MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, (MPI_Aint)(2 * count * sizeof(int)), &resized);
    MPI_Type_commit(&resized);
    int* send = malloc(sizeof(int) * (size_t)(count * size));
    int* recv = malloc(sizeof(int) * (size_t)(2 * count * size));
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < count; ++i) send[d * count + i] = value(rank, d, i);
    for (int j = 0; j < 2 * count * size; ++j) recv[j] = -7;
    CHECK_INT(MPI_Alltoall(send, count, MPI_INT, recv, 1, resized, comm), MPI_SUCCESS);
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) {
            CHECK_INT(recv[s * 2 * count + 2 * i], value(s, rank, i));
            CHECK_INT(recv[s * 2 * count + 2 * i + 1], -7);
        }
    MPI_Type_free(&resized);
    MPI_Type_free(&strided);
    free(send);
    free(recv);
}

static void check_all(MPI_Comm comm, int large) {
    check_basic(comm, MPI_INT, 0, 1);
    check_basic(comm, MPI_INT, 0, 37);
    check_basic(comm, MPI_DOUBLE, 1, 5);
    check_basic(comm, MPI_CHAR, 2, 7);
    check_basic(comm, MPI_SHORT, 3, 3);
    check_basic(comm, MPI_INT, 0, large);
    check_derived(comm);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int large = argc > 1 ? atoi(argv[1]) : 300;
    check_all(MPI_COMM_WORLD, large);
    /* A split communicator: the even world ranks, in reverse order. */
    MPI_Comm half;
    CHECK_INT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half), MPI_SUCCESS);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    check_all(half, large);
    MPI_Comm_free(&half);
    const int status = mpi_check_done("coll_alltoall_offload", rank);
    MPI_Finalize();
    return status;
}
