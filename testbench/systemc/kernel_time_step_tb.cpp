// The fabric's WakeupScheduler takes SystemC's time step to its next
// wake-up itself when the kernel's next step would be to it alone
// (isvp/kernel_time_step.h). That must leave the simulation exactly as the
// kernel would: run with `on` and `off`, this testbench prints every
// activation of every process (time, delta count, delta cycles at this
// time, who) and the kernel's state at the end of each sc_start(), and the
// CTest requires the two outputs to be identical but for the count of
// steps taken (which must not be zero with `on`).
//
// What the clients do covers what may stop a step: a timed notification of
// another process before, at and after a client's tick; a zero-delay
// notification; a primitive channel's update request (sc_signal write); a
// wake-up asked for now and for the next delta cycle; another process
// asking the scheduler for a wake-up; sc_pause() from a client; and the
// ends of sc_start() slices of odd lengths, with both starvation policies.
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "isvp/kernel_time_step.h"
#include "isvp/sim_now.h"
#include "isvp/wakeup_scheduler.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;

namespace {

std::ostringstream trace;  ///< every activation, in order
std::uint64_t activations = 0;

void note(const std::string& who) {
    ++activations;
    trace << sim_now().value() << " " << sc_core::sc_delta_count() << " "
          << sc_core::sc_get_curr_simcontext()->delta_count_at_current_time() << " " << who << "\n";
}

/// A deterministic sequence (a linear congruential generator).
class Sequence {
  public:
    explicit Sequence(std::uint64_t seed) : state_(seed) {}
    unsigned next(unsigned bound) {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<unsigned>((state_ >> 33) % bound);
    }

  private:
    std::uint64_t state_;
};

/// Another process: woken by its own timed and zero-delay notifications
/// and by the signal, it asks the scheduler for wake-ups.
class Observer : public sc_core::sc_module {
  public:
    Observer(sc_core::sc_module_name name, WakeupScheduler& scheduler)
        : sc_core::sc_module(name), scheduler_(scheduler) {
        SC_HAS_PROCESS(Observer);
        SC_METHOD(on_event);
        sensitive << event_;
        dont_initialize();
        SC_METHOD(on_signal);
        sensitive << signal;
        dont_initialize();
    }
    sc_core::sc_event& event() { return event_; }
    sc_core::sc_signal<unsigned> signal;
    std::vector<unsigned> clients;  ///< ids it may ask the scheduler to wake

  private:
    void on_event() {
        note("observer");
        const unsigned pick = sequence_.next(8);
        if (!clients.empty() && pick < 4) {
            const unsigned client = clients[pick % clients.size()];
            if (pick == 0)
                scheduler_.request_next_delta(client);
            else
                scheduler_.request(client, sim_now().value() + (pick - 1) * 1000);
        }
        if (pick == 7) event_.notify(sim_time(1 + sequence_.next(3000)));
    }
    void on_signal() { note("signal " + std::to_string(signal.read())); }
    WakeupScheduler& scheduler_;
    sc_core::sc_event event_;
    Sequence sequence_{7};
};

/// A fabric-like client: each wake-up notes itself and asks for its next
/// one, now, in the next delta cycle or later; some wake the observer.
class Client final : public WakeupScheduler::Client {
  public:
    Client(unsigned index, WakeupScheduler& scheduler, Observer& observer)
        : index_(index), scheduler_(scheduler), observer_(observer), sequence_(index + 1) {
        id = scheduler.attach(*this);
    }
    void wake() override {
        note("client " + std::to_string(index_));
        if (++wakes_ > kWakes) return;
        if (index_ == 0 && wakes_ % 97 == 0) sc_core::sc_pause();  // ends the running sc_start() here
        const std::uint64_t now = sim_now().value();
        switch (sequence_.next(24)) {
            case 0:
                observer_.event().notify(sc_core::SC_ZERO_TIME);
                break;
            case 1:
                observer_.event().notify(sim_time(sequence_.next(4) * 500));
                break;
            case 2:
                observer_.signal.write(wakes_);
                break;
            case 3:
                scheduler_.request_next_delta(id);
                return;
            case 4:
                scheduler_.request(id, now);
                return;
            default:
                break;
        }
        // Ticks on a coarse grid, so that clients (and the observer) meet.
        scheduler_.request(id, now + 250 * (1 + sequence_.next(12)));
    }
    unsigned id = 0;

  private:
    static constexpr unsigned kWakes = 400;
    unsigned index_;
    WakeupScheduler& scheduler_;
    Observer& observer_;
    Sequence sequence_;
    unsigned wakes_ = 0;
};

}  // namespace

int sc_main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "on" && mode != "off") {
        std::cerr << "usage: kernel_time_step_tb on|off\n";
        return 2;
    }
    Checks checks;
    WakeupScheduler scheduler("scheduler");
    scheduler.take_time_steps(mode == "on");
    Observer observer("observer", scheduler);
    std::vector<std::unique_ptr<Client>> clients;
    for (unsigned c = 0; c < 6; ++c) {
        clients.push_back(std::make_unique<Client>(c, scheduler, observer));
        observer.clients.push_back(clients.back()->id);
        scheduler.request(clients.back()->id, 1000 + 250 * c);
    }
    observer.event().notify(sim_time(1750));

    // Slices of odd lengths, ending between, at and after wake-ups.
    const std::uint64_t slices[] = {3'125, 1, 10'000, 7'777, 250, 40'000, 123'456, 100'000};
    bool slices_end_in_time = true;
    unsigned slice = 0;
    for (const std::uint64_t length : slices) {
        const std::uint64_t start = sim_now().value();
        const auto policy = slice % 3 == 2 ? sc_core::SC_EXIT_ON_STARVATION : sc_core::SC_RUN_TO_TIME;
        kernel_time_step::simulate(sim_time(length), policy);
        const std::uint64_t end = sim_now().value();
        trace << "slice " << slice << " ended at " << end << ", delta " << sc_core::sc_delta_count() << "\n";
        slices_end_in_time = slices_end_in_time && end <= start + length;
        ++slice;
    }
    // A bare sc_start() takes no steps of the scheduler's: the remainder
    // (started again after each of client 0's pauses).
    const std::uint64_t before_bare = scheduler.own_time_steps();
    while (sc_core::sc_pending_activity()) sc_core::sc_start();
    trace << "ran out at " << sim_now().value() << ", delta " << sc_core::sc_delta_count() << "\n";

    std::cout << trace.str();
    std::cout << "activations: " << activations << "\n";
    std::cout << "steps taken by the scheduler: " << scheduler.own_time_steps() << "\n";
    checks.expect(activations > 2'000, "the clients and the observer ran");
    checks.expect(slices_end_in_time, "no sc_start() slice ran past its end");
    checks.expect(scheduler.own_time_steps() == before_bare, "under a bare sc_start() the kernel takes every step");
    if (mode == "on")
        checks.expect(!kernel_time_step::available() || scheduler.own_time_steps() > 0,
                      "the scheduler took time steps itself");
    else
        checks.expect(scheduler.own_time_steps() == 0, "turned off, the scheduler took no time step itself");
    return checks.finish();
}
