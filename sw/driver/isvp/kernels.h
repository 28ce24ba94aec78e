// Host side of the on-FPGA kernels (models/kernel, docs/SMI.md): start a
// kernel compiled into the FPGA and wait for it, the way an XRT host starts
// an HLS kernel — arguments into registers, START, a done interrupt.
//
//   guest::Kernels kernels(transport);                 // this rank's FPGA
//   kernels.launch("stencil", {1024, 100});            // or by id
//   guest::KernelOutcome done = kernels.wait();        // results, cycles
//
// Errors (DriverError, naming the kernel, the argument or the channel):
// an unknown kernel, an argument the kernel refuses, a launch while one
// runs, and a kernel that ended with an error (an SMI channel whose ends
// disagree, a peer that refused one). The FPGA keeps working after each:
// the next launch clears the status.
//
// SystemC-free; uses only BAR0 MMIO and MSI-X through the DeviceTransport,
// so a rank may use it beside its Driver (a separate MSI-X vector).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "isvp/device_transport.h"
#include "isvp/register_map.h"

namespace isvp::guest {

/// What a finished kernel left in its registers.
struct KernelOutcome {
    std::array<std::uint64_t, regmap::kKernelResults> results{};  ///< KERNEL_RESULT(i)
    std::uint64_t cycles = 0;                                     ///< KERNEL_CYCLES: kernel clock cycles it ran
};

class Kernels {
  public:
    /// `vector`: the MSI-X vector the done interrupt uses (the Driver uses 0..2).
    explicit Kernels(DeviceTransport& transport, unsigned vector = regmap::kKernelDefaultVector);

    /// Starts kernel `id` (or `name`) with `args` (missing ones are 0) on a
    /// world of `world_size` ranks (0: the job's size). Throws DriverError
    /// when the FPGA refuses the launch (unknown id, bad argument, busy).
    void launch(std::uint32_t id, std::initializer_list<std::uint64_t> args, int world_size = 0);
    void launch(const std::string& name, std::initializer_list<std::uint64_t> args, int world_size = 0);
    /// Waits for the done interrupt; throws DriverError if the kernel ended
    /// with an error, naming it (the results are still readable: last()).
    KernelOutcome wait();

  private:
    std::uint64_t read64(std::uint32_t offset);
    std::string describe_error(std::uint32_t status, std::uint32_t detail) const;

    DeviceTransport& transport_;  ///< this rank's device
    unsigned vector_;             ///< done interrupt
    bool vector_ready_ = false;   ///< MSI-X entry programmed (first launch)
    std::uint32_t id_ = 0;        ///< the kernel launched last
};

}  // namespace isvp::guest
