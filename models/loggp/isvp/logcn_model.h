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
//   A  = the chained collective's argument agreement, one small packet per
//        hypercube step j < floor(log2 N) between r and r XOR 2^j, each rank
//        starting when its own part of the first collective ends (the LogGP
//        model's per-rank finish) and waiting for its partner's previous
//        step: the critical path of the L(hops(r, r XOR 2^j)), measured from
//        the last rank's end of the first collective (on a torus, where all
//        ranks end together and all pairs of a step are as far apart, the
//        sum over steps of L(hops(0, 2^j)); agreement_us() is that path from
//        a common start)
//   IS   (Allreduce -> program -> Alltoall, fully fused):
//        M_off(Allreduce, 4EN) + c + max(A, S) + 4EN G_pcie,
//        S = the same critical path with N/2 x 4E G_link per step (the
//        engine's alltoall streams while its agreement runs)
//   FEM  (Allgather -> prefix sum -> Allgatherv, fully fused):
//        M_off(Allgather, 4) + c + D + max(0, A - D),
//        D = the data's allgather (M_off, hypercube) with each rank's
//        request in its engine when its own part of the counts' allgather
//        ends, less o_r: it is posted with the first (its send is off the
//        path, and the first result's receive), the engine starts it, and
//        its steps stream while its agreement runs (on a torus, where the
//        ranks end together, D = M_off(Allgather, 8E) - (o_s(8E) + o_r))
//   PGEMM, SpMV (ingress kernel -> reduce-scatter in the switches):
//        o_s + I G_pcie + max(c, R - R0) + R0, I the request's operand bytes,
//        R the offloaded reduce-scatter less its host send, R0 the same for
//        one element per block (its latency part): the kernel's output
//        streams into the reduce-scatter, so its bytes overlap c
//   c  = CGRA cycles (cgra::program_cycles, cgra::ingress_cycles) / clock
// The host-software prediction is the same collectives' software LogGP
// latencies (host computation is not charged: compute scale 0).
//
// Where the engines run (Engines, from collective.placement and .mode): with
// the NIC engines (placement = nic, every torus) M_off is the hypercube
// evaluation (Path::OffloadStreamed, hops over the network's routes). With
// switch-resident engines (placement = switch) a collective the switches'
// tree runs — tree_supports, equal blocks — is the LogGP model's tree
// evaluation (Path::OffloadTree: up the communicator's aggregation tree to
// its root switch and down, L(hops) per cable, the switch engines' AgLU and
// port costs); what it does not run stays on the NIC engines' hypercube, as
// in the engines (docs/COLLECTIVES.md): IS's chained Alltoall and FEM's
// Allgather with unequal counts, hence A and S unchanged. SHArP mode
// (mode = sharp) offloads the reductions only (sharp_offloads), so the
// driver's fused calls take another path, which the prediction follows
// (LogcnPrediction::path): IS semi-fused — M_tree(Allreduce, 4EN) + c + the
// software Alltoall; FEM, PGEMM, SpMV the fallback — the host software
// prediction.
#pragma once

#include <cstdint>
#include <vector>

#include "isvp/cgra.h"
#include "isvp/loggp_model.h"

namespace isvp::loggp {

/// Where the platform's collective engines run the collectives.
enum class Engines : std::uint8_t {
    Nic,     ///< collective.placement = nic: the NIC engines' hypercube
    Switch,  ///< collective.placement = switch: the switches' trees where they run the collective
    Sharp,   ///< collective.mode = sharp: the switches' trees, reductions only
};

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
    double chained = 0;      ///< the chained second phase (IS: max(A, S) + result over PCIe; FEM: max(0, A - D))
    double total = 0;        ///< the prediction
    int path = 2;            ///< the path the prediction assumes: 2 fully fused, 1 semi-fused, 0 the fallback
};

/// The model on one platform: the LogGP model of its collectives (which it
/// references: keep it alive), the CGRA's figures and where the engines run.
class LogcnModel {
  public:
    LogcnModel(const Model& collectives, const CgraFigures& cgra, Engines engines = Engines::Nic);

    Engines engines() const { return engines_; }

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
    /// The NIC engines' hypercube steps (floor(log2 N) of them, partners
    /// r XOR 2^j), each a small packet plus `per_step` µs, every rank waiting
    /// for its partner, rank r starting at start[r] (empty: all at 0): the
    /// latest rank's finish.
    double hypercube_us(double per_step, const std::vector<double>& start) const;
    /// When each rank's engine starts a collective chained to `collective`
    /// of `bytes` (its own end of it), relative to the last rank's end.
    std::vector<double> chain_start(Opcode collective, std::uint64_t bytes) const;
    /// The offloaded `collective`'s evaluation on these engines (`equal_blocks`
    /// false: an Allgather with unequal counts, which no tree runs).
    Path offloaded(Opcode collective, bool equal_blocks = true) const;
    /// Whether the driver offloads `collective` at all (SHArP: reductions only).
    bool offloads(Opcode collective) const;
    /// The offloaded reduce-scatter of `block_bytes` less its host send.
    double reduce_scatter_after_send(double block_bytes) const;

    const Model& collectives_;
    CgraFigures cgra_;
    Engines engines_;  ///< where the collectives run
};

}  // namespace isvp::loggp
