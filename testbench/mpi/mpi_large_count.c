/* MPI 4.0 point-to-point additions and large-count (_c) forms:
 * MPI_Isendrecv and MPI_Isendrecv_replace (ring, to itself, MPI_PROC_NULL,
 * a derived type); the _c forms of point-to-point, collectives, datatypes,
 * packing and statuses give the int forms' results; a count beyond INT_MAX
 * is MPI_ERR_COUNT and the job goes on. */
#include <limits.h>
#include <string.h>

#include "mpi_check.h"

static int rank_, size_;

static void isendrecv(void) {
    const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int out[3] = {rank_, rank_ * 2, rank_ * 3}, in[3] = {-1, -1, -1};
    MPI_Request r;
    MPI_Status status;
    CHECK_INT(MPI_Isendrecv(out, 3, MPI_INT, right, 5, in, 3, MPI_INT, left, 5, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    CHECK_INT(MPI_Wait(&r, &status), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_INT(in[0], left);
    CHECK_INT(in[2], left * 3);
    CHECK_INT(status.MPI_SOURCE, left);
    CHECK_INT(status.MPI_TAG, 5);
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK_INT(count, 3);

    /* To itself, and with MPI_PROC_NULL on both sides. */
    int self = 77, got = 0;
    MPI_Isendrecv(&self, 1, MPI_INT, rank_, 6, &got, 1, MPI_INT, rank_, 6, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK_INT(got, 77);
    got = 5;
    MPI_Isendrecv(&self, 1, MPI_INT, MPI_PROC_NULL, 6, &got, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &status);
    CHECK_INT(status.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(got, 5);

    /* Isendrecv_replace of a strided type: the buffer may change right after the call. */
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int buffer[3] = {rank_, -9, rank_ + 100};
    MPI_Isendrecv_replace(buffer, 1, strided, right, 7, left, 7, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &status);
    CHECK_INT(buffer[0], left);
    CHECK_INT(buffer[1], -9);
    CHECK_INT(buffer[2], left + 100);
    CHECK_INT(status.MPI_SOURCE, left);
    MPI_Type_free(&strided);

    /* The nonblocking form does not block: both neighbours post before anyone waits. */
    int a = rank_, b = -1;
    MPI_Request two[2];
    MPI_Isendrecv(&a, 1, MPI_INT, left, 8, &b, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &two[0]);
    MPI_Isendrecv_replace(&a, 1, MPI_INT, right, 9, left, 9, MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    CHECK_INT(b, right);
    CHECK_INT(a, left);
}

/* A user op with MPI_Count lengths (MPI_Op_create_c): non-commutative
 * "keep the left operand's first element, add the rest". */
static void count_op(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
    (void)type;
    const int* a = (const int*)in;
    int* b = (int*)inout;
    for (MPI_Count i = 0; i < *len; ++i) b[i] = i == 0 ? a[i] : a[i] + b[i];
}

static void large_count_forms(void) {
    const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    double out[4] = {rank_ + 0.5, 1, 2, 3}, in[4] = {0};
    MPI_Request r;
    MPI_Status status;
    MPI_Isend_c(out, 4, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r);
    CHECK_INT(MPI_Recv_c(in, 4, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &status), MPI_SUCCESS);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(in[0] == left + 0.5);
    MPI_Count count = -1;
    CHECK_INT(MPI_Get_count_c(&status, MPI_DOUBLE, &count), MPI_SUCCESS);
    CHECK_INT(count, 4);
    CHECK_INT(MPI_Get_elements_c(&status, MPI_DOUBLE, &count), MPI_SUCCESS);
    CHECK_INT(count, 4);

    int value = rank_ + 1, sum = 0;
    CHECK_INT(MPI_Allreduce_c(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(sum, size_ * (size_ + 1) / 2);
    int root_value = rank_ == 0 ? 99 : 0;
    CHECK_INT(MPI_Bcast_c(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(root_value, 99);
    int all[64];
    CHECK_INT(MPI_Allgather_c(&value, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int p = 0; p < size_; ++p) CHECK_INT(all[p], p + 1);
    MPI_Count counts[64];
    MPI_Aint displs[64];
    for (int p = 0; p < size_; ++p) counts[p] = 1, displs[p] = size_ - 1 - p;
    for (int p = 0; p < size_; ++p) all[p] = -1;
    /* recvcounts and displs are significant at the root only: garbage elsewhere is fine. */
    MPI_Count garbage_counts[64];
    MPI_Aint garbage_displs[64];
    for (int p = 0; p < size_; ++p) garbage_counts[p] = (MPI_Count)1 << 40, garbage_displs[p] = (MPI_Aint)1 << 40;
    CHECK_INT(MPI_Gatherv_c(&value, 1, MPI_INT, all, rank_ == 0 ? counts : garbage_counts,
                            rank_ == 0 ? displs : garbage_displs, MPI_INT, 0, MPI_COMM_WORLD),
              MPI_SUCCESS);
    if (rank_ == 0)
        for (int p = 0; p < size_; ++p) CHECK_INT(all[size_ - 1 - p], p + 1);
    int inout = 10;
    CHECK_INT(MPI_Reduce_local_c(&value, &inout, 1, MPI_INT, MPI_SUM), MPI_SUCCESS);
    CHECK_INT(inout, 10 + rank_ + 1);

    MPI_Op op;
    CHECK_INT(MPI_Op_create_c(count_op, 0, &op), MPI_SUCCESS);
    int pair[2] = {rank_, 1}, reduced[2] = {-1, -1};
    CHECK_INT(MPI_Allreduce_c(pair, reduced, 2, MPI_INT, op, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(reduced[0], 0); /* rank order: rank 0's element survives */
    CHECK_INT(reduced[1], size_);
    MPI_Op_free(&op);
    for (int p = 0; p < size_; ++p) all[p] = -1;
    MPI_Request request;
    CHECK_INT(MPI_Iallgatherv_c(&value, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD, &request),
              MPI_SUCCESS);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (int p = 0; p < size_; ++p) CHECK_INT(all[size_ - 1 - p], p + 1);

    /* Datatypes and packing. */
    MPI_Datatype contiguous, vector;
    CHECK_INT(MPI_Type_contiguous_c(3, MPI_INT, &contiguous), MPI_SUCCESS);
    CHECK_INT(MPI_Type_vector_c(2, 2, 3, MPI_SHORT, &vector), MPI_SUCCESS);
    MPI_Type_commit(&contiguous);
    MPI_Type_commit(&vector);
    MPI_Count size = 0, lb = -1, extent = 0;
    CHECK_INT(MPI_Type_size_c(contiguous, &size), MPI_SUCCESS);
    CHECK_INT(size, 12);
    CHECK_INT(MPI_Type_get_extent_c(vector, &lb, &extent), MPI_SUCCESS);
    CHECK_INT(lb, 0);
    CHECK_INT(extent, 5 * (MPI_Count)sizeof(short));
    MPI_Count packed_size = 0;
    CHECK_INT(MPI_Pack_size_c(1, vector, MPI_COMM_WORLD, &packed_size), MPI_SUCCESS);
    CHECK(packed_size >= 8);
    short shorts[5] = {1, 2, -1, 4, 5}, back[5] = {0, 0, 0, 0, 0};
    char packed[64];
    MPI_Count position = 0;
    CHECK_INT(MPI_Pack_c(shorts, 1, vector, packed, sizeof packed, &position, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(position, 8);
    position = 0;
    CHECK_INT(MPI_Unpack_c(packed, sizeof packed, &position, back, 1, vector, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(position, 8);
    CHECK_INT(back[0], 1);
    CHECK_INT(back[1], 2);
    CHECK_INT(back[2], 0);
    CHECK_INT(back[4], 5);
    MPI_Count displacements[2] = {0, 3};
    MPI_Datatype indexed;
    CHECK_INT(MPI_Type_create_indexed_block_c(2, 1, displacements, MPI_INT, &indexed), MPI_SUCCESS);
    MPI_Type_size_c(indexed, &size);
    CHECK_INT(size, 8);
    MPI_Type_free(&indexed);
    MPI_Type_free(&contiguous);
    MPI_Type_free(&vector);

    /* Beyond INT_MAX: refused with MPI_ERR_COUNT, nothing sent, the job goes on. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const MPI_Count huge = (MPI_Count)INT_MAX + 1;
    CHECK_INT(mpi_error_class(MPI_Send_c(out, huge, MPI_BYTE, right, 1, MPI_COMM_WORLD)), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Bcast_c(out, huge, MPI_BYTE, 0, MPI_COMM_WORLD)), MPI_ERR_COUNT);
    CHECK_INT(mpi_error_class(MPI_Type_contiguous_c(huge, MPI_INT, &contiguous)), MPI_ERR_COUNT);
    /* A packed size beyond INT_MAX: MPI_Pack_size refuses it (it said 0),
     * MPI_Pack_size_c gives it. */
    int int_size = -1;
    CHECK_INT(mpi_error_class(MPI_Pack_size(1 << 30, MPI_DOUBLE, MPI_COMM_WORLD, &int_size)), MPI_ERR_COUNT);
    CHECK_INT(int_size, -1);
    CHECK_INT(MPI_Pack_size_c(1 << 30, MPI_DOUBLE, MPI_COMM_WORLD, &packed_size), MPI_SUCCESS);
    CHECK(packed_size == (MPI_Count)8 << 30);
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(MPI_Send_c(out, huge, MPI_BYTE, right, 1, MPI_COMM_WORLD), message, &length);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(MPI_Allreduce_c(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(sum, size_ * (size_ + 1) / 2);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    isendrecv();
    large_count_forms();
    const int status = mpi_check_done("mpi_large_count", rank_);
    MPI_Finalize();
    return status;
}
