// The AgLU engine interface: one contract, two implementations.
//
//   * "tlm" — AgluCoreEngine, the C++ functional core with the configured
//     pipeline latency;
//   * "rtl" — AgluRtlEngine (rtl/wrappers), the Verilog RTL compiled by
//     Verilator, clocked only while it has vectors in flight.
//
// Both take a burst of operand vector pairs and return the results and the
// cycles the unit was busy; the TLM shell (AgluTlm) turns cycles into time.
// Which one is used is the run-time parameter `aglu.impl`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "isvp/aglu_core.h"
#include "isvp/parameters.h"

namespace isvp {

/// Parameters of one AgLU (see models/aglu/README.md).
struct AgluConfig {
    std::string impl = "tlm";      ///< implementation: "tlm" or "rtl"
    unsigned pipeline_stages = 4;  ///< cycles from operands in to result out
    double clock_mhz = 250.0;      ///< AgLU clock, MHz (the switch clock)
    std::string vcd_path;          ///< RTL waveform file (VCD); empty = none

    /// Declares the aglu.* parameters with their defaults, units and ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates the aglu.* parameters.
    static AgluConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;
};

class AgluEngine {
  public:
    virtual ~AgluEngine() = default;

    /// "tlm" or "rtl".
    virtual std::string_view implementation() const = 0;
    /// Latency of one vector, in cycles.
    virtual unsigned pipeline_stages() const = 0;

    /// out[i] = a[i] op b[i] for i < count; one pair enters per cycle. Returns
    /// the cycles from the first pair entering to the last result leaving
    /// (pipeline_stages + count − 1; 0 for an empty burst). Throws
    /// UnsupportedReduction for a pair the hardware does not implement.
    virtual std::uint64_t combine(Operation op, Datatype type, const Vector256* a, const Vector256* b, Vector256* out,
                                  std::size_t count) = 0;
};

/// The C++-core implementation ("tlm").
class AgluCoreEngine final : public AgluEngine {
  public:
    explicit AgluCoreEngine(unsigned pipeline_stages);
    std::string_view implementation() const override { return "tlm"; }
    unsigned pipeline_stages() const override { return pipeline_stages_; }
    std::uint64_t combine(Operation op, Datatype type, const Vector256* a, const Vector256* b, Vector256* out,
                          std::size_t count) override;

  private:
    unsigned pipeline_stages_;  ///< modelled latency, cycles
};

/// Builds the engine `config.impl` names; throws ConfigError for a bad config.
std::unique_ptr<AgluEngine> make_aglu_engine(const AgluConfig& config);

}  // namespace isvp
