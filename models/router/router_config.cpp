#include "isvp/router_config.h"

#include <cmath>
#include <sstream>

#include "isvp/parameter_table.h"
#include "isvp/routing_policy.h"

namespace isvp {

namespace {

constexpr unsigned kMaxPipelineCycles = 64;
constexpr unsigned kMaxPhitsPerCycle = 64;
constexpr unsigned kMaxVcs = 16;
constexpr unsigned kMaxInputBufferBytes = 64u << 20;

/// The routing policies router.routing accepts, each meaning itself.
std::vector<std::pair<std::string, std::string>> routing_choices() {
    std::vector<std::pair<std::string, std::string>> choices;
    for (const auto& name : torus_routing_names()) choices.emplace_back(name, name);
    return choices;
}

/// What router.wakeup_hints accepts.
std::vector<std::pair<std::string, std::string>> wakeup_hint_choices() {
    return {{"auto", "auto"}, {"on", "on"}, {"off", "off"}};
}

/// The router.* parameters, each once (isvp/parameter_table.h).
const auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Real{"router.clock_mhz", "MHz", 1.0, 5000.0, "router clock"}, self.clock_mhz);
    parameter(param::Integer{"router.pipeline_cycles", "cycles", 1, kMaxPipelineCycles,
                             "router pipeline RC, VA, SA, ST: head in to head out at zero load"},
              self.pipeline_cycles);
    parameter(param::Integer{"router.phits_per_cycle", "phits", 1, kMaxPhitsPerCycle,
                             "datapath width: 32-byte phits moved per cycle per port"},
              self.phits_per_cycle);
    parameter(param::Integer{"router.vcs", "VCs", 1, kMaxVcs, "virtual channels per port"}, self.vcs);
    parameter(param::Integer{"router.input_buffer_bytes", "bytes", kRouterPhitBytes, kMaxInputBufferBytes,
                             "input FIFO per port, split evenly over the VCs"},
              self.input_buffer_bytes);
    parameter(param::Integer{"router.flow_control_margin_phits", "phits", 0, kMaxInputBufferBytes / kRouterPhitBytes,
                             "m: downstream credits that must remain beyond a packet before it is sent"},
              self.flow_control_margin_phits);
    parameter(param::Integer{"router.buffer_sizing_tree_depth", "levels", 0, 64,
                             "d in min_buf: deepest collective tree (buffer sizing check only)"},
              self.buffer_sizing_tree_depth);
    parameter(param::Integer{"router.buffer_sizing_slack", "", 0, 64, "q in min_buf: slack (buffer sizing check only)"},
              self.buffer_sizing_slack);
    parameter(param::Choice<std::string>{"router.routing", routing_choices(),
                                         "routing policy: dor = dimension order with dateline VCs"},
              self.routing);
    parameter(param::Choice<std::string>{"router.wakeup_hints", wakeup_hint_choices(),
                                         "prefetch hints to the wake-up scheduler (speed only): auto = by "
                                         "the fabric's size (Fabric::kHintedInputVcs)"},
              self.wakeup_hints);
    parameter(param::Flag{"router.scheduler_time_steps",
                          "the fabric's wake-up scheduler takes SystemC's time steps to its wake-ups itself "
                          "when nothing else is due then (speed only)"},
              self.scheduler_time_steps);
};

}  // namespace

void RouterConfig::declare(Parameters& parameters) {
    param::declare_table<RouterConfig>(parameters, kTable);
}

RouterConfig RouterConfig::from(const Parameters& parameters) {
    const RouterConfig config = param::read_table<RouterConfig>(parameters, kTable);
    config.validate();
    return config;
}

void RouterConfig::validate() const {
    param::check_table(*this, kTable);
    // Between parameters: a VC's buffer holds more than the margin.
    if (vc_buffer_phits() <= flow_control_margin_phits) {
        std::ostringstream message;
        message << "config: router.flow_control_margin_phits (" << flow_control_margin_phits
                << ") must be smaller than the per-VC buffer of " << vc_buffer_phits()
                << " phits (router.input_buffer_bytes " << input_buffer_bytes << " / router.vcs " << vcs
                << " / 32 bytes), or no packet could ever be sent";
        throw ConfigError(message.str());
    }
}

std::uint64_t RouterConfig::minimum_input_buffer_bytes(double link_latency_ns) const {
    const double phits = flow_control_margin_phits +
                         (buffer_sizing_tree_depth + buffer_sizing_slack) * link_latency_ns / clock_period_ns();
    return static_cast<std::uint64_t>(std::ceil(phits * kRouterPhitBytes - 1e-9));
}

}  // namespace isvp
