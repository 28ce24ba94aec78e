// Aurora 64B/66B link: parameters and the timing arithmetic (no SystemC).
//
// What the numbers mean (DESIGN §3.4, Alveo U280 reference figures):
//   * line rate    lanes x lane rate = 4 x 25.78125 Gb/s = 103.125 Gb/s
//   * data rate    64B/66B coding: line rate x 64/66 = 100.0 Gb/s of 8-byte
//                  blocks; everything (user bytes and framing) shares it
//   * frames       the TX packetiser cuts a packet into frames of at most
//                  aurora.max_frame_bytes user bytes; each frame also pays a
//                  fixed overhead (start/end-of-frame control blocks, the
//                  CRC-32 word, inter-frame idles, amortised clock
//                  compensation)
//   * peak         aurora.peak_payload_gbps is the payload rate of full
//                  frames, so the per-frame overhead follows from it:
//                    overhead = max_frame x (data_rate / peak - 1)
//                  = 992 x (100 / 95.9 - 1) = 42.41 bytes (3.39 ns) by default
//   * saturation   a packet of k <= max_frame bytes moves at
//                  data_rate x k / (k + overhead): 60 Gb/s at 64 B, 92 Gb/s
//                  at 512 B, 95.9 Gb/s at 992 B ("saturates just under
//                  1 KB"); longer packets use full frames and stay near peak.
// Serialisation time of a packet = (bytes + frames x overhead) x 8 / data_rate.
#pragma once

#include <cstdint>
#include <string>

#include "isvp/parameters.h"

namespace isvp {

/// What a receiver does with a frame whose CRC does not match.
enum class CrcErrorPolicy {
    Retry,  ///< link-level replay from the sender's buffer (go-back-N)
    Drop,   ///< discard, count, report; credits go back upstream
};

/// Parameters of one Aurora link (see models/aurora/README.md).
struct AuroraConfig {
    unsigned lanes = 4;                                   ///< serial lanes bonded into the channel
    double lane_rate_gbps = 25.78125;                     ///< line rate per lane, Gb/s
    double latency_ns = 440.0;                            ///< FPGA-to-FPGA latency excluding serialisation, ns
    double peak_payload_gbps = 95.9;                      ///< user-payload rate of full frames, Gb/s
    unsigned max_frame_bytes = 992;                       ///< user bytes per frame at most (31 x 256-bit beats)
    double bit_error_rate = 0.0;                          ///< probability that one wire bit flips
    CrcErrorPolicy on_crc_error = CrcErrorPolicy::Retry;  ///< receiver's reaction to a CRC mismatch
    unsigned max_retransmissions = 8;  ///< replays of one packet before the link gives up and drops it
    std::uint64_t seed = 1;            ///< seed of the bit-error generators (each link derives its own)
    bool crc_always = false;           ///< aurora.crc = always: compute CRCs even when no error can occur

    /// Declares the aurora.* parameters with their defaults, units and ranges.
    static void declare(Parameters& parameters);
    /// Reads and validates the aurora.* parameters.
    static AuroraConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field and what is accepted.
    void validate() const;

    /// Whether frames carry a computed and checked CRC-32: with no bit
    /// errors injected no frame can fail, so by default (aurora.crc = auto)
    /// the CRC is computed only when aurora.bit_error_rate > 0.
    bool computes_crc() const { return crc_always || bit_error_rate > 0.0; }
    /// Bits per second after 64B/66B coding, in Gb/s.
    double data_rate_gbps() const { return lanes * lane_rate_gbps * 64.0 / 66.0; }
};

std::string to_string(CrcErrorPolicy policy);

/// Frame arithmetic of one configured link; pure functions of the config.
class AuroraTiming {
  public:
    explicit AuroraTiming(const AuroraConfig& config);

    /// Frames a packet of `bytes` occupies (at least one).
    std::uint64_t frames(std::uint64_t bytes) const;
    /// Fixed cost of one frame, in byte times at the data rate.
    double frame_overhead_bytes() const { return frame_overhead_bytes_; }
    /// Time the serialiser is busy with a packet of `bytes`, ns.
    double serialisation_ns(std::uint64_t bytes) const;
    /// Payload rate of a back-to-back stream of `bytes`-byte packets, Gb/s.
    double streamed_bandwidth_gbps(std::uint64_t bytes) const;

  private:
    double data_rate_gbps_;          ///< Gb/s after 64B/66B coding
    double frame_overhead_bytes_;    ///< per-frame overhead, byte times
    std::uint64_t max_frame_bytes_;  ///< user bytes per frame at most
};

}  // namespace isvp
