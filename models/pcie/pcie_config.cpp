#include "isvp/pcie_config.h"

#include <cmath>
#include <sstream>

namespace isvp {

void PcieConfig::declare(Parameters& parameters) {
    const PcieConfig defaults;
    parameters.declare_integer("pcie.generation", "", defaults.generation, 1, 5,
                               "PCIe generation: 1-2 use 8b/10b at 2.5/5 GT/s, 3-5 use 128b/130b at 8/16/32 GT/s");
    parameters.declare_integer("pcie.lanes", "lanes", defaults.lanes, 1, 16, "link width: 1, 2, 4, 8 or 16");
    parameters.declare_integer("pcie.max_payload_bytes", "B", defaults.max_payload_bytes, 128, 4096,
                               "MPS: largest write or completion TLP payload (power of two)");
    parameters.declare_integer("pcie.max_read_request_bytes", "B", defaults.max_read_request_bytes, 128, 4096,
                               "MRRS: largest read request (power of two)");
    parameters.declare_integer("pcie.tlp_overhead_bytes", "B", defaults.tlp_overhead_bytes, 0, 64,
                               "per-TLP header, sequence number, LCRC and framing");
    parameters.declare_real("pcie.dllp_overhead_percent", "%", defaults.dllp_overhead_percent, 0.0, 50.0,
                            "link bandwidth taken by ACK/NAK and UpdateFC DLLPs and ordered sets");
    parameters.declare_real("pcie.latency_ns", "ns", defaults.latency_ns, 0.0, 100000.0,
                            "one-way latency between the device and host memory");
}

PcieConfig PcieConfig::from(const Parameters& parameters) {
    PcieConfig config;
    config.generation = static_cast<unsigned>(parameters.integer("pcie.generation"));
    config.lanes = static_cast<unsigned>(parameters.integer("pcie.lanes"));
    config.max_payload_bytes = static_cast<unsigned>(parameters.integer("pcie.max_payload_bytes"));
    config.max_read_request_bytes = static_cast<unsigned>(parameters.integer("pcie.max_read_request_bytes"));
    config.tlp_overhead_bytes = static_cast<unsigned>(parameters.integer("pcie.tlp_overhead_bytes"));
    config.dllp_overhead_percent = parameters.real("pcie.dllp_overhead_percent");
    config.latency_ns = parameters.real("pcie.latency_ns");
    config.validate();
    return config;
}

void PcieConfig::validate() const {
    if (generation < 1 || generation > 5) refuse_parameter("pcie.generation", "an integer in [1, 5]", generation);
    if (!is_power_of_two(lanes) || lanes > 16) refuse_parameter("pcie.lanes", "one of 1, 2, 4, 8, 16 lanes", lanes);
    if (!is_power_of_two(max_payload_bytes) || max_payload_bytes < 128 || max_payload_bytes > 4096)
        refuse_parameter("pcie.max_payload_bytes", "a power of two in [128, 4096] B", max_payload_bytes);
    if (!is_power_of_two(max_read_request_bytes) || max_read_request_bytes < 128 || max_read_request_bytes > 4096)
        refuse_parameter("pcie.max_read_request_bytes", "a power of two in [128, 4096] B", max_read_request_bytes);
    if (tlp_overhead_bytes > 64) refuse_parameter("pcie.tlp_overhead_bytes", "an integer in [0, 64] B", tlp_overhead_bytes);
    if (!(dllp_overhead_percent >= 0.0 && dllp_overhead_percent <= 50.0))
        refuse_parameter("pcie.dllp_overhead_percent", "a number in [0, 50] %", dllp_overhead_percent);
    if (!(latency_ns >= 0.0 && latency_ns <= 100000.0))
        refuse_parameter("pcie.latency_ns", "a number in [0, 100000] ns", latency_ns);
}

double PcieConfig::lane_rate_gtps() const {
    static constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0};
    return kRates[generation - 1];
}

double PcieConfig::line_code_efficiency() const {
    return generation <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
}

double PcieConfig::raw_gbytes_per_s() const {
    return lane_rate_gtps() * line_code_efficiency() * lanes / 8.0;
}

double PcieConfig::tlp_gbytes_per_s() const {
    return raw_gbytes_per_s() * (1.0 - dllp_overhead_percent / 100.0);
}

PcieLinkTiming::PcieLinkTiming(const PcieConfig& config)
    : max_payload_(config.max_payload_bytes),
      max_read_request_(config.max_read_request_bytes),
      overhead_(config.tlp_overhead_bytes),
      ps_per_byte_(1000.0 / config.tlp_gbytes_per_s()),
      latency_ps_(static_cast<std::uint64_t>(std::llround(config.latency_ns * 1000.0))) {
    config.validate();
}

std::uint64_t PcieLinkTiming::tlps(std::uint64_t bytes, std::uint64_t piece) {
    return bytes == 0 ? 1 : (bytes + piece - 1) / piece;
}

std::uint64_t PcieLinkTiming::write_wire_bytes(std::uint64_t bytes) const {
    return bytes + tlps(bytes, max_payload_) * overhead_;
}

std::uint64_t PcieLinkTiming::read_request_wire_bytes(std::uint64_t bytes) const {
    return tlps(bytes, max_read_request_) * overhead_;
}

std::uint64_t PcieLinkTiming::serialisation_ps(std::uint64_t wire_bytes) const {
    return static_cast<std::uint64_t>(std::ceil(static_cast<double>(wire_bytes) * ps_per_byte_));
}

}  // namespace isvp
