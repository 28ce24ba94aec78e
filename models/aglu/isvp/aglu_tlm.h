// AgluTlm: the loosely-timed TLM-2.0 shell around an AgLU engine.
//
// Abstraction: LT, blocking transport. One transaction is a burst of operand
// beats; the shell hands them to the configured engine (C++ core or
// Verilated RTL — `aglu.impl`) and annotates the busy time,
// (pipeline_stages + beats − 1) cycles of the AgLU clock. Not modelled:
// back-pressure (the AgLU accepts a beat every cycle) and power.
//
// Transaction format (the initiator is a CGR unit or a testbench):
//   command   TLM_WRITE_COMMAND
//   data      N beats of 64 bytes: operand a (32 B) then operand b (32 B),
//             as the 512-bit stream from the collector delivers them
//   extension AgluCommand: operation, datatype, where to put the N results
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "isvp/aglu_engine.h"
#include "isvp/target_socket.h"

namespace isvp {

/// The operation of an AgLU transaction and the buffer that receives results.
struct AgluCommand : tlm::tlm_extension<AgluCommand> {
    Operation operation = Operation::Sum;
    Datatype datatype = Datatype::Int32;
    Vector256* results = nullptr;  ///< room for one result per operand beat

    tlm::tlm_extension_base* clone() const override { return new AgluCommand(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const AgluCommand&>(other); }
};

/// Bytes of one operand beat: two 256-bit operands.
inline constexpr std::size_t kAgluBeatBytes = 2 * kVectorBytes;

class AgluTlm : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<AgluTlm> socket;  ///< operand beats in, results out

    AgluTlm(sc_core::sc_module_name name, const AgluConfig& config);

    const AgluEngine& engine() const { return *engine_; }
    /// Operand beats combined so far.
    std::uint64_t beats() const { return beats_; }

  private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

    std::unique_ptr<AgluEngine> engine_;  ///< the implementation aglu.impl selects
    sc_core::sc_time clock_period_;       ///< one AgLU cycle
    std::vector<Vector256> operands_a_;   ///< de-interleaved beats, reused across calls
    std::vector<Vector256> operands_b_;
    std::uint64_t beats_ = 0;  ///< statistics: beats combined
};

}  // namespace isvp
