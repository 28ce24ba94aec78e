// Inter-communicators (MPI 3.1 §6.6): what communicators.cpp and the
// collectives' entry points call when a communicator is one.
//
// An inter-communicator is a Comm whose guest::Communicator is the local
// group under an ID both groups agreed on (ANDing every member's free IDs:
// each group over an intra-communicator, the two leaders between them), so
// no other communicator of any member shares its point-to-point or
// internal tags; its `remote` lists the remote group, which point-to-point
// ranks name. The ID is taken from the software-only range (>= 32) first:
// an inter-communicator never has a CT row, so the switch's context IDs
// stay for intra-communicators. Each inter-communicator keeps its local
// group as a hidden intra-communicator (Comm::local) of its own: the
// collectives' local phases run there, offloaded to the switch when it can
// run them (coll_inter.cpp); the traffic between the groups is software.
//
// Plain C++17, no SystemC.
#pragma once

#include "mpi_impl.h"

namespace isvp::mpi::inter {

// ---- communicators (intercommunicators.cpp) -----------------------------------

/// MPI_Comm_dup of an inter-communicator (collective over both groups).
MPI_Comm dup(Comm& parent);
/// MPI_Comm_split of an inter-communicator: the local members of one colour
/// with the remote members of the same colour, ordered by key (ties by
/// rank); MPI_COMM_NULL for MPI_UNDEFINED or when the other group has no
/// member of that colour. `colour` is MPI_UNDEFINED or >= 0.
MPI_Comm split(Comm& parent, int colour, int key);
/// MPI_Comm_create of an inter-communicator: `members` (global ranks, all
/// in the local group) form the new local group.
MPI_Comm create(Comm& parent, const std::vector<int>& members);
/// MPI_Comm_free's part for an inter-communicator: frees its hidden local
/// intra-communicator (collective over the local group).
void free_local(Comm& comm);
/// MPI_Comm_compare when either is an inter-communicator.
int compare(const Comm& a, const Comm& b);
/// MPI_Intercomm_merge: an intra-communicator of both groups, the group
/// with `high` false first (equal: the group whose leader has the lower
/// world rank).
MPI_Comm merge(Comm& c, bool high);
/// MPI_Intercomm_create once the arguments are checked.
MPI_Comm create_from_leaders(Comm& local, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag);

// ---- collectives (coll_inter.cpp) ----------------------------------------------
// MPI 3.1 §5.2.2 semantics: a root group (root = MPI_ROOT at the root,
// MPI_PROC_NULL at its other members) and the other group (root = the
// root's rank in the remote group); for the all-to-all kinds each group
// receives what the other group sent. MPI_IN_PLACE is not allowed.

void barrier(Comm& c);
void bcast(Comm& c, void* buffer, int count, MPI_Datatype datatype, int root);
void reduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root);
void allreduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op);
void gather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root);
void gatherv(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
             const int displs[], MPI_Datatype recvtype, int root);
void scatter(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, int root);
void scatterv(Comm& c, const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
void allgather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype);
void allgatherv(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype);
void alltoall(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype);
void alltoallv(Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
               void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
void alltoallw(Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
               const MPI_Datatype recvtypes[]);
void reduce_scatter_block(Comm& c, const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op);
void reduce_scatter(Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                    MPI_Op op);

}  // namespace isvp::mpi::inter
