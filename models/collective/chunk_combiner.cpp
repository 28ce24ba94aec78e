#include "isvp/chunk_combiner.h"

#include <algorithm>
#include <cstring>

namespace isvp {

std::uint64_t ChunkCombiner::combine(AgluEngine& aglu, AgluLanes& lanes, const Chunk& chunk, bool compute,
                                     unsigned phits_per_cycle, std::uint64_t now_ps, std::uint64_t cycle_ps,
                                     std::uint64_t& aglu_cycles) {
    const std::size_t vectors = (chunk.bytes + kVectorBytes - 1) / kVectorBytes;
    if (compute) {
        a_.resize(vectors);
        b_.resize(vectors);
        a_.back() = Vector256{};  // the last vector's tail lanes are zero
        b_.back() = Vector256{};
        const bool received_left = chunk.apply == Apply::CombineLeft;
        auto* received = reinterpret_cast<std::uint8_t*>(received_left ? a_.data() : b_.data());
        auto* local = reinterpret_cast<std::uint8_t*>(received_left ? b_.data() : a_.data());
        std::memcpy(received, chunk.received, chunk.bytes);
        chunk.buffer->gather(*chunk.stream, chunk.from, chunk.to, local);
    }
    const std::size_t parts = lanes.parts(vectors, phits_per_cycle);
    const std::size_t per_part = (vectors + parts - 1) / parts;
    std::uint64_t done = now_ps;
    for (std::size_t first = 0; first < vectors; first += per_part) {
        const std::size_t count = std::min(per_part, vectors - first);
        // AgluEngine's contract: pipeline_stages + count - 1 cycles per burst.
        const std::uint64_t latency =
            compute ? aglu.combine(chunk.op, chunk.type, a_.data() + first, b_.data() + first, a_.data() + first, count)
                    : aglu.pipeline_stages() + count - 1;
        done = std::max(done, lanes.issue(now_ps, count, latency, cycle_ps));
        aglu_cycles += count;
    }
    if (compute)
        chunk.buffer->scatter(*chunk.stream, reinterpret_cast<const std::uint8_t*>(a_.data()), chunk.from, chunk.to);
    return done;
}

}  // namespace isvp
