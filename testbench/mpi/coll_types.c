/* Every predefined datatype through the collectives: each (operation,
 * datatype) pair the MPI standard allows (MPI 3.1 §5.9.2) in MPI_Allreduce,
 * and with one op per type (SUM where allowed) MPI_Reduce (root last, and
 * in place at rank 0), MPI_Allreduce in place, MPI_Scan, MPI_Exscan,
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter with unequal counts;
 * MINLOC/MAXLOC on all six pair types with ties (the lower index wins);
 * MPI_Bcast and MPI_Allgather of every type, the character types included.
 * References are folds in rank order computed by every rank; values are
 * small, so every floating-point order is exact.
 *
 * Usage: coll_types world|thirds  (MPI_COMM_WORLD, or a split by rank mod 3:
 * odd-sized, non-power-of-two communicators). */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "mpi_check.h"

#define N 13 /* elements per rank: odd, not a multiple of a 256-bit vector */
#define MAX_ELEMENT 32

enum { MAX, MIN, SUM, PROD, LAND, BAND, LOR, BOR, LXOR, BXOR, MINLOC, MAXLOC, OP_COUNT };
static const MPI_Op ops[OP_COUNT] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                                     MPI_LOR,  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
static const char* const op_names[OP_COUNT] = {"MAX", "MIN", "SUM",  "PROD", "LAND",   "BAND",
                                               "LOR", "BOR", "LXOR", "BXOR", "MINLOC", "MAXLOC"};

#define INTEGER_OPS ((1u << MAX) | (1u << MIN) | (1u << SUM) | (1u << PROD) | (1u << LAND) | (1u << LOR) | \
                     (1u << LXOR) | (1u << BAND) | (1u << BOR) | (1u << BXOR))
#define FLOATING_OPS ((1u << MAX) | (1u << MIN) | (1u << SUM) | (1u << PROD))
#define LOGICAL_OPS ((1u << LAND) | (1u << LOR) | (1u << LXOR))
#define BYTE_OPS ((1u << BAND) | (1u << BOR) | (1u << BXOR))
#define COMPLEX_OPS ((1u << SUM) | (1u << PROD))
#define MULTILANGUAGE_OPS ((1u << MAX) | (1u << MIN) | (1u << SUM) | (1u << PROD) | BYTE_OPS)
#define PAIR_OPS ((1u << MINLOC) | (1u << MAXLOC))

/* Element i of rank r's contribution (as an int) for `op`: small, with
 * zeros for the logical ops and repeats (ties) for MINLOC/MAXLOC. */
static int generate(int rank, int i, int op) {
    switch (op) {
        case PROD:
            return 1 + (rank + i) % 3 - ((rank * 5 + i) % 7 == 0 ? 2 : 0);
        case LAND:
        case LOR:
        case LXOR:
            return (rank * 3 + i) % 4 == 0 ? 0 : (rank + i) % 5;
        case MINLOC:
        case MAXLOC:
            return (rank * 3 + i) % 4;
        default:
            return (rank * 7 + i * 3) % 23 - 11;
    }
}

/* One datatype: its C element and how the reference combines it. */
typedef struct {
    const char* name;
    MPI_Datatype type;
    size_t size;
    unsigned ops; /* allowed ops */
    void (*make)(void* element, int rank, int i, int op);
    void (*apply)(int op, const void* a, const void* b, void* out); /* out = a op b */
    int (*equal)(const void* a, const void* b);                    /* by value */
} TypeCase;

static unsigned long long wrapping_product(unsigned long long a, unsigned long long b) { return a * b; }

/* make_NAME: element i of rank r's contribution, converted from generate(). */
#define MAKE_FROM_INT(T, NAME)                                  \
    static void make_##NAME(void* e, int rank, int i, int op) { \
        T v = (T)generate(rank, i, op);                         \
        memcpy(e, &v, sizeof v);                                \
    }

/* equal_NAME: comparison by value (types with padding bytes). */
#define EQUAL_BY_VALUE(T, NAME)                               \
    static int equal_##NAME(const void* pa, const void* pb) { \
        T a, b;                                               \
        memcpy(&a, pa, sizeof a);                             \
        memcpy(&b, pb, sizeof b);                             \
        return a == b;                                        \
    }

#define INTEGER_CASE(T, NAME)                                                                          \
    MAKE_FROM_INT(T, NAME)                                                                             \
    static void apply_##NAME(int op, const void* pa, const void* pb, void* out) {                      \
        T a, b, r = 0;                                                                                 \
        memcpy(&a, pa, sizeof a);                                                                      \
        memcpy(&b, pb, sizeof b);                                                                      \
        switch (op) {                                                                                  \
            case MAX: r = a > b ? a : b; break;                                                        \
            case MIN: r = a < b ? a : b; break;                                                        \
            case SUM: r = (T)((unsigned long long)a + (unsigned long long)b); break;                   \
            case PROD: r = (T)wrapping_product((unsigned long long)a, (unsigned long long)b); break;   \
            case LAND: r = (T)(a && b); break;                                                         \
            case LOR: r = (T)(a || b); break;                                                          \
            case LXOR: r = (T)(!a != !b); break;                                                       \
            case BAND: r = (T)(a & b); break;                                                          \
            case BOR: r = (T)(a | b); break;                                                           \
            case BXOR: r = (T)(a ^ b); break;                                                          \
            default: break;                                                                            \
        }                                                                                              \
        memcpy(out, &r, sizeof r);                                                                     \
    }                                                                                                  \
    static int equal_##NAME(const void* a, const void* b) { return memcmp(a, b, sizeof(T)) == 0; }

#define FLOATING_CASE(T, NAME)                                                    \
    MAKE_FROM_INT(T, NAME)                                                        \
    EQUAL_BY_VALUE(T, NAME)                                                       \
    static void apply_##NAME(int op, const void* pa, const void* pb, void* out) { \
        T a, b, r = 0;                                                            \
        memcpy(&a, pa, sizeof a);                                                 \
        memcpy(&b, pb, sizeof b);                                                 \
        switch (op) {                                                             \
            case MAX: r = a > b ? a : b; break;                                   \
            case MIN: r = a < b ? a : b; break;                                   \
            case SUM: r = a + b; break;                                           \
            case PROD: r = a * b; break;                                          \
            default: break;                                                       \
        }                                                                         \
        memcpy(out, &r, sizeof r);                                                \
    }

#define COMPLEX_CASE(T, NAME)                                                     \
    EQUAL_BY_VALUE(T, NAME)                                                       \
    static void make_##NAME(void* e, int rank, int i, int op) {                   \
        T v = (T)generate(rank, i, op) + (T)generate(rank + 1, i, op) * (T)I;     \
        memcpy(e, &v, sizeof v);                                                  \
    }                                                                             \
    static void apply_##NAME(int op, const void* pa, const void* pb, void* out) { \
        T a, b;                                                                   \
        memcpy(&a, pa, sizeof a);                                                 \
        memcpy(&b, pb, sizeof b);                                                 \
        const T r = op == SUM ? a + b : a * b;                                    \
        memcpy(out, &r, sizeof r);                                                \
    }

/* {value; int index}: index = the rank, values repeat (ties). */
#define PAIR_CASE(T, NAME)                                                                          \
    typedef struct {                                                                                \
        T value;                                                                                    \
        int index;                                                                                  \
    } pair_##NAME;                                                                                  \
    static void make_##NAME(void* e, int rank, int i, int op) {                                     \
        pair_##NAME v;                                                                              \
        memset(&v, 0, sizeof v);                                                                    \
        v.value = (T)generate(rank, i, op);                                                         \
        v.index = rank;                                                                             \
        memcpy(e, &v, sizeof v);                                                                    \
    }                                                                                               \
    static void apply_##NAME(int op, const void* pa, const void* pb, void* out) {                   \
        pair_##NAME a, b;                                                                           \
        memcpy(&a, pa, sizeof a);                                                                   \
        memcpy(&b, pb, sizeof b);                                                                   \
        const int b_wins = op == MINLOC ? b.value < a.value : b.value > a.value;                    \
        const int tie = b.value == a.value;                                                         \
        pair_##NAME r = b_wins || (tie && b.index < a.index) ? b : a;                               \
        memcpy(out, &r, sizeof r);                                                                  \
    }                                                                                               \
    static int equal_##NAME(const void* pa, const void* pb) {                                       \
        pair_##NAME a, b;                                                                           \
        memcpy(&a, pa, sizeof a);                                                                   \
        memcpy(&b, pb, sizeof b);                                                                   \
        return a.value == b.value && a.index == b.index;                                            \
    }

INTEGER_CASE(signed char, signed_char)
INTEGER_CASE(unsigned char, unsigned_char)
INTEGER_CASE(short, short)
INTEGER_CASE(unsigned short, unsigned_short)
INTEGER_CASE(int, int)
INTEGER_CASE(unsigned, unsigned)
INTEGER_CASE(long, long)
INTEGER_CASE(unsigned long, unsigned_long)
INTEGER_CASE(long long, long_long)
INTEGER_CASE(unsigned long long, unsigned_long_long)
INTEGER_CASE(int8_t, int8)
INTEGER_CASE(int16_t, int16)
INTEGER_CASE(int32_t, int32)
INTEGER_CASE(int64_t, int64)
INTEGER_CASE(uint8_t, uint8)
INTEGER_CASE(uint16_t, uint16)
INTEGER_CASE(uint32_t, uint32)
INTEGER_CASE(uint64_t, uint64)
INTEGER_CASE(MPI_Aint, aint)
INTEGER_CASE(MPI_Offset, offset)
INTEGER_CASE(MPI_Count, count)
INTEGER_CASE(bool, c_bool)
INTEGER_CASE(char, char)
INTEGER_CASE(wchar_t, wchar)
FLOATING_CASE(float, float)
FLOATING_CASE(double, double)
FLOATING_CASE(long double, long_double)
COMPLEX_CASE(float _Complex, float_complex)
COMPLEX_CASE(double _Complex, double_complex)
COMPLEX_CASE(long double _Complex, long_double_complex)
PAIR_CASE(float, float_int)
PAIR_CASE(double, double_int)
PAIR_CASE(long, long_int)
PAIR_CASE(int, two_int)
PAIR_CASE(short, short_int)
PAIR_CASE(long double, long_double_int)

#define CASE(NAME, MPI_TYPE, T, OPS) {#MPI_TYPE, MPI_TYPE, sizeof(T), OPS, make_##NAME, apply_##NAME, equal_##NAME}

static const TypeCase cases[] = {
    CASE(char, MPI_CHAR, char, 0),
    CASE(wchar, MPI_WCHAR, wchar_t, 0),
    CASE(signed_char, MPI_SIGNED_CHAR, signed char, INTEGER_OPS),
    CASE(unsigned_char, MPI_UNSIGNED_CHAR, unsigned char, INTEGER_OPS),
    CASE(unsigned_char, MPI_BYTE, unsigned char, BYTE_OPS),
    CASE(short, MPI_SHORT, short, INTEGER_OPS),
    CASE(unsigned_short, MPI_UNSIGNED_SHORT, unsigned short, INTEGER_OPS),
    CASE(int, MPI_INT, int, INTEGER_OPS),
    CASE(unsigned, MPI_UNSIGNED, unsigned, INTEGER_OPS),
    CASE(long, MPI_LONG, long, INTEGER_OPS),
    CASE(unsigned_long, MPI_UNSIGNED_LONG, unsigned long, INTEGER_OPS),
    CASE(long_long, MPI_LONG_LONG, long long, INTEGER_OPS),
    CASE(long_long, MPI_LONG_LONG_INT, long long, INTEGER_OPS),
    CASE(unsigned_long_long, MPI_UNSIGNED_LONG_LONG, unsigned long long, INTEGER_OPS),
    CASE(int8, MPI_INT8_T, int8_t, INTEGER_OPS),
    CASE(int16, MPI_INT16_T, int16_t, INTEGER_OPS),
    CASE(int32, MPI_INT32_T, int32_t, INTEGER_OPS),
    CASE(int64, MPI_INT64_T, int64_t, INTEGER_OPS),
    CASE(uint8, MPI_UINT8_T, uint8_t, INTEGER_OPS),
    CASE(uint16, MPI_UINT16_T, uint16_t, INTEGER_OPS),
    CASE(uint32, MPI_UINT32_T, uint32_t, INTEGER_OPS),
    CASE(uint64, MPI_UINT64_T, uint64_t, INTEGER_OPS),
    CASE(aint, MPI_AINT, MPI_Aint, MULTILANGUAGE_OPS),
    CASE(offset, MPI_OFFSET, MPI_Offset, MULTILANGUAGE_OPS),
    CASE(count, MPI_COUNT, MPI_Count, MULTILANGUAGE_OPS),
    CASE(c_bool, MPI_C_BOOL, bool, LOGICAL_OPS),
    CASE(float, MPI_FLOAT, float, FLOATING_OPS),
    CASE(double, MPI_DOUBLE, double, FLOATING_OPS),
    CASE(long_double, MPI_LONG_DOUBLE, long double, FLOATING_OPS),
    CASE(float_complex, MPI_C_FLOAT_COMPLEX, float _Complex, COMPLEX_OPS),
    CASE(double_complex, MPI_C_DOUBLE_COMPLEX, double _Complex, COMPLEX_OPS),
    CASE(long_double_complex, MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, COMPLEX_OPS),
    CASE(float_int, MPI_FLOAT_INT, pair_float_int, PAIR_OPS),
    CASE(double_int, MPI_DOUBLE_INT, pair_double_int, PAIR_OPS),
    CASE(long_int, MPI_LONG_INT, pair_long_int, PAIR_OPS),
    CASE(two_int, MPI_2INT, pair_two_int, PAIR_OPS),
    CASE(short_int, MPI_SHORT_INT, pair_short_int, PAIR_OPS),
    CASE(long_double_int, MPI_LONG_DOUBLE_INT, pair_long_double_int, PAIR_OPS),
};

static const char* comm_name = "";

/* Buffers of up to `size` x N elements of at most MAX_ELEMENT bytes. */
enum { MAX_RANKS = 64 };
static unsigned char send_buffer[MAX_RANKS * N * MAX_ELEMENT], recv_buffer[MAX_RANKS * N * MAX_ELEMENT],
    want_buffer[MAX_RANKS * N * MAX_ELEMENT];

static void* at(unsigned char* buffer, const TypeCase* t, int i) { return buffer + (size_t)i * t->size; }

/* want[i] = op over ranks first .. last of element `element_base + i`. */
static void fold(const TypeCase* t, int op, int first, int last, int element_base, int n, unsigned char* want) {
    unsigned char next[MAX_ELEMENT];
    for (int i = 0; i < n; ++i) {
        void* w = at(want, t, i);
        t->make(w, first, element_base + i, op);
        for (int r = first + 1; r <= last; ++r) {
            t->make(next, r, element_base + i, op);
            t->apply(op, w, next, w);
        }
    }
}

static void compare(const TypeCase* t, int op, const char* call, const unsigned char* got, const unsigned char* want,
                    int n) {
    for (int i = 0; i < n; ++i)
        if (!t->equal(got + (size_t)i * t->size, want + (size_t)i * t->size)) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL rank %d: %s with MPI_%s on %s (%s): element %d differs from the rank-order fold\n",
                    mpi_check_rank(), call, op_names[op], t->name, comm_name, i);
            return;
        }
}

static void succeeded(int code, const TypeCase* t, const char* call) {
    if (code == MPI_SUCCESS) return;
    ++mpi_check_failures;
    fprintf(stderr, "FAIL rank %d: %s on %s (%s) returned error class %d\n", mpi_check_rank(), call, t->name,
            comm_name, mpi_error_class(code));
}

static void fill(const TypeCase* t, unsigned char* buffer, int rank, int element_base, int n, int op) {
    for (int i = 0; i < n; ++i) t->make(at(buffer, t, i), rank, element_base + i, op);
}

static void data_movement(const TypeCase* t, MPI_Comm comm, int rank, int size) {
    const int root = size / 2;
    fill(t, send_buffer, rank == root ? root : -1, 0, N, SUM);
    succeeded(MPI_Bcast(send_buffer, N, t->type, root, comm), t, "MPI_Bcast");
    fill(t, want_buffer, root, 0, N, SUM);
    compare(t, SUM, "MPI_Bcast", send_buffer, want_buffer, N);
    fill(t, send_buffer, rank, 0, N, SUM);
    succeeded(MPI_Allgather(send_buffer, N, t->type, recv_buffer, N, t->type, comm), t, "MPI_Allgather");
    for (int r = 0; r < size; ++r) fill(t, want_buffer + (size_t)r * N * t->size, r, 0, N, SUM);
    compare(t, SUM, "MPI_Allgather", recv_buffer, want_buffer, N * size);
}

static void reductions(const TypeCase* t, MPI_Comm comm, int rank, int size) {
    int main_op = -1;
    for (int op = 0; op < OP_COUNT; ++op) {
        if (!(t->ops >> op & 1u)) continue;
        if (main_op < 0 || op == SUM) main_op = op;
        fill(t, send_buffer, rank, 0, N, op);
        succeeded(MPI_Allreduce(send_buffer, recv_buffer, N, t->type, ops[op], comm), t, "MPI_Allreduce");
        fold(t, op, 0, size - 1, 0, N, want_buffer);
        compare(t, op, "MPI_Allreduce", recv_buffer, want_buffer, N);
    }
    if (main_op < 0) return;
    const int op = main_op;
    const MPI_Op mpi_op = ops[op];

    fill(t, send_buffer, rank, 0, N, op);
    succeeded(MPI_Reduce(send_buffer, recv_buffer, N, t->type, mpi_op, size - 1, comm), t, "MPI_Reduce");
    fold(t, op, 0, size - 1, 0, N, want_buffer);
    if (rank == size - 1) compare(t, op, "MPI_Reduce", recv_buffer, want_buffer, N);
    fill(t, recv_buffer, rank, 0, N, op);
    succeeded(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : recv_buffer, rank == 0 ? recv_buffer : NULL, N, t->type, mpi_op,
                         0, comm),
              t, "MPI_Reduce in place");
    if (rank == 0) compare(t, op, "MPI_Reduce in place", recv_buffer, want_buffer, N);
    fill(t, recv_buffer, rank, 0, N, op);
    succeeded(MPI_Allreduce(MPI_IN_PLACE, recv_buffer, N, t->type, mpi_op, comm), t, "MPI_Allreduce in place");
    compare(t, op, "MPI_Allreduce in place", recv_buffer, want_buffer, N);

    succeeded(MPI_Scan(send_buffer, recv_buffer, N, t->type, mpi_op, comm), t, "MPI_Scan");
    fold(t, op, 0, rank, 0, N, want_buffer);
    compare(t, op, "MPI_Scan", recv_buffer, want_buffer, N);
    succeeded(MPI_Exscan(send_buffer, recv_buffer, N, t->type, mpi_op, comm), t, "MPI_Exscan");
    if (rank > 0) {
        fold(t, op, 0, rank - 1, 0, N, want_buffer);
        compare(t, op, "MPI_Exscan", recv_buffer, want_buffer, N);
    }

    fill(t, send_buffer, rank, 0, N * size, op);
    succeeded(MPI_Reduce_scatter_block(send_buffer, recv_buffer, N, t->type, mpi_op, comm), t,
              "MPI_Reduce_scatter_block");
    fold(t, op, 0, size - 1, rank * N, N, want_buffer);
    compare(t, op, "MPI_Reduce_scatter_block", recv_buffer, want_buffer, N);

    int counts[MAX_RANKS], start = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = (r * 5) % 7;
        if (r < rank) start += counts[r];
    }
    succeeded(MPI_Reduce_scatter(send_buffer, recv_buffer, counts, t->type, mpi_op, comm), t, "MPI_Reduce_scatter");
    fold(t, op, 0, size - 1, start, counts[rank], want_buffer);
    compare(t, op, "MPI_Reduce_scatter", recv_buffer, want_buffer, counts[rank]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    CHECK(world_size <= MAX_RANKS);
    MPI_Comm comm = MPI_COMM_WORLD;
    comm_name = "MPI_COMM_WORLD";
    if (argc > 1 && strcmp(argv[1], "thirds") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 3, world_rank, &comm);
        comm_name = "split rank mod 3";
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int combinations = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        CHECK(cases[k].size <= MAX_ELEMENT);
        data_movement(&cases[k], comm, rank, size);
        reductions(&cases[k], comm, rank, size);
        for (int op = 0; op < OP_COUNT; ++op) combinations += (int)(cases[k].ops >> op & 1u);
    }
    if (rank == 0 && world_rank == 0)
        printf("coll_types: %d datatypes, %d (op, datatype) pairs on %s\n", (int)(sizeof cases / sizeof cases[0]),
               combinations, comm_name);
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    MPI_Finalize();
    return mpi_check_done("coll_types", world_rank);
}
