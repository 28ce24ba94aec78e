// Router core pieces: parameters and the buffer sizing rule, round-robin
// arbitration, the time-ordered agenda, the packet FIFO.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "isvp/credit_queue.h"
#include "isvp/ring_queue.h"
#include "isvp/round_robin_arbiter.h"
#include "isvp/router_config.h"
#include "isvp/timed_agenda.h"
#include "isvp/fabric_config.h"

using namespace isvp;

TEST_CASE("router config: min_buf = (m + (d + q) * L / T_clk) * Ph with the defaults is 42,496 bytes") {
    const RouterConfig config;
    // m 8, d 10, q 2, L 440 ns, T_clk 4 ns, Ph 32 B: (8 + 12 * 110) * 32.
    CHECK(config.minimum_input_buffer_bytes(440.0) == (8 + 12 * 110) * 32);
    CHECK(config.minimum_input_buffer_bytes(440.0) == 42496);
    CHECK(config.minimum_input_buffer_bytes(440.0) <= config.input_buffer_bytes);
    RouterConfig deeper = config;
    deeper.buffer_sizing_tree_depth = 16;
    CHECK(deeper.minimum_input_buffer_bytes(440.0) == (8 + 18 * 110) * 32);
}

TEST_CASE("router config: the defaults split 48 KB over 2 VCs of 768 phits") {
    const RouterConfig config;
    CHECK(config.input_buffer_bytes == 49152);
    CHECK(config.vc_buffer_phits() == 768);
    CHECK(config.max_packet_phits() == 760);
    CHECK(config.clock_period_ns() == 4.0);
}

TEST_CASE("router config: parameters are declared once and bad values are refused by name") {
    Parameters parameters;
    RouterConfig::declare(parameters);
    CHECK(RouterConfig::from(parameters).pipeline_cycles == 4);
    CHECK_THROWS_WITH(parameters.apply_override("router.routing=west_first"),
                      Catch::Contains("router.routing") && Catch::Contains("one of dor"));
    CHECK_THROWS_WITH(parameters.apply_override("router.vcs=0"), Catch::Contains("router.vcs must be an integer"));
    parameters.apply_override("router.input_buffer_bytes=256");
    CHECK_THROWS_WITH(RouterConfig::from(parameters),
                      Catch::Contains("router.flow_control_margin_phits (8) must be smaller than the per-VC buffer"));
}

TEST_CASE("torus fabric config: topology.torus is validated with a message naming it") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    CHECK(FabricConfig::from(parameters).shape.nodes() == 64);
    parameters.apply_override("topology.torus=4x0x2");
    CHECK_THROWS_WITH(FabricConfig::from(parameters),
                      "config: topology.torus must be XxYxZ with positive integers, got '4x0x2'");
    parameters.apply_override("topology.torus=2x2x1");
    parameters.apply_override("router.vcs=1");
    CHECK_THROWS_WITH(FabricConfig::from(parameters), Catch::Contains("router.vcs must be at least 2"));
}

TEST_CASE("request sets: the only member of one word and of several") {
    CHECK_FALSE(request_bits::only(0));
    CHECK(*request_bits::only(std::uint64_t{1} << 63) == 63);
    CHECK(*request_bits::only(std::uint64_t{1} << 5, 128) == 133);
    CHECK_FALSE(request_bits::only(0b101));
    RequestSet requests(200);
    CHECK_FALSE(requests.single());
    requests.set(130);
    CHECK(*requests.single() == 130);
    requests.set(3);  // a member in another word
    CHECK_FALSE(requests.single());
    requests.reset(130);
    requests.set(4);  // two in one word
    CHECK_FALSE(requests.single());
    requests.reset(3);
    CHECK(*requests.single() == 4);
}

TEST_CASE("round robin: the requester after the last winner wins next") {
    RequestSet requests(5);
    RoundRobinArbiter arbiter(5);
    CHECK_FALSE(arbiter.pick(requests));
    requests.set(1);
    requests.set(3);
    CHECK(*arbiter.pick(requests) == 1);
    arbiter.grant(1);
    CHECK(*arbiter.pick(requests) == 3);
    arbiter.grant(3);
    CHECK(*arbiter.pick(requests) == 1);  // wraps round
}

TEST_CASE("round robin: as many requesters as a request set holds, and no more") {
    const unsigned size = RequestSet::kCapacity;
    RequestSet requests(size);
    requests.set(size - 1);
    requests.set(0);
    RoundRobinArbiter arbiter(size);
    arbiter.grant(size - 2);
    CHECK(*arbiter.pick(requests) == size - 1);
    arbiter.grant(size - 1);  // the last requester: the next round starts at 0
    CHECK(*arbiter.pick(requests) == 0);
    CHECK_THROWS_AS(RoundRobinArbiter(size + 1), std::length_error);
}

TEST_CASE("round robin: every persistent requester is served within N grants") {
    const unsigned size = 70;  // more than one 64-bit word
    RequestSet requests(size);
    for (unsigned i = 0; i < size; i += 3) requests.set(i);
    RoundRobinArbiter arbiter(size);
    std::vector<int> served(size, 0);
    for (unsigned grant = 0; grant < 24 * 2; ++grant) {
        const unsigned winner = *arbiter.pick(requests);
        CHECK(requests.test(winner));
        arbiter.grant(winner);
        ++served[winner];
    }
    for (unsigned i = 0; i < size; i += 3) CHECK(served[i] == 2);
}

TEST_CASE("request set: first_from finds the first member at or after start, wrapping, for every size") {
    // Sizes up to 64 take the one-word path, larger ones the general scan;
    // both must agree with a plain search over the members.
    std::uint64_t state = 12345;
    auto draw = [&state] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return state >> 33;
    };
    for (unsigned size = 1; size <= 130; ++size) {
        for (int trial = 0; trial < 20; ++trial) {
            RequestSet requests(size);
            std::vector<bool> member(size, false);
            const unsigned density = 1 + static_cast<unsigned>(draw() % 4);  // sparse to dense
            for (unsigned i = 0; i < size; ++i)
                if (draw() % 5 < density) {
                    requests.set(i);
                    member[i] = true;
                }
            for (unsigned start = 0; start < size; ++start) {
                std::optional<unsigned> expected;
                for (unsigned k = 0; k < size && !expected; ++k)
                    if (member[(start + k) % size]) expected = (start + k) % size;
                INFO("size " << size << ", start " << start);
                REQUIRE(requests.first_from(start) == expected);
            }
            CHECK(requests.first_from(size + 3) == requests.first_from(3 % size));  // start taken modulo size
        }
    }
    CHECK_FALSE(RequestSet(0).first_from(0));
    RoundRobinArbiter arbiter(4);
    arbiter.grant(3);  // the last requester won: the first has priority next
    RequestSet all(4);
    for (unsigned i = 0; i < 4; ++i) all.set(i);
    CHECK(*arbiter.pick(all) == 0);
}

TEST_CASE("timed agenda: items come out by time, equal times in insertion order") {
    TimedAgenda<int> agenda;
    agenda.push(30, 1);
    agenda.push(10, 2);
    agenda.push(30, 3);
    agenda.push(10, 4);
    agenda.push(20, 5);
    std::vector<int> order;
    while (!agenda.empty()) order.push_back(agenda.pop());
    CHECK(order == std::vector<int>{2, 4, 5, 1, 3});
}

namespace {
/// An agenda item too wide to share a word with its insertion number.
struct WideItem {
    int value = 0;
    std::uint64_t padding = 0;
};

/// Pushes and pops a pseudo-random mix (many equal times, full and partial
/// 4-ary nodes) and checks every pop against a (time, insertion) reference.
template <typename Agenda, typename Make, typename Read>
void check_against_reference(Agenda& agenda, Make make, Read read) {
    std::vector<std::pair<std::uint64_t, int>> reference;  // (time, insertion), unordered
    std::uint64_t state = 12345;
    auto next = [&state] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    int inserted = 0;
    std::uint64_t now = 0;
    for (int round = 0; round < 3000; ++round) {
        const std::uint64_t time = now + (next() >> 60);  // 16 distinct times ahead: many ties
        agenda.push(time, make(inserted));
        reference.emplace_back(time, inserted++);
        if (round % 3 == 2) {
            const auto earliest = std::min_element(reference.begin(), reference.end());
            REQUIRE(agenda.next_time() == earliest->first);
            REQUIRE(read(agenda.pop()) == earliest->second);
            now = earliest->first;
            reference.erase(earliest);
        }
    }
    std::sort(reference.begin(), reference.end());
    for (const auto& expected : reference) REQUIRE(read(agenda.pop()) == expected.second);
    CHECK(agenda.empty());
}
}  // namespace

TEST_CASE("timed agenda: packed and wide items, and renumbered insertion orders, pop in (time, insertion) order") {
    static_assert(timed_agenda_detail::kPacked<int> && !timed_agenda_detail::kPacked<WideItem>);
    static_assert(sizeof(timed_agenda_detail::Entry<int>) == 16);
    const auto make_int = [](int i) { return i; };
    const auto read_int = [](int i) { return i; };
    const auto make_wide = [](int i) { return WideItem{i, 0}; };
    const auto read_wide = [](const WideItem& item) { return item.value; };
    TimedAgenda<int> packed;
    check_against_reference(packed, make_int, read_int);
    TimedAgenda<WideItem> wide;
    check_against_reference(wide, make_wide, read_wide);
    TimedAgenda<int, 37> renumbered;  // insertion numbers run out every 37 pushes
    check_against_reference(renumbered, make_int, read_int);
}

TEST_CASE("timed agenda: next_item() is the item pop() returns, ties and spilled entries included") {
    TimedAgenda<std::uint32_t, 0, 4> agenda;  // packed items, four inline entries, then spilled
    const std::uint64_t times[] = {50, 20, 20, 70, 20, 10, 50, 90};
    for (std::uint32_t i = 0; i < 8; ++i) agenda.push(times[i], i);
    std::vector<std::uint32_t> popped;
    while (!agenda.empty()) {
        const std::uint32_t next = agenda.next_item();
        CHECK(agenda.pop() == next);
        popped.push_back(next);
    }
    CHECK(popped == std::vector<std::uint32_t>{5, 1, 2, 4, 0, 6, 3, 7});
}

TEST_CASE("timed agenda: inline entries spill, come back when empty, and copy apart") {
    const auto same = [](int i) { return i; };
    TimedAgenda<int, 0, 4> agenda;                // a router's: four entries inline
    check_against_reference(agenda, same, same);  // thousands held at once, then drained
    for (int burst : {3, 4, 5, 40, 2}) {          // within the inline entries, just past them, far past
        for (int i = 0; i < burst; ++i) agenda.push(static_cast<std::uint64_t>(100 - i % 3), i);
        TimedAgenda<int, 0, 4> copy = agenda;
        copy.push(0, -1);  // the copy has storage of its own
        CHECK(copy.pop() == -1);
        std::vector<int> order;
        std::vector<int> copied;
        while (!agenda.empty()) order.push_back(agenda.pop());
        while (!copy.empty()) copied.push_back(copy.pop());
        std::vector<int> expected;
        for (int remainder : {2, 1, 0})  // time 98, 99, 100; insertion order within each
            for (int i = 0; i < burst; ++i)
                if (i % 3 == remainder) expected.push_back(i);
        CHECK(order == expected);
        CHECK(copied == expected);
    }
    TimedAgenda<int, 37, 4> renumbered;  // renumbering over inline and spilled entries
    check_against_reference(renumbered, same, same);
    TimedAgenda<int, 0, 4> spilled;  // copy-assigned over a spilled agenda, then onto itself
    for (int i = 0; i < 20; ++i) spilled.push(static_cast<std::uint64_t>(i), i);
    TimedAgenda<int, 0, 4> small;
    small.push(7, 70);
    small.push(3, 30);
    spilled = small;
    const TimedAgenda<int, 0, 4>& alias = spilled;
    spilled = alias;
    REQUIRE(spilled.size() == 2);
    CHECK(spilled.pop() == 30);
    CHECK(spilled.pop() == 70);
    CHECK(small.size() == 2);
}

TEST_CASE("credit queue: due sums match a sorted reference, in order or not, across growth and wrap-around") {
    CreditQueue queue;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> reference;  // (tick, phits), unordered
    std::uint64_t tick = 100;
    std::uint64_t now = 0;
    std::uint32_t phits = 1;
    for (int round = 0; round < 200; ++round) {
        // Mostly non-decreasing ticks (a link's returns), some repeated, one
        // in eleven earlier than the last (a dropped packet's credits).
        const std::uint64_t at = round % 11 == 5 ? tick - 37 : (tick += round % 3 == 0 ? 0 : 13);
        queue.push(at, phits);
        reference.emplace_back(at, phits);
        phits = phits % 17 + 1;
        if (round % 4 == 3) {
            now += 40;
            std::uint64_t expected = 0;
            for (auto it = reference.begin(); it != reference.end();)
                if (it->first <= now) {
                    expected += it->second;
                    it = reference.erase(it);
                } else {
                    ++it;
                }
            CHECK(queue.pop_due(now) == expected);
            std::uint64_t rest = 0;
            std::uint64_t earliest = ~0ull;
            for (const auto& entry : reference) {
                rest += entry.second;
                earliest = std::min(earliest, entry.first);
            }
            CHECK(queue.total() == rest);
            CHECK(queue.empty() == reference.empty());
            if (!queue.empty()) CHECK(queue.next_time() == earliest);
        }
    }
}

namespace {

/// Credits a reference holds (tick -> phits, possibly repeated ticks).
using CreditReference = std::multimap<std::uint64_t, std::uint32_t>;

/// Removes and sums the reference's credits due at `now`.
std::uint64_t pop_due(CreditReference& held, std::uint64_t now) {
    std::uint64_t sum = 0;
    while (!held.empty() && held.begin()->first <= now) {
        sum += held.begin()->second;
        held.erase(held.begin());
    }
    return sum;
}

/// The `round`-th return of a busy link: ticks mostly rising; every seventh
/// earlier than everything held (it becomes the queue's new inline head);
/// every ninth on a tick already held.
std::pair<std::uint64_t, std::uint32_t> busy_return(int round, std::uint64_t& tick, std::uint64_t now,
                                                    const CreditReference& held) {
    std::uint64_t at = tick += 5;
    if (round % 7 == 3) at = held.empty() ? now + 1 : std::max(now + 1, held.begin()->first - 2);
    if (round % 9 == 4 && !held.empty()) at = std::prev(held.end())->first;
    return {at, static_cast<std::uint32_t>(round % 13 + 1)};
}

/// The queue holds what the reference holds.
void check_holds(const CreditQueue& queue, const CreditReference& held) {
    std::uint64_t sum = 0;
    for (const auto& entry : held) sum += entry.second;
    CHECK(queue.total() == sum);
    CHECK(queue.empty() == held.empty());
    if (!held.empty()) CHECK(queue.next_time() == held.begin()->first);
}

}  // namespace

TEST_CASE("credit queue: long backlogs and arrivals before the inline head match a sorted reference") {
    // Up to 40 returns in flight: the ring behind the inline earliest entry
    // grows and wraps.
    CreditQueue queue;
    CreditReference held;
    std::uint64_t tick = 1000;
    std::uint64_t now = 0;
    for (int round = 0; round < 400; ++round) {
        const auto [at, phits] = busy_return(round, tick, now, held);
        queue.push(at, phits);
        held.emplace(at, phits);
        if (round % 40 == 39) {
            now += 150;
            CHECK(queue.pop_due(now) == pop_due(held, now));
        }
        check_holds(queue, held);
    }
    CHECK(queue.pop_due(~0ull - 1) == pop_due(held, ~0ull - 1));
    CHECK(queue.empty());
    CHECK(queue.size() == 0);
}

TEST_CASE("credit queue: a copy taken with returns in flight goes on as the original does") {
    CreditQueue queue;
    CreditReference held;
    std::uint64_t tick = 1000;
    for (int round = 0; round < 30; ++round) {
        const auto [at, phits] = busy_return(round, tick, 0, held);
        queue.push(at, phits);
        held.emplace(at, phits);
    }
    CreditQueue copy = queue;
    CreditReference copy_held = held;
    for (int round = 30; round < 60; ++round) {
        const auto [at, phits] = busy_return(round, tick, 0, copy_held);
        copy.push(at, phits);
        copy_held.emplace(at, phits);
        check_holds(copy, copy_held);
    }
    check_holds(queue, held);  // the original did not change
    CHECK(copy.pop_due(tick - 50) == pop_due(copy_held, tick - 50));
    check_holds(copy, copy_held);
}

TEST_CASE("credit queue: a moved-from queue is empty, the moved-to one holds the credits") {
    CreditQueue queue;
    for (std::uint64_t at = 10; at <= 200; at += 10) queue.push(at, 3);  // inline head and a ring of 19
    CreditQueue moved(std::move(queue));
    CHECK(queue.empty());  // NOLINT(bugprone-use-after-move): what is left is specified
    CHECK(queue.total() == 0);
    CHECK(queue.pop_due(1000) == 0);
    queue.push(5, 1);  // usable again
    CHECK(queue.pop_due(5) == 1);
    CHECK(moved.total() == 60);
    CHECK(moved.next_time() == 10);
    CreditQueue assigned;
    assigned = std::move(moved);
    CHECK(moved.empty());  // NOLINT(bugprone-use-after-move)
    CHECK(assigned.pop_due(100) == 30);
    CHECK(assigned.pop_due(1000) == 30);
}

TEST_CASE("ring queue: first in, first out across growth and wrap-around") {
    RingQueue<int> queue;
    int next_in = 0;
    int next_out = 0;
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < round % 7 + 3; ++i) queue.push_back(next_in++);
        for (int i = 0; i < round % 5 + 1 && !queue.empty(); ++i) {
            CHECK(queue.front() == next_out++);
            queue.pop_front();
        }
    }
    CHECK(queue.size() == static_cast<std::size_t>(next_in - next_out));
}
