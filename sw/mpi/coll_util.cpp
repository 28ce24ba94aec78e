// Shared machinery of the MPI collectives: typed buffers, the schedule
// executor, the offload decision, common argument checks (coll_util.h).
#include "coll_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "isvp/aglu_core.h"
#include "isvp/packet_format.h"

namespace isvp::mpi::coll {

void refuse_in_place(const void* buffer, const char* what, const char* where) {
    if (!in_place(buffer)) return;
    fail(MPI_ERR_BUFFER,
         std::string(what) + " is MPI_IN_PLACE" +
             (where ? std::string(", which is not allowed ") + where : std::string(", not allowed here")));
}

void refuse_alias(const void* send, const void* recv, bool has_data) {
    if (has_data && send != nullptr && send == recv)
        fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
}

void check_array(const int* array, const char* what) {
    if (array == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
}

void check_counts(const int* counts, int n, const char* what) {
    check_array(counts, what);
    for (int i = 0; i < n; ++i)
        if (counts[i] < 0)
            fail(MPI_ERR_COUNT,
                 std::string(what) + "[" + std::to_string(i) + "] is negative (" + std::to_string(counts[i]) + ")");
}

const Type& check_side(const void* buffer, int count, MPI_Datatype datatype, const char* side,
                       const char* in_place_rule) {
    const std::string prefix = side;
    check_count(count, (prefix + "count").c_str());
    const Type& type = check_datatype(datatype, (prefix + "type").c_str());
    refuse_in_place(buffer, (prefix + "buf").c_str(), in_place_rule);
    check_buffer(buffer, count, type, (prefix + "buf").c_str());
    return type;
}

const Type& check_v_side(const void* buffer, const int* counts, const int* displs, const char* displs_name, int n,
                         MPI_Datatype datatype, const char* side, const char* in_place_rule) {
    const std::string prefix = side;
    check_counts(counts, n, (prefix + "counts").c_str());
    check_array(displs, displs_name);
    const Type& type = check_datatype(datatype, (prefix + "type").c_str());
    refuse_in_place(buffer, (prefix + "buf").c_str(), in_place_rule);
    for (int r = 0; r < n; ++r) check_buffer(buffer, counts[r], type, (prefix + "buf").c_str());
    return type;
}

Span span_of(std::size_t count, const Type& type) {
    if (count == 0 || type.size == 0) return {};
    const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * type.extent;
    const MPI_Aint low = std::min<MPI_Aint>(0, last) + type.true_lb;
    const MPI_Aint high = std::max<MPI_Aint>(0, last) + type.true_lb + type.true_extent;
    return {low, high};
}

TypedBuffer::TypedBuffer(std::size_t count, const Type& type) {
    const Span span = span_of(count, type);
    storage_.resize(static_cast<std::size_t>(span.high - span.low));
    // base_ may lie outside storage_ (true_lb > 0): only base_ + offsets
    // inside [low, high) are ever dereferenced.
    base_ = reinterpret_cast<std::uint8_t*>(reinterpret_cast<std::uintptr_t>(storage_.data()) - span.low);
}

void copy_elements(const void* from, void* to, std::size_t count, const Type& type) {
    if (count == 0 || type.size == 0 || from == to) return;
    if (type.contiguous) {
        std::memmove(data_start(to, type), data_start(from, type), count * type.size);
        return;
    }
    std::vector<std::uint8_t> packed(count * type.size);
    pack(from, count, type, packed.data());
    unpack(packed.data(), packed.size(), count, type, to);
}

void pack_into(const void* buffer, std::size_t count, const Type& type, std::uint8_t* out) {
    pack(buffer, count, type, out);
}

void unpack_from(const std::uint8_t* in, std::size_t count, const Type& type, void* buffer) {
    unpack(in, count * type.size, count, type, buffer);
}

void Reduction::combine(std::uint8_t* received, std::uint8_t* local, std::size_t count, bool received_left) const {
    if (count == 0) return;
    if (op->predefined && type->aglu && type->contiguous && aglu_supports(*op->predefined, *type->aglu)) {
        // The AgLU's arithmetic, operands as named: what the switch computes.
        std::uint8_t* mine = data_start(local, *type);
        const std::uint8_t* theirs = data_start(received, *type);
        const std::size_t bytes = count * type->size;
        if (received_left)
            guest::combine_elements(*op->predefined, *type->aglu, theirs, mine, mine, bytes);
        else
            guest::combine_elements(*op->predefined, *type->aglu, mine, theirs, mine, bytes);
        return;
    }
    if (received_left) {
        reduce_local(received, local, count, type->handle, *op);  // local = received op local
        return;
    }
    reduce_local(local, received, count, type->handle, *op);  // received = local op received
    // Both are this layer's buffers: copy the whole span, gaps included.
    const Span span = span_of(count, *type);
    std::memcpy(local + span.low, received + span.low, static_cast<std::size_t>(span.high - span.low));
}

std::vector<std::size_t> equal_blocks(std::size_t blocks, std::size_t per_block) {
    std::vector<std::size_t> first(blocks + 1);
    for (std::size_t b = 0; b <= blocks; ++b) first[b] = b * per_block;
    return first;
}

std::vector<std::size_t> boundaries(const int* counts, int n, std::size_t scale) {
    std::vector<std::size_t> first(static_cast<std::size_t>(n) + 1, 0);
    for (int b = 0; b < n; ++b)
        first[static_cast<std::size_t>(b) + 1] =
            first[static_cast<std::size_t>(b)] + static_cast<std::size_t>(counts[b]) * scale;
    return first;
}

std::vector<std::size_t> split_evenly(std::size_t count, std::size_t blocks) {
    std::vector<std::size_t> first(blocks + 1);
    for (std::size_t b = 0; b <= blocks; ++b) first[b] = count * b / blocks;
    return first;
}

void receive_exact(Comm& comm, int source, std::uint32_t tag, void* data, std::size_t bytes) {
    const std::size_t got = receive_internal(comm, source, tag, data, bytes);
    if (got != bytes)
        fail(MPI_ERR_TRUNCATE, "received " + std::to_string(got) + " bytes from rank " + std::to_string(source) +
                                   ", expected " + std::to_string(bytes) +
                                   " (do all ranks pass matching counts, datatypes and roots?)");
}

namespace {

std::size_t element_bytes(const Blocks& blocks) {
    return blocks.type ? blocks.type->size : 1;
}

std::uint8_t* element_at(const Blocks& blocks, std::size_t index) {
    return blocks.type ? element(blocks.base, index, *blocks.type) : blocks.base + index;
}

std::size_t elements_in(const Blocks& blocks, const BlockSpan& span) {
    return blocks.first.at(span.first + span.count) - blocks.first.at(span.first);
}

}  // namespace

std::size_t spans_bytes(const Blocks& blocks, const std::vector<BlockSpan>& spans) {
    std::size_t bytes = 0;
    for (const BlockSpan& span : spans) bytes += elements_in(blocks, span) * element_bytes(blocks);
    return bytes;
}

std::vector<std::uint8_t> pack_spans(const Blocks& blocks, const std::vector<BlockSpan>& spans) {
    const std::size_t unit = element_bytes(blocks);
    std::vector<std::uint8_t> message(spans_bytes(blocks, spans));
    std::size_t at = 0;
    for (const BlockSpan& span : spans) {
        const std::size_t n = elements_in(blocks, span);
        const std::uint8_t* from = element_at(blocks, blocks.first[span.first]);
        if (blocks.type)
            pack_into(from, n, *blocks.type, message.data() + at);
        else if (n)
            std::memcpy(message.data() + at, from, n);
        at += n * unit;
    }
    return message;
}

void apply_spans(Blocks& blocks, const std::vector<BlockSpan>& spans, Apply apply, const std::uint8_t* data,
                 const Reduction* reduction) {
    const std::size_t unit = element_bytes(blocks);
    std::size_t at = 0;
    for (const BlockSpan& span : spans) {
        const std::size_t n = elements_in(blocks, span);
        std::uint8_t* local = element_at(blocks, blocks.first[span.first]);
        const std::uint8_t* in = data + at;
        at += n * unit;
        if (n == 0) continue;  // a Barrier's steps carry no data
        if (apply == Apply::Copy) {
            if (blocks.type)
                unpack_from(in, n, *blocks.type, local);
            else
                std::memcpy(local, in, n);
            continue;
        }
        if (reduction == nullptr || blocks.type == nullptr)
            fail(MPI_ERR_INTERN, "a combining schedule step without a reduction");
        TypedBuffer received(n, *blocks.type);
        unpack_from(in, n, *blocks.type, received.data());
        reduction->combine(received.data(), local, n, apply == Apply::CombineLeft);
    }
}

void run_schedule(Comm& comm, std::uint32_t tag, const Schedule& schedule, Blocks& blocks, const Reduction* reduction) {
    if (blocks.first.size() != schedule.blocks + 1u)
        fail(MPI_ERR_INTERN, "schedule of " + std::to_string(schedule.blocks) + " blocks on a buffer of " +
                                 std::to_string(blocks.first.size() - 1) + " blocks");
    std::vector<std::uint8_t> message;
    for (const Step& step : schedule.steps) {
        if (step.send) {
            message = pack_spans(blocks, step.send->spans);
            send_internal(comm, step.send->peer, tag, message.data(), message.size());
        }
        if (!step.receive) continue;
        const std::size_t expected = spans_bytes(blocks, step.receive->spans);
        message.resize(expected);
        receive_exact(comm, step.receive->peer, tag, message.data(), expected);
        apply_spans(blocks, step.receive->spans, step.apply, message.data(), reduction);
    }
}

void run_collective(Comm& comm, Opcode collective, Algorithm algorithm, Fold fold, int root, Blocks& blocks,
                    const Reduction* reduction) {
    const Schedule schedule = make_schedule(collective, algorithm, comm.size(), comm.rank(), root, fold);
    run_schedule(comm, collective_tag(comm), schedule, blocks, reduction);
}

namespace {

/// The guest layer's limit: all blocks of one request in one message. (The
/// switch's own, smaller limit on the buffer is would_offload's.)
bool fits_one_request(std::size_t bytes_per_block, std::size_t blocks) {
    constexpr std::size_t kEnvelope = 16;
    const std::size_t limit = (kMaxMessageBytes - kEnvelope) / blocks;
    return bytes_per_block <= limit && bytes_per_block <= std::numeric_limits<std::uint32_t>::max();
}

std::size_t blocks_of(Comm& comm, Opcode collective) {
    const bool per_rank = collective == Opcode::Scatter || collective == Opcode::Gather ||
                          collective == Opcode::Allgather || collective == Opcode::ReduceScatter ||
                          collective == Opcode::Alltoall;
    return per_rank ? static_cast<std::size_t>(comm.size()) : 1;
}

/// The decision of one call that may offload, before it is noted.
std::optional<isvp::Datatype> reduction_target(Comm& comm, Opcode collective, const Reduction& reduction,
                                               std::size_t count) {
    const Op& op = *reduction.op;
    const Type& type = *reduction.type;
    if (!op.predefined || !type.aglu || type.size == 0) return std::nullopt;
    if (!aglu_supports(*op.predefined, *type.aglu)) return std::nullopt;
    const std::size_t blocks = blocks_of(comm, collective);
    if (!fits_one_request(count * type.size, blocks)) return std::nullopt;
    if (!collectives().would_offload(comm.guest, collective, *op.predefined, *type.aglu, count * type.size * blocks))
        return std::nullopt;
    return type.aglu;
}

/// This process's offload decisions, for the ISVP_MPI_STATS report.
struct OffloadStatistics {
    bool started = false;
    int rank = -1;
    unsigned long long decided = 0;
    unsigned long long offloaded = 0;
};

OffloadStatistics& offload_statistics() {
    static OffloadStatistics statistics;
    return statistics;
}

void report_offload_statistics() {
    const OffloadStatistics& s = offload_statistics();
    std::printf("isvp-mpi: rank %d collectives offloaded %llu of %llu\n", s.rank, s.offloaded, s.decided);
    std::fflush(stdout);
}

}  // namespace

bool note_offload(bool offloaded) {
    OffloadStatistics& s = offload_statistics();
    if (!s.started) {
        s.started = true;
        s.rank = driver().rank();
        const char* wanted = std::getenv("ISVP_MPI_STATS");
        if (wanted != nullptr && *wanted != '\0' && std::strcmp(wanted, "0") != 0)
            std::atexit(report_offload_statistics);
    }
    ++s.decided;
    if (offloaded) ++s.offloaded;
    return offloaded;
}

bool offload_bytes(Comm& comm, Opcode collective, std::size_t bytes_per_block, bool note) {
    const std::size_t blocks = blocks_of(comm, collective);
    // The switch's buffer: an alltoall's also holds its schedule's scratch.
    const std::size_t buffer_blocks = collective == Opcode::Alltoall ? alltoall_buffer_blocks(comm.size()) : blocks;
    const bool offloaded = fits_one_request(bytes_per_block, blocks) &&
                           collectives().would_offload(comm.guest, collective, std::nullopt, isvp::Datatype::UInt8,
                                                       bytes_per_block * buffer_blocks);
    return note ? note_offload(offloaded) : offloaded;
}

bool offload_unequal_allgather(Comm& comm, const std::vector<std::size_t>& first) {
    const std::size_t total = first.back(), table = 4 * (first.size() - 1);
    return note_offload(
        fits_one_request(total + table, 1) &&
        collectives().would_offload(comm.guest, Opcode::Allgather, std::nullopt, isvp::Datatype::UInt8, total));
}

std::optional<isvp::Datatype> offload_reduction(Comm& comm, Opcode collective, const Reduction& reduction,
                                                std::size_t count, bool note) {
    const auto target = reduction_target(comm, collective, reduction, count);
    if (note) note_offload(target.has_value());
    return target;
}

const std::uint8_t* packed_view(const void* buffer, std::size_t count, const Type& type,
                                std::vector<std::uint8_t>& storage) {
    if (type.contiguous) return data_start(buffer, type);
    storage.resize(count * type.size);
    pack_into(buffer, count, type, storage.data());
    return storage.data();
}

SwitchData::SwitchData(const void* input, std::size_t input_count, void* output, std::size_t output_count,
                       const Type& type, bool with_output)
    : type_(type), with_output_(with_output), destination_(output), output_count_(output_count) {
    input_ = packed_view(input, input_count, type, in_);
    if (!with_output) return;
    if (type.contiguous) {
        output_ = data_start(output, type);
    } else {
        out_.resize(output_count * type.size);
        output_ = out_.data();
    }
}

void SwitchData::finish() {
    if (!type_.contiguous && with_output_) unpack_from(out_.data(), output_count_, type_, destination_);
}

const Type& byte_type() {
    return check_datatype(MPI_BYTE);
}

}  // namespace isvp::mpi::coll
