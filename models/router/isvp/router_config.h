// Parameters of the virtual-channel router (DESIGN §3.5) and the input
// buffer sizing rule. No SystemC.
//
// Buffer sizing (DESIGN §3.5):
//   min_buf = (m + (d + q) * L / T_clk) * Ph
// m = router.flow_control_margin_phits, d = router.buffer_sizing_tree_depth
// (deepest collective tree), q = router.buffer_sizing_slack, L = link
// latency, T_clk = router clock period, Ph = phit size (32 bytes). With the
// defaults (m 8, d 10, q 2, L 440 ns, 250 MHz) min_buf = 1328 phits =
// 42,496 bytes, under the 48 KB default.
#pragma once

#include <cstdint>
#include <string>

#include "isvp/packet_format.h"
#include "isvp/parameters.h"

namespace isvp {

/// Bytes per phit (packet_format.h).
inline constexpr unsigned kRouterPhitBytes = kPhitBytes;

struct RouterConfig {
    double clock_mhz = 250.0;                 ///< router clock, MHz
    unsigned pipeline_cycles = 4;             ///< RC, VA, SA, ST: head in to head out, cycles
    unsigned phits_per_cycle = 2;             ///< crossbar/datapath width, phits per cycle
    unsigned vcs = 2;                         ///< virtual channels per port
    unsigned input_buffer_bytes = 48 * 1024;  ///< input FIFO per port, split evenly over the VCs
    unsigned flow_control_margin_phits = 8;   ///< m: credits kept free beyond a packet before it may go
    unsigned buffer_sizing_tree_depth = 10;   ///< d: deepest collective tree, for min_buf only
    unsigned buffer_sizing_slack = 2;         ///< q: slack, for min_buf only
    /// Whether the fabric's wake-up scheduler takes SystemC's time step to
    /// its next wake-up itself when the kernel's would be to it alone
    /// (isvp/kernel_time_step.h; simulator speed only, no simulated figure
    /// or delta count changes).
    bool scheduler_time_steps = true;
    std::string routing = "dor";              ///< routing policy name
    /// Prefetch hints to the fabric's wake-up scheduler (simulator speed
    /// only, no simulated figure changes): auto (from
    /// Fabric::kHintedInputVcs input VCs in the process), on or off.
    std::string wakeup_hints = "auto";

    /// Declares the router.* parameters with their defaults, units and ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates the router.* parameters.
    static RouterConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;

    double clock_period_ns() const { return 1000.0 / clock_mhz; }
    /// Buffer of one VC at one input port, phits.
    unsigned vc_buffer_phits() const { return input_buffer_bytes / vcs / kRouterPhitBytes; }
    /// Largest packet this router can forward: a VC buffer less the margin.
    unsigned max_packet_phits() const { return vc_buffer_phits() - flow_control_margin_phits; }
    /// DESIGN's min_buf for links of `link_latency_ns`, bytes (rounded up).
    std::uint64_t minimum_input_buffer_bytes(double link_latency_ns) const;
};

}  // namespace isvp
