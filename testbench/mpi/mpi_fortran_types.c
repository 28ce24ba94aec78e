/* The Fortran datatypes from C (MPI 3.1 §3.2.2, §5.9.2, §17.1.9): sizes,
 * extents and names; the reductions the standard defines on them (SUM,
 * PROD, MIN, MAX, logical, bitwise, MINLOC/MAXLOC on the Fortran pair types)
 * and the ones it does not (errors); MPI_Type_create_f90_integer/real/complex
 * and MPI_Type_match_size.
 *
 * Mode "offload" (run with ISVP_MPI_STATS=1) issues exactly 4 Allreduces the
 * switch computes (INTEGER SUM, REAL MAX, DOUBLE PRECISION SUM, LOGICAL
 * LAND) and 4 it does not (COMPLEX SUM, 2REAL MINLOC, 2DOUBLE_PRECISION
 * MAXLOC, DOUBLE_COMPLEX PROD): "collectives offloaded 4 of 8" with offload
 * on, "0 of 8" with offload off. */
#include <complex.h>
#include <stdint.h>
#include <string.h>

#include "mpi_check.h"

static int rank, size;

static void check_layout(MPI_Datatype type, int bytes, MPI_Aint extent) {
    int actual = -1;
    MPI_Aint lb = -1, ext = -1;
    CHECK_INT(MPI_Type_size(type, &actual), MPI_SUCCESS);
    CHECK_INT(actual, bytes);
    MPI_Type_get_extent(type, &lb, &ext);
    CHECK_INT(lb, 0);
    CHECK_INT(ext, extent);
}

static void layouts(void) {
    check_layout(MPI_CHARACTER, 1, 1);
    check_layout(MPI_LOGICAL, 4, 4);
    check_layout(MPI_INTEGER, 4, 4);
    check_layout(MPI_REAL, 4, 4);
    check_layout(MPI_DOUBLE_PRECISION, 8, 8);
    check_layout(MPI_COMPLEX, 8, 8);
    check_layout(MPI_DOUBLE_COMPLEX, 16, 16);
    check_layout(MPI_2INTEGER, 8, 8);
    check_layout(MPI_2REAL, 8, 8);
    check_layout(MPI_2DOUBLE_PRECISION, 16, 16);
    check_layout(MPI_INTEGER1, 1, 1);
    check_layout(MPI_INTEGER2, 2, 2);
    check_layout(MPI_INTEGER4, 4, 4);
    check_layout(MPI_INTEGER8, 8, 8);
    check_layout(MPI_REAL4, 4, 4);
    check_layout(MPI_REAL8, 8, 8);
    check_layout(MPI_COMPLEX8, 8, 8);
    check_layout(MPI_COMPLEX16, 16, 16);
    check_layout(MPI_INTEGER16, 16, 16);
}

/* Allreduce over all ranks: rank r contributes the values of r. */
static void reductions(void) {
    int32_t integers[3] = {rank + 1, -rank, 7}, integer_sum[3];
    CHECK_INT(MPI_Allreduce(integers, integer_sum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(integer_sum[0], size * (size + 1) / 2);
    CHECK_INT(integer_sum[1], -size * (size - 1) / 2);
    CHECK_INT(integer_sum[2], 7 * size);

    float reals[2] = {(float)rank + 0.5f, -(float)rank}, real_max[2];
    MPI_Allreduce(reals, real_max, 2, MPI_REAL, MPI_MAX, MPI_COMM_WORLD);
    CHECK(real_max[0] == (float)(size - 1) + 0.5f);
    CHECK(real_max[1] == 0.0f);

    double doubles[1] = {0.25 * (rank + 1)}, double_sum[1];
    MPI_Allreduce(doubles, double_sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD);
    CHECK(double_sum[0] == 0.25 * size * (size + 1) / 2);

    /* LOGICAL: .TRUE. is 1 (gfortran); all true only where every rank says so. */
    int32_t logicals[2] = {1, rank == 0 ? 1 : 0}, logical_and[2];
    MPI_Allreduce(logicals, logical_and, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
    CHECK_INT(logical_and[0], 1);
    CHECK_INT(logical_and[1], size == 1 ? 1 : 0);

    float complex complexes[1] = {(float)rank + 1.0f * I}, complex_sum[1];
    MPI_Allreduce(complexes, complex_sum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECK(crealf(complex_sum[0]) == (float)(size * (size - 1) / 2));
    CHECK(cimagf(complex_sum[0]) == (float)size);

    /* MPI_2REAL: {value, index} both REAL; the lowest value wins, ties the lower index. */
    float real_pairs[4] = {(float)(rank % 2), (float)rank, 10.0f - (float)rank, (float)rank}, real_minloc[4];
    MPI_Allreduce(real_pairs, real_minloc, 2, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(real_minloc[0] == 0.0f && real_minloc[1] == 0.0f);
    CHECK(real_minloc[2] == 10.0f - (float)(size - 1) && real_minloc[3] == (float)(size - 1));

    double double_pairs[2] = {(double)(rank % 2), (double)rank}, double_maxloc[2];
    MPI_Allreduce(double_pairs, double_maxloc, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(double_maxloc[0] == (size > 1 ? 1.0 : 0.0) && double_maxloc[1] == (size > 1 ? 1.0 : 0.0));

    double complex factors[1] = {I}, product[1];
    MPI_Allreduce(factors, product, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    double complex expected = 1.0;
    for (int r = 0; r < size; ++r) expected *= I;
    CHECK(creal(product[0]) == creal(expected) && cimag(product[0]) == cimag(expected));
}

/* Not part of the "offload" mode's count: 2INTEGER MAXLOC and the sized types. */
static void more_reductions(void) {
    int32_t pairs[2] = {rank == 0 ? 5 : 3, rank}, maxloc[2];
    MPI_Allreduce(pairs, maxloc, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK_INT(maxloc[0], 5);
    CHECK_INT(maxloc[1], 0);

    int64_t wide[1] = {(int64_t)1 << 40}, wide_sum[1];
    MPI_Allreduce(wide, wide_sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
    CHECK(wide_sum[0] == ((int64_t)size << 40));

    int16_t bits[1] = {(int16_t)(1 << rank)}, bits_or[1];
    MPI_Allreduce(bits, bits_or, 1, MPI_INTEGER2, MPI_BOR, MPI_COMM_WORLD);
    CHECK_INT(bits_or[0], (1 << size) - 1);

    /* INTEGER16: 128-bit sums carry across the 64-bit halves; bitwise ops. */
    __int128 big[2] = {(__int128)1 << 70, (__int128)1 << (rank % 64)}, big_out[2];
    MPI_Allreduce(big, big_out, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    CHECK(big_out[0] == (__int128)size << 70);
    MPI_Allreduce(big + 1, big_out + 1, 1, MPI_INTEGER16, MPI_BXOR, MPI_COMM_WORLD);
    CHECK(big_out[1] == ((__int128)1 << size) - 1);
    __int128 negative[1] = {-((__int128)rank << 80)}, smallest[1];
    MPI_Allreduce(negative, smallest, 1, MPI_INTEGER16, MPI_MIN, MPI_COMM_WORLD);
    CHECK(smallest[0] == -((__int128)(size - 1) << 80));

    /* Reduce_local on the types computed in software. */
    float complex a[2] = {1.0f + 2.0f * I, 3.0f}, b[2] = {1.0f, 1.0f * I};
    CHECK_INT(MPI_Reduce_local(a, b, 2, MPI_COMPLEX8, MPI_PROD), MPI_SUCCESS);
    CHECK(crealf(b[0]) == 1.0f && cimagf(b[0]) == 2.0f);
    CHECK(crealf(b[1]) == 0.0f && cimagf(b[1]) == 3.0f);
}

static void undefined_reductions_are_errors(void) {
    int32_t in[2] = {0, 0}, out[2];
    char text[2] = "a", text_out[2];
    CHECK_INT(mpi_error_class(MPI_Allreduce(in, out, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Allreduce(in, out, 1, MPI_REAL, MPI_MINLOC, MPI_COMM_WORLD)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Allreduce(in, out, 1, MPI_REAL, MPI_BAND, MPI_COMM_WORLD)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Allreduce(in, out, 1, MPI_COMPLEX, MPI_MAX, MPI_COMM_WORLD)), MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Allreduce(in, out, 1, MPI_2REAL, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_OP);
    __int128 wide[1] = {0}, wide_out[1];
    CHECK_INT(mpi_error_class(MPI_Allreduce(wide, wide_out, 1, MPI_INTEGER16, MPI_MAXLOC, MPI_COMM_WORLD)),
              MPI_ERR_OP);
    CHECK_INT(mpi_error_class(MPI_Allreduce(text, text_out, 1, MPI_CHARACTER, MPI_MAX, MPI_COMM_WORLD)),
              MPI_ERR_OP);
}

static void check_f90(MPI_Datatype type, int combiner, int p, int r, int bytes) {
    int integers, addresses, datatypes, actual_combiner, contents[2] = {-1, -1}, actual_size;
    CHECK_INT(MPI_Type_get_envelope(type, &integers, &addresses, &datatypes, &actual_combiner), MPI_SUCCESS);
    CHECK_INT(actual_combiner, combiner);
    CHECK_INT(integers, combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2);
    CHECK_INT(addresses, 0);
    CHECK_INT(datatypes, 0);
    CHECK_INT(MPI_Type_get_contents(type, 2, 0, 0, contents, NULL, NULL), MPI_SUCCESS);
    CHECK_INT(contents[0], p);
    if (combiner != MPI_COMBINER_F90_INTEGER) CHECK_INT(contents[1], r);
    MPI_Type_size(type, &actual_size);
    CHECK_INT(actual_size, bytes);
}

static void f90_types(void) {
    MPI_Datatype t1, t2, t3;
    CHECK_INT(MPI_Type_create_f90_real(6, 30, &t1), MPI_SUCCESS);
    check_f90(t1, MPI_COMBINER_F90_REAL, 6, 30, 4);
    CHECK_INT(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t2), MPI_SUCCESS);
    check_f90(t2, MPI_COMBINER_F90_REAL, 15, MPI_UNDEFINED, 8);
    /* The same arguments give the same handle; it cannot be freed. */
    CHECK_INT(MPI_Type_create_f90_real(6, 30, &t3), MPI_SUCCESS);
    CHECK(t3 == t1);
    CHECK_INT(mpi_error_class(MPI_Type_free(&t3)), MPI_ERR_TYPE);

    CHECK_INT(MPI_Type_create_f90_complex(10, 100, &t1), MPI_SUCCESS);
    check_f90(t1, MPI_COMBINER_F90_COMPLEX, 10, 100, 16);
    CHECK_INT(MPI_Type_create_f90_integer(9, &t2), MPI_SUCCESS);
    check_f90(t2, MPI_COMBINER_F90_INTEGER, 9, 0, 4);
    CHECK_INT(MPI_Type_create_f90_integer(3, &t3), MPI_SUCCESS);
    check_f90(t3, MPI_COMBINER_F90_INTEGER, 3, 0, 2);

    /* Usable in communication and reductions like their base types. */
    int32_t values[2] = {rank, 1}, sums[2];
    CHECK_INT(MPI_Allreduce(values, sums, 2, t2, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(sums[0], size * (size - 1) / 2);
    CHECK_INT(sums[1], size);
    double complex z[1] = {1.0 + 1.0 * I}, zsum[1];
    CHECK_INT(MPI_Allreduce(z, zsum, 1, t1, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(creal(zsum[0]) == size && cimag(zsum[0]) == size);

    /* Beyond what the platform has. */
    CHECK_INT(mpi_error_class(MPI_Type_create_f90_integer(19, &t1)), MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_create_f90_real(30, 10, &t1)), MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t1)), MPI_ERR_ARG);
}

static void match_size(void) {
    MPI_Datatype type;
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &type), MPI_SUCCESS);
    CHECK(type == MPI_REAL4);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &type), MPI_SUCCESS);
    CHECK(type == MPI_REAL8);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(long double), &type), MPI_SUCCESS);
    CHECK(type == MPI_LONG_DOUBLE);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &type), MPI_SUCCESS);
    CHECK(type == MPI_INTEGER2);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &type), MPI_SUCCESS);
    CHECK(type == MPI_INTEGER8);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &type), MPI_SUCCESS);
    CHECK(type == MPI_INTEGER16);
    CHECK_INT(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &type), MPI_SUCCESS);
    CHECK(type == MPI_COMPLEX16);
    CHECK_INT(mpi_error_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &type)), MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_match_size(99, 4, &type)), MPI_ERR_ARG);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "offload") == 0) {
        reductions();
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        layouts();
        reductions();
        more_reductions();
        undefined_reductions_are_errors();
        f90_types();
        match_size();
    }
    const int status = mpi_check_done("mpi_fortran_types", rank);
    MPI_Finalize();
    return status;
}
