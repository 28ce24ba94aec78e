// What an on-FPGA kernel sees (models/kernel/README.md): its arguments and
// result registers, its clock (compute(cycles)), and the SMI backend that
// carries its channels. SystemC-free: KernelUnit (the sc_module) implements
// SmiBackend; unit tests may implement it without a simulator.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "isvp/register_map.h"
#include "isvp/smi.h"

namespace isvp {

/// A kernel ends with an error: KERNEL_STATUS code, KERNEL_ERROR_DETAIL and
/// a message naming what is wrong (reported as a warning by the unit).
class KernelError : public std::runtime_error {
  public:
    KernelError(std::uint32_t code, std::uint32_t detail, const std::string& what)
        : std::runtime_error(what), code_(code), detail_(detail) {}
    std::uint32_t code() const { return code_; }
    std::uint32_t detail() const { return detail_; }

  private:
    std::uint32_t code_;    ///< regmap::kKernelError*
    std::uint32_t detail_;  ///< KERNEL_ERROR_DETAIL
};

/// Channel kinds on a port; the packet header's context field carries the
/// kind so both ends can check they opened the same thing.
enum class ChannelKind : std::uint8_t { PointToPoint = 0, Bcast = 1, Reduce = 2, Scatter = 3, Gather = 4 };
std::string to_string(ChannelKind kind);

/// The hardware side of SMI: one per FPGA. Every call blocks in simulated
/// time as the SMI functions document, or throws KernelError.
class SmiBackend {
  public:
    virtual ~SmiBackend() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// Opens one end of a channel of `count` elements of `type`; `peer` is
    /// the destination (send) or source (receive) for point-to-point, the
    /// root for collectives; `op` only for reduce. Returns the channel id.
    virtual int open(ChannelKind kind, bool send, int count, SMI_Datatype type, int peer, int port, SMI_Op op) = 0;
    virtual void push(int channel, const void* data) = 0;
    virtual void pop(int channel, void* data) = 0;
    virtual void bcast(int channel, void* data) = 0;
    virtual void reduce(int channel, const void* data_snd, void* data_rcv) = 0;
    virtual void scatter(int channel, const void* data_snd, void* data_rcv) = 0;
    virtual void gather(int channel, const void* data_snd, void* data_rcv) = 0;
    /// Charges `cycles` kernel clock cycles of computation.
    virtual void compute(std::uint64_t cycles) = 0;
    /// Simulated time now, picoseconds (for kernels that time themselves).
    virtual std::uint64_t now_ps() const = 0;
};

/// A running kernel's view: arguments, results, SMI_COMM_WORLD, its clock.
class KernelContext {
  public:
    KernelContext(SmiBackend& backend, const std::array<std::uint64_t, regmap::kKernelArgs>& args)
        : backend_(backend), args_(args) {}
    std::uint64_t arg(unsigned index) const { return args_.at(index); }
    void set_result(unsigned index, std::uint64_t value) { results_.at(index) = value; }
    const std::array<std::uint64_t, regmap::kKernelResults>& results() const { return results_; }
    SMI_Comm world() const { return SMI_Comm{&backend_}; }
    void compute(std::uint64_t cycles) { backend_.compute(cycles); }
    std::uint64_t now_ps() const { return backend_.now_ps(); }

  private:
    SmiBackend& backend_;                                          ///< the FPGA's kernel unit
    std::array<std::uint64_t, regmap::kKernelArgs> args_;          ///< KERNEL_ARG(i) at START
    std::array<std::uint64_t, regmap::kKernelResults> results_{};  ///< KERNEL_RESULT(i)
};

/// The kernel body: `SMI_COMM_WORLD` is the kernel's world communicator.
using KernelBody = void (*)(KernelContext& kernel, SMI_Comm SMI_COMM_WORLD);
/// Checks the arguments before a launch: the index of the first bad one and
/// why, or -1. `world` is the SMI_COMM_WORLD size.
using KernelArgumentCheck = int (*)(const std::array<std::uint64_t, regmap::kKernelArgs>& args, int world,
                                    std::string* why);

/// One kernel compiled into the bitstream.
struct KernelDescriptor {
    std::uint32_t id;                                        ///< KERNEL_ID, 1 ..
    const char* name;                                        ///< "stencil", "pingpong", ...
    std::array<const char*, regmap::kKernelArgs> arguments;  ///< names of the arguments used (null: unused)
    KernelArgumentCheck check;
    KernelBody body;
    const char* summary;  ///< one line: what it does
};

/// The kernels compiled into the simulator (kernel_catalog.cpp), by id.
const KernelDescriptor* find_kernel(std::uint32_t id);
/// The kernel named `name`, or null.
const KernelDescriptor* find_kernel(const std::string& name);
/// Every kernel, in id order.
const KernelDescriptor* kernels_begin();
const KernelDescriptor* kernels_end();
/// "1 pingpong, 2 stencil, ..." for messages.
std::string kernel_list();

/// Kernel ids (kernel_catalog.cpp).
inline constexpr std::uint32_t kKernelPingPong = 1;
inline constexpr std::uint32_t kKernelStencil = 2;
inline constexpr std::uint32_t kKernelBcast = 3;
inline constexpr std::uint32_t kKernelReduce = 4;
inline constexpr std::uint32_t kKernelStream = 5;
inline constexpr std::uint32_t kKernelMismatch = 6;
inline constexpr std::uint32_t kKernelScatterGather = 7;
inline constexpr std::uint32_t kKernelStencil2D = 8;

}  // namespace isvp
