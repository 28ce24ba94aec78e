// The nonblocking collectives' schedule engine (coll_nonblocking.h) and the
// nonblocking barrier, broadcast and reductions: MPI_Ibarrier, Ibcast,
// Ireduce, Iallreduce, Ireduce_scatter_block, Ireduce_scatter, Iscan,
// Iexscan.
//
// They always run in software: the switch's collective engine takes one
// blocking request at a time from the driver, which waits for its result.
// Algorithms:
//   Ibarrier                dissemination (round k: send to rank + 2^k,
//                           receive from rank - 2^k), any size
//   Ibcast                  binomial tree; from 12 KiB on 8 ranks or more
//                           scatter + ring allgather (van de Geijn), as Bcast
//   Ireduce                 binomial tree rooted at comm rank 0, then to the
//                           root — the blocking software schedule
//   Iallreduce              recursive doubling; from 2 KiB (and one element
//                           per rank) Rabenseifner's recursive-halving
//                           reduce-scatter + recursive-doubling allgather —
//                           the blocking software schedules
//   Ireduce_scatter(_block) recursive halving, as the blocking call
//   Iscan, Iexscan          recursive doubling, as the blocking call
// The reductions run the schedules and the arithmetic of the blocking
// software path (predefined ops: Fold::Hypercube and the AgLU's
// arithmetic; user ops: Fold::Pairwise, rank order), so a nonblocking
// reduction gives the same bits as its blocking form.
#include "coll_nonblocking.h"

#include <string>
#include <utility>

#include "intercomm.h"
#include "registry.h"

namespace isvp::mpi::coll {

// ---- the engine ----------------------------------------------------------------

ScheduleCapture*& schedule_capture() {
    static ScheduleCapture* capture = nullptr;
    return capture;
}

RoundSchedule::RoundSchedule(std::shared_ptr<Comm> comm, int phases) : comm_(std::move(comm)) {
    if (const ScheduleCapture* capture = schedule_capture()) {
        if (static_cast<std::size_t>(phases) > capture->tags.size())
            fail(MPI_ERR_INTERN, "a schedule of " + std::to_string(phases) + " phases for a persistent collective");
        tags_.assign(capture->tags.begin(), capture->tags.begin() + phases);
    } else {
        for (int phase = 0; phase < phases; ++phase) tags_.push_back(collective_tag(*comm_));
    }
}

Round& RoundSchedule::add_round() {
    rounds_.emplace_back();
    return rounds_.back();
}

void RoundSchedule::add_local(std::function<void()> step) {
    add_round().local.push_back(std::move(step));
}

void RoundSchedule::hold(std::shared_ptr<const void> state) {
    held_.push_back(std::move(state));
}

void RoundSchedule::add_schedule(const Schedule& schedule, Blocks* blocks, const Reduction* reduction, int phase) {
    if (phase < 0 || static_cast<std::size_t>(phase) >= tags_.size())
        fail(MPI_ERR_INTERN,
             "schedule phase " + std::to_string(phase) + " of a call with " + std::to_string(tags_.size()) + " tags");
    if (blocks->first.size() != schedule.blocks + 1u)
        fail(MPI_ERR_INTERN, "schedule of " + std::to_string(schedule.blocks) + " blocks on a buffer of " +
                                 std::to_string(blocks->first.size() - 1) + " blocks");
    for (const Step& step : schedule.steps) {
        Round& round = add_round();
        round.phase = phase;
        if (step.send) {
            round.sends.push_back(
                {step.send->peer, [blocks, spans = step.send->spans] { return pack_spans(*blocks, spans); }});
        }
        if (step.receive) {
            const std::size_t bytes = spans_bytes(*blocks, step.receive->spans);
            round.receives.push_back(
                {step.receive->peer, bytes, true,
                 [blocks, spans = step.receive->spans, apply = step.apply, reduction](std::vector<std::uint8_t>& data) {
                     apply_spans(*blocks, spans, apply, data.data(), reduction);
                 }});
        }
    }
}

void RoundSchedule::start_round() {
    Round& round = rounds_[current_];
    for (const auto& step : round.local) step();
    for (const RoundSend& send : round.sends) {
        std::vector<std::uint8_t> data = send.payload();
        if (!comm_->is_inter() && send.peer == comm_->rank())
            to_self_.push_back(std::move(data));
        else
            send_internal(*comm_, send.peer, tags_[static_cast<std::size_t>(round.phase)], data.data(), data.size());
    }
    arrived_.assign(round.receives.size(), std::nullopt);
    pieces_.assign(round.receives.size(), {});
    started_ = true;
}

bool RoundSchedule::take(std::size_t index) {
    if (arrived_[index]) return true;
    const RoundReceive& receive = rounds_[current_].receives[index];
    if (!comm_->is_inter() && receive.peer == comm_->rank()) {
        if (to_self_.empty()) fail(MPI_ERR_INTERN, "a round receives from this rank itself before its send");
        arrived_[index] = std::move(to_self_.front());
        to_self_.pop_front();
    } else {
        const std::uint32_t tag = tags_[static_cast<std::size_t>(rounds_[current_].phase)];
        std::vector<std::uint8_t>& pieces = pieces_[index];
        while (!arrived_[index]) {
            guest::Driver::ArrivedMessage message;
            if (!driver().take_message(comm_->peer_global(receive.peer), 0xFFFFFFFFu, tag, message)) {
                // A member's abort notice may come on another phase's tag (it
                // gave up in a later phase, or a persistent collective's earlier
                // start did: persistent.cpp).
                for (const std::uint32_t other : tags_)
                    if (other != tag) check_collective_abort(*comm_, other);
                watch_for_link_faults(*comm_, tag);
                return false;
            }
            if (message.lost)  // the member's message was lost for good: give up, tell the others
                abort_collective(*comm_, tag,
                                 "receive from rank " + std::to_string(message.source) + " failed: " + message.why);
            // A message of kInternalPieceBytes or more comes in pieces, the
            // last one shorter (send_internal); stop early at one too long.
            const bool more = message.data.size() == kInternalPieceBytes;
            if (pieces.empty() && !more) {
                arrived_[index] = std::move(message.data);
                break;
            }
            pieces.insert(pieces.end(), message.data.begin(), message.data.end());
            if (!more || pieces.size() > receive.capacity) arrived_[index] = std::move(pieces);
        }
    }
    const std::size_t got = arrived_[index]->size();
    if (receive.exact ? got != receive.capacity : got > receive.capacity)
        fail(MPI_ERR_TRUNCATE, "received " + std::to_string(got) + " bytes from rank " + std::to_string(receive.peer) +
                                   ", expected " + (receive.exact ? "" : "at most ") +
                                   std::to_string(receive.capacity) +
                                   " (do all ranks pass matching counts, datatypes and roots?)");
    return true;
}

bool RoundSchedule::advance() {
    while (current_ < rounds_.size()) {
        if (!started_) start_round();
        Round& round = rounds_[current_];
        bool complete = true;
        for (std::size_t i = 0; i < round.receives.size(); ++i) complete = take(i) && complete;
        if (!complete) return false;
        for (std::size_t i = 0; i < round.receives.size(); ++i)
            if (round.receives[i].deliver) round.receives[i].deliver(*arrived_[i]);
        arrived_.clear();
        ++current_;
        started_ = false;
    }
    return true;
}

void start_nonblocking(const char* function, MPI_Comm comm, std::shared_ptr<RoundSchedule> schedule,
                       MPI_Request* request) {
    if (ScheduleCapture* capture = schedule_capture()) {
        capture->schedule = std::move(schedule);
        *request = MPI_REQUEST_NULL;
        return;
    }
    *request = collective_request(function, comm, std::move(schedule));
}

void check_request_pointer(const MPI_Request* request) {
    if (request == nullptr) fail(MPI_ERR_ARG, "request is NULL");
}

// ---- reductions' shared state -------------------------------------------------------

ReductionState::ReductionState(const Reduction& checked)
    : op(*checked.op), type(datatypes().shared(checked.type->handle)) {
    reduction.op = &op;
    reduction.type = type.get();
}

}  // namespace isvp::mpi::coll

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Algorithm;
using isvp::Fold;
using isvp::Opcode;

namespace {

/// A reduction's working vector of `count` elements and its schedule's blocks.
struct ReductionWork : ReductionState {
    ReductionWork(const Reduction& checked, const void* input, std::size_t count)
        : ReductionState(checked), work(count, *type), blocks{work.data(), type.get(), {0, count}} {
        copy_elements(input, work.data(), count, *type);
    }
    TypedBuffer work;
    Blocks blocks;
};

/// The state of a nonblocking scan: MPICH's recursive doubling, as PMPI_Scan.
struct ScanState : ReductionState {
    ScanState(const Reduction& checked, const void* input, std::size_t elements, bool inclusive)
        : ReductionState(checked), count(elements), partial(elements, *type) {
        copy_elements(input, partial.data(), elements, *type);
        if (inclusive) {
            result = TypedBuffer(elements, *type);
            copy_elements(input, result.data(), elements, *type);
            have_result = true;
        }
    }
    std::size_t count;
    TypedBuffer partial;  ///< ops over this rank's aligned group so far
    TypedBuffer result;   ///< ops over ranks 0 .. rank (inclusive) or 0 .. rank-1
    bool have_result = false;
};

/// Iscan / Iexscan: one round per doubling step (send the partial, combine
/// the peer's), then the result to recvbuf. `inclusive`: rank r gets ops
/// over ranks 0..r; otherwise 0..r-1 and rank 0's recvbuf is left alone.
void scan(const char* function, MPI_Comm comm, const Reduction& reduction, const void* input, void* recvbuf, int count,
          bool inclusive, MPI_Request* request) {
    Comm& c = check_comm(comm);
    const auto n = static_cast<std::size_t>(count);
    auto state = std::make_shared<ScanState>(reduction, input, n, inclusive);
    auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm));
    schedule->hold(state);
    const int size = c.size(), me = c.rank();
    if (n > 0) {
        for (int mask = 1; mask < size; mask <<= 1) {
            const int peer = me ^ mask;
            if (peer >= size) continue;
            Round& round = schedule->add_round();
            round.sends.push_back({peer, [state] {
                                       std::vector<std::uint8_t> packed(state->count * state->type->size);
                                       pack_into(state->partial.data(), state->count, *state->type, packed.data());
                                       return packed;
                                   }});
            const bool lower = peer < me;  // the peer's group is lower: it goes on the left
            round.receives.push_back(
                {peer, n * state->type->size, true, [state, lower](std::vector<std::uint8_t>& data) {
                     ScanState& s = *state;
                     TypedBuffer received(s.count, *s.type);
                     unpack_from(data.data(), s.count, *s.type, received.data());
                     if (!lower) {
                         s.reduction.combine(received.data(), s.partial.data(), s.count, false);
                         return;
                     }
                     if (s.have_result) {
                         s.reduction.combine(received.data(), s.result.data(), s.count, true);
                     } else {
                         s.result = TypedBuffer(s.count, *s.type);
                         copy_elements(received.data(), s.result.data(), s.count, *s.type);
                         s.have_result = true;
                     }
                     s.reduction.combine(received.data(), s.partial.data(), s.count, true);
                 }});
        }
        schedule->add_local([state, recvbuf] {
            if (state->have_result) copy_elements(state->result.data(), recvbuf, state->count, *state->type);
        });
    }
    start_nonblocking(function, comm, std::move(schedule), request);
}

/// Ireduce_scatter(_block): block b of the reduced input is elements
/// first[b] .. first[b+1]; this rank's block goes to recvbuf.
void reduce_scatter(const char* function, MPI_Comm comm, const Reduction& reduction, const void* input, void* recvbuf,
                    std::vector<std::size_t> first, MPI_Request* request) {
    Comm& c = check_comm(comm);
    const auto me = static_cast<std::size_t>(c.rank());
    const std::size_t total = first.back(), own = first[me + 1] - first[me];
    auto state = std::make_shared<ReductionWork>(reduction, input, total);
    state->blocks.first = std::move(first);
    auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm));
    schedule->hold(state);
    if (total > 0) {
        schedule->add_schedule(make_schedule(Opcode::ReduceScatter, Algorithm::RecursiveHalving, c.size(), c.rank(), 0,
                                             state->reduction.fold()),
                               &state->blocks, &state->reduction);
        const std::size_t at = state->blocks.first[me];
        schedule->add_local([state, recvbuf, at, own] {
            copy_elements(element(state->work.data(), at, *state->type), recvbuf, own, *state->type);
        });
    }
    start_nonblocking(function, comm, std::move(schedule), request);
}

}  // namespace

extern "C" {

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ibarrier", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::ibarrier(comm, c, request);
        check_request_pointer(request);
        auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm));
        const int size = c.size(), me = c.rank();
        for (int distance = 1; distance < size; distance *= 2) {
            Round& round = schedule->add_round();
            round.sends.push_back({(me + distance) % size, [] { return std::vector<std::uint8_t>(); }});
            round.receives.push_back({(me - distance + size) % size, 0, true, nullptr});
        }
        start_nonblocking("MPI_Ibarrier", comm, std::move(schedule), request);
    });
}

int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ibcast", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::ibcast(comm, c, buffer, count, datatype, root, request);
        const Type& type = check_bcast(c, buffer, count, datatype, root, "MPI_Ibcast");
        check_request_pointer(request);
        struct State {
            std::shared_ptr<Type> type;
            std::vector<std::uint8_t> packed;  ///< non-contiguous types: the data packed
            Blocks blocks;
        };
        auto state = std::make_shared<State>();
        state->type = datatypes().shared(datatype);
        const auto n = static_cast<std::size_t>(count);
        const std::size_t bytes = n * type.size;
        const bool is_root = c.rank() == root;
        std::uint8_t* data = nullptr;
        if (type.contiguous) {
            data = bytes ? data_start(buffer, type) : nullptr;
        } else {
            state->packed.resize(bytes);
            if (is_root) pack_into(buffer, n, type, state->packed.data());
            data = state->packed.data();
        }
        state->blocks = Blocks{data, nullptr, {0, bytes}};
        // van de Geijn for long vectors, as MPI_Bcast: scatter the pieces, then a ring allgather.
        const bool long_vector = bytes >= kBcastLongBytes && c.size() >= kBcastLongMinRanks;
        auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm), long_vector ? 2 : 1);
        schedule->hold(state);
        if (bytes > 0 && long_vector) {
            state->blocks.first = split_evenly(bytes, static_cast<std::size_t>(c.size()));
            schedule->add_schedule(
                make_schedule(Opcode::Scatter, Algorithm::BinomialTree, c.size(), c.rank(), root, Fold::Pairwise),
                &state->blocks);
            schedule->add_schedule(
                make_schedule(Opcode::Allgather, Algorithm::Ring, c.size(), c.rank(), 0, Fold::Pairwise),
                &state->blocks, nullptr, 1);
        } else if (bytes > 0) {
            schedule->add_schedule(
                make_schedule(Opcode::Bcast, Algorithm::BinomialTree, c.size(), c.rank(), root, Fold::Pairwise),
                &state->blocks);
        }
        if (bytes > 0) {
            if (!type.contiguous && !is_root)
                schedule->add_local([state, buffer, n] { unpack_from(state->packed.data(), n, *state->type, buffer); });
        }
        start_nonblocking("MPI_Ibcast", comm, std::move(schedule), request);
    });
}

int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ireduce", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::ireduce(comm, c, sendbuf, recvbuf, count, datatype, op, root, request);
        const Reduction reduction = check_reduction(count, datatype, op);
        check_root(c, root);
        check_reduce_buffers(c, sendbuf, recvbuf, count, *reduction.type, root, "MPI_Ireduce");
        check_request_pointer(request);
        const auto n = static_cast<std::size_t>(count);
        auto state = std::make_shared<ReductionWork>(reduction, in_place(sendbuf) ? recvbuf : sendbuf, n);
        auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm));
        schedule->hold(state);
        if (n > 0) {
            schedule->add_schedule(make_schedule(Opcode::Reduce, Algorithm::BinomialTree, c.size(), c.rank(), root,
                                                 state->reduction.fold()),
                                   &state->blocks, &state->reduction);
            if (c.rank() == root)
                schedule->add_local(
                    [state, recvbuf, n] { copy_elements(state->work.data(), recvbuf, n, *state->type); });
        }
        start_nonblocking("MPI_Ireduce", comm, std::move(schedule), request);
    });
}

int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request) {
    return entry("MPI_Iallreduce", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::iallreduce(comm, c, sendbuf, recvbuf, count, datatype, op, request);
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Iallreduce");
        check_request_pointer(request);
        const auto n = static_cast<std::size_t>(count);
        auto state = std::make_shared<ReductionWork>(reduction, in_place(sendbuf) ? recvbuf : sendbuf, n);
        // Rabenseifner's for long vectors, as MPI_Allreduce: the same combine tree per element.
        const auto size = static_cast<std::size_t>(c.size());
        const bool long_vector = n * reduction.type->size >= kAllreduceLongBytes && n >= size;
        auto schedule = std::make_shared<RoundSchedule>(communicators().shared(comm), long_vector ? 2 : 1);
        schedule->hold(state);
        if (n > 0 && long_vector) {
            state->blocks.first = split_evenly(n, size);
            schedule->add_schedule(make_schedule(Opcode::ReduceScatter, Algorithm::RecursiveHalving, c.size(), c.rank(),
                                                 0, state->reduction.fold()),
                                   &state->blocks, &state->reduction);
            schedule->add_schedule(make_schedule(Opcode::Allgather, Algorithm::RecursiveDoubling, c.size(), c.rank(), 0,
                                                 state->reduction.fold()),
                                   &state->blocks, nullptr, 1);
        } else if (n > 0) {
            schedule->add_schedule(make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling, c.size(), c.rank(), 0,
                                                 state->reduction.fold()),
                                   &state->blocks, &state->reduction);
        }
        if (n > 0) {
            schedule->add_local([state, recvbuf, n] { copy_elements(state->work.data(), recvbuf, n, *state->type); });
        }
        start_nonblocking("MPI_Iallreduce", comm, std::move(schedule), request);
    });
}

int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ireduce_scatter_block", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter())
            return inter::ireduce_scatter_block(comm, c, sendbuf, recvbuf, recvcount, datatype, op, request);
        const Reduction reduction = check_reduction(recvcount, datatype, op, "recvcount");
        check_result_buffers(sendbuf, recvbuf, recvcount, *reduction.type, "MPI_Ireduce_scatter_block");
        check_request_pointer(request);
        reduce_scatter("MPI_Ireduce_scatter_block", comm, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf,
                       equal_blocks(static_cast<std::size_t>(c.size()), static_cast<std::size_t>(recvcount)), request);
    });
}

int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request* request) {
    return entry("MPI_Ireduce_scatter", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) return inter::ireduce_scatter(comm, c, sendbuf, recvbuf, recvcounts, datatype, op, request);
        std::vector<std::size_t> first;
        const Reduction reduction =
            check_reduce_scatter(c, sendbuf, recvbuf, recvcounts, datatype, op, "MPI_Ireduce_scatter", first);
        check_request_pointer(request);
        reduce_scatter("MPI_Ireduce_scatter", comm, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf,
                       std::move(first), request);
    });
}

int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request* request) {
    return entry("MPI_Iscan", comm, [&] {
        refuse_inter(check_comm(comm), "MPI_Iscan");
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Iscan");
        check_request_pointer(request);
        scan("MPI_Iscan", comm, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf, count, true, request);
    });
}

int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
    return entry("MPI_Iexscan", comm, [&] {
        Comm& c = check_comm(comm);
        refuse_inter(c, "MPI_Iexscan");
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Iexscan", c.rank() > 0);
        check_request_pointer(request);
        scan("MPI_Iexscan", comm, reduction, in_place(sendbuf) ? recvbuf : sendbuf, recvbuf, count, false, request);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Ireduce_scatter_block)
ISVP_MPI_ALIAS(Ireduce_scatter)
ISVP_MPI_ALIAS(Iscan)
ISVP_MPI_ALIAS(Iexscan)
ISVP_MPI_ALIAS(Ibarrier)
ISVP_MPI_ALIAS(Ibcast)
ISVP_MPI_ALIAS(Ireduce)
ISVP_MPI_ALIAS(Iallreduce)
