// IrqJoin: the FPGA's interrupt requests from two blocks — the QDMA's and
// the kernel unit's — into the PCIe endpoint's one `irq` socket
// (msix_interrupt.h). LT pass-through with no delay of its own: the QDMA's
// interrupts reach the endpoint exactly as when it was bound directly.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/target_socket.h"

namespace isvp {

class IrqJoin : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<IrqJoin> from_qdma;            ///< Qdma::irq
    isvp::BlockingTargetSocket<IrqJoin> from_kernel;          ///< KernelUnit::irq
    tlm_utils::simple_initiator_socket<IrqJoin> to_endpoint;  ///< PcieEndpoint::irq

    explicit IrqJoin(sc_core::sc_module_name name)
        : sc_core::sc_module(name), from_qdma("from_qdma"), from_kernel("from_kernel"), to_endpoint("to_endpoint") {
        from_qdma.register_b_transport(this, &IrqJoin::forward);
        from_kernel.register_b_transport(this, &IrqJoin::forward);
    }

  private:
    void forward(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        to_endpoint->b_transport(payload, delay);
    }
};

}  // namespace isvp
