#include "isvp/aglu_tlm.h"

#include <cstring>
#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/aglu";
}

AgluTlm::AgluTlm(sc_core::sc_module_name name, const AgluConfig& config)
    : sc_core::sc_module(name),
      socket("socket"),
      engine_(make_aglu_engine(config)),
      clock_period_(1.0 / config.clock_mhz, sc_core::SC_US) {
    socket.register_b_transport(this, &AgluTlm::b_transport);
}

void AgluTlm::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    AgluCommand* command = nullptr;
    payload.get_extension(command);
    if (command == nullptr || command->results == nullptr) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": transaction without an AgluCommand extension "
                                                            "and result buffer")
                                         .c_str());
        return;
    }
    const std::size_t length = payload.get_data_length();
    if (payload.get_command() != tlm::TLM_WRITE_COMMAND || length % kAgluBeatBytes != 0 ||
        payload.get_byte_enable_ptr() != nullptr) {
        payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType, (std::string(name()) +
                                      ": expected a write of whole 64-byte operand beats "
                                      "without byte enables, got " +
                                      std::to_string(length) + " bytes")
                                         .c_str());
        return;
    }
    if (!aglu_supports(command->operation, command->datatype)) {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        try {
            aglu_require_supported(command->operation, command->datatype);
        } catch (const UnsupportedReduction& error) {
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": " + error.what()).c_str());
        }
        return;
    }

    const std::size_t count = length / kAgluBeatBytes;
    operands_a_.resize(count);
    operands_b_.resize(count);
    const unsigned char* data = payload.get_data_ptr();
    for (std::size_t i = 0; i < count; ++i) {
        std::memcpy(operands_a_[i].data(), data + i * kAgluBeatBytes, kVectorBytes);
        std::memcpy(operands_b_[i].data(), data + i * kAgluBeatBytes + kVectorBytes, kVectorBytes);
    }
    const std::uint64_t cycles = engine_->combine(command->operation, command->datatype, operands_a_.data(),
                                                  operands_b_.data(), command->results, count);
    beats_ += count;
    delay += clock_period_ * static_cast<double>(cycles);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace isvp
