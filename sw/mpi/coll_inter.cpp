// The blocking collectives on inter-communicators (MPI 3.1 §5.2.2), in
// software, as MPICH does them:
//
//   Barrier              local barrier; the leaders (local rank 0) swap an
//                        empty message; local barrier
//   Bcast                root -> remote leader; local bcast there
//   Reduce               local reduce to the leader; leader -> root
//   Allreduce            local reduce; the leaders swap; local bcast
//   Gather               local gather (packed bytes) to the leader; -> root
//   Scatter              root -> remote leader; local scatter there
//   Allgather            local gather; the leaders swap; local bcast
//   Reduce_scatter(_block) local reduce of the whole vector; the leaders
//                        swap; local scatter(v)
//   Gatherv, Scatterv    linear: the root receives from / sends to every
//                        remote rank
//   Allgatherv, Alltoall(v,w) every rank sends to and receives from every
//                        remote rank
//
// The local phases are the intra-communicator collectives on the
// inter-communicator's hidden local group (Comm::local), so they go to the
// switch where it can run them (the communicator has a CT row, the
// collective and datatype suit it); the messages between the groups are
// internal point-to-point on the inter-communicator's tags. Data crosses
// as packed bytes (packed with the send datatype, unpacked with the
// receive datatype), reductions in the datatype's layout.
#include <cstring>
#include <string>
#include <vector>

#include "coll_util.h"
#include "intercomm.h"
#include "registry.h"

using namespace isvp::mpi::coll;

namespace isvp::mpi::inter {

const char* const kNoInPlace = "on an inter-communicator (MPI_IN_PLACE is for intra-communicators)";

Role check_root_of(const Comm& c, int root) {
    if (root == MPI_ROOT) return Role::Root;
    if (root == MPI_PROC_NULL) return Role::Idle;
    if (root >= 0 && root < c.peer_size()) return Role::Remote;
    fail(MPI_ERR_ROOT, "invalid root " + std::to_string(root) +
                           " on an inter-communicator (MPI_ROOT at the root, MPI_PROC_NULL at its group's other "
                           "members, else a rank of the remote group, size " +
                           std::to_string(c.peer_size()) + ")");
}

namespace {

/// Runs a local phase's MPI call's result: its error (the hidden local
/// communicator returns errors) becomes this call's, with its message.
void local_phase(int code) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    PMPI_Error_string(code, text, &length);
    fail(code, std::string("in the local group's phase: ") + text);
}

std::vector<std::uint8_t> packed(const void* buffer, std::size_t count, const Type& type) {
    std::vector<std::uint8_t> bytes(count * type.size);
    if (!bytes.empty()) pack_into(buffer, count, type, bytes.data());
    return bytes;
}

void send_bytes(Comm& c, int remote, std::uint32_t tag, const std::vector<std::uint8_t>& bytes) {
    send_internal(c, remote, tag, bytes.data(), bytes.size());
}

/// Receives exactly count * type.size packed bytes from remote rank
/// `remote` and unpacks them into `buffer`.
void receive_into(Comm& c, int remote, std::uint32_t tag, void* buffer, std::size_t count, const Type& type) {
    std::vector<std::uint8_t> bytes(count * type.size);
    receive_exact(c, remote, tag, bytes.data(), bytes.size());
    if (!bytes.empty()) unpack_from(bytes.data(), count, type, buffer);
}

/// The leaders send `mine` to each other and receive `expected` bytes.
std::vector<std::uint8_t> leaders_swap(Comm& c, std::uint32_t tag, const std::vector<std::uint8_t>& mine,
                                       std::size_t expected) {
    std::vector<std::uint8_t> theirs(expected);
    send_bytes(c, 0, tag, mine);
    receive_exact(c, 0, tag, theirs.data(), expected);
    return theirs;
}

/// The local group's reduction of `count` elements at `sendbuf`, at local
/// rank 0 (elsewhere an empty buffer).
TypedBuffer local_reduce(Comm& c, const void* sendbuf, std::size_t count, MPI_Datatype datatype, MPI_Op op,
                         const Type& type) {
    TypedBuffer result = c.rank() == 0 ? TypedBuffer(count, type) : TypedBuffer();
    local_phase(PMPI_Reduce(sendbuf, result.data(), static_cast<int>(count), datatype, op, 0, c.local));
    return result;
}

}  // namespace

const Type& check_reduction_buffers(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype datatype,
                                    MPI_Op op, bool send_significant, bool recv_significant) {
    const Reduction reduction = check_reduction(count, datatype, op);
    const Type& type = *reduction.type;
    if (send_significant) {
        refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
        check_buffer(sendbuf, count, type, "sendbuf");
    }
    if (recv_significant) {
        refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
        check_buffer(recvbuf, count, type, "recvbuf");
    }
    if (send_significant && recv_significant) refuse_alias(sendbuf, recvbuf, count > 0);
    return type;
}

void barrier(Comm& c) {
    const std::uint32_t tag = collective_tag(c);
    local_phase(PMPI_Barrier(c.local));
    if (c.rank() == 0) leaders_swap(c, tag, {}, 0);
    local_phase(PMPI_Barrier(c.local));
}

void bcast(Comm& c, void* buffer, int count, MPI_Datatype datatype, int root) {
    const Role role = check_root_of(c, root);
    const Type* type = nullptr;
    if (role != Role::Idle) {
        check_count(count, "count");
        type = &check_datatype(datatype);
        refuse_in_place(buffer, "buffer", kNoInPlace);
        check_buffer(buffer, count, *type, "buffer");
    }
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle || type->size * static_cast<std::size_t>(count) == 0) return;
    const auto n = static_cast<std::size_t>(count);
    if (role == Role::Root) {
        send_bytes(c, 0, tag, packed(buffer, n, *type));
        return;
    }
    if (c.rank() == 0) receive_into(c, root, tag, buffer, n, *type);
    local_phase(PMPI_Bcast(buffer, count, datatype, 0, c.local));
}

void reduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root) {
    const Role role = check_root_of(c, root);
    const Type* type = nullptr;
    if (role != Role::Idle)
        type =
            &check_reduction_buffers(sendbuf, recvbuf, count, datatype, op, role == Role::Remote, role == Role::Root);
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle || count == 0) return;
    const auto n = static_cast<std::size_t>(count);
    if (role == Role::Root) {
        receive_into(c, 0, tag, recvbuf, n, *type);
        return;
    }
    TypedBuffer result = local_reduce(c, sendbuf, n, datatype, op, *type);
    if (c.rank() == 0) send_bytes(c, root, tag, packed(result.data(), n, *type));
}

void allreduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op) {
    const Type& type = check_reduction_buffers(sendbuf, recvbuf, count, datatype, op, true, true);
    const std::uint32_t tag = collective_tag(c);
    if (count == 0) return;
    const auto n = static_cast<std::size_t>(count);
    TypedBuffer result = local_reduce(c, sendbuf, n, datatype, op, type);
    if (c.rank() == 0) {
        const std::vector<std::uint8_t> theirs = leaders_swap(c, tag, packed(result.data(), n, type), n * type.size);
        unpack_from(theirs.data(), n, type, recvbuf);
    }
    local_phase(PMPI_Bcast(recvbuf, count, datatype, 0, c.local));
}

void gather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root) {
    const Role role = check_root_of(c, root);
    const Type* send_type = nullptr;
    const Type* recv_type = nullptr;
    if (role == Role::Remote) send_type = &check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    if (role == Role::Root) recv_type = &check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle) return;
    if (role == Role::Root) {
        const std::size_t total = static_cast<std::size_t>(c.peer_size()) * static_cast<std::size_t>(recvcount);
        if (total * recv_type->size > 0) receive_into(c, 0, tag, recvbuf, total, *recv_type);
        return;
    }
    const std::size_t block = bytes_of(sendcount, *send_type);
    if (block == 0) return;
    const std::vector<std::uint8_t> mine = packed(sendbuf, static_cast<std::size_t>(sendcount), *send_type);
    std::vector<std::uint8_t> all(c.rank() == 0 ? block * static_cast<std::size_t>(c.size()) : 0);
    local_phase(PMPI_Gather(mine.data(), static_cast<int>(block), MPI_BYTE, all.data(), static_cast<int>(block),
                            MPI_BYTE, 0, c.local));
    if (c.rank() == 0) send_bytes(c, root, tag, all);
}

void gatherv(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
             const int displs[], MPI_Datatype recvtype, int root) {
    const Role role = check_root_of(c, root);
    const Type* send_type = nullptr;
    const Type* recv_type = nullptr;
    if (role == Role::Remote) send_type = &check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    if (role == Role::Root)
        recv_type = &check_v_side(recvbuf, recvcounts, displs, "displs", c.peer_size(), recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle) return;
    if (role == Role::Remote) {
        send_bytes(c, root, tag, packed(sendbuf, static_cast<std::size_t>(sendcount), *send_type));
        return;
    }
    for (int r = 0; r < c.peer_size(); ++r)
        receive_into(c, r, tag, element(recvbuf, static_cast<std::size_t>(displs[r]), *recv_type),
                     static_cast<std::size_t>(recvcounts[r]), *recv_type);
}

void scatter(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, int root) {
    const Role role = check_root_of(c, root);
    const Type* send_type = nullptr;
    const Type* recv_type = nullptr;
    if (role == Role::Root) send_type = &check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    if (role == Role::Remote) recv_type = &check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle) return;
    if (role == Role::Root) {
        const std::size_t total = static_cast<std::size_t>(c.peer_size()) * static_cast<std::size_t>(sendcount);
        if (total * send_type->size > 0) send_bytes(c, 0, tag, packed(sendbuf, total, *send_type));
        return;
    }
    const std::size_t block = bytes_of(recvcount, *recv_type);
    if (block == 0) return;
    std::vector<std::uint8_t> all(c.rank() == 0 ? block * static_cast<std::size_t>(c.size()) : 0);
    if (c.rank() == 0) receive_exact(c, root, tag, all.data(), all.size());
    std::vector<std::uint8_t> mine(block);
    local_phase(PMPI_Scatter(all.data(), static_cast<int>(block), MPI_BYTE, mine.data(), static_cast<int>(block),
                             MPI_BYTE, 0, c.local));
    unpack_from(mine.data(), static_cast<std::size_t>(recvcount), *recv_type, recvbuf);
}

void scatterv(Comm& c, const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
    const Role role = check_root_of(c, root);
    const Type* send_type = nullptr;
    const Type* recv_type = nullptr;
    if (role == Role::Root)
        send_type = &check_v_side(sendbuf, sendcounts, displs, "displs", c.peer_size(), sendtype, "send", kNoInPlace);
    if (role == Role::Remote) recv_type = &check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    if (role == Role::Idle) return;
    if (role == Role::Remote) {
        receive_into(c, root, tag, recvbuf, static_cast<std::size_t>(recvcount), *recv_type);
        return;
    }
    for (int r = 0; r < c.peer_size(); ++r)
        send_bytes(c, r, tag,
                   packed(element(sendbuf, static_cast<std::size_t>(displs[r]), *send_type),
                          static_cast<std::size_t>(sendcounts[r]), *send_type));
}

void allgather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype) {
    const Type& send_type = check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    const Type& recv_type = check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    const std::size_t block = bytes_of(sendcount, send_type);
    const std::size_t remote_total = static_cast<std::size_t>(c.peer_size()) * static_cast<std::size_t>(recvcount);
    const std::vector<std::uint8_t> mine = packed(sendbuf, static_cast<std::size_t>(sendcount), send_type);
    std::vector<std::uint8_t> all(c.rank() == 0 ? block * static_cast<std::size_t>(c.size()) : 0);
    if (block > 0)
        local_phase(PMPI_Gather(mine.data(), static_cast<int>(block), MPI_BYTE, all.data(), static_cast<int>(block),
                                MPI_BYTE, 0, c.local));
    std::vector<std::uint8_t> theirs(remote_total * recv_type.size);
    if (c.rank() == 0) theirs = leaders_swap(c, tag, all, theirs.size());
    if (theirs.empty()) return;
    local_phase(PMPI_Bcast(theirs.data(), static_cast<int>(theirs.size()), MPI_BYTE, 0, c.local));
    unpack_from(theirs.data(), remote_total, recv_type, recvbuf);
}

void allgatherv(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype) {
    const Type& send_type = check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    const Type& recv_type =
        check_v_side(recvbuf, recvcounts, displs, "displs", c.peer_size(), recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    const std::vector<std::uint8_t> mine = packed(sendbuf, static_cast<std::size_t>(sendcount), send_type);
    for (int r = 0; r < c.peer_size(); ++r) send_bytes(c, r, tag, mine);
    for (int r = 0; r < c.peer_size(); ++r)
        receive_into(c, r, tag, element(recvbuf, static_cast<std::size_t>(displs[r]), recv_type),
                     static_cast<std::size_t>(recvcounts[r]), recv_type);
}

void alltoall(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype) {
    const Type& send_type = check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    const Type& recv_type = check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    refuse_alias(sendbuf, recvbuf, sendcount > 0 && recvcount > 0);
    const std::uint32_t tag = collective_tag(c);
    const auto sends = static_cast<std::size_t>(sendcount), receives = static_cast<std::size_t>(recvcount);
    for (int r = 0; r < c.peer_size(); ++r)
        send_bytes(c, r, tag, packed(element(sendbuf, r * sends, send_type), sends, send_type));
    for (int r = 0; r < c.peer_size(); ++r)
        receive_into(c, r, tag, element(recvbuf, r * receives, recv_type), receives, recv_type);
}

void alltoallv(Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
               void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype) {
    const int n = c.peer_size();
    const Type& send_type = check_v_side(sendbuf, sendcounts, sdispls, "sdispls", n, sendtype, "send", kNoInPlace);
    const Type& recv_type = check_v_side(recvbuf, recvcounts, rdispls, "rdispls", n, recvtype, "recv", kNoInPlace);
    const std::uint32_t tag = collective_tag(c);
    for (int r = 0; r < n; ++r)
        send_bytes(c, r, tag,
                   packed(element(sendbuf, static_cast<std::size_t>(sdispls[r]), send_type),
                          static_cast<std::size_t>(sendcounts[r]), send_type));
    for (int r = 0; r < n; ++r)
        receive_into(c, r, tag, element(recvbuf, static_cast<std::size_t>(rdispls[r]), recv_type),
                     static_cast<std::size_t>(recvcounts[r]), recv_type);
}

void alltoallw(Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
               const MPI_Datatype recvtypes[]) {
    const int n = c.peer_size();
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_array(sendcounts, "sendcounts");
    check_array(sdispls, "sdispls");
    check_array(recvcounts, "recvcounts");
    check_array(rdispls, "rdispls");
    if (sendtypes == nullptr || recvtypes == nullptr) fail(MPI_ERR_ARG, "sendtypes or recvtypes is NULL");
    check_counts(sendcounts, n, "sendcounts");
    check_counts(recvcounts, n, "recvcounts");
    std::vector<const Type*> send_types, recv_types;
    for (int r = 0; r < n; ++r) {
        const std::string which = "[" + std::to_string(r) + "]";
        send_types.push_back(&check_datatype(sendtypes[r], ("sendtypes" + which).c_str()));
        recv_types.push_back(&check_datatype(recvtypes[r], ("recvtypes" + which).c_str()));
        check_buffer(sendbuf, sendcounts[r], *send_types.back(), "sendbuf");
        check_buffer(recvbuf, recvcounts[r], *recv_types.back(), "recvbuf");
    }
    const std::uint32_t tag = collective_tag(c);
    for (int r = 0; r < n; ++r)
        send_bytes(c, r, tag,
                   packed(static_cast<const std::uint8_t*>(sendbuf) + sdispls[r],
                          static_cast<std::size_t>(sendcounts[r]), *send_types[static_cast<std::size_t>(r)]));
    for (int r = 0; r < n; ++r)
        receive_into(c, r, tag, static_cast<std::uint8_t*>(recvbuf) + rdispls[r],
                     static_cast<std::size_t>(recvcounts[r]), *recv_types[static_cast<std::size_t>(r)]);
}

namespace {

/// Reduce_scatter(_block): the remote group's reduction of `total`
/// elements, scattered over the local group by `counts` (elements per
/// local rank). Every member of both groups passes the same total.
void reduce_scatter_counts(Comm& c, const void* sendbuf, void* recvbuf, const std::vector<int>& counts,
                           MPI_Datatype datatype, MPI_Op op, const Type& type) {
    const std::uint32_t tag = collective_tag(c);
    std::vector<int> displs(counts.size(), 0);
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        displs[r] = static_cast<int>(total);
        total += static_cast<std::size_t>(counts[r]);
    }
    if (total == 0) return;
    TypedBuffer result = local_reduce(c, sendbuf, total, datatype, op, type);
    TypedBuffer theirs = c.rank() == 0 ? TypedBuffer(total, type) : TypedBuffer();
    if (c.rank() == 0) {
        const std::vector<std::uint8_t> bytes =
            leaders_swap(c, tag, packed(result.data(), total, type), total * type.size);
        unpack_from(bytes.data(), total, type, theirs.data());
    }
    local_phase(PMPI_Scatterv(theirs.data(), counts.data(), displs.data(), datatype, recvbuf,
                              counts[static_cast<std::size_t>(c.rank())], datatype, 0, c.local));
}

}  // namespace

void reduce_scatter_block(Comm& c, const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                          MPI_Op op) {
    const Reduction reduction = check_reduction(recvcount, datatype, op, "recvcount");
    const std::size_t total = static_cast<std::size_t>(recvcount) * static_cast<std::size_t>(c.size());
    if (total > static_cast<std::size_t>(1) << 30)
        fail(MPI_ERR_COUNT, "recvcount x local group size = " + std::to_string(total) + " elements is too many");
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_buffer(sendbuf, static_cast<int>(total), *reduction.type, "sendbuf");
    check_buffer(recvbuf, recvcount, *reduction.type, "recvbuf");
    refuse_alias(sendbuf, recvbuf, recvcount > 0);
    reduce_scatter_counts(c, sendbuf, recvbuf, std::vector<int>(static_cast<std::size_t>(c.size()), recvcount),
                          datatype, op, *reduction.type);
}

void reduce_scatter(Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                    MPI_Op op) {
    check_array(recvcounts, "recvcounts");
    check_counts(recvcounts, c.size(), "recvcounts");
    const Reduction reduction = check_reduction(recvcounts[c.rank()], datatype, op, "recvcounts[rank]");
    std::size_t total = 0;
    for (int r = 0; r < c.size(); ++r) total += static_cast<std::size_t>(recvcounts[r]);
    if (total > static_cast<std::size_t>(1) << 30)
        fail(MPI_ERR_COUNT, "the recvcounts add up to " + std::to_string(total) + " elements, too many");
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_buffer(sendbuf, static_cast<int>(total), *reduction.type, "sendbuf");
    check_buffer(recvbuf, recvcounts[c.rank()], *reduction.type, "recvbuf");
    refuse_alias(sendbuf, recvbuf, total > 0);
    reduce_scatter_counts(c, sendbuf, recvbuf, std::vector<int>(recvcounts, recvcounts + c.size()), datatype, op,
                          *reduction.type);
}

}  // namespace isvp::mpi::inter
