#include "isvp/collective_request.h"

#include <stdexcept>
#include <vector>

namespace isvp {

std::optional<RequestRefusal> refuse_request(std::uint32_t message_bytes, const std::uint8_t* prefix,
                                             const CtRow& row) {
    if (message_bytes < CollectiveEnvelope::kBytes)
        return RequestRefusal{CollectiveError::Mismatch, mismatch::kContribution, 0,
                              "request shorter than its 16-byte envelope"};
    if (!row.valid) return RequestRefusal{CollectiveError::UnknownContext, 0, 0, "no valid CT row"};
    const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
    const std::optional<int> rank = row.own_rank();
    if (!rank || e.size == 0 || *rank >= e.size || !row.consistent_with(e.size, *rank))
        return RequestRefusal{CollectiveError::SizeOutsideRow, mismatch::kRow, rank.value_or(0),
                              "communicator size " + std::to_string(e.size) + " inconsistent with the CT row"};
    return std::nullopt;
}

RequestPlan plan_request(const NetworkHeader& h, const CollectiveEnvelope& e, int rank, std::uint32_t message_bytes,
                         const std::uint8_t* prefix, std::size_t prefix_bytes, const SwitchLimits& limits,
                         const std::function<bool(int)>& reachable, ScheduleCache* schedules) {
    RequestPlan plan;
    // Counts: one per block for Reduce_scatter with unequal counts.
    std::vector<std::uint32_t> counts;
    plan.header_bytes = CollectiveEnvelope::kBytes;
    const bool variable = e.elements_per_block == kVariableCounts;
    if (variable) {
        plan.header_bytes += 4u * e.size;
        if (prefix_bytes >= plan.header_bytes)
            for (unsigned b = 0; b < e.size; ++b)
                counts.push_back(load_le32(prefix + CollectiveEnvelope::kBytes + 4 * b));
    }
    plan.mine.opcode = h.opcode;
    plan.mine.operation = h.operation;
    plan.mine.datatype = h.datatype;
    plan.mine.algorithm = h.algorithm;
    plan.mine.count = variable ? counts_digest(counts) : e.elements_per_block;
    plan.mine.size = e.size;
    plan.mine.root = e.root;
    plan.mine.sequence = e.sequence;

    auto local = [&](CollectiveError code, std::uint32_t bit, const std::string& why) {
        if (plan.local == CollectiveError::None) {
            plan.local = code;
            plan.local_why = why;
        }
        plan.mine.errors |= bit;
    };
    const auto op = operation_from_code(h.operation);
    const auto type = datatype_from_code(h.datatype);
    if (e.root >= e.size)
        local(CollectiveError::SizeOutsideRow, mismatch::kRow,
              "root " + std::to_string(e.root) + " outside the communicator of " + std::to_string(e.size));
    if (is_reduction(h.opcode) && (!op || !type || !limits.supports || !limits.supports(*op, *type)))
        local(CollectiveError::Unsupported, mismatch::kUnsupported,
              "operation " + std::to_string(h.operation) + " on datatype " + std::to_string(h.datatype) +
                  " is not supported by the AgLU");
    if (!type && h.opcode != Opcode::Barrier)
        local(CollectiveError::Unsupported, mismatch::kUnsupported, "reserved datatype");
    if (variable && h.opcode != Opcode::ReduceScatter && h.opcode != Opcode::Allgather)
        local(CollectiveError::Unsupported, mismatch::kUnsupported,
              "unequal counts are for reduce_scatter and allgather only, not " + std::string(to_string(h.opcode)));
    if (variable && message_bytes < plan.header_bytes)
        local(CollectiveError::Mismatch, mismatch::kContribution, "request shorter than its counts table");
    if (plan.local == CollectiveError::None) {
        try {
            const auto algorithm = static_cast<Algorithm>(h.algorithm & 3);
            plan.schedule = schedules ? schedules->get(h.opcode, algorithm, e.size, rank, e.root, Fold::Hypercube)
                                      : std::make_shared<const Schedule>(
                                            make_schedule(h.opcode, algorithm, e.size, rank, e.root, Fold::Hypercube));
        } catch (const std::invalid_argument& error) {
            local(CollectiveError::Unsupported, mismatch::kUnsupported, error.what());
        }
    }
    static const Schedule kNone;  // a local error: no schedule
    const Schedule& schedule = plan.schedule ? *plan.schedule : kNone;
    if (plan.local == CollectiveError::None && schedule.steps.size() > kMaxScheduleSteps)
        local(CollectiveError::SizeOutsideRow, mismatch::kRow, "schedule longer than the step field");
    if (plan.local == CollectiveError::None) {
        const std::uint64_t element = element_size(type.value_or(Datatype::UInt8));
        if (variable) {
            std::vector<std::uint64_t> sizes;
            for (const std::uint32_t n : counts) sizes.push_back(n * element);
            plan.layout = BlockLayout::variable(sizes);
        } else {
            plan.layout = BlockLayout::uniform(
                schedule.blocks, block_bytes(h.opcode, e.elements_per_block, type.value_or(Datatype::UInt8)));
        }
        const std::uint64_t total = plan.layout.total();
        if (total > limits.max_buffer_bytes || total > kMaxMessageBytes)
            local(CollectiveError::SizeOutsideRow, mismatch::kRow,
                  "buffer of " + std::to_string(total) + " bytes exceeds collective.max_buffer_bytes");
    }
    if (plan.local == CollectiveError::None)
        for (const Step& s : schedule.steps)
            for (const auto* t : {&s.send, &s.receive})
                if (*t && !reachable((*t)->peer)) {
                    local(
                        CollectiveError::SizeOutsideRow, mismatch::kRow,
                        "peer comm rank " + std::to_string((*t)->peer) + " is neither in the CT row nor 0 or the root");
                    break;
                }
    if (plan.local == CollectiveError::None) {
        const BlockSpan in = contribution_span(h.opcode, e.size, rank, e.root);
        const std::uint64_t expected = plan.layout.bytes(in);
        const std::uint64_t got = message_bytes - plan.header_bytes;
        const bool bcast_leaf = h.opcode == Opcode::Bcast && rank != e.root;
        if (got != expected && !(bcast_leaf && got == 0)) {
            local(CollectiveError::Mismatch, mismatch::kContribution,
                  "contribution of " + std::to_string(got) + " bytes, expected " + std::to_string(expected));
        } else {
            plan.runs_data = true;
            plan.contribution = bcast_leaf ? BlockSpan{0, 0} : in;
        }
    }
    return plan;
}

}  // namespace isvp
