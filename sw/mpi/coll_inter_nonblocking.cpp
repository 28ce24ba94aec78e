// The nonblocking collectives on inter-communicators (MPI 3.1 §5.12 on
// §5.2.2's semantics), on the round schedule engine (coll_nonblocking.h)
// with the inter-communicator's own tags; ranks in a round name the remote
// group. No local phase (a schedule runs on one communicator), so every
// algorithm talks to the other group directly, in one round:
//   Ibarrier                every rank swaps an empty message with every
//                           remote rank
//   Ibcast, Iscatter(v)     the root sends to every remote rank
//   Igather(v)              every remote rank sends to the root
//   Ireduce                 every remote rank sends to the root, which
//                           folds the contributions in rank order
//   Iallreduce              every rank sends to every remote rank, which
//                           folds them in rank order
//   Ireduce_scatter(_block) every rank sends its whole vector to every
//                           remote rank, which folds its own block
//   Iallgather(v), Ialltoall(v,w)  every rank sends to every remote rank
// The engine delivers a round's messages in the round's order, so the
// folds are in remote-rank order whatever arrived first: the result is
// the same as the blocking forms' (which reduce in rank order too).
#include <memory>
#include <string>
#include <vector>

#include "coll_nonblocking.h"
#include "intercomm.h"
#include "registry.h"

using namespace isvp::mpi::coll;

namespace isvp::mpi::inter {

namespace {

std::shared_ptr<RoundSchedule> new_schedule(MPI_Comm comm) {
    return std::make_shared<RoundSchedule>(communicators().shared(comm));
}

std::shared_ptr<Type> hold_type(const Type& type) {
    return datatypes().shared(type.handle);
}

/// A send of `count` elements of `type` at `buffer`, packed when its round starts.
RoundSend send_of(int peer, const void* buffer, std::size_t count, const std::shared_ptr<Type>& type) {
    return {peer, [buffer, count, type] {
                std::vector<std::uint8_t> bytes(count * type->size);
                if (!bytes.empty()) pack_into(buffer, count, *type, bytes.data());
                return bytes;
            }};
}

/// A receive of `count` elements of `type` into `buffer`.
RoundReceive receive_of(int peer, void* buffer, std::size_t count, const std::shared_ptr<Type>& type) {
    return {peer, count * type->size, true, [buffer, count, type](std::vector<std::uint8_t>& data) {
                if (!data.empty()) unpack_from(data.data(), count, *type, buffer);
            }};
}

/// A reduction's contributions from the remote ranks, in the datatype's layout.
struct Contributions : ReductionState {
    Contributions(const Reduction& checked, std::size_t ranks, std::size_t elements)
        : ReductionState(checked), count(elements) {
        for (std::size_t r = 0; r < ranks; ++r) parts.emplace_back(elements, *type);
    }
    std::size_t count;               ///< elements per contribution
    std::vector<TypedBuffer> parts;  ///< by remote rank
    /// Receives remote rank r's `count` elements into parts[r].
    RoundReceive receive(int r, const std::shared_ptr<Contributions>& self) {
        return {r, count * type->size, true, [self, r](std::vector<std::uint8_t>& data) {
                    if (!data.empty())
                        unpack_from(data.data(), self->count, *self->type,
                                    self->parts[static_cast<std::size_t>(r)].data());
                }};
    }
    /// parts[0] op parts[1] op ... over elements [first, first + n), into `out`.
    void fold(std::size_t first, std::size_t n, void* out) {
        for (std::size_t r = 1; r < parts.size(); ++r)
            reduction.combine(element(parts[r].data(), first, *type), element(parts[0].data(), first, *type), n, false);
        copy_elements(element(parts[0].data(), first, *type), out, n, *type);
    }
};

Reduction checked_reduction(int count, MPI_Datatype datatype, MPI_Op op, const char* count_name = "count") {
    return check_reduction(count, datatype, op, count_name);
}

}  // namespace

void ibarrier(MPI_Comm comm, Comm& c, MPI_Request* request) {
    check_request_pointer(request);
    auto schedule = new_schedule(comm);
    Round& round = schedule->add_round();
    for (int r = 0; r < c.peer_size(); ++r) {
        round.sends.push_back({r, [] { return std::vector<std::uint8_t>(); }});
        round.receives.push_back({r, 0, true, {}});
    }
    start_nonblocking("MPI_Ibarrier", comm, std::move(schedule), request);
}

void ibcast(MPI_Comm comm, Comm& c, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Request* request) {
    const Role role = check_root_of(c, root);
    check_request_pointer(request);
    std::shared_ptr<Type> type;
    if (role != Role::Idle) {
        check_count(count, "count");
        type = hold_type(check_datatype(datatype));
        refuse_in_place(buffer, "buffer", kNoInPlace);
        check_buffer(buffer, count, *type, "buffer");
    }
    auto schedule = new_schedule(comm);
    const auto n = static_cast<std::size_t>(count);
    if (role == Role::Root) {
        Round& round = schedule->add_round();
        for (int r = 0; r < c.peer_size(); ++r) round.sends.push_back(send_of(r, buffer, n, type));
    } else if (role == Role::Remote) {
        schedule->add_round().receives.push_back(receive_of(root, buffer, n, type));
    }
    start_nonblocking("MPI_Ibcast", comm, std::move(schedule), request);
}

void ireduce(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Request* request) {
    const Role role = check_root_of(c, root);
    check_request_pointer(request);
    auto schedule = new_schedule(comm);
    const auto n = static_cast<std::size_t>(count);
    if (role == Role::Remote) {
        check_reduction_buffers(sendbuf, recvbuf, count, datatype, op, true, false);
        const Reduction reduction = checked_reduction(count, datatype, op);
        schedule->add_round().sends.push_back(send_of(root, sendbuf, n, hold_type(*reduction.type)));
    } else if (role == Role::Root) {
        check_reduction_buffers(sendbuf, recvbuf, count, datatype, op, false, true);
        auto parts = std::make_shared<Contributions>(checked_reduction(count, datatype, op),
                                                     static_cast<std::size_t>(c.peer_size()), n);
        schedule->hold(parts);
        Round& round = schedule->add_round();
        for (int r = 0; r < c.peer_size(); ++r) round.receives.push_back(parts->receive(r, parts));
        schedule->add_local([parts, recvbuf, n] { parts->fold(0, n, recvbuf); });
    }
    start_nonblocking("MPI_Ireduce", comm, std::move(schedule), request);
}

void iallreduce(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Request* request) {
    check_reduction_buffers(sendbuf, recvbuf, count, datatype, op, true, true);
    check_request_pointer(request);
    const auto n = static_cast<std::size_t>(count);
    auto parts = std::make_shared<Contributions>(checked_reduction(count, datatype, op),
                                                 static_cast<std::size_t>(c.peer_size()), n);
    auto schedule = new_schedule(comm);
    schedule->hold(parts);
    Round& round = schedule->add_round();
    for (int r = 0; r < c.peer_size(); ++r) {
        round.sends.push_back(send_of(r, sendbuf, n, parts->type));
        round.receives.push_back(parts->receive(r, parts));
    }
    schedule->add_local([parts, recvbuf, n] { parts->fold(0, n, recvbuf); });
    start_nonblocking("MPI_Iallreduce", comm, std::move(schedule), request);
}

namespace {

/// Ireduce_scatter(_block): this rank's block is elements [first, first + own)
/// of the `total` every rank of both groups reduces.
void ireduce_scatter_counts(const char* function, MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf,
                            const Reduction& reduction, std::size_t total, std::size_t first, std::size_t own,
                            MPI_Request* request) {
    auto parts = std::make_shared<Contributions>(reduction, static_cast<std::size_t>(c.peer_size()), total);
    auto schedule = new_schedule(comm);
    schedule->hold(parts);
    Round& round = schedule->add_round();
    for (int r = 0; r < c.peer_size(); ++r) {
        round.sends.push_back(send_of(r, sendbuf, total, parts->type));
        round.receives.push_back(parts->receive(r, parts));
    }
    if (own > 0) schedule->add_local([parts, recvbuf, first, own] { parts->fold(first, own, recvbuf); });
    start_nonblocking(function, comm, std::move(schedule), request);
}

}  // namespace

void ireduce_scatter_block(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, int recvcount,
                           MPI_Datatype datatype, MPI_Op op, MPI_Request* request) {
    const Reduction reduction = checked_reduction(recvcount, datatype, op, "recvcount");
    check_request_pointer(request);
    const std::size_t total = static_cast<std::size_t>(recvcount) * static_cast<std::size_t>(c.size());
    if (total > static_cast<std::size_t>(1) << 30)
        fail(MPI_ERR_COUNT, "recvcount x local group size = " + std::to_string(total) + " elements is too many");
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_buffer(sendbuf, static_cast<int>(total), *reduction.type, "sendbuf");
    check_buffer(recvbuf, recvcount, *reduction.type, "recvbuf");
    refuse_alias(sendbuf, recvbuf, recvcount > 0);
    const auto own = static_cast<std::size_t>(recvcount);
    ireduce_scatter_counts("MPI_Ireduce_scatter_block", comm, c, sendbuf, recvbuf, reduction, total,
                           static_cast<std::size_t>(c.rank()) * own, own, request);
}

void ireduce_scatter(MPI_Comm comm, Comm& c, const void* sendbuf, void* recvbuf, const int recvcounts[],
                     MPI_Datatype datatype, MPI_Op op, MPI_Request* request) {
    check_counts(recvcounts, c.size(), "recvcounts");
    const Reduction reduction = checked_reduction(recvcounts[c.rank()], datatype, op, "recvcounts[rank]");
    check_request_pointer(request);
    std::size_t total = 0, first = 0;
    for (int r = 0; r < c.size(); ++r) {
        if (r == c.rank()) first = total;
        total += static_cast<std::size_t>(recvcounts[r]);
    }
    if (total > static_cast<std::size_t>(1) << 30)
        fail(MPI_ERR_COUNT, "the recvcounts add up to " + std::to_string(total) + " elements, too many");
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_buffer(sendbuf, static_cast<int>(total), *reduction.type, "sendbuf");
    check_buffer(recvbuf, recvcounts[c.rank()], *reduction.type, "recvbuf");
    refuse_alias(sendbuf, recvbuf, total > 0);
    ireduce_scatter_counts("MPI_Ireduce_scatter", comm, c, sendbuf, recvbuf, reduction, total, first,
                           static_cast<std::size_t>(recvcounts[c.rank()]), request);
}

void igatherv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Request* request) {
    const char* function = v ? "MPI_Igatherv" : "MPI_Igather";
    const Role role = check_root_of(c, root);
    check_request_pointer(request);
    auto schedule = new_schedule(comm);
    if (role == Role::Remote) {
        const Type& type = check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
        schedule->add_round().sends.push_back(
            send_of(root, sendbuf, static_cast<std::size_t>(sendcount), hold_type(type)));
    } else if (role == Role::Root) {
        const Type& type =
            v ? check_v_side(recvbuf, recvcounts, displs, "displs", c.peer_size(), recvtype, "recv", kNoInPlace)
              : check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
        const std::shared_ptr<Type> held = hold_type(type);
        Round& round = schedule->add_round();
        for (int r = 0; r < c.peer_size(); ++r) {
            const auto n = static_cast<std::size_t>(v ? recvcounts[r] : recvcount);
            const auto at = v ? static_cast<std::size_t>(displs[r]) : static_cast<std::size_t>(r) * n;
            round.receives.push_back(receive_of(r, element(recvbuf, at, type), n, held));
        }
    }
    start_nonblocking(function, comm, std::move(schedule), request);
}

void iscatterv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, const int* sendcounts, const int* displs,
               int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Request* request) {
    const char* function = v ? "MPI_Iscatterv" : "MPI_Iscatter";
    const Role role = check_root_of(c, root);
    check_request_pointer(request);
    auto schedule = new_schedule(comm);
    if (role == Role::Remote) {
        const Type& type = check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
        schedule->add_round().receives.push_back(
            receive_of(root, recvbuf, static_cast<std::size_t>(recvcount), hold_type(type)));
    } else if (role == Role::Root) {
        const Type& type =
            v ? check_v_side(sendbuf, sendcounts, displs, "displs", c.peer_size(), sendtype, "send", kNoInPlace)
              : check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
        const std::shared_ptr<Type> held = hold_type(type);
        Round& round = schedule->add_round();
        for (int r = 0; r < c.peer_size(); ++r) {
            const auto n = static_cast<std::size_t>(v ? sendcounts[r] : sendcount);
            const auto at = v ? static_cast<std::size_t>(displs[r]) : static_cast<std::size_t>(r) * n;
            round.sends.push_back(send_of(r, element(sendbuf, at, type), n, held));
        }
    }
    start_nonblocking(function, comm, std::move(schedule), request);
}

namespace {

/// One round: to every remote rank r sendcounts[r] x sendtypes[r] at byte
/// sdispls[r] of sendbuf, from it recvcounts[r] x recvtypes[r] at byte
/// rdispls[r] of recvbuf (the arguments checked).
void all_pairs(const char* function, MPI_Comm comm, Comm& c, const void* sendbuf, const int* sendcounts,
               const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
               const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Request* request) {
    check_request_pointer(request);
    auto schedule = new_schedule(comm);
    Round& round = schedule->add_round();
    for (int r = 0; r < c.peer_size(); ++r) {
        const auto i = static_cast<std::size_t>(r);
        round.sends.push_back(send_of(r, static_cast<const std::uint8_t*>(sendbuf) + sdispls[i],
                                      static_cast<std::size_t>(sendcounts[i]),
                                      hold_type(*find_datatype(sendtypes[i]))));
        round.receives.push_back(receive_of(r, static_cast<std::uint8_t*>(recvbuf) + rdispls[i],
                                            static_cast<std::size_t>(recvcounts[i]),
                                            hold_type(*find_datatype(recvtypes[i]))));
    }
    start_nonblocking(function, comm, std::move(schedule), request);
}

}  // namespace

void iallgatherv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype,
                 MPI_Request* request) {
    const int n = c.peer_size();
    const Type& send_type = check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    const Type& recv_type = recvcounts
                                ? check_v_side(recvbuf, recvcounts, displs, "displs", n, recvtype, "recv", kNoInPlace)
                                : check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    const auto peers = static_cast<std::size_t>(n);
    std::vector<int> sends(peers, sendcount), receives(peers, recvcount);
    std::vector<MPI_Aint> sdispls(peers, 0), rdispls(peers);
    for (std::size_t r = 0; r < peers; ++r) {
        if (v) receives[r] = recvcounts[r];
        // The block offset in MPI_Aint: r x count passes INT_MAX with blocks of large counts.
        rdispls[r] = (v ? static_cast<MPI_Aint>(displs[r]) : static_cast<MPI_Aint>(r) * recvcount) * recv_type.extent;
    }
    const std::vector<MPI_Datatype> send_types(peers, send_type.handle), recv_types(peers, recv_type.handle);
    all_pairs(v ? "MPI_Iallgatherv" : "MPI_Iallgather", comm, c, sendbuf, sends.data(), sdispls.data(),
              send_types.data(), recvbuf, receives.data(), rdispls.data(), recv_types.data(), request);
}

void ialltoallv(bool v, MPI_Comm comm, Comm& c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                int recvcount, MPI_Datatype recvtype, MPI_Request* request) {
    const int n = c.peer_size();
    const Type& send_type = v ? check_v_side(sendbuf, sendcounts, sdispls, "sdispls", n, sendtype, "send", kNoInPlace)
                              : check_side(sendbuf, sendcount, sendtype, "send", kNoInPlace);
    const Type& recv_type = v ? check_v_side(recvbuf, recvcounts, rdispls, "rdispls", n, recvtype, "recv", kNoInPlace)
                              : check_side(recvbuf, recvcount, recvtype, "recv", kNoInPlace);
    if (!v) refuse_alias(sendbuf, recvbuf, sendcount > 0 && recvcount > 0);
    const auto peers = static_cast<std::size_t>(n);
    std::vector<int> sends(peers, sendcount), receives(peers, recvcount);
    std::vector<MPI_Aint> sbytes(peers), rbytes(peers);
    for (std::size_t r = 0; r < peers; ++r) {
        if (v) {
            sends[r] = sendcounts[r];
            receives[r] = recvcounts[r];
        }
        // Block offsets in MPI_Aint: r x count passes INT_MAX with blocks of large counts.
        sbytes[r] = (v ? static_cast<MPI_Aint>(sdispls[r]) : static_cast<MPI_Aint>(r) * sendcount) * send_type.extent;
        rbytes[r] = (v ? static_cast<MPI_Aint>(rdispls[r]) : static_cast<MPI_Aint>(r) * recvcount) * recv_type.extent;
    }
    const std::vector<MPI_Datatype> send_types(peers, send_type.handle), recv_types(peers, recv_type.handle);
    all_pairs(v ? "MPI_Ialltoallv" : "MPI_Ialltoall", comm, c, sendbuf, sends.data(), sbytes.data(), send_types.data(),
              recvbuf, receives.data(), rbytes.data(), recv_types.data(), request);
}

void ialltoallw(MPI_Comm comm, Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                const MPI_Datatype recvtypes[], MPI_Request* request) {
    const int n = c.peer_size();
    refuse_in_place(sendbuf, "sendbuf", kNoInPlace);
    refuse_in_place(recvbuf, "recvbuf", kNoInPlace);
    check_counts(sendcounts, n, "sendcounts");
    check_array(sdispls, "sdispls");
    check_counts(recvcounts, n, "recvcounts");
    check_array(rdispls, "rdispls");
    if (sendtypes == nullptr || recvtypes == nullptr) fail(MPI_ERR_ARG, "sendtypes or recvtypes is NULL");
    for (int r = 0; r < n; ++r) {
        const std::string which = "[" + std::to_string(r) + "]";
        check_buffer(sendbuf, sendcounts[r], check_datatype(sendtypes[r], ("sendtypes" + which).c_str()), "sendbuf");
        check_buffer(recvbuf, recvcounts[r], check_datatype(recvtypes[r], ("recvtypes" + which).c_str()), "recvbuf");
    }
    const std::vector<MPI_Aint> sbytes(sdispls, sdispls + n), rbytes(rdispls, rdispls + n);
    all_pairs("MPI_Ialltoallw", comm, c, sendbuf, sendcounts, sbytes.data(), sendtypes, recvbuf, recvcounts,
              rbytes.data(), recvtypes, request);
}

}  // namespace isvp::mpi::inter
