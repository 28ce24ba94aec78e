// QDMA and PCIe parameters, PCIe link timing arithmetic, the configuration
// space and the MSI-X table (all SystemC-free).
#include <catch2/catch.hpp>

#include "isvp/msix_table.h"
#include "isvp/pcie_config.h"
#include "isvp/pcie_config_space.h"
#include "isvp/qdma_config.h"

using namespace isvp;

TEST_CASE("qdma config: defaults are valid and declared with units") {
    Parameters parameters;
    QdmaConfig::declare(parameters);
    const QdmaConfig config = QdmaConfig::from(parameters);
    CHECK(config.packet_payload_bytes == 1024);
    CHECK(config.stream_bytes_per_cycle() == 64);
    for (const auto& spec : parameters.specs()) CHECK_FALSE(spec.description.empty());
}

TEST_CASE("qdma config: the network interface gets the QDMA's packet size, receive buffer and stream") {
    QdmaConfig config;
    config.packet_payload_bytes = 2048;
    config.rx_buffer_bytes = 65536;
    config.stream_bits = 256;
    config.clock_mhz = 300.0;
    const PacketInterfaceConfig network = config.network_interface(2, 8);
    CHECK(network.endpoint == 2);
    CHECK(network.endpoints == 8);
    CHECK(network.packet_payload_bytes == 2048);
    CHECK(network.receive_buffer_bytes == 65536);
    CHECK(network.link_bytes_per_cycle == 32);
    CHECK(network.link_clock_mhz == 300.0);
}

TEST_CASE("qdma config: a packet size that is not a power of two is refused by name") {
    Parameters parameters;
    QdmaConfig::declare(parameters);
    parameters.apply_override("qdma.packet_payload_bytes=1000");
    CHECK_THROWS_WITH(QdmaConfig::from(parameters),
                      Catch::Contains("qdma.packet_payload_bytes") && Catch::Contains("power of two"));
}

TEST_CASE("qdma config: the receive buffer must hold one whole packet") {
    QdmaConfig config;
    config.packet_payload_bytes = 4096;
    config.rx_buffer_bytes = 4096;
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("qdma.rx_buffer_bytes") && Catch::Contains("4128"));
}

TEST_CASE("qdma config: more than 64 queues are refused") {
    Parameters parameters;
    QdmaConfig::declare(parameters);
    CHECK_THROWS_WITH(parameters.apply_override("qdma.queues=65"), Catch::Contains("qdma.queues"));
}

TEST_CASE("pcie config: Gen3 x16 gives 15.75 GB/s raw per direction") {
    const PcieConfig config;
    CHECK(config.raw_gbytes_per_s() == Approx(15.7538).epsilon(1e-4));
    CHECK(config.tlp_gbytes_per_s() == Approx(15.7538 * 0.9).epsilon(1e-4));
    PcieConfig gen2 = config;
    gen2.generation = 2;
    CHECK(gen2.raw_gbytes_per_s() == Approx(8.0));
}

TEST_CASE("pcie config: bad lane counts and payload sizes are refused by name") {
    PcieConfig config;
    config.lanes = 12;
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("pcie.lanes"));
    config = PcieConfig{};
    config.max_payload_bytes = 300;
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("pcie.max_payload_bytes"));
}

TEST_CASE("pcie link: writes and completions pay one TLP overhead per MPS, requests per MRRS") {
    const PcieLinkTiming timing(PcieConfig{});
    CHECK(timing.write_wire_bytes(4) == 28);
    CHECK(timing.write_wire_bytes(256) == 280);
    CHECK(timing.write_wire_bytes(257) == 257 + 48);
    CHECK(timing.read_request_wire_bytes(4096) == 8 * 24);
    CHECK(timing.latency_ps() == 900000);
    // 4 MiB of completions at 14.18 GB/s of TLP bandwidth: ~323.6 us.
    CHECK(timing.serialisation_ps(timing.write_wire_bytes(4u << 20)) == Approx(323.56e6).epsilon(1e-3));
}

TEST_CASE("pcie config space: BAR0 probing returns the 64 KiB size mask with 64-bit memory type") {
    pci::PcieConfigSpace space{PcieConfig{}};
    space.write(pci::BAR0, 4, 0xFFFFFFFFu);
    CHECK(space.read(pci::BAR0, 4) == 0xFFFF0004u);
    space.write(pci::BAR1, 4, 0xFFFFFFFFu);
    CHECK(space.read(pci::BAR1, 4) == 0xFFFFFFFFu);
    space.write(pci::BAR0, 4, 0xABCD0000u);
    space.write(pci::BAR1, 4, 0);
    CHECK(space.bar0_address() == 0xABCD0000u);
}

TEST_CASE("pcie config space: identity is read-only and only whole small accesses are valid") {
    pci::PcieConfigSpace space{PcieConfig{}};
    space.write(pci::VENDOR_ID, 2, 0);
    CHECK(space.read(pci::VENDOR_ID, 2) == regmap::kVendorId);
    CHECK(space.read(pci::DEVICE_ID, 2) == regmap::kDeviceId);
    CHECK(pci::PcieConfigSpace::valid_access(0x10, 4));
    CHECK_FALSE(pci::PcieConfigSpace::valid_access(0x11, 2));
    CHECK_FALSE(pci::PcieConfigSpace::valid_access(0x10, 3));
    CHECK_FALSE(pci::PcieConfigSpace::valid_access(pci::kConfigSpaceBytes, 1));
}

TEST_CASE("pcie msix: a masked vector goes pending and is delivered once on unmask") {
    MsixTable table;
    const std::uint32_t entry = regmap::MSIX_ENTRY(5);
    table.write(entry + regmap::MSIX_ADDRESS_LO, 0xFEE00000u);
    table.write(entry + regmap::MSIX_DATA, 5);
    CHECK(table.masked(5));
    CHECK_FALSE(table.raise(5).has_value());
    CHECK(table.read(regmap::MSIX_PBA) == 1u << 5);
    const auto message = table.write(entry + regmap::MSIX_VECTOR_CONTROL, 0);
    REQUIRE(message.has_value());
    CHECK(message->address == 0xFEE00000u);
    CHECK(message->data == 5);
    CHECK(table.read(regmap::MSIX_PBA) == 0);
    CHECK(table.raise(5).has_value());
}

TEST_CASE("pcie msix: the function mask holds every vector, clearing it delivers the pending ones") {
    MsixTable table;
    table.write(regmap::MSIX_ENTRY(1) + regmap::MSIX_VECTOR_CONTROL, 0);
    table.write(regmap::MSIX_ENTRY(40) + regmap::MSIX_VECTOR_CONTROL, 0);
    CHECK(table.set_function_mask(true).empty());
    CHECK_FALSE(table.raise(40).has_value());
    CHECK_FALSE(table.raise(1).has_value());
    CHECK(table.read(regmap::MSIX_PBA + 4) == 1u << 8);  // vector 40 in the second dword
    const auto delivered = table.set_function_mask(false);
    REQUIRE(delivered.size() == 2);
    CHECK(delivered[0].vector == 1);
    CHECK(delivered[1].vector == 40);
}
