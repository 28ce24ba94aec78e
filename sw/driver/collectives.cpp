#include "isvp/collectives.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "isvp/aglu_core.h"
#include "isvp/cgra.h"
#include "isvp/collective_core.h"
#include "isvp/sharp_resources.h"

namespace isvp::guest {

namespace {

/// Collective envelope bytes (docs/COLLECTIVES.md).
constexpr std::size_t kCollectiveEnvelopeBytes = 16;
/// Reserved tag: bit 31, communicator ID in bits [30:23], sequence in [22:0].
constexpr unsigned kSequenceBits = 23;

/// The tag of an abort notice for the exchange with tag `tag`
/// (receive_step): the top quarter of the sequence space, which the
/// sequences of a communicator reach only after 6 M exchanges (the range
/// from 2^22 holds MPI_Comm_create_group's exchanges, comm_nonblocking.cpp).
std::uint32_t notice_tag(std::uint32_t tag) {
    constexpr std::uint32_t kSequenceMask = (1u << kSequenceBits) - 1;
    constexpr std::uint32_t kQuarter = 1u << (kSequenceBits - 2);
    return (tag & ~kSequenceMask) | 3u * kQuarter | (tag & (kQuarter - 1));
}

/// A member's abort notice ended this rank's part of a software collective:
/// passed on as it is (the member told everyone already).
class MemberGaveUp : public LinkFaultError {
  public:
    using LinkFaultError::LinkFaultError;
};

std::uint32_t reserved_tag(const Communicator& comm) {
    return kReservedTagBase | comm.id << kSequenceBits | (comm.sequence & ((1u << kSequenceBits) - 1));
}

bool has_root(Opcode collective) {
    return collective == Opcode::Bcast || collective == Opcode::Reduce || collective == Opcode::Scatter ||
           collective == Opcode::Gather;
}

/// One block per comm rank (the rest have a single block).
bool per_rank_blocks(Opcode collective) {
    return collective == Opcode::Scatter || collective == Opcode::Gather || collective == Opcode::Allgather ||
           collective == Opcode::ReduceScatter || collective == Opcode::Alltoall;
}

std::string lower_name(Opcode collective) {
    switch (collective) {
        case Opcode::Bcast:
            return "bcast";
        case Opcode::Reduce:
            return "reduce";
        case Opcode::Allreduce:
            return "allreduce";
        case Opcode::Scatter:
            return "scatter";
        case Opcode::Gather:
            return "gather";
        case Opcode::Allgather:
            return "allgather";
        case Opcode::ReduceScatter:
            return "reduce_scatter_block";
        case Opcode::Barrier:
            return "barrier";
        case Opcode::Alltoall:
            return "alltoall";
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
    return "send";
}

/// `hosts`: NODE_COUNT; the pair of an error 6 may name switch engines above it.
std::string switch_error(const CollectiveResult& outcome, unsigned hosts) {
    const std::uint32_t code = outcome.error_code, detail = outcome.error_detail;
    const std::string members = detail ? "; across the members: " + describe_mismatch(detail) : "";
    switch (code) {
        case 1:
            return "1 (unknown context)";
        case 2:
            return "2 (unsupported operation/datatype" + members + ")";
        case 3:
            return "3 (arguments disagree across ranks: " + describe_mismatch(detail) + ")";
        case 4:
            return "4 (size outside the communicator-table row" + members + ")";
        case 5:
            return "5 (aborted: a member's communicator-table row was released during the call)";
        case 6:
            // The pair is 0 when this member learnt of it from another's agreement record, which names no pair.
            if (detail == 0)
                return "6 (link fault: packets between members were lost for good; the reliable layer gave up)";
            return "6 (link fault: " +
                   (outcome.error_lost > 0
                        ? std::to_string(outcome.error_lost) + " packet" + (outcome.error_lost == 1 ? "" : "s")
                        : std::string("packets")) +
                   " from " + endpoint_label(detail >> 16, hosts) + " to " + endpoint_label(detail & 0xFFFF, hosts) +
                   " lost for good" + describe_cable(outcome.error_link_from, outcome.error_link_to) +
                   "; the reliable layer gave up)";
        case 7:
            return "7 (" + describe_sharp_error(detail) + ")";
        default:
            return std::to_string(code);
    }
}

/// Byte layout of a call's blocks: equal blocks of `count` elements, or the
/// unequal counts of a reduce_scatter.
BlockLayout layout_of(std::uint32_t blocks, std::size_t count, std::size_t element,
                      const std::vector<std::size_t>* counts) {
    if (counts == nullptr) return BlockLayout::uniform(blocks, count * element);
    std::vector<std::uint64_t> sizes;
    for (const std::size_t n : *counts) sizes.push_back(n * element);
    return BlockLayout::variable(sizes);
}

}  // namespace

void combine_elements(Operation op, Datatype type, const std::uint8_t* left, const std::uint8_t* right,
                      std::uint8_t* out, std::size_t bytes) {
    if (!aglu_supports(op, type))
        throw DriverError("collective: operation " + std::string(to_string(op)) + " is not defined on datatype " +
                          std::string(to_string(type)));
    constexpr std::size_t kBatch = 256;  // vectors per aglu_combine call
    std::array<Vector256, kBatch> a{}, b{}, r{};
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t chunk = std::min(bytes - done, kBatch * kVectorBytes);
        const std::size_t vectors = (chunk + kVectorBytes - 1) / kVectorBytes;
        // The last vector is padded with zeros (lanes ignored on the way out).
        a[vectors - 1] = Vector256{};
        b[vectors - 1] = Vector256{};
        std::memcpy(a.data(), left + done, chunk);
        std::memcpy(b.data(), right + done, chunk);
        aglu_combine(op, type, a.data(), b.data(), r.data(), vectors);
        std::memcpy(out + done, r.data(), chunk);
        done += chunk;
    }
}

struct Collectives::Call {
    Opcode collective = Opcode::Barrier;
    Datatype type = Datatype::UInt8;
    std::optional<Operation> op;  ///< reductions only
    std::size_t count = 0;        ///< elements (per block for per-rank collectives)
    int root = 0;
    const void* send = nullptr;                        ///< input (bcast: the buffer)
    void* recv = nullptr;                              ///< output (bcast: the buffer)
    const std::vector<std::size_t>* counts = nullptr;  ///< reduce_scatter with unequal counts: per block
    /// An ingress kernel's input (send) replaces the contribution.
    std::optional<std::size_t> ingress_bytes{};
};

Collectives::Collectives(Driver& driver, bool offload) : driver_(driver), offload_(offload) {
    world_.id = 0;
    world_.rank = driver_.rank();
    for (int r = 0; r < driver_.size(); ++r) world_.members.push_back(r);
    activate(world_);
}

void Collectives::activate(Communicator& comm) {
    used_.set(comm.id);
    const AcceleratorInfo& accelerator = driver_.accelerator();
    comm.offloadable = offload_ && accelerator.present && comm.id < accelerator.ct_rows;
    if (!comm.offloadable) return;
    driver_.load_ct_row(comm.id, ct_row(comm.members, comm.rank));
    // The switch refuses a row whose receive windows do not fit its memory;
    // the members agree (software AND) so that all offload or none does.
    // Nobody's request may reach a switch before that switch has the row:
    // each member's row write precedes its message here (PCIe ordering).
    const std::uint32_t loaded = driver_.ct_row_valid(comm.id) ? 1 : 0;
    std::uint32_t everywhere = 0;
    Call call;
    call.collective = Opcode::Allreduce;
    call.type = Datatype::UInt32;
    call.op = Operation::Band;
    call.count = 1;
    call.send = &loaded;
    call.recv = &everywhere;
    try {
        run_creation_exchange(comm, call, comm.creation_tags);
    } catch (const DriverError&) {
        comm.offloadable = false;  // this member's creation failed: nothing of it stays
        if (loaded) driver_.release_ct_row(comm.id);
        used_.reset(comm.id);
        throw;
    }
    if (everywhere) return;
    if (loaded) driver_.release_ct_row(comm.id);
    comm.offloadable = false;
}

void Collectives::run_creation_exchange(Communicator& comm, const Call& call, std::vector<std::uint32_t>& tags) {
    tags.push_back(reserved_tag(comm));
    // While it runs, a notice for an earlier exchange of this creation ends
    // it too: a member that gave that one up sends nothing in this one.
    struct Watch {
        Collectives& self;
        Communicator& comm;
        ~Watch() {
            ++comm.sequence;
            self.creation_watch_ = nullptr;
        }
    } watch{*this, comm};
    creation_watch_ = &tags;
    run_software(comm, call);
}

std::optional<std::string> Collectives::take_creation_notices(const std::vector<std::uint32_t>& tags) {
    std::optional<std::string> first;
    for (const std::uint32_t tag : tags) {
        Driver::ArrivedMessage message;
        // Every notice goes (several members may have failed); a loss that
        // stands for any tag is left for the receive it stands for.
        while (driver_.take_message(kAnySource, 0xFFFFFFFFu, notice_tag(tag), message, false)) {
            if (first) continue;
            first = message.lost ? "rank " + std::to_string(message.source) +
                                       "'s abort notice for it was lost: " + message.why
                                 : std::string(message.data.begin(), message.data.end());
        }
    }
    return first;
}

void Collectives::check_creation(Communicator& comm) {
    if (!comm.revoked.empty()) throw LinkFaultError(comm.revoked);
    if (const std::optional<std::string> why = take_creation_notices(comm.creation_tags)) {
        comm.revoked = "collective: communicator " + std::to_string(comm.id) +
                       " is revoked: its creation failed on another rank (" + *why + ")";
        throw LinkFaultError(comm.revoked);
    }
}

unsigned Collectives::agree_id(Communicator& parent, std::vector<std::uint32_t>& tags) {
    constexpr std::size_t kWords = kCommunicatorIds / 32;
    const std::array<std::uint32_t, kWords> mine = free_ids();
    std::array<std::uint32_t, kWords> common{};
    Call call;
    call.collective = Opcode::Allreduce;
    call.type = Datatype::UInt32;
    call.op = Operation::Band;
    call.count = kWords;
    call.send = mine.data();
    call.recv = common.data();
    run_creation_exchange(parent, call, tags);
    for (unsigned id = 0; id < kCommunicatorIds; ++id)
        if (common[id / 32] >> (id % 32) & 1u) return id;
    throw DriverError(
        "collective: no communicator ID is free on every member (" + std::to_string(kCommunicatorIds) +
        " in use); free some communicators (a freed one keeps its ID until its pending requests are done)");
}

std::array<std::uint32_t, kCommunicatorIds / 32> Collectives::free_ids() {
    release_retired();
    std::array<std::uint32_t, kCommunicatorIds / 32> free_words{};
    for (unsigned id = 0; id < kCommunicatorIds; ++id)
        if (!used_[id]) free_words[id / 32] |= 1u << (id % 32);
    return free_words;
}

Communicator Collectives::adopt(unsigned id, std::vector<int> members, int rank, bool upload_row) {
    if (id >= kCommunicatorIds || used_[id])
        throw DriverError("collective: communicator ID " + std::to_string(id) + " is not free on this rank");
    if (rank < 0 || rank >= static_cast<int>(members.size()))
        throw DriverError("collective: rank " + std::to_string(rank) + " outside a communicator of " +
                          std::to_string(members.size()) + " members");
    Communicator comm;
    comm.id = id;
    comm.rank = rank;
    comm.members = std::move(members);
    if (upload_row) {
        activate(comm);
    } else {
        used_.set(id);
        comm.offloadable = false;
    }
    return comm;
}

Communicator Collectives::dup(Communicator& parent) {
    if (parent.members.empty() || parent.retired) throw DriverError("collective: dup of a freed communicator");
    if (!parent.revoked.empty()) throw LinkFaultError(parent.revoked);
    Communicator comm;
    comm.id = agree_id(parent, comm.creation_tags);
    comm.rank = parent.rank;
    comm.members = parent.members;
    activate(comm);
    return comm;
}

std::optional<Communicator> Collectives::split(Communicator& parent, int colour, int key) {
    if (parent.members.empty() || parent.retired) throw DriverError("collective: split of a freed communicator");
    if (!parent.revoked.empty()) throw LinkFaultError(parent.revoked);
    const SplitRequest mine{colour, key};
    std::vector<SplitRequest> requests(static_cast<std::size_t>(parent.size()));
    static_assert(sizeof(SplitRequest) == 8);
    Call call;
    call.collective = Opcode::Allgather;
    call.type = Datatype::Int32Int32;  // an 8-byte element: {colour, key}
    call.count = 1;
    call.send = &mine;
    call.recv = requests.data();
    std::vector<std::uint32_t> tags;
    try {
        run_creation_exchange(parent, call, tags);
    } catch (const DriverError&) {
        // The ID agreement this member now skips takes its number too: the
        // others run it (and give it up on this member's notice), so the
        // parent's next exchange has the same number everywhere.
        ++parent.sequence;
        throw;
    }
    const unsigned id = agree_id(parent, tags);
    const std::vector<int> order = split_order(requests, parent.rank);
    if (order.empty()) return std::nullopt;
    Communicator comm;
    comm.id = id;
    comm.creation_tags = std::move(tags);
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] == parent.rank) comm.rank = static_cast<int>(i);
        comm.members.push_back(parent.global_rank(order[i]));
    }
    activate(comm);
    return comm;
}

void Collectives::drop_row(Communicator& comm, const char* what) {
    if (comm.members.empty() || comm.retired)
        throw DriverError(std::string("collective: ") + what + " of a communicator already freed");
    if (comm.id == world_.id) throw DriverError("collective: the world communicator cannot be freed");
    settle(comm.id);
    if (comm.offloadable) {
        // Every member is done with the row before any switch drops it
        // (a revoked communicator's members never all had it).
        try {
            if (comm.revoked.empty()) run_software(comm, Call{});
        } catch (const LinkFaultError&) {
            if (comm.revoked.empty()) throw;
        }
        driver_.release_ct_row(comm.id);
    }
    comm.offloadable = false;
}

void Collectives::free(Communicator& comm) {
    drop_row(comm, "free");
    take_creation_notices(comm.creation_tags);  // late ones of a creation that failed elsewhere: stale from now
    used_.reset(comm.id);
    comm.members.clear();
}

void Collectives::retire(Communicator& comm, std::weak_ptr<const void> users) {
    drop_row(comm, "free");
    take_creation_notices(comm.creation_tags);
    comm.retired = true;
    retired_.push_back({comm.id, std::move(users)});
}

void Collectives::release_retired() {
    const auto done = [](const Retired& r) { return r.users.expired(); };
    for (const Retired& r : retired_)
        if (done(r)) used_.reset(r.id);
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(), done), retired_.end());
}

bool Collectives::would_offload(const Communicator& comm, Opcode collective, std::optional<Operation> op, Datatype type,
                                std::uint64_t buffer_bytes) const {
    const Algorithm algorithm = default_algorithm(collective);
    const AcceleratorInfo& accelerator = driver_.accelerator();
    const bool reduction =
        collective == Opcode::Allreduce || collective == Opcode::Reduce || collective == Opcode::Barrier;
    return offload_ && comm.offloadable && accelerator.present && algorithm != Algorithm::Ring &&
           (reduction || !accelerator.reductions_only) &&
           (accelerator.algorithms >> static_cast<unsigned>(algorithm) & 1u) && (!op || aglu_supports(*op, type)) &&
           buffer_bytes <= accelerator.max_buffer_bytes;
}

std::uint64_t Collectives::check_call(const Communicator& comm, const Call& call) const {
    // Built only for an error (not on every call).
    const auto name = [&] {
        return "collective: " +
               (call.counts ? std::string(call.collective == Opcode::Allgather ? "allgatherv" : "reduce_scatter")
                            : lower_name(call.collective));
    };
    if (comm.members.empty() || comm.retired) throw DriverError(name() + " on a freed communicator");
    const int size = comm.size();
    if (static_cast<unsigned>(call.type) >= static_cast<unsigned>(kDatatypeCount))
        throw DriverError(name() + ": datatype code " + std::to_string(static_cast<unsigned>(call.type)) +
                          " is not a datatype");
    if (has_root(call.collective) && (call.root < 0 || call.root >= size))
        throw DriverError(name() + ": root " + std::to_string(call.root) + " outside the communicator (comm ranks 0.." +
                          std::to_string(size - 1) + ")");
    if (call.op && !aglu_supports(*call.op, call.type))
        throw DriverError(name() + ": operation " + std::string(to_string(*call.op)) + " is not defined on datatype " +
                          std::string(to_string(call.type)));
    const std::size_t blocks = per_rank_blocks(call.collective) ? static_cast<std::size_t>(size) : 1;
    std::size_t count = call.count;  // per block; unequal counts: their sum, checked as one block
    std::size_t checked_blocks = blocks;
    if (call.counts) {
        if (call.counts->size() != static_cast<std::size_t>(size))
            throw DriverError(name() + ": " + std::to_string(call.counts->size()) + " counts for a communicator of " +
                              std::to_string(size) + " ranks");
        count = 0;
        for (const std::size_t n : *call.counts) {
            if (n > std::numeric_limits<std::uint32_t>::max())
                throw DriverError(name() + ": count " + std::to_string(n) + " exceeds 2^32 - 1 elements");
            count += n;
        }
        checked_blocks = 1;
    }
    const std::size_t table = call.counts ? 4 * call.counts->size() : 0;
    const std::size_t limit =
        (kMaxMessageBytes - kCollectiveEnvelopeBytes - table) / (element_size(call.type) * checked_blocks);
    if (count > limit || count > std::numeric_limits<std::uint32_t>::max())
        throw DriverError(name() + ": count " + std::to_string(count) + " exceeds " + std::to_string(limit) +
                          " elements of " + std::string(to_string(call.type)) + " (" + std::to_string(blocks) +
                          " block(s) must fit one message of " + std::to_string(kMaxMessageBytes) + " bytes)");
    if (count > 0) {
        const bool root = comm.rank == call.root;
        const bool reads_send = call.collective != Opcode::Scatter || root;
        const bool writes_recv = (call.collective != Opcode::Reduce && call.collective != Opcode::Gather) || root;
        const char* send_name = call.collective == Opcode::Bcast ? "buffer" : "send buffer";
        if (reads_send && call.send == nullptr && call.collective != Opcode::Barrier)
            throw DriverError(name() + ": " + send_name + " is null with count " + std::to_string(count));
        const std::size_t mine = call.counts ? (*call.counts)[static_cast<std::size_t>(comm.rank)] : count;
        if (writes_recv && call.recv == nullptr && call.collective != Opcode::Barrier && mine > 0)
            throw DriverError(name() + ": receive buffer is null with count " + std::to_string(mine));
    }
    // The switch's buffer: every block (unequal counts: their sum; an
    // alltoall's schedule's scratch too), none for a barrier.
    if (call.collective == Opcode::Alltoall) checked_blocks = alltoall_buffer_blocks(size);
    return call.collective == Opcode::Barrier
               ? 0
               : static_cast<std::uint64_t>(count) * element_size(call.type) * checked_blocks;
}

void Collectives::run(Communicator& comm, const Call& call) {
    const std::uint64_t buffer_bytes = check_call(comm, call);
    if (!comm.revoked.empty()) throw LinkFaultError(comm.revoked);
    // From here the members communicate: the sequence moves on whatever
    // happens, so an error (e.g. arguments that differ across the members,
    // reported by the switch to every member) leaves the communicator usable.
    struct NextSequence {
        Communicator& comm;
        ~NextSequence() { ++comm.sequence; }
    } next{comm};
    if (would_offload(comm, call.collective, call.op, call.type, buffer_bytes))
        run_offloaded(comm, call);
    else
        run_software(comm, call, !driver_.timing_only());
}

void Collectives::run_software(Communicator& comm, const Call& call, bool payload) {
    ++software_calls_;
    const int size = comm.size(), me = comm.rank;
    const Schedule schedule =
        make_schedule(call.collective, default_algorithm(call.collective), size, me, call.root, Fold::Pairwise);
    const BlockLayout layout = layout_of(schedule.blocks, call.count, element_size(call.type), call.counts);
    const std::uint32_t tag = reserved_tag(comm);
    if (!payload) {  // timing only: the same messages, their lengths without their bytes
        for (const Step& step : schedule.steps) {
            if (step.send)
                driver_.send_length_only(comm.global_rank(step.send->peer), tag,
                                         StreamMap(step.send->spans, layout).bytes());
            if (step.receive) {
                const std::size_t expected = StreamMap(step.receive->spans, layout).bytes();
                const int source = comm.global_rank(step.receive->peer);
                const ReceiveStatus status = receive_step(comm, source, tag, nullptr, 0, expected);
                if (status.bytes != expected)
                    throw DriverError("collective: " + lower_name(call.collective) + " got " +
                                      std::to_string(status.bytes) + " bytes from rank " + std::to_string(source) +
                                      ", expected " + std::to_string(expected) +
                                      " (do all members pass the same count and root?)");
            }
        }
        return;
    }
    const std::size_t total = layout.total();
    const std::size_t all_ranks = layout.bytes(BlockSpan{0, std::min<std::uint32_t>(schedule.blocks, size)});
    const auto own = BlockSpan{static_cast<std::uint32_t>(me), 1};
    std::vector<std::uint8_t> work(total);
    const auto* send = static_cast<const std::uint8_t*>(call.send);
    switch (call.collective) {
        case Opcode::Bcast:
        case Opcode::Scatter:
            if (me == call.root && total) std::memcpy(work.data(), send, total);
            break;
        case Opcode::Gather:
        case Opcode::Allgather:
            if (layout.bytes(own)) std::memcpy(work.data() + layout.offset(own.first), send, layout.bytes(own));
            break;
        case Opcode::Reduce:
        case Opcode::Allreduce:
        case Opcode::ReduceScatter:
            if (total) std::memcpy(work.data(), send, total);
            break;
        case Opcode::Alltoall:  // blocks 0 .. size - 1; the schedule's scratch beyond
            if (all_ranks) std::memcpy(work.data(), send, all_ranks);
            break;
        case Opcode::Barrier:
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }

    std::vector<std::uint8_t> message;
    for (const Step& step : schedule.steps) {
        if (step.send) {
            const StreamMap out(step.send->spans, layout);
            message.resize(out.bytes());
            out.gather(work.data(), 0, out.bytes(), message.data());
            driver_.send_reserved(comm.global_rank(step.send->peer), tag, message.data(), message.size());
        }
        if (step.receive) {
            const StreamMap in(step.receive->spans, layout);
            const std::size_t expected = in.bytes();
            message.resize(expected);
            const int source = comm.global_rank(step.receive->peer);
            const ReceiveStatus status = receive_step(comm, source, tag, message.data(), expected, expected);
            if (status.bytes != expected)
                throw DriverError("collective: " + lower_name(call.collective) + " got " +
                                  std::to_string(status.bytes) + " bytes from rank " + std::to_string(source) +
                                  ", expected " + std::to_string(expected) +
                                  " (do all members pass the same count and root?)");
            in.for_each(0, expected, [&](std::uint64_t at, std::uint64_t bytes, std::uint64_t stream) {
                std::uint8_t* local = work.data() + at;
                const std::uint8_t* received = message.data() + stream;
                if (step.apply == Apply::Copy)
                    std::memcpy(local, received, bytes);
                else if (step.apply == Apply::CombineLeft)
                    combine_elements(*call.op, call.type, received, local, local, bytes);
                else
                    combine_elements(*call.op, call.type, local, received, local, bytes);
            });
        }
    }

    auto* recv = static_cast<std::uint8_t*>(call.recv);
    const bool root = me == call.root;
    switch (call.collective) {
        case Opcode::Bcast:
        case Opcode::Allreduce:
        case Opcode::Allgather:
            if (total) std::memcpy(recv, work.data(), total);
            break;
        case Opcode::Alltoall:
            if (all_ranks) std::memcpy(recv, work.data(), all_ranks);
            break;
        case Opcode::Reduce:
        case Opcode::Gather:
            if (root && total) std::memcpy(recv, work.data(), total);
            break;
        case Opcode::Scatter:
        case Opcode::ReduceScatter:
            if (layout.bytes(own)) std::memcpy(recv, work.data() + layout.offset(own.first), layout.bytes(own));
            break;
        case Opcode::Barrier:
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
}

ReceiveStatus Collectives::receive_step(Communicator& comm, int source, std::uint32_t tag, void* buffer,
                                        std::size_t capacity, std::size_t expected) {
    // A member that gave this collective up (its notice, or the notice's
    // loss) ends the wait: it sends nothing more in it.
    const auto notice = [&] {
        // So does the notice of a member whose part of the communicator's
        // creation failed (it told every member already).
        if (!lost_counts_as_arrived_ && creation_watch_ != nullptr)
            if (const std::optional<std::string> why = take_creation_notices(*creation_watch_)) throw MemberGaveUp(*why);
        try {
            if (!comm.creation_tags.empty() && !lost_counts_as_arrived_) check_creation(comm);
        } catch (const LinkFaultError& error) {
            throw MemberGaveUp(error.what());
        }
        Driver::ArrivedMessage message;
        if (lost_counts_as_arrived_ || !driver_.take_message(kAnySource, 0xFFFFFFFFu, notice_tag(tag), message)) return;
        if (message.lost)
            throw MemberGaveUp("collective: a member's abort notice for this exchange was lost: " + message.why);
        throw MemberGaveUp(std::string(message.data.begin(), message.data.end()));
    };
    try {
        return driver_.receive_reserved(source, tag, buffer, capacity, lost_counts_as_arrived_, notice);
    } catch (const MemberGaveUp&) {
        throw;
    } catch (const LinkFaultError& error) {
        if (!lost_counts_as_arrived_) {
            const std::string text = "collective: rank " + std::to_string(comm.rank) +
                                     " gave this software exchange up: " + error.what() +
                                     " (its other members were told)";
            for (int member = 0; member < comm.size(); ++member)
                if (member != comm.rank)
                    driver_.send_reserved(comm.global_rank(member), notice_tag(tag), text.data(), text.size());
            throw LinkFaultError(text);
        }
        ReceiveStatus status;  // MPI_Finalize's barrier: the sender got this far
        status.source = source;
        status.tag = tag;
        status.bytes = expected;
        return status;
    }
}

void Collectives::run_offloaded(Communicator& comm, const Call& call) {
    receive_offloaded(comm.id, call.collective, call.recv, post_offloaded(comm, call), &comm);
}

std::size_t Collectives::post_offloaded(Communicator& comm, const Call& call,
                                        std::optional<std::size_t> destination_bytes) {
    settle(comm.id);
    ++offloaded_calls_;
    const int size = comm.size(), me = comm.rank;
    const bool root = me == call.root;
    const BlockLayout layout =
        layout_of(static_cast<std::uint32_t>(size), call.count, element_size(call.type), call.counts);
    const std::size_t block_bytes = layout.bytes(BlockSpan{static_cast<std::uint32_t>(me), 1});
    const std::size_t all_blocks = layout.total();
    const int root_rank = has_root(call.collective) ? call.root : 0;

    ProcessorHeader header;
    header.context_id = static_cast<std::uint8_t>(comm.id);
    header.opcode = call.collective;
    header.operation = call.op ? static_cast<std::uint8_t>(*call.op) : 0;
    header.datatype = static_cast<std::uint8_t>(call.type);
    header.algorithm = static_cast<std::uint8_t>(default_algorithm(call.collective));
    header.rank = static_cast<std::uint16_t>(root_rank);

    std::uint8_t envelope[kCollectiveEnvelopeBytes] = {};
    const auto elements =
        call.counts ? kVariableCounts : static_cast<std::uint32_t>(call.collective == Opcode::Barrier ? 0 : call.count);
    const auto comm_size = static_cast<std::uint16_t>(size);
    const auto root16 = static_cast<std::uint16_t>(root_rank);
    const auto global0 = static_cast<std::uint16_t>(comm.global_rank(0));
    const auto global_root = static_cast<std::uint16_t>(comm.global_rank(root_rank));
    const std::uint32_t sequence = comm.sequence;
    std::memcpy(envelope + 0, &elements, 4);
    std::memcpy(envelope + 4, &comm_size, 2);
    std::memcpy(envelope + 6, &root16, 2);
    std::memcpy(envelope + 8, &global0, 2);
    std::memcpy(envelope + 10, &global_root, 2);
    std::memcpy(envelope + 12, &sequence, 4);

    // Contribution and expected result per collective.
    std::size_t contribution = 0, result = 0;
    switch (call.collective) {
        case Opcode::Bcast:
            contribution = root ? block_bytes : 0;
            result = block_bytes;
            break;
        case Opcode::Reduce:
            contribution = block_bytes;
            result = root ? block_bytes : 0;
            break;
        case Opcode::Allreduce:
            contribution = block_bytes;
            result = block_bytes;
            break;
        case Opcode::Scatter:
            contribution = root ? all_blocks : 0;
            result = block_bytes;
            break;
        case Opcode::Gather:
            contribution = block_bytes;
            result = root ? all_blocks : 0;
            break;
        case Opcode::Allgather:
            contribution = block_bytes;
            result = all_blocks;
            break;
        case Opcode::ReduceScatter:
            contribution = all_blocks;
            result = block_bytes;
            break;
        case Opcode::Alltoall:
            contribution = all_blocks;
            result = all_blocks;
            break;
        case Opcode::Barrier:
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
    if (call.ingress_bytes) contribution = *call.ingress_bytes;  // the CGRA makes the contribution from it
    // The result goes straight into recv as it arrives (no staging copy in
    // the driver). Results may come while the contribution is still being
    // posted: a recv that overlaps what is sent (in place) is posted after it.
    const std::size_t destination = destination_bytes.value_or(result);
    const auto* send_begin = static_cast<const std::uint8_t*>(call.send);
    const auto* recv_begin = static_cast<const std::uint8_t*>(call.recv);
    const bool overlaps = destination && contribution && send_begin && recv_begin &&
                          std::less<>{}(send_begin, recv_begin + destination) &&
                          std::less<>{}(recv_begin, send_begin + contribution);
    const bool post = destination > 0 || !destination_bytes;  // an explicit 0: the caller posts it
    if (post) driver_.post_collective_destination(comm.id, overlaps ? nullptr : call.recv, destination);
    // Timing only: the contribution's length goes to the switch, not its bytes.
    const bool timing_only = driver_.timing_only();
    if (call.counts) {  // the counts table goes in front of the blocks
        const std::size_t table = 4 * call.counts->size();
        std::vector<std::uint8_t> request(table + (timing_only ? 0 : contribution));
        for (std::size_t i = 0; i < call.counts->size(); ++i) {
            const auto n = static_cast<std::uint32_t>((*call.counts)[i]);
            std::memcpy(request.data() + 4 * i, &n, 4);
        }
        if (contribution && !timing_only) std::memcpy(request.data() + table, call.send, contribution);
        driver_.send_collective(header, envelope, request.data(), table + contribution, request.size());
    } else {
        driver_.send_collective(header, envelope, contribution && !timing_only ? call.send : nullptr, contribution,
                                timing_only ? 0 : contribution);
    }
    if (post && overlaps) driver_.post_collective_destination(comm.id, call.recv, destination);
    return result;
}

void Collectives::receive_offloaded(unsigned context, Opcode collective, void* recv, std::size_t result,
                                    Communicator* comm) {
    const CollectiveResult outcome =
        driver_.receive_collective(context, recv, result, [&] { abort_if_revoked(comm); });
    const auto name = [&] {  // built only for an error
        return "collective: " + lower_name(collective) + " on context " + std::to_string(context);
    };
    if (outcome.error && comm != nullptr && !comm->revoked.empty()) throw LinkFaultError(comm->revoked);
    if (outcome.error)
        throw DriverError(name() + " failed in the switch: error code " + switch_error(outcome, driver_.node_count()));
    if (outcome.opcode != collective || outcome.bytes != result)
        throw DriverError(name() + ": the switch returned a " + std::string(to_string(outcome.opcode)) + " result of " +
                          std::to_string(outcome.bytes) + " bytes, expected " + std::to_string(result));
}

Collectives::Posted Collectives::post(Communicator& comm, Opcode collective, Datatype type, std::optional<Operation> op,
                                      std::size_t count, int root, const void* send, void* recv) {
    const Call call{collective, type, op, count, root, send, recv};
    const std::uint64_t buffer_bytes = check_call(comm, call);
    if (!comm.revoked.empty()) throw LinkFaultError(comm.revoked);
    if (!would_offload(comm, collective, op, type, buffer_bytes))
        throw DriverError("collective: post of a " + lower_name(collective) + " the switch does not run");
    struct NextSequence {
        Communicator& comm;
        ~NextSequence() { ++comm.sequence; }
    } next{comm};
    Posted posted;
    posted.context = comm.id;
    posted.collective = collective;
    posted.recv = recv;
    posted.result = post_offloaded(comm, call);
    posted.comm = &comm;
    return posted;
}

void Collectives::abort_if_revoked(Communicator* comm) {
    if (comm == nullptr || !comm->offloadable || comm->creation_tags.empty()) return;
    try {
        check_creation(*comm);
    } catch (const LinkFaultError&) {
        driver_.release_ct_row(comm->id);  // aborts the collective: its result comes with error 5
        comm->offloadable = false;
    }
}

bool Collectives::collect(const Posted& posted, bool wait) {
    if (!wait && !driver_.collective_result_ready(posted.context)) {
        abort_if_revoked(posted.comm);
        if (!driver_.collective_result_ready(posted.context)) return false;
    }
    receive_offloaded(posted.context, posted.collective, posted.recv, posted.result, posted.comm);
    return true;
}

void Collectives::bcast(Communicator& comm, void* buffer, std::size_t count, Datatype type, int root) {
    run(comm, Call{Opcode::Bcast, type, std::nullopt, count, root, buffer, buffer});
}

void Collectives::reduce(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type,
                         Operation op, int root) {
    run(comm, Call{Opcode::Reduce, type, op, count, root, send, recv});
}

void Collectives::allreduce(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type,
                            Operation op) {
    run(comm, Call{Opcode::Allreduce, type, op, count, 0, send, recv});
}

void Collectives::scatter(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type,
                          int root) {
    run(comm, Call{Opcode::Scatter, type, std::nullopt, count, root, send, recv});
}

void Collectives::gather(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type, int root) {
    run(comm, Call{Opcode::Gather, type, std::nullopt, count, root, send, recv});
}

void Collectives::allgather(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type) {
    run(comm, Call{Opcode::Allgather, type, std::nullopt, count, 0, send, recv});
}

void Collectives::alltoall(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type) {
    run(comm, Call{Opcode::Alltoall, type, std::nullopt, count, 0, send, recv});
}

void Collectives::allgatherv(Communicator& comm, const void* send, void* recv, const std::vector<std::size_t>& counts,
                             Datatype type) {
    run(comm, Call{Opcode::Allgather, type, std::nullopt, 0, 0, send, recv, &counts});
}

void Collectives::reduce_scatter_block(Communicator& comm, const void* send, void* recv, std::size_t count,
                                       Datatype type, Operation op) {
    run(comm, Call{Opcode::ReduceScatter, type, op, count, 0, send, recv});
}

void Collectives::reduce_scatter(Communicator& comm, const void* send, void* recv,
                                 const std::vector<std::size_t>& counts, Datatype type, Operation op) {
    run(comm, Call{Opcode::ReduceScatter, type, op, 0, 0, send, recv, &counts});
}

void Collectives::barrier(Communicator& comm) {
    Call call;
    call.collective = Opcode::Barrier;
    run(comm, call);
}
std::optional<unsigned> Collectives::cgra_slot(const std::vector<std::uint32_t>& words) {
    if (!driver_.accelerator().present) return std::nullopt;
    if (!cgra_capabilities_) cgra_capabilities_ = driver_.cgra_capabilities();
    const std::uint32_t capabilities = *cgra_capabilities_;
    if (regmap::cgra_capabilities::SLOTS.get(capabilities) == 0) return std::nullopt;
    for (unsigned s = 0; s < regmap::kCgraSlots; ++s)
        if (cgra_slots_[s] == words) return s;
    const unsigned slot = cgra_next_slot_;
    settle(std::nullopt, slot);
    const std::uint32_t status = driver_.cgra_load(slot, words);
    if (regmap::cgra_status::RESULT.get(status) != regmap::kCgraDone) {
        // The switch says which check failed; the host's decoder (the same
        // core) words it.
        const cgra::LoadOutcome why =
            cgra::decode(words, cgra::Limits{regmap::cgra_capabilities::PES.get(capabilities),
                                             regmap::cgra_capabilities::LANES.get(capabilities)});
        throw DriverError("collective: the switch's CGRA refused the program (error " +
                          std::to_string(regmap::cgra_status::ERROR.get(status)) + ", instruction " +
                          std::to_string(regmap::cgra_status::INSTRUCTION.get(status)) +
                          "): " + (why.program ? std::string("refused") : why.why));
    }
    cgra_slots_[slot] = words;
    cgra_next_slot_ = (cgra_next_slot_ + 1) % regmap::kCgraSlots;
    return slot;
}

void Collectives::cgra_check(const std::vector<std::uint32_t>& words) {
    if (offload_ && cgra_slot(words)) return;
    const cgra::LoadOutcome out = cgra::decode(words, cgra::Limits{cgra::kMaxInstructions, 64});
    if (!out.program) throw DriverError("collective: " + out.why);
}

bool Collectives::fused(Communicator& comm, Opcode collective, const void* send, void* recv, std::size_t count,
                        Datatype type, std::optional<Operation> op, const std::vector<std::uint32_t>& words,
                        bool offload) {
    if (collective != Opcode::Allreduce && collective != Opcode::Allgather)
        throw DriverError("collective: fused " + lower_name(collective) +
                          ": the CGRA follows an allreduce or an allgather");
    const Call call{collective, type, op, count, 0, send, recv};
    const std::uint64_t buffer_bytes = check_call(comm, call);
    const cgra::LoadOutcome decoded = cgra::decode(words, cgra::Limits{cgra::kMaxInstructions, 64});
    if (!decoded.program) throw DriverError("collective: " + decoded.why);
    if (cgra::is_ingress(*decoded.program))
        throw DriverError("collective: fused " + lower_name(collective) +
                          ": an ingress kernel (GEMM, SPMV_BAND) runs only before a reduce-scatter");
    std::optional<unsigned> slot;
    if (offload && offload_ && would_offload(comm, collective, op, type, buffer_bytes)) slot = cgra_slot(words);
    if (slot) {
        struct NextSequence {
            Communicator& comm;
            ~NextSequence() { ++comm.sequence; }
        } next{comm};
        settle(comm.id);
        driver_.cgra_arm(comm.id, comm.sequence, *slot);
        run_offloaded(comm, call);
        return true;
    }
    run(comm, call);
    const std::size_t bytes =
        count * element_size(type) * (collective == Opcode::Allgather ? static_cast<std::size_t>(comm.size()) : 1u);
    if (!driver_.timing_only())
        cgra::run_program(*decoded.program, static_cast<std::uint8_t*>(recv), bytes, comm.rank, comm.size());
    return false;
}

bool Collectives::fused_allreduce_alltoall(Communicator& comm, const void* send, void* out, void* recv,
                                           std::size_t count, Datatype type, Operation op,
                                           const std::vector<std::uint32_t>& words) {
    const std::optional<std::uint64_t> ticket =
        post_fused(comm, Opcode::Allreduce, send, out, count, type, op, words, recv);
    if (!ticket) return false;
    collect_fused(*ticket, true);
    return true;
}

bool Collectives::ingress_reduce_scatter(Communicator& comm, const void* input, std::size_t input_bytes, void* recv,
                                         std::size_t count, Datatype type, const std::vector<std::uint32_t>& words) {
    Call call{Opcode::ReduceScatter, type, Operation::Sum, count, 0, input, recv};
    const std::uint64_t buffer_bytes = check_call(comm, call);
    const cgra::LoadOutcome decoded = cgra::decode(words, cgra::Limits{cgra::kMaxInstructions, 64});
    if (!decoded.program || !cgra::is_ingress(*decoded.program))
        throw DriverError("collective: ingress reduce_scatter: the program is not an ingress kernel (GEMM, SPMV_BAND)");
    if (!offload_ || count == 0 || input_bytes + kCollectiveEnvelopeBytes > kMaxMessageBytes ||
        !would_offload(comm, Opcode::ReduceScatter, Operation::Sum, type, buffer_bytes))
        return false;
    // Every lane the switch's PEs have (the kernel's arithmetic does not
    // depend on them, its cycles do).
    if (!driver_.accelerator().present) return false;
    if (!cgra_capabilities_) cgra_capabilities_ = driver_.cgra_capabilities();
    cgra::Program program = *decoded.program;
    program.lanes = std::max(1u, regmap::cgra_capabilities::LANES.get(*cgra_capabilities_));
    const std::optional<unsigned> slot = cgra_slot(cgra::encode(program));
    if (!slot) return false;
    struct NextSequence {
        Communicator& comm;
        ~NextSequence() { ++comm.sequence; }
    } next{comm};
    driver_.cgra_arm(comm.id, comm.sequence, *slot);
    call.ingress_bytes = input_bytes;
    receive_offloaded(comm.id, Opcode::ReduceScatter, recv, post_offloaded(comm, call));
    return true;
}

namespace {
/// Block sizes from int32 block ends (a decreasing end: an empty block, as
/// the engine's counts would not be taken then either).
std::vector<std::size_t> counts_from_ends(const std::int32_t* ends, std::size_t size) {
    std::vector<std::size_t> counts(size);
    for (std::size_t i = 0; i < size; ++i) {
        const std::int32_t previous = i == 0 ? 0 : ends[i - 1];
        counts[i] = ends[i] < previous ? 0 : static_cast<std::size_t>(ends[i] - previous);
    }
    return counts;
}
}  // namespace

int Collectives::fused_allgather_allgatherv(Communicator& comm, std::int32_t count, std::int32_t* ends,
                                            const void* data, void* recv, Datatype type,
                                            const std::vector<std::uint32_t>& words) {
    const std::optional<std::uint64_t> ticket = post_fused_allgatherv(comm, count, ends, data, recv, type, words);
    if (!ticket) return 0;
    int path = 2;
    collect_fused(*ticket, true, &path);
    if (path == 2) return 2;
    // Beyond the switch's buffer: every member's data request was refused,
    // and every member runs it in software instead (the same decision
    // everywhere: the ends are the same), on the data request's sequence.
    struct Restore {
        Communicator& comm;
        std::uint32_t after;
        ~Restore() { comm.sequence = after; }
    } restore{comm, comm.sequence};
    comm.sequence = restore.after - 1;
    const std::vector<std::size_t> counts = counts_from_ends(ends, static_cast<std::size_t>(comm.size()));
    run_software(comm, Call{Opcode::Allgather, type, std::nullopt, 0, 0, data, recv, &counts});
    return 1;
}

std::optional<std::uint64_t> Collectives::post_fused(Communicator& comm, Opcode collective, const void* send,
                                                     void* recv, std::size_t count, Datatype type,
                                                     std::optional<Operation> op,
                                                     const std::vector<std::uint32_t>& words, void* alltoall_recv) {
    if (collective != Opcode::Allreduce && collective != Opcode::Allgather)
        throw DriverError("collective: fused " + lower_name(collective) +
                          ": the CGRA follows an allreduce or an allgather");
    const bool then_alltoall = alltoall_recv != nullptr;
    if (then_alltoall && collective != Opcode::Allreduce)
        throw DriverError("collective: the engine chains an alltoall after an allreduce only");
    const Call call{collective, type, op, count, 0, send, recv};
    const std::uint64_t buffer_bytes = check_call(comm, call);
    const cgra::LoadOutcome decoded = cgra::decode(words, cgra::Limits{cgra::kMaxInstructions, 64});
    if (!decoded.program) throw DriverError("collective: " + decoded.why);
    const int size = comm.size();
    // The alltoall: the program's output in blocks of count / size, in the
    // engine's buffer of alltoall_buffer_blocks (scratch beyond the blocks
    // on a size that is not a power of two).
    const bool alltoall_runs =
        !then_alltoall ||
        (count % static_cast<std::size_t>(size) == 0 &&
         would_offload(comm, Opcode::Alltoall, std::nullopt, type,
                       buffer_bytes / static_cast<std::uint64_t>(size) * alltoall_buffer_blocks(size)));
    if (!offload_ || count == 0 || !would_offload(comm, collective, op, type, buffer_bytes) || !alltoall_runs)
        return std::nullopt;
    const std::optional<unsigned> slot = cgra_slot(words);
    if (!slot) return std::nullopt;
    settle(comm.id);
    struct NextSequences {
        Communicator& comm;
        std::uint32_t calls;
        ~NextSequences() { comm.sequence += calls; }  // fully fused: the alltoall the engine starts too
    } next{comm, then_alltoall ? 2u : 1u};
    driver_.cgra_arm(comm.id, comm.sequence, *slot, then_alltoall ? static_cast<unsigned>(Opcode::Alltoall) : 0u);
    InFlight request;
    request.context = comm.id;
    request.slot = *slot;
    request.parts.push_back(InFlight::Part{collective, recv, post_offloaded(comm, call)});
    if (then_alltoall)
        request.parts.push_back(
            InFlight::Part{Opcode::Alltoall, alltoall_recv, static_cast<std::size_t>(buffer_bytes)});
    const std::uint64_t ticket = next_ticket_++;
    in_flight_.emplace(ticket, request);
    return ticket;
}

std::optional<std::uint64_t> Collectives::post_fused_allgatherv(Communicator& comm, std::int32_t count,
                                                                std::int32_t* ends, const void* data, void* recv,
                                                                Datatype type,
                                                                const std::vector<std::uint32_t>& words) {
    if (count < 0) throw DriverError("collective: fused allgatherv: count " + std::to_string(count) + " is negative");
    const auto size = static_cast<std::size_t>(comm.size());
    // The count is copied into the request at the post (post_offloaded):
    // the caller's variable need not outlive the call.
    const Call counts_call{Opcode::Allgather, Datatype::Int32, std::nullopt, 1, 0, &count, ends};
    const std::uint64_t counts_bytes = check_call(comm, counts_call);
    if (!offload_ || driver_.timing_only() ||
        !would_offload(comm, Opcode::Allgather, std::nullopt, Datatype::Int32, counts_bytes))
        return std::nullopt;
    const std::optional<unsigned> slot = cgra_slot(words);
    if (!slot) return std::nullopt;
    std::vector<std::size_t> placeholders(size, 0);
    placeholders[static_cast<std::size_t>(comm.rank)] = static_cast<std::size_t>(count);
    const Call data_call{Opcode::Allgather, type, std::nullopt, 0, 0, data, recv, &placeholders};
    check_call(comm, data_call);
    settle(comm.id);
    const std::uint32_t sequence = comm.sequence;
    struct NextSequences {
        Communicator& comm;
        std::uint32_t after;
        ~NextSequences() { comm.sequence = after; }
    } next{comm, sequence + 2};
    driver_.cgra_arm(comm.id, sequence, *slot, regmap::kCgraThenAllgathervCounts);
    InFlight request;
    request.context = comm.id;
    request.slot = *slot;
    request.parts.push_back(InFlight::Part{Opcode::Allgather, ends, post_offloaded(comm, counts_call)});
    comm.sequence = sequence + 1;
    // No destination for the blocks' result: it would replace the ends'
    // (one per context, for the next result); the blocks are staged.
    post_offloaded(comm, data_call, 0);
    request.blocks = InFlight::Blocks{ends, recv, type, size};
    const std::uint64_t ticket = next_ticket_++;
    in_flight_.emplace(ticket, request);
    return ticket;
}

void Collectives::take_parts(InFlight& request, bool wait) {
    while (request.taken < request.parts.size()) {
        if (!wait && !driver_.collective_result_ready(request.context)) return;
        const InFlight::Part part = request.parts[request.taken];
        try {
            if (part.recv)
                receive_offloaded(request.context, part.collective, part.recv, part.bytes);
            else
                driver_.receive_collective(request.context, nullptr, 0);  // drained
        } catch (const DriverError& e) {
            ++request.taken;
            request.error = e.what();
            request.parts.resize(request.taken);       // nothing more comes ...
            if (request.blocks && request.taken == 1)  // ... but the data's refusal (its counts stayed placeholders)
                request.parts.push_back(InFlight::Part{Opcode::Allgather, nullptr, 0});
            continue;
        }
        ++request.taken;
        if (request.blocks && request.taken == 1) {
            // The ends are in: the data's result, or its refusal where the
            // blocks exceed the switch's buffer (every member decides alike).
            const InFlight::Blocks& b = *request.blocks;
            std::size_t total = 0;
            for (const std::size_t n : counts_from_ends(b.ends, b.size)) total += n;
            const std::uint64_t total_bytes = static_cast<std::uint64_t>(total) * element_size(b.type);
            const bool fits = total_bytes <= driver_.accelerator().max_buffer_bytes;
            request.path = fits ? 2 : 1;
            request.parts.push_back(InFlight::Part{Opcode::Allgather, fits ? b.recv : nullptr,
                                                   fits ? static_cast<std::size_t>(total_bytes) : 0});
        }
    }
    request.arrived = true;
}

bool Collectives::collect_fused(std::uint64_t ticket, bool wait, int* path) {
    auto it = in_flight_.find(ticket);
    if (it == in_flight_.end())
        throw DriverError("collective: fused request " + std::to_string(ticket) + " is not in flight");
    if (it->second.receiving) return false;  // the settle() or collect that runs this progress takes it
    if (!it->second.arrived) {
        InFlight& request = it->second;
        request.receiving = true;
        try {
            take_parts(request, wait);
        } catch (const DriverError& e) {
            request.error = e.what();
            request.arrived = true;
        } catch (...) {
            request.receiving = false;
            throw;
        }
        request.receiving = false;
        if (!request.arrived) return false;
        it = in_flight_.find(ticket);
    }
    const std::string error = it->second.error;
    if (path) *path = it->second.path;
    in_flight_.erase(it);
    if (!error.empty()) throw DriverError(error);
    return true;
}

void Collectives::settle(std::optional<unsigned> context, std::optional<unsigned> slot) {
    // A map: the receive may run the MPI layer's progress, which erases
    // other collected requests, never this one (receiving).
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
        InFlight& request = it->second;
        if (request.arrived || request.receiving ||
            !((context && request.context == *context) || (slot && request.slot == *slot)))
            continue;
        request.receiving = true;
        try {
            take_parts(request, true);
        } catch (const DriverError& e) {
            request.error = e.what();
            request.arrived = true;
        } catch (...) {  // the job is ending, or the progress this wait ran failed: not received
            request.receiving = false;
            throw;
        }
        request.receiving = false;
    }
}

void Collectives::finalize_barrier(Communicator& comm, bool software) {
    lost_counts_as_arrived_ = true;
    struct Restore {
        bool& flag;
        ~Restore() { flag = false; }
    } restore{lost_counts_as_arrived_};
    if (software)
        software_barrier(comm);
    else
        barrier(comm);
}

void Collectives::software_barrier(Communicator& comm) {
    Call call;
    call.collective = Opcode::Barrier;
    check_call(comm, call);
    struct NextSequence {
        Communicator& comm;
        ~NextSequence() { ++comm.sequence; }
    } next{comm};
    run_software(comm, call, !driver_.timing_only());
}

}  // namespace isvp::guest
