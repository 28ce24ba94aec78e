// The fabric's WakeupScheduler (models/router) wakes a client asked for
// *now* by another process in the next delta cycle, whichever of the two
// processes SystemC runs first when both are due at one time and delta:
// the scheduler's timed activation (for a client due then) and a process
// that asks, at that same time, for a wake-up now (request() for the
// current tick, as a router's zero-delay credit does, or
// request_next_delta(), as a collective engine does). Before, a request
// made after the scheduler's timed notification had fired, but before its
// process ran, was served in that same delta: the kernel's order of the two
// processes decided the delta. Run with `asker-first` and `scheduler-first`
// (the order the two are built and their events notified in); each run
// says which order the kernel took and checks the deltas. It also checks
// that a wake-up asked for with a prefetch hint is the same wake-up.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "isvp/sim_now.h"
#include "isvp/wakeup_scheduler.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;

namespace {

const sc_core::sc_time kAt(10, sc_core::SC_NS);
unsigned steps = 0;  ///< what ran, in order

/// A client that notes the delta cycle of each wake-up.
class Recorder final : public WakeupScheduler::Client {
  public:
    void wake() override {
        deltas.push_back(sc_core::sc_delta_count());
        if (step == 0) step = ++steps;
    }
    std::vector<std::uint64_t> deltas;
    unsigned step = 0;  ///< when it first woke, in `steps`
};

/// At kAt, asks the scheduler to wake `now_client` for the current tick
/// and `next_client` in the next delta cycle, and notes its own delta.
class Asker : public sc_core::sc_module {
  public:
    Asker(sc_core::sc_module_name name, WakeupScheduler& scheduler, unsigned now_client, unsigned next_client)
        : sc_core::sc_module(name), scheduler_(scheduler), now_client_(now_client), next_client_(next_client) {
        SC_HAS_PROCESS(Asker);
        SC_METHOD(ask);
        sensitive << event_;
        dont_initialize();
    }
    void arm() { event_.notify(kAt); }
    std::uint64_t delta = 0;  ///< the delta count it asked in
    unsigned step = 0;        ///< when, in `steps`

  private:
    void ask() {
        delta = sc_core::sc_delta_count();
        step = ++steps;
        scheduler_.request(now_client_, sim_now().value());
        scheduler_.request_next_delta(next_client_);
    }
    WakeupScheduler& scheduler_;
    unsigned now_client_, next_client_;
    sc_core::sc_event event_;
};

}  // namespace

int sc_main(int argc, char** argv) {
    const std::string order = argc > 1 ? argv[1] : "";
    if (order != "asker-first" && order != "scheduler-first") {
        std::cerr << "usage: wakeup_scheduler_tb asker-first|scheduler-first\n";
        return 2;
    }
    Checks checks;
    Recorder due, asked_now, asked_next;
    WakeupScheduler scheduler("scheduler");
    const unsigned due_id = scheduler.attach(due);
    const unsigned now_id = scheduler.attach(asked_now);
    const unsigned next_id = scheduler.attach(asked_next);
    // A wake-up asked for with a prefetch hint (its lines, a null and more
    // than fit) is the same wake-up: at its tick, in its request order.
    Recorder hinted, plain;
    const unsigned hinted_id = scheduler.attach(hinted, &hinted, 1);
    const unsigned plain_id = scheduler.attach(plain);
    const bool off_by_default = !scheduler.hints();
    scheduler.use_hints(true);
    std::vector<std::uint64_t> lines(2 * WakeupScheduler::Hint::kLines);
    const sc_core::sc_time later = kAt + sc_core::sc_time(5, sc_core::SC_NS);
    scheduler.request(hinted_id, later.value(), [&](WakeupScheduler::Hint& hint) {
        hint.add(nullptr);
        for (const std::uint64_t& line : lines) hint.add(&line);
    });
    const WakeupScheduler::Hint::Lines stored = scheduler.hint_of(hinted_id);
    bool kept_first = true;
    for (unsigned i = 0; i < WakeupScheduler::Hint::kLines; ++i) kept_first = kept_first && stored[i] == &lines[i];
    scheduler.request(plain_id, later.value());
    // A request that changes nothing (not earlier than the pending one) is
    // not described; an earlier one's shorter hint ends in a null.
    Recorder again;
    const unsigned again_id = scheduler.attach(again);
    const auto add_all = [&](WakeupScheduler::Hint& hint) {
        for (const std::uint64_t& line : lines) hint.add(&line);
    };
    scheduler.request(again_id, later.value() + 10, add_all);
    bool described_late = false;
    scheduler.request(again_id, later.value() + 11, [&](WakeupScheduler::Hint&) { described_late = true; });
    scheduler.request(again_id, later.value() + 9, [&](WakeupScheduler::Hint& hint) { hint.add(&lines[9]); });
    const bool shorter_ends = scheduler.hint_of(again_id)[0] == &lines[9] && scheduler.hint_of(again_id)[1] == nullptr;
    scheduler.use_hints(false);  // off: nothing described, the stored hint left as it is
    bool described_off = false;
    scheduler.request(again_id, later.value() + 8, [&](WakeupScheduler::Hint&) { described_off = true; });
    const bool left_alone = scheduler.hint_of(again_id)[0] == &lines[9];
    Asker asker("asker", scheduler, now_id, next_id);
    // The order the two timed notifications for kAt are made in.
    if (order == "asker-first") asker.arm();
    scheduler.request(due_id, kAt.value());
    if (order == "scheduler-first") asker.arm();

    sc_core::sc_start(2 * kAt);

    const bool asker_ran_first = asker.step < due.step;
    std::cout << "the kernel ran the " << (asker_ran_first ? "asker" : "scheduler")
              << " first at 10 ns (asker in delta " << asker.delta << ", the due client in delta "
              << (due.deltas.empty() ? 0 : due.deltas.front()) << ")\n";
    checks.expect(due.deltas.size() == 1 && due.deltas.front() <= asker.delta + 1,
                  "the client due at 10 ns woke once, at 10 ns");
    checks.expect(asked_now.deltas == std::vector<std::uint64_t>{asker.delta + 1},
                  "a wake-up asked for now from another process comes in the next delta cycle, once");
    checks.expect(asked_next.deltas == std::vector<std::uint64_t>{asker.delta + 1},
                  "a wake-up asked for the next delta cycle comes there, once");
    checks.expect(off_by_default, "hints are off until turned on");
    checks.expect(kept_first, "a hint keeps its first kLines lines and no null");
    checks.expect(!described_late && shorter_ends,
                  "a request that changes nothing is not described; a shorter hint that replaces one ends in a null");
    checks.expect(!described_off && left_alone, "with hints off nothing is described and the stored hint stays");
    checks.expect(again.deltas.size() == 1, "a client asking again with and without hints wakes once");
    checks.expect(hinted.deltas.size() == 1 && plain.deltas.size() == 1 && hinted.step + 1 == plain.step,
                  "a hinted wake-up comes once, at its tick, before a later request for the same tick");
    bool same = true;  // the scheduler's and the models' inline sc_time from ticks
    const std::uint64_t samples[] = {0, 1, kAt.value(), std::uint64_t{1} << 40, ~std::uint64_t{0}};
    for (const std::uint64_t ticks : samples)
        same = same && sim_time(ticks) == sc_core::sc_time::from_value(ticks) && sim_time(ticks).value() == ticks;
    checks.expect(same, "sim_time(ticks) is sc_time::from_value(ticks)");
    return checks.finish();
}
