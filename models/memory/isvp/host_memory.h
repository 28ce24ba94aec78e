// HostMemory: the host's DMA-able memory as a TLM-2.0 target.
//
// Abstraction: LT, blocking transport plus DMI. The bytes live in a span
// someone else owns (a rank's shared-memory segment, or a local buffer);
// guest-physical address A is span[A]. Every access is checked against the
// span: one that does not fit completely is refused with
// TLM_ADDRESS_ERROR_RESPONSE and touches nothing. DMI is granted read/write
// over the whole span.
//
// Not modelled: DRAM timing (the PCIe latency in front of it includes the
// root complex and memory), caches and coherence, IOMMU translation.
#pragma once

#include <cstddef>
#include <cstdint>

#include <systemc>
#include <tlm>

#include "isvp/target_socket.h"

namespace isvp {

class HostMemory : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<HostMemory> socket;  ///< reads/writes at guest-physical addresses

    /// `bytes` bytes at `base` become guest-physical [0, bytes); the span must
    /// outlive the module. A null base with a non-zero size is a modelling bug.
    HostMemory(sc_core::sc_module_name name, std::uint8_t* base, std::size_t bytes);

    std::uint8_t* data() { return base_; }
    std::size_t size() const { return bytes_; }

  private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload);
    /// Performs the access if it lies inside the span; sets the response.
    unsigned int access(tlm::tlm_generic_payload& payload);

    std::uint8_t* base_;  ///< first byte of the span (not owned)
    std::size_t bytes_;   ///< span size in bytes
};

}  // namespace isvp
