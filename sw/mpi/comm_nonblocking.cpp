// MPI_Comm_idup, MPI_Comm_idup_with_info (MPI 3.0 / 4.0) and
// MPI_Comm_create_group (MPI 3.0: collective over the group only).
//
// MPI_Comm_idup runs MPI_Comm_dup at the call and returns a request that is
// already complete: the new communicator's ID is agreed by a software
// allreduce over the parent, which waits for every member to reach its
// idup. While it waits, the driver's progress hook keeps this rank's
// nonblocking operations going (docs/MPI.md, "Progress"), so idups mixed
// with pending nonblocking collectives, sends and receives on the parent
// complete as the standard requires, as long as every member starts its
// idups of one parent in the same order (which MPI requires of collectives).
//
// MPI_Comm_create_group agrees the new communicator's ID among the group's
// members only: a temporary communicator of those members, under the
// parent's ID, runs the agreement on a sequence range of its own derived
// from `tag` (2^22 + tag, which the parent's collectives, counted from 0,
// do not reach), so concurrent create_group calls with different tags on
// overlapping groups never match each other's messages.
#include "registry.h"

using namespace isvp::mpi;

namespace {

/// A request that is complete at once (its status empty): Wait and Test return at once.
int query_empty(void*, MPI_Status* status) {
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = MPI_SUCCESS;
    status->isvp_cancelled = 0;
    status->isvp_bytes = 0;
    return MPI_SUCCESS;
}
int free_nothing(void*) {
    return MPI_SUCCESS;
}
int cancel_nothing(void*, int) {
    return MPI_SUCCESS;
}

MPI_Request completed_request() {
    MPI_Request request = MPI_REQUEST_NULL;
    if (PMPI_Grequest_start(query_empty, free_nothing, cancel_nothing, nullptr, &request) != MPI_SUCCESS ||
        PMPI_Grequest_complete(request) != MPI_SUCCESS)
        fail(MPI_ERR_INTERN, "could not make the request");
    return request;
}

int idup(const char* function, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
    const int checked = entry(function, comm, [&] {
        check_comm(comm);
        if (info != MPI_INFO_NULL && objects().infos.find(info) == nullptr)
            fail(MPI_ERR_INFO, "info is not a valid info object");
        if (newcomm == nullptr || request == nullptr) fail(MPI_ERR_ARG, "newcomm or request is NULL");
    });
    if (checked != MPI_SUCCESS) return checked;
    if (const int status = PMPI_Comm_dup(comm, newcomm); status != MPI_SUCCESS) return status;
    return entry(function, comm, [&] { *request = completed_request(); });
}

}  // namespace

extern "C" {

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
    return idup("MPI_Comm_idup", comm, MPI_INFO_NULL, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
    return idup("MPI_Comm_idup_with_info", comm, info, newcomm, request);
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
    return entry("MPI_Comm_create_group", comm, [&] {
        Comm& parent = check_comm(comm);
        if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is NULL");
        check_tag(tag, "tag");
        const Group* g = objects().groups.find(group);
        if (group == MPI_GROUP_EMPTY) {
            *newcomm = MPI_COMM_NULL;
            return;
        }
        if (g == nullptr) fail(MPI_ERR_GROUP, "group is not a valid group");
        int mine = MPI_UNDEFINED;
        for (std::size_t i = 0; i < g->members.size(); ++i) {
            if (parent.comm_rank(g->members[i]) == MPI_UNDEFINED)
                fail(MPI_ERR_GROUP,
                     "group member (world rank " + std::to_string(g->members[i]) + ") is not in the communicator");
            if (g->members[i] == parent.global_rank(parent.rank())) mine = static_cast<int>(i);
        }
        if (mine == MPI_UNDEFINED) {  // only the group's members take part (MPI 3.0 §6.4.2)
            *newcomm = MPI_COMM_NULL;
            return;
        }
        isvp::guest::Communicator members;
        members.id = parent.guest.id;
        members.rank = mine;
        members.members = g->members;
        members.sequence = (1u << 22) + static_cast<std::uint32_t>(tag);
        try {
            *newcomm = register_comm(collectives().dup(members), &parent);
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Comm_idup)
ISVP_MPI_ALIAS(Comm_idup_with_info)
ISVP_MPI_ALIAS(Comm_create_group)
