/* The software MPI_Alltoall's algorithms (sw/mpi/coll_alltoall.cpp, MPICH's
 * choice by bytes per destination: docs/MPI.md, "Collectives"), each
 * against the direct definition (block s of rank r = rank s's block r):
 *   - Bruck's algorithm: blocks of at most 256 B on 8 ranks or more
 *     (1, 7, 64 ints; 64 ints is the boundary);
 *   - the scattered exchange: 257 B .. 32 KiB (65, 1000, 8192 ints; more
 *     than 32 ranks take several batches);
 *   - the pairwise exchange beyond 32 KiB (8193 ints), by XOR on a power
 *     of two and by shift otherwise;
 *   - MPI_IN_PLACE (the in-place exchange) at every size;
 *   - MPI_Ialltoall (the same choice, as rounds of the schedule engine)
 *     with ints, in place, and the struct type freed before MPI_Wait;
 *   - derived types: a strided type (every other int) on either side, the
 *     other side contiguous, and a resized struct {char, hole, int,
 *     double} on both sides, in each tier;
 * on the world, halves whose ranks run opposite to the world's, ranks mod 3
 * and MPI_COMM_SELF, so every communicator size from 1 up meets each
 * algorithm. Run with --offload off (with offload on the calls go to the
 * switch's Alltoall and the same checks hold).
 *
 *   coll_alltoall_algorithms            the checks ("... ok")
 *   coll_alltoall_algorithms time BYTES [inplace]
 *       the slowest rank's simulated time of one MPI_Alltoall of BYTES per
 *       block (MPI_BYTE) after a warm-up call, in microseconds
 *       (docs/PERFORMANCE.md) */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

/* The value of element i of the block from source s to destination d. */
static int value(int s, int d, int i) {
    return s * 1000003 + d * 7919 + i;
}

/* `count` ints per block, contiguous on both sides, and in place. */
static void check_ints(MPI_Comm comm, int count) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t n = (size_t)count * (size_t)size;
    int* send = malloc(sizeof(int) * n + 1);
    int* recv = malloc(sizeof(int) * n + 1);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < count; ++i) send[(size_t)d * (size_t)count + (size_t)i] = value(rank, d, i);
    memset(recv, 0xAB, sizeof(int) * n);
    CHECK_INT(MPI_Alltoall(send, count, MPI_INT, recv, count, MPI_INT, comm), MPI_SUCCESS);
    int wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) wrong += recv[(size_t)s * (size_t)count + (size_t)i] != value(s, rank, i);
    CHECK_INT(wrong, 0);
    /* In place: the data comes from recvbuf and the result replaces it. */
    memcpy(recv, send, sizeof(int) * n);
    CHECK_INT(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, MPI_INT, comm), MPI_SUCCESS);
    wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) wrong += recv[(size_t)s * (size_t)count + (size_t)i] != value(s, rank, i);
    CHECK_INT(wrong, 0);
    /* MPI_Ialltoall: the same choice as a schedule of rounds. */
    MPI_Request request;
    memset(recv, 0xAB, sizeof(int) * n);
    CHECK_INT(MPI_Ialltoall(send, count, MPI_INT, recv, count, MPI_INT, comm, &request), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) wrong += recv[(size_t)s * (size_t)count + (size_t)i] != value(s, rank, i);
    CHECK_INT(wrong, 0);
    memcpy(recv, send, sizeof(int) * n);
    CHECK_INT(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, MPI_INT, comm, &request), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) wrong += recv[(size_t)s * (size_t)count + (size_t)i] != value(s, rank, i);
    CHECK_INT(wrong, 0);
    free(send);
    free(recv);
}

/* `count` ints per block through a strided vector type (every other int of
 * a buffer twice as long): sent strided and received contiguous, sent
 * contiguous and received strided (the odd slots untouched), and in place
 * strided. */
static void check_strided(MPI_Comm comm, int count) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype strided; /* one int, two ints wide */
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided);
    MPI_Type_commit(&strided);
    const size_t n = (size_t)count * (size_t)size;
    int* wide = malloc(sizeof(int) * 2 * n + 1);
    int* dense = malloc(sizeof(int) * n + 1);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < count; ++i) {
            const size_t at = (size_t)d * (size_t)count + (size_t)i;
            wide[2 * at] = value(rank, d, i);
            wide[2 * at + 1] = -1;
        }
    memset(dense, 0xAB, sizeof(int) * n);
    CHECK_INT(MPI_Alltoall(wide, count, strided, dense, count, MPI_INT, comm), MPI_SUCCESS);
    int wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) wrong += dense[(size_t)s * (size_t)count + (size_t)i] != value(s, rank, i);
    CHECK_INT(wrong, 0);
    /* Contiguous out, strided in: dense holds what this rank received;
     * sending it back returns every rank its own blocks. */
    for (size_t k = 0; k < 2 * n; ++k) wide[k] = -7;
    CHECK_INT(MPI_Alltoall(dense, count, MPI_INT, wide, count, strided, comm), MPI_SUCCESS);
    wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) {
            const size_t at = (size_t)s * (size_t)count + (size_t)i;
            wrong += wide[2 * at] != value(rank, s, i);
            wrong += wide[2 * at + 1] != -7;
        }
    CHECK_INT(wrong, 0);
    /* In place, strided: the odd slots stay. */
    CHECK_INT(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, wide, count, strided, comm), MPI_SUCCESS);
    wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < count; ++i) {
            const size_t at = (size_t)s * (size_t)count + (size_t)i;
            wrong += wide[2 * at] != value(s, rank, i);
            wrong += wide[2 * at + 1] != -7;
        }
    CHECK_INT(wrong, 0);
    MPI_Type_free(&strided);
    free(wide);
    free(dense);
}

/* A record with holes: the struct type moves its three fields (13 packed
 * bytes per record); the receive buffer is pre-filled, so a hole written
 * by mistake shows. */
struct record {
    char tag;
    int number;
    double weight;
};

static void check_struct(MPI_Comm comm, int count) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int lengths[3] = {1, 1, 1};
    const MPI_Aint displacements[3] = {offsetof(struct record, tag), offsetof(struct record, number),
                                       offsetof(struct record, weight)};
    const MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    MPI_Datatype raw, record_type;
    MPI_Type_create_struct(3, lengths, displacements, types, &raw);
    MPI_Type_create_resized(raw, 0, (MPI_Aint)sizeof(struct record), &record_type);
    MPI_Type_commit(&record_type);
    MPI_Type_free(&raw);
    const size_t n = (size_t)count * (size_t)size;
    struct record* send = malloc(sizeof(struct record) * n + 1);
    struct record* recv = malloc(sizeof(struct record) * n + 1);
    memset(send, 0x5A, sizeof(struct record) * n);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < count; ++i) {
            struct record* r = &send[(size_t)d * (size_t)count + (size_t)i];
            const int v = value(rank, d, i);
            r->tag = (char)(v & 0x7F);
            r->number = v;
            r->weight = v + 0.5;
        }
    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
        memset(recv, 0x3C, sizeof(struct record) * n);
        if (nonblocking) { /* the type freed while the request is pending */
            MPI_Request request;
            CHECK_INT(MPI_Ialltoall(send, count, record_type, recv, count, record_type, comm, &request), MPI_SUCCESS);
            MPI_Type_free(&record_type);
            CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
        } else {
            CHECK_INT(MPI_Alltoall(send, count, record_type, recv, count, record_type, comm), MPI_SUCCESS);
        }
        int wrong = 0;
        for (int s = 0; s < size; ++s)
            for (int i = 0; i < count; ++i) {
                const struct record* r = &recv[(size_t)s * (size_t)count + (size_t)i];
                const int v = value(s, rank, i);
                wrong += r->tag != (char)(v & 0x7F) || r->number != v || r->weight != v + 0.5;
                /* The byte after the char (a hole the type skips) keeps its fill. */
                wrong += ((const unsigned char*)r)[1] != 0x3C;
            }
        CHECK_INT(wrong, 0);
    }
    free(send);
    free(recv);
}

/* Every tier on `comm`: ints per block at and around the switch points
 * (256 B and 32 KiB), the strided type in each tier, the struct (13 packed
 * bytes per record: 5 records short, 100 medium, 2600 long). `all` false
 * (the 64-rank run) keeps one ints case per tier and the derived types'
 * short and medium ones. */
static void check_communicator(MPI_Comm comm, int all) {
    const int ints[] = {1, 7, 64, 65, 1000, 8192, 8193};
    const int few[] = {7, 1000, 8193};
    if (all)
        for (size_t k = 0; k < sizeof ints / sizeof ints[0]; ++k) check_ints(comm, ints[k]);
    else
        for (size_t k = 0; k < sizeof few / sizeof few[0]; ++k) check_ints(comm, few[k]);
    check_strided(comm, 3);
    check_strided(comm, 500);
    check_struct(comm, 5);
    check_struct(comm, 100);
    if (all) {
        check_strided(comm, 9000);
        check_struct(comm, 2600);
    }
}

/* time BYTES [inplace]: one warm-up call, then one timed call after a
 * barrier; rank 0 prints the slowest rank's time. */
static void time_one(int bytes, int inplace) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t n = (size_t)bytes * (size_t)size;
    unsigned char* send = malloc(n + 1);
    unsigned char* recv = malloc(n + 1);
    for (size_t k = 0; k < n; ++k) send[k] = (unsigned char)(k * 31 + (size_t)rank);
    double took = 0;
    for (int round = 0; round < 2; ++round) {
        memcpy(recv, send, n);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (inplace)
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
        else
            MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
        took = (MPI_Wtime() - t0) * 1e6;
    }
    int wrong = 0;
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < bytes; ++i) {
            const size_t k = (size_t)rank * (size_t)bytes + (size_t)i; /* s's index of this rank's byte i */
            wrong += recv[(size_t)s * (size_t)bytes + (size_t)i] != (unsigned char)(k * 31 + (size_t)s);
        }
    CHECK_INT(wrong, 0);
    double worst = 0;
    MPI_Reduce(&took, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("alltoall %d ranks %d bytes per block%s: %.3f us\n", size, bytes, inplace ? " in place" : "", worst);
    free(send);
    free(recv);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "time") == 0) {
        time_one(atoi(argv[2]), argc > 3 && strcmp(argv[3], "inplace") == 0);
        MPI_Finalize();
        return mpi_check_failures ? 1 : 0;
    }
    const int small = size <= 16;
    check_communicator(MPI_COMM_WORLD, small);
    MPI_Comm half, third;
    /* Halves whose ranks run opposite to the world's. */
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, size - rank, &half);
    check_communicator(half, small);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &third);
    check_communicator(third, small);
    check_communicator(MPI_COMM_SELF, 1);
    MPI_Comm_free(&half);
    MPI_Comm_free(&third);
    const int status = mpi_check_done("coll_alltoall_algorithms", rank);
    MPI_Finalize();
    return status;
}
