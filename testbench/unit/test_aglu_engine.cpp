// The AgLU engine contract (both implementations) and its configuration.
#include <catch2/catch.hpp>

#include <algorithm>

#include "isvp/aglu_engine.h"
#include "isvp/aglu_rtl_engine.h"
#include "isvp/aglu_stimulus.h"

using namespace isvp;

namespace {

AgluConfig config_for(const std::string& impl, unsigned stages) {
    AgluConfig config;
    config.impl = impl;
    config.pipeline_stages = stages;
    return config;
}

}  // namespace

TEST_CASE("aglu engine: both implementations report pipeline_stages + beats - 1 busy cycles") {
    const std::string impl = GENERATE(as<std::string>{}, "tlm", "rtl");
    const unsigned stages = GENERATE(1u, 4u, 8u);
    INFO(impl << " with " << stages << " stages");
    const auto engine = make_aglu_engine(config_for(impl, stages));
    CHECK(engine->implementation() == impl);
    CHECK(engine->pipeline_stages() == stages);
    AgluStimulus stimulus(5);
    std::vector<Vector256> a, b;
    stimulus.generate(Datatype::Int32, 10, a, b);
    std::vector<Vector256> out(10);
    CHECK(engine->combine(Operation::Sum, Datatype::Int32, a.data(), b.data(), out.data(), 1) == stages);
    CHECK(engine->combine(Operation::Sum, Datatype::Int32, a.data(), b.data(), out.data(), 10) == stages + 9);
    CHECK(engine->combine(Operation::Sum, Datatype::Int32, a.data(), b.data(), out.data(), 0) == 0);
    for (std::size_t i = 0; i < out.size(); ++i)
        CHECK(out[i] == aglu_combine(Operation::Sum, Datatype::Int32, a[i], b[i]));
}

TEST_CASE("aglu engine: the RTL engine refuses an unsupported pair like the core does") {
    const auto engine = make_aglu_engine(config_for("rtl", 4));
    Vector256 zero{};
    Vector256 out{};
    CHECK_THROWS_WITH(engine->combine(Operation::Bxor, Datatype::Float64, &zero, &zero, &out, 1),
                      Catch::Contains("(BXOR, float64)"));
}

TEST_CASE("aglu config: an unknown implementation name is refused naming the accepted ones") {
    Parameters parameters;
    AgluConfig::declare(parameters);
    CHECK_THROWS_WITH(parameters.apply_override("aglu.impl=vhdl"),
                      Catch::Contains("aglu.impl") && Catch::Contains("one of tlm, rtl") && Catch::Contains("'vhdl'"));
    CHECK_THROWS_WITH(make_aglu_engine(config_for("systemverilog", 4)),
                      Catch::Contains("aglu.impl must be one of tlm, rtl, got 'systemverilog'"));
}

TEST_CASE("aglu config: malformed or out-of-range pipeline depths are refused") {
    Parameters parameters;
    AgluConfig::declare(parameters);
    for (const char* bad : {"aglu.pipeline_stages=four", "aglu.pipeline_stages=4x", "aglu.pipeline_stages=0",
                            "aglu.pipeline_stages=33", "aglu.pipeline_stages="}) {
        INFO(bad);
        CHECK_THROWS_WITH(parameters.apply_override(bad),
                          Catch::Contains("aglu.pipeline_stages must be an integer in [1, 32] cycles"));
    }
    CHECK_THROWS_AS(parameters.apply_override("aglu.clock_mhz=-5"), ConfigError);
    parameters.apply_override("aglu.pipeline_stages=8");
    CHECK(AgluConfig::from(parameters).pipeline_stages == 8);
}

TEST_CASE("aglu config: an RTL depth the build has no model for names the depths it has") {
    const auto built = aglu_rtl_available_stages();
    REQUIRE_FALSE(built.empty());
    unsigned missing = 1;
    while (std::find(built.begin(), built.end(), missing) != built.end()) ++missing;
    CHECK_THROWS_WITH(make_aglu_engine(config_for("rtl", missing)),
                      Catch::Contains("has no RTL model in this build") && Catch::Contains("ISVP_AGLU_RTL_STAGES"));
    CHECK_NOTHROW(make_aglu_engine(config_for("tlm", missing)));
}

TEST_CASE("aglu config: a waveform is only available from the RTL implementation") {
    AgluConfig config = config_for("tlm", 4);
    config.vcd_path = "x.vcd";
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("aglu.vcd") && Catch::Contains("aglu.impl=rtl"));
}
