// Guest programs for the transport tests, written once against
// DeviceTransport so the same code runs as a remote process
// (transport_guest) and as a local rank thread (transport_job_tb --mode
// local). Each writes "trace ..." lines, whose simulated times must be
// identical in every run and in both modes, and returns an exit code.
//
// They talk to the fake device of testbench/systemc/transport_fake_device.h,
// whose registers and timing are defined here (SystemC-free, for the guests).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "isvp/device_transport.h"

namespace isvp::test {

/// The fake device's BAR0 registers and timing.
namespace fake {
inline constexpr std::uint32_t TRIGGER = 0x00;  ///< W: MSI, vector = value, to the writer after kTriggerDelayPs
inline constexpr std::uint32_t KICK = 0x04;  ///< W: value = rank << 8 | vector: MSI to that rank after kTriggerDelayPs
inline constexpr std::uint32_t COUNTER = 0x08;  ///< R: how many COUNTER reads (any rank) came before this one
inline constexpr std::uint32_t TIME_NS = 0x0C;  ///< R: simulated time when the read reaches the device, ns
inline constexpr std::uint32_t SHARED = 0x10;   ///< RW: the last value any rank wrote; accesses are logged
inline constexpr std::uint32_t SLOW = 0x14;     ///< R: waits kSlowWaitPs inside b_transport, returns TIME_NS then
inline constexpr std::uint32_t kUnmappedFrom = 0x100;  ///< offsets from here answer with an address error

inline constexpr std::uint64_t kReadLatencyPs = 900000;    ///< annotated on every read
inline constexpr std::uint64_t kWriteLatencyPs = 450000;   ///< annotated on every write (posted: unseen)
inline constexpr std::uint64_t kTriggerDelayPs = 2000000;  ///< TRIGGER/KICK write to MSI sent
inline constexpr std::uint64_t kMsiLatencyPs = 500000;     ///< MSI sent to MSI at the host (annotated)
inline constexpr std::uint64_t kSlowWaitPs = 3000000;      ///< SLOW's wait()
}  // namespace fake

/// Whether `name` is a scenario run_scenario knows.
bool is_scenario(const std::string& name);

/// Runs scenario `name` as rank transport.rank(). `write_cost_ps` is
/// host.mmio_write_ns in ps (the expected times depend on it). Does not call
/// finish(); returns the rank's exit code.
int run_scenario(const std::string& name, guest::DeviceTransport& transport, std::uint64_t write_cost_ps,
                 std::ostream& trace);

}  // namespace isvp::test
