// QDMA global and queue registers through BAR0, against register_map.h:
// identity and configuration registers, SCRATCH, read-only registers, the
// RING_SIZE table and CONTEXT_QUEUE steering with their refusal rule,
// unmapped offsets (0xFFFFFFFF, ERROR_STATUS.UNMAPPED_ACCESS + ERROR_ADDRESS,
// RW1C), field masks, reset values, and the MMIO read round trip.
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

int sc_main(int, char**) {
    Checker check;
    QdmaConfig config;
    config.queues = 8;
    config.packet_payload_bytes = 2048;
    Platform platform(PcieConfig{}, config, 1u << 20, 2, 6);
    Host& host = platform.host;

    // Reads `offset` expecting an unmapped access; clears the error after.
    auto expect_unmapped_read = [&](std::uint32_t offset, const std::string& what) {
        const std::uint32_t value = host.read32(offset);
        const std::uint32_t errors = host.read32(regmap::ERROR_STATUS);
        const std::uint32_t address = host.read32(regmap::ERROR_ADDRESS_LO);
        check.expect(value == 0xFFFFFFFFu && errors == regmap::error_status::UNMAPPED_ACCESS && address == offset,
                     what + " reads 0xFFFFFFFF and sets UNMAPPED_ACCESS with its offset");
        host.write32(regmap::ERROR_STATUS, regmap::error_status::UNMAPPED_ACCESS);
    };
    auto expect_unmapped_write = [&](std::uint32_t offset, std::uint32_t value, const std::string& what) {
        host.write32(offset, value);
        const std::uint32_t errors = host.read32(regmap::ERROR_STATUS);
        check.expect(errors == regmap::error_status::UNMAPPED_ACCESS &&
                         host.read32(regmap::ERROR_ADDRESS_LO) == offset && host.read32(regmap::ERROR_ADDRESS_HI) == 0,
                     what + " is dropped and flagged with its offset");
        host.write32(regmap::ERROR_STATUS, regmap::error_status::UNMAPPED_ACCESS);
    };

    return run(platform, check, [&] {
        using namespace regmap;
        check.section("identity");
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        check.expect(host.read32(ID) == kIdValue, "ID reads 'ISVP'");
        check.expect(sc_core::sc_time_stamp() - start == ns(1800), "a register read costs the 1.8 us PCIe round trip");
        check.expect(host.read32(VERSION) == kVersionValue, "VERSION reads 1.0");
        check.expect(host.read32(NODE_ADDRESS) == 2 && host.read32(NODE_COUNT) == 6,
                     "NODE_ADDRESS and NODE_COUNT come from the platform");
        check.expect(host.read32(QUEUE_COUNT) == 8, "QUEUE_COUNT is qdma.queues");
        check.expect(host.read32(MSIX_VECTORS) == kMsixVectors, "MSIX_VECTORS is the table size");
        check.expect(host.read32(PACKET_BYTES) == 2048, "PACKET_BYTES is qdma.packet_payload_bytes");
        host.write32(ID, 0);
        host.write32(PACKET_BYTES, 16);
        check.expect(host.read32(ID) == kIdValue && host.read32(PACKET_BYTES) == 2048 && host.read32(ERROR_STATUS) == 0,
                     "writes to read-only registers are ignored without an error");

        check.section("scratch and error registers");
        check.expect(host.read32(SCRATCH) == 0, "SCRATCH resets to 0");
        host.write32(SCRATCH, 0xA5A55A5Au);
        check.expect(host.read32(SCRATCH) == 0xA5A55A5Au, "SCRATCH holds what was written");
        host.write32(SCRATCH, 0x12345678u);
        check.expect(host.read32(SCRATCH) == 0x12345678u, "... and the next value");
        check.expect(host.read32(ERROR_STATUS) == 0 && host.read32(ERROR_QUEUE) == 0 &&
                         host.read32(ERROR_ADDRESS_LO) == 0 && host.read32(ERROR_ADDRESS_HI) == 0,
                     "error registers reset to 0");
        host.write32(ERROR_MSIX, 0xFFFFFFFFu);
        host.write32(ERROR_IRQ_ENABLE, 0xFFFFFFFFu);
        check.expect(host.read32(ERROR_MSIX) == 0x7FF && host.read32(ERROR_IRQ_ENABLE) == 0x1FF,
                     "ERROR_MSIX keeps 11 bits, ERROR_IRQ_ENABLE the defined error bits (0..7, PIO)");
        host.write32(ERROR_IRQ_ENABLE, 0);

        check.section("unmapped offsets");
        expect_unmapped_read(0x3000, "offset 0x3000 (a hole)");
        check.expect(host.read32(ERROR_STATUS) == 0, "ERROR_STATUS is write-1-to-clear");
        expect_unmapped_read(ACCELERATOR_BASE, "the accelerator window (not implemented by the QDMA)");
        expect_unmapped_write(0x7FFC, 1, "a write to 0x7FFC");
        expect_unmapped_read(QUEUE(8) + H2C_CONTROL, "queue 8's registers with QUEUE_COUNT 8");
        expect_unmapped_read(DOORBELL(8) + H2C_PIDX, "queue 8's doorbell");
        expect_unmapped_read(QUEUE(0) + 0x3C, "offset 0x3C of a queue context");
        expect_unmapped_read(DOORBELL(0) + 0xC, "offset 0xC of a doorbell block");
        check.expect(host.read32(MSIX_PBA) == 0 && host.read32(ERROR_STATUS) == 0,
                     "the MSI-X PBA is served by the endpoint, not unmapped");

        check.section("ring-size table and context steering");
        bool table = true;
        for (unsigned i = 0; i < kRingSizeCount; ++i) table = table && host.read32(RING_SIZE(i)) == kRingSizeReset[i];
        check.expect(table, "RING_SIZE resets to 64, 128, ... 16384, 32, 96, ... 3072");
        host.write32(RING_SIZE(3), 1000);
        check.expect(host.read32(RING_SIZE(3)) == 1000, "a RING_SIZE entry takes a size in [16, 65536]");
        expect_unmapped_write(RING_SIZE(3), 8, "RING_SIZE 8 (below 16)");
        expect_unmapped_write(RING_SIZE(3), 65537, "RING_SIZE 65537 (above 65536)");
        check.expect(host.read32(RING_SIZE(3)) == 1000, "a refused RING_SIZE keeps its value");
        bool steering = true;
        for (unsigned c = 0; c < kContextCount; ++c) steering = steering && host.read32(CONTEXT_QUEUE(c)) == 0;
        check.expect(steering, "CONTEXT_QUEUE resets to queue 0 for every context");
        host.write32(CONTEXT_QUEUE(31), 7);
        check.expect(host.read32(CONTEXT_QUEUE(31)) == 7, "CONTEXT_QUEUE(31) takes queue 7");
        expect_unmapped_write(CONTEXT_QUEUE(31), 8, "CONTEXT_QUEUE naming queue 8 of 8");
        check.expect(host.read32(CONTEXT_QUEUE(31)) == 7, "a refused steering entry keeps its value");

        check.section("queue context registers");
        check.expect(host.read32(QUEUE(7) + H2C_STATUS) == 0 && host.read32(QUEUE(7) + C2H_STATUS) == 0 &&
                         host.read32(QUEUE(7) + CMPT_STATUS) == status::COLOR.make(1),
                     "status registers reset to index 0, no error; CMPT colour 1");
        host.write32(QUEUE(7) + H2C_BASE_LO, 0x12345678u);
        host.write32(QUEUE(7) + H2C_BASE_HI, 0x9u);
        host.write32(QUEUE(7) + C2H_BUFFER_BYTES, 4096);
        host.write32(QUEUE(7) + CMPT_COALESCE, 0x00100004u);
        check.expect(host.read32(QUEUE(7) + H2C_BASE_LO) == 0x12345678u && host.read32(QUEUE(7) + H2C_BASE_HI) == 9 &&
                         host.read32(QUEUE(7) + C2H_BUFFER_BYTES) == 4096 &&
                         host.read32(QUEUE(7) + CMPT_COALESCE) == 0x00100004u,
                     "base, buffer size and coalescing registers read back");
        host.write32(QUEUE(7) + CMPT_CONTROL, 0xFFFFFFFFu);
        check.expect(host.read32(QUEUE(7) + CMPT_CONTROL) == 0x07FF070Fu,
                     "CONTROL keeps RING_SIZE_INDEX, ENABLE, STATUS_ENABLE, IRQ_ENABLE, MSIX_VECTOR");
        host.write32(QUEUE(7) + CMPT_CONTROL, 0);
        host.write32(QUEUE(7) + H2C_STATUS, 0xFFFFFFFFu);
        check.expect(host.read32(QUEUE(7) + H2C_STATUS) == 0 && host.read32(ERROR_STATUS) == 0,
                     "status registers are read-only");
        check.expect(host.read32(QUEUE(7) + QUEUE_COMMAND) == 0 && host.read32(DOORBELL(7) + H2C_PIDX) == 0 &&
                         host.read32(ERROR_STATUS) == 0,
                     "write-only QUEUE_COMMAND and doorbells read 0");
        check.expect(host.read32(ERROR_STATUS) == 0, "no error bit is left behind");
    });
}
