// TEMPORARY: weak placeholders for the blocking collectives so
// libisvp_mpi links before sw/mpi/coll*.cpp implement them; each reports
// MPI_ERR_UNSUPPORTED_OPERATION. The collectives' author deletes this file
// once every function below has its real (strong) definition.
#include "mpi_impl.h"

// Parameters are named as in mpi.h (documentation); the stubs use none.
#pragma GCC diagnostic ignored "-Wunused-parameter"

using isvp::mpi::entry;
using isvp::mpi::unsupported;

extern "C" {

__attribute__((weak)) int PMPI_Barrier(MPI_Comm comm) {
    return entry("MPI_Barrier", comm, [] { unsupported("MPI_Barrier"); });
}

__attribute__((weak)) int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return entry("MPI_Bcast", comm, [] { unsupported("MPI_Bcast"); });
}

__attribute__((weak)) int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
    return entry("MPI_Reduce", comm, [] { unsupported("MPI_Reduce"); });
}

__attribute__((weak)) int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Allreduce", comm, [] { unsupported("MPI_Allreduce"); });
}

__attribute__((weak)) int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Scatter", comm, [] { unsupported("MPI_Scatter"); });
}

__attribute__((weak)) int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Scatterv", comm, [] { unsupported("MPI_Scatterv"); });
}

__attribute__((weak)) int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Gather", comm, [] { unsupported("MPI_Gather"); });
}

__attribute__((weak)) int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Gatherv", comm, [] { unsupported("MPI_Gatherv"); });
}

__attribute__((weak)) int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Allgather", comm, [] { unsupported("MPI_Allgather"); });
}

__attribute__((weak)) int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Allgatherv", comm, [] { unsupported("MPI_Allgatherv"); });
}

__attribute__((weak)) int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Alltoall", comm, [] { unsupported("MPI_Alltoall"); });
}

__attribute__((weak)) int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Alltoallv", comm, [] { unsupported("MPI_Alltoallv"); });
}

__attribute__((weak)) int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Reduce_scatter", comm, [] { unsupported("MPI_Reduce_scatter"); });
}

__attribute__((weak)) int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Reduce_scatter_block", comm, [] { unsupported("MPI_Reduce_scatter_block"); });
}

__attribute__((weak)) int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Scan", comm, [] { unsupported("MPI_Scan"); });
}

__attribute__((weak)) int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Exscan", comm, [] { unsupported("MPI_Exscan"); });
}

}  // extern "C"

ISVP_MPI_ALIAS(Barrier)
ISVP_MPI_ALIAS(Bcast)
ISVP_MPI_ALIAS(Reduce)
ISVP_MPI_ALIAS(Allreduce)
ISVP_MPI_ALIAS(Scatter)
ISVP_MPI_ALIAS(Scatterv)
ISVP_MPI_ALIAS(Gather)
ISVP_MPI_ALIAS(Gatherv)
ISVP_MPI_ALIAS(Allgather)
ISVP_MPI_ALIAS(Allgatherv)
ISVP_MPI_ALIAS(Alltoall)
ISVP_MPI_ALIAS(Alltoallv)
ISVP_MPI_ALIAS(Reduce_scatter)
ISVP_MPI_ALIAS(Reduce_scatter_block)
ISVP_MPI_ALIAS(Scan)
ISVP_MPI_ALIAS(Exscan)
