// AuroraLink timing against its parameters: single-packet latency (440 ns +
// serialisation), streamed bandwidth (>= 90 % of 95.9 Gb/s for 64 KB),
// saturation just under 1 KB, credit return latency, statistics.
// Each behaviour has its own link between a PacketSource and a PacketSink.
#include <iomanip>
#include <memory>
#include <vector>

#include "isvp/aurora_link.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::ns;

namespace {

const sc_core::sc_time kStart(1, sc_core::SC_US);  // after the sink's initial credits crossed the link

/// Source -> link -> sink.
struct LinkUnderTest {
    LinkUnderTest(const std::string& name, const AuroraConfig& config, std::uint32_t sink_buffer_phits)
        : source((name + "_source").c_str(), 0, 1),
          link((name + "_link").c_str(), config),
          sink((name + "_sink").c_str(), 0, 1, sink_buffer_phits) {
        source.out.bind(link.in);
        link.credit_out.bind(source.credit_in);
        link.out.bind(sink.in);
        sink.credit_out.bind(link.credit_in);
        sink.keep_arrivals(true);
    }
    /// Queues `count` back-to-back packets of `bytes` bytes in total each.
    void stream(unsigned count, std::uint32_t bytes) {
        for (unsigned i = 0; i < count; ++i)
            source.add(PacketRequest{kStart, 0, bytes - static_cast<std::uint32_t>(kNetworkPacketOverhead), 0});
    }
    /// Rate of packet bytes (the link's user data): first head in -> last
    /// tail out, less the latency.
    double bandwidth_gbps() const {
        const sc_core::sc_time span =
            sink.last_tail() - kStart - sc_core::sc_time(link.config().latency_ns, sc_core::SC_NS);
        return static_cast<double>(sink.bytes()) * 8.0 / (span.to_seconds() * 1e9);
    }

    PacketSource source;  ///< upstream router stand-in
    AuroraLink link;      ///< the link under test
    PacketSink sink;      ///< downstream router stand-in
};

}  // namespace

int sc_main(int, char**) {
    const AuroraConfig config;  // defaults: 4 x 25.78125 Gb/s, 440 ns, 95.9 Gb/s, 992-byte frames
    const AuroraTiming timing(config);
    const double peak = config.peak_payload_gbps;

    // Single packets, far apart: one frame (82 bytes) and two frames (2000 bytes).
    LinkUnderTest single("single", config, 768);
    single.source.add(PacketRequest{kStart, 0, 64, 0});
    single.source.add(PacketRequest{kStart + sc_core::sc_time(5, sc_core::SC_US), 0, 2000 - 18, 0});

    // Streams: 64 KB as 64 packets of 1 KB, as one 64 KB packet, and 64 KB of
    // full 992-byte frames.
    LinkUnderTest stream_1k("stream_1k", config, 768);
    stream_1k.stream(64, 1024);
    LinkUnderTest stream_64k("stream_64k", config, 4096);
    stream_64k.stream(1, 65536);
    LinkUnderTest stream_frames("stream_frames", config, 768);
    stream_frames.stream(66, 992);
    // Sizes that change, come back and change again: the link counts packets
    // per size and keeps the last two sizes' serialisation times.
    LinkUnderTest mixed("mixed", config, 768);
    const std::vector<std::uint32_t> mixed_sizes{256, 256, 1024, 256, 1024, 1024, 2000, 256, 2000, 82};
    for (const std::uint32_t bytes : mixed_sizes) mixed.stream(1, bytes);

    // Bandwidth against packet size.
    const std::vector<std::uint32_t> sizes = {64, 128, 256, 512, 768, 896, 960, 992, 1024, 1984, 4096};
    std::vector<std::unique_ptr<LinkUnderTest>> sweep;
    for (std::uint32_t bytes : sizes) {
        sweep.push_back(std::make_unique<LinkUnderTest>("sweep_" + std::to_string(bytes), config, 768));
        sweep.back()->stream(std::max(64u, 65536 / bytes), bytes);
    }

    // Credits: a sink with room for one packet makes the source wait for the
    // credit to come back across the link.
    LinkUnderTest credit("credit", config, 4);
    credit.stream(2, 128);

    sc_core::sc_start();
    Checks checks;
    const sc_core::sc_time latency(config.latency_ns, sc_core::SC_NS);

    const auto& arrivals = single.sink.arrivals();
    if (checks.expect(arrivals.size() == 2, "both single packets arrive")) {
        const sc_core::sc_time expected_82 = latency + sc_core::sc_time(timing.serialisation_ns(82), sc_core::SC_NS);
        checks.expect(arrivals[0].tail - arrivals[0].injected == expected_82,
                      "an 82-byte packet takes 440 ns + serialisation = " + ns(expected_82) + " (got " +
                          ns(arrivals[0].tail - arrivals[0].injected) + ")");
        checks.expect(std::abs(timing.serialisation_ns(82) - (82 + 992 * (100 / 95.9 - 1)) * 8 / 100) < 1e-9,
                      "its serialisation is (82 bytes + one 42.41-byte frame overhead) at 100 Gb/s");
        const sc_core::sc_time expected_2000 =
            latency + sc_core::sc_time(timing.serialisation_ns(2000), sc_core::SC_NS);
        checks.expect(arrivals[1].tail - arrivals[1].injected == expected_2000,
                      "a 2000-byte packet (3 frames) takes 440 ns + serialisation = " + ns(expected_2000) + " (got " +
                          ns(arrivals[1].tail - arrivals[1].injected) + ")");
        checks.expect(single.sink.errors() == 0, "single packets arrive with intact bytes");
    }

    const double bandwidth_1k = stream_1k.bandwidth_gbps();
    checks.expect(stream_1k.sink.packets() == 64 && stream_1k.sink.errors() == 0,
                  "64 KB in 1 KB packets all arrive intact");
    checks.expect(bandwidth_1k >= 0.9 * peak, "64 KB in 1 KB packets stream at >= 90 % of 95.9 Gb/s (got " +
                                                  std::to_string(bandwidth_1k) + " Gb/s)");
    const double bandwidth_64k = stream_64k.bandwidth_gbps();
    checks.expect(bandwidth_64k >= 0.9 * peak,
                  "one 64 KB packet streams at >= 90 % of 95.9 Gb/s (got " + std::to_string(bandwidth_64k) + " Gb/s)");
    const double bandwidth_frames = stream_frames.bandwidth_gbps();
    checks.expect(
        std::abs(bandwidth_frames - peak) < 0.01 * peak,
        "full 992-byte frames stream at the 95.9 Gb/s peak (got " + std::to_string(bandwidth_frames) + " Gb/s)");

    std::cout << "  packet bytes   Gb/s   % of peak\n";
    std::uint32_t saturation = 0;
    double previous = 0;
    bool rising = true;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double bandwidth = sweep[i]->bandwidth_gbps();
        std::cout << "  " << std::setw(12) << sizes[i] << std::setw(8) << std::fixed << std::setprecision(2)
                  << bandwidth << std::setw(9) << 100 * bandwidth / peak << "\n";
        if (sizes[i] <= 992) {
            rising = rising && bandwidth > previous;
            previous = bandwidth;
        }
        if (saturation == 0 && bandwidth >= 0.99 * peak) saturation = sizes[i];
    }
    checks.expect(rising, "streamed bandwidth rises with packet size up to one frame (992 bytes)");
    checks.expect(sweep[0]->bandwidth_gbps() < 0.65 * peak, "64-byte packets stay well below the peak");
    checks.expect(
        saturation > 512 && saturation < 1024,
        "bandwidth saturates (>= 99 % of peak) just under 1 KB: from " + std::to_string(saturation) + " bytes");

    const auto& credited = credit.sink.arrivals();
    if (checks.expect(credited.size() == 2, "both packets arrive through a one-packet sink buffer")) {
        checks.expect(credited[1].injected == credited[0].tail + latency,
                      "the second packet leaves when the first one's credits are back: tail + 440 ns (" +
                          ns(credited[1].injected) + ")");
    }

    const AuroraLinkStatistics mixed_statistics = mixed.link.statistics();
    std::uint64_t mixed_bytes = 0;
    double mixed_busy_ns = 0;
    for (const std::uint32_t bytes : mixed_sizes) {
        mixed_bytes += bytes;
        mixed_busy_ns += timing.serialisation_ns(bytes);
    }
    checks.expect(mixed.sink.packets() == mixed_sizes.size() && mixed.sink.errors() == 0 &&
                      mixed_statistics.packets == mixed_sizes.size() && mixed_statistics.bytes == mixed_bytes,
                  "packets of changing sizes: statistics count " + std::to_string(mixed_statistics.packets) +
                      " packets, " + std::to_string(mixed_statistics.bytes) + " bytes (want " +
                      std::to_string(mixed_sizes.size()) + ", " + std::to_string(mixed_bytes) + ")");
    checks.expect(std::abs(mixed_statistics.busy_time.to_seconds() * 1e9 - mixed_busy_ns) < 1e-3 * mixed_sizes.size(),
                  "packets of changing sizes: busy time is the sum of their serialisations (" +
                      ns(mixed_statistics.busy_time) + ")");
    const AuroraLinkStatistics& statistics = stream_1k.link.statistics();
    checks.expect(statistics.packets == 64 && statistics.bytes == 65536, "statistics count 64 packets, 65536 bytes");
    const sc_core::sc_time busy(64 * timing.serialisation_ns(1024), sc_core::SC_NS);
    checks.expect(std::abs((statistics.busy_time - busy).to_seconds()) < 1e-12 * 64,
                  "busy time is 64 serialisations of 1 KB (" + ns(statistics.busy_time) + ")");
    const sc_core::sc_time streaming = stream_1k.sink.last_tail() - kStart - latency;
    checks.expect(
        stream_1k.link.utilisation(streaming) > 0.999,
        "utilisation while streaming is 100 % (" + std::to_string(stream_1k.link.utilisation(streaming)) + ")");
    checks.expect(statistics.crc_errors == 0 && statistics.retransmissions == 0 && statistics.dropped == 0,
                  "no errors without error injection");
    return checks.finish();
}
