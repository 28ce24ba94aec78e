// Time steps taken by a process itself, where SystemC's kernel would take
// them for it alone.
//
// The fabric's routers, links, sources and NIC engines wake through one
// process (WakeupScheduler), and most of the ticks it asks for are ticks at
// which nothing else in the simulation is due. For each of them SystemC's
// kernel ends the evaluation phase, pops the process's timed notification
// from its heap, advances time and runs the process again: about 500
// instructions (docs/PERFORMANCE.md, "Session 31"). When the kernel's next
// step can only be that one (nothing runnable, no delta notification, no
// update request, no timed notification of anything else at or before the
// tick, no stop or pause asked for, no trace to write, and the tick before
// the running sc_start()'s end), the process can take it itself:
// advance_to() does to the kernel's state what the kernel would (time,
// change stamp, delta count), so every process runs at the same times and
// in the same delta cycles, and every delta count reads the same.
//
// What can differ is the order in which the kernel runs processes whose
// timed notifications are due at one time: its timed-event heap breaks no
// ties, so which of them is triggered first depends on the heap's history,
// and a step taken here leaves out one insertion and one extraction. IEEE
// 1666 leaves that order unspecified, and the platform's models act only on
// what reached them in earlier delta cycles (sim_now.h, next_delta_count();
// the kernel-noise checks in the test suite run every collective with an
// extra process that perturbs the kernel's order).
//
// Who may call: an SC_METHOD statically sensitive to one event of its own,
// with no notification of that event pending (a later one would survive the
// step and fire as well), which neither calls next_trigger() nor is
// suspended or disabled meanwhile; WakeupScheduler is one. The kernel's
// phase callbacks (SC_ENABLE_SIMULATION_PHASE_CALLBACKS, off in Debian's
// build) would miss the steps taken here.
//
// The kernel's fields are private; they are reached through explicit
// template instantiation (which the standard exempts from access checks)
// and are those of Accellera's 2.3.2 to 2.3.4 kernels (Debian's
// libsystemc-dev is 2.3.4). With another kernel the steps are left to it
// (available() is false).
//
// The running sc_start()'s end is the kernel's local: the simulation must be
// started through simulate(), which records it. Under a bare sc_start() no
// step is taken here.
#pragma once

#include <cstdint>

#include <systemc>

namespace isvp::kernel_time_step {

/// Whether this kernel lets a process take its time steps (Accellera 2.3.2-2.3.4).
bool available();

/// sc_start(duration, policy), recording its end so that a process may
/// take time steps up to it.
void simulate(const sc_core::sc_time& duration, sc_core::sc_starvation_policy policy = sc_core::SC_RUN_TO_TIME);
/// sc_start(): to the end of the simulation, or until it stops.
void simulate();

/// Called from the running process (see "Who may call" above): true when
/// the kernel's next time step would be to `tick` (> now) for this process
/// alone, so that the process may take it with advance_to() and run on as
/// though the kernel had triggered its timed notification for `tick`. Not
/// a pure query: the kernel's own check drops cancelled notifications from
/// the top of its heap, as it would before its next step.
bool may_advance_to(std::uint64_t tick);
/// Takes the kernel's next time step, to `tick`: as may_advance_to() said.
void advance_to(std::uint64_t tick);

}  // namespace isvp::kernel_time_step
