// Standing H2C descriptors (H2C_CONTROL.PREFETCH, models/qdma/README.md):
// the QDMA fetches them before any doorbell, a doorbell then costs no
// descriptor fetch (the first packet leaves a descriptor round trip earlier
// than on the fetch path), a packet fills consecutive buffers as its header
// says and arrives intact, and a buffer too small for the header stops the
// ring with DescriptorLength at that descriptor's address.
#include <sstream>

#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;
using regmap::QueueError;

namespace {

constexpr std::size_t kMemoryBytes = 64u << 20;
constexpr std::uint32_t kBufferBytes = 256;  // capacity of each standing descriptor

/// Writes one standing descriptor per usable slot of `queue`'s H2C ring:
/// slot i owns [data_area + i * kBufferBytes, + kBufferBytes).
void write_standing(Platform& platform, const TestQueue& queue) {
    for (std::uint32_t slot = 0; slot < queue.ring().slots(); ++slot)
        encode_h2c_descriptor({queue.data_area() + slot * kBufferBytes, kBufferBytes, regmap::H2C_SDI},
                              platform.at(queue.h2c_ring() + slot * kH2cDescriptorBytes));
}

/// Header and payload into the standing buffers from `slot` on; returns the
/// number of buffers the packet fills.
std::uint32_t fill_standing(Platform& platform, const TestQueue& queue, std::uint32_t slot,
                            const ProcessorHeader& header, const std::vector<std::uint8_t>& payload) {
    std::vector<std::uint8_t> packet(ProcessorHeader::kBytes);
    header.write(packet.data());
    packet.insert(packet.end(), payload.begin(), payload.end());
    std::uint32_t used = 0;
    for (std::size_t done = 0; done < packet.size(); done += kBufferBytes, ++used) {
        const std::size_t chunk = std::min<std::size_t>(kBufferBytes, packet.size() - done);
        std::memcpy(platform.at(queue.data_area() + (slot + used) * kBufferBytes), packet.data() + done, chunk);
    }
    return used;
}

}  // namespace

int sc_main(int, char**) {
    Checker check;
    Platform platform(PcieConfig{}, QdmaConfig{}, kMemoryBytes);
    Host& host = platform.host;
    TestQueue standing(platform, 0, 2 * TestQueue::kRegionBytes);  // not at 0: ERROR_ADDRESS means something
    TestQueue fetching(platform, 1, TestQueue::kRegionBytes);

    return run(platform, check, [&] {
        using namespace regmap;
        const std::uint32_t control = QUEUE(0) + H2C_CONTROL;
        write_standing(platform, standing);
        standing.enable(QueueSetup{});
        host.write32(control, host.read32(control) | control::PREFETCH.make(1));
        standing.post_buffers(32);  // C2H of queue 0 receives every context-0 packet
        fetching.enable(QueueSetup{});
        check.expect(control::PREFETCH.get(host.read32(control)) == 1, "H2C_CONTROL keeps PREFETCH");

        check.section("fetched before any doorbell");
        sc_core::wait(ns(10000));
        const auto& statistics = platform.qdma.statistics();
        check.expect(statistics.h2c_descriptor_fetches == 1 && platform.loopback.captured.empty(),
                     "the enable with PREFETCH fetched one batch of descriptors and nothing was sent (" +
                         std::to_string(statistics.h2c_descriptor_fetches) + " fetches)");

        check.section("a doorbell costs no descriptor fetch");
        const std::vector<std::uint8_t> small = pattern(24, 1);
        std::uint32_t slot = 0;
        slot += fill_standing(platform, standing, slot, send_header(24, 2), small);
        sc_core::sc_time rung = sc_core::sc_time_stamp();
        host.write32(standing.doorbell(H2C_PIDX), slot);
        sc_core::wait(ns(10000));
        check.expect(platform.loopback.captured.size() == 1, "the standing packet was sent");
        const sc_core::sc_time prefetch_latency = platform.loopback.captured.at(0).head - rung;
        rung = sc_core::sc_time_stamp();
        fetching.send(send_header(24, 2), small);
        sc_core::wait(ns(10000));
        check.expect(platform.loopback.captured.size() == 2, "the fetch-path packet was sent");
        const sc_core::sc_time fetch_latency = platform.loopback.captured.at(1).head - rung;
        std::ostringstream figures;
        figures << "doorbell to packet: prefetch " << prefetch_latency << ", fetch " << fetch_latency;
        check.expect(fetch_latency - prefetch_latency >= ns(1500), figures.str() + ": a descriptor round trip less");
        check.expect(statistics.h2c_descriptor_fetches == 3,
                     "no fetch for the standing doorbell (one idle top-up), one for the fetch path's (" +
                         std::to_string(statistics.h2c_descriptor_fetches) + " fetches in all)");

        check.section("a packet fills consecutive buffers");
        for (int i = 0; i < 2; ++i) {
            standing.take_completion(*standing.peek_completion());
        }
        standing.ring_cmpt();
        const std::vector<std::uint8_t> large = pattern(600, 2);  // 608 bytes: 256 + 256 + 96
        const std::uint32_t used = fill_standing(platform, standing, slot, send_header(600, 2), large);
        check.expect(used == 3, "608 bytes take three 256-byte buffers");
        slot += used;
        host.write32(standing.doorbell(H2C_PIDX), slot);
        check.expect(standing.wait_completions(1, ns(20000)) == 1, "the message arrived");
        std::vector<std::uint8_t> received;
        while (const auto entry = standing.peek_completion()) {
            const auto part = standing.take_completion(*entry);
            received.insert(received.end(), part.begin(), part.end());
            if (entry->flags & CMPT_LAST) break;
            standing.wait_completions(1, ns(20000));
        }
        check.expect(received == large, "its 600 bytes arrive intact (" + std::to_string(received.size()) + ")");
        check.expect(status::INDEX.get(host.read32(QUEUE(0) + H2C_STATUS)) == slot,
                     "H2C CIDX moved past all four buffers used so far");

        check.section("a buffer too small for the header");
        host.write32(control, 0);  // stop the ring, replace slot 0, restart it from index 0
        encode_h2c_descriptor({standing.data_area(), 4, H2C_SDI}, platform.at(standing.h2c_ring()));
        host.write32(QUEUE(0) + QUEUE_COMMAND, command::RESET.make(1));
        standing.enable(QueueSetup{});
        host.write32(control, host.read32(control) | control::PREFETCH.make(1));
        sc_core::wait(ns(5000));
        host.write32(standing.doorbell(H2C_PIDX), 1);
        sc_core::wait(ns(20000));
        const std::uint32_t h2c = host.read32(QUEUE(0) + H2C_STATUS);
        const std::uint32_t errors = host.read32(ERROR_STATUS);
        check.expect(status::ERROR.get(h2c) == 1 &&
                         status::ERROR_CODE.get(h2c) == static_cast<std::uint32_t>(QueueError::DescriptorLength) &&
                         errors == error_status::DESCRIPTOR && host.read32(ERROR_ADDRESS_LO) == standing.h2c_ring(),
                     "DescriptorLength at descriptor 0's address, ERROR_STATUS.DESCRIPTOR");
    });
}
