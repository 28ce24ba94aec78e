// HostBridge: the host's PCIe root complex as seen from the device.
//
// Abstraction: LT, blocking transport, DMI forwarded. DMA from the PCIe
// endpoint arrives on `dma`; a 4-byte write into the MSI window
// [kMsiWindowBase, +kMsiWindowBytes) is a message-signalled interrupt and
// leaves through `msi` unchanged (address and data as the MSI-X entry said:
// the receiver, the guest gateway, decodes the data as the vector number and
// the annotated delay as the time it reaches the host). Everything else goes
// to host memory through `memory`. Any other access to the MSI window
// (reads, other sizes) is refused with TLM_ADDRESS_ERROR_RESPONSE, as a root
// complex answers Unsupported Request.
//
// Not modelled: IOMMU, peer-to-peer routing, root-complex latency (folded into
// the PCIe endpoint's one-way latency).
#pragma once

#include <cstddef>
#include <cstdint>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>

#include <tlm>
#include "isvp/register_map.h"
#include "isvp/target_socket.h"

namespace isvp {

/// x86's MSI address window: writes here are interrupts, not memory.
using regmap::kMsiWindowBase;  // defined once, in register_map.h
using regmap::kMsiWindowBytes;

class HostBridge : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<HostBridge> dma;             ///< DMA and MSI writes from the PCIe endpoint
    tlm_utils::simple_initiator_socket<HostBridge> memory;  ///< to HostMemory
    tlm_utils::simple_initiator_socket<HostBridge> msi;     ///< MSI writes to the host's interrupt receiver

    /// `memory_bytes` is the size of the host memory behind `memory`; it must
    /// end below the MSI window (checked: SC_REPORT_ERROR otherwise).
    HostBridge(sc_core::sc_module_name name, std::size_t memory_bytes);

    /// MSI writes forwarded so far.
    std::uint64_t msi_writes() const { return msi_writes_; }

  private:
    static bool in_msi_window(std::uint64_t address);
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload);
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

    std::uint64_t msi_writes_ = 0;  ///< statistics: interrupts passed to `msi`
};

}  // namespace isvp
