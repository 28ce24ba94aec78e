#include "isvp/host_bridge.h"

#include <sstream>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/memory";
}

HostBridge::HostBridge(sc_core::sc_module_name name, std::size_t memory_bytes)
    : sc_core::sc_module(name), dma("dma"), memory("memory"), msi("msi") {
    if (memory_bytes > kMsiWindowBase) {
        std::ostringstream message;
        message << this->name() << ": host memory of " << memory_bytes << " bytes overlaps the MSI window at 0x"
                << std::hex << kMsiWindowBase << std::dec << "; it must be at most " << kMsiWindowBase << " bytes";
        SC_REPORT_ERROR(kReportType, message.str().c_str());
    }
    dma.register_b_transport(this, &HostBridge::b_transport);
    dma.register_get_direct_mem_ptr(this, &HostBridge::get_direct_mem_ptr);
    dma.register_transport_dbg(this, &HostBridge::transport_dbg);
    memory.register_invalidate_direct_mem_ptr(this, &HostBridge::invalidate_direct_mem_ptr);
}

bool HostBridge::in_msi_window(std::uint64_t address) {
    return address >= kMsiWindowBase && address - kMsiWindowBase < kMsiWindowBytes;
}

void HostBridge::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    if (!in_msi_window(payload.get_address())) {
        memory->b_transport(payload, delay);
        return;
    }
    if (payload.get_command() != tlm::TLM_WRITE_COMMAND || payload.get_data_length() != 4 ||
        payload.get_address() % 4 != 0) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (payload.get_address() != regmap::kHostUpdateAddress) ++msi_writes_;  // not an interrupt
    msi->b_transport(payload, delay);
}

bool HostBridge::get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
    if (in_msi_window(payload.get_address())) {
        dmi.set_start_address(kMsiWindowBase);
        dmi.set_end_address(kMsiWindowBase + kMsiWindowBytes - 1);
        dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
        return false;
    }
    const bool granted = memory->get_direct_mem_ptr(payload, dmi);
    // Never let a region reach into the MSI window.
    if (dmi.get_start_address() < kMsiWindowBase && dmi.get_end_address() >= kMsiWindowBase)
        dmi.set_end_address(kMsiWindowBase - 1);
    return granted;
}

unsigned int HostBridge::transport_dbg(tlm::tlm_generic_payload& payload) {
    if (in_msi_window(payload.get_address())) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    return memory->transport_dbg(payload);
}

void HostBridge::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    dma->invalidate_direct_mem_ptr(start, end);
}

}  // namespace isvp
