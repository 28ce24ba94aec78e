#include "isvp/logcn_model.h"

#include <algorithm>
#include <stdexcept>

namespace isvp::loggp {

LogcnModel::LogcnModel(const Model& collectives, const CgraFigures& cgra) : collectives_(collectives), cgra_(cgra) {
    if (cgra.clock_mhz <= 0) throw std::invalid_argument("logcn: the CGRA's clock must be positive");
}

double LogcnModel::agreement_us() const {
    const Parameters& p = collectives_.parameters();
    double total = 0;
    for (int step = 1; step < collectives_.ranks() && step * 2 <= collectives_.ranks(); step *= 2)
        total += p.L(collectives_.hops(0, step));
    return total;
}

double LogcnModel::cgra_us(const cgra::Program& program, std::uint64_t elements) const {
    return static_cast<double>(
               cgra::program_cycles(program, elements, cgra_.cycles_per_vector, cgra_.pe_latency_cycles)) /
           cgra_.clock_mhz;
}

double LogcnModel::ingress_cgra_us(cgra::Program kernel) const {
    kernel.lanes = std::max(1u, cgra_.lanes);  // the driver arms every lane the switch has
    return static_cast<double>(cgra::ingress_cycles(kernel, collectives_.ranks(), cgra_.processing_elements,
                                                    cgra_.cycles_per_vector, cgra_.pe_latency_cycles)) /
           cgra_.clock_mhz;
}

LogcnPrediction LogcnModel::is_fused(std::uint64_t block_elements, const cgra::Program& program) const {
    const Parameters& p = collectives_.parameters();
    const int n = collectives_.ranks();
    const double vector_bytes = 4.0 * static_cast<double>(block_elements) * n;
    double exchange = 0;  // S: the engine's alltoall, hypercube steps of N/2 blocks
    for (int step = 1; step < n && step * 2 <= n; step *= 2)
        exchange += p.L(collectives_.hops(0, step)) + n / 2 * 4.0 * static_cast<double>(block_elements) * p.G_link;
    LogcnPrediction out;
    out.collectives =
        collectives_.latency_us(Opcode::Allreduce, static_cast<std::uint64_t>(vector_bytes), Path::OffloadStreamed);
    out.compute = cgra_us(program, block_elements * static_cast<std::uint64_t>(n));
    out.chained = std::max(agreement_us(), exchange) + vector_bytes * p.G_pcie;
    out.total = out.collectives + out.compute + out.chained;
    return out;
}

LogcnPrediction LogcnModel::fem_fused(std::uint64_t elements) const {
    const Parameters& p = collectives_.parameters();
    cgra::Program prefix;
    prefix.type = cgra::ElementType::Int32;
    prefix.instructions.push_back({cgra::CgraOpcode::PrefixSum, cgra::CgraOperand::Immediate, 0});
    LogcnPrediction out;
    out.collectives = collectives_.latency_us(Opcode::Allgather, 4, Path::OffloadStreamed) +
                      collectives_.latency_us(Opcode::Allgather, 8 * elements, Path::OffloadStreamed) - (p.o_s + p.o_r);
    out.compute = cgra_us(prefix, static_cast<std::uint64_t>(collectives_.ranks()));
    out.chained = agreement_us();
    out.total = out.collectives + out.compute + out.chained;
    return out;
}

double LogcnModel::reduce_scatter_after_send(double block_bytes) const {
    const Parameters& p = collectives_.parameters();
    const double request = block_bytes * collectives_.ranks();
    return collectives_.latency_us(Opcode::ReduceScatter, static_cast<std::uint64_t>(block_bytes),
                                   Path::OffloadStreamed) -
           p.send_cost(request, std::min(request, p.packet_bytes));
}

LogcnPrediction LogcnModel::ingress(const cgra::Program& kernel, std::uint64_t input_bytes,
                                    std::uint64_t block_bytes) const {
    const Parameters& p = collectives_.parameters();
    const double element = static_cast<double>(cgra::element_bytes(kernel.type));
    const double whole = reduce_scatter_after_send(static_cast<double>(block_bytes));
    const double latency = reduce_scatter_after_send(element);
    LogcnPrediction out;
    out.compute = ingress_cgra_us(kernel);
    out.collectives = p.o_s + static_cast<double>(input_bytes) * p.G_pcie + latency;
    // The reduce-scatter's bytes stream behind the kernel's output: the
    // longer of the two is paid.
    out.chained = std::max(out.compute, whole - latency) - out.compute;
    out.total = out.collectives + out.compute + out.chained;
    return out;
}

double LogcnModel::is_software_us(std::uint64_t block_elements) const {
    const auto n = static_cast<std::uint64_t>(collectives_.ranks());
    return collectives_.latency_us(Opcode::Allreduce, 4 * block_elements * n, Path::Software) +
           collectives_.latency_us(Opcode::Alltoall, 4 * block_elements, Path::Software);
}

double LogcnModel::fem_software_us(std::uint64_t elements) const {
    return collectives_.latency_us(Opcode::Allgather, 4, Path::Software) +
           collectives_.latency_us(Opcode::Allgather, 8 * elements, Path::Software);
}

double LogcnModel::ingress_software_us(std::uint64_t block_bytes) const {
    return collectives_.latency_us(Opcode::ReduceScatter, block_bytes, Path::Software);
}

}  // namespace isvp::loggp
