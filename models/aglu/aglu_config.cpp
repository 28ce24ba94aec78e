#include "isvp/aglu_engine.h"

#include "isvp/parameter_table.h"

namespace isvp {

namespace {

constexpr unsigned kMaxPipelineStages = 32;

/// The aglu.* parameters, each once (isvp/parameter_table.h).
const auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Choice<std::string>{"aglu.impl",
                                         {{"tlm", "tlm"}, {"rtl", "rtl"}},
                                         "AgLU implementation: C++ core (tlm) or Verilated RTL (rtl)"},
              self.impl);
    parameter(param::Integer{"aglu.pipeline_stages", "cycles", 1, kMaxPipelineStages,
                             "AgLU latency from operands in to result out"},
              self.pipeline_stages);
    parameter(param::Real{"aglu.clock_mhz", "MHz", 1.0, 5000.0, "AgLU clock (switch clock)"}, self.clock_mhz);
    parameter(param::Text{"aglu.vcd", "write the RTL AgLU waveform (VCD) here; empty = off"}, self.vcd_path);
};

}  // namespace

void AgluConfig::declare(Parameters& parameters) {
    param::declare_table<AgluConfig>(parameters, kTable);
}

AgluConfig AgluConfig::from(const Parameters& parameters) {
    const AgluConfig config = param::read_table<AgluConfig>(parameters, kTable);
    config.validate();
    return config;
}

void AgluConfig::validate() const {
    param::check_table(*this, kTable);
    // Between parameters: a waveform exists only for the RTL.
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
