// Time steps taken by a process itself, where SystemC's kernel would take
// them for it alone.
//
// The fabric's routers, links, sources and NIC engines wake through one
// process (WakeupScheduler), and most of the ticks it asks for are ticks at
// which nothing else in the simulation is due. For each of them SystemC's
// kernel ends the evaluation phase, pops the process's timed notification
// from its heap, advances time and runs the process again: about 500
// instructions, a third of what a packet-hop costs in the fabric itself
// (docs/PERFORMANCE.md, "Session 31"). When the kernel's next step can only
// be that one (nothing runnable, no delta notification, no update request,
// no timed notification of anything else at or before the tick, no stop or
// pause asked for, no trace to write, and the tick within the running
// sc_start()), the process can take it itself: advance_to() does to the
// kernel's state exactly what the kernel would (time, change stamp, delta
// count), so every process, event and delta count sees the same simulation.
//
// The kernel's fields are private; they are reached through explicit
// template instantiation (which the standard exempts from access checks)
// and are those of Accellera's 2.3 kernel, Debian's libsystemc-dev. With
// another kernel the steps are left to it (available() is false).
//
// The running sc_start()'s end is the kernel's local: the simulation must be
// started through simulate(), which records it. Under a bare sc_start() no
// step is taken here.
#pragma once

#include <cstdint>

#include <systemc>

namespace isvp::kernel_time_step {

/// Whether this kernel lets a process take its time steps (Accellera 2.3).
bool available();

/// sc_start(duration, policy), recording its end so that a process may
/// take time steps up to it.
void simulate(const sc_core::sc_time& duration, sc_core::sc_starvation_policy policy = sc_core::SC_RUN_TO_TIME);
/// sc_start(): to the end of the simulation, or until it stops.
void simulate();

/// Called from the running process: true when the kernel's next time step
/// would be to `tick` (> now) for this process alone, so that the process
/// may take it with advance_to() and run on as though the kernel had
/// triggered its timed notification for `tick`. The caller must have no
/// timed notification of its own pending (the kernel would count it).
bool may_advance_to(std::uint64_t tick);
/// Takes the kernel's next time step, to `tick`: as may_advance_to() said.
void advance_to(std::uint64_t tick);

}  // namespace isvp::kernel_time_step
