// MPI_Comm_idup, MPI_Comm_idup_with_info (MPI 3.0 / 4.0) and
// MPI_Comm_create_group (MPI 3.0: collective over the group only).
//
// MPI_Comm_idup makes the duplicate when the program first completes (Wait,
// Test, their array forms, Request_get_status) an idup request — the
// request is a generalized request whose completion call runs the deferred
// work (set_deferred_work) — so an idup returns at once and a rank may go
// on to serve its peers (MPICH's comm_idup: ranks idup, then Ssend to a
// rank that idups only after it has received them all). The duplicate's ID
// is agreed by the blocking MPI_Comm_dup machinery; to keep members that
// started idups on several parents in different orders (legal for
// nonblocking calls) from waiting for each other, a completion call makes
// every pending idup of this rank, in one order every member shares: by
// the parent's communicator ID, then in start order (MPI requires one
// parent's idups to be started in the same order everywhere). The
// duplicate is an ordinary communicator (CT row, offload as Comm_dup's).
// While a dup waits for its members, the driver's progress hook keeps this
// rank's nonblocking operations going.
//
// MPI_Comm_create_group agrees the new communicator's ID among the group's
// members only: a temporary communicator of those members, under the
// parent's ID, runs the agreement on a sequence range of its own derived
// from `tag` (2^22 + tag, which the parent's collectives, counted from 0,
// do not reach), so concurrent create_group calls with different tags on
// overlapping groups never match each other's messages.
#include <algorithm>
#include <memory>
#include <vector>

#include "registry.h"

using namespace isvp::mpi;

namespace {

/// An MPI_Comm_idup not made yet.
struct PendingIdup {
    const char* function = "MPI_Comm_idup";
    MPI_Comm parent = MPI_COMM_NULL;
    unsigned parent_id = 0;  ///< the parent's communicator ID (the same on every member)
    MPI_Comm* newcomm = nullptr;
    MPI_Request request = MPI_REQUEST_NULL;
    int error = MPI_SUCCESS;  ///< what MPI_Comm_dup returned
};

/// Pending idups of this rank, in start order (owned here until made, then by their request).
std::vector<PendingIdup*>& pending() {
    static std::vector<PendingIdup*> list;
    return list;
}

int query_idup(void* extra, MPI_Status* status) {
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = MPI_SUCCESS;
    status->isvp_cancelled = 0;
    status->isvp_bytes = 0;
    return static_cast<PendingIdup*>(extra)->error;
}
int free_idup(void* extra) {
    delete static_cast<PendingIdup*>(extra);
    return MPI_SUCCESS;
}
int cancel_idup(void*, int) {
    return MPI_SUCCESS;  // an idup cannot be cancelled: it completes normally
}

const char* idup_function(void* extra) {
    return static_cast<PendingIdup*>(extra)->function;
}

bool owns_idup(void* extra) {
    const auto& list = pending();
    return std::find(list.begin(), list.end(), extra) != list.end();
}

/// Makes every pending idup, by parent ID, then start order.
void make_pending_idups() {
    std::vector<PendingIdup*> list;
    list.swap(pending());
    std::stable_sort(list.begin(), list.end(),
                     [](const PendingIdup* a, const PendingIdup* b) { return a->parent_id < b->parent_id; });
    for (PendingIdup* idup : list) {
        idup->error = PMPI_Comm_dup(idup->parent, idup->newcomm);
        PMPI_Grequest_complete(idup->request);
    }
}

int idup(const char* function, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
    return entry(function, comm, [&] {
        const Comm& parent = check_comm(comm);
        check_hints(info);
        if (newcomm == nullptr || request == nullptr) fail(MPI_ERR_ARG, "newcomm or request is NULL");
        auto made = std::make_unique<PendingIdup>();
        made->function = function;
        made->parent = comm;
        made->parent_id = parent.guest.id;
        made->newcomm = newcomm;
        if (PMPI_Grequest_start(query_idup, free_idup, cancel_idup, made.get(), &made->request) != MPI_SUCCESS)
            fail(MPI_ERR_INTERN, "could not make the request");
        set_deferred_work({owns_idup, make_pending_idups, idup_function});
        *request = made->request;
        pending().push_back(made.release());
    });
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
        refuse_inter(parent, "MPI_Comm_create_group");
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
            start_collective_sequence(*find_comm(*newcomm), parent);
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Comm_idup)
ISVP_MPI_ALIAS(Comm_idup_with_info)
ISVP_MPI_ALIAS(Comm_create_group)
