// Collectives the isvp MPI shim does not implement (yet): the
// neighbourhood collectives (blocking ones; their nonblocking forms are not
// declared). They link, and
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

ISVP_MPI_ALIAS(Neighbor_allgather)
ISVP_MPI_ALIAS(Neighbor_allgatherv)
ISVP_MPI_ALIAS(Neighbor_alltoall)
ISVP_MPI_ALIAS(Neighbor_alltoallv)
