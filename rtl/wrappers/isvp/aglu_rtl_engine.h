// The Verilated RTL AgLU (rtl/aglu/aglu.v) behind the AgluEngine interface.
//
// The Verilog pipeline depth is a synthesis parameter, so the build verilates
// one model per depth listed in ISVP_AGLU_RTL_STAGES; the engine picks the one
// matching aglu.pipeline_stages. The model is clocked only while a burst is in
// flight — an idle AgLU costs no simulation time.
#pragma once

#include <memory>
#include <vector>

#include "isvp/aglu_engine.h"

namespace isvp {

/// Builds the RTL engine; ConfigError if no model was built for the depth.
std::unique_ptr<AgluEngine> make_aglu_rtl_engine(const AgluConfig& config);

/// Pipeline depths this build has an RTL model for.
std::vector<unsigned> aglu_rtl_available_stages();

}  // namespace isvp
