// The neighbourhood collectives (MPI 3.1 §7.6-7.7): MPI_Neighbor_allgather(v),
// MPI_Neighbor_alltoall(v,w) and their nonblocking forms MPI_Ineighbor_*, on
// Cartesian, graph and distributed graph communicators (topology.h says who
// a rank's neighbours are and in which order).
//
// Always in software: the switch's collectives span the whole communicator.
// Every edge is one internal point-to-point message on the call's
// collective tag, a zero-length one too, so the messages between two ranks
// pair up by their order alone: a rank sends its blocks in destination
// order (eager: no send waits), then takes its receives in the order that
// matches — source order on graphs (the k-th message between two ranks
// fills the k-th slot), and on a Cartesian topology slot s ^ 1 for the
// sender's block s (block s of a sender lands in block s ^ 1 of its
// receiver, which matters where a periodic dimension has extent 1 or 2).
// MPI_PROC_NULL neighbours send nothing and leave their receive block
// untouched. The blocking forms send and receive with send_internal /
// receive_internal; the nonblocking ones make the same messages one round
// of the schedule engine (coll_nonblocking.h). Data travels packed: a rank
// packs with the send datatype and unpacks with the receive datatype.
// MPI_IN_PLACE is not allowed (MPI 3.1 §7.6).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll_nonblocking.h"
#include "registry.h"
#include "topology.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;

namespace {

constexpr const char* kNoInPlace = "in a neighbourhood collective (MPI 3.1 §7.6)";

/// One call's messages: the packed block for each destination slot, the
/// bytes expected in each source slot and how they are unpacked there.
struct Exchange {
    Neighbors neighbors;
    std::vector<std::vector<std::uint8_t>> outgoing;  ///< per destination slot
    std::vector<std::size_t> capacity;                ///< per source slot (bytes, at most)
    std::function<void(std::size_t slot, const std::uint8_t* data, std::size_t bytes)> deliver;
};

/// The order in which the source slots take their messages (see the top).
std::vector<std::size_t> receive_order(const Neighbors& neighbors) {
    std::vector<std::size_t> order(neighbors.sources.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = neighbors.cartesian ? i ^ 1u : i;
    return order;
}

/// The checked datatype of one side; `used` false (no neighbours on that
/// side) skips the buffer check.
const Type& check_side_of(const void* buffer, int count, MPI_Datatype datatype, const char* side, bool used) {
    const std::string prefix = side;
    check_count(count, (prefix + "count").c_str());
    const Type& type = check_datatype(datatype, (prefix + "type").c_str());
    refuse_in_place(buffer, (prefix + "buf").c_str(), kNoInPlace);
    if (used) check_buffer(buffer, count, type, (prefix + "buf").c_str());
    return type;
}

/// The checked datatype of a v-side of `n` neighbours (counts and displacements read only when n > 0).
const Type& check_v_side_of(const void* buffer, const int* counts, const void* displs, const char* displs_name, int n,
                            MPI_Datatype datatype, const char* side) {
    const std::string prefix = side;
    const Type& type = check_datatype(datatype, (prefix + "type").c_str());
    refuse_in_place(buffer, (prefix + "buf").c_str(), kNoInPlace);
    if (n == 0) return type;
    check_counts(counts, n, (prefix + "counts").c_str());
    if (displs == nullptr) fail(MPI_ERR_ARG, std::string(displs_name) + " is NULL");
    for (int i = 0; i < n; ++i) check_buffer(buffer, counts[i], type, (prefix + "buf").c_str());
    return type;
}

std::shared_ptr<Type> hold(const Type& type) {
    return datatypes().shared(type.handle);
}

std::vector<std::uint8_t> packed(const void* buffer, std::size_t count, const Type& type) {
    std::vector<std::uint8_t> out(count * type.size);
    pack_into(buffer, count, type, out.data());
    return out;
}

int degree(const std::vector<int>& ranks) {
    return static_cast<int>(ranks.size());
}

// ---- the two executors ------------------------------------------------------------

void run_blocking(Comm& comm, Exchange& exchange) {
    const Neighbors& n = exchange.neighbors;
    const std::uint32_t tag = collective_tag(comm);
    for (std::size_t j = 0; j < n.destinations.size(); ++j)
        if (n.destinations[j] != MPI_PROC_NULL)
            send_internal(comm, n.destinations[j], tag, exchange.outgoing[j].data(), exchange.outgoing[j].size());
    std::vector<std::uint8_t> in;
    for (std::size_t slot : receive_order(n)) {
        if (n.sources[slot] == MPI_PROC_NULL) continue;
        in.resize(exchange.capacity[slot]);
        const std::size_t got = receive_internal(comm, n.sources[slot], tag, in.data(), in.size());
        exchange.deliver(slot, in.data(), got);
    }
}

void start(const char* function, MPI_Comm comm, std::shared_ptr<Exchange> exchange, MPI_Request* request) {
    auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm));
    const Neighbors& n = exchange->neighbors;
    Round& round = schedule->add_round();
    for (std::size_t j = 0; j < n.destinations.size(); ++j)
        if (n.destinations[j] != MPI_PROC_NULL)
            round.sends.push_back({n.destinations[j], [exchange, j] { return exchange->outgoing[j]; }});
    for (std::size_t slot : receive_order(n))
        if (n.sources[slot] != MPI_PROC_NULL)
            round.receives.push_back(
                {n.sources[slot], exchange->capacity[slot], false, [exchange, slot](std::vector<std::uint8_t>& data) {
                     exchange->deliver(slot, data.data(), data.size());
                 }});
    start_nonblocking(function, comm, std::move(schedule), request);
}

// ---- each collective's exchange ---------------------------------------------------------

std::shared_ptr<Exchange> allgather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype) {
    auto x = std::make_shared<Exchange>();
    x->neighbors = topology_neighbors(c);
    const Neighbors& n = x->neighbors;
    const Type& stype = check_side_of(sendbuf, sendcount, sendtype, "send", !n.destinations.empty());
    const Type& rtype = check_side_of(recvbuf, recvcount, recvtype, "recv", !n.sources.empty());
    const auto scount = static_cast<std::size_t>(sendcount), rcount = static_cast<std::size_t>(recvcount);
    x->outgoing.assign(n.destinations.size(), packed(sendbuf, scount, stype));
    x->capacity.assign(n.sources.size(), rcount * rtype.size);
    x->deliver = [type = hold(rtype), recvbuf, rcount](std::size_t slot, const std::uint8_t* data, std::size_t bytes) {
        unpack(data, bytes, rcount, *type, element(recvbuf, slot * rcount, *type));
    };
    return x;
}

std::shared_ptr<Exchange> allgatherv(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     const int recvcounts[], const int displs[], MPI_Datatype recvtype) {
    auto x = std::make_shared<Exchange>();
    x->neighbors = topology_neighbors(c);
    const Neighbors& n = x->neighbors;
    const Type& stype = check_side_of(sendbuf, sendcount, sendtype, "send", !n.destinations.empty());
    const int in = degree(n.sources);
    const Type& rtype = check_v_side_of(recvbuf, recvcounts, displs, "displs", in, recvtype, "recv");
    x->outgoing.assign(n.destinations.size(), packed(sendbuf, static_cast<std::size_t>(sendcount), stype));
    std::vector<int> counts(recvcounts, recvcounts + in), at(displs, displs + in);
    for (int count : counts) x->capacity.push_back(bytes_of(count, rtype));
    x->deliver = [type = hold(rtype), recvbuf, counts, at](std::size_t slot, const std::uint8_t* data,
                                                           std::size_t bytes) {
        unpack(data, bytes, static_cast<std::size_t>(counts[slot]), *type,
               element(recvbuf, static_cast<std::size_t>(at[slot]), *type));
    };
    return x;
}

std::shared_ptr<Exchange> alltoall(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype) {
    auto x = std::make_shared<Exchange>();
    x->neighbors = topology_neighbors(c);
    const Neighbors& n = x->neighbors;
    const Type& stype = check_side_of(sendbuf, sendcount, sendtype, "send", !n.destinations.empty());
    const Type& rtype = check_side_of(recvbuf, recvcount, recvtype, "recv", !n.sources.empty());
    const auto scount = static_cast<std::size_t>(sendcount), rcount = static_cast<std::size_t>(recvcount);
    for (std::size_t j = 0; j < n.destinations.size(); ++j)
        x->outgoing.push_back(packed(element(sendbuf, j * scount, stype), scount, stype));
    x->capacity.assign(n.sources.size(), rcount * rtype.size);
    x->deliver = [type = hold(rtype), recvbuf, rcount](std::size_t slot, const std::uint8_t* data, std::size_t bytes) {
        unpack(data, bytes, rcount, *type, element(recvbuf, slot * rcount, *type));
    };
    return x;
}

std::shared_ptr<Exchange> alltoallv(Comm& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
                                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype) {
    auto x = std::make_shared<Exchange>();
    x->neighbors = topology_neighbors(c);
    const Neighbors& n = x->neighbors;
    const int out = degree(n.destinations), in = degree(n.sources);
    const Type& stype = check_v_side_of(sendbuf, sendcounts, sdispls, "sdispls", out, sendtype, "send");
    const Type& rtype = check_v_side_of(recvbuf, recvcounts, rdispls, "rdispls", in, recvtype, "recv");
    for (int j = 0; j < out; ++j)
        x->outgoing.push_back(packed(element(sendbuf, static_cast<std::size_t>(sdispls[j]), stype),
                                     static_cast<std::size_t>(sendcounts[j]), stype));
    std::vector<int> counts(recvcounts, recvcounts + in), at(rdispls, rdispls + in);
    for (int count : counts) x->capacity.push_back(bytes_of(count, rtype));
    x->deliver = [type = hold(rtype), recvbuf, counts, at](std::size_t slot, const std::uint8_t* data,
                                                           std::size_t bytes) {
        unpack(data, bytes, static_cast<std::size_t>(counts[slot]), *type,
               element(recvbuf, static_cast<std::size_t>(at[slot]), *type));
    };
    return x;
}

/// The datatypes of a w-side: one per neighbour, checked and held.
std::vector<std::shared_ptr<Type>> check_w_side(const void* buffer, const int* counts, const MPI_Aint* displs,
                                                const MPI_Datatype* types, int n, const char* side) {
    const std::string prefix = side;
    refuse_in_place(buffer, (prefix + "buf").c_str(), kNoInPlace);
    std::vector<std::shared_ptr<Type>> held;
    if (n == 0) return held;
    check_counts(counts, n, (prefix + "counts").c_str());
    if (displs == nullptr) fail(MPI_ERR_ARG, std::string(1, side[0]) + "displs is NULL");
    if (types == nullptr) fail(MPI_ERR_ARG, prefix + "types is NULL");
    for (int i = 0; i < n; ++i) {
        const std::string name = prefix + "types[" + std::to_string(i) + "]";
        const Type& type = check_datatype(types[i], name.c_str());
        check_buffer(buffer, counts[i], type, (prefix + "buf").c_str());
        held.push_back(hold(type));
    }
    return held;
}

std::shared_ptr<Exchange> alltoallw(Comm& c, const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[]) {
    auto x = std::make_shared<Exchange>();
    x->neighbors = topology_neighbors(c);
    const Neighbors& n = x->neighbors;
    const int out = degree(n.destinations), in = degree(n.sources);
    const auto send_types = check_w_side(sendbuf, sendcounts, sdispls, sendtypes, out, "send");
    const auto recv_types = check_w_side(recvbuf, recvcounts, rdispls, recvtypes, in, "recv");
    // Displacements are in bytes (MPI 3.1 §7.6.2).
    for (int j = 0; j < out; ++j)
        x->outgoing.push_back(packed(static_cast<const std::uint8_t*>(sendbuf) + sdispls[j],
                                     static_cast<std::size_t>(sendcounts[j]),
                                     *send_types[static_cast<std::size_t>(j)]));
    for (int i = 0; i < in; ++i)
        x->capacity.push_back(bytes_of(recvcounts[i], *recv_types[static_cast<std::size_t>(i)]));
    std::vector<int> counts(recvcounts, recvcounts + in);
    std::vector<MPI_Aint> at(rdispls, rdispls + in);
    x->deliver = [recv_types, recvbuf, counts, at](std::size_t slot, const std::uint8_t* data, std::size_t bytes) {
        unpack(data, bytes, static_cast<std::size_t>(counts[slot]), *recv_types[slot],
               static_cast<std::uint8_t*>(recvbuf) + at[slot]);
    };
    return x;
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_allgather", comm, [&] {
        Comm& c = check_comm(comm);
        run_blocking(c, *allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    });
}

int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_allgatherv", comm, [&] {
        Comm& c = check_comm(comm);
        run_blocking(c, *allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype));
    });
}

int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Neighbor_alltoall", comm, [&] {
        Comm& c = check_comm(comm);
        run_blocking(c, *alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
    });
}

int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
    return entry("MPI_Neighbor_alltoallv", comm, [&] {
        Comm& c = check_comm(comm);
        run_blocking(c, *alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype));
    });
}

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return entry("MPI_Neighbor_alltoallw", comm, [&] {
        Comm& c = check_comm(comm);
        run_blocking(c,
                     *alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes));
    });
}

int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ineighbor_allgather", comm, [&] {
        Comm& c = check_comm(comm);
        auto x = allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        check_request_pointer(request);
        start("MPI_Ineighbor_allgather", comm, std::move(x), request);
    });
}

int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
    return entry("MPI_Ineighbor_allgatherv", comm, [&] {
        Comm& c = check_comm(comm);
        auto x = allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
        check_request_pointer(request);
        start("MPI_Ineighbor_allgatherv", comm, std::move(x), request);
    });
}

int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ineighbor_alltoall", comm, [&] {
        Comm& c = check_comm(comm);
        auto x = alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        check_request_pointer(request);
        start("MPI_Ineighbor_alltoall", comm, std::move(x), request);
    });
}

int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ineighbor_alltoallv", comm, [&] {
        Comm& c = check_comm(comm);
        auto x = alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
        check_request_pointer(request);
        start("MPI_Ineighbor_alltoallv", comm, std::move(x), request);
    });
}

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request* request) {
    return entry("MPI_Ineighbor_alltoallw", comm, [&] {
        Comm& c = check_comm(comm);
        auto x = alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
        check_request_pointer(request);
        start("MPI_Ineighbor_alltoallw", comm, std::move(x), request);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Neighbor_allgather)
ISVP_MPI_ALIAS(Neighbor_allgatherv)
ISVP_MPI_ALIAS(Neighbor_alltoall)
ISVP_MPI_ALIAS(Neighbor_alltoallv)
ISVP_MPI_ALIAS(Neighbor_alltoallw)
ISVP_MPI_ALIAS(Ineighbor_allgather)
ISVP_MPI_ALIAS(Ineighbor_allgatherv)
ISVP_MPI_ALIAS(Ineighbor_alltoall)
ISVP_MPI_ALIAS(Ineighbor_alltoallv)
ISVP_MPI_ALIAS(Ineighbor_alltoallw)
