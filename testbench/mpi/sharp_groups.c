/* collective.mode = sharp (docs/COLLECTIVES.md, "SHArP mode"): SHArP groups
 * under limits, member timeouts and aggregation-node faults, seen from MPI.
 *
 *   sharp_groups overlap   overlapping communicators (halves, rank mod 3,
 *                          leaf-sized blocks, a dup of the world), each with
 *                          several nonblocking Allreduces in flight at once,
 *                          integer SUM, MINLOC/MAXLOC on MPI_2INT and
 *                          MPI_FLOAT_INT, and a Barrier: every result exact.
 *                          With small collective.sharp_* limits some groups
 *                          fall back; the results are the same.
 *   sharp_groups leaf      Allreduces on the world and on blocks of 6 ranks
 *                          (one radix-8 leaf each). Run on 7 ranks, the 7th
 *                          alone on leaf 1: trimming keeps leaf 1 out of the
 *                          world's tree (the test reads the --stats file).
 *   sharp_groups timeout   the last rank skips one Allreduce on the world
 *                          (it calls it only after rank 0 has its error):
 *                          every rank's call returns an error naming SHArP,
 *                          the timeout and the switch; the next one is exact.
 *   sharp_groups fault     Allreduces on the world and on the first leaf's
 *                          block until the AN fault: every world call from
 *                          then on fails naming SHArP and the switch, the
 *                          leaf block's keep working, and a dup of the
 *                          world (a new group: it falls back) works.
 *   sharp_groups churn     creates, uses and frees 8 communicators one after
 *                          another (each under another comm rank 0, so
 *                          another SHArP group): with 2 trees per AN (the
 *                          world holds one) each gets a tree only because
 *                          the freed one gave its resources back.
 *   sharp_groups queue     with 2 trees per AN the world and a group C take
 *                          both leaves' slots; group B's first Allreduce
 *                          waits at the aggregation manager until C's members
 *                          free C, then runs offloaded, exact.
 *   sharp_groups bounded   the same, but C is freed only after B's Allreduce
 *                          completed: B waits sharp_queue_us, falls back and
 *                          completes (no deadlock).
 * Each rank prints "sharp_groups: rank R: ..." lines; FAIL lines on errors. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int failures;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            printf("FAIL: rank %d: ", rank);              \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
            ++failures;                                   \
        }                                                 \
    } while (0)

typedef struct {
    float value;
    int index;
} FloatInt;

/* The world ranks of `comm`'s members, in comm rank order (local: no
 * communication, so it is safe after a failed call). */
static int world_ranks(MPI_Comm comm, int* worlds) {
    MPI_Group group, world;
    int members;
    MPI_Comm_size(comm, &members);
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[256];
    for (int m = 0; m < members; ++m) ranks[m] = m;
    MPI_Group_translate_ranks(group, members, ranks, world, worlds);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return members;
}

/* One Allreduce of `n` ints (value w*7+i+round on world rank w) on `comm`,
 * checked when it succeeds. */
static int sum_allreduce(MPI_Comm comm, int round, int n) {
    int worlds[256];
    const int members = world_ranks(comm, worlds);
    int* in = malloc(sizeof(int) * (size_t)n);
    int* out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = rank * 7 + i + round;
    const int rc = MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
    if (rc == MPI_SUCCESS) {
        long base = 0;
        for (int m = 0; m < members; ++m) base += worlds[m] * 7;
        for (int i = 0; i < n; ++i)
            CHECK(out[i] == base + (long)members * (i + round), "allreduce round %d element %d: %d, expected %ld",
                  round, i, out[i], base + (long)members * (i + round));
    }
    free(in);
    free(out);
    return rc;
}

static void error_text(int rc, char* text) {
    int length = 0;
    MPI_Error_string(rc, text, &length);
}

static int overlap(void) {
    enum { kComms = 5, kRounds = 3, kCount = 64 };
    MPI_Comm comms[kComms];
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 6, rank, &comms[2]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[3]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comms[4]);
    int in[kComms][kRounds][kCount], out[kComms][kRounds][kCount];
    MPI_Request requests[kComms * kRounds];
    int posted = 0;
    for (int round = 0; round < kRounds; ++round)
        for (int c = 0; c < kComms; ++c) {
            for (int i = 0; i < kCount; ++i) in[c][round][i] = rank * 1000 + c * 100 + round * 10 + i;
            MPI_Iallreduce(in[c][round], out[c][round], kCount, MPI_INT, MPI_SUM, comms[c], &requests[posted++]);
        }
    MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    for (int c = 0; c < kComms; ++c) {
        int worlds[256];
        const int members = world_ranks(comms[c], worlds);
        for (int round = 0; round < kRounds; ++round)
            for (int i = 0; i < kCount; ++i) {
                long expected = 0;
                for (int m = 0; m < members; ++m) expected += worlds[m] * 1000 + c * 100 + round * 10 + i;
                CHECK(out[c][round][i] == expected, "communicator %d round %d element %d: %d, expected %ld", c, round,
                      i, out[c][round][i], expected);
            }
        /* MINLOC / MAXLOC on pairs: the lowest index wins ties. */
        int pair_in[2] = {(rank * 5) % 7, rank}, min_out[2], max_out[2];
        MPI_Allreduce(pair_in, min_out, 1, MPI_2INT, MPI_MINLOC, comms[c]);
        MPI_Allreduce(pair_in, max_out, 1, MPI_2INT, MPI_MAXLOC, comms[c]);
        int best_min = 1 << 30, at_min = 0, best_max = -1, at_max = 0;
        for (int m = 0; m < members; ++m) {
            const int v = (worlds[m] * 5) % 7;
            if (v < best_min || (v == best_min && worlds[m] < at_min)) best_min = v, at_min = worlds[m];
            if (v > best_max || (v == best_max && worlds[m] < at_max)) best_max = v, at_max = worlds[m];
        }
        CHECK(min_out[0] == best_min && min_out[1] == at_min, "communicator %d MINLOC (%d, %d), expected (%d, %d)", c,
              min_out[0], min_out[1], best_min, at_min);
        CHECK(max_out[0] == best_max && max_out[1] == at_max, "communicator %d MAXLOC (%d, %d), expected (%d, %d)", c,
              max_out[0], max_out[1], best_max, at_max);
        FloatInt f_in = {(float)((rank * 3) % 5) * 0.5f, rank}, f_out;
        MPI_Allreduce(&f_in, &f_out, 1, MPI_FLOAT_INT, MPI_MINLOC, comms[c]);
        float best = 1e9f;
        int at = 0;
        for (int m = 0; m < members; ++m) {
            const float v = (float)((worlds[m] * 3) % 5) * 0.5f;
            if (v < best || (v == best && worlds[m] < at)) best = v, at = worlds[m];
        }
        CHECK(f_out.value == best && f_out.index == at, "communicator %d FLOAT_INT MINLOC (%g, %d), expected (%g, %d)",
              c, (double)f_out.value, f_out.index, (double)best, at);
        MPI_Barrier(comms[c]);
    }
    for (int c = 0; c < kComms; ++c) MPI_Comm_free(&comms[c]);
    printf("sharp_groups: rank %d: overlap: %d communicators x %d nonblocking allreduces checked\n", rank, kComms,
           kRounds);
    return 0;
}

static int leaf(void) {
    MPI_Comm block;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 6, rank, &block);
    for (int round = 0; round < 3; ++round) {
        CHECK(sum_allreduce(MPI_COMM_WORLD, round, 16) == MPI_SUCCESS, "world allreduce");
        CHECK(sum_allreduce(block, round, 16) == MPI_SUCCESS, "block allreduce");
    }
    MPI_Comm_free(&block);
    printf("sharp_groups: rank %d: leaf: 3 allreduces on the world and on leaf-sized blocks\n", rank);
    return 0;
}

static int timeout(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(sum_allreduce(MPI_COMM_WORLD, 0, 16) == MPI_SUCCESS, "first allreduce");  // the group's tree exists
    int token = 0;
    if (rank == size - 1) /* arrives only after rank 0 has its error */
        MPI_Recv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int rc = sum_allreduce(MPI_COMM_WORLD, 1, 16);
    if (rank == 0) MPI_Send(&token, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD);
    char text[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) error_text(rc, text);
    CHECK(rc != MPI_SUCCESS, "the allreduce a member skipped succeeded");
    CHECK(strstr(text, "SHArP") && strstr(text, "timed out") && strstr(text, "switch"),
          "error does not name SHArP, the timeout and the switch: '%s'", text);
    printf("sharp_groups: rank %d: timeout: error: %s\n", rank, text);
    CHECK(sum_allreduce(MPI_COMM_WORLD, 2, 16) == MPI_SUCCESS, "the allreduce after the timeout failed");
    printf("sharp_groups: rank %d: timeout: next allreduce exact\n", rank);
    return 0;
}

static int fault(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm block;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 6, rank, &block);
    MPI_Comm_set_errhandler(block, MPI_ERRORS_RETURN);
    int first_error = -1, world_errors = 0, block_errors = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    for (int round = 0; round < 40; ++round) {
        const int rc = sum_allreduce(MPI_COMM_WORLD, round, 256);
        if (rc != MPI_SUCCESS) {
            ++world_errors;
            if (first_error < 0) {
                first_error = round;
                error_text(rc, text);
            }
        } else {
            CHECK(first_error < 0, "world allreduce %d succeeded after the fault (error at %d)", round, first_error);
        }
        if (sum_allreduce(block, round, 64) != MPI_SUCCESS) ++block_errors;
    }
    CHECK(first_error >= 0, "no world allreduce failed: did the AN fail?");
    CHECK(first_error != 0, "the first world allreduce failed: the AN failed before the group had its tree");
    CHECK(strstr(text, "SHArP") && strstr(text, "failed") && strstr(text, "switch"),
          "error does not name SHArP, the failure and the switch: '%s'", text);
    printf("sharp_groups: rank %d: fault: world allreduces from %d on failed (%d), error: %s\n", rank, first_error,
           world_errors, text);
    printf("sharp_groups: rank %d: fault: leaf-block allreduce errors %d\n", rank, block_errors);
    MPI_Comm again;
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    CHECK(sum_allreduce(again, 99, 256) == MPI_SUCCESS, "the new communicator's allreduce failed");
    printf("sharp_groups: rank %d: fault: a new communicator of the world works\n", rank);
    MPI_Comm_free(&again);
    MPI_Comm_free(&block);
    return 0;
}

/* A communicator of the whole world with comm rank 0 on world rank `first`
 * (another SHArP group than the world's for first != 0). */
static MPI_Comm rotated(int first) {
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (rank - first + size) % size, &comm);
    return comm;
}

static int churn(void) {
    CHECK(sum_allreduce(MPI_COMM_WORLD, 0, 8) == MPI_SUCCESS, "world allreduce");  // the world's tree holds a slot
    for (int round = 0; round < 8; ++round) {
        MPI_Comm comm = rotated(1 + round % (size - 1));
        for (int k = 0; k < 2; ++k) CHECK(sum_allreduce(comm, round + k, 32) == MPI_SUCCESS, "churn allreduce");
        MPI_Comm_free(&comm);
    }
    printf("sharp_groups: rank %d: churn: 8 communicators created, used and freed\n", rank);
    return 0;
}

/* Groups on 12 ranks (radix 8: hosts 0-5 on leaf 0, 6-11 on leaf 1), 2
 * trees per AN: the world holds one on every AN of its tree; C = {5, 8, 9,
 * 10, 11} spans both leaves and takes their second; B = {0-4, 6, 7} spans
 * both leaves too and must wait for C's. `bounded` == 0: C's members free C
 * after a few Allreduces of their own while B waits; B then gets C's
 * resources and runs offloaded. `bounded` == 1: C's members free C only
 * after B's Allreduce has completed (rank 5 waits for a message rank 0
 * sends after it): B's wait runs out (sharp_queue_us), B falls back and
 * completes. */
static int queue(int bounded) {
    CHECK(sum_allreduce(MPI_COMM_WORLD, 0, 8) == MPI_SUCCESS, "world allreduce");  // the world's tree holds a slot
    const int in_c = rank == 5 || rank >= 8;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, in_c, rank, &comm);
    if (in_c) CHECK(sum_allreduce(comm, 0, 16) == MPI_SUCCESS, "C's allreduce");  // C's tree takes the slots
    MPI_Barrier(MPI_COMM_WORLD);
    int token = 0;
    if (in_c) {
        if (!bounded)
            for (int round = 1; round <= 4; ++round) CHECK(sum_allreduce(comm, round, 16) == MPI_SUCCESS, "C");
        else if (rank == 5)
            MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int round = 0; round < 2; ++round) CHECK(sum_allreduce(comm, round, 64) == MPI_SUCCESS, "B's allreduce");
        if (bounded && rank == 0) MPI_Send(&token, 1, MPI_INT, 5, 9, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&comm);
    printf("sharp_groups: rank %d: %s: %s's allreduces exact\n", rank, bounded ? "bounded" : "queue", in_c ? "C" : "B");
    return 0;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "overlap") == 0)
        overlap();
    else if (strcmp(mode, "leaf") == 0)
        leaf();
    else if (strcmp(mode, "timeout") == 0)
        timeout();
    else if (strcmp(mode, "fault") == 0)
        fault();
    else if (strcmp(mode, "churn") == 0)
        churn();
    else if (strcmp(mode, "queue") == 0)
        queue(0);
    else if (strcmp(mode, "bounded") == 0)
        queue(1);

    else {
        if (rank == 0) fprintf(stderr, "usage: sharp_groups overlap|leaf|timeout|fault|churn|queue|bounded\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("sharp_groups: rank %d: %s: %s\n", rank, mode, failures ? "FAILED" : "passed");
    MPI_Finalize();
    return failures ? 1 : 0;
}
