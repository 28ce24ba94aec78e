/* SmartFuse fused collectives on isvp (docs/FUSED.md): a collective whose
 * result runs through a small program on the CGRA beside the switch's
 * collective engine, then (optionally) a second collective.
 *
 * Blocking calls (nonblocking MPIX_I... forms below). A program is CGRA instruction words (format in
 * docs/FUSED.md); its element type must match the datatype (MPI_INT: int32,
 * MPI_INT64_T / MPI_LONG_LONG / MPI_LONG (8 bytes): int64, MPI_FLOAT,
 * MPI_DOUBLE). Offloaded — the first collective and the program in the
 * switch — when offload is on, the call would go to the switch and the
 * op's array (the first collective's result) is at most
 * ISVP_MPI_FUSED_THRESHOLD bytes (16384 by default); otherwise the plain MPI
 * calls and the same program on the host (same bytes for integers; for
 * floating point each path sums in one fixed order).
 * MPIX_Allreduce_op_alltoall runs fully fused in the switch on power-of-two
 * communicators: Allreduce -> program -> Alltoall, the engine starting its
 * alltoall (a dimension-ordered hypercube exchange) itself; on other sizes
 * semi-fused (the Alltoall in software). MPIX_Allgather_prefix_allgatherv runs fully
 * fused (a contiguous datatype of one basic type): the counts' allgather,
 * the prefix sum and the data's allgather with unequal counts, whose counts
 * the engine takes from the prefix sum (its nonblocking form too). */
#ifndef ISVP_FUSED_H
#define ISVP_FUSED_H

#include <stdint.h>

#include "mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MPIX_Cgra_program_s* MPIX_Cgra_program;
#define MPIX_CGRA_PROGRAM_NULL ((MPIX_Cgra_program)0)

/* Checks the program (loaded into this rank's CGRA when offload is on: a
 * malformed one is refused there, MPI_ERR_ARG naming what is wrong, and the
 * switch keeps working). Local, not collective. */
int MPIX_Cgra_program_create(const uint32_t words[], int nwords, MPIX_Cgra_program* program);
int MPIX_Cgra_program_free(MPIX_Cgra_program* program);

/* Semi-fused: recvbuf = program(Allreduce(sendbuf)). */
int MPIX_Allreduce_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPIX_Cgra_program program, MPI_Comm comm);
/* Semi-fused: recvbuf (size x count) = program(Allgather(sendbuf)). */
int MPIX_Allgather_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPIX_Cgra_program program,
                      MPI_Comm comm);
/* Fused (NAS IS bucket counts): opbuf = program(Allreduce(sendbuf)), count
 * elements (a multiple of the size), then recvbuf = Alltoall(opbuf) in
 * blocks of count / size. Offloaded: fully fused (see above). */
int MPIX_Allreduce_op_alltoall(const void* sendbuf, void* opbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm);
/* Fused (FEM): Allgather of sendcount, an inclusive PREFIX_SUM on the CGRA
 * (ends of the blocks), recvcounts/displs from it (size entries each), then
 * recvbuf = Allgatherv(sendbuf, sendcount) with them. */
int MPIX_Allgather_prefix_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype datatype, void* recvbuf,
                                     int recvcounts[], int displs[], MPI_Comm comm);

/* Higher-order collectives (docs/FUSED.md, "Higher-order collectives").
 * Offloaded when offload is on, the switch runs the reduce-scatter and the
 * kernel's output (the partial C or y below) is at most
 * ISVP_MPI_HOC_THRESHOLD bytes (262144 by default): the operands go to the
 * switch, its CGRA multiplies them as they enter (an ingress kernel) and the
 * switches sum the partial products in transit (a reduce-scatter); the host
 * posts the operands and receives its block. Otherwise the host baseline: the
 * same kernel on the host, then MPI_Reduce_scatter_block (sum). Datatypes:
 * MPI_INT, a 64-bit integer, MPI_FLOAT, MPI_DOUBLE. Errors: MPI_ERR_DIMS
 * (sizes not positive / not divisible / over the CGRA's fields),
 * MPI_ERR_BUFFER (a NULL buffer), MPI_ERR_TYPE, MPI_ERR_COMM.
 *
 * PGEMM, C = A . B with A m x k, B k x n, C m x n (row major), P ranks:
 *   a: this rank's column block of A, m x k/P (columns r k/P .. (r+1) k/P - 1)
 *   b: this rank's row block of B, k/P x n (the same k range)
 *   c: this rank's row block of C, m/P x n (rows r m/P ..)
 * m and k multiples of P; m, n, k/P at most 65535. Each rank's partial
 * product a . b (m x n, inner index ascending) is reduce-scattered. */
int MPIX_Pgemm(const void* a, const void* b, void* c, int m, int n, int k, MPI_Datatype datatype, MPI_Comm comm);
/* Banded SpMV, y = A . x with A N x N (N = cols x P), nonzeros only at
 * |row - column| <= halfwidth, distributed by column blocks:
 *   band: cols x (2 halfwidth + 1) values, band[j (2w+1) + w + d] = A[g + d][g]
 *         for this rank's column g = r cols + j, d = -w .. w (rows outside
 *         0 .. N-1 ignored)
 *   x:    this rank's cols elements of x; y: this rank's cols elements of y.
 * The partial y of each rank (its columns' contributions, the halo rows of
 * its neighbours included) is reduce-scattered: the halo exchange and the
 * partial sums in the switches. halfwidth 0 .. 255. */
int MPIX_Spmv_band(const void* band, const void* x, void* y, int cols, int halfwidth, MPI_Datatype datatype,
                   MPI_Comm comm);
/* Last MPIX_Pgemm / MPIX_Spmv_band on this rank: 1 in the switch, 0 the host baseline. */
int MPIX_Hoc_last_offloaded(void);

/* Nonblocking forms (docs/FUSED.md, "Nonblocking"): the same checks, paths
 * and results as the blocking calls; the request completes with MPI_Wait,
 * MPI_Test and their array forms. Offloaded, the request is posted to the
 * switch and the call returns; otherwise the fallback runs as nonblocking
 * collectives (progressed by MPI calls, as MPI_Iallreduce). The buffers
 * (and recvcounts/displs, written when the counts have arrived) must stay
 * untouched until the request completes; the program may be freed at once. */
int MPIX_Iallreduce_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request);
int MPIX_Iallgather_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request);
int MPIX_Iallreduce_op_alltoall(const void* sendbuf, void* opbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request);
int MPIX_Iallgather_prefix_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype datatype, void* recvbuf,
                                      int recvcounts[], int displs[], MPI_Comm comm, MPI_Request* request);

/* Last call's path on this rank: 2 fully fused in the switch (collective, op
 * and second collective), 1 semi-fused (collective and op in the switch), 0
 * the fallback on the host. */
int MPIX_Fused_last_offloaded(void);

#ifdef __cplusplus
}
#endif

#endif
