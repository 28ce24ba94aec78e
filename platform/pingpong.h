// The ping-pong benchmark as guest code, OSU style: one-way latency is half
// the average round trip of `iterations` ping-pongs; bandwidth is streamed
// (osu_bw): `window` messages back to back, then a 4-byte acknowledgement,
// bytes over the time of the whole window. Both run after warm-up rounds.
#pragma once

#include <cstdint>
#include <vector>

#include "isvp/driver.h"

namespace isvp::bench {

struct PingPongOptions {
    std::vector<std::uint64_t> sizes;  ///< message sizes, bytes
    unsigned iterations = 10;          ///< timed ping-pongs per size
    unsigned warmup = 2;               ///< untimed ping-pongs per size
    unsigned window = 64;              ///< messages per streamed-bandwidth window (osu_bw's default)
};

struct PingPongRow {
    std::uint64_t bytes = 0;
    double latency_us = 0;      ///< one-way, simulated
    double bandwidth_gbps = 0;  ///< streamed, simulated, payload bits per second
};

/// Runs the benchmark between ranks `initiator` and `responder`; every other
/// rank returns at once. The initiator gets the rows, the others nothing.
std::vector<PingPongRow> run_pingpong(guest::Driver& driver, guest::DeviceTransport& transport, int initiator,
                                      int responder, const PingPongOptions& options);

}  // namespace isvp::bench
