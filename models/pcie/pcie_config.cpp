#include "isvp/pcie_config.h"

#include <cmath>
#include <sstream>

#include "isvp/parameter_table.h"

namespace isvp {

namespace {

/// The pcie.* parameters, each once (isvp/parameter_table.h).
constexpr auto kTable = [](auto& self, auto&& parameter) {
    parameter(param::Integer{"pcie.generation", "", 1, 5,
                             "PCIe generation: 1-2 use 8b/10b at 2.5/5 GT/s, 3-5 use 128b/130b at 8/16/32 GT/s"},
              self.generation);
    parameter(param::Integer{"pcie.lanes", "lanes", 1, 16, "link width: 1, 2, 4, 8 or 16", true}, self.lanes);
    parameter(
        param::Integer{"pcie.max_payload_bytes", "B", 128, 4096, "MPS: largest write or completion TLP payload", true},
        self.max_payload_bytes);
    parameter(param::Integer{"pcie.max_read_request_bytes", "B", 128, 4096, "MRRS: largest read request", true},
              self.max_read_request_bytes);
    parameter(
        param::Integer{"pcie.tlp_overhead_bytes", "B", 0, 64, "per-TLP header, sequence number, LCRC and framing"},
        self.tlp_overhead_bytes);
    parameter(param::Real{"pcie.dllp_overhead_percent", "%", 0.0, 50.0,
                          "link bandwidth taken by ACK/NAK and UpdateFC DLLPs and ordered sets"},
              self.dllp_overhead_percent);
    parameter(param::Real{"pcie.latency_ns", "ns", 0.0, 100000.0, "one-way latency between the device and host memory"},
              self.latency_ns);
};

}  // namespace

void PcieConfig::declare(Parameters& parameters) {
    param::declare_table<PcieConfig>(parameters, kTable);
}

PcieConfig PcieConfig::from(const Parameters& parameters) {
    const PcieConfig config = param::read_table<PcieConfig>(parameters, kTable);
    config.validate();
    return config;
}

void PcieConfig::validate() const {
    param::check_table(*this, kTable);
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
