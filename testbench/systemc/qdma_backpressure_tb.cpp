// QDMA back-pressure instead of loss: packets for a queue with no C2H buffer
// posted, a full completion ring or a disabled C2H ring wait in the receive
// buffer, their credits held, the router (loopback) and then the H2C stream
// stall on credits; nothing is dropped and everything resumes on the
// doorbell or enable. Other queues keep flowing meanwhile.
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

namespace {

constexpr std::size_t kMemoryBytes = 48u << 20;

/// Takes every visible completion, checks payloads against `expected`
/// (indexed by arrival order from `next`), reposts buffers if asked.
std::uint32_t drain(TestQueue& queue, std::uint32_t& next,
                    const std::function<std::vector<std::uint8_t>(std::uint32_t)>& expected, bool& payloads,
                    bool repost) {
    std::uint32_t taken = 0;
    while (const auto entry = queue.peek_completion()) {
        payloads = payloads && queue.take_completion(*entry) == expected(next);
        ++next;
        ++taken;
    }
    if (taken) {
        if (repost) queue.post_buffers(taken);
        queue.ring_cmpt();
    }
    return taken;
}

}  // namespace

int sc_main(int, char**) {
    Checker check;
    const QdmaConfig config;  // 32 KiB receive buffer: 31 packets of 1042 bytes
    Platform platform(PcieConfig{}, config, kMemoryBytes);
    Host& host = platform.host;
    TestQueue q0(platform, 0, 0);
    TestQueue q1(platform, 1, 1 * TestQueue::kRegionBytes);
    TestQueue q2(platform, 2, 2 * TestQueue::kRegionBytes);
    TestQueue q4(platform, 4, 4 * TestQueue::kRegionBytes);

    return run(platform, check, [&] {
        check.section("no C2H buffer posted");
        q0.enable(QueueSetup{});
        for (std::uint32_t i = 0; i < 3; ++i) q0.send(send_header(64, 0, 0), pattern(64, i));
        sc_core::wait(ns(20000));
        check.expect(!q0.peek_completion(), "without buffers no completion is written");
        check.expect(platform.network.rx_buffered_phits() == 3 * phits_of(kNetworkPacketOverhead + 64),
                     "the three packets wait in the receive buffer");
        check.expect(host.read32(regmap::ERROR_STATUS) == 0 && host.read32(q0.reg(regmap::C2H_STATUS)) == 0,
                     "waiting for buffers is not an error");
        check.expect(host.read32(q0.reg(regmap::H2C_STATUS)) == regmap::status::INDEX.make(3),
                     "the sender's descriptors completed: its packets left");
        q0.post_buffers(3);
        check.expect(q0.wait_completions(3, ns(20000)) == 3, "posting buffers (C2H_PIDX) releases them");
        std::uint32_t next = 0;
        bool payloads = true;
        drain(
            q0, next, [](std::uint32_t i) { return pattern(64, i); }, payloads, false);
        check.expect(payloads && next == 3, "all three arrive in order, byte for byte");
        check.expect(platform.network.rx_buffered_phits() == 0, "the receive buffer is empty again");

        check.section("credits run out end to end, then everything resumes");
        {
            QueueSetup setup;
            setup.ring_size_index = 2;  // 256 entries
            q1.enable(setup);
            host.write32(regmap::CONTEXT_QUEUE(1), 1);
            constexpr std::uint32_t kMessages = 120;
            auto message = [](std::uint32_t i) { return pattern(1024, 100 + i); };
            const std::size_t before = platform.loopback.captured.size();
            for (std::uint32_t i = 0; i < kMessages; ++i) q1.send(send_header(1024, 2, 1), message(i));
            sc_core::wait(ns(100000));
            const std::size_t emitted = platform.loopback.captured.size() - before;
            const std::uint32_t packet_phits = phits_of(kNetworkPacketOverhead + 1024);
            check.expect(
                platform.network.rx_buffered_phits() ==
                    (config.rx_buffer_bytes / kPhitBytes / packet_phits) * packet_phits,
                "the receive buffer fills up (" + std::to_string(platform.network.rx_buffered_phits()) + " phits)");
            check.expect(emitted < kMessages && platform.network.send_credits() < packet_phits,
                         "the router's buffer fills and the QDMA stops sending (" + std::to_string(emitted) +
                             " of 120 sent, " + std::to_string(platform.network.send_credits()) + " phits of credit)");
            const std::uint32_t cidx = regmap::status::INDEX.get(host.read32(q1.reg(regmap::H2C_STATUS)));
            check.expect(cidx == emitted, "H2C stops at the last packet sent: CIDX " + std::to_string(cidx));
            check.expect(host.read32(regmap::ERROR_STATUS) == 0, "no error, nothing dropped");
            q1.post_buffers(200);
            std::uint32_t received = 0;
            bool in_order = true;
            const sc_core::sc_time end = sc_core::sc_time_stamp() + ns(1e6);
            while (received < kMessages && sc_core::sc_time_stamp() < end) {
                if (!drain(q1, received, message, in_order, true)) sc_core::wait(ns(500));
            }
            check.expect(received == kMessages && in_order,
                         "after buffers are posted all 120 messages arrive, in order, byte for byte");
        }

        check.section("completion ring full");
        {
            q2.enable(QueueSetup{});  // 64 entries: 62 completions outstanding at most
            host.write32(regmap::CONTEXT_QUEUE(2), 2);
            q2.post_buffers(62);
            auto message = [](std::uint32_t i) { return pattern(32, 500 + i); };
            for (std::uint32_t i = 0; i < 62; ++i) q2.send(send_header(32, 3, 2), message(i));
            check.expect(q2.wait_completions(62, ns(100000)) == 62, "62 completions fill the 64-entry ring");
            // More buffers, but the driver has not consumed any completion.
            q2.post_buffers(10);
            const std::size_t before = platform.loopback.captured.size();
            for (std::uint32_t i = 62; i < 67; ++i) q2.send(send_header(32, 3, 2), message(i));
            sc_core::wait(ns(20000));
            check.expect(platform.loopback.captured.size() == before + 5 &&
                             regmap::status::INDEX.get(host.read32(q2.reg(regmap::CMPT_STATUS))) == 62,
                         "with the ring full, new packets wait although buffers are posted");
            check.expect(host.read32(regmap::ERROR_STATUS) == 0 &&
                             host.read32(q2.reg(regmap::CMPT_STATUS)) ==
                                 (regmap::status::INDEX.make(62) | regmap::status::COLOR.make(1)),
                         "a full completion ring is back-pressure, not CompletionOverflow");
            std::uint32_t received = 0;
            bool intact = true;
            const sc_core::sc_time end = sc_core::sc_time_stamp() + ns(200000);
            while (received < 67 && sc_core::sc_time_stamp() < end) {
                if (!drain(q2, received, message, intact, false)) sc_core::wait(ns(500));
            }
            check.expect(received == 67 && intact, "consuming completions (CMPT_CIDX) lets the five through");
        }

        check.section("a disabled C2H queue holds its packets; others keep flowing");
        {
            host.write32(regmap::CONTEXT_QUEUE(4), 4);
            auto message = [](std::uint32_t i) { return pattern(128, 900 + i); };
            for (std::uint32_t i = 0; i < 4; ++i) q0.send(send_header(128, 0, 4), message(i));
            sc_core::wait(ns(20000));
            check.expect(platform.network.rx_buffered_phits() == 4 * phits_of(kNetworkPacketOverhead + 128),
                         "packets for the disabled queue 4 wait");
            q0.post_buffers(2);
            q0.send(send_header(16, 0, 0), pattern(16, 77));
            check.expect(q0.wait_completions(1, ns(20000)) == 1, "queue 0 still receives meanwhile");
            q0.take_completion(*q0.peek_completion());
            q0.ring_cmpt();
            q4.enable(QueueSetup{});
            q4.post_buffers(8);
            check.expect(q4.wait_completions(4, ns(20000)) == 4, "enabling queue 4 delivers its packets");
            std::uint32_t received = 0;
            bool intact = true;
            drain(q4, received, message, intact, false);
            check.expect(received == 4 && intact, "... all four, in order, byte for byte");
        }
        check.expect(platform.qdma.statistics().h2c_packets == platform.qdma.statistics().c2h_packets &&
                         platform.qdma.statistics().rx_dropped == 0,
                     "no packet was lost (" + std::to_string(platform.qdma.statistics().c2h_packets) + " delivered)");
    });
}
