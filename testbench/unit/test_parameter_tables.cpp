// Parameters declared once per block (isvp/parameter_table.h): declaring and
// reading back through the table gives the defaults, and a bad value —
// through a Parameters set or in a config built in code — is refused in the
// one format "config: NAME must be ACCEPTED, got VALUE".
#include <catch2/catch.hpp>

#include "isvp/aurora_config.h"
#include "isvp/driver.h"
#include "isvp/driver_parameters.h"
#include "isvp/parameter_table.h"
#include "isvp/qdma_config.h"

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
    CHECK(parameters.text("driver.send_path") == "fetch");
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
