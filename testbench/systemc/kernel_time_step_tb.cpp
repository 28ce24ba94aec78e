// The fabric's WakeupScheduler takes SystemC's time step to its next
// wake-up itself when the kernel's next step would be to it alone
// (isvp/kernel_time_step.h). That must leave the simulation exactly as the
// kernel would: run with `off`, `on` and `traced` (on, with a VCD trace
// being written, where the kernel must take every step), this testbench
// prints every activation of every process (time, delta count, delta
// cycles at this time, who) and the kernel's state at the end of each
// sc_start(), and the CTest requires the outputs to be identical but for
// the count of steps taken (which must not be zero with `on`). Within one
// delta cycle the activations are listed by name: the kernel's order among
// processes due together is not part of what a step keeps
// (kernel_time_step.h).
//
// What the clients do covers what may stop a step: a timed notification of
// another process before, at and after a client's tick; three processes
// notified for the same times; a zero-delay notification; a primitive
// channel's update request (sc_signal write); a wake-up asked for now and
// for the next delta cycle; another process asking the scheduler for a
// wake-up; sc_pause() and, at the end, sc_stop() from a client; and the
// ends of sc_start() slices, on and off the clients' ticks, with both
// starvation policies.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
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

/// Every activation, in order: time, delta count, delta cycles at this
/// time, who (or a line about an sc_start()'s end).
std::vector<std::string> trace;
std::uint64_t activations = 0;

void note(const std::string& who) {
    ++activations;
    trace.push_back(std::to_string(sim_now().value()) + " " + std::to_string(sc_core::sc_delta_count()) + " " +
                    std::to_string(sc_core::sc_get_curr_simcontext()->delta_count_at_current_time()) + " " + who);
}

/// The trace with each delta cycle's activations by name (the lines of a
/// delta cycle share their first two fields).
std::string canonical(std::vector<std::string> lines) {
    const auto delta_of = [](const std::string& line) { return line.substr(0, line.find(' ', line.find(' ') + 1)); };
    std::string out;
    for (std::size_t begin = 0; begin < lines.size();) {
        std::size_t end = begin + 1;
        while (end < lines.size() && delta_of(lines[end]) == delta_of(lines[begin])) ++end;
        std::sort(lines.begin() + static_cast<std::ptrdiff_t>(begin), lines.begin() + static_cast<std::ptrdiff_t>(end));
        for (std::size_t i = begin; i < end; ++i) out += lines[i] + "\n";
        begin = end;
    }
    return out;
}

/// Three processes notified for the same times, every 500 ps from 700 ps:
/// the kernel's order among them is the heap's.
class Metronomes : public sc_core::sc_module {
  public:
    explicit Metronomes(sc_core::sc_module_name name) : sc_core::sc_module(name) {
        SC_HAS_PROCESS(Metronomes);
        SC_METHOD(a);
        sensitive << a_;
        dont_initialize();
        SC_METHOD(b);
        sensitive << b_;
        dont_initialize();
        SC_METHOD(c);
        sensitive << c_;
        dont_initialize();
        for (sc_core::sc_event* event : {&a_, &b_, &c_}) event->notify(sim_time(700));
    }

  private:
    void beat(const char* who, sc_core::sc_event& event) {
        note(who);
        if (sim_now().value() < 200'000) event.notify(sim_time(500));
    }
    void a() { beat("metronome a", a_); }
    void b() { beat("metronome b", b_); }
    void c() { beat("metronome c", c_); }
    sc_core::sc_event a_, b_, c_;
};

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
        if (index_ == 0 && wakes_ == 380) sc_core::sc_stop();      // ends the simulation
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
    if (mode != "on" && mode != "off" && mode != "traced") {
        std::cerr << "usage: kernel_time_step_tb on|off|traced\n";
        return 2;
    }
    Checks checks;
    // The kernel's notes (the trace's timescale, the stop) in no mode's output.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    WakeupScheduler scheduler("scheduler");
    scheduler.take_time_steps(mode != "off");
    Observer observer("observer", scheduler);
    Metronomes metronomes("metronomes");
    sc_core::sc_trace_file* vcd = nullptr;
    if (mode == "traced") {
        vcd = sc_core::sc_create_vcd_trace_file("kernel_time_step_tb_traced");
        vcd->set_time_unit(1, sc_core::SC_PS);
        sc_core::sc_trace(vcd, observer.signal, "signal");
    }
    std::vector<std::unique_ptr<Client>> clients;
    for (unsigned c = 0; c < 6; ++c) {
        clients.push_back(std::make_unique<Client>(c, scheduler, observer));
        observer.clients.push_back(clients.back()->id);
        scheduler.request(clients.back()->id, 1000 + 250 * c);
    }
    observer.event().notify(sim_time(1750));

    // Slices to these times (a pause ends one early; the next goes on to
    // its end), most of them on the clients' 250 ps grid: the kernel
    // triggers what is due at a slice's end but runs it in the next one.
    // Slice 5 is a bare sc_start(), which must take every step itself.
    const std::uint64_t ends[] = {3'000, 3'001, 13'000, 20'777, 21'000, 41'000, 61'000, 184'456, 284'000};
    bool slices_end_in_time = true;
    bool bare_took_every_step = true;
    unsigned slice = 0;
    for (const std::uint64_t end : ends) {
        const auto policy = slice % 3 == 2 ? sc_core::SC_EXIT_ON_STARVATION : sc_core::SC_RUN_TO_TIME;
        const std::uint64_t steps_before = scheduler.own_time_steps();
        if (sim_now().value() < end) {
            if (slice == 5)
                sc_core::sc_start(sim_time(end - sim_now().value()), policy);
            else
                kernel_time_step::simulate(sim_time(end - sim_now().value()), policy);
        }
        if (slice == 5) bare_took_every_step = scheduler.own_time_steps() == steps_before;
        const std::uint64_t ended = sim_now().value();
        trace.push_back("slice " + std::to_string(slice) + " ended at " + std::to_string(ended) + ", delta " +
                        std::to_string(sc_core::sc_delta_count()) + ", " +
                        (sc_core::sc_pending_activity_at_current_time() ? "" : "nothing ") + "pending now");
        slices_end_in_time = slices_end_in_time && ended <= end;
        ++slice;
    }
    // The remainder (started again after each of client 0's pauses, until its stop).
    while (sc_core::sc_pending_activity() && sc_core::sc_get_status() != sc_core::SC_STOPPED)
        kernel_time_step::simulate();
    trace.push_back("stopped at " + std::to_string(sim_now().value()) + ", delta " +
                    std::to_string(sc_core::sc_delta_count()));
    if (vcd != nullptr) {
        sc_core::sc_close_vcd_trace_file(vcd);
        std::remove("kernel_time_step_tb_traced.vcd");
    }

    std::cout << canonical(trace);
    std::cout << "activations: " << activations << "\n";
    std::cout << "steps taken by the scheduler: " << scheduler.own_time_steps() << "\n";
    checks.expect(activations > 2'000, "the clients and the observer ran");
    checks.expect(slices_end_in_time, "no sc_start() slice ran past its end");
    checks.expect(bare_took_every_step, "under a bare sc_start() the kernel takes every step");
    checks.expect(sc_core::sc_get_status() == sc_core::SC_STOPPED, "client 0 stopped the simulation");
    if (mode == "on")
        checks.expect(scheduler.own_time_steps() > 0,
                      "the scheduler took time steps itself (Accellera 2.3.2-2.3.4, kernel_time_step.h)");
    else if (mode == "traced")
        checks.expect(scheduler.own_time_steps() == 0, "with a trace being written, the kernel took every step");
    else
        checks.expect(scheduler.own_time_steps() == 0, "turned off, the scheduler took no time step itself");
    return checks.finish();
}
