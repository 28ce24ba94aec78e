// Request validation for the collective engine, SystemC-free
// (docs/COLLECTIVES.md, "Errors"). Two stages, in the order the switch makes
// them:
//   1. refuse_request: a request the argument agreement cannot even run for
//      (shorter than its envelope, no valid CT row, a communicator size or
//      own rank the row contradicts) completes with an error on this rank
//      alone (errors 3, 1, 4).
//   2. plan_request: the switch's own limits (operation/datatype the AgLU
//      supports, root, unequal counts, buffer size, peers it can reach,
//      contribution size). An error here is a local error: its bit goes into
//      this member's agreement record, so every member reports it; otherwise
//      the plan carries the schedule and buffer layout the data phase runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "isvp/collective_core.h"
#include "isvp/reduction_types.h"

namespace isvp {

/// A request refused before it runs: this rank's call completes with `code`.
struct RequestRefusal {
    CollectiveError code = CollectiveError::None;
    std::uint32_t mask = 0;  ///< mismatch bits of the error result
    int rank = 0;            ///< own comm rank (0 when unknown)
    std::string why;
};

/// Stage 1. `message_bytes`: the request's bytes (envelope onwards); `prefix`
/// holds at least the envelope when message_bytes does; `row`: the CT row of
/// its context.
std::optional<RequestRefusal> refuse_request(std::uint32_t message_bytes, const std::uint8_t* prefix, const CtRow& row);

/// What the switch can run.
struct SwitchLimits {
    std::uint64_t max_buffer_bytes = 64ull << 20;     ///< collective.max_buffer_bytes
    bool (*supports)(Operation, Datatype) = nullptr;  ///< the AgLU's (operation, datatype) pairs
};

/// Stage 2's outcome.
struct RequestPlan {
    CollectiveArguments mine;                       ///< this member's agreement record (errors: local bits)
    CollectiveError local = CollectiveError::None;  ///< the first local error
    std::string local_why;
    std::uint32_t header_bytes = 0;            ///< envelope [+ counts table] in front of the contribution
    std::shared_ptr<const Schedule> schedule;  ///< the data phase's (runs_data)
    BlockLayout layout;                        ///< the collective buffer's
    bool runs_data = false;                    ///< no local error: run the data phase
    BlockSpan contribution;                    ///< blocks the host's bytes fill (a Bcast leaf: none)
};

/// Stage 2 for comm rank `rank` (stage 1 passed): `header` is the request's
/// first packet's, `prefix` its first `prefix_bytes` bytes (envelope [+
/// counts]); `reachable(peer)`: the switch knows comm rank `peer`'s node;
/// the schedule comes from `schedules` when given.
RequestPlan plan_request(const NetworkHeader& header, const CollectiveEnvelope& envelope, int rank,
                         std::uint32_t message_bytes, const std::uint8_t* prefix, std::size_t prefix_bytes,
                         const SwitchLimits& limits, const std::function<bool(int)>& reachable,
                         ScheduleCache* schedules = nullptr);

}  // namespace isvp
