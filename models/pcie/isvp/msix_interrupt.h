// The interrupt boundary between a device and its PcieEndpoint: the device
// raises MSI-X vector v by a TLM write on the endpoint's `irq` target socket
//
//   command  TLM_WRITE_COMMAND, address 0
//   data     4 bytes, little-endian: the vector number
//   delay    when the device raises it, relative to sc_time_stamp()
//
// The endpoint looks the vector up in its MSI-X table: an unmasked vector
// becomes an MSI write to the host; a masked one sets its pending bit. The
// response is TLM_ADDRESS_ERROR_RESPONSE for a vector beyond the table.
#pragma once

#include <cstdint>
#include <optional>

#include <systemc>
#include <tlm>

namespace isvp {

/// Raises `vector` through an initiator socket bound to PcieEndpoint::irq.
template <typename Socket>
tlm::tlm_response_status raise_msix(Socket& socket, unsigned vector, sc_core::sc_time delay) {
    unsigned char data[4] = {static_cast<unsigned char>(vector), static_cast<unsigned char>(vector >> 8),
                             static_cast<unsigned char>(vector >> 16), static_cast<unsigned char>(vector >> 24)};
    tlm::tlm_generic_payload payload;
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_address(0);
    payload.set_data_ptr(data);
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(payload, delay);
    return payload.get_response_status();
}

/// The vector an `irq` transaction carries; nullopt if it is not a 4-byte write.
inline std::optional<unsigned> msix_vector_of(const tlm::tlm_generic_payload& payload) {
    if (payload.get_command() != tlm::TLM_WRITE_COMMAND || payload.get_data_length() != 4) return std::nullopt;
    const unsigned char* data = payload.get_data_ptr();
    return static_cast<unsigned>(data[0]) | static_cast<unsigned>(data[1]) << 8 | static_cast<unsigned>(data[2]) << 16 |
           static_cast<unsigned>(data[3]) << 24;
}

}  // namespace isvp
