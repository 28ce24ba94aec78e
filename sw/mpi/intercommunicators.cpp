// Inter-communicators (MPI 3.1 §6.6): MPI_Intercomm_create,
// MPI_Intercomm_merge, and dup/split/create/free/compare of an
// inter-communicator (called from communicators.cpp). intercomm.h says how
// one is represented and how its ID is agreed.
//
// Agreement across the two groups: each group ANDs its members' free IDs
// over an intra-communicator of the group (guest::Collectives allreduce),
// the two leaders (local rank 0; for MPI_Intercomm_create the named
// leaders over peer_comm) swap what their group has, and each leader
// broadcasts the other group's answer in its group. Every member then
// takes the same ID. MPI_Intercomm_create's leaders talk point-to-point on
// peer_comm with the program's tag, as the standard specifies (the tag
// must not collide with other traffic on peer_comm between them); every
// later exchange uses the inter-communicator's own internal tags.
#include <algorithm>
#include <array>
#include <string>

#include "intercomm.h"
#include "registry.h"

namespace isvp::mpi {

int Comm::peer_rank(int global) const {
    if (!is_inter()) return comm_rank(global);
    const auto it = std::find(remote.begin(), remote.end(), global);
    return it == remote.end() ? MPI_UNDEFINED : static_cast<int>(it - remote.begin());
}

void refuse_inter(const Comm& comm, const char* function) {
    if (comm.is_inter())
        fail(MPI_ERR_COMM,
             std::string(function) + " is defined on intra-communicators only; this one is an inter-communicator");
}

void unsupported_on_inter(const Comm& comm, const char* function) {
    if (comm.is_inter())
        fail(MPI_ERR_UNSUPPORTED_OPERATION, std::string(function) +
                                                " on an inter-communicator is not supported by the isvp MPI shim "
                                                "(docs/MPI.md lists what is)");
}

namespace inter {

namespace {

constexpr std::size_t kIdWords = guest::kCommunicatorIds / 32;
using IdWords = std::array<std::uint32_t, kIdWords>;

Comm& local_of(const Comm& comm) {
    Comm* local = find_comm(comm.local);
    if (local == nullptr) fail(MPI_ERR_INTERN, "the inter-communicator's local group communicator is gone");
    return *local;
}

/// The free IDs of every member of `group` (software allreduce-AND or the switch).
IdWords group_free_ids(Comm& group) {
    const IdWords mine = collectives().free_ids();
    IdWords all{};
    collectives().allreduce(group.guest, mine.data(), all.data(), kIdWords, isvp::Datatype::UInt32,
                            isvp::Operation::Band);
    return all;
}

/// The ID for a communicator spanning both groups from the IDs free on
/// all of them: the lowest, software-only IDs first for an
/// inter-communicator (it never takes a CT row), context IDs first for an
/// intra-communicator (MPI_Intercomm_merge: it may offload).
unsigned pick_id(const IdWords& common, bool software_first) {
    const auto is_free = [&](unsigned id) { return (common[id / 32] >> (id % 32) & 1u) != 0; };
    const unsigned split = software_first ? guest::kContextIds : 0;
    for (unsigned id = split; id < guest::kCommunicatorIds; ++id)
        if (is_free(id)) return id;
    for (unsigned id = 0; id < split; ++id)
        if (is_free(id)) return id;
    fail(MPI_ERR_OTHER, "no communicator ID is free on every member of both groups (" +
                            std::to_string(guest::kCommunicatorIds) +
                            " in use); free some communicators (a freed one keeps its ID until its pending "
                            "requests are done)");
}

/// The leaders swap `mine` (significant at local rank 0) over the
/// inter-communicator; every local member gets the remote leader's words
/// (at most `capacity` of them). Collective over both groups.
std::vector<std::uint32_t> swap_with_remote(Comm& c, const std::vector<std::uint32_t>& mine, std::size_t capacity) {
    const std::uint32_t tag = collective_tag(c);
    std::vector<std::uint32_t> theirs(capacity);
    std::uint32_t count = 0;
    if (c.rank() == 0) {
        send_internal(c, 0, tag, mine.data(), mine.size() * sizeof(std::uint32_t));
        const std::size_t bytes = receive_internal(c, 0, tag, theirs.data(), capacity * sizeof(std::uint32_t));
        count = static_cast<std::uint32_t>(bytes / sizeof(std::uint32_t));
    }
    Comm& local = local_of(c);
    collectives().bcast(local.guest, &count, 1, isvp::Datatype::UInt32, 0);
    theirs.resize(count);
    if (count > 0) collectives().bcast(local.guest, theirs.data(), count, isvp::Datatype::UInt32, 0);
    return theirs;
}

/// The IDs free on every member of both groups of `c`.
IdWords agree_ids(Comm& c) {
    IdWords common = group_free_ids(local_of(c));
    const std::vector<std::uint32_t> theirs =
        swap_with_remote(c, std::vector<std::uint32_t>(common.begin(), common.end()), kIdWords);
    if (theirs.size() != kIdWords) fail(MPI_ERR_INTERN, "the remote leader sent a malformed ID set");
    for (std::size_t w = 0; w < kIdWords; ++w) common[w] &= theirs[w];
    return common;
}

/// Registers an inter-communicator: local group `guest` under its agreed
/// ID, the remote group's global ranks, and the hidden local
/// intra-communicator `local` (errors there come back to the caller).
MPI_Comm register_inter(guest::Communicator guest, std::vector<int> remote, guest::Communicator local,
                        const Comm& parent) {
    const MPI_Comm local_handle = register_comm(std::move(local), &parent);
    Comm& local_comm = *find_comm(local_handle);
    local_comm.errhandler = MPI_ERRORS_RETURN;
    local_comm.name = "the local group of an inter-communicator";
    const MPI_Comm handle = register_comm(std::move(guest), &parent);
    Comm& made = *find_comm(handle);
    made.remote = std::move(remote);
    made.local = local_handle;
    return handle;
}

/// Gives back a hidden local intra-communicator made for an
/// inter-communicator that did not come about (collective over its members).
void drop_local(guest::Communicator& local) {
    collectives().free(local);
}

/// pick_id for an inter-communicator whose hidden local communicator is
/// made already: when no ID is free (every member of both groups sees the
/// same agreed set, so all fail alike) the hidden one is given back.
unsigned pick_id_or_drop(const IdWords& free_ids, guest::Communicator* local) {
    try {
        return pick_id(free_ids, true);
    } catch (const Error&) {
        if (local != nullptr) drop_local(*local);
        throw;
    }
}

}  // namespace

MPI_Comm dup(Comm& parent) {
    guest::Communicator local = collectives().dup(local_of(parent).guest);
    const unsigned id = pick_id_or_drop(agree_ids(parent), &local);
    guest::Communicator made = collectives().adopt(id, parent.guest.members, parent.rank(), false);
    return register_inter(std::move(made), parent.remote, std::move(local), parent);
}

MPI_Comm split(Comm& parent, int colour, int key) {
    Comm& local_parent = local_of(parent);
    const int wanted = colour == MPI_UNDEFINED ? -1 : colour;
    std::optional<guest::Communicator> local = collectives().split(local_parent.guest, wanted, key);
    // Every member's (colour, key), then the remote group's from its leader.
    const guest::SplitRequest mine{wanted, key};
    std::vector<guest::SplitRequest> requests(static_cast<std::size_t>(parent.size()));
    collectives().allgather(local_parent.guest, &mine, requests.data(), 1, isvp::Datatype::Int32Int32);
    std::vector<std::uint32_t> words;
    for (const guest::SplitRequest& request : requests) {
        words.push_back(static_cast<std::uint32_t>(request.colour));
        words.push_back(static_cast<std::uint32_t>(request.key));
    }
    const std::vector<std::uint32_t> theirs = swap_with_remote(parent, words, 2 * parent.remote.size());
    if (theirs.size() != 2 * parent.remote.size())
        fail(MPI_ERR_INTERN, "the remote leader sent a malformed split request list");
    std::vector<guest::SplitRequest> remote_requests;
    for (std::size_t i = 0; i < parent.remote.size(); ++i)
        remote_requests.push_back({static_cast<int>(theirs[2 * i]), static_cast<int>(theirs[2 * i + 1])});
    const unsigned id = pick_id_or_drop(agree_ids(parent), local ? &*local : nullptr);
    if (!local) return MPI_COMM_NULL;
    // The remote members of this colour, by key, ties by remote rank: this
    // rank's request appended last stands for the colour (and drops out).
    remote_requests.push_back(mine);
    std::vector<int> order = guest::split_order(remote_requests, static_cast<int>(parent.remote.size()));
    order.erase(std::remove(order.begin(), order.end(), static_cast<int>(parent.remote.size())), order.end());
    if (order.empty()) {
        drop_local(*local);  // every local member of this colour sees the same empty remote side
        return MPI_COMM_NULL;
    }
    std::vector<int> remote;
    for (int r : order) remote.push_back(parent.remote[static_cast<std::size_t>(r)]);
    guest::Communicator made = collectives().adopt(id, local->members, local->rank, false);
    return register_inter(std::move(made), std::move(remote), std::move(*local), parent);
}

MPI_Comm create(Comm& parent, const std::vector<int>& members) {
    const auto it = std::find(members.begin(), members.end(), parent.global_rank(parent.rank()));
    if (it == members.end()) return split(parent, MPI_UNDEFINED, 0);
    return split(parent, 0, static_cast<int>(it - members.begin()));
}

void free_local(Comm& comm) {
    Comm& local = local_of(comm);
    collectives().retire(local.guest, communicators().shared(comm.local));
    communicators().remove(comm.local);
    comm.local = MPI_COMM_NULL;
}

int compare(const Comm& a, const Comm& b) {
    if (a.is_inter() != b.is_inter()) return MPI_UNEQUAL;
    const auto groups = [](const std::vector<int>& x, const std::vector<int>& y) {
        if (x == y) return MPI_IDENT;
        std::vector<int> sx = x, sy = y;
        std::sort(sx.begin(), sx.end());
        std::sort(sy.begin(), sy.end());
        return sx == sy ? MPI_SIMILAR : MPI_UNEQUAL;
    };
    const int local = groups(a.guest.members, b.guest.members), remote = groups(a.remote, b.remote);
    if (local == MPI_UNEQUAL || remote == MPI_UNEQUAL) return MPI_UNEQUAL;
    return local == MPI_IDENT && remote == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

MPI_Comm merge(Comm& c, bool high) {
    Comm& local = local_of(c);
    // The local leader's `high` stands for its group (all members should pass the same).
    std::uint32_t local_high = high ? 1 : 0;
    collectives().bcast(local.guest, &local_high, 1, isvp::Datatype::UInt32, 0);
    const std::vector<std::uint32_t> theirs = swap_with_remote(c, {local_high}, 1);
    if (theirs.size() != 1) fail(MPI_ERR_INTERN, "the remote leader sent a malformed high flag");
    // The group with high false first; with equal flags, the group whose
    // leader has the lower world rank (the same answer in both groups).
    const bool local_first = local_high != theirs[0] ? local_high == 0 : c.global_rank(0) < c.peer_global(0);
    std::vector<int> members = local_first ? c.guest.members : c.remote;
    const std::vector<int>& second = local_first ? c.remote : c.guest.members;
    members.insert(members.end(), second.begin(), second.end());
    const int rank = local_first ? c.rank() : static_cast<int>(c.remote.size()) + c.rank();
    const unsigned id = pick_id(agree_ids(c), false);
    return register_comm(collectives().adopt(id, std::move(members), rank, true), &c);
}

MPI_Comm create_from_leaders(Comm& local, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag) {
    const bool leader = local.rank() == local_leader;
    constexpr std::size_t kHeader = 1 + kIdWords;  // group size, the IDs free on all its members
    guest::Communicator hidden = collectives().dup(local.guest);
    IdWords common = group_free_ids(local);
    std::vector<std::uint32_t> theirs(kHeader + static_cast<std::size_t>(driver().size()));
    if (leader) {
        std::vector<std::uint32_t> message{static_cast<std::uint32_t>(local.size())};
        message.insert(message.end(), common.begin(), common.end());
        for (int global : local.guest.members) message.push_back(static_cast<std::uint32_t>(global));
        MPI_Status status;
        const int code = PMPI_Sendrecv(message.data(), static_cast<int>(message.size()), MPI_UINT32_T, remote_leader,
                                       tag, theirs.data(), static_cast<int>(theirs.size()), MPI_UINT32_T, remote_leader,
                                       tag, peer_comm, &status);
        if (code != MPI_SUCCESS) fail(code, "the exchange with the remote leader over peer_comm failed");
        int received = 0;
        PMPI_Get_count(&status, MPI_UINT32_T, &received);
        if (received < static_cast<int>(kHeader) || theirs[0] == 0 ||
            theirs[0] != static_cast<std::uint32_t>(received) - kHeader)
            fail(MPI_ERR_OTHER, "the remote leader's message (tag " + std::to_string(tag) +
                                    " on peer_comm) is not an MPI_Intercomm_create exchange; is another message "
                                    "on that tag in flight between the leaders?");
    }
    collectives().bcast(local.guest, theirs.data(), kHeader, isvp::Datatype::UInt32, local_leader);
    const std::size_t remote_size = theirs[0];
    collectives().bcast(local.guest, theirs.data() + kHeader, remote_size, isvp::Datatype::UInt32, local_leader);
    std::vector<int> remote;
    for (std::size_t i = 0; i < remote_size; ++i) remote.push_back(static_cast<int>(theirs[kHeader + i]));
    for (int global : remote)
        if (local.comm_rank(global) != MPI_UNDEFINED) {
            drop_local(hidden);  // every member of both groups sees the same overlap
            fail(MPI_ERR_COMM, "world rank " + std::to_string(global) +
                                   " is in both groups (the local and remote groups must be disjoint)");
        }
    for (std::size_t w = 0; w < kIdWords; ++w) common[w] &= theirs[1 + w];
    const unsigned id = pick_id_or_drop(common, &hidden);
    guest::Communicator made = collectives().adopt(id, local.guest.members, local.rank(), false);
    return register_inter(std::move(made), std::move(remote), std::move(hidden), local);
}

}  // namespace inter

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
    return entry("MPI_Intercomm_create", local_comm, [&] {
        Comm& local = check_comm(local_comm);
        refuse_inter(local, "MPI_Intercomm_create's local_comm");
        if (newintercomm == nullptr) fail(MPI_ERR_ARG, "newintercomm is NULL");
        if (local_leader < 0 || local_leader >= local.size())
            fail(MPI_ERR_RANK, "invalid local_leader " + std::to_string(local_leader) + " (local_comm size " +
                                   std::to_string(local.size()) + ")");
        if (local.rank() == local_leader) {  // peer_comm, remote_leader and tag matter at the leader only
            Comm& peer = check_comm(peer_comm);
            check_rank(peer, remote_leader, "remote_leader", false);
            check_tag(tag, "tag");
            if (peer.peer_global(remote_leader) == driver().rank())
                fail(MPI_ERR_RANK, "remote_leader " + std::to_string(remote_leader) +
                                       " is this process itself (the two groups must be disjoint)");
        }
        *newintercomm = inter::create_from_leaders(local, local_leader, peer_comm, remote_leader, tag);
    });
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
    return entry("MPI_Intercomm_merge", intercomm, [&] {
        Comm& c = check_comm(intercomm);
        if (!c.is_inter()) fail(MPI_ERR_COMM, "intercomm is an intra-communicator");
        if (newintracomm == nullptr) fail(MPI_ERR_ARG, "newintracomm is NULL");
        *newintracomm = inter::merge(c, high != 0);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Intercomm_create)
ISVP_MPI_ALIAS(Intercomm_merge)
