/* Lower and upper bounds of derived types (MPI 3.1 §4.1.6, §4.1.7): an
 * explicit bound — from MPI_Type_create_resized or the MPI-1 markers
 * MPI_LB / MPI_UB — overrides the data's in every type built on it; a
 * negative extent replicates downwards; a type without data contributes
 * only its markers; a struct is padded to its alignment unless its upper
 * bound is explicit. The data still travels: a struct with markers is
 * sent and received. A type too fragmented to flatten, or larger than
 * MPI_Aint counts, is an error. */
#include "mpi_check.h"

static void check_bounds(const char* what, MPI_Datatype type, MPI_Aint lb, MPI_Aint extent, MPI_Aint true_lb,
                         MPI_Aint true_extent, int size) {
    MPI_Aint a_lb, a_extent, a_true_lb, a_true_extent;
    int a_size;
    MPI_Type_get_extent(type, &a_lb, &a_extent);
    MPI_Type_get_true_extent(type, &a_true_lb, &a_true_extent);
    MPI_Type_size(type, &a_size);
    if (a_lb != lb || a_extent != extent || a_true_lb != true_lb || a_true_extent != true_extent || a_size != size) {
        fprintf(stderr,
                "FAIL %s: lb %ld extent %ld true_lb %ld true_extent %ld size %d, expected %ld %ld %ld %ld %d\n", what,
                (long)a_lb, (long)a_extent, (long)a_true_lb, (long)a_true_extent, a_size, (long)lb, (long)extent,
                (long)true_lb, (long)true_extent, size);
        ++mpi_check_failures;
    }
}

static MPI_Datatype structure(int count, const int* lengths, const MPI_Aint* displacements,
                              const MPI_Datatype* types) {
    MPI_Datatype type;
    CHECK_INT(MPI_Type_create_struct(count, lengths, displacements, types, &type), MPI_SUCCESS);
    MPI_Type_commit(&type);
    return type;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* {(LB,-3), 4*(BYTE,0), (UB,6)} as in MPI-1. */
    const int ones[3] = {1, 4, 1};
    const MPI_Aint lbub_at[3] = {-3, 0, 6};
    const MPI_Datatype lbub_types[3] = {MPI_LB, MPI_BYTE, MPI_UB};
    MPI_Datatype marked = structure(3, ones, lbub_at, lbub_types);
    check_bounds("LB/BYTE/UB struct", marked, -3, 9, 0, 4, 4);

    /* Replicated: markers of every copy, the lowest lb and highest ub. */
    MPI_Datatype three;
    MPI_Type_contiguous(3, marked, &three);
    MPI_Type_commit(&three);
    check_bounds("contiguous of it", three, -3, 27, 0, 22, 12);

    /* A negative extent replicates downwards: resized(4 bytes, lb 6, extent -9). */
    MPI_Datatype bytes4, negative, evil;
    MPI_Type_contiguous(4, MPI_BYTE, &bytes4);
    MPI_Type_create_resized(bytes4, 6, -9, &negative);
    MPI_Type_contiguous(3, negative, &evil);
    MPI_Type_commit(&evil);
    check_bounds("contiguous of a negative extent", evil, -12, 9, -18, 22, 12);

    /* A struct of a resized type and more data keeps the resized bounds. */
    MPI_Datatype int8, mixed;
    MPI_Type_create_resized(MPI_INT, 0, 8, &int8);
    const int two_ones[2] = {1, 1};
    const MPI_Aint mixed_at[2] = {0, 16};
    const MPI_Datatype mixed_types[2] = {int8, MPI_INT};
    mixed = structure(2, two_ones, mixed_at, mixed_types);
    check_bounds("resized then data beyond its ub", mixed, 0, 8, 0, 20, 8);

    /* Only an lb marker: the ub comes from the data. */
    const MPI_Aint lb_at[2] = {-4, 0};
    const MPI_Datatype lb_types[2] = {MPI_LB, MPI_INT};
    MPI_Datatype lb_only = structure(2, two_ones, lb_at, lb_types);
    check_bounds("LB then an int", lb_only, -4, 8, 0, 4, 4);

    /* No data at all: {(LB,10)} has ub 0 (MPICH's struct_no_real_types). */
    const int one = 1;
    const MPI_Aint ten = 10;
    const MPI_Datatype lb_type = MPI_LB;
    MPI_Datatype no_data = structure(1, &one, &ten, &lb_type);
    check_bounds("only an LB", no_data, 10, -10, 0, 0, 0);

    /* An empty block does not move the bounds. */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    const MPI_Aint empty_at[2] = {100, 0};
    const MPI_Datatype empty_types[2] = {empty, MPI_INT};
    MPI_Datatype with_empty = structure(2, two_ones, empty_at, empty_types);
    check_bounds("an empty type at 100", with_empty, 0, 4, 0, 4, 4);

    /* The data moves: rank 0 sends two marked elements, rank 1 receives them
     * into an array with the markers' stride (9 bytes). */
    if (size >= 2 && rank < 2) {
        char buffer[40];
        for (int i = 0; i < 40; ++i) buffer[i] = rank == 0 ? (char)i : -1;
        if (rank == 0) {
            MPI_Send(buffer + 3, 2, marked, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(buffer + 3, 2, marked, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 40; ++i) {
                const int data = (i >= 3 && i < 7) || (i >= 12 && i < 16);
                CHECK_INT(buffer[i], data ? i : -1);
            }
        }
    }
    /* A type of more than 2^23 separate runs is refused with an error (the
     * type map is kept flattened), not built until memory runs out. */
    MPI_Datatype fragmented = MPI_DATATYPE_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Type_vector(1 << 24, 1, 2, MPI_INT, &fragmented)), MPI_ERR_NO_MEM);
    CHECK(fragmented == MPI_DATATYPE_NULL);
    /* A type larger than MPI_Aint counts is refused, not wrapped to a small
     * size that a message would then silently use: 2^30 x 2^30 x 16 bytes =
     * 2^64, or a vector or indexed type whose displacements pass 2^63 - 1
     * bytes. One of 2^62 bytes is fine. */
    MPI_Datatype bytes16, huge, too_large = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(16, MPI_CHAR, &bytes16);
    MPI_Type_contiguous(1 << 30, bytes16, &huge);
    CHECK_INT(mpi_error_class(MPI_Type_contiguous(1 << 30, huge, &too_large)), MPI_ERR_ARG);
    CHECK(too_large == MPI_DATATYPE_NULL);
    CHECK_INT(mpi_error_class(MPI_Type_vector(1 << 20, 1 << 10, 1 << 10, huge, &too_large)), MPI_ERR_ARG);
    CHECK_INT(mpi_error_class(MPI_Type_vector(2, 1, 1 << 30, huge, &too_large)), MPI_ERR_ARG); /* stride 2^64 bytes */
    int one_block = 1, far = 1 << 30;
    CHECK_INT(mpi_error_class(MPI_Type_indexed(1, &one_block, &far, huge, &too_large)), MPI_ERR_ARG);
    CHECK_INT(MPI_Type_contiguous(1 << 28, huge, &too_large), MPI_SUCCESS);
    MPI_Count huge_size = 0;
    MPI_Type_size_x(too_large, &huge_size);
    CHECK(huge_size == (MPI_Count)1 << 62);
    MPI_Type_free(&too_large);
    MPI_Type_free(&huge);
    MPI_Type_free(&bytes16);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Type_free(&with_empty);
    MPI_Type_free(&empty);
    MPI_Type_free(&no_data);
    MPI_Type_free(&lb_only);
    MPI_Type_free(&mixed);
    MPI_Type_free(&int8);
    MPI_Type_free(&evil);
    MPI_Type_free(&negative);
    MPI_Type_free(&bytes4);
    MPI_Type_free(&three);
    MPI_Type_free(&marked);
    const int status = mpi_check_done("mpi_type_bounds", rank);
    MPI_Finalize();
    return status;
}
