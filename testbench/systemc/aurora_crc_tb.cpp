// AuroraLink CRC error handling with bit-error injection, both modes:
//   retry — every packet arrives intact and in order; each detected error
//           costs exactly a round trip plus a re-serialisation;
//   drop  — corrupted packets are discarded, counted and reported, and their
//           credits return upstream so nothing leaks;
// and the retry mode's give-up after aurora.max_retransmissions replays.
#include <cmath>
#include <string>

#include "isvp/aurora_link.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::ns;

namespace {

const sc_core::sc_time kStart(1, sc_core::SC_US);
constexpr std::uint32_t kPacketBytes = 1024;
constexpr std::uint32_t kSinkPhits = 768;

struct LinkUnderTest {
    LinkUnderTest(const std::string& name, const AuroraConfig& config)
        : source((name + "_source").c_str(), 0, 1),
          link((name + "_link").c_str(), config),
          sink((name + "_sink").c_str(), 0, 1, kSinkPhits) {
        source.out.bind(link.in);
        link.credit_out.bind(source.credit_in);
        link.out.bind(sink.in);
        sink.credit_out.bind(link.credit_in);
        sink.keep_arrivals(true);
    }
    /// `count` packets, `spacing` apart (zero: back to back).
    void send(unsigned count, const sc_core::sc_time& spacing) {
        for (unsigned i = 0; i < count; ++i)
            source.add(PacketRequest{kStart + spacing * static_cast<double>(i), 0,
                                     kPacketBytes - static_cast<std::uint32_t>(kNetworkPacketOverhead), 0});
    }
    PacketSource source;  ///< sender
    AuroraLink link;      ///< link under test
    PacketSink sink;      ///< receiver
};

/// Link drop warnings seen, and the first one's text.
struct LinkWarnings {
    unsigned count = 0;  ///< isvp/aurora warnings
    std::string first;   ///< text of the first
};
LinkWarnings* observed_warnings = nullptr;  // set once in sc_main; the handler has no context argument

void record_warnings(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (report.get_severity() == sc_core::SC_WARNING && std::string(report.get_msg_type()) == "isvp/aurora") {
        if (observed_warnings->count++ == 0) observed_warnings->first = report.get_msg();
        return;
    }
    sc_core::sc_report_handler::default_handler(report, actions);
}

}  // namespace

int sc_main(int, char**) {
    LinkWarnings warnings;
    observed_warnings = &warnings;
    sc_core::sc_report_handler::set_handler(record_warnings);

    AuroraConfig retry;
    retry.bit_error_rate = 1e-5;  // ~7.9 % of 1 KB frames are hit
    retry.on_crc_error = CrcErrorPolicy::Retry;
    retry.seed = 11;
    AuroraConfig drop = retry;
    drop.on_crc_error = CrcErrorPolicy::Drop;
    AuroraConfig give_up = retry;
    give_up.bit_error_rate = 1e-3;  // nearly every frame is hit
    give_up.max_retransmissions = 2;

    LinkUnderTest isolated("retry_isolated", retry);
    isolated.send(300, sc_core::sc_time(5, sc_core::SC_US));
    LinkUnderTest streamed("retry_stream", retry);
    streamed.send(2000, sc_core::SC_ZERO_TIME);
    LinkUnderTest dropping("drop_stream", drop);
    dropping.send(2000, sc_core::SC_ZERO_TIME);
    LinkUnderTest giving_up("retry_give_up", give_up);
    giving_up.send(50, sc_core::SC_ZERO_TIME);
    // Drops among packets of alternating sizes: the link counts delivered
    // packets per size and folds their bytes in when the size changes.
    LinkUnderTest dropping_mixed("drop_mixed", drop);
    for (unsigned i = 0; i < 600; ++i)
        dropping_mixed.source.add(PacketRequest{
            kStart, 0, (i % 3 == 0 ? 300u : kPacketBytes) - static_cast<std::uint32_t>(kNetworkPacketOverhead), 0});

    sc_core::sc_start();
    Checks checks;
    const AuroraTiming timing(retry);
    const sc_core::sc_time latency(retry.latency_ns, sc_core::SC_NS);
    const sc_core::sc_time serialisation(timing.serialisation_ns(kPacketBytes), sc_core::SC_NS);
    const sc_core::sc_time base = latency + serialisation;
    const sc_core::sc_time replay_cost = 2 * latency + serialisation;

    // Retry, isolated packets: latency = base + k x (round trip + serialisation).
    const AuroraLinkStatistics& isolated_statistics = isolated.link.statistics();
    std::uint64_t replays_seen = 0;
    bool quantised = true;
    for (const PacketArrival& arrival : isolated.sink.arrivals()) {
        const sc_core::sc_time extra = arrival.tail - arrival.injected - base;
        const auto k = static_cast<std::uint64_t>(std::llround(extra / replay_cost));
        quantised = quantised && extra == replay_cost * static_cast<double>(k);
        replays_seen += k;
    }
    checks.expect(isolated.sink.packets() == 300 && isolated.sink.errors() == 0,
                  "retry: all 300 isolated packets arrive with intact bytes (the sender's copy is never corrupted)");
    checks.expect(
        isolated_statistics.crc_errors > 0,
        "retry: errors were injected and detected (" + std::to_string(isolated_statistics.crc_errors) + " CRC errors)");
    checks.expect(isolated_statistics.retransmissions == isolated_statistics.crc_errors,
                  "retry: every detected error is replayed once");
    checks.expect(quantised,
                  "retry: each packet's latency is 440 ns + serialisation + k x (2 x 440 ns + "
                  "serialisation), k = its replays (" +
                      ns(replay_cost) + " each)");
    checks.expect(replays_seen == isolated_statistics.retransmissions,
                  "retry: the replays seen in latencies add up to the retransmission counter (" +
                      std::to_string(replays_seen) + ")");

    // Retry, streamed: in order, complete, intact.
    bool in_order = true;
    const auto& stream = streamed.sink.arrivals();
    for (std::size_t i = 1; i < stream.size(); ++i) in_order = in_order && stream[i].trace_id > stream[i - 1].trace_id;
    checks.expect(streamed.sink.packets() == 2000 && streamed.sink.errors() == 0 && in_order,
                  "retry: a 2000-packet stream arrives complete, intact and in order despite " +
                      std::to_string(streamed.link.statistics().crc_errors) + " CRC errors");
    checks.expect(streamed.link.statistics().dropped == 0, "retry: nothing is dropped");

    // Drop: discarded, counted, reported; credits come back.
    const AuroraLinkStatistics& drop_statistics = dropping.link.statistics();
    checks.expect(drop_statistics.dropped > 0 && drop_statistics.dropped == drop_statistics.crc_errors,
                  "drop: every CRC error discards its packet (" + std::to_string(drop_statistics.dropped) + ")");
    checks.expect(dropping.sink.packets() + drop_statistics.dropped == 2000,
                  "drop: delivered + dropped = sent (" + std::to_string(dropping.sink.packets()) + " + " +
                      std::to_string(drop_statistics.dropped) + ")");
    checks.expect(dropping.sink.errors() == 0, "drop: no corrupted packet is delivered");
    checks.expect(drop_statistics.retransmissions == 0, "drop: nothing is replayed");
    checks.expect(dropping.source.credits(0) == kSinkPhits, "drop: all credits are back at the sender at the end (" +
                                                                std::to_string(dropping.source.credits(0)) + " of " +
                                                                std::to_string(kSinkPhits) + " phits)");

    // Give-up: after max_retransmissions replays the packet is dropped.
    const AuroraLinkStatistics& give_up_statistics = giving_up.link.statistics();
    checks.expect(give_up_statistics.dropped > 0 && giving_up.sink.packets() + give_up_statistics.dropped == 50,
                  "retry: a packet still corrupt after aurora.max_retransmissions = 2 replays is dropped (" +
                      std::to_string(give_up_statistics.dropped) + " of 50)");
    checks.expect(give_up_statistics.retransmissions >= 2 * give_up_statistics.dropped,
                  "retry: each of those was replayed twice first");
    checks.expect(giving_up.source.credits(0) == kSinkPhits, "retry: the given-up packets' credits come back");

    const AuroraLinkStatistics mixed_statistics = dropping_mixed.link.statistics();
    checks.expect(mixed_statistics.dropped > 0 && mixed_statistics.packets == dropping_mixed.sink.packets() &&
                      mixed_statistics.packets + mixed_statistics.dropped == 600 &&
                      mixed_statistics.bytes == dropping_mixed.sink.bytes(),
                  "drop, two sizes: the link counts the delivered packets and bytes only (" +
                      std::to_string(mixed_statistics.packets) + " packets, " + std::to_string(mixed_statistics.bytes) +
                      " bytes; the sink got " + std::to_string(dropping_mixed.sink.packets()) + ", " +
                      std::to_string(dropping_mixed.sink.bytes()) + "; " + std::to_string(mixed_statistics.dropped) +
                      " dropped)");

    checks.expect(warnings.count == drop_statistics.dropped + give_up_statistics.dropped + mixed_statistics.dropped,
                  "every drop is reported with SC_REPORT_WARNING (" + std::to_string(warnings.count) + ")");
    checks.expect(warnings.first.find("dropped packet") != std::string::npos &&
                      warnings.first.find("credits go back upstream") != std::string::npos,
                  "the report says what happened: " + warnings.first);
    return checks.finish();
}
