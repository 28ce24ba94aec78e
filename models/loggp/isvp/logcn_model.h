// A LogcN-style model of the SmartFuse fused and higher-order collectives
// (docs/FUSED.md, "Model"; issue 14 item 5): LogGP terms (L, o, g, G of
// loggp_model.h) plus c, the CGRA's compute time per call from its cycle
// count, and N, the number of nodes (the hypercube's log2 N steps and hop
// counts). SmartFuse's paper names such a model; its equations are not in
// this project's reach, so this is our reconstruction from the platform's
// parameters: each fused call is composed of the offloaded collectives'
// LogGP latencies, c, and the terms the fusion adds or removes. Plain C++17,
// no SystemC.
//
//   A  = sum over hypercube steps j < floor(log2 N) of L(hops(0, 2^j)): the
//        chained collective's argument agreement, one small packet per step
//   IS   (Allreduce -> program -> Alltoall, fully fused):
//        M_off(Allreduce, 4EN) + c + max(A, S) + 4EN G_pcie,
//        S = sum over steps of L(hops(0, 2^j)) + N/2 x 4E G_link (the
//        engine's alltoall streams while its agreement runs)
//   FEM  (Allgather -> prefix sum -> Allgatherv, fully fused):
//        M_off(Allgather, 4) + c + M_off(Allgather, 8E) - (o_s + o_r) + A
//        (the data's request is posted with the first; the engine starts it)
//   PGEMM, SpMV (ingress kernel -> reduce-scatter in the switches):
//        o_s + I G_pcie + max(c, R - R0) + R0, I the request's operand bytes,
//        R the offloaded reduce-scatter less its host send, R0 the same for
//        one element per block (its latency part): the kernel's output
//        streams into the reduce-scatter, so its bytes overlap c
//   c  = CGRA cycles (cgra::program_cycles, cgra::ingress_cycles) / clock
// The host-software prediction is the same collectives' software LogGP
// latencies (host computation is not charged: compute scale 0).
#pragma once

#include <cstdint>

#include "isvp/cgra.h"
#include "isvp/loggp_model.h"

namespace isvp::loggp {

/// The switch's CGRA [collective.cgra_*, collective.clock_mhz].
struct CgraFigures {
    double clock_mhz = 250.0;          ///< the engine's clock [collective.clock_mhz]
    unsigned processing_elements = 8;  ///< [collective.cgra_pes]
    unsigned lanes = 8;                ///< SIMD lanes per PE [collective.cgra_lanes]
    unsigned cycles_per_vector = 1;    ///< [collective.cgra_cycles_per_vector]
    unsigned pe_latency_cycles = 4;    ///< pipeline fill per instruction [collective.cgra_pe_latency_cycles]
};

/// The terms of one prediction, µs (what the report prints beside it).
struct LogcnPrediction {
    double collectives = 0;  ///< the offloaded collectives' LogGP latencies (less what the fusion removes)
    double compute = 0;      ///< c: the CGRA's time for the call
    double chained = 0;      ///< what the chained second phase adds (IS: max(A, S) + result over PCIe; FEM: A)
    double total = 0;        ///< the prediction
};

/// The model on one platform: the LogGP model of its collectives (which it
/// references: keep it alive) and the CGRA's figures.
class LogcnModel {
  public:
    LogcnModel(const Model& collectives, const CgraFigures& cgra);

    /// A: the chained collective's argument agreement.
    double agreement_us() const;
    /// c of `program` (lanes as written) on `elements` elements.
    double cgra_us(const cgra::Program& program, std::uint64_t elements) const;
    /// c of an ingress kernel (GEMM, SPMV_BAND) on the switch's lanes.
    double ingress_cgra_us(cgra::Program kernel) const;

    /// IS fully fused: `block_elements` int32 per rank block (the
    /// allreduce's vector is N blocks), `program` the op.
    LogcnPrediction is_fused(std::uint64_t block_elements, const cgra::Program& program) const;
    /// FEM fully fused: `elements` doubles per rank.
    LogcnPrediction fem_fused(std::uint64_t elements) const;
    /// An ingress kernel and its reduce-scatter: `input_bytes` the request's
    /// operands, `block_bytes` each member's block of the result.
    LogcnPrediction ingress(const cgra::Program& kernel, std::uint64_t input_bytes, std::uint64_t block_bytes) const;

    /// Host software (offload off), µs: the same collectives in software.
    double is_software_us(std::uint64_t block_elements) const;
    double fem_software_us(std::uint64_t elements) const;
    double ingress_software_us(std::uint64_t block_bytes) const;

  private:
    /// The offloaded reduce-scatter of `block_bytes` less its host send.
    double reduce_scatter_after_send(double block_bytes) const;

    const Model& collectives_;
    CgraFigures cgra_;
};

}  // namespace isvp::loggp
