// Argument checks shared by each blocking collective and its nonblocking
// form (coll_util.h).
#include <algorithm>
#include <string>

#include "coll_util.h"

namespace isvp::mpi::coll {

const Type& check_bcast(const Comm& comm, const void* buffer, int count, MPI_Datatype datatype, int root,
                        const char* function) {
    check_count(count, "count");
    const Type& type = check_datatype(datatype);
    check_root(comm, root);
    refuse_in_place(buffer, "buffer", (std::string("in ") + function).c_str());
    check_buffer(buffer, count, type, "buffer");
    return type;
}

Reduction check_reduction(int count, MPI_Datatype datatype, MPI_Op op, const char* count_name) {
    check_count(count, count_name);
    Reduction reduction;
    reduction.type = &check_datatype(datatype);
    reduction.op = &check_op(op);
    check_op_on_type(*reduction.op, *reduction.type);
    return reduction;
}

void check_reduce_buffers(const Comm& comm, const void* sendbuf, const void* recvbuf, int count, const Type& type,
                          int root, const char* function) {
    const std::string name = function;
    if (comm.rank() == root) {
        refuse_in_place(recvbuf, "recvbuf", ("in " + name + " (the root's sendbuf may be)").c_str());
        check_buffer(recvbuf, count, type, "recvbuf");
        refuse_alias(sendbuf, recvbuf, count > 0);
    } else {
        refuse_in_place(sendbuf, "sendbuf", ("at a non-root rank of " + name).c_str());
    }
    if (!in_place(sendbuf)) check_buffer(sendbuf, count, type, "sendbuf");
}

void check_result_buffers(const void* sendbuf, const void* recvbuf, int count, const Type& type, const char* function,
                          bool recv_significant) {
    refuse_in_place(recvbuf, "recvbuf", (std::string("in ") + function + " (sendbuf may be)").c_str());
    if (recv_significant) check_buffer(recvbuf, count, type, "recvbuf");
    if (!in_place(sendbuf)) check_buffer(sendbuf, count, type, "sendbuf");
    refuse_alias(sendbuf, recvbuf, count > 0);
}

Reduction check_reduce_scatter(const Comm& comm, const void* sendbuf, const void* recvbuf, const int* recvcounts,
                               MPI_Datatype datatype, MPI_Op op, const char* function,
                               std::vector<std::size_t>& first) {
    check_counts(recvcounts, comm.size(), "recvcounts");
    const Reduction reduction = check_reduction(recvcounts[comm.rank()], datatype, op, "recvcounts[rank]");
    const Type& type = *reduction.type;
    first = boundaries(recvcounts, comm.size());
    const int total = static_cast<int>(std::min<std::size_t>(first.back(), 1u << 30));
    refuse_in_place(recvbuf, "recvbuf", (std::string("in ") + function + " (sendbuf may be)").c_str());
    check_buffer(recvbuf, in_place(sendbuf) ? total : recvcounts[comm.rank()], type, "recvbuf");
    if (!in_place(sendbuf)) check_buffer(sendbuf, total, type, "sendbuf");
    refuse_alias(sendbuf, recvbuf, total > 0);
    return reduction;
}

void check_block(std::size_t sent, std::size_t block, const char* send_what, const char* recv_what) {
    if (sent > block)
        fail(MPI_ERR_TRUNCATE, std::string(send_what) + " holds " + std::to_string(sent) + " bytes but " + recv_what +
                                   " only " + std::to_string(block));
}

void check_whole_block(std::size_t sent, std::size_t block, const char* send_what, const char* recv_what) {
    check_block(sent, block, send_what, recv_what);
    if (sent < block)
        fail(MPI_ERR_TRUNCATE, std::string(send_what) + " holds " + std::to_string(sent) + " bytes but " + recv_what +
                                   " " + std::to_string(block) + " (sendcount x sendtype must equal it)");
}

namespace {

std::string rule(const char* before, const char* function, const char* after = "") {
    return std::string(before) + function + after;
}

}  // namespace

MoveArguments check_scatter(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, const char* function) {
    check_root(comm, root);
    const bool is_root = comm.rank() == root;
    MoveArguments args;
    if (is_root)
        args.send_type = &check_side(sendbuf, sendcount, sendtype, "send",
                                     rule("in ", function, " (the root's recvbuf may be)").c_str());
    args.keep = is_root && in_place(recvbuf);  // the root's block stays in sendbuf
    if (!args.keep)
        args.recv_type =
            &check_side(recvbuf, recvcount, recvtype, "recv", rule("at a non-root rank of ", function).c_str());
    args.block = is_root ? bytes_of(sendcount, *args.send_type) : bytes_of(recvcount, *args.recv_type);
    if (args.recv_type) check_block(args.block, bytes_of(recvcount, *args.recv_type), "a block of sendbuf", "recvbuf");
    return args;
}

MoveArguments check_gather(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, const char* function) {
    check_root(comm, root);
    const bool is_root = comm.rank() == root;
    MoveArguments args;
    args.keep = is_root && in_place(sendbuf);  // the root's block is already in recvbuf
    if (!args.keep)
        args.send_type =
            &check_side(sendbuf, sendcount, sendtype, "send", rule("at a non-root rank of ", function).c_str());
    if (is_root) {
        args.recv_type = &check_side(recvbuf, recvcount, recvtype, "recv",
                                     rule("in ", function, " (the root's sendbuf may be)").c_str());
        if (!args.keep) refuse_alias(sendbuf, recvbuf, sendcount > 0 && recvcount > 0);
    }
    args.block = is_root ? bytes_of(recvcount, *args.recv_type) : bytes_of(sendcount, *args.send_type);
    if (args.send_type) check_block(bytes_of(sendcount, *args.send_type), args.block, "sendbuf", "a block of recvbuf");
    return args;
}

namespace {
/// Both sides of a collective where every rank receives whole blocks of
/// `recvcount` x `recvtype` and may pass MPI_IN_PLACE as sendbuf.
MoveArguments check_every_rank_receives(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, const char* function) {
    MoveArguments args;
    args.keep = in_place(sendbuf);
    if (!args.keep) args.send_type = &check_side(sendbuf, sendcount, sendtype, "send", nullptr);
    args.recv_type =
        &check_side(recvbuf, recvcount, recvtype, "recv", rule("in ", function, " (sendbuf may be)").c_str());
    if (!args.keep) refuse_alias(sendbuf, recvbuf, sendcount > 0 && recvcount > 0);
    args.block = bytes_of(recvcount, *args.recv_type);
    return args;
}
}  // namespace

MoveArguments check_allgather(const Comm&, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              const void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* function) {
    MoveArguments args =
        check_every_rank_receives(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, function);
    if (args.send_type)
        check_whole_block(bytes_of(sendcount, *args.send_type), args.block, "sendbuf", "a block of recvbuf");
    return args;
}

MoveArguments check_scatterv(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* displs,
                             MPI_Datatype sendtype, const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             const char* function) {
    check_root(comm, root);
    const bool is_root = comm.rank() == root;
    MoveArguments args;
    if (is_root)
        args.send_type = &check_v_side(sendbuf, sendcounts, displs, "displs", comm.size(), sendtype, "send",
                                       rule("in ", function, " (the root's recvbuf may be)").c_str());
    args.keep = is_root && in_place(recvbuf);
    if (!args.keep)
        args.recv_type =
            &check_side(recvbuf, recvcount, recvtype, "recv", rule("at a non-root rank of ", function).c_str());
    return args;
}

MoveArguments check_gatherv(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            const void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                            int root, const char* function) {
    check_root(comm, root);
    const bool is_root = comm.rank() == root;
    MoveArguments args;
    args.keep = is_root && in_place(sendbuf);
    if (!args.keep)
        args.send_type =
            &check_side(sendbuf, sendcount, sendtype, "send", rule("at a non-root rank of ", function).c_str());
    if (is_root)
        args.recv_type = &check_v_side(recvbuf, recvcounts, displs, "displs", comm.size(), recvtype, "recv",
                                       rule("in ", function, " (the root's sendbuf may be)").c_str());
    return args;
}

MoveArguments check_allgatherv(const Comm& comm, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               const void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                               const char* function, std::vector<std::size_t>& first) {
    MoveArguments args;
    args.keep = in_place(sendbuf);
    if (!args.keep) args.send_type = &check_side(sendbuf, sendcount, sendtype, "send", nullptr);
    args.recv_type = &check_v_side(recvbuf, recvcounts, displs, "displs", comm.size(), recvtype, "recv",
                                   rule("in ", function, " (sendbuf may be)").c_str());
    const auto me = static_cast<std::size_t>(comm.rank());
    first = boundaries(recvcounts, comm.size(), args.recv_type->size);
    const std::size_t own = first[me + 1] - first[me];
    if (args.send_type)
        check_whole_block(bytes_of(sendcount, *args.send_type), own, "sendbuf", "this rank's block of recvbuf");
    return args;
}

MoveArguments check_alltoall(const Comm&, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             const void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* function) {
    MoveArguments args =
        check_every_rank_receives(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, function);
    if (args.send_type && bytes_of(sendcount, *args.send_type) != args.block)
        fail(MPI_ERR_TRUNCATE, "sendcount x sendtype (" + std::to_string(bytes_of(sendcount, *args.send_type)) +
                                   " bytes) differs from recvcount x recvtype (" + std::to_string(args.block) +
                                   " bytes)");
    return args;
}

MoveArguments check_alltoallv(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* sdispls,
                              MPI_Datatype sendtype, const void* recvbuf, const int* recvcounts, const int* rdispls,
                              MPI_Datatype recvtype, const char* function) {
    const int size = comm.size();
    MoveArguments args;
    args.keep = in_place(sendbuf);
    if (!args.keep)
        args.send_type = &check_v_side(sendbuf, sendcounts, sdispls, "sdispls", size, sendtype, "send", nullptr);
    args.recv_type = &check_v_side(recvbuf, recvcounts, rdispls, "rdispls", size, recvtype, "recv",
                                   rule("in ", function, " (sendbuf may be)").c_str());
    if (!args.keep) {
        bool any = false;
        for (int r = 0; r < size; ++r) any = any || (sendcounts[r] > 0 && recvcounts[r] > 0);
        refuse_alias(sendbuf, recvbuf, any);
    }
    const auto own = static_cast<std::size_t>(comm.rank());
    const std::size_t outgoing =
        bytes_of(args.keep ? recvcounts[own] : sendcounts[own], args.keep ? *args.recv_type : *args.send_type);
    const std::size_t incoming = bytes_of(recvcounts[own], *args.recv_type);
    if (outgoing > incoming)
        fail(MPI_ERR_TRUNCATE, "this rank's block to itself holds " + std::to_string(outgoing) +
                                   " bytes but recvcounts[" + std::to_string(own) + "] only " +
                                   std::to_string(incoming));
    return args;
}

namespace {

/// One side of Alltoallw: counts, displacements, a datatype per peer, the buffer.
std::vector<const Type*> check_w_side(const void* buffer, const int* counts, const int* displs,
                                      const MPI_Datatype* types, int n, const char* side, const char* in_place_rule) {
    const std::string prefix = side;
    check_counts(counts, n, (prefix + "counts").c_str());
    check_array(displs, (prefix[0] + std::string("displs")).c_str());
    if (types == nullptr) fail(MPI_ERR_ARG, prefix + "types is NULL");
    refuse_in_place(buffer, (prefix + "buf").c_str(), in_place_rule);
    std::vector<const Type*> checked(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
        const std::string name = prefix + "types[" + std::to_string(r) + "]";
        checked[static_cast<std::size_t>(r)] = &check_datatype(types[r], name.c_str());
        check_buffer(buffer, counts[r], *checked[static_cast<std::size_t>(r)], (prefix + "buf").c_str());
    }
    return checked;
}

}  // namespace

AlltoallwArguments check_alltoallw(const Comm& comm, const void* sendbuf, const int* sendcounts, const int* sdispls,
                                   const MPI_Datatype* sendtypes, const void* recvbuf, const int* recvcounts,
                                   const int* rdispls, const MPI_Datatype* recvtypes, const char* function) {
    const int size = comm.size();
    AlltoallwArguments args;
    args.keep = in_place(sendbuf);
    if (!args.keep) args.send_types = check_w_side(sendbuf, sendcounts, sdispls, sendtypes, size, "send", nullptr);
    args.recv_types = check_w_side(recvbuf, recvcounts, rdispls, recvtypes, size, "recv",
                                   rule("in ", function, " (sendbuf may be)").c_str());
    if (!args.keep) {
        bool any = false;
        for (int r = 0; r < size; ++r) any = any || (sendcounts[r] > 0 && recvcounts[r] > 0);
        refuse_alias(sendbuf, recvbuf, any);
    }
    const auto own = static_cast<std::size_t>(comm.rank());
    const std::size_t incoming = bytes_of(recvcounts[own], *args.recv_types[own]);
    const std::size_t outgoing = args.keep ? incoming : bytes_of(sendcounts[own], *args.send_types[own]);
    if (outgoing > incoming)
        fail(MPI_ERR_TRUNCATE, "this rank's block to itself holds " + std::to_string(outgoing) +
                                   " bytes but recvcounts[" + std::to_string(own) + "] x recvtypes[" +
                                   std::to_string(own) + "] only " + std::to_string(incoming));
    return args;
}

}  // namespace isvp::mpi::coll
