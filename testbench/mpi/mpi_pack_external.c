/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with
 * "external32" (MPI 3.1 §13.5.2): the standard's sizes (MPI_LONG 4 bytes,
 * MPI_WCHAR 2, long double 16), big-endian bytes checked one by one,
 * binary128 long doubles, pair and complex types, a noncontiguous struct
 * type round trip, the bytes sent to another rank and unpacked there, and
 * the errors (other data representations, a full buffer, a long that does
 * not fit 4 bytes). */
#include <complex.h>
#include <string.h>
#include <wchar.h>

#include "mpi_check.h"

static MPI_Aint external_size(int count, MPI_Datatype type) {
    MPI_Aint size = -1;
    CHECK_INT(MPI_Pack_external_size("external32", count, type, &size), MPI_SUCCESS);
    return size;
}

/* Packs one element of `type` from `value` and compares the bytes. */
static void check_bytes(const char* what, const void* value, MPI_Datatype type, const unsigned char* expected,
                        int n) {
    unsigned char out[64];
    MPI_Aint position = 0;
    memset(out, 0xAA, sizeof out);
    CHECK_INT(MPI_Pack_external("external32", value, 1, type, out, sizeof out, &position), MPI_SUCCESS);
    CHECK_INT(position, n);
    if (memcmp(out, expected, (size_t)n) != 0) {
        fprintf(stderr, "FAIL %s: external32 bytes", what);
        for (int i = 0; i < n; ++i) fprintf(stderr, " %02x", out[i]);
        fprintf(stderr, "\n");
        ++mpi_check_failures;
    }
}

static void sizes(void) {
    CHECK_INT(external_size(1, MPI_CHAR), 1);
    CHECK_INT(external_size(1, MPI_WCHAR), 2);
    CHECK_INT(external_size(1, MPI_SHORT), 2);
    CHECK_INT(external_size(1, MPI_INT), 4);
    CHECK_INT(external_size(1, MPI_LONG), 4);
    CHECK_INT(external_size(1, MPI_UNSIGNED_LONG), 4);
    CHECK_INT(external_size(1, MPI_LONG_LONG), 8);
    CHECK_INT(external_size(1, MPI_FLOAT), 4);
    CHECK_INT(external_size(1, MPI_DOUBLE), 8);
    CHECK_INT(external_size(1, MPI_LONG_DOUBLE), 16);
    CHECK_INT(external_size(1, MPI_C_BOOL), 1);
    CHECK_INT(external_size(1, MPI_AINT), 8);
    CHECK_INT(external_size(1, MPI_C_DOUBLE_COMPLEX), 16);
    CHECK_INT(external_size(1, MPI_C_LONG_DOUBLE_COMPLEX), 32);
    CHECK_INT(external_size(1, MPI_DOUBLE_INT), 12); /* no padding in external32 */
    CHECK_INT(external_size(1, MPI_LONG_INT), 8);
    CHECK_INT(external_size(1, MPI_SHORT_INT), 6);
    CHECK_INT(external_size(1, MPI_2REAL), 8);
    CHECK_INT(external_size(3, MPI_INTEGER), 12);
    MPI_Datatype vector;
    MPI_Type_vector(3, 2, 5, MPI_LONG, &vector);
    MPI_Type_commit(&vector);
    CHECK_INT(external_size(2, vector), 2 * 3 * 2 * 4);
    MPI_Type_free(&vector);
}

static void bytes(void) {
    const int i = 0x01020304;
    const unsigned char int_bytes[] = {1, 2, 3, 4};
    check_bytes("int", &i, MPI_INT, int_bytes, 4);
    const short s = -2;
    const unsigned char short_bytes[] = {0xFF, 0xFE};
    check_bytes("short", &s, MPI_SHORT, short_bytes, 2);
    const long l = -5;
    const unsigned char long_bytes[] = {0xFF, 0xFF, 0xFF, 0xFB};
    check_bytes("long", &l, MPI_LONG, long_bytes, 4);
    const unsigned long ul = 0xDEADBEEFul;
    const unsigned char ulong_bytes[] = {0xDE, 0xAD, 0xBE, 0xEF};
    check_bytes("unsigned long", &ul, MPI_UNSIGNED_LONG, ulong_bytes, 4);
    const wchar_t w = L'A';
    const unsigned char wchar_bytes[] = {0x00, 0x41};
    check_bytes("wchar", &w, MPI_WCHAR, wchar_bytes, 2);
    const double d = 1.0;
    const unsigned char double_bytes[] = {0x3F, 0xF0, 0, 0, 0, 0, 0, 0};
    check_bytes("double", &d, MPI_DOUBLE, double_bytes, 8);
    const float f = -2.0f;
    const unsigned char float_bytes[] = {0xC0, 0, 0, 0};
    check_bytes("float", &f, MPI_FLOAT, float_bytes, 4);
    /* binary128: sign, 15-bit exponent (bias 16383), 112-bit fraction. */
    const long double ld = -2.5L;
    const unsigned char long_double_bytes[] = {0xC0, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    check_bytes("long double", &ld, MPI_LONG_DOUBLE, long_double_bytes, 16);
    /* A pair: value then index, no padding. */
    const struct {
        double value;
        int index;
    } pair = {1.0, 7};
    const unsigned char pair_bytes[] = {0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
    check_bytes("double_int", &pair, MPI_DOUBLE_INT, pair_bytes, 12);
    /* Fortran INTEGER16: 16 bytes, big-endian two's complement. */
    const __int128 wide = -((__int128)0x0102030405060708ll << 64) - 2;
    const unsigned char wide_bytes[] = {0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8, 0xF7,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};
    check_bytes("integer16", &wide, MPI_INTEGER16, wide_bytes, 16);
    const long long ll = 0x0102030405060708ll;
    const unsigned char ll_bytes[] = {1, 2, 3, 4, 5, 6, 7, 8};
    check_bytes("long long", &ll, MPI_LONG_LONG, ll_bytes, 8);
}

struct Record {
    char tag;
    long count;
    double weight;
    long double precise;
    short small;
    float _Complex z;
};

static MPI_Datatype record_type(void) {
    struct Record r;
    memset(&r, 0, sizeof r);
    int lengths[6] = {1, 1, 1, 1, 1, 1};
    MPI_Aint base, displacements[6];
    MPI_Datatype types[6] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_SHORT, MPI_C_FLOAT_COMPLEX};
    MPI_Get_address(&r, &base);
    MPI_Get_address(&r.tag, &displacements[0]);
    MPI_Get_address(&r.count, &displacements[1]);
    MPI_Get_address(&r.weight, &displacements[2]);
    MPI_Get_address(&r.precise, &displacements[3]);
    MPI_Get_address(&r.small, &displacements[4]);
    MPI_Get_address(&r.z, &displacements[5]);
    for (int i = 0; i < 6; ++i) displacements[i] -= base;
    MPI_Datatype type, every_other;
    MPI_Type_create_struct(6, lengths, displacements, types, &type);
    /* Every other record of an array: noncontiguous. */
    MPI_Type_create_resized(type, 0, 2 * (MPI_Aint)sizeof(struct Record), &every_other);
    MPI_Type_free(&type);
    MPI_Type_commit(&every_other);
    return every_other;
}

static void fill(struct Record* r, int i) {
    memset(r, 0, sizeof *r);
    r->tag = (char)('a' + i);
    r->count = -1000 * i - 1;
    r->weight = 0.5 * i;
    r->precise = 1.0L / 3.0L * i;
    r->small = (short)(-i);
    r->z = (float)i + 2.0f * (float)i * I;
}

static int same(const struct Record* a, const struct Record* b) {
    return a->tag == b->tag && a->count == b->count && a->weight == b->weight && a->precise == b->precise &&
           a->small == b->small && a->z == b->z;
}

/* Rank 0 packs every other record and sends the bytes; the last rank
 * unpacks them into an empty array. */
static void round_trip(int rank, int size) {
    MPI_Datatype type = record_type();
    enum { N = 4 };
    struct Record records[2 * N], back[2 * N];
    unsigned char packed[1024];
    const MPI_Aint bytes = external_size(N, type);
    CHECK_INT(bytes, N * (1 + 4 + 8 + 16 + 2 + 8));
    for (int i = 0; i < 2 * N; ++i) fill(&records[i], i);
    MPI_Aint position = 0;
    if (rank == 0) {
        CHECK_INT(MPI_Pack_external("external32", records, N, type, packed, sizeof packed, &position), MPI_SUCCESS);
        CHECK_INT(position, bytes);
        /* The second record's count (-1000 * 2 - 1) sits after 1 + 4 + 8 + 16 + 2 + 8 + 1 bytes. */
        const unsigned char* count = packed + 39 + 1;
        CHECK(count[0] == 0xFF && count[1] == 0xFF && count[2] == 0xF8 && count[3] == 0x2F);
        MPI_Send(packed, (int)bytes, MPI_BYTE, size - 1, 3, MPI_COMM_WORLD);
    }
    if (rank == size - 1) {
        MPI_Recv(packed, (int)bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memset(back, 0, sizeof back);
        position = 0;
        CHECK_INT(MPI_Unpack_external("external32", packed, bytes, &position, back, N, type), MPI_SUCCESS);
        CHECK_INT(position, bytes);
        for (int i = 0; i < 2 * N; ++i) {
            struct Record expected;
            if (i % 2 == 0)
                fill(&expected, i);
            else
                memset(&expected, 0, sizeof expected);
            if (!same(&back[i], &expected)) {
                fprintf(stderr, "FAIL record %d differs after the round trip\n", i);
                ++mpi_check_failures;
            }
        }
    }
    MPI_Type_free(&type);
}

static void errors(void) {
    unsigned char out[8];
    int value = 1;
    MPI_Aint position = 0, size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Pack_external("native", &value, 1, MPI_INT, out, 8, &position)),
              MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_INT(mpi_error_class(MPI_Pack_external_size("internal", 1, MPI_INT, &size)), MPI_ERR_UNSUPPORTED_DATAREP);
    position = 6;
    CHECK_INT(mpi_error_class(MPI_Pack_external("external32", &value, 1, MPI_INT, out, 8, &position)),
              MPI_ERR_TRUNCATE);
    CHECK_INT(position, 6);
    position = 0;
    CHECK_INT(mpi_error_class(MPI_Unpack_external("external32", out, 2, &position, &value, 1, MPI_INT)),
              MPI_ERR_TRUNCATE);
    const long big = 1L << 40;
    CHECK_INT(mpi_error_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, out, 8, &position)),
              MPI_ERR_CONVERSION);
    CHECK_INT(mpi_error_class(MPI_Pack_external("external32", &value, -1, MPI_INT, out, 8, &position)),
              MPI_ERR_COUNT);
    /* Negative values and the full range of a 4-byte long come back. */
    const long longs[3] = {-2147483647L - 1, 2147483647L, -1};
    long back[3] = {0, 0, 0};
    unsigned char buffer[12];
    position = 0;
    CHECK_INT(MPI_Pack_external("external32", longs, 3, MPI_LONG, buffer, 12, &position), MPI_SUCCESS);
    position = 0;
    CHECK_INT(MPI_Unpack_external("external32", buffer, 12, &position, back, 3, MPI_LONG), MPI_SUCCESS);
    CHECK(back[0] == longs[0] && back[1] == longs[1] && back[2] == longs[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sizes();
    bytes();
    round_trip(rank, size);
    errors();
    const int status = mpi_check_done("mpi_pack_external", rank);
    MPI_Finalize();
    return status;
}
