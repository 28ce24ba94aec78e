// sim_now(): the current simulation time, inline. sc_core::sc_time_stamp()
// is an out-of-line call into the SystemC library, and the per-packet paths
// of the routers, links, engines and the PCIe/QDMA models ask for the time
// several times per packet (≈ 1 % of a collective run's instructions went
// to the calls alone). This reads the same field of the same kernel context.
#pragma once

#include <systemc>

namespace isvp {

inline const sc_core::sc_time& sim_now() {
    return sc_core::sc_get_curr_simcontext()->time_stamp();
}

}  // namespace isvp
