/* SmartFuse fused collectives (isvp_fused.h, docs/FUSED.md) against plain C
 * references, offloaded (op arrays up to ISVP_MPI_FUSED_THRESHOLD, offload
 * on) and in the fallback (larger arrays, or offload off):
 *   - Allreduce -> CGRA program (MUL 3, ADD rank, PREFIX_SUM) -> Alltoall
 *     (NAS IS bucket counts), int32, several sizes (fully fused when small,
 *     on every communicator size);
 *   - Allgather -> PREFIX_SUM -> Allgatherv (FEM), doubles (fully fused);
 *   - a semi-fused Allgather on doubles (MUL 0.5, ADD index), exact;
 *   - malformed programs refused with MPI_ERR_ARG, then fused calls still work.
 * MPIX_Fused_last_offloaded() must say which path ran. With the argument
 * `reductions-only` (SHArP mode, collective.mode=sharp: the switches offload
 * Allreduce, Reduce and Barrier only) the expected paths are the driver's
 * there: IS semi-fused (the allreduce and its op in the switches, the
 * alltoall in host software), FEM and the semi-fused Allgather the fallback,
 * the results the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgra_programs.h"
#include "isvp_fused.h"
#include "mpi_check.h"

static int offload_on(void) {
    const char* v = getenv("ISVP_MPI_OFFLOAD");
    return v == NULL || strcmp(v, "0") != 0;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int offload = offload_on();
    /* SHArP mode: no alltoall or allgather in the switches. */
    const int reductions_only = argc > 1 && strcmp(argv[1], "reductions-only") == 0;
    const int fully = reductions_only ? 1 : 2; /* IS's path when the evaluator offloads */
    const int gathers = offload && !reductions_only;

    /* Allreduce -> op -> Alltoall. */
    MPIX_Cgra_program program = cgra_is_program();
    const int per_rank[] = {1, 16, 1100};
    for (int s = 0; s < 3; ++s) {
        const int count = per_rank[s] * size;
        int* local = malloc(sizeof(int) * (size_t)count);
        int* op = malloc(sizeof(int) * (size_t)count);
        int* out = malloc(sizeof(int) * (size_t)count);
        int* reference = malloc(sizeof(int) * (size_t)count * (size_t)size);
        for (int i = 0; i < count; ++i) local[i] = (rank * 7 + i * 3) % 11;
        CHECK_INT(MPIX_Allreduce_op_alltoall(local, op, out, count, MPI_INT, MPI_SUM, program, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        /* 2: fully fused (the switch's alltoall, on any size), 0: the fallback */
        CHECK_INT(MPIX_Fused_last_offloaded(), offload && count * 4 <= 16384 ? fully : 0);
        /* reference: every rank's op output */
        for (int r = 0; r < size; ++r) {
            int running = 0;
            for (int i = 0; i < count; ++i) {
                int total = 0;
                for (int q = 0; q < size; ++q) total += (q * 7 + i * 3) % 11;
                running += total * 3 + r;
                reference[(size_t)r * (size_t)count + (size_t)i] = running;
            }
        }
        for (int i = 0; i < count; ++i) CHECK_INT(op[i], reference[(size_t)rank * (size_t)count + (size_t)i]);
        const int block = count / size;
        for (int r = 0; r < size; ++r)
            for (int t = 0; t < block; ++t)
                CHECK_INT(out[r * block + t], reference[(size_t)r * (size_t)count + (size_t)(rank * block + t)]);
        free(local);
        free(op);
        free(out);
        free(reference);
    }

    /* Allgather -> prefix sum -> Allgatherv. */
    for (int s = 0; s < 2; ++s) {
        const int mine = s == 0 ? rank % 3 + 1 : 600 + rank;
        double* data = malloc(sizeof(double) * (size_t)mine);
        for (int j = 0; j < mine; ++j) data[j] = rank * 1000.0 + j * 0.25;
        int total = 0;
        for (int r = 0; r < size; ++r) total += s == 0 ? r % 3 + 1 : 600 + r;
        double* all = malloc(sizeof(double) * (size_t)total);
        int* counts = malloc(sizeof(int) * (size_t)size);
        int* displs = malloc(sizeof(int) * (size_t)size);
        CHECK_INT(MPIX_Allgather_prefix_allgatherv(data, mine, MPI_DOUBLE, all, counts, displs, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        CHECK_INT(MPIX_Fused_last_offloaded(), gathers ? 2 : 0);  /* fully fused: the blocks fit the switch */
        int at = 0;
        for (int r = 0; r < size; ++r) {
            const int n = s == 0 ? r % 3 + 1 : 600 + r;
            CHECK_INT(counts[r], n);
            CHECK_INT(displs[r], at);
            for (int j = 0; j < n; ++j) CHECK(all[at + j] == r * 1000.0 + j * 0.25);
            at += n;
        }
        free(data);
        free(all);
        free(counts);
        free(displs);
    }

    /* Semi-fused Allgather on doubles: x * 0.5 + index (exact in binary). */
    double half = 0.5;
    uint64_t half_bits;
    memcpy(&half_bits, &half, 8);
    const uint32_t scale_words[] = {
        cgra_head(3, 2, 2), 3, (uint32_t)half_bits, (uint32_t)(half_bits >> 32), 1 | 2u << 8, 0, 0};
    MPIX_Cgra_program scale;
    CHECK_INT(MPIX_Cgra_program_create(scale_words, 7, &scale), MPI_SUCCESS);
    double mine[5], gathered[5 * 64];
    for (int j = 0; j < 5; ++j) mine[j] = rank * 10.0 + j;
    CHECK_INT(MPIX_Allgather_op(mine, gathered, 5, MPI_DOUBLE, scale, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), gathers);
    for (int r = 0; r < size; ++r)
        for (int j = 0; j < 5; ++j) CHECK(gathered[r * 5 + j] == (r * 10.0 + j) * 0.5 + (r * 5 + j));
    /* The wrong datatype for the program is refused. */
    int x = 1, y = 0;
    CHECK_INT(MPIX_Allreduce_op(&x, &y, 1, MPI_INT, MPI_SUM, scale, MPI_COMM_WORLD), MPI_ERR_TYPE);

    /* Malformed programs: refused at load with a clear error. */
    MPIX_Cgra_program bad = MPIX_CGRA_PROGRAM_NULL;
    const uint32_t bad_magic[] = {0x12345601u, 1, 0, 0};
    const uint32_t bad_opcode[] = {cgra_head(0, 1, 1), 42, 0, 0};
    const uint32_t bad_shift[] = {cgra_head(2, 1, 1), 8, 3, 0};  /* SHL on float */
    const uint32_t bad_length[] = {cgra_head(0, 1, 2), 1, 0, 0}; /* 2 instructions, 1 given */
    const uint32_t too_many_lanes[] = {cgra_head(0, 128, 1), 1, 0, 0};
    const uint32_t* bads[] = {bad_magic, bad_opcode, bad_shift, bad_length, too_many_lanes};
    for (int b = 0; b < 5; ++b) {
        CHECK_INT(MPIX_Cgra_program_create(bads[b], 4, &bad), MPI_ERR_ARG);
        CHECK(bad == MPIX_CGRA_PROGRAM_NULL);
    }
    /* More instructions than the switch has PEs (8): the switch refuses, the host-only path accepts. */
    uint32_t nine[1 + 27] = {cgra_head(0, 1, 9)};
    for (int i = 0; i < 9; ++i) nine[1 + 3 * i] = 1;
    CHECK_INT(MPIX_Cgra_program_create(nine, 28, &bad), offload ? MPI_ERR_ARG : MPI_SUCCESS);
    if (bad) MPIX_Cgra_program_free(&bad);
    /* The switch keeps working: the first program again. */
    int values[4], ops[4], outs[4];
    for (int i = 0; i < 4; ++i) values[i] = i;
    CHECK_INT(MPIX_Allreduce_op(values, ops, 4, MPI_INT, MPI_SUM, program, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(MPIX_Fused_last_offloaded(), offload);
    int running = 0;
    for (int i = 0; i < 4; ++i) {
        running += i * size * 3 + rank;
        CHECK_INT(ops[i], running);
    }
    (void)outs;
    MPIX_Cgra_program_free(&program);
    MPIX_Cgra_program_free(&scale);
    const int status = mpi_check_done("fused_collectives", rank);
    MPI_Finalize();
    return status;
}
