// ArgumentAgreement: members exchange their argument records over the
// hypercube; a field that differs, or a member's local error, ends up in
// every member's mask.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "isvp/argument_agreement.h"

using namespace isvp;

namespace {

/// One member; records travel through `inbox` maps (per sender).
struct Member final : ArgumentAgreement::Driver {
    int rank = 0;
    ArgumentAgreement agreement;
    std::uint32_t mask = 0;
    std::map<int, std::deque<CollectiveArguments>> inbox;  ///< per sender
    std::vector<Member>* all = nullptr;
    int stale = 0;
    bool done = false;

    void send_record(int peer) override {
        CollectiveArguments record = agreement.mine;
        record.errors = mask;
        (*all)[static_cast<std::size_t>(peer)].inbox[rank].push_back(record);
    }
    std::deque<CollectiveArguments>& records_from(int peer) override { return inbox[peer]; }
    void stale_record() override { ++stale; }
    void agreed() override { done = true; }
    bool exchange() { return agreement.exchange(static_cast<std::uint16_t>(agreement.mine.sequence), mask, *this); }
};

std::vector<Member> members(int size) {
    std::vector<Member> m(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
        Member& x = m[static_cast<std::size_t>(r)];
        x.rank = r;
        x.all = &m;
        x.agreement.begin(size, r);
        x.agreement.mine.opcode = Opcode::Allreduce;
        x.agreement.mine.count = 8;
        x.agreement.mine.size = static_cast<std::uint16_t>(size);
        x.agreement.mine.sequence = 5;
    }
    return m;
}

/// Runs every member until nothing moves.
void run(std::vector<Member>& m) {
    for (bool moved = true; moved;) {
        moved = false;
        for (Member& x : m) moved = x.exchange() || moved;
    }
}

}  // namespace

TEST_CASE("members with the same arguments agree with an empty mask", "[collective][agreement]") {
    std::vector<Member> m = members(4);
    run(m);
    for (const Member& x : m) {
        CHECK(x.done);
        CHECK(x.mask == 0);
    }
}

TEST_CASE("a differing count reaches every member's mask", "[collective][agreement]") {
    std::vector<Member> m = members(5);  // not a power of two: folded ranks too
    m[3].agreement.mine.count = 9;
    run(m);
    for (const Member& x : m) {
        CHECK(x.done);
        CHECK((x.mask & mismatch::kCount) != 0);
    }
}

TEST_CASE("a member's local error reaches every member", "[collective][agreement]") {
    std::vector<Member> m = members(4);
    m[2].agreement.mine.errors = mismatch::kUnsupported;
    m[2].mask = mismatch::kUnsupported;
    run(m);
    for (const Member& x : m) CHECK(x.mask == mismatch::kUnsupported);
}

TEST_CASE("the agreement waits for the peer's record and skips an older collective's", "[collective][agreement]") {
    std::vector<Member> m = members(2);
    CollectiveArguments old = m[1].agreement.mine;
    old.sequence = 4;  // left behind by an aborted collective
    old.count = 1;
    m[0].inbox[1].push_back(old);
    CHECK(m[0].exchange());  // sends its record, then waits
    CHECK_FALSE(m[0].done);
    CHECK(m[0].stale == 1);
    CHECK(m[1].exchange());  // takes 0's, sends its own
    CHECK(m[1].done);
    CHECK(m[0].exchange());
    CHECK(m[0].done);
    CHECK(m[0].mask == 0);  // the old record's count did not count
}
