#include "pingpong.h"

#include <algorithm>

namespace isvp::bench {

namespace {
constexpr std::uint32_t kPingTag = 1;
constexpr std::uint32_t kStreamTag = 2;
constexpr std::uint32_t kAckTag = 3;
}  // namespace

std::vector<PingPongRow> run_pingpong(guest::Driver& driver, guest::DeviceTransport& transport, int initiator,
                                      int responder, const PingPongOptions& options) {
    std::vector<PingPongRow> rows;
    const int me = transport.rank();
    if (me != initiator && me != responder) return rows;
    const int peer = me == initiator ? responder : initiator;
    const std::uint64_t largest =
        options.sizes.empty() ? 0 : *std::max_element(options.sizes.begin(), options.sizes.end());
    std::vector<std::uint8_t> buffer(largest);
    for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>(i * 131 + me);
    std::uint32_t ack = 0;

    for (const std::uint64_t bytes : options.sizes) {
        // Ping-pong: latency.
        std::uint64_t start = 0;
        for (unsigned round = 0; round < options.warmup + options.iterations; ++round) {
            if (round == options.warmup) start = transport.now_ps();
            if (me == initiator) {
                driver.send(peer, kPingTag, buffer.data(), bytes);
                driver.receive(peer, kPingTag, buffer.data(), bytes);
            } else {
                driver.receive(peer, kPingTag, buffer.data(), bytes);
                driver.send(peer, kPingTag, buffer.data(), bytes);
            }
        }
        const std::uint64_t pingpong_ps = transport.now_ps() - start;

        // Streamed window: bandwidth.
        std::uint64_t stream_start = transport.now_ps();
        for (unsigned round = 0; round < 2; ++round) {  // round 0 warms up
            if (round == 1) stream_start = transport.now_ps();
            if (me == initiator) {
                for (unsigned m = 0; m < options.window; ++m) driver.send(peer, kStreamTag, buffer.data(), bytes);
                driver.receive(peer, kAckTag, &ack, sizeof ack);
            } else {
                for (unsigned m = 0; m < options.window; ++m) driver.receive(peer, kStreamTag, buffer.data(), bytes);
                driver.send(peer, kAckTag, &ack, sizeof ack);
            }
        }
        const std::uint64_t stream_ps = transport.now_ps() - stream_start;

        if (me == initiator) {
            PingPongRow row;
            row.bytes = bytes;
            row.latency_us = options.iterations ? pingpong_ps / 1e6 / (2.0 * options.iterations) : 0;
            row.bandwidth_gbps = stream_ps ? 8.0 * bytes * options.window / (stream_ps * 1e-12) / 1e9 : 0;
            rows.push_back(row);
        }
    }
    return rows;
}

}  // namespace isvp::bench
