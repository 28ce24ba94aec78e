#include "isvp/kernels.h"

#include <vector>

#include "isvp/driver.h"
#include "isvp/kernel_context.h"

namespace isvp::guest {

namespace rm = regmap;
namespace ks = regmap::kernel_status;
namespace ked = regmap::kernel_error_detail;

Kernels::Kernels(DeviceTransport& transport, unsigned vector) : transport_(transport), vector_(vector) {
    if (vector_ >= rm::kMsixVectors)
        throw DriverError("kernels: MSI-X vector " + std::to_string(vector_) + " outside the table (0.." +
                          std::to_string(rm::kMsixVectors - 1) + ")");
}

void Kernels::launch(const std::string& name, std::initializer_list<std::uint64_t> args, int world_size) {
    const KernelDescriptor* kernel = find_kernel(name);
    if (!kernel) throw DriverError("kernels: no kernel is named '" + name + "' (" + kernel_list() + ")");
    launch(kernel->id, args, world_size);
}

void Kernels::launch(std::uint32_t id, std::initializer_list<std::uint64_t> args, int world_size) {
    // One kernel at a time: the FPGA would refuse START and keep the running
    // launch's status, so the refusal is told here.
    const std::uint32_t before = transport_.mmio_read32(rm::KERNEL_STATUS);
    if (ks::STATE.get(before) == ks::kRunning) {
        const KernelDescriptor* running = find_kernel(transport_.mmio_read32(rm::KERNEL_ID));
        throw DriverError("kernels: kernel " + std::to_string(id) + " not started: kernel " +
                          (running ? std::string(running->name) : std::string("?")) +
                          " is still running on this FPGA (wait() for it first)");
    }
    if (args.size() > rm::kKernelArgs)
        throw DriverError("kernels: " + std::to_string(args.size()) + " arguments, the FPGA has " +
                          std::to_string(rm::kKernelArgs) + " argument registers");
    if (!vector_ready_) {  // on first use, so runs without kernels keep their MMIO traffic
        const std::uint32_t entry = rm::MSIX_ENTRY(vector_);
        transport_.mmio_write32(entry + rm::MSIX_ADDRESS_LO, static_cast<std::uint32_t>(rm::kMsiWindowBase));
        transport_.mmio_write32(entry + rm::MSIX_ADDRESS_HI, 0);
        transport_.mmio_write32(entry + rm::MSIX_DATA, vector_);
        transport_.mmio_write32(entry + rm::MSIX_VECTOR_CONTROL, 0);
        transport_.mmio_write32(rm::KERNEL_MSIX, vector_);
        vector_ready_ = true;
    }
    std::vector<std::uint64_t> values(args);
    values.resize(rm::kKernelArgs, 0);
    for (unsigned i = 0; i < rm::kKernelArgs; ++i) {
        transport_.mmio_write32(rm::KERNEL_ARG(i), static_cast<std::uint32_t>(values[i]));
        transport_.mmio_write32(rm::KERNEL_ARG(i) + 4, static_cast<std::uint32_t>(values[i] >> 32));
    }
    transport_.mmio_write32(rm::KERNEL_WORLD_SIZE,
                            static_cast<std::uint32_t>(world_size > 0 ? world_size : transport_.size()));
    transport_.mmio_write32(rm::KERNEL_ID, id);
    transport_.mmio_write32(rm::KERNEL_CONTROL, rm::kernel_control::CLEAR.make(1));
    transport_.mmio_write32(rm::KERNEL_CONTROL, rm::kernel_control::START.make(1));
    id_ = id;
    // A refused START is known at once (the read follows the posted writes).
    const std::uint32_t status = transport_.mmio_read32(rm::KERNEL_STATUS);
    if (ks::STATE.get(status) == ks::kError)
        throw DriverError(describe_error(status, transport_.mmio_read32(rm::KERNEL_ERROR_DETAIL)));
}

KernelOutcome Kernels::wait() {
    std::uint32_t status = transport_.mmio_read32(rm::KERNEL_STATUS);
    while (ks::STATE.get(status) == ks::kRunning) {
        transport_.wait_interrupt(1ull << vector_);
        status = transport_.mmio_read32(rm::KERNEL_STATUS);
    }
    if (ks::STATE.get(status) == ks::kError)
        throw DriverError(describe_error(status, transport_.mmio_read32(rm::KERNEL_ERROR_DETAIL)));
    if (ks::STATE.get(status) != ks::kDone) throw DriverError("kernels: wait() without a launch");
    KernelOutcome outcome;
    for (unsigned i = 0; i < rm::kKernelResults; ++i) outcome.results[i] = read64(rm::KERNEL_RESULT(i));
    outcome.cycles = read64(rm::KERNEL_CYCLES_LO);
    return outcome;
}

std::uint64_t Kernels::read64(std::uint32_t offset) {
    const std::uint64_t low = transport_.mmio_read32(offset);
    return low | static_cast<std::uint64_t>(transport_.mmio_read32(offset + 4)) << 32;
}

std::string Kernels::describe_error(std::uint32_t status, std::uint32_t detail) const {
    const KernelDescriptor* kernel = find_kernel(id_);
    const std::string who = "kernel " + (kernel ? std::string(kernel->name) + " (id " + std::to_string(id_) + ")"
                                                : "id " + std::to_string(id_));
    static const char* const kWhat[] = {"",
                                        "channel kinds differ",
                                        "datatypes differ",
                                        "counts differ",
                                        "reduce operations differ",
                                        "peer outside SMI_COMM_WORLD",
                                        "port outside 0..255",
                                        "root outside SMI_COMM_WORLD",
                                        "count out of range",
                                        "not an SMI datatype or operation"};
    const std::uint32_t what = ked::WHAT.get(detail);
    const std::string channel = " (port " + std::to_string(ked::PORT.get(detail)) + ", rank " +
                                std::to_string(ked::PEER.get(detail)) + ": " +
                                (what < std::size(kWhat) ? kWhat[what] : "?") + ")";
    switch (ks::ERROR_CODE.get(status)) {
        case rm::kKernelErrorUnknownId:
            return "kernels: the FPGA has no kernel with id " + std::to_string(detail) + " (" + kernel_list() + ")";
        case rm::kKernelErrorBadArgument:
            if (detail == 0xFFFFFFFFu) return "kernels: " + who + " refused: world size does not fit the network";
            return "kernels: " + who + " refused argument " + std::to_string(detail) +
                   (kernel && detail < rm::kKernelArgs && kernel->arguments[detail]
                        ? std::string(" (") + kernel->arguments[detail] + ")"
                        : std::string()) +
                   " (the simulator's warning says why)";
        case rm::kKernelErrorBusy:
            return "kernels: " + who + " not started: kernel " + std::to_string(detail) + " is still running";
        case rm::kKernelErrorChannel:
            return "kernels: " + who + " failed: an SMI channel's ends disagree" + channel;
        case rm::kKernelErrorChannelArgs:
            return "kernels: " + who + " failed: bad SMI channel arguments" + channel;
        case rm::kKernelErrorPeerAborted:
            return "kernels: " + who + " failed: a peer refused an SMI channel" + channel;
    }
    return "kernels: " + who + " failed with error " + std::to_string(ks::ERROR_CODE.get(status));
}

}  // namespace isvp::guest
