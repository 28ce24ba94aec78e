// MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw. MPI_Alltoall goes to the
// switch's Alltoall (any communicator size; docs/FUSED.md) when the blocks
// fit the same rule as the other offloaded collectives (offload_bytes), the
// blocks packed as bytes, so any datatype and MPI_IN_PLACE offload.
//
// MPI_Alltoall that does not offload runs MPICH's algorithm for its size
// (MPIR_Alltoall_intra_auto; the switch points in coll_util.h), on packed
// blocks of `block` bytes:
//   MPI_IN_PLACE          the in-place exchange: with every other rank in
//                         ascending rank order, send it its block (packed
//                         just before) and receive its block into the same
//                         place (MPICH's sendrecv_replace loop)
//   block <= 256 B and    Bruck's algorithm: ceil(log2 P) steps; in step k
//   >= 8 ranks            a rank sends rank + 2^k every block whose slot has
//                         bit k set (slot j holds what is bound for
//                         rank + j) and takes the same slots from rank - 2^k
//   block <= 32 KiB       the scattered exchange: batches of up to 32 peers;
//                         a batch sends to rank - i and receives from
//                         rank + i, sends first
//   longer                pairwise exchange: P - 1 steps, the peer rank XOR k
//                         on a power of two, else to rank + k from rank - k
// Alltoallv and Alltoallw: the pairwise exchange by shift (to rank + k,
// from rank - k) at every size. Sends are buffered by the driver, so a
// send never waits for the matching receive; a rank's own block is copied
// without a message.
#include <algorithm>
#include <cstring>
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

/// Runs the pairwise exchange by shift (Alltoallv, Alltoallw): in step
/// k = 1 .. size-1 send to rank + k, receive from rank - k;
/// `deliver(source, data, bytes)` places a block (its own block too,
/// without a message).
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

/// One MPI_Alltoall's buffers on this rank: send block d is for comm rank
/// d, receive block s comes from comm rank s; `block` packed bytes each.
struct AlltoallBuffers {
    const void* sendbuf = nullptr;    ///< unused with MPI_IN_PLACE (the blocks are in recvbuf)
    std::size_t sendcount = 0;        ///< elements per block
    const Type* send_type = nullptr;  ///< null with MPI_IN_PLACE
    void* recvbuf = nullptr;
    std::size_t recvcount = 0;  ///< elements per block
    const Type* recv_type = nullptr;
    std::size_t block = 0;  ///< packed bytes per block

    /// Packs the block bound for `destination` into `out` (block bytes).
    void pack_block(int destination, std::uint8_t* out) const {
        const auto d = static_cast<std::size_t>(destination);
        if (send_type)
            pack_into(element(sendbuf, d * sendcount, *send_type), sendcount, *send_type, out);
        else
            pack_into(element(recvbuf, d * recvcount, *recv_type), recvcount, *recv_type, out);
    }
    /// Unpacks `bytes` of packed data from `source` into its receive block.
    void unpack_block(int source, const std::uint8_t* data, std::size_t bytes) const {
        unpack(data, bytes, recvcount, *recv_type,
               element(recvbuf, static_cast<std::size_t>(source) * recvcount, *recv_type));
    }
    /// This rank's own block, packed and unpacked without a message.
    void copy_own_block(int me) const {
        std::vector<std::uint8_t> own(block);
        pack_block(me, own.data());
        unpack_block(me, own.data(), own.size());
    }
};

/// MPI_IN_PLACE (MPICH's MPIR_Alltoall_intra_pairwise_sendrecv_replace):
/// with every other rank i in ascending order, send i its block and receive
/// i's block for this rank into the same place. Block i is packed just
/// before its exchange; nothing else has overwritten it by then.
void alltoall_in_place(Comm& c, const AlltoallBuffers& buffers) {
    const int size = c.size(), me = c.rank();
    const std::uint32_t tag = collective_tag(c);
    std::vector<std::uint8_t> out(buffers.block), in(buffers.block);
    for (int peer = 0; peer < size; ++peer) {
        if (peer == me) continue;
        buffers.pack_block(peer, out.data());
        send_internal(c, peer, tag, out.data(), out.size());
        const std::size_t got = receive_internal(c, peer, tag, in.data(), in.size());
        buffers.unpack_block(peer, in.data(), got);
    }
}

/// Bruck's algorithm (MPICH's MPIR_Alltoall_intra_brucks): slot j of a
/// working vector first holds the block bound for rank (me + j) mod P; in
/// the step of distance 2^k every slot with bit k set goes to me + 2^k and
/// the same slots come from me - 2^k. A block travels j ranks in all, so at
/// the end slot j holds the block rank me - j sent to me. MPICH's final
/// rotation and reversal are that index map, applied while unpacking.
void alltoall_bruck(Comm& c, const AlltoallBuffers& buffers) {
    const int size = c.size(), me = c.rank();
    const std::uint32_t tag = collective_tag(c);
    const std::size_t block = buffers.block;
    std::vector<std::uint8_t> slots(static_cast<std::size_t>(size) * block);
    const auto slot = [&](int j) { return slots.data() + static_cast<std::size_t>(j) * block; };
    for (int j = 0; j < size; ++j) buffers.pack_block((me + j) % size, slot(j));
    std::vector<std::uint8_t> out, in;
    for (int distance = 1; distance < size; distance *= 2) {
        out.clear();
        for (int j = 1; j < size; ++j)
            if (j & distance) out.insert(out.end(), slot(j), slot(j) + block);
        send_internal(c, (me + distance) % size, tag, out.data(), out.size());
        in.resize(out.size());
        receive_exact(c, (me - distance + size) % size, tag, in.data(), in.size());
        const std::uint8_t* next = in.data();
        for (int j = 1; j < size; ++j) {
            if (!(j & distance)) continue;
            std::memcpy(slot(j), next, block);
            next += block;
        }
    }
    for (int j = 0; j < size; ++j) buffers.unpack_block((me - j + size) % size, slot(j), block);
}

/// The scattered exchange (MPICH's MPIR_Alltoall_intra_scattered): batches
/// of up to kAlltoallThrottle peers; batch b sends to me - i and receives
/// from me + i for i in [b, b + batch), all sends first (MPICH posts the
/// receives and sends of a batch and waits for all of them; here sends are
/// buffered, so the receives follow them in MPICH's posting order).
void alltoall_scattered(Comm& c, const AlltoallBuffers& buffers) {
    const int size = c.size(), me = c.rank();
    const std::uint32_t tag = collective_tag(c);
    const int batch = kAlltoallThrottle == 0 ? size : std::min(kAlltoallThrottle, size);
    std::vector<std::uint8_t> out(buffers.block), in(buffers.block);
    for (int first = 0; first < size; first += batch) {
        const int count = std::min(batch, size - first);
        for (int i = first; i < first + count; ++i) {
            const int to = (me - i + size) % size;
            if (to == me) continue;
            buffers.pack_block(to, out.data());
            send_internal(c, to, tag, out.data(), out.size());
        }
        for (int i = first; i < first + count; ++i) {
            const int from = (me + i) % size;
            if (from == me) {
                buffers.copy_own_block(me);
                continue;
            }
            const std::size_t got = receive_internal(c, from, tag, in.data(), in.size());
            buffers.unpack_block(from, in.data(), got);
        }
    }
}

/// The pairwise exchange (MPICH's MPIR_Alltoall_intra_pairwise): in step
/// k = 1 .. P-1 exchange with rank XOR k on a power of two, else send to
/// rank + k and receive from rank - k.
void alltoall_pairwise(Comm& c, const AlltoallBuffers& buffers) {
    const int size = c.size(), me = c.rank();
    const std::uint32_t tag = collective_tag(c);
    const bool power_of_two = (size & (size - 1)) == 0;
    buffers.copy_own_block(me);
    std::vector<std::uint8_t> out(buffers.block), in(buffers.block);
    for (int k = 1; k < size; ++k) {
        const int to = power_of_two ? me ^ k : (me + k) % size;
        const int from = power_of_two ? me ^ k : (me - k + size) % size;
        buffers.pack_block(to, out.data());
        send_internal(c, to, tag, out.data(), out.size());
        const std::size_t got = receive_internal(c, from, tag, in.data(), in.size());
        buffers.unpack_block(from, in.data(), got);
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
        AlltoallBuffers buffers;
        buffers.sendbuf = sendbuf;
        buffers.sendcount = static_cast<std::size_t>(sendcount);
        buffers.send_type = keep ? nullptr : stype;
        buffers.recvbuf = recvbuf;
        buffers.recvcount = rcount;
        buffers.recv_type = &rtype;
        buffers.block = block;
        switch (choose_alltoall(keep, block, c.size())) {
            case AlltoallAlgorithm::InPlace:
                return alltoall_in_place(c, buffers);
            case AlltoallAlgorithm::Bruck:
                return alltoall_bruck(c, buffers);
            case AlltoallAlgorithm::Scattered:
                return alltoall_scattered(c, buffers);
            case AlltoallAlgorithm::Pairwise:
                return alltoall_pairwise(c, buffers);
        }
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
