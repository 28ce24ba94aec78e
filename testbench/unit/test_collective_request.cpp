// Request validation (collective_request.h): what a switch refuses before a
// collective runs (this rank only) and which local errors go into the
// member's agreement record (every member reports them).
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/collective_request.h"

using namespace isvp;

namespace {
bool int_sum_only(Operation op, Datatype type) {
    return op == Operation::Sum && type == Datatype::Int32;
}
const SwitchLimits kLimits{1 << 20, &int_sum_only};
const auto kEveryPeer = [](int) { return true; };

NetworkHeader header(Opcode opcode, Operation op = Operation::Sum, Datatype type = Datatype::Int32) {
    NetworkHeader h;
    h.opcode = opcode;
    h.operation = static_cast<std::uint8_t>(op);
    h.datatype = static_cast<std::uint8_t>(type);
    h.algorithm = static_cast<std::uint8_t>(Algorithm::RecursiveDoubling);
    return h;
}

CollectiveEnvelope envelope(std::uint32_t count, std::uint16_t size, std::uint16_t root = 0) {
    CollectiveEnvelope e;
    e.elements_per_block = count;
    e.size = size;
    e.root = root;
    e.sequence = 3;
    return e;
}

/// An envelope's bytes.
std::vector<std::uint8_t> prefix(const CollectiveEnvelope& e) {
    std::vector<std::uint8_t> bytes(CollectiveEnvelope::kBytes);
    e.write(bytes.data());
    return bytes;
}

RequestPlan plan(const NetworkHeader& h, const CollectiveEnvelope& e, int rank, std::uint32_t contribution,
                 const std::function<bool(int)>& reachable = kEveryPeer) {
    const std::vector<std::uint8_t> p = prefix(e);
    return plan_request(h, e, rank, CollectiveEnvelope::kBytes + contribution, p.data(), p.size(), kLimits, reachable);
}
}  // namespace

TEST_CASE("a request the agreement cannot run for is refused on this rank alone", "[collective][request]") {
    CtRow row = make_ct_row(1, {10, 11, 12, 13});  // comm rank 1 of 4
    row.valid = true;
    const std::vector<std::uint8_t> four = prefix(envelope(8, 4));
    CHECK_FALSE(refuse_request(CollectiveEnvelope::kBytes + 32, four.data(), row));

    const auto shorter = refuse_request(CollectiveEnvelope::kBytes - 1, four.data(), row);
    REQUIRE(shorter);
    CHECK(shorter->code == CollectiveError::Mismatch);
    CHECK(shorter->mask == mismatch::kContribution);

    CtRow invalid = row;
    invalid.valid = false;
    const auto unknown = refuse_request(CollectiveEnvelope::kBytes, four.data(), invalid);
    REQUIRE(unknown);
    CHECK(unknown->code == CollectiveError::UnknownContext);

    const std::vector<std::uint8_t> eight = prefix(envelope(8, 8));  // the row is for 4 members
    const auto outside = refuse_request(CollectiveEnvelope::kBytes, eight.data(), row);
    REQUIRE(outside);
    CHECK(outside->code == CollectiveError::SizeOutsideRow);
    CHECK(outside->mask == mismatch::kRow);
    CHECK(outside->rank == 1);
    CHECK(outside->why.find("communicator size 8") != std::string::npos);
}

TEST_CASE("a valid request is planned: schedule, layout, contribution and agreement record", "[collective][request]") {
    const RequestPlan p = plan(header(Opcode::Allreduce), envelope(8, 4), 1, 32);
    CHECK(p.local == CollectiveError::None);
    CHECK(p.runs_data);
    CHECK(p.mine.errors == 0);
    CHECK(p.mine.count == 8);
    CHECK(p.mine.size == 4);
    CHECK(p.mine.sequence == 3);
    CHECK(p.header_bytes == CollectiveEnvelope::kBytes);
    CHECK(p.layout.total() == 32);
    CHECK(p.schedule->steps.size() == 2);  // recursive doubling over 4
    CHECK(p.contribution == BlockSpan{0, 1});
}

TEST_CASE("local request errors go into the agreement record, first error kept", "[collective][request]") {
    SECTION("root outside the communicator") {
        const RequestPlan p = plan(header(Opcode::Reduce), envelope(8, 4, 4), 1, 32);
        CHECK(p.local == CollectiveError::SizeOutsideRow);
        CHECK(p.mine.errors == mismatch::kRow);
        CHECK_FALSE(p.runs_data);
    }
    SECTION("an operation the AgLU does not run") {
        const RequestPlan p = plan(header(Opcode::Allreduce, Operation::Max), envelope(8, 4), 1, 32);
        CHECK(p.local == CollectiveError::Unsupported);
        CHECK(p.mine.errors == mismatch::kUnsupported);
        CHECK(p.local_why.find("not supported by the AgLU") != std::string::npos);
        CHECK_FALSE(p.runs_data);
    }
    SECTION("a contribution of the wrong size") {
        const RequestPlan p = plan(header(Opcode::Allreduce), envelope(8, 4), 1, 28);
        CHECK(p.local == CollectiveError::Mismatch);
        CHECK(p.mine.errors == mismatch::kContribution);
        CHECK(p.local_why == "contribution of 28 bytes, expected 32");
        CHECK_FALSE(p.runs_data);
    }
    SECTION("a buffer over the switch's limit") {
        const RequestPlan p = plan(header(Opcode::Allreduce), envelope(1 << 19, 4), 1, 1 << 21);
        CHECK(p.local == CollectiveError::SizeOutsideRow);
        CHECK(p.mine.errors == mismatch::kRow);
    }
    SECTION("a peer the switch cannot reach") {
        const RequestPlan p =
            plan(header(Opcode::Allreduce), envelope(8, 4), 1, 32, [](int peer) { return peer != 3; });
        CHECK(p.local == CollectiveError::SizeOutsideRow);
        CHECK(p.local_why.find("peer comm rank 3") != std::string::npos);
    }
    SECTION("unequal counts outside reduce_scatter without their table: both bits, the first error") {
        const RequestPlan p =
            plan(header(Opcode::Allreduce), envelope(kVariableCounts, 4), 1, 0);  // no counts table either
        CHECK(p.local == CollectiveError::Unsupported);
        CHECK(p.mine.errors == (mismatch::kUnsupported | mismatch::kContribution));
    }
    SECTION("a bcast leaf may send no contribution") {
        NetworkHeader h = header(Opcode::Bcast);
        h.algorithm = static_cast<std::uint8_t>(Algorithm::BinomialTree);
        const RequestPlan p = plan(h, envelope(8, 4, 0), 1, 0);
        CHECK(p.local == CollectiveError::None);
        CHECK(p.runs_data);
        CHECK(p.contribution.count == 0);
    }
}
