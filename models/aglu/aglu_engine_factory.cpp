#include "isvp/aglu_engine.h"
#include "isvp/aglu_rtl_engine.h"

namespace isvp {

std::unique_ptr<AgluEngine> make_aglu_engine(const AgluConfig& config) {
    config.validate();
    if (config.impl == "rtl") return make_aglu_rtl_engine(config);
    return std::make_unique<AgluCoreEngine>(config.pipeline_stages);
}

}  // namespace isvp
