// ScheduleCache: the engine's shared schedules are make_schedule's, made
// once per argument set while it is among the last ScheduleCache::kEntries
// asked for; bad arguments throw as make_schedule does and are not kept.
#include <catch2/catch.hpp>

#include "isvp/collective_schedule.h"

using namespace isvp;

namespace {

bool same_steps(const Schedule& a, const Schedule& b) {
    if (a.blocks != b.blocks || a.steps.size() != b.steps.size()) return false;
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        const Step& x = a.steps[i];
        const Step& y = b.steps[i];
        if (x.apply != y.apply || x.send.has_value() != y.send.has_value() ||
            x.receive.has_value() != y.receive.has_value())
            return false;
        for (const auto& [p, q] : {std::make_pair(&x.send, &y.send), std::make_pair(&x.receive, &y.receive)}) {
            if (!*p) continue;
            if ((*p)->peer != (*q)->peer || (*p)->spans.size() != (*q)->spans.size()) return false;
            for (std::size_t k = 0; k < (*p)->spans.size(); ++k)
                if ((*p)->spans[k].first != (*q)->spans[k].first || (*p)->spans[k].count != (*q)->spans[k].count)
                    return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("schedule cache gives make_schedule's schedule and shares a repeated one", "[collective][schedule]") {
    ScheduleCache cache;
    const auto a = cache.get(Opcode::Allreduce, Algorithm::RecursiveDoubling, 12, 5, 0, Fold::Hypercube);
    REQUIRE(a);
    CHECK(same_steps(*a, make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling, 12, 5, 0, Fold::Hypercube)));
    CHECK(cache.get(Opcode::Allreduce, Algorithm::RecursiveDoubling, 12, 5, 0, Fold::Hypercube) == a);
    // Any differing argument is another schedule.
    const auto b = cache.get(Opcode::Bcast, Algorithm::BinomialTree, 12, 5, 3, Fold::Hypercube);
    CHECK(b != a);
    CHECK(same_steps(*b, make_schedule(Opcode::Bcast, Algorithm::BinomialTree, 12, 5, 3, Fold::Hypercube)));
    const auto c = cache.get(Opcode::Bcast, Algorithm::BinomialTree, 12, 5, 4, Fold::Hypercube);
    CHECK(c != b);
    CHECK(same_steps(*c, make_schedule(Opcode::Bcast, Algorithm::BinomialTree, 12, 5, 4, Fold::Hypercube)));
    CHECK(cache.get(Opcode::Allreduce, Algorithm::RecursiveDoubling, 12, 5, 0, Fold::Hypercube) == a);
}

TEST_CASE("schedule cache replaces its oldest entry and keeps handed-out schedules valid", "[collective][schedule]") {
    ScheduleCache cache;
    const auto first = cache.get(Opcode::Reduce, Algorithm::BinomialTree, 16, 0, 0, Fold::Hypercube);
    for (int rank = 1; rank <= static_cast<int>(ScheduleCache::kEntries); ++rank)
        cache.get(Opcode::Reduce, Algorithm::BinomialTree, 16, rank, 0, Fold::Hypercube);
    // Pushed out: made again (an equal schedule, another object); the old one still reads.
    const auto again = cache.get(Opcode::Reduce, Algorithm::BinomialTree, 16, 0, 0, Fold::Hypercube);
    CHECK(again != first);
    CHECK(same_steps(*again, *first));
}

TEST_CASE("schedule cache throws for bad arguments as make_schedule does", "[collective][schedule]") {
    ScheduleCache cache;
    CHECK_THROWS_AS(cache.get(Opcode::Bcast, Algorithm::BinomialTree, 4, 4), std::invalid_argument);
    CHECK_THROWS_AS(cache.get(Opcode::Allgather, Algorithm::Ring, 8, 0, 0, Fold::Hypercube), std::invalid_argument);
    CHECK(cache.get(Opcode::Bcast, Algorithm::BinomialTree, 4, 3));
}
