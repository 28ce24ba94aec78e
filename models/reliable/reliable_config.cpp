#include "isvp/reliable_config.h"

#include "isvp/parameter_table.h"

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

namespace {

/// The reliable.* parameters, each once (isvp/parameter_table.h).
constexpr auto kTable = [](auto& self, auto&& parameter) {
    parameter(
        param::Choice<ReliableMode>{
            "reliable.mode",
            {{"auto", ReliableMode::Auto}, {"on", ReliableMode::On}, {"off", ReliableMode::Off}},
            "end-to-end reliable delivery between nodes: auto = on when "
            "aurora.bit_error_rate > 0"},
        self.mode);
    parameter(param::Real{"reliable.timeout_ns", "ns", 1.0, 1e9,
                          "retransmission timeout of the oldest unacknowledged packet (doubles per retransmission)"},
              self.timeout_ns);
    parameter(param::Integer{"reliable.max_retransmissions", "retransmissions", 0, 1000,
                             "retransmissions of one packet before it is declared lost (0 = detect and report only)"},
              self.max_retransmissions);
    parameter(param::Integer{"reliable.max_losses_in_a_row", "packets", 1, 1000000,
                             "packets to one node declared lost in a row, none acknowledged in between, "
                             "before the job ends with an error naming the link (no progress)"},
              self.max_losses_in_a_row);
    parameter(param::Real{"reliable.ack_delay_ns", "ns", 0.0, 1e6,
                          "longest a received packet waits for its cumulative acknowledgement"},
              self.ack_delay_ns);
    parameter(param::Integer{"reliable.retransmit_buffer_bytes", "bytes", 1024, std::int64_t{1} << 32,
                             "unacknowledged bytes a node keeps for retransmission (all destinations)"},
              self.retransmit_buffer_bytes);
    parameter(param::Integer{"reliable.tx_buffer_phits", "phits", 1, 1 << 20,
                             "transmit queue: credits the layer grants the node's network output"},
              self.tx_buffer_phits);
};

}  // namespace

void ReliableConfig::declare(Parameters& parameters) {
    param::declare_table<ReliableConfig>(parameters, kTable);
}

ReliableConfig ReliableConfig::from(const Parameters& parameters) {
    const ReliableConfig config = param::read_table<ReliableConfig>(parameters, kTable);
    config.validate();
    return config;
}

void ReliableConfig::validate() const {
    param::check_table(*this, kTable);
    // Between parameters: an acknowledgement comes before the timeout.
    if (!(ack_delay_ns < timeout_ns))
        refuse_parameter("reliable.ack_delay_ns", "below reliable.timeout_ns (acks would always come too late)",
                         ack_delay_ns);
}

}  // namespace isvp
