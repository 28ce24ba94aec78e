// The driver names device errors with the register map's names
// (regmap::register_fields, shared with the PCIe transaction log): a device
// whose ERROR_STATUS reads BAD_DOORBELL|DMA after set-up makes the Driver
// constructor fail with exactly those names.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/driver.h"
#include "isvp/register_map.h"
#include "isvp/register_names.h"

namespace rm = isvp::regmap;

namespace {

/// A device that identifies itself and then reports errors in ERROR_STATUS.
class ErroredDevice : public isvp::guest::DeviceTransport {
  public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::uint8_t* host_memory() override { return memory_.data(); }
    std::size_t host_memory_bytes() const override { return memory_.size(); }
    void mmio_write32(std::uint32_t, std::uint32_t) override {}
    std::uint32_t mmio_read32(std::uint32_t offset) override {
        switch (offset) {
            case rm::ID:
                return rm::kIdValue;
            case rm::VERSION:
                return rm::kVersionValue;
            case rm::NODE_COUNT:
                return 1;
            case rm::PACKET_BYTES:
                return 64;
            case rm::QUEUE_COUNT:
                return 1;
            case rm::ERROR_STATUS:
                return rm::error_status::BAD_DOORBELL | rm::error_status::DMA;
            default:
                return 0;
        }
    }
    unsigned wait_interrupt(std::uint64_t) override { throw isvp::guest::TransportError("no interrupt comes"); }
    std::uint64_t now_ps() override { return 0; }
    void compute(std::uint64_t) override {}
    void finish(int) override {}

  private:
    std::vector<std::uint8_t> memory_ = std::vector<std::uint8_t>(1u << 20);
};

}  // namespace

TEST_CASE("The driver names device errors with the register map's bit names", "[driver][pcie_log]") {
    ErroredDevice device;
    isvp::guest::DriverConfig config;
    config.send_path = isvp::guest::SendPath::Fetch;  // the device under test has no PIO window
    config.completion = isvp::guest::CompletionMode::Msi;
    config.h2c_ring_entries = 64;
    config.c2h_ring_entries = 64;
    config.cmpt_ring_entries = 64;
    config.staging_bytes = 1u << 16;
    CHECK_THROWS_WITH(isvp::guest::Driver(device, config), Catch::Contains("driver: device error BAD_DOORBELL|DMA ("));
}
