// The data-movement collectives: MPI_Barrier, Bcast, Scatter(v), Gather(v),
// Allgather(v) (Alltoall(v,w): coll_alltoall.cpp).
//
// Bcast, Scatter, Gather, Allgather and Barrier go to the switch when the
// communicator and collective allow it (guest::Collectives::would_offload):
// the data travels as packed bytes (any datatype; a contiguous one without
// a copy), the standard's equal counts make every member decide alike.
// Otherwise they run MPICH's algorithms over internal messages: binomial
// trees (Bcast, Scatter, Gather; long Bcast: scatter + ring allgather),
// recursive doubling or, for long vectors, ring (Allgather(v)), linear
// (Scatterv, Gatherv: only the root knows the counts).
#include <cstring>
#include <string>
#include <vector>

#include "coll_util.h"
#include "intercomm.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Algorithm;
using isvp::Fold;
using isvp::Opcode;

namespace {

/// Data of `count` elements of `type` at `buffer` as packed bytes: the
/// buffer itself when contiguous, else a packed copy held here.
class PackedView {
  public:
    PackedView(const void* buffer, std::size_t count, const Type& type) {
        if (type.contiguous || count == 0) {
            data_ = count ? data_start(buffer, type) : nullptr;
        } else {
            copy_.resize(count * type.size);
            pack_into(buffer, count, type, copy_.data());
            data_ = copy_.data();
        }
    }
    const std::uint8_t* data() const { return data_; }

  private:
    std::vector<std::uint8_t> copy_;
    const std::uint8_t* data_ = nullptr;
};

/// Where packed bytes for `count` elements of `type` at `buffer` land: the
/// buffer itself when contiguous, else a staging area that finish() unpacks.
class PackedSink {
  public:
    PackedSink(void* buffer, std::size_t count, const Type& type) : buffer_(buffer), count_(count), type_(type) {
        if (type.contiguous || count == 0) {
            data_ = count ? data_start(buffer, type) : nullptr;
        } else {
            copy_.resize(count * type.size);
            data_ = copy_.data();
        }
    }
    std::uint8_t* data() { return data_; }
    void finish() {
        if (!copy_.empty()) unpack_from(copy_.data(), count_, type_, buffer_);
    }

  private:
    void* buffer_;
    std::size_t count_;
    const Type& type_;
    std::vector<std::uint8_t> copy_;
    std::uint8_t* data_ = nullptr;
};

void bcast_software(Comm& c, std::uint8_t* data, std::size_t bytes, int root) {
    Blocks blocks{data, nullptr, {0, bytes}};
    if (bytes < kBcastLongBytes || c.size() < kBcastLongMinRanks) {
        run_collective(c, Opcode::Bcast, Algorithm::BinomialTree, Fold::Pairwise, root, blocks);
        return;
    }
    // van de Geijn: scatter the vector in pieces, then a ring allgather.
    blocks.first = split_evenly(bytes, static_cast<std::size_t>(c.size()));
    run_collective(c, Opcode::Scatter, Algorithm::BinomialTree, Fold::Pairwise, root, blocks);
    run_collective(c, Opcode::Allgather, Algorithm::Ring, Fold::Pairwise, 0, blocks);
}

void allgather_software(Comm& c, Blocks& blocks) {
    const Algorithm algorithm =
        blocks.first.back() < kAllgatherLongBytes ? Algorithm::RecursiveDoubling : Algorithm::Ring;
    run_collective(c, Opcode::Allgather, algorithm, Fold::Pairwise, 0, blocks);
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
    return entry("MPI_Barrier", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::barrier(c);
        if (c.size() == 1) return;
        if (note_offload(
                collectives().would_offload(c.guest, Opcode::Barrier, std::nullopt, isvp::Datatype::UInt8, 0))) {
            collectives().barrier(c.guest);
            return;
        }
        Blocks blocks{nullptr, nullptr, {0, 0}};
        run_collective(c, Opcode::Barrier, Algorithm::RecursiveDoubling, Fold::Pairwise, 0, blocks);
    });
}

int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return entry("MPI_Bcast", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::bcast(c, buffer, count, datatype, root);
        const Type& type = check_bcast(c, buffer, count, datatype, root, "MPI_Bcast");
        const std::size_t bytes = bytes_of(count, type);
        if (bytes == 0 || c.size() == 1) return;
        const bool is_root = c.rank() == root;
        if (type.contiguous) {
            std::uint8_t* data = data_start(buffer, type);
            if (offload_bytes(c, Opcode::Bcast, bytes))
                collectives().bcast(c.guest, data, bytes, isvp::Datatype::UInt8, root);
            else
                bcast_software(c, data, bytes, root);
            return;
        }
        std::vector<std::uint8_t> packed(bytes);
        if (is_root) pack_into(buffer, static_cast<std::size_t>(count), type, packed.data());
        if (offload_bytes(c, Opcode::Bcast, bytes))
            collectives().bcast(c.guest, packed.data(), bytes, isvp::Datatype::UInt8, root);
        else
            bcast_software(c, packed.data(), bytes, root);
        if (!is_root) unpack_from(packed.data(), static_cast<std::size_t>(count), type, buffer);
    });
}

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Scatter", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::scatter(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
        const MoveArguments args =
            check_scatter(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Scatter");
        const bool is_root = c.rank() == root;
        const auto size = static_cast<std::size_t>(c.size());
        const Type* stype = args.send_type;
        const Type* rtype = args.recv_type;
        const bool keep = args.keep;  // the root's block stays in sendbuf
        const std::size_t block = args.block;
        if (block == 0) return;
        std::vector<std::uint8_t> own(keep ? block : 0);
        PackedSink sink(keep ? nullptr : recvbuf, keep ? 0 : static_cast<std::size_t>(recvcount),
                        keep ? byte_type() : *rtype);
        std::uint8_t* result = keep ? own.data() : sink.data();
        if (offload_bytes(c, Opcode::Scatter, block)) {
            PackedView all(is_root ? sendbuf : nullptr, is_root ? size * static_cast<std::size_t>(sendcount) : 0,
                           is_root ? *stype : byte_type());
            collectives().scatter(c.guest, all.data(), result, block, isvp::Datatype::UInt8, root);
        } else {
            std::vector<std::uint8_t> work(size * block);
            if (is_root) pack_into(sendbuf, size * static_cast<std::size_t>(sendcount), *stype, work.data());
            Blocks blocks{work.data(), nullptr, equal_blocks(size, block)};
            run_collective(c, Opcode::Scatter, Algorithm::BinomialTree, Fold::Pairwise, root, blocks);
            std::memcpy(result, work.data() + static_cast<std::size_t>(c.rank()) * block, block);
        }
        if (!keep) sink.finish();
    });
}

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Gather", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::gather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
        const MoveArguments args =
            check_gather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Gather");
        const bool is_root = c.rank() == root;
        const auto size = static_cast<std::size_t>(c.size());
        const bool keep = args.keep;  // the root's block is already in recvbuf
        const Type* stype = args.send_type;
        const Type* rtype = args.recv_type;
        const std::size_t block = args.block;
        if (block == 0) return;
        const auto all_count = is_root ? size * static_cast<std::size_t>(recvcount) : 0;
        std::vector<std::uint8_t> mine(block);  // own contribution, packed
        if (keep)
            pack_into(element(recvbuf, static_cast<std::size_t>(root) * static_cast<std::size_t>(recvcount), *rtype),
                      static_cast<std::size_t>(recvcount), *rtype, mine.data());
        else
            pack_into(sendbuf, static_cast<std::size_t>(sendcount), *stype, mine.data());
        if (offload_bytes(c, Opcode::Gather, block)) {
            PackedSink sink(is_root ? recvbuf : nullptr, all_count, is_root ? *rtype : byte_type());
            collectives().gather(c.guest, mine.data(), sink.data(), block, isvp::Datatype::UInt8, root);
            sink.finish();
            return;
        }
        std::vector<std::uint8_t> work(size * block);
        std::memcpy(work.data() + static_cast<std::size_t>(c.rank()) * block, mine.data(), block);
        Blocks blocks{work.data(), nullptr, equal_blocks(size, block)};
        run_collective(c, Opcode::Gather, Algorithm::BinomialTree, Fold::Pairwise, root, blocks);
        if (is_root) unpack_from(work.data(), all_count, *rtype, recvbuf);
    });
}

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Allgather", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        const MoveArguments args =
            check_allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Allgather");
        const auto size = static_cast<std::size_t>(c.size());
        const bool keep = args.keep;
        const Type* stype = args.send_type;
        const Type& rtype = *args.recv_type;
        const std::size_t block = args.block;
        if (block == 0) return;
        const std::size_t own_index = static_cast<std::size_t>(c.rank()) * static_cast<std::size_t>(recvcount);
        std::vector<std::uint8_t> mine(block);
        if (keep)
            pack_into(element(recvbuf, own_index, rtype), static_cast<std::size_t>(recvcount), rtype, mine.data());
        else
            pack_into(sendbuf, static_cast<std::size_t>(sendcount), *stype, mine.data());
        PackedSink sink(recvbuf, size * static_cast<std::size_t>(recvcount), rtype);
        if (offload_bytes(c, Opcode::Allgather, block)) {
            collectives().allgather(c.guest, mine.data(), sink.data(), block, isvp::Datatype::UInt8);
        } else {
            std::memcpy(sink.data() + static_cast<std::size_t>(c.rank()) * block, mine.data(), block);
            Blocks blocks{sink.data(), nullptr, equal_blocks(size, block)};
            allgather_software(c, blocks);
        }
        sink.finish();
    });
}

int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Scatterv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::scatterv(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
        const MoveArguments args = check_scatterv(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                  recvtype, root, "MPI_Scatterv");
        const bool is_root = c.rank() == root;
        const Type* stype = args.send_type;
        const bool keep = args.keep;
        const Type* rtype = args.recv_type;
        const std::uint32_t tag = collective_tag(c);
        if (!is_root) {
            const std::size_t capacity = bytes_of(recvcount, *rtype);
            if (capacity == 0) return;
            std::vector<std::uint8_t> packed(capacity);
            const std::size_t got = receive_internal(c, root, tag, packed.data(), capacity);
            unpack(packed.data(), got, static_cast<std::size_t>(recvcount), *rtype, recvbuf);
            return;
        }
        std::vector<std::uint8_t> packed;
        for (int r = 0; r < c.size(); ++r) {
            const std::size_t bytes = bytes_of(sendcounts[r], *stype);
            if (bytes == 0 || (r == root && keep)) continue;
            packed.resize(bytes);
            pack_into(element(sendbuf, static_cast<std::size_t>(displs[r]), *stype),
                      static_cast<std::size_t>(sendcounts[r]), *stype, packed.data());
            if (r == root) {
                check_block(bytes, bytes_of(recvcount, *rtype), "the root's block of sendbuf", "recvbuf");
                unpack(packed.data(), bytes, static_cast<std::size_t>(recvcount), *rtype, recvbuf);
            } else {
                send_internal(c, r, tag, packed.data(), bytes);
            }
        }
    });
}

int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return entry("MPI_Gatherv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::gatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
        const MoveArguments args =
            check_gatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, "MPI_Gatherv");
        const bool is_root = c.rank() == root;
        const bool keep = args.keep;
        const Type* stype = args.send_type;
        const Type* rtype = args.recv_type;
        const std::uint32_t tag = collective_tag(c);
        if (!is_root) {
            const std::size_t bytes = bytes_of(sendcount, *stype);
            if (bytes == 0) return;
            PackedView data(sendbuf, static_cast<std::size_t>(sendcount), *stype);
            send_internal(c, root, tag, data.data(), bytes);
            return;
        }
        std::vector<std::uint8_t> packed;
        for (int r = 0; r < c.size(); ++r) {
            const std::size_t capacity = bytes_of(recvcounts[r], *rtype);
            if (capacity == 0 || (r == root && keep)) continue;
            void* target = element(recvbuf, static_cast<std::size_t>(displs[r]), *rtype);
            packed.resize(capacity);
            std::size_t got = 0;
            if (r == root) {
                got = bytes_of(sendcount, *stype);
                check_block(got, capacity, "sendbuf", "the root's block of recvbuf");
                pack_into(sendbuf, static_cast<std::size_t>(sendcount), *stype, packed.data());
            } else {
                got = receive_internal(c, r, tag, packed.data(), capacity);
            }
            unpack(packed.data(), got, static_cast<std::size_t>(recvcounts[r]), *rtype, target);
        }
    });
}

int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return entry("MPI_Allgatherv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
        std::vector<std::size_t> first;
        const MoveArguments args = check_allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                    recvtype, "MPI_Allgatherv", first);
        const bool keep = args.keep;
        const Type* stype = args.send_type;
        const Type& rtype = *args.recv_type;
        const int me = c.rank();
        if (first.back() == 0) return;
        std::vector<std::uint8_t> work(first.back());
        if (keep)
            pack_into(element(recvbuf, static_cast<std::size_t>(displs[me]), rtype),
                      static_cast<std::size_t>(recvcounts[me]), rtype,
                      work.data() + first[static_cast<std::size_t>(me)]);
        else
            pack_into(sendbuf, static_cast<std::size_t>(sendcount), *stype,
                      work.data() + first[static_cast<std::size_t>(me)]);
        // In the switch when it takes the whole (the engine's allgather with
        // unequal counts: the counts table rides in the request), packed bytes.
        std::vector<std::size_t> counts(first.size() - 1);
        for (std::size_t r = 0; r < counts.size(); ++r) counts[r] = first[r + 1] - first[r];
        if (offload_unequal_allgather(c, first)) {
            // The own block is read (copied into the request) before any
            // result is written: it may sit in the result buffer.
            collectives().allgatherv(c.guest, work.data() + first[static_cast<std::size_t>(me)], work.data(), counts,
                                     isvp::Datatype::UInt8);
        } else {
            Blocks blocks{work.data(), nullptr, first};
            allgather_software(c, blocks);
        }
        for (int r = 0; r < c.size(); ++r) {
            if (r == me && keep) continue;
            unpack_from(work.data() + first[static_cast<std::size_t>(r)], static_cast<std::size_t>(recvcounts[r]),
                        rtype, element(recvbuf, static_cast<std::size_t>(displs[r]), rtype));
        }
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Barrier)
ISVP_MPI_ALIAS(Bcast)
ISVP_MPI_ALIAS(Scatter)
ISVP_MPI_ALIAS(Gather)
ISVP_MPI_ALIAS(Allgather)
ISVP_MPI_ALIAS(Scatterv)
ISVP_MPI_ALIAS(Gatherv)
ISVP_MPI_ALIAS(Allgatherv)
