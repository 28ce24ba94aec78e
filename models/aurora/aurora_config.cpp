#include <cmath>
#include <cstdint>
#include <sstream>

#include "isvp/aurora_config.h"
#include "isvp/parameter_table.h"

namespace isvp {

namespace {

constexpr unsigned kMaxLanes = 16;
constexpr unsigned kMinFrameBytes = 8;
constexpr unsigned kMaxFrameBytes = 1u << 20;
constexpr unsigned kMaxRetransmissions = 1000;

/// The aurora.* parameters, each once (isvp/parameter_table.h).
const auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Integer{"aurora.lanes", "lanes", 1, kMaxLanes, "serial lanes bonded into one Aurora channel"},
              self.lanes);
    parameter(param::Real{"aurora.lane_rate_gbps", "Gb/s", 0.1, 1000.0, "line rate of one lane (64B/66B coded)"},
              self.lane_rate_gbps);
    parameter(param::Real{"aurora.latency_ns", "ns", 0.0, 1e6, "FPGA-to-FPGA latency, serialisation excluded"},
              self.latency_ns);
    parameter(param::Real{"aurora.peak_payload_gbps", "Gb/s", 0.1, 10000.0,
                          "payload rate of full frames; sets the per-frame overhead"},
              self.peak_payload_gbps);
    parameter(param::Integer{"aurora.max_frame_bytes", "bytes", kMinFrameBytes, kMaxFrameBytes,
                             "user bytes per Aurora frame at most (longer packets span frames)"},
              self.max_frame_bytes);
    parameter(param::Real{"aurora.bit_error_rate", "1/bit", 0.0, 0.5,
                          "probability that a wire bit flips (error injection; 0 = off)"},
              self.bit_error_rate);
    parameter(param::Choice<CrcErrorPolicy>{"aurora.on_crc_error",
                                            {{"retry", CrcErrorPolicy::Retry}, {"drop", CrcErrorPolicy::Drop}},
                                            "on a CRC mismatch: replay from the sender (retry) or discard (drop)"},
              self.on_crc_error);
    parameter(param::Integer{"aurora.max_retransmissions", "replays", 1, kMaxRetransmissions,
                             "replays of one packet before the link drops it (retry mode)"},
              self.max_retransmissions);
    parameter(param::Integer{"aurora.seed", "", 0, INT64_MAX,
                             "seed of the bit-error generators; each link derives its own stream"},
              self.seed);
    parameter(param::Choice<bool>{"aurora.crc",
                                  {{"auto", false}, {"always", true}},
                                  "CRC-32 per frame: auto = only when bit errors are injected (nothing else can "
                                  "fail), always = on every frame"},
              self.crc_always);
};

}  // namespace

std::string to_string(CrcErrorPolicy policy) {
    return policy == CrcErrorPolicy::Retry ? "retry" : "drop";
}

void AuroraConfig::declare(Parameters& parameters) {
    param::declare_table<AuroraConfig>(parameters, kTable);
}

AuroraConfig AuroraConfig::from(const Parameters& parameters) {
    const AuroraConfig config = param::read_table<AuroraConfig>(parameters, kTable);
    config.validate();
    return config;
}

void AuroraConfig::validate() const {
    param::check_table(*this, kTable);
    // Between parameters: full frames cannot carry more than the data rate.
    if (!(peak_payload_gbps < data_rate_gbps())) {
        std::ostringstream accepted;
        accepted << "positive and below the 64B/66B data rate of " << data_rate_gbps()
                 << " Gb/s (aurora.lanes x aurora.lane_rate_gbps x 64/66)";
        refuse_parameter("aurora.peak_payload_gbps", accepted.str(), peak_payload_gbps);
    }
}

AuroraTiming::AuroraTiming(const AuroraConfig& config)
    : data_rate_gbps_(config.data_rate_gbps()),
      frame_overhead_bytes_(config.max_frame_bytes * (config.data_rate_gbps() / config.peak_payload_gbps - 1.0)),
      max_frame_bytes_(config.max_frame_bytes) {
    config.validate();
}

std::uint64_t AuroraTiming::frames(std::uint64_t bytes) const {
    return bytes == 0 ? 1 : (bytes + max_frame_bytes_ - 1) / max_frame_bytes_;
}

double AuroraTiming::serialisation_ns(std::uint64_t bytes) const {
    const double wire_bytes = static_cast<double>(bytes) + static_cast<double>(frames(bytes)) * frame_overhead_bytes_;
    return wire_bytes * 8.0 / data_rate_gbps_;
}

double AuroraTiming::streamed_bandwidth_gbps(std::uint64_t bytes) const {
    return static_cast<double>(bytes) * 8.0 / serialisation_ns(bytes);
}

}  // namespace isvp
