// SyncCore: which request runs next, and what is refused.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "isvp/sync_core.h"

using namespace isvp::transport;
using Kind = SyncCore::Decision::Kind;

namespace {

Message request(MessageType type, int rank, std::uint64_t time_ps, std::uint64_t arg0 = 0, std::uint64_t arg1 = 0) {
    Message message;
    message.type = type;
    message.rank = static_cast<std::uint32_t>(rank);
    message.time_ps = time_ps;
    message.arg0 = arg0;
    message.arg1 = arg1;
    return message;
}

Message read(int rank, std::uint64_t time_ps) {
    return request(MessageType::MmioRead, rank, time_ps, 0x10);
}
Message write(int rank, std::uint64_t time_ps) {
    return request(MessageType::MmioWrite, rank, time_ps, 0x10, 1);
}
Message wait_for(int rank, std::uint64_t time_ps) {
    return request(MessageType::WaitInterrupt, rank, time_ps, 4);
}

}  // namespace

TEST_CASE("sync: nothing executes while a running rank could still send an earlier request") {
    SyncCore core(2, 0x10000);
    CHECK(core.next().kind == Kind::WaitForGuests);
    REQUIRE(core.accept(1, read(1, 500)).empty());
    CHECK(core.next().kind == Kind::WaitForGuests);  // rank 0 has said nothing yet
    REQUIRE(core.accept(0, read(0, 900)).empty());
    const SyncCore::Decision decision = core.next();
    CHECK(decision.kind == Kind::Execute);
    CHECK(decision.rank == 1);
    CHECK(decision.time_ps == 500);
}

TEST_CASE("sync: the earliest request runs first, equal times by rank, whatever the arrival order") {
    for (const bool rank1_first : {true, false}) {
        SyncCore core(3, 0x10000);
        if (rank1_first) REQUIRE(core.accept(1, read(1, 700)).empty());
        REQUIRE(core.accept(2, read(2, 700)).empty());
        REQUIRE(core.accept(0, read(0, 800)).empty());
        if (!rank1_first) REQUIRE(core.accept(1, read(1, 700)).empty());
        CHECK(core.next().rank == 1);
        core.pop(1);
        CHECK(core.next().rank == 2);
        core.pop(2);
        REQUIRE(core.complete(1, 750));
        CHECK(core.next().kind == Kind::WaitForGuests);  // rank 1 may send again at >= 750
        REQUIRE(core.accept(1, request(MessageType::Finish, 1, 900)).empty());
        const SyncCore::Decision finish = core.next();
        CHECK(finish.rank == 1);  // Finish touches no device: taken at once
        CHECK_FALSE(finish.simulated);
        core.pop(1);
        CHECK(core.state(1) == RankState::Finished);
        CHECK(core.next().rank == 0);
        CHECK(core.next().time_ps == 800);
    }
}

TEST_CASE("sync: posted writes wait until their rank blocks (it may still touch its host memory)") {
    SyncCore core(2, 0x10000);
    REQUIRE(core.accept(0, write(0, 100)).empty());
    REQUIRE(core.accept(1, read(1, 500)).empty());
    CHECK(core.next().kind == Kind::WaitForGuests);
    REQUIRE(core.accept(0, write(0, 200)).empty());
    CHECK(core.next().kind == Kind::WaitForGuests);
    REQUIRE(core.accept(0, read(0, 300)).empty());
    const SyncCore::Decision decision = core.next();
    CHECK(decision.kind == Kind::Execute);
    CHECK(decision.rank == 0);
    CHECK(decision.time_ps == 100);
}

TEST_CASE("sync: a read or wait blocks its rank until completed at the reply time") {
    SyncCore core(2, 0x10000);
    REQUIRE(core.accept(0, read(0, 100)).empty());
    REQUIRE(core.accept(1, wait_for(1, 50)).empty());
    core.pop(1);
    CHECK(core.state(1) == RankState::InSimulator);
    core.pop(0);
    CHECK(core.next().kind == Kind::RunUntilWake);
    CHECK(core.blocked() == std::vector<int>{0, 1});
    REQUIRE(core.complete(0, 1000));
    CHECK(core.state(0) == RankState::Running);
    CHECK(core.clock(0) == 1000);
    CHECK_THAT(core.accept(0, read(0, 999)), Catch::Contains("time going backwards"));
    CHECK_FALSE(core.complete(0, 2000));  // not waiting any more
}

TEST_CASE("sync: malformed or out-of-order requests are refused with the reason") {
    SyncCore core(1, 0x10000);
    CHECK_THAT(core.accept(0, request(MessageType::MmioRead, 0, 0, 0x10000)), Catch::Contains("outside BAR0"));
    CHECK_THAT(core.accept(0, request(MessageType::MmioWrite, 0, 0, 0x2, 1)), Catch::Contains("not 32-bit aligned"));
    CHECK_THAT(core.accept(0, request(MessageType::MmioWrite, 0, 0, 0x4, 1ull << 32)),
               Catch::Contains("does not fit 32 bits"));
    CHECK_THAT(core.accept(0, request(MessageType::WaitInterrupt, 0, 0, 0)), Catch::Contains("empty vector mask"));
    CHECK_THAT(core.accept(0, request(MessageType::Hello, 0, 0)), Catch::Contains("only one Hello"));
    REQUIRE(core.accept(0, write(0, 300)).empty());
    CHECK_THAT(core.accept(0, write(0, 200)), Catch::Contains("time going backwards: MmioWrite at 0.000200 us"));
    REQUIRE(core.accept(0, wait_for(0, 300)).empty());
    CHECK_THAT(core.accept(0, read(0, 300)), Catch::Contains("is still outstanding"));
}

TEST_CASE("sync: nothing may follow Finish") {
    SyncCore core(1, 0x10000);
    REQUIRE(core.accept(0, request(MessageType::Finish, 0, 10)).empty());
    CHECK_THAT(core.accept(0, read(0, 20)), Catch::Contains("after the rank's Finish"));
    core.pop(0);
    CHECK(core.next().kind == Kind::Done);
    core.leave(0, "closed");  // the link closing after Finish is normal
    CHECK(core.state(0) == RankState::Finished);
}

TEST_CASE("sync: a rank that leaves does so after its queued requests") {
    SyncCore core(2, 0x10000);
    REQUIRE(core.accept(0, write(0, 100)).empty());
    core.leave(0, "its connection closed without finish()");
    REQUIRE(core.accept(1, read(1, 50)).empty());
    CHECK(core.next().rank == 1);
    core.pop(1);
    CHECK(core.next().rank == 0);
    CHECK(core.next().simulated);  // the write still executes
    core.pop(0);
    CHECK_FALSE(core.next().simulated);  // then the departure
    core.pop(0);
    CHECK(core.state(0) == RankState::Dead);
    CHECK(core.reason(0) == "its connection closed without finish()");
    CHECK(core.next().kind == Kind::RunUntilWake);
}

TEST_CASE("sync: a rank leaving while it waits ends at once") {
    SyncCore core(1, 0x10000);
    REQUIRE(core.accept(0, wait_for(0, 0)).empty());
    core.pop(0);
    core.leave(0, "killed");
    CHECK(core.state(0) == RankState::Dead);
    CHECK(core.next().kind == Kind::Done);
}

TEST_CASE("sync: the description names every rank's situation") {
    SyncCore core(4, 0x10000);
    REQUIRE(core.accept(0, request(MessageType::WaitInterrupt, 0, 1000000, (1u << 2) | (1u << 3))).empty());
    REQUIRE(core.accept(1, read(1, 2000000)).empty());
    REQUIRE(core.accept(2, request(MessageType::Finish, 2, 5)).empty());
    core.pop(0);
    core.pop(1);
    core.pop(2);
    core.end(3, "protocol error: bad magic");
    CHECK(core.describe() ==
          "rank 0 waits for MSI-X vectors {2, 3} since 1.000000 us; rank 1 waits for its MmioRead of BAR0 0x10 at "
          "2.000000 us; rank 2 finished at 0.000005 us; rank 3 ended (protocol error: bad magic)");
}

TEST_CASE("sync: a time beyond the simulator's range is refused") {
    SyncCore core(1, 0x10000);
    CHECK_THAT(core.accept(0, read(0, kMaxTimePs + 1)), Catch::Contains("beyond the simulator's range"));
    CHECK(core.accept(0, read(0, kMaxTimePs)).empty());
}

TEST_CASE("sync: a rank that computes is idle, and the description says what each rank did last") {
    SyncCore core(3, 0x10000);
    for (int rank = 0; rank < 3; ++rank) CHECK(core.idle(rank));  // nothing heard yet
    REQUIRE(core.accept(0, write(0, 100)).empty());
    CHECK(core.idle(0));  // posted writes only: still computing
    REQUIRE(core.accept(1, read(1, 200)).empty());
    CHECK_FALSE(core.idle(1));
    REQUIRE(core.accept(2, wait_for(2, 300)).empty());
    core.pop(2);
    CHECK(core.requests(0) == 1);
    CHECK(core.front(1).time_ps == 200);
    CHECK(core.describe() ==
          "rank 0 computes outside the platform (clock 0.000000 us; last request MmioWrite of 0x1 to BAR0 0x10 at "
          "0.000100 us, 1 request so far); rank 1 waits for its MmioRead of BAR0 0x10 at 0.000200 us (queued; 1 "
          "request so far); rank 2 waits for MSI-X vector {2} since 0.000300 us");
}

TEST_CASE("sync: rank lists are short for many ranks") {
    CHECK(list_ranks({3}) == "rank 3");
    CHECK(list_ranks({0, 2}) == "ranks 0, 2");
    CHECK(list_ranks({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) == "ranks 0, 1, 2, 3, 4, 5, 6, 7 and 2 more");
}

TEST_CASE("sync: a line for many ranks names them as runs") {
    CHECK(list_rank_ranges({3}) == "rank 3");
    CHECK(list_rank_ranges({7, 6, 5, 4, 3, 2, 1, 0}) == "ranks 0-7");
    CHECK(list_rank_ranges({0, 1, 2, 4, 5, 9}) == "ranks 0-2, 4-5, 9");
    CHECK(list_rank_ranges({2, 2, 3}) == "ranks 2-3");
    std::vector<int> every_other;
    for (int rank = 0; rank < 40; rank += 2) every_other.push_back(rank);
    CHECK(list_rank_ranges(every_other) ==
          "ranks 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30 and 4 more ranks");
}

TEST_CASE("sync: the rank heap's top is the least (time, rank) through any sets and erasures") {
    constexpr int kRanks = 37;
    RankHeap heap(kRanks);
    std::map<int, std::uint64_t> entries;  // the reference: what the heap should hold
    std::mt19937 random(12);
    std::uniform_int_distribution<int> pick_rank(0, kRanks - 1);
    std::uniform_int_distribution<std::uint64_t> pick_time(0, 20);  // narrow: many equal times
    for (int step = 0; step < 20000; ++step) {
        const int rank = pick_rank(random);
        if (random() % 3 == 0) {
            heap.erase(rank);
            entries.erase(rank);
        } else {
            const std::uint64_t time = pick_time(random);
            heap.set(rank, time);
            entries[rank] = time;
        }
        REQUIRE(heap.empty() == entries.empty());
        if (entries.empty()) continue;
        std::pair<std::uint64_t, int> least{entries.begin()->second, entries.begin()->first};
        for (const auto& [r, time] : entries) least = std::min(least, std::pair<std::uint64_t, int>{time, r});
        REQUIRE(heap.top() == least);
    }
}
