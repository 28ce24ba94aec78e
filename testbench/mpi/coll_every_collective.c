/* Every blocking collective on every kind of communicator, checked against
 * a reference each rank computes itself: MPI_COMM_WORLD, split halves,
 * odd-sized splits (rank mod 3), reversed keys, MPI_COMM_SELF; counts 0
 * (NULL buffers), 1, 7 and 1031 ints (4 KiB); roots first, middle, last;
 * the MPI_IN_PLACE form of every collective that has one; v-variants with
 * zero counts and gaps between blocks. MPI_INT with MPI_SUM and MPI_MAX.
 * Then long vectors (68 KB per rank) in Bcast, Allgather, Allgatherv.
 * With the argument "spread K" also on communicators of the ranks equal
 * mod K (K hosts per leaf of a fat tree: one member per leaf).
 *
 * Rank r of a communicator contributes value(r, i, salt) as element i. */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int value(int rank, int i, int salt) { return rank * 100003 + i * 7 + salt; }

static const char* comm_name = "";
static int current_count = 0;

/* Compares n ints, reporting the first difference with its context. */
static void expect(const char* what, const int* got, const int* want, int n) {
    for (int i = 0; i < n; ++i)
        if (got[i] != want[i]) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL rank %d: %s on %s, count %d: element %d is %d, expected %d\n", mpi_check_rank(),
                    what, comm_name, current_count, i, got[i], want[i]);
            return;
        }
}

/* n ints, or NULL for n == 0 (the standard allows NULL with zero counts). */
static int* ints(int n) { return n > 0 ? (int*)malloc(sizeof(int) * (size_t)n) : NULL; }

static void fill(int* buffer, int n, int rank, int salt) {
    for (int i = 0; i < n; ++i) buffer[i] = value(rank, i, salt);
}

static int sum_over(int size, int i, int salt) {
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += value(r, i, salt);
    return sum;
}

static void call(int code, const char* what) {
    if (code != MPI_SUCCESS) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL rank %d: %s on %s, count %d returned error class %d\n", mpi_check_rank(), what,
                comm_name, current_count, mpi_error_class(code));
    }
}

static void rooted(MPI_Comm comm, int rank, int size, int n, int root) {
    int* buffer = ints(n * size);
    int* other = ints(n * size);
    int* want = ints(n * size);

    /* Bcast */
    for (int i = 0; i < n; ++i) buffer[i] = rank == root ? value(root, i, 1) : -1;
    call(MPI_Bcast(buffer, n, MPI_INT, root, comm), "MPI_Bcast");
    fill(want, n, root, 1);
    expect("MPI_Bcast", buffer, want, n);

    /* Reduce, and with MPI_IN_PLACE at the root */
    fill(buffer, n, rank, 2);
    for (int i = 0; i < n; ++i) other[i] = -1;
    call(MPI_Reduce(buffer, rank == root ? other : NULL, n, MPI_INT, MPI_SUM, root, comm), "MPI_Reduce");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, i, 2);
    if (rank == root) expect("MPI_Reduce", other, want, n);
    fill(buffer, n, rank, 3);
    call(MPI_Reduce(rank == root ? MPI_IN_PLACE : buffer, rank == root ? buffer : NULL, n, MPI_INT, MPI_SUM, root,
                    comm),
         "MPI_Reduce in place");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, i, 3);
    if (rank == root) expect("MPI_Reduce in place", buffer, want, n);

    /* Scatter, and with MPI_IN_PLACE at the root (its block stays put) */
    if (rank == root)
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < n; ++i) buffer[r * n + i] = value(r, i, 4);
    for (int i = 0; i < n; ++i) other[i] = -1;
    call(MPI_Scatter(buffer, n, MPI_INT, other, n, MPI_INT, root, comm), "MPI_Scatter");
    fill(want, n, rank, 4);
    expect("MPI_Scatter", other, want, n);
    for (int i = 0; i < n; ++i) other[i] = -1;
    call(MPI_Scatter(buffer, n, MPI_INT, rank == root ? MPI_IN_PLACE : other, n, MPI_INT, root, comm),
         "MPI_Scatter in place");
    if (rank == root) {
        for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 4);
        expect("MPI_Scatter in place (root's sendbuf untouched)", buffer, want, n * size);
    } else {
        expect("MPI_Scatter in place", other, want, n);
    }

    /* Gather, and with MPI_IN_PLACE at the root */
    fill(other, n, rank, 5);
    for (int i = 0; i < n * size; ++i) buffer[i] = -1;
    call(MPI_Gather(other, n, MPI_INT, rank == root ? buffer : NULL, n, MPI_INT, root, comm), "MPI_Gather");
    for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 5);
    if (rank == root) expect("MPI_Gather", buffer, want, n * size);
    if (rank == root) {
        for (int i = 0; i < n * size; ++i) buffer[i] = -1;
        fill(buffer + root * n, n, root, 6);
    }
    fill(other, n, rank, 6);
    call(MPI_Gather(rank == root ? MPI_IN_PLACE : other, n, MPI_INT,
                    rank == root ? buffer : NULL, n, MPI_INT, root, comm),
         "MPI_Gather in place");
    for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 6);
    if (rank == root) expect("MPI_Gather in place", buffer, want, n * size);

    free(buffer);
    free(other);
    free(want);
}

/* v-variant counts: some zero, the rest different; blocks stored in
 * reverse rank order with a gap of 2 between them. */
static void v_layout(int size, int n, int* counts, int* displs) {
    int at = 0;
    for (int r = size - 1; r >= 0; --r) {
        counts[r] = r % 3 == 1 ? 0 : n + r;
        displs[r] = at;
        at += counts[r] + 2;
    }
}

/* The buffers of one v-variant test: layout, a big buffer with gaps and its
 * expected contents, one rank's block. */
typedef struct {
    int *counts, *displs, *big, *want, *mine;
    int extent;
} VBuffers;

static VBuffers v_buffers(int size, int n) {
    VBuffers v;
    v.counts = ints(size);
    v.displs = ints(size);
    v_layout(size, n, v.counts, v.displs);
    v.extent = size * (n + size + 2);
    v.big = ints(v.extent);
    v.want = ints(v.extent);
    v.mine = ints(n + size);
    return v;
}

static void v_free(VBuffers* v) {
    free(v->counts);
    free(v->displs);
    free(v->big);
    free(v->want);
    free(v->mine);
}

static void rooted_v(MPI_Comm comm, int rank, int size, int n, int root) {
    VBuffers v = v_buffers(size, n);
    int *counts = v.counts, *displs = v.displs, *big = v.big, *want = v.want, *mine = v.mine;
    const int extent = v.extent;

    /* Scatterv, normal and in place */
    for (int in_place = 0; in_place < 2; ++in_place) {
        if (rank == root) {
            for (int i = 0; i < extent; ++i) big[i] = -7;
            for (int r = 0; r < size; ++r) fill(big + displs[r], counts[r], r, 10 + in_place);
        }
        for (int i = 0; i < n + size; ++i) mine[i] = -1;
        void* recv = in_place && rank == root ? MPI_IN_PLACE : (void*)mine;
        call(MPI_Scatterv(big, counts, displs, MPI_INT, recv, counts[rank], MPI_INT, root, comm), "MPI_Scatterv");
        if (!(in_place && rank == root)) {
            fill(want, counts[rank], rank, 10 + in_place);
            want[counts[rank]] = -1;
            expect(in_place ? "MPI_Scatterv (in place at the root)" : "MPI_Scatterv", mine, want, counts[rank] + 1);
        }
    }

    /* Gatherv, normal and in place: gaps keep their old contents */
    for (int in_place = 0; in_place < 2; ++in_place) {
        for (int i = 0; i < extent; ++i) big[i] = -7;
        fill(mine, counts[rank], rank, 12 + in_place);
        if (in_place && rank == root) fill(big + displs[root], counts[root], root, 12 + in_place);
        const void* send = in_place && rank == root ? MPI_IN_PLACE : (const void*)mine;
        call(MPI_Gatherv(send, counts[rank], MPI_INT, big, counts, displs, MPI_INT, root, comm), "MPI_Gatherv");
        for (int i = 0; i < extent; ++i) want[i] = -7;
        for (int r = 0; r < size; ++r) fill(want + displs[r], counts[r], r, 12 + in_place);
        if (rank == root) expect(in_place ? "MPI_Gatherv in place" : "MPI_Gatherv", big, want, extent);
    }
    v_free(&v);
}

static void everywhere(MPI_Comm comm, int rank, int size, int n) {
    int* send = ints(n * size);
    int* recv = ints(n * size);
    int* want = ints(n * size);

    /* Allreduce: SUM, MAX, SUM in place */
    fill(send, n, rank, 20);
    call(MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, i, 20);
    expect("MPI_Allreduce SUM", recv, want, n);
    call(MPI_Allreduce(send, recv, n, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    fill(want, n, size - 1, 20);
    expect("MPI_Allreduce MAX", recv, want, n);
    fill(recv, n, rank, 21);
    call(MPI_Allreduce(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Allreduce in place");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, i, 21);
    expect("MPI_Allreduce in place", recv, want, n);

    /* Allgather, normal and in place */
    fill(send, n, rank, 22);
    call(MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, comm), "MPI_Allgather");
    for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 22);
    expect("MPI_Allgather", recv, want, n * size);
    for (int i = 0; i < n * size; ++i) recv[i] = -1;
    fill(recv + rank * n, n, rank, 23);
    call(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm), "MPI_Allgather in place");
    for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 23);
    expect("MPI_Allgather in place", recv, want, n * size);

    /* Reduce_scatter_block, normal and in place */
    fill(send, n * size, rank, 24);
    call(MPI_Reduce_scatter_block(send, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Reduce_scatter_block");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, rank * n + i, 24);
    expect("MPI_Reduce_scatter_block", recv, want, n);
    fill(recv, n * size, rank, 25);
    call(MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, comm),
         "MPI_Reduce_scatter_block in place");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, rank * n + i, 25);
    expect("MPI_Reduce_scatter_block in place", recv, want, n);

    /* Alltoall, normal and in place */
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < n; ++i) send[j * n + i] = value(rank, j * n + i, 26);
    call(MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm), "MPI_Alltoall");
    for (int j = 0; j < size; ++j)
        for (int i = 0; i < n; ++i) want[j * n + i] = value(j, rank * n + i, 26);
    expect("MPI_Alltoall", recv, want, n * size);
    if (n > 0) memcpy(recv, send, sizeof(int) * (size_t)(n * size));
    call(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm), "MPI_Alltoall in place");
    expect("MPI_Alltoall in place", recv, want, n * size);

    /* Scan and Exscan, normal and in place (Exscan: rank 0 untouched) */
    fill(send, n, rank, 27);
    call(MPI_Scan(send, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Scan");
    for (int i = 0; i < n; ++i) want[i] = sum_over(rank + 1, i, 27);
    expect("MPI_Scan", recv, want, n);
    fill(recv, n, rank, 27);
    call(MPI_Scan(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Scan in place");
    expect("MPI_Scan in place", recv, want, n);
    for (int i = 0; i < n; ++i) recv[i] = -5;
    call(MPI_Exscan(send, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Exscan");
    for (int i = 0; i < n; ++i) want[i] = rank == 0 ? -5 : sum_over(rank, i, 27);
    expect("MPI_Exscan", recv, want, n);
    fill(recv, n, rank, 27);
    call(MPI_Exscan(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, comm), "MPI_Exscan in place");
    if (rank == 0) fill(want, n, 0, 27);
    expect("MPI_Exscan in place", recv, want, n);

    free(send);
    free(recv);
    free(want);
}

static void everywhere_v(MPI_Comm comm, int rank, int size, int n) {
    VBuffers v = v_buffers(size, n);
    int *counts = v.counts, *displs = v.displs, *big = v.big, *want = v.want, *mine = v.mine;
    const int extent = v.extent;
    int* input = ints(extent);

    /* Allgatherv, normal and in place */
    for (int in_place = 0; in_place < 2; ++in_place) {
        for (int i = 0; i < extent; ++i) big[i] = -7;
        fill(mine, counts[rank], rank, 30 + in_place);
        if (in_place) fill(big + displs[rank], counts[rank], rank, 30 + in_place);
        call(MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, big, counts, displs, MPI_INT, comm),
             "MPI_Allgatherv");
        for (int i = 0; i < extent; ++i) want[i] = -7;
        for (int r = 0; r < size; ++r) fill(want + displs[r], counts[r], r, 30 + in_place);
        expect(in_place ? "MPI_Allgatherv in place" : "MPI_Allgatherv", big, want, extent);
    }

    /* Reduce_scatter with unequal counts (some zero), normal and in place;
     * then with equal counts (the offloadable case) */
    int total = 0;
    for (int r = 0; r < size; ++r) total += counts[r];
    int start = 0;
    for (int r = 0; r < rank; ++r) start += counts[r];
    for (int in_place = 0; in_place < 2; ++in_place) {
        fill(input, total, rank, 32 + in_place);
        for (int i = 0; i < n + size; ++i) mine[i] = -1;
        if (in_place)
            call(MPI_Reduce_scatter(MPI_IN_PLACE, input, counts, MPI_INT, MPI_SUM, comm), "MPI_Reduce_scatter");
        else
            call(MPI_Reduce_scatter(input, mine, counts, MPI_INT, MPI_SUM, comm), "MPI_Reduce_scatter");
        for (int i = 0; i < counts[rank]; ++i) want[i] = sum_over(size, start + i, 32 + in_place);
        expect(in_place ? "MPI_Reduce_scatter in place" : "MPI_Reduce_scatter", in_place ? input : mine, want,
               counts[rank]);
    }
    for (int r = 0; r < size; ++r) counts[r] = n;
    fill(input, n * size, rank, 34);
    call(MPI_Reduce_scatter(input, mine, counts, MPI_INT, MPI_SUM, comm), "MPI_Reduce_scatter");
    for (int i = 0; i < n; ++i) want[i] = sum_over(size, rank * n + i, 34);
    expect("MPI_Reduce_scatter equal counts", mine, want, n);

    /* Alltoallv: rank r sends (r + j) mod 3 == 0 ? 0 : n + j ints to rank j,
     * reversed block order with gaps on the receiving side; then in place */
    int* scounts = ints(size);
    int* sdispls = ints(size);
    int* rcounts = ints(size);
    int* rdispls = ints(size);
    int sat = 0, rat = 0;
    for (int j = 0; j < size; ++j) {
        scounts[j] = (rank + j) % 3 == 0 ? 0 : n + j;
        sdispls[j] = sat;
        sat += scounts[j];
    }
    for (int j = size - 1; j >= 0; --j) {
        rcounts[j] = (j + rank) % 3 == 0 ? 0 : n + rank;
        rdispls[j] = rat;
        rat += rcounts[j] + 1;
    }
    int* out = ints(sat);
    int* in = ints(rat);
    int* in_want = ints(rat);
    for (int j = 0; j < size; ++j) fill(out + sdispls[j], scounts[j], rank, 100 * j);
    for (int i = 0; i < rat; ++i) in[i] = in_want[i] = -3;
    for (int j = 0; j < size; ++j) fill(in_want + rdispls[j], rcounts[j], j, 100 * rank);
    call(MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, comm), "MPI_Alltoallv");
    expect("MPI_Alltoallv", in, in_want, rat);
    /* In place: the counts must be symmetric (what rank i sends to j, j
     * sends to i); blocks n + 5 apart. */
    int* place = ints(size * (n + 5));
    int* place_want = ints(size * (n + 5));
    for (int j = 0; j < size; ++j) {
        rcounts[j] = (j + rank) % 3 == 0 ? 0 : n + (j + rank) % 5;
        rdispls[j] = (size - 1 - j) * (n + 5);
    }
    for (int i = 0; i < size * (n + 5); ++i) place[i] = place_want[i] = -3;
    for (int j = 0; j < size; ++j) {
        fill(place + rdispls[j], rcounts[j], rank, 100 * j);
        fill(place_want + rdispls[j], rcounts[j], j, 100 * rank);
    }
    call(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, place, rcounts, rdispls, MPI_INT, comm),
         "MPI_Alltoallv in place");
    expect("MPI_Alltoallv in place", place, place_want, size * (n + 5));
    free(place);
    free(place_want);

    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    free(out);
    free(in);
    free(in_want);
    v_free(&v);
    free(input);
}

/* Long vectors: the software path's long algorithms (Bcast: scatter + ring
 * allgather; Allgather(v): ring) and their offloaded counterparts. */
static void large(MPI_Comm comm, const char* name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    comm_name = name;
    const int n = 17001; /* 68 KB per rank: 8 ranks gather more than 512 KiB */
    current_count = n;
    int* mine = ints(n);
    int* all = ints(n * size);
    int* want = ints(n * size);
    for (int root = 0; root < size; root += size - 1) {
        for (int i = 0; i < n; ++i) mine[i] = rank == root ? value(root, i, 40) : -1;
        call(MPI_Bcast(mine, n, MPI_INT, root, comm), "MPI_Bcast (long)");
        fill(want, n, root, 40);
        expect("MPI_Bcast (long)", mine, want, n);
    }
    fill(mine, n, rank, 41);
    call(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, comm), "MPI_Allgather (long)");
    for (int r = 0; r < size; ++r) fill(want + r * n, n, r, 41);
    expect("MPI_Allgather (long)", all, want, n * size);
    int counts[64], displs[64];
    for (int r = 0; r < size; ++r) {
        counts[r] = n - 3 * r;
        displs[r] = (size - 1 - r) * n;
    }
    for (int i = 0; i < n * size; ++i) all[i] = want[i] = -1;
    fill(mine, counts[rank], rank, 42);
    call(MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm), "MPI_Allgatherv (long)");
    for (int r = 0; r < size; ++r) fill(want + displs[r], counts[r], r, 42);
    expect("MPI_Allgatherv (long)", all, want, n * size);
    free(mine);
    free(all);
    free(want);
}

static void run_on(MPI_Comm comm, const char* name) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    comm_name = name;
    const int counts[] = {0, 1, 7, 1031};
    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
        const int n = counts[k];
        current_count = n;
        const int roots[] = {0, size / 2, size - 1};
        for (int j = 0; j < 3; ++j) {
            if (j > 0 && roots[j] == roots[j - 1]) continue;
            rooted(comm, rank, size, n, roots[j]);
            rooted_v(comm, rank, size, n, roots[j]);
        }
        everywhere(comm, rank, size, n);
        everywhere_v(comm, rank, size, n);
        call(MPI_Barrier(comm), "MPI_Barrier");
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    run_on(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm halves, thirds, reversed;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &halves);
    run_on(halves, "split halves");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &thirds);
    run_on(thirds, "split rank mod 3");
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
    run_on(reversed, "reversed keys");
    if (size <= 64) {
        large(MPI_COMM_WORLD, "MPI_COMM_WORLD");
        large(reversed, "reversed keys");
    }
    if (argc > 2 && strcmp(argv[1], "spread") == 0) {
        MPI_Comm spread;
        MPI_Comm_split(MPI_COMM_WORLD, rank % atoi(argv[2]), rank, &spread);
        run_on(spread, "split rank mod K (one member per leaf)");
        MPI_Comm_free(&spread);
    }
    run_on(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm_free(&halves);
    MPI_Comm_free(&thirds);
    MPI_Comm_free(&reversed);

    MPI_Finalize();
    return mpi_check_done("coll_every_collective", rank);
}
