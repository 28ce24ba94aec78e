// LogcN-style model of the fused and higher-order collectives
// (models/loggp/isvp/logcn_model.h) against values computed by hand from its
// formulas on the default platform; the collectives' own latencies are the
// LogGP model's (tested in test_loggp_model.cpp).
#include <catch2/catch.hpp>

#include "isvp/logcn_model.h"

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

TEST_CASE("logcn: FEM saves one host round trip and adds the agreement and the prefix sum") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    const LogcnModel model(collectives, CgraFigures{});
    const Parameters& p = kParameters;
    const double expected = collectives.latency_us(Opcode::Allgather, 4, Path::OffloadStreamed) +
                            collectives.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed) - (p.o_s + p.o_r) +
                            (8 + 4) / 250.0 + 3 * (p.L_router + p.hop);
    CHECK(model.fem_fused(4).total == Approx(expected));
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

TEST_CASE("logcn: a CGRA without a clock is refused") {
    const Model collectives(kParameters, shape(2, 2, 2), 8);
    CgraFigures figures;
    figures.clock_mhz = 0;
    CHECK_THROWS_WITH(LogcnModel(collectives, figures), "logcn: the CGRA's clock must be positive");
}
