// Parameters declared once per block (isvp/parameter_table.h): declaring and
// reading back through the table gives the defaults, and a bad value —
// through a Parameters set or in a config built in code — is refused in the
// one format "config: NAME must be ACCEPTED, got VALUE".
#include <catch2/catch.hpp>

#include "isvp/aglu_engine.h"
#include "isvp/aurora_config.h"
#include "isvp/driver.h"
#include "isvp/driver_parameters.h"
#include "isvp/parameter_table.h"
#include "isvp/qdma_config.h"
#include "isvp/reliable_config.h"
#include "isvp/router_config.h"
#include "isvp/trace_writer.h"
#include "isvp/transport_config.h"

using namespace isvp;

TEST_CASE("parameter tables: declared then read, every block's config is its defaults") {
    Parameters parameters;
    QdmaConfig::declare(parameters);
    AuroraConfig::declare(parameters);
    guest::declare_driver_parameters(parameters);
    const QdmaConfig qdma = QdmaConfig::from(parameters);
    CHECK(qdma.packet_payload_bytes == QdmaConfig{}.packet_payload_bytes);
    CHECK(qdma.descriptor_prefetch == QdmaConfig{}.descriptor_prefetch);
    CHECK(qdma.clock_mhz == QdmaConfig{}.clock_mhz);
    const AuroraConfig aurora = AuroraConfig::from(parameters);
    CHECK(aurora.latency_ns == AuroraConfig{}.latency_ns);
    CHECK(aurora.on_crc_error == AuroraConfig{}.on_crc_error);
    CHECK(aurora.crc_always == AuroraConfig{}.crc_always);
    CHECK(aurora.seed == AuroraConfig{}.seed);
    const guest::DriverConfig driver = guest::driver_config_from(parameters);
    CHECK(driver.send_path == guest::DriverConfig{}.send_path);
    CHECK(driver.completion == guest::DriverConfig{}.completion);
    CHECK(driver.pio_max_bytes == guest::DriverConfig{}.pio_max_bytes);
    CHECK(parameters.text("aurora.on_crc_error") == "retry");
    CHECK(parameters.text("driver.send_path") == "auto");
    CHECK(parameters.text("driver.completion") == "poll");
}

TEST_CASE("parameter tables: a value read through the table lands in its field") {
    Parameters parameters;
    AuroraConfig::declare(parameters);
    guest::declare_driver_parameters(parameters);
    parameters.apply_override("aurora.on_crc_error=drop");
    parameters.apply_override("aurora.crc=always");
    parameters.apply_override("driver.send_path=auto");
    parameters.apply_override("driver.poll_us=3.5");
    CHECK(AuroraConfig::from(parameters).on_crc_error == CrcErrorPolicy::Drop);
    CHECK(AuroraConfig::from(parameters).crc_always);
    CHECK(guest::driver_config_from(parameters).send_path == guest::SendPath::Auto);
    CHECK(guest::driver_config_from(parameters).poll_us == 3.5);
}

TEST_CASE("parameter tables: a config built in code with a bad value is refused in the one format") {
    QdmaConfig qdma;
    qdma.queues = 0;
    CHECK_THROWS_WITH(qdma.validate(), "config: qdma.queues must be an integer in [1, 64] queues, got 0");
    QdmaConfig payload;
    payload.packet_payload_bytes = 100;
    CHECK_THROWS_WITH(payload.validate(),
                      "config: qdma.packet_payload_bytes must be a power of two in [16, 32768] B, got 100");
    AuroraConfig aurora;
    aurora.bit_error_rate = 0.75;
    CHECK_THROWS_WITH(aurora.validate(), "config: aurora.bit_error_rate must be a number in [0, 0.5] 1/bit, got 0.75");
    guest::DriverConfig driver;
    driver.poll_us = -1;
    CHECK_THROWS_WITH(guest::check_driver_parameters(driver),
                      "config: driver.poll_us must be a number in [0, 1e+06] us, got -1");
    CHECK_THROWS_WITH(guest::parse_send_path("dma"),
                      "config: driver.send_path must be one of fetch, prefetch, pio, auto, got 'dma'");
}

TEST_CASE("parameter tables: router, AgLU, host/job, reliable delivery and trace read back their defaults") {
    Parameters parameters;
    RouterConfig::declare(parameters);
    AgluConfig::declare(parameters);
    TransportConfig::declare(parameters);
    ReliableConfig::declare(parameters);
    TraceConfig::declare(parameters);
    const RouterConfig router = RouterConfig::from(parameters);
    CHECK(router.input_buffer_bytes == RouterConfig{}.input_buffer_bytes);
    CHECK(router.routing == RouterConfig{}.routing);
    const AgluConfig aglu = AgluConfig::from(parameters);
    CHECK(aglu.impl == "tlm");
    CHECK(aglu.vcd_path.empty());
    const TransportConfig transport = TransportConfig::from(parameters);
    CHECK(transport.memory_bytes == TransportConfig{}.memory_bytes);
    CHECK(transport.timing_only == TransportConfig{}.timing_only);
    CHECK(ReliableConfig::from(parameters).mode == ReliableConfig{}.mode);
    CHECK(TraceConfig::from(parameters).pcie_max_events == TraceConfig{}.pcie_max_events);

    parameters.apply_override("reliable.mode=off");
    parameters.apply_override("job.timing_only=true");
    parameters.apply_override("aglu.impl=rtl");
    parameters.apply_override("aglu.vcd=/tmp/aglu.vcd");
    parameters.apply_override("trace.pcie_nodes=0,2-3");
    CHECK(ReliableConfig::from(parameters).mode == ReliableMode::Off);
    CHECK(TransportConfig::from(parameters).timing_only);
    CHECK(AgluConfig::from(parameters).vcd_path == "/tmp/aglu.vcd");
    CHECK(TraceConfig::from(parameters).pcie_nodes == "0,2-3");
}

TEST_CASE("parameter tables: router, AgLU, host/job and reliable configs built in code are refused in the one format") {
    RouterConfig router;
    router.vcs = 0;
    CHECK_THROWS_WITH(router.validate(), "config: router.vcs must be an integer in [1, 16] VCs, got 0");
    router = RouterConfig{};
    router.routing = "valiant";
    CHECK_THROWS_WITH(router.validate(), Catch::StartsWith("config: router.routing must be one of dor") &&
                                             Catch::EndsWith(", got 'valiant'"));
    AgluConfig aglu;
    aglu.clock_mhz = 0.5;
    CHECK_THROWS_WITH(aglu.validate(), "config: aglu.clock_mhz must be a number in [1, 5000] MHz, got 0.5");
    aglu = AgluConfig{};
    aglu.vcd_path = "x.vcd";
    CHECK_THROWS_WITH(aglu.validate(), Catch::Contains("aglu.vcd records the RTL waveform"));
    TransportConfig transport;
    transport.timeout_s = -2;
    CHECK_THROWS_WITH(transport.validate(), "config: job.timeout_s must be a number in [0, 1e+09] s, got -2");
    ReliableConfig reliable;
    reliable.max_retransmissions = 1001;
    CHECK_THROWS_WITH(reliable.validate(),
                      "config: reliable.max_retransmissions must be an integer in [0, 1000] retransmissions, got 1001");
    reliable = ReliableConfig{};
    reliable.mode = static_cast<ReliableMode>(7);
    CHECK_THROWS_WITH(reliable.validate(), "config: reliable.mode must be one of auto, on, off, got 7");
}
