/* Reduction operations, in C, through MPI_Reduce_local: every predefined
 * (operation, datatype) pair the MPI standard allows gives what a plain C
 * reference gives, element by element; every pair it does not allow is
 * MPI_ERR_OP. User operations: commutative and non-commutative (2x2 matrix
 * product, whose order matters), MPI_Op_commutative, MPI_Op_free; a
 * predefined op on derived types made of one predefined type.
 * Run: isvp run -n 2 -- mpi_operations */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "mpi_check.h"

#define N 19

enum { OP_COUNT = 12 };
static const MPI_Op ops[OP_COUNT] = {MPI_MAX,  MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,   MPI_BAND,
                                     MPI_LOR,  MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
static const char* const op_names[OP_COUNT] = {"MAX", "MIN", "SUM",  "PROD", "LAND",   "BAND",
                                               "LOR", "BOR", "LXOR", "BXOR", "MINLOC", "MAXLOC"};
enum { MAX, MIN, SUM, PROD, LAND, BAND, LOR, BOR, LXOR, BXOR, MINLOC, MAXLOC };

/* Which ops the standard allows on each group of types (MPI 3.1 §5.9.2). */
#define ALLOW_INTEGER ((1 << MAX) | (1 << MIN) | (1 << SUM) | (1 << PROD) | (1 << LAND) | (1 << LOR) | \
                       (1 << LXOR) | (1 << BAND) | (1 << BOR) | (1 << BXOR))
#define ALLOW_FLOATING ((1 << MAX) | (1 << MIN) | (1 << SUM) | (1 << PROD))
#define ALLOW_LOGICAL ((1 << LAND) | (1 << LOR) | (1 << LXOR))
#define ALLOW_BYTE ((1 << BAND) | (1 << BOR) | (1 << BXOR))
#define ALLOW_COMPLEX ((1 << SUM) | (1 << PROD))
#define ALLOW_MULTILANGUAGE ((1 << MAX) | (1 << MIN) | (1 << SUM) | (1 << PROD) | (1 << BAND) | (1 << BOR) | (1 << BXOR))
#define ALLOW_PAIR ((1 << MINLOC) | (1 << MAXLOC))

static int combinations = 0;

/* Runs MPI_Reduce_local(in, inout) for one pair: allowed pairs must equal
 * `expected` byte for byte over `bytes`, others must fail with MPI_ERR_OP. */
static void check_pair(const char* type_name, int op, int allowed, MPI_Datatype type, const void* in, void* inout,
                       const void* expected, size_t bytes) {
    const int code = MPI_Reduce_local(in, inout, N, type, ops[op]);
    ++combinations;
    if (!allowed) {
        if (mpi_error_class(code) != MPI_ERR_OP) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL MPI_%s on %s: returned %d, expected MPI_ERR_OP\n", op_names[op], type_name, code);
        }
        return;
    }
    if (code != MPI_SUCCESS || memcmp(inout, expected, bytes) != 0) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL MPI_%s on %s: code %d, result differs from the reference\n", op_names[op], type_name,
                code);
    }
}

/* Reports a value mismatch of element i (types with padding bytes, such as
 * long double, are compared by value, not byte for byte). */
static void check_values(const char* type_name, int op, int allowed, int code, int equal) {
    ++combinations;
    if (!allowed) {
        if (mpi_error_class(code) != MPI_ERR_OP) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL MPI_%s on %s: returned %d, expected MPI_ERR_OP\n", op_names[op], type_name, code);
        }
    } else if (code != MPI_SUCCESS || !equal) {
        ++mpi_check_failures;
        fprintf(stderr, "FAIL MPI_%s on %s: code %d, result differs from the reference\n", op_names[op], type_name,
                code);
    }
}

/* Integer types: signed values around zero, the reference in C. */
#define INTEGER_TEST(NAME, C, MPITYPE, ALLOWED)                                                          \
    static void test_##NAME(void) {                                                                   \
        for (int op = 0; op < OP_COUNT; ++op) {                                                        \
            C in[N], inout[N], expected[N];                                                            \
            for (int i = 0; i < N; ++i) {                                                              \
                in[i] = (C)(i % 5 == 0 ? 0 : (i * 37 + 11) % 23 - 9);                                 \
                inout[i] = (C)(i % 7 == 0 ? 0 : (i * 53 + 5) % 19 - 6);                                \
                C a = in[i], b = inout[i], r = 0;                                                      \
                switch (op) {                                                                          \
                    case MAX: r = a > b ? a : b; break;                                                \
                    case MIN: r = a < b ? a : b; break;                                                \
                    case SUM: r = (C)((unsigned long long)a + (unsigned long long)b); break;           \
                    case PROD: r = (C)((unsigned long long)a * (unsigned long long)b); break;          \
                    case LAND: r = (C)((a != 0) && (b != 0)); break;                                   \
                    case LOR: r = (C)((a != 0) || (b != 0)); break;                                    \
                    case LXOR: r = (C)((a != 0) != (b != 0)); break;                                   \
                    case BAND: r = (C)(a & b); break;                                                  \
                    case BOR: r = (C)(a | b); break;                                                   \
                    case BXOR: r = (C)(a ^ b); break;                                                  \
                    default: r = b;                                                                    \
                }                                                                                      \
                expected[i] = r;                                                                       \
            }                                                                                          \
            check_pair(#MPITYPE, op, ((ALLOWED) >> op) & 1, MPITYPE, in, inout, expected, sizeof inout); \
        }                                                                                              \
    }

/* Floating types: halves, so every SUM and PROD is exact. */
#define FLOATING_TEST(NAME, C, MPITYPE)                                                                   \
    static void test_##NAME(void) {                                                                   \
        for (int op = 0; op < OP_COUNT; ++op) {                                                        \
            C in[N], inout[N], expected[N];                                                            \
            memset(in, 0, sizeof in);                                                                  \
            memset(inout, 0, sizeof inout);                                                            \
            memset(expected, 0, sizeof expected);                                                      \
            for (int i = 0; i < N; ++i) {                                                              \
                in[i] = (C)((i * 37 % 23) - 11) * (C)0.5;                                              \
                inout[i] = (C)((i * 53 % 19) - 9) * (C)0.25;                                           \
                C a = in[i], b = inout[i];                                                             \
                expected[i] = op == MAX ? (a > b ? a : b) : op == MIN ? (a < b ? a : b)                \
                            : op == SUM ? a + b : op == PROD ? a * b : b;                              \
            }                                                                                          \
            const int code = MPI_Reduce_local(in, inout, N, MPITYPE, ops[op]);                       \
            int equal = 1;                                                                             \
            for (int i = 0; i < N; ++i) equal = equal && inout[i] == expected[i];                      \
            check_values(#MPITYPE, op, (ALLOW_FLOATING >> op) & 1, code, equal);                       \
        }                                                                                              \
    }

#define COMPLEX_TEST(NAME, C, MPITYPE)                                                                    \
    static void test_##NAME(void) {                                                                   \
        for (int op = 0; op < OP_COUNT; ++op) {                                                        \
            C in[N], inout[N], expected[N];                                                            \
            memset(in, 0, sizeof in);                                                                  \
            memset(inout, 0, sizeof inout);                                                            \
            memset(expected, 0, sizeof expected);                                                      \
            for (int i = 0; i < N; ++i) {                                                              \
                in[i] = (C)(i % 5 - 2) + (C)(i % 3 - 1) * (C)I;                                        \
                inout[i] = (C)(i % 4 - 1) * (C)0.5 + (C)(i % 7 - 3) * (C)I;                            \
                expected[i] = op == SUM ? in[i] + inout[i] : op == PROD ? in[i] * inout[i] : inout[i]; \
            }                                                                                          \
            const int code = MPI_Reduce_local(in, inout, N, MPITYPE, ops[op]);                       \
            int equal = 1;                                                                             \
            for (int i = 0; i < N; ++i) equal = equal && inout[i] == expected[i];                      \
            check_values(#MPITYPE, op, (ALLOW_COMPLEX >> op) & 1, code, equal);                        \
        }                                                                                              \
    }

/* Pair types: values repeat, so ties are decided by the lower index. */
#define PAIR_TEST(NAME, V, MPITYPE)                                                                       \
    static void test_##NAME(void) {                                                                   \
        struct pair { V value; int index; };                                                           \
        for (int op = 0; op < OP_COUNT; ++op) {                                                        \
            struct pair in[N], inout[N], expected[N];                                                  \
            memset(in, 0, sizeof in);                                                                  \
            memset(inout, 0, sizeof inout);                                                            \
            memset(expected, 0, sizeof expected);                                                      \
            for (int i = 0; i < N; ++i) {                                                              \
                in[i].value = (V)(i % 4);                                                              \
                in[i].index = i * 3 % 7;                                                               \
                inout[i].value = (V)(i % 3);                                                           \
                inout[i].index = i * 5 % 11;                                                           \
                struct pair a = in[i], b = inout[i], r = b;                                            \
                if (op == MINLOC || op == MAXLOC) {                                                    \
                    int better = op == MINLOC ? a.value < b.value : a.value > b.value;                 \
                    if (better) r = a;                                                                 \
                    else if (a.value == b.value && a.index < b.index) r.index = a.index;               \
                }                                                                                      \
                expected[i] = r;                                                                       \
            }                                                                                          \
            const int code = MPI_Reduce_local(in, inout, N, MPITYPE, ops[op]);                       \
            int equal = 1;                                                                             \
            for (int i = 0; i < N; ++i)                                                                \
                equal = equal && inout[i].value == expected[i].value && inout[i].index == expected[i].index; \
            check_values(#MPITYPE, op, (ALLOW_PAIR >> op) & 1, code, equal);                           \
        }                                                                                              \
    }

INTEGER_TEST(signed_char, signed char, MPI_SIGNED_CHAR, ALLOW_INTEGER)
INTEGER_TEST(unsigned_char, unsigned char, MPI_UNSIGNED_CHAR, ALLOW_INTEGER)
INTEGER_TEST(short, short, MPI_SHORT, ALLOW_INTEGER)
INTEGER_TEST(unsigned_short, unsigned short, MPI_UNSIGNED_SHORT, ALLOW_INTEGER)
INTEGER_TEST(int, int, MPI_INT, ALLOW_INTEGER)
INTEGER_TEST(unsigned, unsigned, MPI_UNSIGNED, ALLOW_INTEGER)
INTEGER_TEST(long, long, MPI_LONG, ALLOW_INTEGER)
INTEGER_TEST(unsigned_long, unsigned long, MPI_UNSIGNED_LONG, ALLOW_INTEGER)
INTEGER_TEST(long_long, long long, MPI_LONG_LONG_INT, ALLOW_INTEGER)
INTEGER_TEST(unsigned_long_long, unsigned long long, MPI_UNSIGNED_LONG_LONG, ALLOW_INTEGER)
INTEGER_TEST(int8, int8_t, MPI_INT8_T, ALLOW_INTEGER)
INTEGER_TEST(int16, int16_t, MPI_INT16_T, ALLOW_INTEGER)
INTEGER_TEST(int32, int32_t, MPI_INT32_T, ALLOW_INTEGER)
INTEGER_TEST(int64, int64_t, MPI_INT64_T, ALLOW_INTEGER)
INTEGER_TEST(uint8, uint8_t, MPI_UINT8_T, ALLOW_INTEGER)
INTEGER_TEST(uint16, uint16_t, MPI_UINT16_T, ALLOW_INTEGER)
INTEGER_TEST(uint32, uint32_t, MPI_UINT32_T, ALLOW_INTEGER)
INTEGER_TEST(uint64, uint64_t, MPI_UINT64_T, ALLOW_INTEGER)
INTEGER_TEST(aint, MPI_Aint, MPI_AINT, ALLOW_MULTILANGUAGE)
INTEGER_TEST(offset, MPI_Offset, MPI_OFFSET, ALLOW_MULTILANGUAGE)
INTEGER_TEST(count, MPI_Count, MPI_COUNT, ALLOW_MULTILANGUAGE)
INTEGER_TEST(byte, unsigned char, MPI_BYTE, ALLOW_BYTE)
INTEGER_TEST(char, char, MPI_CHAR, 0)
INTEGER_TEST(wchar, wchar_t, MPI_WCHAR, 0)
INTEGER_TEST(packed, unsigned char, MPI_PACKED, 0)
FLOATING_TEST(float, float, MPI_FLOAT)
FLOATING_TEST(double, double, MPI_DOUBLE)
FLOATING_TEST(long_double, long double, MPI_LONG_DOUBLE)
COMPLEX_TEST(float_complex, float _Complex, MPI_C_FLOAT_COMPLEX)
COMPLEX_TEST(double_complex, double _Complex, MPI_C_DOUBLE_COMPLEX)
COMPLEX_TEST(long_double_complex, long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX)
PAIR_TEST(float_int, float, MPI_FLOAT_INT)
PAIR_TEST(double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(long_int, long, MPI_LONG_INT)
PAIR_TEST(two_int, int, MPI_2INT)
PAIR_TEST(short_int, short, MPI_SHORT_INT)
PAIR_TEST(long_double_int, long double, MPI_LONG_DOUBLE_INT)

/* C_BOOL: logical ops only. */
static void test_bool(void) {
    for (int op = 0; op < OP_COUNT; ++op) {
        bool in[N], inout[N], expected[N];
        for (int i = 0; i < N; ++i) {
            in[i] = i % 2 == 0;
            inout[i] = i % 3 == 0;
            expected[i] = op == LAND ? in[i] && inout[i] : op == LOR ? in[i] || inout[i]
                        : op == LXOR ? in[i] != inout[i] : inout[i];
        }
        check_pair("MPI_C_BOOL", op, (ALLOW_LOGICAL >> op) & 1, MPI_C_BOOL, in, inout, expected, sizeof inout);
    }
}

/* 2x2 integer matrices; the user op multiplies in @ inout: not commutative. */
static void matrix_product(void* in, void* inout, int* length, MPI_Datatype* type) {
    (void)type;
    const int* a = (const int*)in;
    int* b = (int*)inout;
    for (int m = 0; m < *length; ++m, a += 4, b += 4) {
        const int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                          a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

static void int_sum(void* in, void* inout, int* length, MPI_Datatype* type) {
    CHECK(*type == MPI_INT);
    for (int i = 0; i < *length; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

static void test_user_ops(void) {
    MPI_Op product, sum;
    int commute = -1;
    CHECK(MPI_Op_create(matrix_product, 0, &product) == MPI_SUCCESS);
    CHECK(MPI_Op_create(int_sum, 1, &sum) == MPI_SUCCESS);
    MPI_Op_commutative(product, &commute);
    CHECK_INT(commute, 0);
    MPI_Op_commutative(sum, &commute);
    CHECK_INT(commute, 1);
    MPI_Op_commutative(MPI_SUM, &commute);
    CHECK_INT(commute, 1);

    MPI_Datatype matrix;
    MPI_Type_contiguous(4, MPI_INT, &matrix);
    MPI_Type_commit(&matrix);
    const int a[4] = {1, 2, 3, 4}, b[4] = {0, 1, 1, 0};
    int inout[4];
    memcpy(inout, b, sizeof inout);
    CHECK(MPI_Reduce_local(a, inout, 1, matrix, product) == MPI_SUCCESS);
    CHECK(inout[0] == 2 && inout[1] == 1 && inout[2] == 4 && inout[3] == 3); /* a @ b */
    memcpy(inout, a, sizeof inout);
    MPI_Reduce_local(b, inout, 1, matrix, product);
    CHECK(inout[0] == 3 && inout[1] == 4 && inout[2] == 1 && inout[3] == 2); /* b @ a */

    int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    MPI_Reduce_local(x, y, 3, MPI_INT, sum);
    CHECK(y[0] == 11 && y[2] == 33);

    /* A predefined op on a derived type of one predefined type, with gaps. */
    MPI_Datatype pairs;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &pairs);
    MPI_Type_commit(&pairs);
    double u[7] = {1, -1, 2, 3, -1, 4, -1}, v[7] = {10, 0, 20, 30, 0, 40, 50};
    CHECK(MPI_Reduce_local(u, v, 2, pairs, MPI_SUM) == MPI_SUCCESS); /* doubles 0, 2 and 3, 5 */
    CHECK(v[0] == 11 && v[1] == 0 && v[2] == 22 && v[3] == 33 && v[4] == 0 && v[5] == 44 && v[6] == 50);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* A predefined op on a type mixing predefined types is MPI_ERR_OP. */
    int lengths[2] = {1, 1};
    MPI_Aint where[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE}, mixed;
    MPI_Type_create_struct(2, lengths, where, members, &mixed);
    MPI_Type_commit(&mixed);
    double store[4] = {0}, other[4] = {0};
    CHECK_INT(mpi_error_class(MPI_Reduce_local(store, other, 1, mixed, MPI_SUM)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Reduce_local(store, other, 1, MPI_INT, MPI_REPLACE)), MPI_ERR_OP);
    MPI_Op fixed = MPI_SUM;
    CHECK_INT(mpi_error_class(MPI_Op_free(&fixed)), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&mixed);
    MPI_Type_free(&pairs);
    MPI_Type_free(&matrix);
    CHECK(MPI_Op_free(&product) == MPI_SUCCESS && product == MPI_OP_NULL);
    MPI_Op_free(&sum);
}

int main(int argc, char** argv) {
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void (*const tests[])(void) = {
        test_signed_char, test_unsigned_char, test_short,  test_unsigned_short, test_int,    test_unsigned,
        test_long,        test_unsigned_long, test_long_long, test_unsigned_long_long, test_int8, test_int16,
        test_int32,       test_int64,         test_uint8,  test_uint16,         test_uint32, test_uint64,
        test_aint,        test_offset,        test_count,  test_byte,           test_char,   test_wchar,
        test_packed,      test_float,         test_double, test_long_double,    test_float_complex,
        test_double_complex, test_long_double_complex, test_float_int, test_double_int, test_long_int,
        test_two_int,     test_short_int,     test_long_double_int, test_bool};
    for (unsigned t = 0; t < sizeof tests / sizeof tests[0]; ++t) tests[t]();
    CHECK_INT(combinations, 38 * OP_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    test_user_ops();
    MPI_Finalize();
    return mpi_check_done("mpi_operations", rank);
}
