// LogcN-style model of the fused and higher-order collectives
// (models/loggp/isvp/logcn_model.h) against values computed by hand from its
// formulas on the default platform; the collectives' own latencies are the
// LogGP model's (tested in test_loggp_model.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "isvp/logcn_model.h"
#include "isvp/table_routing.h"

using isvp::Opcode;
using isvp::TorusShape;
using namespace isvp::loggp;
namespace cgra = isvp::cgra;

namespace {

const Parameters kParameters = derive(PlatformFigures{});

TorusShape shape(unsigned x, unsigned y, unsigned z) {
    TorusShape s;
    s.x = x;
    s.y = y;
    s.z = z;
    return s;
}

/// fused_bench's IS op: x * 3, + rank, prefix sum, on 4 int32 lanes.
cgra::Program is_program() {
    cgra::Program p;
    p.lanes = 4;
    p.instructions = {{cgra::CgraOpcode::Mul, cgra::CgraOperand::Immediate, 3},
                      {cgra::CgraOpcode::Add, cgra::CgraOperand::Rank, 0},
                      {cgra::CgraOpcode::PrefixSum, cgra::CgraOperand::Immediate, 0}};
    return p;
}

cgra::Program gemm(std::uint64_t n, std::uint64_t ranks) {
    cgra::Program p;
    p.type = cgra::ElementType::Double;
    p.instructions = {{cgra::CgraOpcode::Gemm, cgra::CgraOperand::Immediate, n | (n / ranks) << 16 | n << 32}};
    return p;
}

cgra::Program spmv(std::uint64_t cols, std::uint64_t w) {
    cgra::Program p;
    p.type = cgra::ElementType::Double;
    p.instructions = {{cgra::CgraOpcode::SpmvBand, cgra::CgraOperand::Immediate, cols | w << 32}};
    return p;
}

}  // namespace

TEST_CASE("logcn: c is the CGRA's cycles at the engine clock") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    // 32 elements on 4 lanes: 8 vectors, + 3 instructions x 4 cycles of pipeline, at 250 MHz.
    CHECK(model.cgra_us(is_program(), 32) == Approx((8 + 12) / 250.0));
    // GEMM 64 x 64 x 64 on 8 ranks: 64 x 64 x 8 MACs on 8 PEs x 8 lanes, + one pipeline latency.
    CHECK(model.ingress_cgra_us(gemm(64, 8)) == Approx((64 * 64 * 8 / 64 + 4) / 250.0));
    // SpMV: 64 x 9 = 576 MACs (more than its 64 x 8 outputs) on 64 units: 9 cycles + 4.
    CHECK(model.ingress_cgra_us(spmv(64, 4)) == Approx((9 + 4) / 250.0));
}

TEST_CASE("logcn: the agreement is one small packet per hypercube step") {
    const Model cube(kParameters, shape(2, 2, 2), 8);  // partners 1, 2, 4 apart: one hop each
    CHECK(LogcnModel(cube, CgraFigures{}).agreement_us() == Approx(3 * (kParameters.L_router + kParameters.hop)));
    const Model ring(kParameters, shape(8, 1, 1), 8);  // partners 1, 2, 4 apart: 1, 2 and 4 hops
    CHECK(LogcnModel(ring, CgraFigures{}).agreement_us() == Approx(3 * kParameters.L_router + 7 * kParameters.hop));
    const Model six(kParameters, shape(6, 1, 1), 6);  // floor(log2 6) = 2 steps: 1 and 2 hops
    CHECK(LogcnModel(six, CgraFigures{}).agreement_us() == Approx(2 * kParameters.L_router + 3 * kParameters.hop));
}

TEST_CASE("logcn: IS is the offloaded allreduce, c, the chained alltoall and its result over PCIe") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    const Parameters& p = kParameters;
    for (const std::uint64_t e : {4u, 512u}) {
        const double vector = 4.0 * e * 8;
        const double step = p.L_router + p.hop;
        const double exchange = 3 * (step + 4 * 4.0 * e * p.G_link);  // 3 steps of N/2 = 4 blocks
        const double expected = collectives.latency_us(Opcode::Allreduce, 32 * e, Path::OffloadStreamed) +
                                (static_cast<double>((8 * e + 3) / 4) + 12) / 250.0 + std::max(3 * step, exchange) +
                                vector * p.G_pcie;
        const LogcnPrediction got = model.is_fused(e, is_program());
        CHECK(got.total == Approx(expected));
        CHECK(got.total == Approx(got.collectives + got.compute + got.chained));
    }
}

TEST_CASE("logcn: FEM saves the data's send and the first result's receive and adds the prefix sum") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    const Parameters& p = kParameters;
    // The data's 32 bytes go by PIO; its steps outlast the agreement (3 small packets).
    const double data =
        collectives.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed) - (p.send_overhead(32) + p.o_r);
    REQUIRE(data > 3 * (p.L_router + p.hop));
    const double expected =
        collectives.latency_us(Opcode::Allgather, 4, Path::OffloadStreamed) + data + (8 + 4) / 250.0;
    const LogcnPrediction got = model.fem_fused(4);
    CHECK(got.total == Approx(expected));
    CHECK(got.chained == 0);
    CHECK(got.path == 2);
}

TEST_CASE("logcn: an ingress kernel pays its upload, then the longer of c and the reduce-scatter's bytes") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    const Parameters& p = kParameters;
    // The reduce-scatter less its host send, of `block` bytes per member.
    const auto after_send = [&](double block) {
        const double request = 8 * block;
        return collectives.latency_us(Opcode::ReduceScatter, static_cast<std::uint64_t>(block), Path::OffloadStreamed) -
               p.send_cost(request, std::min(request, p.packet_bytes));
    };
    // PGEMM 256 on 8 ranks: c = 256 x 256 x 32 MACs / 64 units + 4 = 32,772 cycles outlasts the
    // reduce-scatter's streaming of its 64 KiB blocks.
    const double c_gemm = (256.0 * 256 * 32 / 64 + 4) / 250.0;
    const double input = (256.0 * 32 + 32 * 256) * 8;
    REQUIRE(c_gemm > after_send(65536) - after_send(8));
    CHECK(model.ingress(gemm(256, 8), static_cast<std::uint64_t>(input), 65536).total ==
          Approx(p.o_s + input * p.G_pcie + after_send(8) + c_gemm));
    // SpMV 64 rows, w 4: c = 0.052 µs hides behind the 512-byte blocks' streaming.
    const double c_spmv = 13 / 250.0;
    REQUIRE(c_spmv < after_send(512) - after_send(8));
    CHECK(model.ingress(spmv(64, 4), 64 * 10 * 8, 512).total == Approx(p.o_s + 5120 * p.G_pcie + after_send(512)));
}

TEST_CASE("logcn: host software is the same collectives in software") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    CHECK(model.is_software_us(4) == Approx(collectives.latency_us(Opcode::Allreduce, 128, Path::Software) +
                                            collectives.latency_us(Opcode::Alltoall, 16, Path::Software)));
    CHECK(model.fem_software_us(4) == Approx(collectives.latency_us(Opcode::Allgather, 4, Path::Software) +
                                             collectives.latency_us(Opcode::Allgather, 32, Path::Software)));
    CHECK(model.ingress_software_us(512) == Approx(collectives.latency_us(Opcode::ReduceScatter, 512, Path::Software)));
}

namespace {

/// A radix-8 fat tree of `hosts` hosts (6 per leaf), up*/down* routes.
struct FatTree {
    explicit FatTree(unsigned hosts) : network(make(hosts)) {}
    static isvp::NetworkTopology make(unsigned hosts) {
        isvp::FatTreeShape tree_shape;
        tree_shape.radix = 8;
        tree_shape.hosts = hosts;
        return isvp::fat_tree_network(tree_shape);
    }
    Model model(int ranks) const {
        return Model(kParameters, network, std::make_shared<isvp::TableRouting>(network, "updown", 2), ranks);
    }
    isvp::NetworkTopology network;
};

/// The hypercube steps of a chained collective by hand: rank r starts at
/// its own end of the first collective (relative to the last rank's), each
/// step waits for the partner's previous one and takes L(hops) + per_step.
double chained_steps(const Model& model, Opcode first, std::uint64_t bytes, Path path, double per_step) {
    std::vector<double> ready = model.rank_finish_us(first, bytes, path);
    const double last = *std::max_element(ready.begin(), ready.end());
    for (double& t : ready) t -= last;
    for (int step = 1; step < model.ranks(); step *= 2) {
        std::vector<double> next(ready.size());
        for (int r = 0; r < model.ranks(); ++r)
            next[static_cast<std::size_t>(r)] =
                std::max(ready[static_cast<std::size_t>(r)], ready[static_cast<std::size_t>(r ^ step)]) +
                kParameters.L(model.hops(r ^ step, r)) + per_step;
        ready = next;
    }
    return *std::max_element(ready.begin(), ready.end());
}

}  // namespace

TEST_CASE("logcn: the hypercube's agreement waits for the farthest pair of each step") {
    // 8 hosts on a radix-8 fat tree: hosts 0-5 on one leaf, 6-7 on the next.
    // Rank 0's partners (1, 2, 4) share its leaf, but 4 and 6 (step 2), 5 and
    // 7 (step 2) and 2 and 6 (step 4) cross the spine: two cables; rank 0
    // waits for them at the last step.
    const FatTree tree(8);
    const Model collectives = tree.model(8);
    REQUIRE(collectives.hops(0, 4) == 0);
    REQUIRE(collectives.hops(4, 6) == 2);
    const Parameters& p = kParameters;
    // Step 1: every pair on a leaf, L(0); step 2: 4-6 crosses; step 4: 2-6 crosses.
    CHECK(LogcnModel(collectives, CgraFigures{}).agreement_us() == Approx(p.L(0) + 2 * p.L(2)));
}

TEST_CASE("logcn: each rank's engine starts the chained collective when its own first one ends") {
    // 8 hosts on two leaves (6 + 2): the NIC engines' allreduce ends earlier
    // on some ranks than on others, and their chained steps start earlier.
    const FatTree tree(8);
    const Model collectives = tree.model(8);
    const Parameters& p = kParameters;
    const std::vector<double> ends = collectives.rank_finish_us(Opcode::Allreduce, 128, Path::OffloadStreamed);
    REQUIRE(*std::min_element(ends.begin(), ends.end()) < *std::max_element(ends.begin(), ends.end()));
    CHECK(*std::max_element(ends.begin(), ends.end()) ==
          Approx(collectives.latency_us(Opcode::Allreduce, 128, Path::OffloadStreamed)));
    const LogcnModel model(collectives, CgraFigures{});
    const double a = chained_steps(collectives, Opcode::Allreduce, 128, Path::OffloadStreamed, 0);
    const double s = chained_steps(collectives, Opcode::Allreduce, 128, Path::OffloadStreamed, 4 * 16 * p.G_link);
    CHECK(model.is_fused(4, is_program()).chained == Approx(std::max(a, s) + 128 * p.G_pcie));
    // Never more than all ranks starting together at the last one's end.
    CHECK(a <= model.agreement_us() + 1e-12);
}

TEST_CASE("logcn: switch-resident engines run the first collectives in the tree, the chained ones on the NICs") {
    const FatTree tree(32);
    const Model collectives = tree.model(32);
    const Parameters& p = kParameters;
    const LogcnModel nic(collectives, CgraFigures{}, Engines::Nic);
    const LogcnModel switches(collectives, CgraFigures{}, Engines::Switch);
    CHECK(switches.engines() == Engines::Switch);
    // IS: the allreduce up the tree and down; the chained alltoall (no tree
    // runs it) and its agreement on the NIC engines' hypercube, as with nic.
    const LogcnPrediction is_nic = nic.is_fused(4, is_program());
    const LogcnPrediction is_tree = switches.is_fused(4, is_program());
    CHECK(is_tree.collectives == Approx(collectives.latency_us(Opcode::Allreduce, 512, Path::OffloadTree)));
    CHECK(is_nic.collectives == Approx(collectives.latency_us(Opcode::Allreduce, 512, Path::OffloadStreamed)));
    CHECK(is_tree.collectives != Approx(is_nic.collectives));
    // The chained steps: 16 blocks of 16 bytes each step, from each rank's end of the allreduce.
    const double blocks = 16 * 16.0 * p.G_link;
    for (const auto& [got, path] : {std::pair{is_tree, Path::OffloadTree}, std::pair{is_nic, Path::OffloadStreamed}})
        CHECK(got.chained == Approx(std::max(chained_steps(collectives, Opcode::Allreduce, 512, path, 0),
                                             chained_steps(collectives, Opcode::Allreduce, 512, path, blocks)) +
                                    512 * p.G_pcie));
    CHECK(is_tree.compute == Approx(is_nic.compute));
    CHECK(is_tree.path == 2);
    // FEM: the counts' allgather (equal blocks) in the tree, the data's
    // (unequal counts: the switches do not know the blocks) on the
    // hypercube, each rank's from its own end of the counts'.
    const auto data = [&](Path counts) {
        std::vector<double> start = collectives.rank_finish_us(Opcode::Allgather, 4, counts);
        const double last = *std::max_element(start.begin(), start.end());
        const double first = *std::min_element(start.begin(), start.end());
        for (double& t : start) t -= first;
        return collectives.chained_latency_us(Opcode::Allgather, 32, start) + (first - last) - p.o_r;
    };
    CHECK(switches.fem_fused(4).collectives ==
          Approx(collectives.latency_us(Opcode::Allgather, 4, Path::OffloadTree) + data(Path::OffloadTree)));
    CHECK(nic.fem_fused(4).collectives ==
          Approx(collectives.latency_us(Opcode::Allgather, 4, Path::OffloadStreamed) + data(Path::OffloadStreamed)));
    // Ranks that end the counts' allgather early start the data's early.
    CHECK(data(Path::OffloadStreamed) <
          collectives.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed) - (p.send_overhead(32) + p.o_r));
    // PGEMM / SpMV: the reduce-scatter (equal blocks) in the tree.
    const double tree_after_send =
        collectives.latency_us(Opcode::ReduceScatter, 512, Path::OffloadTree) - p.send_cost(512.0 * 32, p.packet_bytes);
    const double tree_latency =
        collectives.latency_us(Opcode::ReduceScatter, 8, Path::OffloadTree) - p.send_cost(8.0 * 32, 8.0 * 32);
    const double c = 13 / 250.0;  // hides behind the blocks' streaming
    REQUIRE(c < tree_after_send - tree_latency);
    CHECK(switches.ingress(spmv(64, 4), 5120, 512).total == Approx(p.o_s + 5120 * p.G_pcie + tree_after_send));
}

TEST_CASE("logcn: SHArP mode offloads reductions only: IS semi-fused, the other patterns' fallback") {
    const FatTree tree(32);
    const Model collectives = tree.model(32);
    const LogcnModel sharp(collectives, CgraFigures{}, Engines::Sharp);
    // IS: the allreduce and the op in the switches, the alltoall in host software.
    const LogcnPrediction is = sharp.is_fused(4, is_program());
    CHECK(is.path == 1);
    CHECK(is.collectives == Approx(collectives.latency_us(Opcode::Allreduce, 512, Path::OffloadTree)));
    CHECK(is.chained == Approx(collectives.latency_us(Opcode::Alltoall, 16, Path::Software)));
    CHECK(is.total == Approx(is.collectives + is.compute + is.chained));
    // FEM, PGEMM, SpMV: no allgather or reduce-scatter in the switches, the
    // fallback is the host software prediction.
    const LogcnPrediction fem = sharp.fem_fused(4);
    CHECK(fem.path == 0);
    CHECK(fem.total == Approx(sharp.fem_software_us(4)));
    const LogcnPrediction spmv_call = sharp.ingress(spmv(64, 4), 5120, 512);
    CHECK(spmv_call.path == 0);
    CHECK(spmv_call.total == Approx(sharp.ingress_software_us(512)));
}

TEST_CASE("logcn: a CGRA without a clock is refused") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    CgraFigures figures;
    figures.clock_mhz = 0;
    CHECK_THROWS_WITH(LogcnModel(collectives, figures), "logcn: the CGRA's clock must be positive");
}
