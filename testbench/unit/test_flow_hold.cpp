// network.flow_hold: how long a flow-model stream that runs dry keeps its flow.
#include <catch2/catch.hpp>

#include "isvp/fabric_config.h"
#include "isvp/flow_config.h"
#include "isvp/parameters.h"

using namespace isvp;

TEST_CASE("network.flow_hold: message by default, instant as given, anything else refused") {
    Parameters parameters;
    FabricConfig::declare(parameters);
    NetworkModelConfig::declare(parameters);
    CHECK(parameters.text("network.flow_hold") == "message");
    CHECK(NetworkModelConfig::from(parameters, FabricConfig::from(parameters)).hold == FlowHold::Message);
    parameters.apply_override("network.flow_hold=instant");
    CHECK(NetworkModelConfig::from(parameters, FabricConfig::from(parameters)).hold == FlowHold::Instant);
    CHECK_THROWS_WITH(parameters.apply_override("network.flow_hold=packet"), Catch::Contains("network.flow_hold"));
}
