// The H2C stream toward the router: with PCIe fast enough not to limit,
// packets leave back to back at the AXI4-Stream rate (qdma.stream_bits per
// qdma.clock_mhz cycle); with a router buffer of one packet, the QDMA sends
// only when it holds credits for a whole packet and stops when they run out.
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

namespace {

constexpr std::size_t kMemoryBytes = 16u << 20;

/// Sends one `bytes`-byte message on `queue` and returns the head times of
/// its packets once all have left.
std::vector<sc_core::sc_time> stream(Platform& platform, TestQueue& queue, std::uint32_t bytes) {
    const std::size_t first = platform.loopback.captured.size();
    const std::size_t packets = (bytes + 1023) / 1024;
    queue.send(send_header(bytes, 0, 0), pattern(bytes, bytes));
    while (platform.loopback.captured.size() < first + packets) sc_core::wait(ns(100));
    std::vector<sc_core::sc_time> heads;
    for (std::size_t i = first; i < first + packets; ++i) heads.push_back(platform.loopback.captured[i].head);
    return heads;
}

}  // namespace

int sc_main(int argc, char** argv) {
    Checker check;
    const bool small_router = argc > 1 && std::string(argv[1]) == "--router-buffer-one-packet";
    PcieConfig fast;
    fast.generation = 5;  // 32 GT/s x16: ~57 GB/s, far above the stream
    const QdmaConfig config;
    const std::uint32_t packet_phits = phits_of(kNetworkPacketOverhead + 1024);
    Platform platform(fast, config, kMemoryBytes, 1, 4, small_router ? packet_phits : 4096);
    TestQueue queue(platform, 0, 0);

    return run(platform, check, [&] {
        QueueSetup setup;
        setup.ring_size_index = 4;  // 1024 entries
        setup.buffer_bytes = 1024;
        queue.enable(setup);
        const sc_core::sc_time cycle = ns(1000.0 / config.clock_mhz);
        const std::uint32_t cycles = (kNetworkPacketOverhead + 1024 + 63) / 64;  // 1042 bytes on 64-byte beats
        if (small_router) {
            // No C2H buffers: the QDMA's receive buffer fills (31 packets),
            // the router holds one more, and then the sender must stop.
            const std::size_t rx_packets = config.rx_buffer_bytes / kPhitBytes / packet_phits;
            queue.send(send_header(64 * 1024, 0, 0), pattern(64 * 1024, 3));
            sc_core::wait(ns(50000));
            check.expect(platform.loopback.captured.size() == rx_packets + 1 && platform.network.send_credits() == 0,
                         "with credits for one packet in the router, exactly " + std::to_string(rx_packets + 1) +
                             " packets leave and no credit is left (" +
                             std::to_string(platform.loopback.captured.size()) + " sent)");
            queue.post_buffers(100);
            check.expect(queue.wait_completions(64, ns(1e6)) == 64, "posting buffers lets all 64 packets through");
            return;
        }
        queue.post_buffers(1000);
        // Warm-up: the C2H side fetches its descriptors; the burst of
        // writes that follows would queue behind the stream's reads.
        stream(platform, queue, 1024);
        sc_core::wait(ns(10000));
        const auto heads = stream(platform, queue, 256 * 1024);
        bool back_to_back = true;
        for (std::size_t i = 1; i < heads.size(); ++i)
            back_to_back = back_to_back && heads[i] - heads[i - 1] == cycle * static_cast<double>(cycles);
        check.expect(back_to_back, "1042-byte packets leave back to back, every 17 cycles (68 ns)");
        const double rate = 1024.0 * (heads.size() - 1) / (heads.back() - heads[0]).to_seconds() / 1e9;
        check.expect(rate > 14.9 && rate < 15.1, "the stream carries " + std::to_string(rate) +
                                                     " GB/s of payload: 512 bits x 250 MHz less headers");
        check.expect(platform.loopback.captured.back().tail_after == cycle * static_cast<double>(cycles - 1),
                     "the tail follows the head by 16 cycles");
        check.expect(queue.wait_completions(257, ns(1e6)) == 257, "all 257 packets are delivered");
    });
}
