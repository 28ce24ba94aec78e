// sim_now(): the current simulation time, inline. sc_core::sc_time_stamp()
// is an out-of-line call into the SystemC library, and the per-packet paths
// of the routers, links, engines and the PCIe/QDMA models ask for the time
// several times per packet (≈ 1 % of a collective run's instructions went
// to the calls alone). This reads the same field of the same kernel context.
#pragma once

#include <cstdint>
#include <type_traits>

#include <systemc>

namespace isvp {

inline const sc_core::sc_time& sim_now() {
    // sc_get_curr_simcontext() is inline too, but creates the default
    // context when there is none, and the compiler keeps it out of line at
    // some callers (≈ 1 % of a collective run's instructions): the context
    // exists once anything of SystemC does.
    const sc_core::sc_simcontext* context = sc_core::sc_curr_simcontext;
    if (__builtin_expect(context == nullptr, 0)) context = sc_core::sc_get_curr_simcontext();
    return context->time_stamp();
}

/// sc_core::sc_time::from_value(ticks), inline. from_value() is an
/// out-of-line call into the SystemC library too (about 25 instructions),
/// and a hop makes about four of them. It also marks the time resolution as
/// fixed, which the models' elaboration has done long before anything asks
/// for a time by its ticks.
inline sc_core::sc_time sim_time(std::uint64_t ticks) {
    using Value = sc_core::sc_time::value_type;
    static_assert(std::is_standard_layout_v<sc_core::sc_time> && sizeof(sc_core::sc_time) == sizeof(Value),
                  "sc_time is its tick count alone");
    sc_core::sc_time time;
    // A standard-layout object and its first member are pointer-interconvertible.
    *reinterpret_cast<Value*>(&time) = ticks;
    return time;
}

/// The delta count (sc_delta_count()) of the first delta cycle that may see
/// what is done now: the next one when asked from a process, the first of
/// the next sc_start() when asked between two. SystemC's count grows after
/// every evaluation phase in which a process ran, so a block that acts only
/// on what was handed to it in earlier delta cycles does the same whichever
/// of the processes due with it the kernel runs first.
inline std::uint64_t next_delta_count() {
    const std::uint64_t delta = sc_core::sc_delta_count();
    return sc_core::sc_get_status() == sc_core::SC_RUNNING ? delta + 1 : delta;
}

}  // namespace isvp
