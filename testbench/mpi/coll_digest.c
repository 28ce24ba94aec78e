/* Prints a digest of collective results that must not depend on whether
 * the collectives ran in the switches or in software: `isvp run --offload
 * on` and `--offload off` must print the same line (CTest compares them).
 *
 *   coll_digest int    int32/int64 SUM, PROD, BXOR, MAX and data movement
 *   coll_digest float  float and double SUM/PROD of values whose sums are
 *                      not exact (so the combining order shows in the
 *                      bits): Allreduce, Reduce, Reduce_scatter_block,
 *                      Reduce_scatter with equal counts; short and long
 *                      vectors; MPI_COMM_WORLD and a non-power-of-two split
 *
 * Every rank's Allreduce results must also be bit-identical (checked). */
#include <stdint.h>
#include <string.h>

#include "mpi_check.h"

enum { LONG_COUNT = 4099 };

static uint64_t digest = 1469598103934665603ull; /* FNV-1a over every result byte */

static void absorb(const void* data, size_t bytes) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t i = 0; i < bytes; ++i) {
        digest ^= p[i];
        digest *= 1099511628211ull;
    }
}

static uint32_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Allreduce results agree on every rank: compare each rank's digest of them. */
static void same_everywhere(MPI_Comm comm, const void* data, size_t bytes, const char* what) {
    uint64_t local = 1469598103934665603ull, low = 0, high = 0;
    const unsigned char* p = (const unsigned char*)data;
    for (size_t i = 0; i < bytes; ++i) local = (local ^ p[i]) * 1099511628211ull;
    MPI_Allreduce(&local, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
    MPI_Allreduce(&local, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (low != high) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL rank %d: %s differs between ranks\n", mpi_check_rank(), what);
    }
}

/* Runs the reductions on `comm` for one datatype/op; absorbs what this rank got. */
static void reductions(MPI_Comm comm, MPI_Datatype type, size_t element, MPI_Op op, const void* send, void* recv,
                       int count) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Allreduce(send, recv, count, type, op, comm);
    absorb(recv, (size_t)count * element);
    same_everywhere(comm, recv, (size_t)count * element, "MPI_Allreduce");
    for (int root = 0; root < size; root += 3) {
        MPI_Reduce(send, recv, count, type, op, root, comm);
        if (rank == root) absorb(recv, (size_t)count * element);
    }
    const int block = count / size;
    MPI_Reduce_scatter_block(send, recv, block, type, op, comm);
    absorb(recv, (size_t)block * element);
    int counts[64];
    for (int r = 0; r < size; ++r) counts[r] = block;
    MPI_Reduce_scatter(send, recv, counts, type, op, comm);
    absorb(recv, (size_t)block * element);
}

static void integers(MPI_Comm comm, int rank) {
    static int32_t send32[LONG_COUNT], recv32[LONG_COUNT * 64];
    static int64_t send64[LONG_COUNT], recv64[LONG_COUNT];
    const int counts[] = {1, 9, LONG_COUNT};
    for (int k = 0; k < 3; ++k) {
        const int n = counts[k];
        for (int i = 0; i < n; ++i) {
            send32[i] = (int32_t)mix((uint64_t)rank << 32 | (uint64_t)i);
            send64[i] = (int64_t)((uint64_t)mix((uint64_t)i << 20 | (uint64_t)rank) << 31 ^ mix((uint64_t)rank * 7 + (uint64_t)i));
        }
        reductions(comm, MPI_INT32_T, 4, MPI_SUM, send32, recv32, n);
        reductions(comm, MPI_INT32_T, 4, MPI_PROD, send32, recv32, n);
        reductions(comm, MPI_INT64_T, 8, MPI_BXOR, send64, recv64, n);
        reductions(comm, MPI_INT64_T, 8, MPI_MAX, send64, recv64, n);
        MPI_Allgather(send32, n, MPI_INT32_T, recv32, n, MPI_INT32_T, comm);
        int size;
        MPI_Comm_size(comm, &size);
        absorb(recv32, (size_t)n * (size_t)size * 4);
        MPI_Bcast(send64, n, MPI_INT64_T, size - 1, comm);
        absorb(send64, (size_t)n * 8);
    }
}

static void floats(MPI_Comm comm, int rank) {
    static double sendd[LONG_COUNT], recvd[LONG_COUNT];
    static float sendf[LONG_COUNT], recvf[LONG_COUNT];
    const int counts[] = {1, 9, LONG_COUNT};
    for (int k = 0; k < 3; ++k) {
        const int n = counts[k];
        for (int i = 0; i < n; ++i) {
            /* magnitudes spread over many binades: sums round differently per order */
            const uint32_t m = mix((uint64_t)rank << 32 | (uint64_t)i);
            sendd[i] = ((double)(m & 0xFFFFF) / 3.0 + 1e-7 * (double)(m >> 20)) * ((m & 1) ? -1.0 : 1.0) *
                       (double)(1u << (m % 23));
            sendf[i] = (float)sendd[i] * 1e-3f;
        }
        reductions(comm, MPI_DOUBLE, 8, MPI_SUM, sendd, recvd, n);
        reductions(comm, MPI_FLOAT, 4, MPI_SUM, sendf, recvf, n);
        for (int i = 0; i < n; ++i) sendd[i] = 1.0 + sendd[i] * 1e-9;
        reductions(comm, MPI_DOUBLE, 8, MPI_PROD, sendd, recvd, n);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64);
    const int use_floats = argc > 1 && strcmp(argv[1], "float") == 0;

    /* MPI_COMM_WORLD, then all but the last two ranks (not a power of two
     * for the 8-rank test), keys reversed */
    MPI_Comm part;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size - 2 || size <= 2 ? 0 : 1, -rank, &part);
    const MPI_Comm comms[2] = {MPI_COMM_WORLD, part};
    for (int c = 0; c < 2; ++c) {
        if (use_floats)
            floats(comms[c], rank);
        else
            integers(comms[c], rank);
    }
    MPI_Comm_set_errhandler(part, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Barrier(part)), MPI_SUCCESS);
    MPI_Comm_free(&part);

    /* One digest for the job: every rank's, in rank order. */
    uint64_t all[64];
    MPI_Gather(&digest, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        digest = 1469598103934665603ull;
        absorb(all, sizeof(uint64_t) * (size_t)size);
        printf("coll_digest %s %016llx\n", use_floats ? "float" : "int", (unsigned long long)digest);
    }
    MPI_Finalize();
    return mpi_check_done("coll_digest", rank);
}
