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
// blocking collectives' local phases run there, offloaded to the switch
// when it can run them (coll_inter.cpp); the traffic between the groups is
// software, and so are the nonblocking collectives (coll_inter_nonblocking.cpp).
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

/// The refusal of MPI_IN_PLACE ("... is not allowed on an inter-communicator ...").
extern const char* const kNoInPlace;
/// What this rank does in a rooted collective.
enum class Role {
    Root,    ///< root == MPI_ROOT: the root itself
    Idle,    ///< root == MPI_PROC_NULL: the root's group, not the root
    Remote,  ///< root names a rank of the remote group: the other group
};
/// MPI_ERR_ROOT for a root that is none of MPI_ROOT, MPI_PROC_NULL and a remote rank.
Role check_root_of(const Comm& c, int root);
/// A reduction's count, datatype, op and the significant buffers (no
/// MPI_IN_PLACE, no aliasing); returns the datatype.
const Type& check_reduction_buffers(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype datatype,
                                    MPI_Op op, bool send_significant, bool recv_significant);

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

// ---- nonblocking collectives (coll_inter_nonblocking.cpp) ---------------------------
// The same semantics, as requests of the round schedule engine; `comm` is
// c's handle. The data-movement ones serve both forms: `v` the vector form
// (counts and displacements), else the equal-count form's count.

void ibarrier(MPI_Comm comm, Comm& c, MPI_Request* request);
void ibcast(MPI_Comm comm, Comm& c, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Request* request);
void ireduce(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Request* request);
void iallreduce(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Request* request);
void ireduce_scatter_block(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int recvcount,
                           MPI_Datatype datatype, MPI_Op op, MPI_Request* request);
void ireduce_scatter(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[],
                     MPI_Datatype datatype, MPI_Op op, MPI_Request* request);
void igatherv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Request* request);
void iscatterv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, const int* sendcounts, const int* displs,
               int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Request* request);
void iallgatherv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype,
                 MPI_Request* request);
void ialltoallv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                int recvcount, MPI_Datatype recvtype, MPI_Request* request);
void ialltoallw(MPI_Comm comm, Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Request* request);

}  // namespace isvp::mpi::inter
