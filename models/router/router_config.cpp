#include <cmath>
#include <sstream>

#include "isvp/router_config.h"
#include "isvp/routing_policy.h"

namespace isvp {

namespace {

constexpr unsigned kMaxPipelineCycles = 64;
constexpr unsigned kMaxPhitsPerCycle = 64;
constexpr unsigned kMaxVcs = 16;
constexpr unsigned kMaxInputBufferBytes = 64u << 20;

[[noreturn]] void reject(const std::string& name, const std::string& accepted, double got) {
    std::ostringstream message;
    message << "config: " << name << " must be " << accepted << ", got " << got;
    throw ConfigError(message.str());
}

}  // namespace

void RouterConfig::declare(Parameters& parameters) {
    const RouterConfig defaults;
    parameters.declare_real("router.clock_mhz", "MHz", defaults.clock_mhz, 1.0, 5000.0, "router clock");
    parameters.declare_integer("router.pipeline_cycles", "cycles", defaults.pipeline_cycles, 1, kMaxPipelineCycles,
                               "router pipeline RC, VA, SA, ST: head in to head out at zero load");
    parameters.declare_integer("router.phits_per_cycle", "phits", defaults.phits_per_cycle, 1, kMaxPhitsPerCycle,
                               "datapath width: 32-byte phits moved per cycle per port");
    parameters.declare_integer("router.vcs", "VCs", defaults.vcs, 1, kMaxVcs, "virtual channels per port");
    parameters.declare_integer("router.input_buffer_bytes", "bytes", defaults.input_buffer_bytes, kRouterPhitBytes,
                               kMaxInputBufferBytes, "input FIFO per port, split evenly over the VCs");
    parameters.declare_integer("router.flow_control_margin_phits", "phits", defaults.flow_control_margin_phits, 0,
                               kMaxInputBufferBytes / kRouterPhitBytes,
                               "m: downstream credits that must remain beyond a packet before it is sent");
    parameters.declare_integer("router.buffer_sizing_tree_depth", "levels", defaults.buffer_sizing_tree_depth, 0, 64,
                               "d in min_buf: deepest collective tree (buffer sizing check only)");
    parameters.declare_integer("router.buffer_sizing_slack", "", defaults.buffer_sizing_slack, 0, 64,
                               "q in min_buf: slack (buffer sizing check only)");
    parameters.declare_choice("router.routing", defaults.routing, torus_routing_names(),
                              "routing policy: dor = dimension order with dateline VCs");
}

RouterConfig RouterConfig::from(const Parameters& parameters) {
    RouterConfig config;
    config.clock_mhz = parameters.real("router.clock_mhz");
    config.pipeline_cycles = static_cast<unsigned>(parameters.integer("router.pipeline_cycles"));
    config.phits_per_cycle = static_cast<unsigned>(parameters.integer("router.phits_per_cycle"));
    config.vcs = static_cast<unsigned>(parameters.integer("router.vcs"));
    config.input_buffer_bytes = static_cast<unsigned>(parameters.integer("router.input_buffer_bytes"));
    config.flow_control_margin_phits = static_cast<unsigned>(parameters.integer("router.flow_control_margin_phits"));
    config.buffer_sizing_tree_depth = static_cast<unsigned>(parameters.integer("router.buffer_sizing_tree_depth"));
    config.buffer_sizing_slack = static_cast<unsigned>(parameters.integer("router.buffer_sizing_slack"));
    config.routing = parameters.text("router.routing");
    config.validate();
    return config;
}

void RouterConfig::validate() const {
    if (!(clock_mhz >= 1.0 && clock_mhz <= 5000.0)) reject("router.clock_mhz", "a number in [1, 5000] MHz", clock_mhz);
    if (pipeline_cycles < 1 || pipeline_cycles > kMaxPipelineCycles)
        reject("router.pipeline_cycles", "an integer in [1, 64] cycles", pipeline_cycles);
    if (phits_per_cycle < 1 || phits_per_cycle > kMaxPhitsPerCycle)
        reject("router.phits_per_cycle", "an integer in [1, 64] phits", phits_per_cycle);
    if (vcs < 1 || vcs > kMaxVcs) reject("router.vcs", "an integer in [1, 16] VCs", vcs);
    if (input_buffer_bytes < kRouterPhitBytes || input_buffer_bytes > kMaxInputBufferBytes)
        reject("router.input_buffer_bytes", "an integer in [32, 67108864] bytes", input_buffer_bytes);
    if (vc_buffer_phits() <= flow_control_margin_phits) {
        std::ostringstream message;
        message << "config: router.flow_control_margin_phits (" << flow_control_margin_phits
                << ") must be smaller than the per-VC buffer of " << vc_buffer_phits()
                << " phits (router.input_buffer_bytes " << input_buffer_bytes << " / router.vcs " << vcs
                << " / 32 bytes), or no packet could ever be sent";
        throw ConfigError(message.str());
    }
    bool known = false;
    for (const auto& name : torus_routing_names()) known = known || name == routing;
    if (!known) {
        std::string accepted;
        for (const auto& name : torus_routing_names()) accepted += (accepted.empty() ? "" : ", ") + name;
        throw ConfigError("config: router.routing must be one of " + accepted + ", got '" + routing + "'");
    }
}

std::uint64_t RouterConfig::minimum_input_buffer_bytes(double link_latency_ns) const {
    const double phits = flow_control_margin_phits +
                         (buffer_sizing_tree_depth + buffer_sizing_slack) * link_latency_ns / clock_period_ns();
    return static_cast<std::uint64_t>(std::ceil(phits * kRouterPhitBytes - 1e-9));
}

}  // namespace isvp
