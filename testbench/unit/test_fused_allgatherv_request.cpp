// The engine's Allgather with unequal counts (the fully fused FEM pattern,
// docs/FUSED.md): plan_request takes a counts table for an allgather as for
// a reduce_scatter, lays the blocks out by it and expects this rank's block.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/collective_request.h"

using namespace isvp;

namespace {
bool any_op(Operation, Datatype) {
    return true;
}

/// An allgather request of rank `rank` of 4 with unequal counts (doubles):
/// envelope, counts table, and `contribution` bytes.
RequestPlan plan_allgatherv(const std::vector<std::uint32_t>& counts, int rank, std::uint32_t contribution,
                            Opcode opcode = Opcode::Allgather) {
    NetworkHeader h;
    h.opcode = opcode;
    h.datatype = static_cast<std::uint8_t>(Datatype::Float64);
    h.algorithm = static_cast<std::uint8_t>(Algorithm::RecursiveDoubling);
    CollectiveEnvelope e;
    e.elements_per_block = kVariableCounts;
    e.size = static_cast<std::uint16_t>(counts.size());
    e.sequence = 5;
    std::vector<std::uint8_t> prefix(CollectiveEnvelope::kBytes + 4 * counts.size());
    e.write(prefix.data());
    for (std::size_t i = 0; i < counts.size(); ++i)
        store_le32(prefix.data() + CollectiveEnvelope::kBytes + 4 * i, counts[i]);
    const std::uint32_t message = static_cast<std::uint32_t>(prefix.size()) + contribution;
    return plan_request(h, e, rank, message, prefix.data(), prefix.size(), SwitchLimits{1 << 20, &any_op},
                        [](int) { return true; });
}
}  // namespace

TEST_CASE("an allgather with unequal counts runs over blocks of those sizes", "[collective][request][cgra]") {
    const std::vector<std::uint32_t> counts{1, 0, 3, 2};  // block ends 1, 1, 4, 6
    const RequestPlan p = plan_allgatherv(counts, 2, 3 * 8);
    CHECK(p.local == CollectiveError::None);
    CHECK(p.runs_data);
    CHECK(p.layout.total() == 6 * 8);
    CHECK(p.layout.bytes(BlockSpan{2, 1}) == 3 * 8);
    CHECK(p.layout.offset(2) == 1 * 8);
    CHECK(p.header_bytes == CollectiveEnvelope::kBytes + 16);
}

TEST_CASE("an unequal-count allgather whose contribution is not its own block is a mismatch",
          "[collective][request][cgra]") {
    const RequestPlan p = plan_allgatherv({1, 0, 3, 2}, 2, 2 * 8);  // placeholders left: rank 2 says 3
    CHECK(p.local == CollectiveError::Mismatch);
    CHECK(p.mine.errors == mismatch::kContribution);
    CHECK_FALSE(p.runs_data);
}

TEST_CASE("unequal counts stay refused for the other collectives", "[collective][request][cgra]") {
    const RequestPlan p = plan_allgatherv({1, 0, 3, 2}, 2, 3 * 8, Opcode::Gather);
    CHECK(p.local == CollectiveError::Unsupported);
    CHECK(p.local_why.find("reduce_scatter and allgather only") != std::string::npos);
}
