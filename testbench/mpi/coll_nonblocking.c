/* Nonblocking collectives (MPI 3.1 §5.12), every one isvp implements:
 * results against a reference computed here, on MPI_COMM_WORLD and on a
 * split communicator, for several roots, counts (0 included), ops (SUM, MAX,
 * a non-commutative user op) and datatypes (predefined, strided vector and
 * resized types, differing send/receive types), MPI_IN_PLACE; floating
 * point reductions bit-identical to the blocking calls; nine outstanding at
 * once on two communicators, interleaved with a blocking collective and
 * completed by one Waitall in reverse order; the standard's Ibarrier / Send
 * overlap; progress from MPI_Test loops, MPI_Probe and a blocking software
 * collective; errors that name the call.
 *
 * Usage: coll_nonblocking              everything above
 *        coll_nonblocking fatal-in-place  MPI_Iallreduce with recvbuf MPI_IN_PLACE
 *                                        under the default (fatal) handler */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { kMaxCount = 1031, kMaxRanks = 32 }; /* the arrays' bounds */

static int world_rank, world_size;

/* The value rank r contributes at index i of call `salt`. */
static int value(int salt, int r, int i) {
    return (salt * 131 + r * 37 + i * 7) % 1009 - 500;
}

/* ---- a non-commutative user op: affine maps x -> a*x + b, composed in rank
 * order (left operand first). Element: two unsigned ints. */
typedef struct {
    unsigned a, b;
} Affine;

static Affine compose(Affine first, Affine second) {
    Affine out = {first.a * second.a, second.a * first.b + second.b};
    return out;
}

static void compose_op(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    const Affine* left = (const Affine*)in;
    Affine* right = (Affine*)inout;
    for (int i = 0; i < *len; ++i) right[i] = compose(left[i], right[i]);
}

static Affine affine_of(int salt, int r, int i) {
    Affine x = {(unsigned)(2 * value(salt, r, i) + 1), (unsigned)value(salt + 1, r, i)};
    return x;
}

static MPI_Datatype affine_type;
static MPI_Op affine_op;

/* ---- helpers */

static void wait_one(MPI_Request* request) {
    CHECK_INT(MPI_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(*request == MPI_REQUEST_NULL);
}

/* ---- Ibarrier */

/* Rank 0's Ibarrier does not block: it sends to rank 1 after starting it,
 * and rank 1 receives that message before starting its own (MPI 3.1
 * Example 5.32's pattern). */
static void ibarrier_overlaps_point_to_point(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request request;
    int token = 0;
    if (size == 1) {
        CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
        wait_one(&request);
        return;
    }
    if (rank == 0) {
        CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
        token = 42;
        CHECK_INT(MPI_Send(&token, 1, MPI_INT, 1, 5, comm), MPI_SUCCESS);
        wait_one(&request);
    } else if (rank == 1) {
        CHECK_INT(MPI_Recv(&token, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_INT(token, 42);
        CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
        wait_one(&request);
    } else {
        CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
        wait_one(&request);
    }
}

/* No rank leaves an Ibarrier before the last one entered it: the last rank
 * enters late (simulated time spent in Iprobe round trips), and every
 * rank's Wait returns no earlier than that entry (MPI_Wtime is global).
 * A causal order, not a duration. */
static void ibarrier_waits_for_the_last_rank(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* The last rank spends simulated time in point-to-point round trips
     * to itself before entering. */
    double entered = 0.0;
    if (rank == size - 1) {
        int x = 0;
        for (int i = 0; i < 20; ++i) {
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE);
            x += flag;
        }
        CHECK_INT(x, 0);
    }
    entered = MPI_Wtime();
    MPI_Request request;
    CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
    wait_one(&request);
    const double left = MPI_Wtime();
    double latest_entry = 0.0;
    MPI_Allreduce(&entered, &latest_entry, 1, MPI_DOUBLE, MPI_MAX, comm);
    CHECK(left >= latest_entry);
}

/* ---- Ibcast */

static void ibcast_delivers_the_roots_data(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static int buffer[kMaxCount];
    const int counts[] = {0, 1, 7, kMaxCount};
    for (int k = 0; k < 4; ++k) {
        const int roots[] = {0, size / 2, size - 1};
        for (int j = 0; j < 3; ++j) {
            const int root = roots[j], count = counts[k];
            for (int i = 0; i < count; ++i) buffer[i] = rank == root ? value(salt + k, root, i) : -1;
            MPI_Request request;
            CHECK_INT(MPI_Ibcast(count ? buffer : NULL, count, MPI_INT, root, comm, &request), MPI_SUCCESS);
            wait_one(&request);
            for (int i = 0; i < count; ++i) CHECK_INT(buffer[i], value(salt + k, root, i));
        }
    }
}

/* A strided vector type: the gaps stay untouched. */
static void ibcast_of_a_derived_type(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype every_other;
    MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int buffer[3 * 10];
    const int root = size - 1;
    for (int i = 0; i < 30; ++i) buffer[i] = rank == root ? 1000 + i : -7;
    MPI_Request request;
    CHECK_INT(MPI_Ibcast(buffer, 3, every_other, root, comm, &request), MPI_SUCCESS);
    MPI_Type_free(&every_other); /* the request keeps its own reference */
    wait_one(&request);
    /* 3 elements of extent 9 ints: data at 0,2,4,6,8, 9,11,...; holes stay. */
    for (int e = 0; e < 3; ++e)
        for (int i = 0; i < 9; ++i) {
            const int at = e * 9 + i;
            if (i % 2 == 0)
                CHECK_INT(buffer[at], 1000 + at);
            else if (rank != root)
                CHECK_INT(buffer[at], -7);
        }
}

/* ---- Ireduce / Iallreduce */

static void ireduce_matches_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static int send[kMaxCount], recv[kMaxCount];
    static Affine asend[kMaxCount], arecv[kMaxCount];
    const int counts[] = {1, 7, kMaxCount};
    const int roots[] = {0, size / 2, size - 1};
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j) {
            const int count = counts[k], root = roots[j];
            for (int i = 0; i < count; ++i) {
                send[i] = value(salt, rank, i);
                recv[i] = -1;
                asend[i] = affine_of(salt, rank, i);
            }
            MPI_Request requests[3];
            CHECK_INT(MPI_Ireduce(send, recv, count, MPI_INT, MPI_SUM, root, comm, &requests[0]), MPI_SUCCESS);
            static int maxima[kMaxCount];
            CHECK_INT(MPI_Ireduce(send, maxima, count, MPI_INT, MPI_MAX, root, comm, &requests[1]), MPI_SUCCESS);
            CHECK_INT(MPI_Ireduce(asend, arecv, count, affine_type, affine_op, root, comm, &requests[2]), MPI_SUCCESS);
            MPI_Status statuses[3];
            CHECK_INT(MPI_Waitall(3, requests, statuses), MPI_SUCCESS);
            if (rank != root) continue;
            for (int i = 0; i < count; ++i) {
                int sum = 0, max = value(salt, 0, i);
                Affine composed = affine_of(salt, 0, i);
                for (int r = 0; r < size; ++r) {
                    sum += value(salt, r, i);
                    if (value(salt, r, i) > max) max = value(salt, r, i);
                    if (r > 0) composed = compose(composed, affine_of(salt, r, i));
                }
                CHECK_INT(recv[i], sum);
                CHECK_INT(maxima[i], max);
                CHECK(arecv[i].a == composed.a && arecv[i].b == composed.b);
            }
        }
}

static void ireduce_in_place_at_the_root(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int data[4];
    for (int i = 0; i < 4; ++i) data[i] = rank + i;
    const int root = size / 2;
    MPI_Request request;
    CHECK_INT(MPI_Ireduce(rank == root ? MPI_IN_PLACE : data, rank == root ? data : NULL, 4, MPI_INT, MPI_SUM, root,
                          comm, &request),
              MPI_SUCCESS);
    wait_one(&request);
    if (rank == root)
        for (int i = 0; i < 4; ++i) CHECK_INT(data[i], size * (size - 1) / 2 + size * i);
}

static void iallreduce_matches_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static int send[kMaxCount], sum[kMaxCount], inplace[kMaxCount];
    static Affine asend[kMaxCount], arecv[kMaxCount];
    const int counts[] = {0, 1, 7, kMaxCount};
    for (int k = 0; k < 4; ++k) {
        const int count = counts[k];
        for (int i = 0; i < count; ++i) {
            send[i] = value(salt, rank, i);
            inplace[i] = value(salt + 1, rank, i);
            asend[i] = affine_of(salt, rank, i);
        }
        MPI_Request requests[3];
        CHECK_INT(MPI_Iallreduce(send, sum, count, MPI_INT, MPI_SUM, comm, &requests[0]), MPI_SUCCESS);
        CHECK_INT(MPI_Iallreduce(MPI_IN_PLACE, inplace, count, MPI_INT, MPI_MAX, comm, &requests[1]), MPI_SUCCESS);
        CHECK_INT(MPI_Iallreduce(asend, arecv, count, affine_type, affine_op, comm, &requests[2]), MPI_SUCCESS);
        MPI_Status statuses[3];
        CHECK_INT(MPI_Waitall(3, requests, statuses), MPI_SUCCESS);
        for (int i = 0; i < count; ++i) {
            int expected_sum = 0, expected_max = value(salt + 1, 0, i);
            Affine composed = affine_of(salt, 0, i);
            for (int r = 0; r < size; ++r) {
                expected_sum += value(salt, r, i);
                if (value(salt + 1, r, i) > expected_max) expected_max = value(salt + 1, r, i);
                if (r > 0) composed = compose(composed, affine_of(salt, r, i));
            }
            CHECK_INT(sum[i], expected_sum);
            CHECK_INT(inplace[i], expected_max);
            CHECK(arecv[i].a == composed.a && arecv[i].b == composed.b);
        }
    }
}

/* SUM over a strided vector of doubles: a predefined op on a derived type. */
static void iallreduce_of_a_derived_type(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype every_third;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &every_third);
    MPI_Type_commit(&every_third);
    double send[2 * 10], recv[2 * 10];
    for (int i = 0; i < 20; ++i) {
        send[i] = rank * 0.5 + i;
        recv[i] = -1.0;
    }
    MPI_Request request;
    CHECK_INT(MPI_Iallreduce(send, recv, 2, every_third, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    MPI_Type_free(&every_third);
    /* extent 10 doubles: data at 0,3,6,9 and 10,13,16,19 */
    for (int i = 0; i < 20; ++i) {
        if ((i % 10) % 3 == 0)
            CHECK(recv[i] == 0.5 * size * (size - 1) / 2 + (double)size * i);
        else
            CHECK(recv[i] == -1.0);
    }
}

/* Floating point: the same bits as the blocking MPI_Allreduce. */
static void iallreduce_floats_equal_the_blocking_result(MPI_Comm comm) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    enum { n = 301 };
    float send[n], nonblocking[n], blocking[n];
    for (int i = 0; i < n; ++i) send[i] = 1.0f / (float)(rank * 7 + i + 3) + (float)(rank % 3) * 1e6f;
    MPI_Request request;
    CHECK_INT(MPI_Iallreduce(send, nonblocking, n, MPI_FLOAT, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    CHECK_INT(MPI_Allreduce(send, blocking, n, MPI_FLOAT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK(memcmp(nonblocking, blocking, sizeof blocking) == 0);
}

/* ---- gathers, scatters, all-to-all */

/* Igather / Iscatter at every root, several counts, MPI_IN_PLACE at the root. */
static void igather_and_iscatter_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { most = 100 };
    static int mine[most], all[kMaxRanks * most];
    const int counts[] = {0, 1, 7, most};
    const int roots[] = {0, size / 2, size - 1};
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 3; ++j) {
            const int count = counts[k], root = roots[j], in_place = (k + j) % 2;
            /* Igather */
            for (int i = 0; i < count; ++i) mine[i] = value(salt + k, rank, i);
            for (int i = 0; i < size * count; ++i) all[i] = -1;
            if (rank == root && in_place)
                for (int i = 0; i < count; ++i) all[root * count + i] = value(salt + k, root, i);
            MPI_Request request;
            CHECK_INT(MPI_Igather(rank == root && in_place ? MPI_IN_PLACE : mine, count, MPI_INT,
                                  rank == root ? all : NULL, count, MPI_INT, root, comm, &request),
                      MPI_SUCCESS);
            wait_one(&request);
            if (rank == root)
                for (int r = 0; r < size; ++r)
                    for (int i = 0; i < count; ++i) CHECK_INT(all[r * count + i], value(salt + k, r, i));
            /* Iscatter */
            if (rank == root)
                for (int r = 0; r < size; ++r)
                    for (int i = 0; i < count; ++i) all[r * count + i] = value(salt + k + 1, r, i);
            for (int i = 0; i < count; ++i) mine[i] = -1;
            CHECK_INT(
                MPI_Iscatter(rank == root ? all : NULL, count, MPI_INT, rank == root && in_place ? MPI_IN_PLACE : mine,
                             count, MPI_INT, root, comm, &request),
                MPI_SUCCESS);
            wait_one(&request);
            if (!(rank == root && in_place))
                for (int i = 0; i < count; ++i) CHECK_INT(mine[i], value(salt + k + 1, rank, i));
        }
}

/* Rank r's block in the v-variants: (r * 3 + salt) % 4 elements (some
 * zero), at displacement r * 5 (gaps between blocks stay untouched). */
static int v_count(int r, int salt) {
    return (r * 3 + salt) % 4;
}

static void igatherv_and_iscatterv_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int counts[kMaxRanks], displs[kMaxRanks], mine[4], all[kMaxRanks * 5];
    for (int r = 0; r < size; ++r) {
        counts[r] = v_count(r, salt);
        displs[r] = r * 5;
    }
    const int roots[] = {0, size - 1};
    for (int j = 0; j < 2; ++j) {
        const int root = roots[j];
        for (int i = 0; i < 4; ++i) mine[i] = value(salt, rank, i);
        for (int i = 0; i < size * 5; ++i) all[i] = -1;
        MPI_Request request;
        CHECK_INT(MPI_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm, &request),
                  MPI_SUCCESS);
        wait_one(&request);
        if (rank == root)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i < 5; ++i) CHECK_INT(all[r * 5 + i], i < counts[r] ? value(salt, r, i) : -1);
        if (rank == root)
            for (int r = 0; r < size; ++r)
                for (int i = 0; i < 5; ++i) all[r * 5 + i] = value(salt + 1, r, i);
        for (int i = 0; i < 4; ++i) mine[i] = -1;
        /* The second time the root keeps its block in place. */
        const int keep = j && rank == root;
        CHECK_INT(MPI_Iscatterv(all, counts, displs, MPI_INT, keep ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, root,
                                comm, &request),
                  MPI_SUCCESS);
        wait_one(&request);
        for (int i = 0; i < 4; ++i)
            if (!keep) CHECK_INT(mine[i], i < counts[rank] ? value(salt + 1, rank, i) : -1);
    }
}

static void iallgather_and_iallgatherv_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { most = 9 };
    int mine[most], all[kMaxRanks * most], counts[kMaxRanks], displs[kMaxRanks];
    for (int in_place = 0; in_place < 2; ++in_place) {
        for (int i = 0; i < most; ++i) mine[i] = value(salt + in_place, rank, i);
        for (int i = 0; i < size * most; ++i) all[i] = -1;
        if (in_place)
            for (int i = 0; i < most; ++i) all[rank * most + i] = mine[i];
        MPI_Request request;
        CHECK_INT(MPI_Iallgather(in_place ? MPI_IN_PLACE : mine, most, MPI_INT, all, most, MPI_INT, comm, &request),
                  MPI_SUCCESS);
        wait_one(&request);
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < most; ++i) CHECK_INT(all[r * most + i], value(salt + in_place, r, i));
        /* v: rank r contributes v_count(r) elements at r * most + 1 */
        for (int r = 0; r < size; ++r) {
            counts[r] = v_count(r, salt + in_place) * 2;
            displs[r] = r * most + 1;
        }
        for (int i = 0; i < size * most; ++i) all[i] = -1;
        if (in_place)
            for (int i = 0; i < counts[rank]; ++i) all[displs[rank] + i] = mine[i];
        CHECK_INT(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                                  comm, &request),
                  MPI_SUCCESS);
        wait_one(&request);
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < most; ++i)
                CHECK_INT(all[r * most + i], i >= 1 && i - 1 < counts[r] ? value(salt + in_place, r, i - 1) : -1);
    }
}

static void ialltoall_and_ialltoallv_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { most = 6 };
    int send[kMaxRanks * most], recv[kMaxRanks * most], scounts[kMaxRanks], sdispls[kMaxRanks], rcounts[kMaxRanks],
        rdispls[kMaxRanks];
    /* value(salt, source, destination * most + i): what source sends destination */
    for (int in_place = 0; in_place < 2; ++in_place) {
        for (int d = 0; d < size; ++d)
            for (int i = 0; i < most; ++i) {
                send[d * most + i] = value(salt + in_place, rank, d * most + i);
                recv[d * most + i] = in_place ? send[d * most + i] : -1;
            }
        MPI_Request request;
        CHECK_INT(MPI_Ialltoall(in_place ? MPI_IN_PLACE : send, most, MPI_INT, recv, most, MPI_INT, comm, &request),
                  MPI_SUCCESS);
        wait_one(&request);
        for (int s = 0; s < size; ++s)
            for (int i = 0; i < most; ++i) CHECK_INT(recv[s * most + i], value(salt + in_place, s, rank * most + i));
    }
    /* v: source s sends destination d (s + d) % 4 elements */
    for (int r = 0; r < size; ++r) {
        scounts[r] = (rank + r) % 4;
        sdispls[r] = r * most;
        rcounts[r] = (r + rank) % 4;
        rdispls[r] = (size - 1 - r) * most; /* reversed placement */
    }
    for (int i = 0; i < size * most; ++i) {
        send[i] = value(salt + 5, rank, i);
        recv[i] = -1;
    }
    MPI_Request request;
    CHECK_INT(MPI_Ialltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm, &request),
              MPI_SUCCESS);
    wait_one(&request);
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < most; ++i)
            CHECK_INT(recv[(size - 1 - s) * most + i], i < rcounts[s] ? value(salt + 5, s, rank * most + i) : -1);
}

/* Alltoallw and Ialltoallw: source s sends destination d c = (s + d) % 3 + 1
 * ints as MPI_INT; the receiver takes them as MPI_INT from even sources and
 * as one contiguous(c, MPI_INT) from odd ones; byte displacements, reversed
 * receive placement. Then the same in place. */
static void alltoallw_both_forms_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype contiguous[4], sendtypes[kMaxRanks], recvtypes[kMaxRanks];
    for (int c = 1; c <= 3; ++c) {
        MPI_Type_contiguous(c, MPI_INT, &contiguous[c]);
        MPI_Type_commit(&contiguous[c]);
    }
    int send[kMaxRanks * 3], recv[kMaxRanks * 3], scounts[kMaxRanks], sdispls[kMaxRanks], rcounts[kMaxRanks],
        rdispls[kMaxRanks];
    for (int r = 0; r < size; ++r) {
        const int to_r = (rank + r) % 3 + 1, from_r = (r + rank) % 3 + 1;
        sendtypes[r] = MPI_INT;
        scounts[r] = to_r;
        sdispls[r] = r * 3 * (int)sizeof(int);
        recvtypes[r] = r % 2 ? contiguous[from_r] : MPI_INT;
        rcounts[r] = r % 2 ? 1 : from_r;
        rdispls[r] = (size - 1 - r) * 3 * (int)sizeof(int);
    }
    for (int form = 0; form < 3; ++form) { /* blocking, nonblocking, nonblocking in place */
        for (int i = 0; i < 3 * size; ++i) {
            send[i] = value(salt + form, rank, i);
            recv[i] = -1;
        }
        if (form == 2) /* in place: what goes to d lies where d's data will land */
            for (int d = 0; d < size; ++d)
                for (int i = 0; i < 3; ++i) recv[(size - 1 - d) * 3 + i] = value(salt + form, rank, d * 3 + i);
        if (form == 0) {
            CHECK_INT(MPI_Alltoallw(send, scounts, sdispls, sendtypes, recv, rcounts, rdispls, recvtypes, comm),
                      MPI_SUCCESS);
        } else {
            MPI_Request request;
            CHECK_INT(MPI_Ialltoallw(form == 2 ? MPI_IN_PLACE : send, scounts, sdispls, sendtypes, recv, rcounts,
                                     rdispls, recvtypes, comm, &request),
                      MPI_SUCCESS);
            wait_one(&request);
        }
        for (int s = 0; s < size; ++s) {
            const int c = (s + rank) % 3 + 1;
            for (int i = 0; i < 3; ++i) {
                const int got = recv[(size - 1 - s) * 3 + i];
                if (i < c)
                    CHECK_INT(got, value(salt + form, s, rank * 3 + i));
                else if (form != 2)
                    CHECK_INT(got, -1);
            }
        }
    }
    for (int c = 1; c <= 3; ++c) MPI_Type_free(&contiguous[c]);
}

/* Differing but matching type signatures: each rank sends 3 contiguous
 * ints and receives them into a strided vector type. */
static void iallgather_and_ialltoall_of_derived_types(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype strided, resized;
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided); /* extent 5 ints */
    MPI_Type_create_resized(strided, 0, 6 * (MPI_Aint)sizeof(int), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&strided);
    int send[kMaxRanks * 3], recv[kMaxRanks * 6];
    for (int i = 0; i < 3 * size; ++i) send[i] = value(77, rank, i);
    for (int i = 0; i < 6 * size; ++i) recv[i] = -1;
    MPI_Request requests[2];
    CHECK_INT(MPI_Iallgather(send, 3, MPI_INT, recv, 1, resized, comm, &requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&requests[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < 6; ++i) CHECK_INT(recv[r * 6 + i], i % 2 == 0 && i < 6 ? value(77, r, i / 2) : -1);
    for (int i = 0; i < 6 * size; ++i) recv[i] = -1;
    CHECK_INT(MPI_Ialltoall(send, 3, MPI_INT, recv, 1, resized, comm, &requests[1]), MPI_SUCCESS);
    MPI_Type_free(&resized); /* the request keeps its own reference */
    CHECK_INT(MPI_Wait(&requests[1], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int s = 0; s < size; ++s)
        for (int i = 0; i < 6; ++i) CHECK_INT(recv[s * 6 + i], i % 2 == 0 ? value(77, s, rank * 3 + i / 2) : -1);
}

/* ---- reduce-scatter, scans */

static void ireduce_scatter_matches_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { most = 5 };
    int send[kMaxRanks * most], recv[kMaxRanks * most], counts[kMaxRanks];
    Affine asend[kMaxRanks * most], arecv[most];
    /* _block: `most` elements per rank; SUM, then the user op, then in place (MAX). */
    for (int i = 0; i < size * most; ++i) {
        send[i] = value(salt, rank, i);
        asend[i] = affine_of(salt, rank, i);
    }
    MPI_Request requests[3];
    CHECK_INT(MPI_Ireduce_scatter_block(send, recv, most, MPI_INT, MPI_SUM, comm, &requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Ireduce_scatter_block(asend, arecv, most, affine_type, affine_op, comm, &requests[1]), MPI_SUCCESS);
    MPI_Status statuses[3];
    CHECK_INT(MPI_Waitall(2, requests, statuses), MPI_SUCCESS);
    for (int i = 0; i < most; ++i) {
        const int at = rank * most + i;
        int sum = 0;
        Affine composed = affine_of(salt, 0, at);
        for (int r = 0; r < size; ++r) {
            sum += value(salt, r, at);
            if (r > 0) composed = compose(composed, affine_of(salt, r, at));
        }
        CHECK_INT(recv[i], sum);
        CHECK(arecv[i].a == composed.a && arecv[i].b == composed.b);
    }
    /* v: rank r gets (r + salt) % 3 elements (some zero); in place */
    int total = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = (r + salt) % 3;
        total += counts[r];
    }
    for (int i = 0; i < total; ++i) recv[i] = value(salt + 1, rank, i);
    CHECK_INT(MPI_Ireduce_scatter(MPI_IN_PLACE, recv, counts, MPI_INT, MPI_MAX, comm, &requests[2]), MPI_SUCCESS);
    wait_one(&requests[2]);
    int first = 0;
    for (int r = 0; r < rank; ++r) first += counts[r];
    for (int i = 0; i < counts[rank]; ++i) {
        int max = value(salt + 1, 0, first + i);
        for (int r = 1; r < size; ++r)
            if (value(salt + 1, r, first + i) > max) max = value(salt + 1, r, first + i);
        CHECK_INT(recv[i], max);
    }
}

static void iscan_and_iexscan_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { n = 7 };
    int send[n], inclusive[n], exclusive[n], inplace[n];
    Affine asend[n], ainclusive[n], aexclusive[n];
    for (int i = 0; i < n; ++i) {
        send[i] = value(salt, rank, i);
        inplace[i] = send[i];
        inclusive[i] = exclusive[i] = -1;
        asend[i] = affine_of(salt, rank, i);
        aexclusive[i].a = aexclusive[i].b = 12345u;
    }
    MPI_Request requests[5];
    CHECK_INT(MPI_Iscan(send, inclusive, n, MPI_INT, MPI_SUM, comm, &requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Iexscan(send, exclusive, n, MPI_INT, MPI_SUM, comm, &requests[1]), MPI_SUCCESS);
    CHECK_INT(MPI_Iscan(MPI_IN_PLACE, inplace, n, MPI_INT, MPI_MAX, comm, &requests[2]), MPI_SUCCESS);
    CHECK_INT(MPI_Iscan(asend, ainclusive, n, affine_type, affine_op, comm, &requests[3]), MPI_SUCCESS);
    CHECK_INT(MPI_Iexscan(asend, aexclusive, n, affine_type, affine_op, comm, &requests[4]), MPI_SUCCESS);
    MPI_Status statuses[5];
    CHECK_INT(MPI_Waitall(5, requests, statuses), MPI_SUCCESS);
    for (int i = 0; i < n; ++i) {
        int sum = 0, max = value(salt, 0, i);
        Affine composed = affine_of(salt, 0, i);
        for (int r = 0; r < rank; ++r) {
            sum += value(salt, r, i);
            if (value(salt, r, i) > max) max = value(salt, r, i);
            if (r > 0) composed = compose(composed, affine_of(salt, r, i));
        }
        /* ops over ranks 0 .. rank-1 so far */
        if (rank > 0) {
            CHECK_INT(exclusive[i], sum);
            CHECK(aexclusive[i].a == composed.a && aexclusive[i].b == composed.b);
        } else {
            CHECK_INT(exclusive[i], -1); /* rank 0's recvbuf is left alone */
            CHECK(aexclusive[i].a == 12345u && aexclusive[i].b == 12345u);
        }
        const int mine = value(salt, rank, i);
        CHECK_INT(inclusive[i], sum + mine);
        CHECK_INT(inplace[i], mine > max ? mine : max);
        const Affine with_mine = rank == 0 ? affine_of(salt, 0, i) : compose(composed, affine_of(salt, rank, i));
        CHECK(ainclusive[i].a == with_mine.a && ainclusive[i].b == with_mine.b);
    }
}

/* Floating point: Ireduce_scatter_block and Iscan give the blocking calls' bits. */
static void float_reductions_equal_the_blocking_results(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { per = 37 };
    double send[kMaxRanks * per], nonblocking[kMaxRanks * per], blocking[kMaxRanks * per];
    for (int i = 0; i < size * per; ++i) send[i] = 1.0 / (rank * 3 + i + 1) + (rank % 2) * 1e9;
    MPI_Request request;
    CHECK_INT(MPI_Ireduce_scatter_block(send, nonblocking, per, MPI_DOUBLE, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    CHECK_INT(MPI_Reduce_scatter_block(send, blocking, per, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    CHECK(memcmp(nonblocking, blocking, per * sizeof(double)) == 0);
    CHECK_INT(MPI_Iscan(send, nonblocking, size * per, MPI_DOUBLE, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    CHECK_INT(MPI_Scan(send, blocking, size * per, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
    CHECK(memcmp(nonblocking, blocking, size * per * sizeof(double)) == 0);
}

/* ---- long vectors (the long algorithms: van de Geijn Ibcast on 8 ranks or
 * more, Rabenseifner Iallreduce, ring Iallgather from 512 KiB) */

static void long_vectors_match_the_reference(MPI_Comm comm, int salt) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { ints = 4001, floats = 3001, chars = 70001 };
    int* data = malloc(ints * sizeof(int));
    float *send = malloc(floats * sizeof(float)), *nonblocking = malloc(floats * sizeof(float)),
          *blocking = malloc(floats * sizeof(float));
    unsigned char *mine = malloc(chars), *all = malloc((size_t)chars * (size_t)size);
    CHECK(data && send && nonblocking && blocking && mine && all);
    MPI_Request request;
    const int roots[] = {0, size - 1};
    for (int j = 0; j < 2; ++j) {
        for (int i = 0; i < ints; ++i) data[i] = rank == roots[j] ? value(salt + j, roots[j], i) : -1;
        CHECK_INT(MPI_Ibcast(data, ints, MPI_INT, roots[j], comm, &request), MPI_SUCCESS);
        wait_one(&request);
        for (int i = 0; i < ints; ++i) CHECK_INT(data[i], value(salt + j, roots[j], i));
    }
    for (int i = 0; i < floats; ++i) send[i] = 1.0f / (float)(rank * 5 + i + 1) + (float)(rank % 3) * 3e5f;
    CHECK_INT(MPI_Iallreduce(send, nonblocking, floats, MPI_FLOAT, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    CHECK_INT(MPI_Allreduce(send, blocking, floats, MPI_FLOAT, MPI_SUM, comm), MPI_SUCCESS);
    CHECK(memcmp(nonblocking, blocking, floats * sizeof(float)) == 0);
    for (int i = 0; i < chars; ++i) mine[i] = (unsigned char)(value(salt, rank, i) & 0xFF);
    CHECK_INT(MPI_Iallgather(mine, chars, MPI_UNSIGNED_CHAR, all, chars, MPI_UNSIGNED_CHAR, comm, &request),
              MPI_SUCCESS);
    wait_one(&request);
    int wrong = 0;
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < chars; ++i) wrong += all[(size_t)r * chars + (size_t)i] != (value(salt, r, i) & 0xFF);
    CHECK_INT(wrong, 0);
    free(data);
    free(send);
    free(nonblocking);
    free(blocking);
    free(mine);
    free(all);
}

/* ---- several at once */

/* Five nonblocking collectives outstanding on `comm` and four on `other`
 * (a split of it), started interleaved with a blocking one, completed by
 * one Waitall over the requests in reverse order. */
static void outstanding_together_complete_in_any_order(MPI_Comm comm, MPI_Comm other, int salt) {
    int rank, size, orank, osize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(other, &orank);
    MPI_Comm_size(other, &osize);
    enum { n = 33 };
    int bcast[n], sum[n], reduced[n], osum[n], obcast[n], blocking[n], send[n], osend[n];
    int pairs_out[kMaxRanks * 2], pairs_in[kMaxRanks * 2], gathered[kMaxRanks * 2];
    for (int i = 0; i < n; ++i) {
        bcast[i] = rank == 0 ? value(salt, 0, i) : -1;
        obcast[i] = orank == osize - 1 ? value(salt + 2, osize - 1, i) : -1;
        send[i] = value(salt, rank, i);
        osend[i] = value(salt + 3, orank, i);
    }
    for (int r = 0; r < size; ++r) {
        pairs_out[2 * r] = rank * 100 + r;
        pairs_out[2 * r + 1] = -(rank * 100 + r);
    }
    MPI_Request requests[9];
    CHECK_INT(MPI_Ibcast(bcast, n, MPI_INT, 0, comm, &requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Iallreduce(osend, osum, n, MPI_INT, MPI_SUM, other, &requests[1]), MPI_SUCCESS);
    CHECK_INT(MPI_Iallreduce(send, sum, n, MPI_INT, MPI_SUM, comm, &requests[2]), MPI_SUCCESS);
    CHECK_INT(MPI_Allreduce(send, blocking, n, MPI_INT, MPI_MAX, comm), MPI_SUCCESS);
    CHECK_INT(MPI_Ibarrier(other, &requests[3]), MPI_SUCCESS);
    CHECK_INT(MPI_Ireduce(send, reduced, n, MPI_INT, MPI_SUM, size - 1, comm, &requests[4]), MPI_SUCCESS);
    CHECK_INT(MPI_Ibcast(obcast, n, MPI_INT, osize - 1, other, &requests[5]), MPI_SUCCESS);
    CHECK_INT(MPI_Ibarrier(comm, &requests[6]), MPI_SUCCESS);
    CHECK_INT(MPI_Ialltoall(pairs_out, 2, MPI_INT, pairs_in, 2, MPI_INT, comm, &requests[7]), MPI_SUCCESS);
    CHECK_INT(MPI_Igather(osend, 2, MPI_INT, gathered, 2, MPI_INT, 0, other, &requests[8]), MPI_SUCCESS);
    MPI_Request reversed[9];
    for (int i = 0; i < 9; ++i) reversed[i] = requests[8 - i];
    /* (A real statuses array: GCC's -Wstringop-overflow rejects the
     * MPI_STATUSES_IGNORE constant for an array parameter.) */
    MPI_Status statuses[9];
    CHECK_INT(MPI_Waitall(9, reversed, statuses), MPI_SUCCESS);
    for (int i = 0; i < 9; ++i) {
        CHECK(reversed[i] == MPI_REQUEST_NULL);
        CHECK_INT(statuses[i].MPI_ERROR, MPI_SUCCESS);
    }
    for (int i = 0; i < n; ++i) {
        int expected_sum = 0, expected_max = value(salt, 0, i), expected_osum = 0;
        for (int r = 0; r < size; ++r) {
            expected_sum += value(salt, r, i);
            if (value(salt, r, i) > expected_max) expected_max = value(salt, r, i);
        }
        for (int r = 0; r < osize; ++r) expected_osum += value(salt + 3, r, i);
        CHECK_INT(bcast[i], value(salt, 0, i));
        CHECK_INT(sum[i], expected_sum);
        CHECK_INT(blocking[i], expected_max);
        if (rank == size - 1) CHECK_INT(reduced[i], expected_sum);
        CHECK_INT(osum[i], expected_osum);
        CHECK_INT(obcast[i], value(salt + 2, osize - 1, i));
    }
    for (int r = 0; r < size; ++r) {
        CHECK_INT(pairs_in[2 * r], r * 100 + rank);
        CHECK_INT(pairs_in[2 * r + 1], -(r * 100 + rank));
    }
    if (orank == 0)
        for (int r = 0; r < osize; ++r)
            for (int i = 0; i < 2; ++i) CHECK_INT(gathered[2 * r + i], value(salt + 3, r, i));
}

/* Sixty-four outstanding at once (alternating Iallreduce and Ibcast),
 * completed by a Testsome loop: each reported once, every result right. */
static void many_outstanding_complete_by_testsome(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { many = 64 };
    int send[many], result[many], seen[many], indices[many];
    MPI_Request requests[many];
    MPI_Status statuses[many];
    for (int k = 0; k < many; ++k) {
        seen[k] = 0;
        send[k] = value(k, rank, 0);
        result[k] = k % 2 && rank == k % size ? value(k, k % size, 1) : -1;
        if (k % 2)
            CHECK_INT(MPI_Ibcast(&result[k], 1, MPI_INT, k % size, comm, &requests[k]), MPI_SUCCESS);
        else
            CHECK_INT(MPI_Iallreduce(&send[k], &result[k], 1, MPI_INT, MPI_SUM, comm, &requests[k]), MPI_SUCCESS);
    }
    int done = 0;
    while (done < many) {
        int outcount = 0;
        CHECK_INT(MPI_Testsome(many, requests, &outcount, indices, statuses), MPI_SUCCESS);
        CHECK(outcount != MPI_UNDEFINED);
        if (outcount == MPI_UNDEFINED) break;
        for (int i = 0; i < outcount; ++i) ++seen[indices[i]];
        done += outcount;
    }
    for (int k = 0; k < many; ++k) {
        CHECK_INT(seen[k], 1);
        int expected = 0;
        for (int r = 0; r < size; ++r) expected += value(k, r, 0);
        CHECK_INT(result[k], k % 2 ? value(k, k % size, 1) : expected);
    }
}

/* MPI_Test in a loop until the request completes; the flag is false
 * at first on a multi-rank communicator whose last rank enters late. */
static void test_loop_completes(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int send = rank + 1, result = 0;
    if (rank == size - 1) {
        int flag = 0;
        for (int i = 0; i < 20; ++i) MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Request request;
    CHECK_INT(MPI_Iallreduce(&send, &result, 1, MPI_INT, MPI_SUM, comm, &request), MPI_SUCCESS);
    int flag = 0, tests = 0;
    while (!flag) {
        CHECK_INT(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        ++tests;
    }
    CHECK(request == MPI_REQUEST_NULL);
    CHECK_INT(result, size * (size + 1) / 2);
    if (size > 1 && rank == 0) CHECK(tests > 1);
}

/* Nonblocking collectives and point-to-point requests in one Waitsome /
 * Testany set: each is reported exactly once, with its index. */
static void mixed_with_point_to_point_in_waitsome(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int send = rank + 1, sum = 0, token = -1, mine = rank;
    MPI_Request requests[4];
    CHECK_INT(MPI_Irecv(&token, 1, MPI_INT, (rank + size - 1) % size, 8, comm, &requests[0]), MPI_SUCCESS);
    CHECK_INT(MPI_Ibarrier(comm, &requests[1]), MPI_SUCCESS);
    CHECK_INT(MPI_Iallreduce(&send, &sum, 1, MPI_INT, MPI_SUM, comm, &requests[2]), MPI_SUCCESS);
    CHECK_INT(MPI_Isend(&mine, 1, MPI_INT, (rank + 1) % size, 8, comm, &requests[3]), MPI_SUCCESS);
    int seen[4] = {0, 0, 0, 0}, done = 0;
    while (done < 4) {
        int outcount = 0, indices[4];
        MPI_Status statuses[4];
        CHECK_INT(MPI_Waitsome(4, requests, &outcount, indices, statuses), MPI_SUCCESS);
        CHECK(outcount >= 1);
        for (int i = 0; i < outcount; ++i) {
            ++seen[indices[i]];
            CHECK(requests[indices[i]] == MPI_REQUEST_NULL);
        }
        done += outcount;
    }
    for (int i = 0; i < 4; ++i) CHECK_INT(seen[i], 1);
    int index = 0, flag = 0;
    CHECK_INT(MPI_Testany(4, requests, &index, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_INT(index, MPI_UNDEFINED);
    CHECK_INT(flag, 1);
    CHECK_INT(token, (rank + size - 1) % size);
    CHECK_INT(sum, size * (size + 1) / 2);
}

/* ---- progress */

/* Rank 0 waits in MPI_Probe for a message the last rank sends only once
 * its Iallreduce completed — which needs rank 0's later rounds: the probe
 * must keep rank 0's nonblocking collective going. */
static void probe_drives_progress(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size == 1) return;
    int send = rank + 1, result = 0, token = 0;
    MPI_Request request;
    CHECK_INT(MPI_Iallreduce(&send, &result, 1, MPI_INT, MPI_SUM, comm, &request), MPI_SUCCESS);
    if (rank == 0) {
        MPI_Status status;
        CHECK_INT(MPI_Probe(size - 1, 6, comm, &status), MPI_SUCCESS);
        CHECK_INT(MPI_Recv(&token, 1, MPI_INT, size - 1, 6, comm, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_INT(token, 99);
        wait_one(&request);
    } else if (rank == size - 1) {
        wait_one(&request);
        token = 99;
        CHECK_INT(MPI_Send(&token, 1, MPI_INT, 0, 6, comm), MPI_SUCCESS);
    } else {
        wait_one(&request);
    }
    CHECK_INT(result, size * (size + 1) / 2);
}

/* Every rank starts an Iallreduce, then a blocking MPI_Alltoall (always in
 * software); the last rank first waits for its Iallreduce. The others,
 * blocked in the Alltoall until the last rank joins, must keep the
 * Iallreduce going meanwhile. */
static void blocking_software_collective_drives_progress(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int send = rank + 1, result = 0, out[kMaxRanks], in[kMaxRanks];
    for (int r = 0; r < size; ++r) out[r] = rank * 10 + r;
    MPI_Request request;
    CHECK_INT(MPI_Iallreduce(&send, &result, 1, MPI_INT, MPI_SUM, comm, &request), MPI_SUCCESS);
    if (rank == size - 1) wait_one(&request);
    CHECK_INT(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm), MPI_SUCCESS);
    if (rank != size - 1) wait_one(&request);
    CHECK_INT(result, size * (size + 1) / 2);
    for (int r = 0; r < size; ++r) CHECK_INT(in[r], r * 10 + rank);
}

/* ---- errors */

static int error_names(int code, const char* call) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    if (strstr(text, call) == NULL) {
        fprintf(stderr, "FAIL rank %d: error string \"%s\" does not name %s\n", world_rank, text, call);
        return 0;
    }
    return 1;
}

static void bad_arguments_name_the_call(void) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int a[4] = {0}, b[4] = {0};
    MPI_Request request = MPI_REQUEST_NULL;
    int code = MPI_Ibcast(a, 1, MPI_INT, world_size + 3, comm, &request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_ROOT);
    CHECK(error_names(code, "MPI_Ibcast: invalid root"));
    CHECK(request == MPI_REQUEST_NULL);
    code = MPI_Iallreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm, &request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_BUFFER);
    CHECK(error_names(code, "MPI_Iallreduce: recvbuf is MPI_IN_PLACE, which is not allowed in MPI_Iallreduce"));
    code = MPI_Ireduce(a, b, -2, MPI_INT, MPI_SUM, 0, comm, &request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_COUNT);
    CHECK(error_names(code, "MPI_Ireduce: invalid count -2"));
    code = MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm, &request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_OP);
    CHECK(error_names(code, "MPI_Iallreduce"));
    code = MPI_Ibarrier(comm, NULL);
    CHECK_INT(mpi_error_class(code), MPI_ERR_ARG);
    CHECK(error_names(code, "MPI_Ibarrier: request is NULL"));
    /* Alltoallw: the per-peer type arrays are checked entry by entry. */
    int counts[kMaxRanks] = {0}, displs[kMaxRanks] = {0};
    MPI_Datatype types[kMaxRanks];
    for (int r = 0; r < kMaxRanks; ++r) types[r] = MPI_INT;
    code = MPI_Ialltoallw(a, counts, displs, types, b, counts, displs, NULL, comm, &request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_ARG);
    CHECK(error_names(code, "MPI_Ialltoallw: recvtypes is NULL"));
    types[world_size - 1] = MPI_DATATYPE_NULL;
    code = MPI_Alltoallw(a, counts, displs, types, b, counts, displs, types, comm);
    CHECK_INT(mpi_error_class(code), MPI_ERR_TYPE);
    CHECK(error_names(code, "MPI_Alltoallw: sendtypes[") && error_names(code, "] is MPI_DATATYPE_NULL"));
    /* A nonblocking collective's request can be neither freed nor cancelled. */
    CHECK_INT(MPI_Ibarrier(comm, &request), MPI_SUCCESS);
    code = MPI_Request_free(&request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_REQUEST);
    CHECK(error_names(code, "MPI_Request_free: request is a nonblocking collective's (MPI_Ibarrier)"));
    code = MPI_Cancel(&request);
    CHECK_INT(mpi_error_class(code), MPI_ERR_REQUEST);
    CHECK(request != MPI_REQUEST_NULL);
    wait_one(&request);
    /* Ranks that disagree on the count: the request fails with
     * MPI_ERR_TRUNCATE, reported by the completion call and naming the
     * collective (ranks 0 and 1 only, so no one waits for a forward). */
    MPI_Comm pair;
    MPI_Comm_split(comm, world_rank < 2 ? 0 : MPI_UNDEFINED, world_rank, &pair);
    if (pair != MPI_COMM_NULL && world_size >= 2) {
        MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
        int data[4] = {1, 2, 3, 4};
        CHECK_INT(MPI_Ibcast(data, world_rank == 0 ? 4 : 2, MPI_INT, 0, pair, &request), MPI_SUCCESS);
        code = MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (world_rank == 1) {
            CHECK_INT(mpi_error_class(code), MPI_ERR_TRUNCATE);
            CHECK(error_names(code, "MPI_Wait: MPI_Ibcast: received 16 bytes from rank 0, expected 8"));
        } else {
            CHECK_INT(code, MPI_SUCCESS);
        }
        CHECK(request == MPI_REQUEST_NULL);
        data[0] = world_rank + 1;
        CHECK_INT(MPI_Iallreduce(MPI_IN_PLACE, data, 1, MPI_INT, MPI_SUM, pair, &request), MPI_SUCCESS);
        wait_one(&request);
        CHECK_INT(data[0], 3);
    }
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    /* The communicator still works. */
    a[0] = world_rank;
    CHECK_INT(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, comm, &request), MPI_SUCCESS);
    wait_one(&request);
    CHECK_INT(b[0], world_size * (world_size - 1) / 2);
    MPI_Comm_free(&comm);
}

/* ---- driver */

static void on_communicator(MPI_Comm comm, MPI_Comm other, int salt) {
    ibarrier_overlaps_point_to_point(comm);
    ibarrier_waits_for_the_last_rank(comm);
    ibcast_delivers_the_roots_data(comm, salt);
    ibcast_of_a_derived_type(comm);
    ireduce_matches_the_reference(comm, salt + 10);
    ireduce_in_place_at_the_root(comm);
    iallreduce_matches_the_reference(comm, salt + 20);
    iallreduce_of_a_derived_type(comm);
    iallreduce_floats_equal_the_blocking_result(comm);
    igather_and_iscatter_match_the_reference(comm, salt + 40);
    igatherv_and_iscatterv_match_the_reference(comm, salt + 50);
    iallgather_and_iallgatherv_match_the_reference(comm, salt + 60);
    ialltoall_and_ialltoallv_match_the_reference(comm, salt + 70);
    iallgather_and_ialltoall_of_derived_types(comm);
    alltoallw_both_forms_match_the_reference(comm, salt + 75);
    ireduce_scatter_matches_the_reference(comm, salt + 80);
    iscan_and_iexscan_match_the_reference(comm, salt + 90);
    float_reductions_equal_the_blocking_results(comm);
    long_vectors_match_the_reference(comm, salt + 95);
    outstanding_together_complete_in_any_order(comm, other, salt + 30);
    test_loop_completes(comm);
    many_outstanding_complete_by_testsome(comm);
    probe_drives_progress(comm);
    mixed_with_point_to_point_in_waitsome(comm);
    blocking_software_collective_drives_progress(comm);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size > kMaxRanks) {
        if (world_rank == 0) fprintf(stderr, "coll_nonblocking: at most %d ranks\n", kMaxRanks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 1 && strcmp(argv[1], "fatal-in-place") == 0) {
        int a = 0;
        MPI_Request request;
        MPI_Iallreduce(&a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
        return 0; /* not reached: the default handler ends the job */
    }
    MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_type);
    MPI_Type_commit(&affine_type);
    MPI_Op_create(compose_op, 0, &affine_op);

    /* World, and a split of it: ranks by parity, reversed order (another
     * size, roots at other world ranks). */
    MPI_Comm halves;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &halves);
    on_communicator(MPI_COMM_WORLD, halves, 1);
    on_communicator(halves, MPI_COMM_SELF, 100);
    bad_arguments_name_the_call();

    MPI_Comm_free(&halves);
    MPI_Op_free(&affine_op);
    MPI_Type_free(&affine_type);
    const int status = mpi_check_done("coll_nonblocking", world_rank);
    MPI_Finalize();
    return status;
}
