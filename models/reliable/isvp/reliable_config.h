// Parameters of end-to-end reliable delivery (reliable.*; models/reliable/README.md).
// No SystemC.
#pragma once

#include <cstdint>
#include <string>

#include "isvp/parameters.h"

namespace isvp {

/// When the reliable-delivery layer sits between a node and the network.
enum class ReliableMode : std::uint8_t {
    Auto,  ///< on when aurora.bit_error_rate > 0 (nothing can be lost otherwise)
    On,    ///< always
    Off,   ///< never: a packet a link drops is lost without notice
};

struct ReliableConfig {
    ReliableMode mode = ReliableMode::Auto;
    /// How long the oldest unacknowledged packet to a node waits for its
    /// acknowledgement before everything unacknowledged to that node is sent
    /// again (go-back-N); doubles with each retransmission of the same packet.
    double timeout_ns = 30000.0;
    /// Retransmissions of one packet before it is declared lost; 0 = detect
    /// and report losses without recovering them.
    unsigned max_retransmissions = 8;
    /// Packets to one node declared lost one after the other with none
    /// acknowledged in between before the path counts as dead and the job
    /// ends with an error naming it (a link that drops every packet would
    /// otherwise keep the job busy with retransmissions for ever).
    unsigned max_losses_in_a_row = 16;
    double ack_delay_ns = 200.0;                       ///< longest a received packet waits for its cumulative ack
    std::uint64_t retransmit_buffer_bytes = 1u << 20;  ///< unacknowledged bytes a node holds for all destinations
    std::uint32_t tx_buffer_phits = 512;               ///< credits granted to the node's network output

    static void declare(Parameters& parameters);
    static ReliableConfig from(const Parameters& parameters);
    void validate() const;
    /// Whether the layer is built, given the links' bit-error rate.
    bool enabled(double bit_error_rate) const {
        return mode == ReliableMode::On || (mode == ReliableMode::Auto && bit_error_rate > 0.0);
    }
};

std::string to_string(ReliableMode mode);

}  // namespace isvp
