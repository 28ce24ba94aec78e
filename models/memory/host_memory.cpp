#include "isvp/host_memory.h"

#include <cstring>
#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/memory";
}

HostMemory::HostMemory(sc_core::sc_module_name name, std::uint8_t* base, std::size_t bytes)
    : sc_core::sc_module(name), socket("socket"), base_(base), bytes_(bytes) {
    if (base_ == nullptr && bytes_ != 0)
        SC_REPORT_ERROR(kReportType, (std::string(this->name()) + ": a host memory of " + std::to_string(bytes_) +
                                      " bytes needs a non-null base pointer")
                                         .c_str());
    socket.register_b_transport(this, &HostMemory::b_transport);
    socket.register_get_direct_mem_ptr(this, &HostMemory::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &HostMemory::transport_dbg);
}

unsigned int HostMemory::access(tlm::tlm_generic_payload& payload) {
    const tlm::tlm_command command = payload.get_command();
    const std::uint64_t address = payload.get_address();
    const std::uint64_t length = payload.get_data_length();
    if (command == tlm::TLM_IGNORE_COMMAND) {
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return 0;
    }
    // Written so that no sum can overflow: the access must fit completely.
    if (address > bytes_ || length > bytes_ - address) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    const unsigned streaming_width = payload.get_streaming_width();
    if (streaming_width != 0 && streaming_width < length) {
        payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return 0;
    }
    std::uint8_t* memory = base_ + address;
    unsigned char* data = payload.get_data_ptr();
    const unsigned char* enables = payload.get_byte_enable_ptr();
    const unsigned enable_length = payload.get_byte_enable_length();
    if (enables == nullptr) {
        if (command == tlm::TLM_READ_COMMAND)
            std::memcpy(data, memory, length);
        else
            std::memcpy(memory, data, length);
    } else {
        for (std::uint64_t i = 0; i < length; ++i) {
            if (enables[i % enable_length] != TLM_BYTE_ENABLED) continue;
            if (command == tlm::TLM_READ_COMMAND)
                data[i] = memory[i];
            else
                memory[i] = data[i];
        }
    }
    payload.set_dmi_allowed(true);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return static_cast<unsigned int>(length);
}

void HostMemory::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    access(payload);
}

unsigned int HostMemory::transport_dbg(tlm::tlm_generic_payload& payload) {
    return access(payload);
}

bool HostMemory::get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
    if (bytes_ == 0 || payload.get_address() >= bytes_) {
        // No DMI here; say which range the refusal covers (everything above).
        dmi.set_start_address(bytes_);
        dmi.set_end_address(~static_cast<sc_dt::uint64>(0));
        dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
        return false;
    }
    dmi.set_dmi_ptr(base_);
    dmi.set_start_address(0);
    dmi.set_end_address(bytes_ - 1);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    dmi.set_read_latency(sc_core::SC_ZERO_TIME);
    dmi.set_write_latency(sc_core::SC_ZERO_TIME);
    return true;
}

}  // namespace isvp
