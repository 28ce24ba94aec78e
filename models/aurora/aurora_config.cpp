#include <cmath>
#include <sstream>

#include "isvp/aurora_config.h"

namespace isvp {

namespace {

constexpr unsigned kMaxLanes = 16;
constexpr unsigned kMinFrameBytes = 8;
constexpr unsigned kMaxFrameBytes = 1u << 20;
constexpr unsigned kMaxRetransmissions = 1000;

[[noreturn]] void reject(const std::string& name, const std::string& accepted, double got) {
    std::ostringstream message;
    message << "config: " << name << " must be " << accepted << ", got " << got;
    throw ConfigError(message.str());
}

}  // namespace

std::string to_string(CrcErrorPolicy policy) {
    return policy == CrcErrorPolicy::Retry ? "retry" : "drop";
}

void AuroraConfig::declare(Parameters& parameters) {
    const AuroraConfig defaults;
    parameters.declare_integer("aurora.lanes", "lanes", defaults.lanes, 1, kMaxLanes,
                               "serial lanes bonded into one Aurora channel");
    parameters.declare_real("aurora.lane_rate_gbps", "Gb/s", defaults.lane_rate_gbps, 0.1, 1000.0,
                            "line rate of one lane (64B/66B coded)");
    parameters.declare_real("aurora.latency_ns", "ns", defaults.latency_ns, 0.0, 1e6,
                            "FPGA-to-FPGA latency, serialisation excluded");
    parameters.declare_real("aurora.peak_payload_gbps", "Gb/s", defaults.peak_payload_gbps, 0.1, 10000.0,
                            "payload rate of full frames; sets the per-frame overhead");
    parameters.declare_integer("aurora.max_frame_bytes", "bytes", defaults.max_frame_bytes, kMinFrameBytes,
                               kMaxFrameBytes, "user bytes per Aurora frame at most (longer packets span frames)");
    parameters.declare_real("aurora.bit_error_rate", "1/bit", defaults.bit_error_rate, 0.0, 0.5,
                            "probability that a wire bit flips (error injection; 0 = off)");
    parameters.declare_choice("aurora.on_crc_error", to_string(defaults.on_crc_error), {"retry", "drop"},
                              "on a CRC mismatch: replay from the sender (retry) or discard (drop)");
    parameters.declare_integer("aurora.max_retransmissions", "replays", defaults.max_retransmissions, 1,
                               kMaxRetransmissions, "replays of one packet before the link drops it (retry mode)");
    parameters.declare_integer("aurora.seed", "", static_cast<std::int64_t>(defaults.seed), 0, INT64_MAX,
                               "seed of the bit-error generators; each link derives its own stream");
    parameters.declare_choice("aurora.crc", defaults.crc_always ? "always" : "auto", {"auto", "always"},
                              "CRC-32 per frame: auto = only when bit errors are injected (nothing else can fail), "
                              "always = on every frame");
}

AuroraConfig AuroraConfig::from(const Parameters& parameters) {
    AuroraConfig config;
    config.lanes = static_cast<unsigned>(parameters.integer("aurora.lanes"));
    config.lane_rate_gbps = parameters.real("aurora.lane_rate_gbps");
    config.latency_ns = parameters.real("aurora.latency_ns");
    config.peak_payload_gbps = parameters.real("aurora.peak_payload_gbps");
    config.max_frame_bytes = static_cast<unsigned>(parameters.integer("aurora.max_frame_bytes"));
    config.bit_error_rate = parameters.real("aurora.bit_error_rate");
    config.on_crc_error =
        parameters.text("aurora.on_crc_error") == "drop" ? CrcErrorPolicy::Drop : CrcErrorPolicy::Retry;
    config.max_retransmissions = static_cast<unsigned>(parameters.integer("aurora.max_retransmissions"));
    config.seed = static_cast<std::uint64_t>(parameters.integer("aurora.seed"));
    config.crc_always = parameters.text("aurora.crc") == "always";
    config.validate();
    return config;
}

void AuroraConfig::validate() const {
    if (lanes < 1 || lanes > kMaxLanes) reject("aurora.lanes", "an integer in [1, 16] lanes", lanes);
    if (!(lane_rate_gbps >= 0.1 && lane_rate_gbps <= 1000.0))
        reject("aurora.lane_rate_gbps", "a number in [0.1, 1000] Gb/s", lane_rate_gbps);
    if (!(latency_ns >= 0.0 && latency_ns <= 1e6)) reject("aurora.latency_ns", "a number in [0, 1e6] ns", latency_ns);
    if (max_frame_bytes < kMinFrameBytes || max_frame_bytes > kMaxFrameBytes)
        reject("aurora.max_frame_bytes", "an integer in [8, 1048576] bytes", max_frame_bytes);
    if (!(bit_error_rate >= 0.0 && bit_error_rate <= 0.5))
        reject("aurora.bit_error_rate", "a probability in [0, 0.5] per bit", bit_error_rate);
    if (max_retransmissions < 1 || max_retransmissions > kMaxRetransmissions)
        reject("aurora.max_retransmissions", "an integer in [1, 1000]", max_retransmissions);
    if (!(peak_payload_gbps > 0.0 && peak_payload_gbps < data_rate_gbps())) {
        std::ostringstream message;
        message << "config: aurora.peak_payload_gbps must be positive and below the 64B/66B data rate of "
                << data_rate_gbps() << " Gb/s (aurora.lanes x aurora.lane_rate_gbps x 64/66), got "
                << peak_payload_gbps;
        throw ConfigError(message.str());
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
