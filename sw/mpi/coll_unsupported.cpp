// Collectives the isvp MPI shim does not implement (yet): MPI_Alltoallw,
// MPI_Ialltoallw and the neighbourhood collectives (the other nonblocking
// collectives are in coll_nonblocking*.cpp). They link, and
// every call reports MPI_ERR_UNSUPPORTED_OPERATION through the error
// handler (docs/MPI.md). Owned by the collectives' author (coll*.cpp):
// replace a stub by an implementation in another coll*.cpp file and delete
// it here.
#include "mpi_impl.h"

// Parameters are named as in mpi.h (documentation); the stubs use none.
#pragma GCC diagnostic ignored "-Wunused-parameter"

using isvp::mpi::entry;
using isvp::mpi::unsupported;

extern "C" {

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return entry("MPI_Alltoallw", comm, [] { unsupported("MPI_Alltoallw"); });
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
    return entry("MPI_Ialltoallw", comm, [] { unsupported("MPI_Ialltoallw"); });
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_allgather", comm, [] { unsupported("MPI_Neighbor_allgather"); });
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_allgatherv", comm, [] { unsupported("MPI_Neighbor_allgatherv"); });
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_alltoall", comm, [] { unsupported("MPI_Neighbor_alltoall"); });
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_alltoallv", comm, [] { unsupported("MPI_Neighbor_alltoallv"); });
}

}  // extern "C"

ISVP_MPI_ALIAS(Alltoallw)
ISVP_MPI_ALIAS(Ialltoallw)
ISVP_MPI_ALIAS(Neighbor_allgather)
ISVP_MPI_ALIAS(Neighbor_allgatherv)
ISVP_MPI_ALIAS(Neighbor_alltoall)
ISVP_MPI_ALIAS(Neighbor_alltoallv)
