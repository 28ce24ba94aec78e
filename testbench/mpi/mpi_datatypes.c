/* Datatypes, in C: every predefined type has the size and extent of its C
 * type or struct and its name; derived constructors give the bounds the
 * standard defines; derived types travel through point-to-point messages
 * (a strided column, a struct with padding, a
 * subarray, absolute addresses from MPI_BOTTOM); MPI_Pack/MPI_Unpack;
 * MPI_Get_count and MPI_Get_elements.
 * Run: isvp run -n 2 -- mpi_datatypes */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "mpi_check.h"

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct two_int { int v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };

struct predefined {
    MPI_Datatype type;
    const char* name;
    int size;
    MPI_Aint extent;
};

#define SCALAR(T, C) {T, #T, (int)sizeof(C), (MPI_Aint)sizeof(C)}
#define PAIR(T, S, V) {T, #T, (int)(sizeof(V) + sizeof(int)), (MPI_Aint)sizeof(S)}

static const struct predefined predefined_types[] = {
    SCALAR(MPI_CHAR, char), SCALAR(MPI_SIGNED_CHAR, signed char), SCALAR(MPI_UNSIGNED_CHAR, unsigned char),
    SCALAR(MPI_BYTE, unsigned char), SCALAR(MPI_WCHAR, wchar_t), SCALAR(MPI_SHORT, short),
    SCALAR(MPI_UNSIGNED_SHORT, unsigned short), SCALAR(MPI_INT, int), SCALAR(MPI_UNSIGNED, unsigned),
    SCALAR(MPI_LONG, long), SCALAR(MPI_UNSIGNED_LONG, unsigned long), SCALAR(MPI_LONG_LONG_INT, long long),
    SCALAR(MPI_UNSIGNED_LONG_LONG, unsigned long long), SCALAR(MPI_FLOAT, float), SCALAR(MPI_DOUBLE, double),
    SCALAR(MPI_LONG_DOUBLE, long double), SCALAR(MPI_C_BOOL, bool), SCALAR(MPI_INT8_T, int8_t),
    SCALAR(MPI_INT16_T, int16_t), SCALAR(MPI_INT32_T, int32_t), SCALAR(MPI_INT64_T, int64_t),
    SCALAR(MPI_UINT8_T, uint8_t), SCALAR(MPI_UINT16_T, uint16_t), SCALAR(MPI_UINT32_T, uint32_t),
    SCALAR(MPI_UINT64_T, uint64_t), SCALAR(MPI_AINT, MPI_Aint), SCALAR(MPI_OFFSET, MPI_Offset),
    SCALAR(MPI_COUNT, MPI_Count), SCALAR(MPI_C_FLOAT_COMPLEX, float _Complex),
    SCALAR(MPI_C_DOUBLE_COMPLEX, double _Complex), SCALAR(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    PAIR(MPI_FLOAT_INT, struct float_int, float), PAIR(MPI_DOUBLE_INT, struct double_int, double),
    PAIR(MPI_LONG_INT, struct long_int, long), PAIR(MPI_2INT, struct two_int, int),
    PAIR(MPI_SHORT_INT, struct short_int, short), PAIR(MPI_LONG_DOUBLE_INT, struct long_double_int, long double),
};

static void check_predefined(void) {
    for (unsigned i = 0; i < sizeof predefined_types / sizeof predefined_types[0]; ++i) {
        const struct predefined* p = &predefined_types[i];
        int size = -1, length = 0;
        MPI_Aint lb = -1, extent = -1;
        char name[MPI_MAX_OBJECT_NAME];
        CHECK(MPI_Type_size(p->type, &size) == MPI_SUCCESS);
        CHECK(MPI_Type_get_extent(p->type, &lb, &extent) == MPI_SUCCESS);
        CHECK(MPI_Type_get_name(p->type, name, &length) == MPI_SUCCESS);
        if (size != p->size || lb != 0 || extent != p->extent || strcmp(name, p->name) != 0) {
            ++mpi_check_failures;
            fprintf(stderr, "FAIL %s: size %d extent %ld name %s; expected %d, %ld\n", p->name, size, (long)extent,
                    name, p->size, (long)p->extent);
        }
    }
    /* MPI_LONG_LONG is MPI_LONG_LONG_INT. */
    CHECK(MPI_LONG_LONG == MPI_LONG_LONG_INT);
}

static void check_constructors(void) {
    MPI_Datatype t;
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;

    /* vector: 3 blocks of 2 ints, stride 5 ints: extent (2*5+2) ints. */
    MPI_Type_vector(3, 2, 5, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK_INT(size, 6 * sizeof(int));
    CHECK_INT(lb, 0);
    CHECK_INT(extent, 12 * sizeof(int));
    int integers, addresses, types, combiner;
    MPI_Type_get_envelope(t, &integers, &addresses, &types, &combiner);
    CHECK(combiner == MPI_COMBINER_VECTOR && integers == 3 && addresses == 0 && types == 1);
    int ints[3];
    MPI_Datatype old;
    MPI_Type_get_contents(t, 3, 0, 1, ints, NULL, &old);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && old == MPI_INT);
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL);

    /* indexed with a negative displacement: lb follows the data. */
    int lengths[2] = {2, 1}, displacements[2] = {-1, 4};
    MPI_Type_indexed(2, lengths, displacements, MPI_DOUBLE, &t);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    CHECK_INT(lb, -8);
    CHECK_INT(extent, 6 * 8);
    CHECK_INT(true_lb, -8);
    CHECK_INT(true_extent, 6 * 8);
    MPI_Type_free(&t);

    /* struct {char c; double d; int i;}: the C layout, padded like the compiler pads it. */
    struct mixed { char c; double d; int i; };
    int block[3] = {1, 1, 1};
    MPI_Aint where[3] = {offsetof(struct mixed, c), offsetof(struct mixed, d), offsetof(struct mixed, i)};
    MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, block, where, members, &t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    CHECK_INT(size, 1 + 8 + 4);
    CHECK_INT(lb, 0);
    CHECK_INT(extent, sizeof(struct mixed));
    CHECK_INT(true_extent, offsetof(struct mixed, i) + sizeof(int));
    MPI_Type_free(&t);

    /* The MPI-1 names give the same. */
    MPI_Type_struct(3, block, where, members, &t);
    MPI_Aint old_extent = 0, old_lb = -1, old_ub = 0;
    MPI_Type_extent(t, &old_extent);
    MPI_Type_lb(t, &old_lb);
    MPI_Type_ub(t, &old_ub);
    CHECK(old_extent == (MPI_Aint)sizeof(struct mixed) && old_lb == 0 && old_ub == old_extent);
    MPI_Type_free(&t);

    /* resized: explicit bounds. */
    MPI_Type_create_resized(MPI_INT, -4, 16, &t);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    CHECK(lb == -4 && extent == 16 && true_lb == 0 && true_extent == 4);
    MPI_Type_free(&t);

    /* contiguous of a contiguous stays contiguous; hvector in bytes. */
    MPI_Type_contiguous(0, MPI_INT, &t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(size == 0 && extent == 0);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 1, 3, MPI_CHAR, &t);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(extent == 4);
    MPI_Type_free(&t);

    /* A name can be set and read back; a predefined type cannot be freed. */
    MPI_Type_dup(MPI_INT, &t);
    MPI_Type_set_name(t, "my int");
    char name[MPI_MAX_OBJECT_NAME];
    int length;
    MPI_Type_get_name(t, name, &length);
    CHECK(strcmp(name, "my int") == 0 && length == 6);
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype fixed = MPI_INT;
    CHECK_INT(mpi_error_class(MPI_Type_free(&fixed)), MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A 6x8 matrix: rank 0 sends column 3 (a vector), rank 1 receives it as 6
 * contiguous doubles, then sends them back into column 5. */
static void check_column_exchange(int rank) {
    double matrix[6][8];
    MPI_Datatype column;
    MPI_Type_vector(6, 1, 8, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 8; ++c) matrix[r][c] = r * 10 + c;
        MPI_Send(&matrix[0][3], 1, column, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(&matrix[0][5], 1, column, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = 0; r < 6; ++r) {
            CHECK(matrix[r][5] == r * 10 + 3 + 0.5);
            CHECK(matrix[r][4] == r * 10 + 4);
        }
    } else {
        double values[6];
        MPI_Status status;
        int count = -1;
        MPI_Recv(values, 6, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        CHECK_INT(count, 6);
        MPI_Get_count(&status, column, &count);
        CHECK_INT(count, 1);
        for (int r = 0; r < 6; ++r) {
            CHECK(values[r] == r * 10 + 3);
            values[r] += 0.5;
        }
        MPI_Send(values, 6, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
    }
    MPI_Type_free(&column);
}

/* Structs with padding travel as their data only and land in the C layout. */
static void check_struct_exchange(int rank) {
    struct particle { char kind; double position[3]; short charge; } particles[4];
    int block[3] = {1, 3, 1};
    MPI_Aint where[3] = {offsetof(struct particle, kind), offsetof(struct particle, position),
                         offsetof(struct particle, charge)};
    MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
    MPI_Datatype type;
    MPI_Type_create_struct(3, block, where, members, &type);
    MPI_Type_commit(&type);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    CHECK_INT(extent, sizeof(struct particle));
    memset(particles, 0x5a, sizeof particles);
    if (rank == 0) {
        for (int i = 0; i < 4; ++i) {
            particles[i].kind = (char)('a' + i);
            for (int d = 0; d < 3; ++d) particles[i].position[d] = i + d * 0.25;
            particles[i].charge = (short)(-i);
        }
        MPI_Send(particles, 4, type, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Status status;
        MPI_Recv(particles, 4, type, 0, 1, MPI_COMM_WORLD, &status);
        int count = -1, elements = -1;
        MPI_Get_count(&status, type, &count);
        MPI_Get_elements(&status, type, &elements);
        CHECK_INT(count, 4);
        CHECK_INT(elements, 4 * 5);
        for (int i = 0; i < 4; ++i) {
            CHECK(particles[i].kind == 'a' + i);
            CHECK(particles[i].position[2] == i + 0.5);
            CHECK(particles[i].charge == -i);
        }
    }
    MPI_Type_free(&type);
}

/* A 2x3 block at (1, 2) of a 4x6 int array (subarray), sent to a dense 2x3. */
static void check_subarray(int rank) {
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Datatype block;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &block);
    MPI_Type_commit(&block);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(block, &lb, &extent);
    CHECK(lb == 0 && extent == 24 * (MPI_Aint)sizeof(int));
    if (rank == 0) {
        int array[4][6];
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 6; ++c) array[r][c] = r * 100 + c;
        MPI_Send(array, 1, block, 1, 2, MPI_COMM_WORLD);
    } else {
        int dense[2][3];
        MPI_Recv(dense, 6, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 3; ++c) CHECK_INT(dense[r][c], (r + 1) * 100 + c + 2);
    }
    MPI_Type_free(&block);
}

/* Partial messages: Get_count is MPI_UNDEFINED, Get_elements counts basic elements. */
static void check_partial(int rank) {
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    if (rank == 0) {
        int values[7] = {1, 2, 3, 4, 5, 6, 7};
        MPI_Send(values, 7, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else {
        int values[9] = {0};
        MPI_Status status;
        int count = 0, elements = 0;
        MPI_Recv(values, 3, triple, 0, 3, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, triple, &count);
        MPI_Get_elements(&status, triple, &elements);
        CHECK_INT(count, MPI_UNDEFINED);
        CHECK_INT(elements, 7);
        CHECK(values[6] == 7 && values[7] == 0);
    }
    MPI_Type_free(&triple);
}

/* Absolute addresses: a struct type of MPI_Get_address results, used from MPI_BOTTOM. */
static void check_bottom(int rank) {
    int count = 0;
    double weight = 0.0;
    MPI_Aint where[2];
    MPI_Get_address(&count, &where[0]);
    MPI_Get_address(&weight, &where[1]);
    int lengths[2] = {1, 1};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE}, absolute;
    MPI_Type_create_struct(2, lengths, where, members, &absolute);
    MPI_Type_commit(&absolute);
    if (rank == 0) {
        count = 42;
        weight = 0.125;
        MPI_Send(MPI_BOTTOM, 1, absolute, 1, 4, MPI_COMM_WORLD);
    } else {
        MPI_Recv(MPI_BOTTOM, 1, absolute, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(count == 42 && weight == 0.125);
    }
    MPI_Type_free(&absolute);
}

static void check_pack(void) {
    char buffer[64];
    int position = 0, size = 0;
    int numbers[3] = {7, 8, 9};
    double value = 2.5;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size);
    CHECK_INT(size, 3 * sizeof(int));
    MPI_Pack(numbers, 3, MPI_INT, buffer, sizeof buffer, &position, MPI_COMM_WORLD);
    MPI_Pack(&value, 1, MPI_DOUBLE, buffer, sizeof buffer, &position, MPI_COMM_WORLD);
    CHECK_INT(position, 3 * sizeof(int) + sizeof(double));
    int out[3] = {0};
    double out_value = 0;
    position = 0;
    MPI_Unpack(buffer, sizeof buffer, &position, out, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(buffer, sizeof buffer, &position, &out_value, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    CHECK(out[0] == 7 && out[2] == 9 && out_value == 2.5);
    MPI_Aint a = 0, b = 0;
    MPI_Get_address(&numbers[0], &a);
    MPI_Get_address(&numbers[2], &b);
    CHECK_INT(MPI_Aint_diff(b, a), 2 * sizeof(int));
}

int main(int argc, char** argv) {
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_predefined();
    check_constructors();
    check_column_exchange(rank);
    check_struct_exchange(rank);
    check_subarray(rank);
    check_partial(rank);
    check_bottom(rank);
    check_pack();
    MPI_Finalize();
    return mpi_check_done("mpi_datatypes", rank);
}
