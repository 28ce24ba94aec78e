// PCIe link parameters and the link's timing arithmetic (SystemC-free).
//
// The link is Gen3 x16 by default (DESIGN §3.2): 8 GT/s per lane, 128b/130b
// line code => 15.75 GB/s raw per direction. Of that, a share goes to the
// data-link layer (ACK/NAK and UpdateFC DLLPs, SKP ordered sets); the rest
// carries TLPs. Each TLP costs `tlp_overhead_bytes` of header, sequence
// number, LCRC and framing on top of its payload; writes and read completions
// are cut at MPS, read requests at MRRS. The timing functions here turn a
// transfer into wire bytes and picoseconds; the PcieEndpoint shell schedules
// them on the two link directions.
#pragma once

#include <cstdint>

#include "isvp/parameters.h"

namespace isvp {

/// Parameters of one PCIe link (see models/pcie/README.md).
struct PcieConfig {
    unsigned generation = 3;                ///< PCIe generation 1..5: lane rate and line code
    unsigned lanes = 16;                    ///< link width: 1, 2, 4, 8 or 16 lanes
    unsigned max_payload_bytes = 256;       ///< MPS: largest write/completion TLP payload, bytes
    unsigned max_read_request_bytes = 512;  ///< MRRS: largest read request, bytes
    unsigned tlp_overhead_bytes = 24;       ///< header + sequence + LCRC + framing per TLP, bytes
    double dllp_overhead_percent = 10.0;    ///< link bandwidth taken by DLLPs and ordered sets, %
    double latency_ns = 900.0;              ///< one-way latency device <-> host memory, ns

    /// Declares the pcie.* parameters with their defaults, units and ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates the pcie.* parameters.
    static PcieConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;

    /// Transfer rate of one lane, GT/s (2.5, 5, 8, 16, 32).
    double lane_rate_gtps() const;
    /// Payload bits per line bit: 8/10 (Gen1-2) or 128/130 (Gen3+).
    double line_code_efficiency() const;
    /// Raw bandwidth per direction after the line code, GB/s (10^9 bytes/s).
    double raw_gbytes_per_s() const;
    /// Bandwidth left for TLPs after the data-link layer's share, GB/s.
    double tlp_gbytes_per_s() const;
};

/// Timing arithmetic of one link direction. Times in picoseconds.
class PcieLinkTiming {
  public:
    explicit PcieLinkTiming(const PcieConfig& config);

    /// TLPs needed to move `bytes` in pieces of at most `piece` (at least one).
    static std::uint64_t tlps(std::uint64_t bytes, std::uint64_t piece);
    /// Wire bytes of a posted write (or of the completions of a read) of `bytes`.
    std::uint64_t write_wire_bytes(std::uint64_t bytes) const;
    /// Wire bytes of the read requests for a read of `bytes` (headers only).
    std::uint64_t read_request_wire_bytes(std::uint64_t bytes) const;
    /// Wire bytes of one header-only TLP (a read request, an MMIO read, ...).
    std::uint64_t header_only_wire_bytes() const { return overhead_; }
    /// Time to serialise `wire_bytes` on one direction, rounded up to 1 ps.
    std::uint64_t serialisation_ps(std::uint64_t wire_bytes) const;
    /// One-way latency.
    std::uint64_t latency_ps() const { return latency_ps_; }

  private:
    std::uint64_t max_payload_;       ///< MPS, bytes
    std::uint64_t max_read_request_;  ///< MRRS, bytes
    std::uint64_t overhead_;          ///< per-TLP overhead, bytes
    double ps_per_byte_;              ///< serialisation time of one wire byte
    std::uint64_t latency_ps_;        ///< one-way latency
};

}  // namespace isvp
