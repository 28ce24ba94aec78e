// A reusable credit-return transaction for the packet channel's backward
// path (packet_channel.h). return_credits() builds a fresh generic payload
// per call, and a generic payload's constructor allocates its extension
// array; a block that returns credits for every packet keeps one of these
// instead, so the hot path allocates nothing. Same protocol: TLM_IGNORE
// command, no data, a CreditReturn extension, delay = arrival at the sender.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

#include "isvp/packet_channel.h"

namespace isvp {

class CreditMessage {
  public:
    CreditMessage() : credit_(new CreditReturn) {
        payload_.set_command(tlm::TLM_IGNORE_COMMAND);
        payload_.set_data_length(0);
        payload_.set_extension(credit_);  // the payload owns and frees it
    }
    CreditMessage(const CreditMessage&) = delete;
    CreditMessage& operator=(const CreditMessage&) = delete;

    /// Sends `phits` credits for `vc` through `socket` (an initiator socket
    /// or the interface bound to one), arriving after `delay`.
    template <typename Socket>
    void send(Socket& socket, std::uint8_t vc, std::uint32_t phits, sc_core::sc_time delay) {
        credit_->vc = vc;
        credit_->phits = phits;
        payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(payload_, delay);
    }

  private:
    tlm::tlm_generic_payload payload_;  ///< reused for every return
    CreditReturn* credit_;              ///< its extension (owned by payload_)
};

}  // namespace isvp
