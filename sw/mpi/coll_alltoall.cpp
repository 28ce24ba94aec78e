// MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw. MPI_Alltoall goes to the
// switch's Alltoall (any communicator size; docs/FUSED.md) when the blocks
// fit the same rule as the other offloaded collectives (offload_bytes), the
// blocks packed as bytes, so any datatype and MPI_IN_PLACE offload. The rest,
// and MPI_Alltoall that does not offload: MPICH's pairwise exchange: in step k = 1 .. size-1 a rank
// sends its block for (rank + k) mod size and receives from (rank - k) mod
// size. Sends are buffered by the driver, so each step's send never waits
// for the matching receive. With MPI_IN_PLACE the data is taken from
// recvbuf, packed before anything arrives.
#include <string>
#include <vector>

#include "coll_util.h"
#include "intercomm.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Opcode;

namespace {

/// One all-to-all: where each peer's outgoing and incoming data lie.
struct Exchange {
    std::vector<std::vector<std::uint8_t>> outgoing;  ///< packed block per destination
    std::vector<std::size_t> incoming;                ///< capacity (bytes) per source
};

/// Runs the pairwise exchange; `deliver(source, data, bytes)` places a block
/// (its own block too, without a message).
template <class Deliver>
void pairwise_exchange(Comm& c, const Exchange& exchange, Deliver&& deliver) {
    const int size = c.size(), me = c.rank();
    const std::uint32_t tag = collective_tag(c);
    const auto mine = static_cast<std::size_t>(me);
    deliver(me, exchange.outgoing[mine].data(), exchange.outgoing[mine].size());
    std::vector<std::uint8_t> in;
    for (int k = 1; k < size; ++k) {
        const int to = (me + k) % size, from = (me - k + size) % size;
        const auto& out = exchange.outgoing[static_cast<std::size_t>(to)];
        if (!out.empty()) send_internal(c, to, tag, out.data(), out.size());
        const std::size_t capacity = exchange.incoming[static_cast<std::size_t>(from)];
        if (capacity == 0) continue;
        in.resize(capacity);
        const std::size_t got = receive_internal(c, from, tag, in.data(), capacity);
        deliver(from, in.data(), got);
    }
}

}  // namespace

extern "C" {

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Alltoall", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        const MoveArguments args =
            check_alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Alltoall");
        const bool keep = args.keep;
        const Type* stype = args.send_type;
        const Type& rtype = *args.recv_type;
        const auto size = static_cast<std::size_t>(c.size());
        const auto rcount = static_cast<std::size_t>(recvcount);
        const std::size_t block = args.block;
        if (block == 0) return;
        if (offload_bytes(c, Opcode::Alltoall, block)) {
            // Packed before anything arrives (MPI_IN_PLACE: from recvbuf).
            std::vector<std::uint8_t> packed(size * block), result(size * block);
            for (std::size_t r = 0; r < size; ++r) {
                if (keep)
                    pack_into(element(recvbuf, r * rcount, rtype), rcount, rtype, packed.data() + r * block);
                else
                    pack_into(element(sendbuf, r * static_cast<std::size_t>(sendcount), *stype),
                              static_cast<std::size_t>(sendcount), *stype, packed.data() + r * block);
            }
            collectives().alltoall(c.guest, packed.data(), result.data(), block, isvp::Datatype::UInt8);
            for (std::size_t r = 0; r < size; ++r)
                unpack(result.data() + r * block, block, rcount, rtype, element(recvbuf, r * rcount, rtype));
            return;
        }
        Exchange exchange;
        exchange.outgoing.resize(size);
        exchange.incoming.assign(size, block);
        for (std::size_t r = 0; r < size; ++r) {
            exchange.outgoing[r].resize(block);
            if (keep)
                pack_into(element(recvbuf, r * rcount, rtype), rcount, rtype, exchange.outgoing[r].data());
            else
                pack_into(element(sendbuf, r * static_cast<std::size_t>(sendcount), *stype),
                          static_cast<std::size_t>(sendcount), *stype, exchange.outgoing[r].data());
        }
        pairwise_exchange(c, exchange, [&](int source, const std::uint8_t* data, std::size_t bytes) {
            unpack(data, bytes, rcount, rtype, element(recvbuf, static_cast<std::size_t>(source) * rcount, rtype));
        });
    });
}

int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Alltoallv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
        const int size = c.size();
        const MoveArguments args = check_alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                   rdispls, recvtype, "MPI_Alltoallv");
        const bool keep = args.keep;
        const Type* stype = args.send_type;
        const Type& rtype = *args.recv_type;
        Exchange exchange;
        exchange.outgoing.resize(static_cast<std::size_t>(size));
        exchange.incoming.resize(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r) {
            const auto index = static_cast<std::size_t>(r);
            exchange.incoming[index] = static_cast<std::size_t>(recvcounts[r]) * rtype.size;
            const void* from = keep ? element(recvbuf, static_cast<std::size_t>(rdispls[r]), rtype)
                                    : element(sendbuf, static_cast<std::size_t>(sdispls[r]), *stype);
            const auto count = static_cast<std::size_t>(keep ? recvcounts[r] : sendcounts[r]);
            const Type& type = keep ? rtype : *stype;
            exchange.outgoing[index].resize(count * type.size);
            pack_into(from, count, type, exchange.outgoing[index].data());
        }
        pairwise_exchange(c, exchange, [&](int source, const std::uint8_t* data, std::size_t bytes) {
            const auto r = static_cast<std::size_t>(source);
            unpack(data, bytes, static_cast<std::size_t>(recvcounts[r]), rtype,
                   element(recvbuf, static_cast<std::size_t>(rdispls[r]), rtype));
        });
    });
}

int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm) {
    return entry("MPI_Alltoallw", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                    recvtypes);
        const int size = c.size();
        const AlltoallwArguments args = check_alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                        rdispls, recvtypes, "MPI_Alltoallw");
        // Displacements are in bytes (MPI 3.1 §5.8).
        const auto at = [](const void* buffer, int displacement) {
            return static_cast<const std::uint8_t*>(buffer) + displacement;
        };
        Exchange exchange;
        exchange.outgoing.resize(static_cast<std::size_t>(size));
        exchange.incoming.resize(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r) {
            const auto index = static_cast<std::size_t>(r);
            const Type& rtype = *args.recv_types[index];
            exchange.incoming[index] = bytes_of(recvcounts[r], rtype);
            const Type& type = args.keep ? rtype : *args.send_types[index];
            const void* from = args.keep ? at(recvbuf, rdispls[r]) : at(sendbuf, sdispls[r]);
            const auto count = static_cast<std::size_t>(args.keep ? recvcounts[r] : sendcounts[r]);
            exchange.outgoing[index].resize(count * type.size);
            pack_into(from, count, type, exchange.outgoing[index].data());
        }
        pairwise_exchange(c, exchange, [&](int source, const std::uint8_t* data, std::size_t bytes) {
            const auto r = static_cast<std::size_t>(source);
            unpack(data, bytes, static_cast<std::size_t>(recvcounts[r]), *args.recv_types[r],
                   static_cast<std::uint8_t*>(recvbuf) + rdispls[r]);
        });
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Alltoall)
ISVP_MPI_ALIAS(Alltoallv)
ISVP_MPI_ALIAS(Alltoallw)
