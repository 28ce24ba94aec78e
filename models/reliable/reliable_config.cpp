#include "isvp/reliable_config.h"

#include "isvp/packet_format.h"

namespace isvp {

std::string to_string(ReliableMode mode) {
    switch (mode) {
        case ReliableMode::On:
            return "on";
        case ReliableMode::Off:
            return "off";
        case ReliableMode::Auto:
            break;
    }
    return "auto";
}

void ReliableConfig::declare(Parameters& p) {
    const ReliableConfig d;
    p.declare_choice("reliable.mode", to_string(d.mode), {"auto", "on", "off"},
                     "end-to-end reliable delivery between nodes: auto = on when aurora.bit_error_rate > 0");
    p.declare_real("reliable.timeout_ns", "ns", d.timeout_ns, 1.0, 1e9,
                   "retransmission timeout of the oldest unacknowledged packet (doubles per retransmission)");
    p.declare_integer("reliable.max_retransmissions", "retransmissions", d.max_retransmissions, 0, 1000,
                      "retransmissions of one packet before it is declared lost (0 = detect and report only)");
    p.declare_real("reliable.ack_delay_ns", "ns", d.ack_delay_ns, 0.0, 1e6,
                   "longest a received packet waits for its cumulative acknowledgement");
    p.declare_integer("reliable.retransmit_buffer_bytes", "bytes", static_cast<std::int64_t>(d.retransmit_buffer_bytes),
                      1024, 1ll << 32, "unacknowledged bytes a node keeps for retransmission (all destinations)");
    p.declare_integer("reliable.tx_buffer_phits", "phits", d.tx_buffer_phits, 1, 1 << 20,
                      "transmit queue: credits the layer grants the node's network output");
}

ReliableConfig ReliableConfig::from(const Parameters& p) {
    ReliableConfig c;
    const std::string mode = p.text("reliable.mode");
    c.mode = mode == "on" ? ReliableMode::On : mode == "off" ? ReliableMode::Off : ReliableMode::Auto;
    c.timeout_ns = p.real("reliable.timeout_ns");
    c.max_retransmissions = static_cast<unsigned>(p.integer("reliable.max_retransmissions"));
    c.ack_delay_ns = p.real("reliable.ack_delay_ns");
    c.retransmit_buffer_bytes = static_cast<std::uint64_t>(p.integer("reliable.retransmit_buffer_bytes"));
    c.tx_buffer_phits = static_cast<std::uint32_t>(p.integer("reliable.tx_buffer_phits"));
    c.validate();
    return c;
}

void ReliableConfig::validate() const {
    if (!(timeout_ns >= 1.0 && timeout_ns <= 1e9))
        refuse_parameter("reliable.timeout_ns", "a number in [1, 1e9] ns", timeout_ns);
    if (max_retransmissions > 1000)
        refuse_parameter("reliable.max_retransmissions", "an integer in [0, 1000]", max_retransmissions);
    if (!(ack_delay_ns >= 0.0 && ack_delay_ns <= 1e6))
        refuse_parameter("reliable.ack_delay_ns", "a number in [0, 1e6] ns", ack_delay_ns);
    if (!(ack_delay_ns < timeout_ns))
        refuse_parameter("reliable.ack_delay_ns", "below reliable.timeout_ns (acks would always come too late)",
                         ack_delay_ns);
    if (retransmit_buffer_bytes < 1024 || retransmit_buffer_bytes > (1ull << 32))
        refuse_parameter("reliable.retransmit_buffer_bytes", "an integer in [1024, 2^32] bytes",
                         static_cast<double>(retransmit_buffer_bytes));
    if (tx_buffer_phits < 1 || tx_buffer_phits > (1u << 20))
        refuse_parameter("reliable.tx_buffer_phits", "an integer in [1, 2^20] phits", tx_buffer_phits);
}

}  // namespace isvp
