// The reductions: MPI_Reduce, Allreduce, Reduce_scatter_block,
// Reduce_scatter, Scan, Exscan.
//
// Offloaded (Reduce, Allreduce, Reduce_scatter_block, and Reduce_scatter
// when every count is equal) when the op is predefined, the datatype has
// one AgLU datatype throughout (any layout: a strided one is packed for the
// switch, SwitchData), the AgLU supports the pair and the communicator is
// offloadable. Otherwise in software, with the
// switch's own schedules and arithmetic for predefined ops — so both paths
// combine every element in the same operand order and agree bit for bit,
// floating point included (docs/MPI.md, "Collectives"):
//   Reduce                binomial tree rooted at comm rank 0 (rank order),
//                         then to the root
//   Allreduce             recursive doubling; long vectors (>= 2 KiB and at
//                         least one element per rank): Rabenseifner's
//                         recursive-halving reduce-scatter + recursive-
//                         doubling allgather, which combines every element
//                         in the same tree
//   Reduce_scatter(_block) recursive halving (blocks of any size)
//   Scan, Exscan          MPICH's recursive doubling (software only)
// Predefined ops fold a non-power-of-two communicator like the switch
// (Fold::Hypercube); user ops, possibly non-commutative, fold MPICH's way
// (Fold::Pairwise), and every schedule keeps comm-rank order for them.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "coll_util.h"
#include "intercomm.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Algorithm;
using isvp::Opcode;

namespace {

/// The input of a reduction as a working buffer in the datatype's layout.
TypedBuffer load(const void* input, std::size_t count, const Type& type) {
    TypedBuffer work(count, type);
    copy_elements(input, work.data(), count, type);
    return work;
}

/// The software path's working copy of a reduction's `count` elements.
/// Elements that overlap in memory (an extent below the true extent, legal
/// for a send type) cannot be held apart in a buffer of the type's own
/// layout: with a predefined op on one basic type they are worked on as the
/// basic elements instead (`scale` per element), which the op combines
/// alike; the switch's path packs them the same way (SwitchData).
struct Working {
    Working(const Reduction& given, const void* input, std::size_t count) : reduction(given), type_(*given.type) {
        const bool overlapping = type_.extent > 0 && type_.extent < type_.true_extent;
        if (!overlapping || !given.op->predefined || type_.uniform == MPI_DATATYPE_NULL || type_.uniform_count == 0) {
            buffer = load(input, count, type_);
            return;
        }
        const Type& basic = check_datatype(type_.uniform);
        reduction.type = &basic;
        scale = type_.uniform_count;
        std::vector<std::uint8_t> packed(count * type_.size);
        pack_into(input, count, type_, packed.data());
        buffer = TypedBuffer(count * scale, basic);
        unpack_from(packed.data(), count * scale, basic, buffer.data());
    }
    std::uint8_t* data() const { return buffer.data(); }
    /// Elements [from, from + count) of the type into `output`.
    void store(void* output, std::size_t from, std::size_t count) const {
        if (scale == 1) return copy_elements(element(buffer.data(), from, type_), output, count, type_);
        const Type& basic = *reduction.type;
        std::vector<std::uint8_t> packed(count * type_.size);
        pack_into(element(buffer.data(), from * scale, basic), count * scale, basic, packed.data());
        unpack_from(packed.data(), count, type_, output);
    }

    Reduction reduction;    ///< what the algorithm combines (the basic type when scaled)
    std::size_t scale = 1;  ///< working elements per element of the type
    TypedBuffer buffer;     ///< the working copy

  private:
    const Type& type_;  ///< the caller's type
};

void allreduce_software(Comm& c, const Reduction& reduction, std::uint8_t* work, std::size_t count) {
    Blocks blocks{work, reduction.type, {0, count}};
    const auto size = static_cast<std::size_t>(c.size());
    if (count * reduction.type->size < kAllreduceLongBytes || count < size) {
        run_collective(c, Opcode::Allreduce, Algorithm::RecursiveDoubling, reduction.fold(), 0, blocks, &reduction);
        return;
    }
    blocks.first = split_evenly(count, size);
    run_collective(c, Opcode::ReduceScatter, Algorithm::RecursiveHalving, reduction.fold(), 0, blocks, &reduction);
    run_collective(c, Opcode::Allgather, Algorithm::RecursiveDoubling, reduction.fold(), 0, blocks);
}

/// Reduce_scatter with block b = first[b] .. first[b+1] (elements) of the
/// input at `input`; this rank's block goes to `recvbuf`.
void reduce_scatter(Comm& c, const Reduction& reduction, const void* input, void* recvbuf,
                    std::vector<std::size_t> first) {
    const Type& type = *reduction.type;
    const auto me = static_cast<std::size_t>(c.rank());
    const std::size_t total = first.back(), own = first[me + 1] - first[me];
    if (total == 0) return;
    bool equal = true;
    for (std::size_t b = 0; b + 1 < first.size(); ++b) equal = equal && first[b + 1] - first[b] == own;
    if (equal) {
        if (const auto aglu = offload_reduction(c, Opcode::ReduceScatter, reduction, own)) {
            // The switch takes the input whole before it writes the result,
            // so input and recvbuf may be the same buffer (MPI_IN_PLACE).
            SwitchData data(input, total, recvbuf, own, type);
            collectives().reduce_scatter_block(c.guest, data.input(), data.output(), aglu_elements(own, type), *aglu,
                                               *reduction.op->predefined);
            data.finish();
            return;
        }
    }
    Working work(reduction, input, total);
    const std::size_t mine = first[me];
    for (std::size_t& f : first) f *= work.scale;
    Blocks blocks{work.data(), work.reduction.type, std::move(first)};
    run_collective(c, Opcode::ReduceScatter, Algorithm::RecursiveHalving, reduction.fold(), 0, blocks, &work.reduction);
    work.store(recvbuf, mine, own);
}

/// Sends `partial` to `peer` and returns what the peer sent back (in the
/// datatype's layout): one step of the scans' recursive doubling.
TypedBuffer swap_partials(Comm& c, std::uint32_t tag, int peer, const std::uint8_t* partial, std::size_t count,
                          const Type& type) {
    std::vector<std::uint8_t> packed(count * type.size);
    pack_into(partial, count, type, packed.data());
    send_internal(c, peer, tag, packed.data(), packed.size());
    receive_exact(c, peer, tag, packed.data(), packed.size());
    TypedBuffer received(count, type);
    unpack_from(packed.data(), count, type, received.data());
    return received;
}

/// MPICH's recursive-doubling scan. `inclusive`: rank r gets ops over ranks
/// 0..r; otherwise 0..r-1 and rank 0's recvbuf is left alone.
void scan(Comm& c, const Reduction& reduction, const void* input, void* recvbuf, std::size_t count, bool inclusive) {
    const Type& type = *reduction.type;
    const int size = c.size(), me = c.rank();
    TypedBuffer partial = load(input, count, type);  // ops over this rank's aligned group so far
    TypedBuffer result;
    bool have_result = false;
    if (inclusive) {
        result = load(input, count, type);
        have_result = true;
    }
    const std::uint32_t tag = collective_tag(c);
    for (int mask = 1; mask < size; mask <<= 1) {
        const int peer = me ^ mask;
        if (peer >= size) continue;
        TypedBuffer received = swap_partials(c, tag, peer, partial.data(), count, type);
        if (peer < me) {
            // The peer's group is lower: it goes on the left.
            if (have_result) {
                reduction.combine(received.data(), result.data(), count, true);
            } else {
                result = load(received.data(), count, type);
                have_result = true;
            }
            reduction.combine(received.data(), partial.data(), count, true);
        } else {
            reduction.combine(received.data(), partial.data(), count, false);
        }
    }
    if (have_result) copy_elements(result.data(), recvbuf, count, type);
}

}  // namespace

extern "C" {

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
    return entry("MPI_Reduce", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::reduce(c, sendbuf, recvbuf, count, datatype, op, root);
        const Reduction reduction = check_reduction(count, datatype, op);
        const Type& type = *reduction.type;
        check_root(c, root);
        const bool is_root = c.rank() == root;
        check_reduce_buffers(c, sendbuf, recvbuf, count, type, root, "MPI_Reduce");
        if (count == 0) return;
        const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
        const auto n = static_cast<std::size_t>(count);
        if (const auto aglu = offload_reduction(c, Opcode::Reduce, reduction, n)) {
            SwitchData data(input, n, recvbuf, n, type, is_root);
            collectives().reduce(c.guest, data.input(), data.output(), aglu_elements(n, type), *aglu,
                                 *reduction.op->predefined, root);
            data.finish();
            return;
        }
        Working work(reduction, input, n);
        Blocks blocks{work.data(), work.reduction.type, {0, n * work.scale}};
        run_collective(c, Opcode::Reduce, Algorithm::BinomialTree, reduction.fold(), root, blocks, &work.reduction);
        if (is_root) work.store(recvbuf, 0, n);
    });
}

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Allreduce", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::allreduce(c, sendbuf, recvbuf, count, datatype, op);
        const Reduction reduction = check_reduction(count, datatype, op);
        const Type& type = *reduction.type;
        check_result_buffers(sendbuf, recvbuf, count, type, "MPI_Allreduce");
        if (count == 0) return;
        const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
        const auto n = static_cast<std::size_t>(count);
        if (const auto aglu = offload_reduction(c, Opcode::Allreduce, reduction, n)) {
            SwitchData data(input, n, recvbuf, n, type);
            collectives().allreduce(c.guest, data.input(), data.output(), aglu_elements(n, type), *aglu,
                                    *reduction.op->predefined);
            data.finish();
            return;
        }
        Working work(reduction, input, n);
        allreduce_software(c, work.reduction, work.data(), n * work.scale);
        work.store(recvbuf, 0, n);
    });
}

int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
    return entry("MPI_Reduce_scatter_block", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::reduce_scatter_block(c, sendbuf, recvbuf, recvcount, datatype, op);
        const Reduction reduction = check_reduction(recvcount, datatype, op, "recvcount");
        const Type& type = *reduction.type;
        check_result_buffers(sendbuf, recvbuf, recvcount, type, "MPI_Reduce_scatter_block");
        const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
        reduce_scatter(c, reduction, input, recvbuf,
                       equal_blocks(static_cast<std::size_t>(c.size()), static_cast<std::size_t>(recvcount)));
    });
}

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
    return entry("MPI_Reduce_scatter", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::reduce_scatter(c, sendbuf, recvbuf, recvcounts, datatype, op);
        std::vector<std::size_t> first;
        const Reduction reduction =
            check_reduce_scatter(c, sendbuf, recvbuf, recvcounts, datatype, op, "MPI_Reduce_scatter", first);
        const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
        reduce_scatter(c, reduction, input, recvbuf, std::move(first));
    });
}

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Scan", comm, [&] {
        Comm& c = check_comm(comm);
        refuse_inter(c, "MPI_Scan");
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Scan");
        if (count == 0) return;
        scan(c, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf, static_cast<std::size_t>(count), true);
    });
}

int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return entry("MPI_Exscan", comm, [&] {
        Comm& c = check_comm(comm);
        refuse_inter(c, "MPI_Exscan");
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Exscan", c.rank() > 0);
        if (count == 0) return;
        scan(c, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf, static_cast<std::size_t>(count), false);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Reduce)
ISVP_MPI_ALIAS(Allreduce)
ISVP_MPI_ALIAS(Reduce_scatter_block)
ISVP_MPI_ALIAS(Reduce_scatter)
ISVP_MPI_ALIAS(Scan)
ISVP_MPI_ALIAS(Exscan)
