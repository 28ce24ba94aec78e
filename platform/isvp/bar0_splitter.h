// Bar0Splitter: the FPGA's BAR0 address decoder. The PCIe endpoint hands
// every BAR0 access (except its own MSI-X table) to one device port; the
// FPGA has three register blocks behind it — the QDMA's, the collective
// accelerator's window [ACCELERATOR_BASE, ACCELERATOR_END) and, inside it,
// the kernel unit's [KERNEL_BASE, KERNEL_END) — so this routes by offset. Addresses pass through unchanged (BAR0
// offsets). LT, no delay of its own; targets must not wait(), as the endpoint requires.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/register_map.h"
#include "isvp/target_socket.h"

namespace isvp {

class Bar0Splitter : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<Bar0Splitter> from_endpoint;        ///< PcieEndpoint::bar0
    tlm_utils::simple_initiator_socket<Bar0Splitter> qdma;         ///< everything outside the window
    tlm_utils::simple_initiator_socket<Bar0Splitter> accelerator;  ///< [ACCELERATOR_BASE, ACCELERATOR_END)
    tlm_utils::simple_initiator_socket<Bar0Splitter> kernel;       ///< [KERNEL_BASE, KERNEL_END)

    explicit Bar0Splitter(sc_core::sc_module_name name)
        : sc_core::sc_module(name),
          from_endpoint("from_endpoint"),
          qdma("qdma"),
          accelerator("accelerator"),
          kernel("kernel") {
        from_endpoint.register_b_transport(this, &Bar0Splitter::b_transport);
    }

    static bool in_accelerator_window(sc_dt::uint64 offset) {
        return offset >= regmap::ACCELERATOR_BASE && offset < regmap::ACCELERATOR_END;
    }

    static bool in_kernel_window(sc_dt::uint64 offset) {
        return offset >= regmap::KERNEL_BASE && offset < regmap::KERNEL_END;
    }

  private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        if (in_kernel_window(payload.get_address()))
            kernel->b_transport(payload, delay);
        else if (in_accelerator_window(payload.get_address()))
            accelerator->b_transport(payload, delay);
        else
            qdma->b_transport(payload, delay);
    }
};

}  // namespace isvp
