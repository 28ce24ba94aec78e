// QDMA interrupts through the PCIe endpoint's MSI-X table: CMPT coalescing by
// count and by timer (interrupt times checked against the packet that
// triggered them), arming and disarming, H2C SDI interrupts, MSI-X masking
// with the pending bit and delivery on unmask, and the error interrupt.
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

namespace {

constexpr std::size_t kMemoryBytes = 32u << 20;
constexpr unsigned kH2cVector = 1;
constexpr unsigned kCmptVector = 2;
constexpr unsigned kErrorVector = 5;

}  // namespace

int sc_main(int, char**) {
    Checker check;
    const PcieConfig pcie;
    const PcieLinkTiming timing(pcie);
    Platform platform(pcie, QdmaConfig{}, kMemoryBytes);
    Host& host = platform.host;
    TestQueue queue(platform, 0, 0);
    const sc_core::sc_time latency = ns(pcie.latency_ns);
    const sc_core::sc_time msi_wire =
        sc_core::sc_time(static_cast<double>(timing.serialisation_ps(28)), sc_core::SC_PS);

    // Sends a 64-byte message; returns when its packet has left the QDMA,
    // with the time its tail reached the QDMA's rx.
    auto send_one = [&](std::uint32_t seed, bool sdi = false, bool arm = false) {
        const std::size_t before = platform.loopback.captured.size();
        queue.send(send_header(64, 0, 0), pattern(64, seed), regmap::kMaxDescriptorBytes, sdi, arm);
        while (platform.loopback.captured.size() == before) sc_core::wait(ns(10));
        const auto& packet = platform.loopback.captured.back();
        return packet.head + packet.tail_after;
    };
    auto messages = [&](unsigned vector) { return platform.msi.with_data(vector); };
    auto settle = [&] { sc_core::wait(ns(5000)); };

    return run(platform, check, [&] {
        QueueSetup setup;
        setup.cmpt_irq = true;
        setup.cmpt_vector = kCmptVector;
        setup.h2c_irq = true;
        setup.h2c_vector = kH2cVector;
        setup.coalesce = regmap::coalesce::COUNT.make(4);
        queue.enable(setup);
        queue.post_buffers(60);
        platform.program_msix(kH2cVector);
        platform.program_msix(kCmptVector);
        // Warm-up: the first packet also fetches the C2H descriptors.
        send_one(0);
        queue.wait_completions(1);
        queue.take_completion(*queue.peek_completion());
        queue.ring_cmpt(true);  // consumed everything, armed
        settle();
        check.expect(messages(kCmptVector).empty(), "an armed queue with everything consumed stays quiet");

        check.section("coalescing by count (COUNT = 4)");
        for (std::uint32_t i = 1; i <= 3; ++i) {
            send_one(i);
            sc_core::wait(ns(2000));
        }
        settle();
        check.expect(messages(kCmptVector).empty(), "three completions raise no interrupt");
        const sc_core::sc_time fourth = send_one(4);
        settle();
        const auto after_four = messages(kCmptVector);
        check.expect(after_four.size() == 1, "the fourth completion raises exactly one interrupt");
        if (after_four.size() == 1) {
            const sc_core::sc_time lag = after_four[0].at - fourth;
            check.expect(lag >= latency && lag <= latency + ns(30),
                         "... right after its completion entry: " + lag.to_string() +
                             " after the packet's tail (900 ns link + serialisation)");
        }
        for (std::uint32_t i = 5; i <= 8; ++i) send_one(i);
        settle();
        check.expect(messages(kCmptVector).size() == 1, "firing disarms: four more completions stay quiet");
        queue.wait_completions(8);
        for (int i = 0; i < 4; ++i) queue.take_completion(*queue.peek_completion());
        sc_core::sc_time armed_at = sc_core::sc_time_stamp();
        queue.ring_cmpt(true);  // CIDX past the first four, arm: four un-signalled are due
        settle();
        const auto after_arm = messages(kCmptVector);
        check.expect(after_arm.size() == 2 && after_arm.back().at == armed_at + latency + msi_wire + latency,
                     "re-arming with a due count fires at once: doorbell 900 ns + MSI 900 ns");
        for (int i = 0; i < 4; ++i) queue.take_completion(*queue.peek_completion());
        queue.ring_cmpt(true);
        settle();
        check.expect(messages(kCmptVector).size() == 2, "arming after consuming everything fires nothing");

        check.section("coalescing by timer (COUNT = 16, TIMER = 10 ticks = 640 ns)");
        host.write32(queue.reg(regmap::CMPT_COALESCE),
                     regmap::coalesce::COUNT.make(16) | regmap::coalesce::TIMER.make(10));
        sc_core::wait(ns(1000));
        const sc_core::sc_time single = send_one(20);
        settle();
        const auto timed = messages(kCmptVector);
        check.expect(timed.size() == 3, "one completion under the count still interrupts by timer");
        if (timed.size() == 3) {
            const sc_core::sc_time lag = timed.back().at - single;
            check.expect(lag >= ns(640) + latency && lag <= ns(640) + latency + ns(30),
                         "... 640 ns after the entry, plus the link: " + lag.to_string());
        }
        queue.take_completion(*queue.peek_completion());
        queue.ring_cmpt(true);
        sc_core::wait(ns(2000));
        const sc_core::sc_time first = send_one(21);
        send_one(22);
        settle();
        const auto two = messages(kCmptVector);
        check.expect(two.size() == 4, "two completions inside the timer window share one interrupt");
        if (two.size() == 4) {
            const sc_core::sc_time lag = two.back().at - first;
            check.expect(lag >= ns(640) + latency && lag <= ns(640) + latency + ns(30),
                         "... timed from the first un-signalled entry: " + lag.to_string());
        }
        for (int i = 0; i < 2; ++i) queue.take_completion(*queue.peek_completion());
        queue.ring_cmpt(false);

        check.section("H2C SDI interrupts");
        send_one(30, true, true);
        settle();
        check.expect(messages(kH2cVector).size() == 1, "an SDI descriptor on an armed queue interrupts once");
        send_one(31, false, true);
        settle();
        check.expect(messages(kH2cVector).size() == 1, "a descriptor without SDI does not interrupt, even armed");
        send_one(32, true, false);
        settle();
        check.expect(messages(kH2cVector).size() == 2, "the arm stays until an SDI descriptor fires it");
        send_one(33, true, false);
        settle();
        check.expect(messages(kH2cVector).size() == 2, "an SDI after the interrupt fired waits for the arm");
        armed_at = sc_core::sc_time_stamp();
        queue.ring_h2c(true);
        settle();
        check.expect(messages(kH2cVector).size() == 3 &&
                         messages(kH2cVector).back().at == armed_at + latency + msi_wire + latency,
                     "... and arming delivers it at once");
        check.expect(queue.h2c_writeback().cidx == queue.h2c_pidx(), "the H2C writeback shows every descriptor done");
        queue.wait_completions(4);
        for (int i = 0; i < 4; ++i) queue.take_completion(*queue.peek_completion());
        queue.ring_cmpt(false);

        check.section("MSI-X masking");
        host.write32(queue.reg(regmap::CMPT_COALESCE), 0);  // every entry
        host.write32(regmap::MSIX_ENTRY(kCmptVector) + regmap::MSIX_VECTOR_CONTROL, 1);
        queue.ring_cmpt(true);
        sc_core::wait(ns(2000));
        const std::size_t before_mask = messages(kCmptVector).size();
        send_one(40);
        settle();
        check.expect(messages(kCmptVector).size() == before_mask, "a masked vector sends nothing");
        check.expect(host.read32(regmap::MSIX_PBA) == (1u << kCmptVector), "its PBA bit is set");
        const sc_core::sc_time unmasked = sc_core::sc_time_stamp();
        host.write32(regmap::MSIX_ENTRY(kCmptVector) + regmap::MSIX_VECTOR_CONTROL, 0);
        settle();
        check.expect(messages(kCmptVector).size() == before_mask + 1 &&
                         messages(kCmptVector).back().at == unmasked + latency + msi_wire + latency,
                     "unmasking delivers the pending interrupt once, when the unmask arrives");
        check.expect(host.read32(regmap::MSIX_PBA) == 0, "the PBA bit clears on delivery");

        check.section("error interrupt");
        host.write32(regmap::ERROR_MSIX, kErrorVector);
        host.write32(regmap::ERROR_IRQ_ENABLE, regmap::error_status::BAD_DOORBELL);
        platform.program_msix(kErrorVector);
        sc_core::wait(ns(2000));
        const sc_core::sc_time rung = sc_core::sc_time_stamp();
        host.write32(regmap::DOORBELL(9) + regmap::H2C_PIDX, 1);  // queue 9 is disabled
        settle();
        check.expect(messages(kErrorVector).size() == 1 &&
                         messages(kErrorVector).back().at == rung + latency + msi_wire + latency,
                     "a doorbell on a disabled queue raises ERROR_MSIX when BAD_DOORBELL is enabled");
        host.write32(regmap::ERROR_IRQ_ENABLE, 0);
        host.write32(regmap::DOORBELL(10) + regmap::H2C_PIDX, 1);
        settle();
        check.expect(messages(kErrorVector).size() == 1, "with ERROR_IRQ_ENABLE clear, errors raise nothing");
        check.expect(platform.qdma.statistics().interrupts == platform.endpoint.statistics().msi_messages,
                     "every interrupt the QDMA raised reached the host as one MSI");
    });
}
