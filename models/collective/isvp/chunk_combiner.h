// One received chunk combined with the local bytes it meets, on the AgLUs of
// a collective's CGR unit: the operand order of the schedule (Apply), the
// chunk's vectors split over the AgLUs free first (at most phits_per_cycle of
// them: the datapath width), the result written back into the buffer. Used
// by the NIC engine (CollectiveEngine) and the switch engine
// (SwitchCollectiveEngine) alike. No SystemC: times are picoseconds.
#pragma once

#include <cstdint>
#include <vector>

#include "isvp/aglu_engine.h"
#include "isvp/cgr_pool.h"
#include "isvp/collective_core.h"
#include "isvp/collective_schedule.h"
#include "isvp/paged_buffer.h"

namespace isvp {

class ChunkCombiner {
  public:
    /// A chunk of `bytes` received bytes meeting buffer bytes [from, to) of
    /// `stream`.
    struct Chunk {
        Apply apply = Apply::CombineRight;  ///< CombineLeft: the received bytes are the left operand
        Operation op{};
        Datatype type{};
        const std::uint8_t* received = nullptr;
        std::uint64_t bytes = 0;
        const StreamMap* stream = nullptr;
        std::uint64_t from = 0, to = 0;
        PagedBuffer* buffer = nullptr;  ///< the collective buffer the stream maps into
    };

    /// Combines `chunk` on `aglu`, its bursts placed on `lanes`, and returns
    /// when the last is final (ps). With `compute` false (job.timing_only)
    /// nothing is read or written and each burst is charged what combine()
    /// would charge (pipeline_stages + count - 1 cycles). Adds the vectors to
    /// `aglu_cycles`.
    std::uint64_t combine(AgluEngine& aglu, AgluLanes& lanes, const Chunk& chunk, bool compute,
                          unsigned phits_per_cycle, std::uint64_t now_ps, std::uint64_t cycle_ps,
                          std::uint64_t& aglu_cycles);

  private:
    std::vector<Vector256> a_, b_;  ///< operands, reused chunk to chunk
};

}  // namespace isvp
