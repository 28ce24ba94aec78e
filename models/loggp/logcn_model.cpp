#include "isvp/logcn_model.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "isvp/collective_schedule.h"
#include "isvp/sharp_resources.h"

namespace isvp::loggp {

LogcnModel::LogcnModel(const Model& collectives, const CgraFigures& cgra, Engines engines)
    : collectives_(collectives), cgra_(cgra), engines_(engines) {
    if (cgra.clock_mhz <= 0) throw std::invalid_argument("logcn: the CGRA's clock must be positive");
}

bool LogcnModel::offloads(Opcode collective) const {
    return engines_ != Engines::Sharp || sharp_offloads(collective);
}

Path LogcnModel::offloaded(Opcode collective, bool equal_blocks) const {
    // The engines send a collective up the tree when the switches run it
    // (CollectiveEngine::tree_offloads, equal blocks); the rest stays on the
    // NIC engines' hypercube.
    const bool tree = engines_ != Engines::Nic && equal_blocks && tree_supports(collective) && offloads(collective);
    return tree ? Path::OffloadTree : Path::OffloadStreamed;
}

double LogcnModel::hypercube_us(double per_step, const std::vector<double>& start) const {
    // Each step a rank waits for its partner's previous step: the critical
    // path through the steps, rank by rank (on a torus every rank's partners
    // are as far apart, and this is the sum of rank 0's; on a fat tree a
    // pair that straddles two leaves holds up everyone after it).
    const Parameters& p = collectives_.parameters();
    int pof2 = 1;
    while (pof2 * 2 <= collectives_.ranks()) pof2 *= 2;
    std::vector<double> ready(static_cast<std::size_t>(pof2), 0.0), next(ready.size());
    if (!start.empty()) std::copy(start.begin(), start.begin() + pof2, ready.begin());
    for (int step = 1; step < pof2; step *= 2) {
        for (int r = 0; r < pof2; ++r) {
            const int peer = r ^ step;
            next[static_cast<std::size_t>(r)] =
                std::max(ready[static_cast<std::size_t>(r)], ready[static_cast<std::size_t>(peer)]) +
                p.L(collectives_.hops(peer, r)) + per_step;
        }
        ready.swap(next);
    }
    return *std::max_element(ready.begin(), ready.end());
}

double LogcnModel::agreement_us() const {
    return hypercube_us(0, {});
}

std::vector<double> LogcnModel::chain_start(Opcode collective, std::uint64_t bytes) const {
    // Each rank's engine starts the chained collective when its own part
    // of the first one ends: relative to the last rank's end (<= 0).
    std::vector<double> start = collectives_.rank_finish_us(collective, bytes, offloaded(collective));
    const double last = *std::max_element(start.begin(), start.end());
    for (double& t : start) t -= last;
    return start;
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
    // A and S: the engine's alltoall's agreement and its hypercube steps
    // of N/2 blocks, each rank from its allreduce's end.
    const std::vector<double> start = chain_start(Opcode::Allreduce, static_cast<std::uint64_t>(vector_bytes));
    const double agreement = hypercube_us(0, start);
    const double exchange = hypercube_us(n / 2 * 4.0 * static_cast<double>(block_elements) * p.G_link, start);
    LogcnPrediction out;
    out.collectives = collectives_.latency_us(Opcode::Allreduce, static_cast<std::uint64_t>(vector_bytes),
                                              offloaded(Opcode::Allreduce));
    out.compute = cgra_us(program, block_elements * static_cast<std::uint64_t>(n));
    if (!offloads(Opcode::Alltoall)) {
        // SHArP: no chained alltoall; semi-fused, then the host's alltoall.
        out.path = 1;
        out.chained = collectives_.latency_us(Opcode::Alltoall, 4 * block_elements, Path::Software);
        out.total = out.collectives + out.compute + out.chained;
        return out;
    }
    out.chained = std::max(agreement, exchange) + vector_bytes * p.G_pcie;
    out.total = out.collectives + out.compute + out.chained;
    return out;
}

LogcnPrediction LogcnModel::fem_fused(std::uint64_t elements) const {
    const Parameters& p = collectives_.parameters();
    cgra::Program prefix;
    prefix.type = cgra::ElementType::Int32;
    prefix.instructions.push_back({cgra::CgraOpcode::PrefixSum, cgra::CgraOperand::Immediate, 0});
    LogcnPrediction out;
    if (!offloads(Opcode::Allgather)) {  // SHArP: the fallback, in host software
        out.path = 0;
        out.collectives = out.total = fem_software_us(elements);
        return out;
    }
    // The counts' allgather (equal blocks) in the tree where there is one, the
    // data's (unequal counts) on the NIC engines' hypercube. The engine
    // starts the data's: the host's send of it (posted with the first, by
    // PIO when small, as the LogGP model charges it) and its receive of the
    // first's result are off the path.
    // Each rank's engine starts it at its own end of the counts' allgather
    // (shifted to start at 0 for the LogGP evaluation, then back).
    std::vector<double> start = chain_start(Opcode::Allgather, 4);
    const double earliest = *std::min_element(start.begin(), start.end());
    for (double& t : start) t -= earliest;
    const double data = collectives_.chained_latency_us(Opcode::Allgather, 8 * elements, start) + earliest - p.o_r;
    out.collectives = collectives_.latency_us(Opcode::Allgather, 4, offloaded(Opcode::Allgather)) + data;
    out.compute = cgra_us(prefix, static_cast<std::uint64_t>(collectives_.ranks()));
    // The data's steps stream while its agreement runs (as IS's alltoall):
    // only an agreement longer than them shows.
    out.chained = std::max(0.0, hypercube_us(0, chain_start(Opcode::Allgather, 4)) - data);
    out.total = out.collectives + out.compute + out.chained;
    return out;
}

double LogcnModel::reduce_scatter_after_send(double block_bytes) const {
    const Parameters& p = collectives_.parameters();
    const double request = block_bytes * collectives_.ranks();
    return collectives_.latency_us(Opcode::ReduceScatter, static_cast<std::uint64_t>(block_bytes),
                                   offloaded(Opcode::ReduceScatter)) -
           p.send_cost(request, std::min(request, p.packet_bytes));
}

LogcnPrediction LogcnModel::ingress(const cgra::Program& kernel, std::uint64_t input_bytes,
                                    std::uint64_t block_bytes) const {
    const Parameters& p = collectives_.parameters();
    if (!offloads(Opcode::ReduceScatter)) {  // SHArP: the host kernel and the software reduce-scatter
        LogcnPrediction out;
        out.path = 0;
        out.collectives = out.total = ingress_software_us(block_bytes);
        return out;
    }
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
