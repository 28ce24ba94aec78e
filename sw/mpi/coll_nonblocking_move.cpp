// The nonblocking data-movement collectives: MPI_Iscatter(v), Igather(v),
// Iallgather(v), Ialltoall(v,w), on the round schedule engine
// (coll_nonblocking.h); always in software, like every nonblocking
// collective. Data travels as packed bytes, as in the blocking forms
// (coll_move.cpp): a rank packs what it sends with the send datatype and
// unpacks what it receives with the receive datatype. Algorithms:
//   Iscatter, Igather         binomial trees (make_schedule)
//   Iallgather, Iallgatherv   recursive doubling (blocks of any size), ring
//                             from 512 KiB in all, as the blocking forms
//   Iscatterv, Igatherv       linear: one round, the root sends to / receives
//                             from every other rank (only it knows the counts)
//   Ialltoall                 MPICH's choice by bytes per destination, as
//                             MPI_Alltoall (coll_util.h): Bruck's, the
//                             scattered exchange in batches, pairwise, or
//                             the in-place exchange, one round per step
//   Ialltoallv, Ialltoallw    one round holding every send and receive, in
//                             pairwise order (to rank + k, from rank - k)
// Send buffers are packed at the call (MPI_IN_PLACE data too, before
// anything arrives); received data is unpacked into the user's buffers when
// its round completes, or at the end.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "coll_nonblocking.h"
#include "intercomm.h"
#include "registry.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Algorithm;
using isvp::Fold;
using isvp::Opcode;

namespace {

/// A schedule-driven collective's packed working vector, its blocks, and
/// the datatypes it unpacks with later (held: MPI_Type_free may follow).
struct PackedWork {
    std::vector<std::uint8_t> work;
    Blocks blocks;
    std::shared_ptr<Type> recv_type;
};

std::shared_ptr<Type> hold_type(const Type* type) {
    return type ? datatypes().shared(type->handle) : nullptr;
}

/// MPICH's choice for an allgather of `bytes` in all (as MPI_Allgather(v)).
Algorithm allgather_algorithm(std::size_t bytes) {
    return bytes < kAllgatherLongBytes ? Algorithm::RecursiveDoubling : Algorithm::Ring;
}

std::shared_ptr<RoundSchedule> new_schedule(MPI_Comm comm) {
    return std::make_shared<RoundSchedule>(communicators().shared(comm));
}

}  // namespace

extern "C" {

int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Iscatter", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::iscatterv(false, comm, c, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, recvcount,
                                    recvtype, root, request);
        const MoveArguments args =
            check_scatter(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Iscatter");
        check_request_pointer(request);
        const auto size = static_cast<std::size_t>(c.size());
        const std::size_t block = args.block;
        auto state = std::make_shared<PackedWork>();
        state->recv_type = hold_type(args.recv_type);
        state->work.resize(size * block);
        if (c.rank() == root && block > 0)
            pack_into(sendbuf, size * static_cast<std::size_t>(sendcount), *args.send_type, state->work.data());
        state->blocks = Blocks{state->work.data(), nullptr, equal_blocks(size, block)};
        auto schedule = new_schedule(comm);
        schedule->hold(state);
        if (block > 0) {
            schedule->add_schedule(
                make_schedule(Opcode::Scatter, Algorithm::BinomialTree, c.size(), c.rank(), root, Fold::Pairwise),
                &state->blocks);
            if (!args.keep) {
                const std::size_t at = static_cast<std::size_t>(c.rank()) * block;
                schedule->add_local([state, at, block, recvbuf, recvcount] {
                    unpack(state->work.data() + at, block, static_cast<std::size_t>(recvcount), *state->recv_type,
                           recvbuf);
                });
            }
        }
        start_nonblocking("MPI_Iscatter", comm, std::move(schedule), request);
    });
}

int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Igather", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::igatherv(false, comm, c, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount,
                                   recvtype, root, request);
        const MoveArguments args =
            check_gather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Igather");
        check_request_pointer(request);
        const auto size = static_cast<std::size_t>(c.size());
        const auto me = static_cast<std::size_t>(c.rank());
        const std::size_t block = args.block;
        auto state = std::make_shared<PackedWork>();
        state->recv_type = hold_type(args.recv_type);
        state->work.assign(size * block, 0);
        if (block > 0) {
            if (args.keep)
                pack_into(element(recvbuf, me * static_cast<std::size_t>(recvcount), *args.recv_type),
                          static_cast<std::size_t>(recvcount), *args.recv_type, state->work.data() + me * block);
            else
                pack_into(sendbuf, static_cast<std::size_t>(sendcount), *args.send_type,
                          state->work.data() + me * block);
        }
        state->blocks = Blocks{state->work.data(), nullptr, equal_blocks(size, block)};
        auto schedule = new_schedule(comm);
        schedule->hold(state);
        if (block > 0) {
            schedule->add_schedule(
                make_schedule(Opcode::Gather, Algorithm::BinomialTree, c.size(), c.rank(), root, Fold::Pairwise),
                &state->blocks);
            if (c.rank() == root)
                schedule->add_local([state, size, recvbuf, recvcount] {
                    unpack_from(state->work.data(), size * static_cast<std::size_t>(recvcount), *state->recv_type,
                                recvbuf);
                });
        }
        start_nonblocking("MPI_Igather", comm, std::move(schedule), request);
    });
}

int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Iallgather", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::iallgatherv(false, comm, c, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr,
                                      recvcount, recvtype, request);
        const MoveArguments args =
            check_allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Iallgather");
        check_request_pointer(request);
        const auto size = static_cast<std::size_t>(c.size());
        const auto me = static_cast<std::size_t>(c.rank());
        const std::size_t block = args.block;
        const auto rcount = static_cast<std::size_t>(recvcount);
        auto state = std::make_shared<PackedWork>();
        state->recv_type = hold_type(args.recv_type);
        state->work.assign(size * block, 0);
        if (block > 0) {
            if (args.keep)
                pack_into(element(recvbuf, me * rcount, *args.recv_type), rcount, *args.recv_type,
                          state->work.data() + me * block);
            else
                pack_into(sendbuf, static_cast<std::size_t>(sendcount), *args.send_type,
                          state->work.data() + me * block);
        }
        state->blocks = Blocks{state->work.data(), nullptr, equal_blocks(size, block)};
        auto schedule = new_schedule(comm);
        schedule->hold(state);
        if (block > 0) {
            schedule->add_schedule(make_schedule(Opcode::Allgather, allgather_algorithm(size * block), c.size(),
                                                 c.rank(), 0, Fold::Pairwise),
                                   &state->blocks);
            schedule->add_local([state, size, rcount, recvbuf] {
                unpack_from(state->work.data(), size * rcount, *state->recv_type, recvbuf);
            });
        }
        start_nonblocking("MPI_Iallgather", comm, std::move(schedule), request);
    });
}

int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Iallgatherv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::iallgatherv(true, comm, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                                      recvtype, request);
        std::vector<std::size_t> first;
        const MoveArguments args = check_allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                    recvtype, "MPI_Iallgatherv", first);
        check_request_pointer(request);
        const auto me = static_cast<std::size_t>(c.rank());
        auto state = std::make_shared<PackedWork>();
        state->recv_type = hold_type(args.recv_type);
        state->work.assign(first.back(), 0);
        if (args.keep)
            pack_into(element(recvbuf, static_cast<std::size_t>(displs[me]), *args.recv_type),
                      static_cast<std::size_t>(recvcounts[me]), *args.recv_type, state->work.data() + first[me]);
        else
            pack_into(sendbuf, static_cast<std::size_t>(sendcount), *args.send_type, state->work.data() + first[me]);
        state->blocks = Blocks{state->work.data(), nullptr, first};
        auto schedule = new_schedule(comm);
        schedule->hold(state);
        if (first.back() > 0) {
            schedule->add_schedule(make_schedule(Opcode::Allgather, allgather_algorithm(first.back()), c.size(),
                                                 c.rank(), 0, Fold::Pairwise),
                                   &state->blocks);
            // The counts and displacements are the caller's; copied for the last round.
            std::vector<int> counts(recvcounts, recvcounts + c.size()), at(displs, displs + c.size());
            const bool keep = args.keep;
            schedule->add_local([state, counts, at, keep, me, recvbuf] {
                for (std::size_t r = 0; r < counts.size(); ++r) {
                    if (r == me && keep) continue;
                    unpack_from(state->work.data() + state->blocks.first[r], static_cast<std::size_t>(counts[r]),
                                *state->recv_type,
                                element(recvbuf, static_cast<std::size_t>(at[r]), *state->recv_type));
                }
            });
        }
        start_nonblocking("MPI_Iallgatherv", comm, std::move(schedule), request);
    });
}

int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Iscatterv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::iscatterv(true, comm, c, sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount,
                                    recvtype, root, request);
        const MoveArguments args = check_scatterv(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                  recvtype, root, "MPI_Iscatterv");
        check_request_pointer(request);
        auto recv_type = hold_type(args.recv_type);
        auto schedule = new_schedule(comm);
        Round& round = schedule->add_round();
        if (c.rank() != root) {
            const std::size_t capacity = bytes_of(recvcount, *args.recv_type);
            if (capacity > 0)
                round.receives.push_back(
                    {root, capacity, false, [recv_type, recvbuf, recvcount](std::vector<std::uint8_t>& data) {
                         unpack(data.data(), data.size(), static_cast<std::size_t>(recvcount), *recv_type, recvbuf);
                     }});
            start_nonblocking("MPI_Iscatterv", comm, std::move(schedule), request);
            return;
        }
        const Type& stype = *args.send_type;
        for (int r = 0; r < c.size(); ++r) {
            const std::size_t bytes = bytes_of(sendcounts[r], stype);
            if (bytes == 0 || (r == root && args.keep)) continue;
            std::vector<std::uint8_t> packed(bytes);
            pack_into(element(sendbuf, static_cast<std::size_t>(displs[r]), stype),
                      static_cast<std::size_t>(sendcounts[r]), stype, packed.data());
            if (r == root) {
                check_block(bytes, bytes_of(recvcount, *args.recv_type), "the root's block of sendbuf", "recvbuf");
                unpack(packed.data(), bytes, static_cast<std::size_t>(recvcount), *args.recv_type, recvbuf);
                continue;
            }
            auto shared = std::make_shared<std::vector<std::uint8_t>>(std::move(packed));
            round.sends.push_back({r, [shared] { return *shared; }});
        }
        start_nonblocking("MPI_Iscatterv", comm, std::move(schedule), request);
    });
}

int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Igatherv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::igatherv(true, comm, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
                                   recvtype, root, request);
        const MoveArguments args =
            check_gatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, "MPI_Igatherv");
        check_request_pointer(request);
        auto schedule = new_schedule(comm);
        Round& round = schedule->add_round();
        if (c.rank() != root) {
            const std::size_t bytes = bytes_of(sendcount, *args.send_type);
            if (bytes > 0) {
                auto packed = std::make_shared<std::vector<std::uint8_t>>(bytes);
                pack_into(sendbuf, static_cast<std::size_t>(sendcount), *args.send_type, packed->data());
                round.sends.push_back({root, [packed] { return *packed; }});
            }
            start_nonblocking("MPI_Igatherv", comm, std::move(schedule), request);
            return;
        }
        const Type& rtype = *args.recv_type;
        auto recv_type = hold_type(&rtype);
        for (int r = 0; r < c.size(); ++r) {
            const std::size_t capacity = bytes_of(recvcounts[r], rtype);
            if (capacity == 0 || (r == root && args.keep)) continue;
            void* target = element(recvbuf, static_cast<std::size_t>(displs[r]), rtype);
            const auto count = static_cast<std::size_t>(recvcounts[r]);
            if (r == root) {
                const std::size_t bytes = bytes_of(sendcount, *args.send_type);
                check_block(bytes, capacity, "sendbuf", "the root's block of recvbuf");
                std::vector<std::uint8_t> packed(bytes);
                pack_into(sendbuf, static_cast<std::size_t>(sendcount), *args.send_type, packed.data());
                unpack(packed.data(), bytes, count, rtype, target);
                continue;
            }
            round.receives.push_back({r, capacity, false, [recv_type, target, count](std::vector<std::uint8_t>& data) {
                                          unpack(data.data(), data.size(), count, *recv_type, target);
                                      }});
        }
        start_nonblocking("MPI_Igatherv", comm, std::move(schedule), request);
    });
}

}  // extern "C"

namespace {

/// One round of an all-to-all: every rank's packed block sent (pairwise
/// order), every incoming block unpacked by `deliver(source, data)`.
template <class Deliver>
void exchange_round(RoundSchedule& schedule, std::vector<std::vector<std::uint8_t>> outgoing,
                    const std::vector<std::size_t>& incoming, Deliver deliver) {
    Comm& c = schedule.comm();
    const int size = c.size(), me = c.rank();
    auto blocks = std::make_shared<std::vector<std::vector<std::uint8_t>>>(std::move(outgoing));
    Round& round = schedule.add_round();
    // The own block first, as a local step (no message).
    round.local.push_back([blocks, me, deliver] {
        std::vector<std::uint8_t>& own = (*blocks)[static_cast<std::size_t>(me)];
        deliver(me, own);
    });
    for (int k = 1; k < size; ++k) {
        const int to = (me + k) % size, from = (me - k + size) % size;
        if (!(*blocks)[static_cast<std::size_t>(to)].empty())
            round.sends.push_back({to, [blocks, to] { return (*blocks)[static_cast<std::size_t>(to)]; }});
        const std::size_t capacity = incoming[static_cast<std::size_t>(from)];
        if (capacity > 0)
            round.receives.push_back(
                {from, capacity, false, [deliver, from](std::vector<std::uint8_t>& data) { deliver(from, data); }});
    }
}

/// An MPI_Ialltoall's working state: the packed blocks (block d bound for
/// rank d; with MPI_IN_PLACE taken from recvbuf at the call), Bruck's
/// slots, and where the result goes (the receive type held: MPI_Type_free
/// may follow the call).
struct AlltoallWork {
    std::vector<std::uint8_t> packed;
    std::vector<std::uint8_t> slots;  ///< Bruck: slot j, bound for rank + j, later from rank - j
    std::shared_ptr<Type> recv_type;
    void* recvbuf = nullptr;
    std::size_t recvcount = 0;  ///< elements per block
    std::size_t block = 0;      ///< packed bytes per block

    std::uint8_t* packed_block(int rank) { return packed.data() + static_cast<std::size_t>(rank) * block; }
    std::uint8_t* slot(int j) { return slots.data() + static_cast<std::size_t>(j) * block; }
    /// Unpacks `bytes` of packed data from `source` into its receive block.
    void unpack_block(int source, const std::uint8_t* data, std::size_t bytes) const {
        unpack(data, bytes, recvcount, *recv_type,
               element(recvbuf, static_cast<std::size_t>(source) * recvcount, *recv_type));
    }
};

/// The rounds of MPICH's nonblocking all-to-all schedule `algorithm`
/// (MPIR_Ialltoall_intra_sched_inplace / _brucks / _permuted_sendrecv /
/// _pairwise): the blocking call's algorithms (coll_alltoall.cpp) with a
/// round where MPICH puts a schedule barrier. `work` holds the packed blocks.
void alltoall_rounds(RoundSchedule& schedule, const std::shared_ptr<AlltoallWork>& work, AlltoallAlgorithm algorithm) {
    Comm& c = schedule.comm();
    const int size = c.size(), me = c.rank();
    const std::size_t block = work->block;
    schedule.hold(work);
    const auto send_block = [&work, block](int destination) -> Payload {
        return [work, destination, block] {
            const std::uint8_t* data = work->packed_block(destination);
            return std::vector<std::uint8_t>(data, data + block);
        };
    };
    const auto receive_block = [&work](int source) -> Deliver {
        return
            [work, source](std::vector<std::uint8_t>& data) { work->unpack_block(source, data.data(), data.size()); };
    };
    const auto copy_own_block = [work, me, block] { work->unpack_block(me, work->packed_block(me), block); };
    switch (algorithm) {
        case AlltoallAlgorithm::InPlace:
            // With every other rank in ascending order, one round each.
            for (int peer = 0; peer < size; ++peer) {
                if (peer == me) continue;
                Round& round = schedule.add_round();
                round.sends.push_back({peer, send_block(peer)});
                round.receives.push_back({peer, block, false, receive_block(peer)});
            }
            break;
        case AlltoallAlgorithm::Bruck: {
            work->slots.resize(static_cast<std::size_t>(size) * block);
            for (int j = 0; j < size; ++j) std::memcpy(work->slot(j), work->packed_block((me + j) % size), block);
            for (int distance = 1; distance < size; distance *= 2) {
                std::size_t moved = 0;
                for (int j = 1; j < size; ++j)
                    if (j & distance) moved += block;
                Round& round = schedule.add_round();
                round.sends.push_back({(me + distance) % size, [work, distance, size, block] {
                                           std::vector<std::uint8_t> out;
                                           for (int j = 1; j < size; ++j)
                                               if (j & distance)
                                                   out.insert(out.end(), work->slot(j), work->slot(j) + block);
                                           return out;
                                       }});
                round.receives.push_back({(me - distance + size) % size, moved, true,
                                          [work, distance, size, block](std::vector<std::uint8_t>& data) {
                                              const std::uint8_t* next = data.data();
                                              for (int j = 1; j < size; ++j) {
                                                  if (!(j & distance)) continue;
                                                  std::memcpy(work->slot(j), next, block);
                                                  next += block;
                                              }
                                          }});
            }
            schedule.add_local([work, me, size, block] {
                for (int j = 0; j < size; ++j) work->unpack_block((me - j + size) % size, work->slot(j), block);
            });
            break;
        }
        case AlltoallAlgorithm::Scattered: {
            // Batches of up to kAlltoallThrottle peers, one round each:
            // sends to me - i, receives from me + i.
            const int batch = kAlltoallThrottle == 0 ? size : std::min(kAlltoallThrottle, size);
            for (int first = 0; first < size; first += batch) {
                const int count = std::min(batch, size - first);
                Round& round = schedule.add_round();
                for (int i = first; i < first + count; ++i) {
                    const int to = (me - i + size) % size, from = (me + i) % size;
                    if (to == me)
                        round.local.push_back(copy_own_block);
                    else
                        round.sends.push_back({to, send_block(to)});
                    if (from != me) round.receives.push_back({from, block, false, receive_block(from)});
                }
            }
            break;
        }
        case AlltoallAlgorithm::Pairwise: {
            // The own block, then P - 1 rounds: rank XOR k on a power of two,
            // else to rank + k from rank - k.
            const bool power_of_two = (size & (size - 1)) == 0;
            schedule.add_local(copy_own_block);
            for (int k = 1; k < size; ++k) {
                const int to = power_of_two ? me ^ k : (me + k) % size;
                const int from = power_of_two ? me ^ k : (me - k + size) % size;
                Round& round = schedule.add_round();
                round.sends.push_back({to, send_block(to)});
                round.receives.push_back({from, block, false, receive_block(from)});
            }
            break;
        }
    }
}

}  // namespace

extern "C" {

int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ialltoall", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::ialltoallv(false, comm, c, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr,
                                     nullptr, recvcount, recvtype, request);
        const MoveArguments args =
            check_alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Ialltoall");
        check_request_pointer(request);
        const auto size = static_cast<std::size_t>(c.size());
        const auto rcount = static_cast<std::size_t>(recvcount);
        const std::size_t block = args.block;
        auto schedule = new_schedule(comm);
        if (block > 0) {
            auto work = std::make_shared<AlltoallWork>();
            work->packed.resize(size * block);
            for (std::size_t r = 0; r < size; ++r) {
                if (args.keep)
                    pack_into(element(recvbuf, r * rcount, *args.recv_type), rcount, *args.recv_type,
                              work->packed.data() + r * block);
                else
                    pack_into(element(sendbuf, r * static_cast<std::size_t>(sendcount), *args.send_type),
                              static_cast<std::size_t>(sendcount), *args.send_type, work->packed.data() + r * block);
            }
            work->recv_type = hold_type(args.recv_type);
            work->recvbuf = recvbuf;
            work->recvcount = rcount;
            work->block = block;
            alltoall_rounds(*schedule, work, choose_alltoall(args.keep, block, c.size()));
        }
        start_nonblocking("MPI_Ialltoall", comm, std::move(schedule), request);
    });
}

int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
    return entry("MPI_Ialltoallv", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::ialltoallv(true, comm, c, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts,
                                     rdispls, 0, recvtype, request);
        const MoveArguments args = check_alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                   rdispls, recvtype, "MPI_Ialltoallv");
        check_request_pointer(request);
        const int size = c.size();
        const Type& rtype = *args.recv_type;
        std::vector<std::vector<std::uint8_t>> outgoing(static_cast<std::size_t>(size));
        std::vector<std::size_t> incoming(static_cast<std::size_t>(size));
        std::vector<int> counts(recvcounts, recvcounts + size), at(rdispls, rdispls + size);
        for (int r = 0; r < size; ++r) {
            const auto index = static_cast<std::size_t>(r);
            incoming[index] = bytes_of(recvcounts[r], rtype);
            const void* from = args.keep ? element(recvbuf, static_cast<std::size_t>(rdispls[r]), rtype)
                                         : element(sendbuf, static_cast<std::size_t>(sdispls[r]), *args.send_type);
            const auto count = static_cast<std::size_t>(args.keep ? recvcounts[r] : sendcounts[r]);
            const Type& type = args.keep ? rtype : *args.send_type;
            outgoing[index].resize(count * type.size);
            pack_into(from, count, type, outgoing[index].data());
        }
        auto schedule = new_schedule(comm);
        auto recv_type = hold_type(&rtype);
        exchange_round(*schedule, std::move(outgoing), incoming,
                       [recv_type, recvbuf, counts, at](int source, std::vector<std::uint8_t>& data) {
                           const auto r = static_cast<std::size_t>(source);
                           unpack(data.data(), data.size(), static_cast<std::size_t>(counts[r]), *recv_type,
                                  element(recvbuf, static_cast<std::size_t>(at[r]), *recv_type));
                       });
        start_nonblocking("MPI_Ialltoallv", comm, std::move(schedule), request);
    });
}

int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ialltoallw", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::ialltoallw(comm, c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                     recvtypes, request);
        const AlltoallwArguments args = check_alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                        rdispls, recvtypes, "MPI_Ialltoallw");
        check_request_pointer(request);
        const int size = c.size();
        std::vector<std::vector<std::uint8_t>> outgoing(static_cast<std::size_t>(size));
        std::vector<std::size_t> incoming(static_cast<std::size_t>(size));
        std::vector<std::shared_ptr<Type>> recv_types(static_cast<std::size_t>(size));
        std::vector<int> counts(recvcounts, recvcounts + size), at(rdispls, rdispls + size);
        auto* base = static_cast<std::uint8_t*>(recvbuf);
        for (int r = 0; r < size; ++r) {
            const auto index = static_cast<std::size_t>(r);
            const Type& rtype = *args.recv_types[index];
            recv_types[index] = hold_type(&rtype);
            incoming[index] = bytes_of(recvcounts[r], rtype);
            // Displacements are in bytes (MPI 3.1 §5.8).
            const Type& type = args.keep ? rtype : *args.send_types[index];
            const void* from = args.keep ? base + rdispls[r] : static_cast<const std::uint8_t*>(sendbuf) + sdispls[r];
            const auto count = static_cast<std::size_t>(args.keep ? recvcounts[r] : sendcounts[r]);
            outgoing[index].resize(count * type.size);
            pack_into(from, count, type, outgoing[index].data());
        }
        auto schedule = new_schedule(comm);
        exchange_round(*schedule, std::move(outgoing), incoming,
                       [recv_types, base, counts, at](int source, std::vector<std::uint8_t>& data) {
                           const auto r = static_cast<std::size_t>(source);
                           unpack(data.data(), data.size(), static_cast<std::size_t>(counts[r]), *recv_types[r],
                                  base + at[r]);
                       });
        start_nonblocking("MPI_Ialltoallw", comm, std::move(schedule), request);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Ialltoallw)
ISVP_MPI_ALIAS(Iscatter)
ISVP_MPI_ALIAS(Igather)
ISVP_MPI_ALIAS(Iallgather)
ISVP_MPI_ALIAS(Iallgatherv)
ISVP_MPI_ALIAS(Iscatterv)
ISVP_MPI_ALIAS(Igatherv)
ISVP_MPI_ALIAS(Ialltoall)
ISVP_MPI_ALIAS(Ialltoallv)
