#include <sstream>

#include "isvp/aglu_engine.h"

namespace isvp {

namespace {
constexpr unsigned kMaxPipelineStages = 32;
}

void AgluConfig::declare(Parameters& parameters) {
    const AgluConfig defaults;
    parameters.declare_choice("aglu.impl", defaults.impl, {"tlm", "rtl"},
                              "AgLU implementation: C++ core (tlm) or Verilated RTL (rtl)");
    parameters.declare_integer("aglu.pipeline_stages", "cycles", defaults.pipeline_stages, 1, kMaxPipelineStages,
                               "AgLU latency from operands in to result out");
    parameters.declare_real("aglu.clock_mhz", "MHz", defaults.clock_mhz, 1.0, 5000.0, "AgLU clock (switch clock)");
    parameters.declare_text("aglu.vcd", defaults.vcd_path, "write the RTL AgLU waveform (VCD) here; empty = off");
}

AgluConfig AgluConfig::from(const Parameters& parameters) {
    AgluConfig config;
    config.impl = parameters.text("aglu.impl");
    config.pipeline_stages = static_cast<unsigned>(parameters.integer("aglu.pipeline_stages"));
    config.clock_mhz = parameters.real("aglu.clock_mhz");
    config.vcd_path = parameters.text("aglu.vcd");
    config.validate();
    return config;
}

void AgluConfig::validate() const {
    if (impl != "tlm" && impl != "rtl")
        throw ConfigError("config: aglu.impl must be one of tlm, rtl, got '" + impl + "'");
    if (pipeline_stages < 1 || pipeline_stages > kMaxPipelineStages) {
        std::ostringstream message;
        message << "config: aglu.pipeline_stages must be an integer in [1, " << kMaxPipelineStages << "] cycles, got "
                << pipeline_stages;
        throw ConfigError(message.str());
    }
    if (!(clock_mhz >= 1.0 && clock_mhz <= 5000.0)) {
        std::ostringstream message;
        message << "config: aglu.clock_mhz must be a number in [1, 5000] MHz, got " << clock_mhz;
        throw ConfigError(message.str());
    }
    if (!vcd_path.empty() && impl != "rtl")
        throw ConfigError("config: aglu.vcd records the RTL waveform and needs aglu.impl=rtl, got aglu.impl=" + impl);
}

AgluCoreEngine::AgluCoreEngine(unsigned pipeline_stages) : pipeline_stages_(pipeline_stages) {
    AgluConfig config;
    config.pipeline_stages = pipeline_stages;
    config.validate();
}

std::uint64_t AgluCoreEngine::combine(Operation op, Datatype type, const Vector256* a, const Vector256* b,
                                      Vector256* out, std::size_t count) {
    aglu_combine(op, type, a, b, out, count);
    return count == 0 ? 0 : pipeline_stages_ + count - 1;
}

}  // namespace isvp
