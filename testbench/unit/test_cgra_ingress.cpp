// The CGRA's ingress kernels (models/collective/isvp/cgra.h; docs/FUSED.md,
// "Higher-order collectives"): GEMM and SPMV_BAND decode and refusals,
// their arithmetic against plain loops, their shapes and cycles.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "isvp/cgra.h"

using namespace isvp::cgra;

namespace {
std::uint32_t head(unsigned type, unsigned lanes, unsigned n) {
    return 0xC6u << 24 | 1u << 20 | type << 16 | lanes << 8 | n;
}
Program kernel(ElementType type, CgraOpcode op, std::uint64_t imm) {
    Program p;
    p.type = type;
    p.instructions.push_back({op, CgraOperand::Immediate, imm});
    return p;
}
}  // namespace

TEST_CASE("cgra ingress: GEMM and SPMV_BAND decode, malformed ones are refused", "[cgra]") {
    const Limits limits{};
    const std::uint64_t gemm = 2 | 3u << 16 | 4ull << 32;
    const LoadOutcome ok = decode({head(0, 1, 1), 10, static_cast<std::uint32_t>(gemm), 4}, limits);
    REQUIRE(ok.program);
    CHECK(is_ingress(*ok.program));
    CHECK(decode({head(3, 1, 1), 11, 5, 2}, limits).program);
    // Not alone in its program.
    CHECK(decode({head(0, 1, 2), 10, static_cast<std::uint32_t>(gemm), 4, 1, 0, 0}, limits).error ==
          LoadError::Instructions);
    // Zero or out-of-range fields.
    CHECK(decode({head(0, 1, 1), 10, 0, 4}, limits).error == LoadError::Immediate);
    CHECK(decode({head(0, 1, 1), 10, static_cast<std::uint32_t>(gemm), 4 | 1u << 16}, limits).error ==
          LoadError::Immediate);
    CHECK(decode({head(0, 1, 1), 11, 0, 2}, limits).error == LoadError::Immediate);
    CHECK(decode({head(0, 1, 1), 11, 5, 0x100}, limits).error == LoadError::Immediate);
    // Operand other than the immediate; opcode 12 unknown.
    CHECK(decode({head(0, 1, 1), 10 | 1u << 8, static_cast<std::uint32_t>(gemm), 4}, limits).error ==
          LoadError::Operand);
    CHECK(decode({head(0, 1, 1), 12, 0, 0}, limits).error == LoadError::Opcode);
    // An elementwise program is no ingress kernel; run_program leaves data alone for one.
    CHECK_FALSE(is_ingress(*decode({head(0, 1, 1), 1, 0, 0}, limits).program));
    std::vector<std::int32_t> v{1, 2};
    run_program(*ok.program, reinterpret_cast<std::uint8_t*>(v.data()), 8, 0, 2);
    CHECK(v == std::vector<std::int32_t>{1, 2});
}

TEST_CASE("cgra ingress: GEMM is the partial product, inner index ascending", "[cgra]") {
    const std::uint64_t m = 3, kl = 2, n = 4;
    const Program p = kernel(ElementType::Int64, CgraOpcode::Gemm, m | kl << 16 | n << 32);
    const IngressShape s = ingress_shape(p, 5);
    CHECK(s.input == m * kl + kl * n);
    CHECK(s.output == m * n);
    CHECK(s.macs == m * n * kl);
    std::vector<std::int64_t> in(s.input), out(s.output, 99);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int64_t>(i) * 3 - 7;
    run_ingress(p, reinterpret_cast<const std::uint8_t*>(in.data()), reinterpret_cast<std::uint8_t*>(out.data()), 1, 5);
    for (std::uint64_t i = 0; i < m; ++i)
        for (std::uint64_t j = 0; j < n; ++j) {
            std::int64_t want = 0;
            for (std::uint64_t t = 0; t < kl; ++t) want += in[i * kl + t] * in[m * kl + t * n + j];
            CHECK(out[i * n + j] == want);
        }
    // Floating point: the products summed from 0 in t order.
    const Program d = kernel(ElementType::Double, CgraOpcode::Gemm, 1 | 3u << 16 | 1ull << 32);
    const std::vector<double> din{0.1, 0.2, 0.3, 1e16, 1.0, -1e16};
    double dout = 0;
    run_ingress(d, reinterpret_cast<const std::uint8_t*>(din.data()), reinterpret_cast<std::uint8_t*>(&dout), 0, 1);
    CHECK(dout == ((0.0 + 0.1 * 1e16) + 0.2 * 1.0) + 0.3 * -1e16);
}

TEST_CASE("cgra ingress: SPMV_BAND scatters a column block's band into the partial y", "[cgra]") {
    const std::int64_t cols = 2, w = 1, size = 3, rank = 2;  // columns 4 and 5 of a 6 x 6 matrix
    const Program p = kernel(ElementType::Int32, CgraOpcode::SpmvBand, cols | static_cast<std::uint64_t>(w) << 32);
    const IngressShape s = ingress_shape(p, size);
    CHECK(s.input == 2 * 3 + 2);
    CHECK(s.output == 6);
    //                 col 4: rows 3 4 5    col 5: rows 4 5 (6 outside: ignored)   x4 x5
    const std::vector<std::int32_t> in{1, 2, 3, 4, 5, 1000, 10, 100};
    std::vector<std::int32_t> out(6, -1);
    run_ingress(p, reinterpret_cast<const std::uint8_t*>(in.data()), reinterpret_cast<std::uint8_t*>(out.data()), rank,
                size);
    CHECK(out == std::vector<std::int32_t>{0, 0, 0, 10, 20 + 400, 30 + 500});
}

TEST_CASE("cgra ingress: cycles are the MACs over every PE's lanes plus one latency", "[cgra]") {
    Program p = kernel(ElementType::Double, CgraOpcode::Gemm, 64 | 4u << 16 | 64ull << 32);
    p.lanes = 8;
    CHECK(ingress_cycles(p, 16, 8, 1, 4) == 64 * 64 * 4 / 64 + 4);
    CHECK(ingress_cycles(p, 16, 8, 2, 4) == 2 * 64 * 64 * 4 / 64 + 4);
    // SPMV_BAND: the output (cols x size) bounds it when the band is thin.
    Program s = kernel(ElementType::Double, CgraOpcode::SpmvBand, 4 | 0ull << 32);
    s.lanes = 1;
    CHECK(ingress_cycles(s, 128, 8, 1, 4) == 4 * 128 / 8 + 4);
}

TEST_CASE("cgra ingress: the output is final in element order at the kernel's rate", "[cgra]") {
    Program g = kernel(ElementType::Double, CgraOpcode::Gemm, 4 | 2u << 16 | 8ull << 32);  // 32 outputs, 2 MACs each
    g.lanes = 2;
    CHECK(ingress_ready_cycles(g, 4, 0, 0, 2, 1, 3) == 3);
    CHECK(ingress_ready_cycles(g, 4, 0, 5, 2, 1, 3) == 10 / 4 + 1 + 3);  // ceil(5 x 2 / 4)
    CHECK(ingress_ready_cycles(g, 4, 0, 32, 2, 1, 3) == ingress_cycles(g, 4, 2, 1, 3));
    // SPMV_BAND, 4 columns per rank, w = 1, rank 1 of 3 (columns 4..7 of 12):
    // rows 0..2 are never touched by it, row 3 needs column 4, row 8 column 7.
    Program s = kernel(ElementType::Int32, CgraOpcode::SpmvBand, 4 | 1ull << 32);
    s.lanes = 1;
    CHECK(ingress_ready_cycles(s, 3, 1, 3, 1, 1, 0) == 3);      // bounded by writing 3 elements
    CHECK(ingress_ready_cycles(s, 3, 1, 4, 1, 1, 0) == 4);      // row 3: column 4 (3 MACs), 4 written
    CHECK(ingress_ready_cycles(s, 3, 1, 6, 1, 1, 0) == 3 * 3);  // row 5: columns 4..6
    CHECK(ingress_ready_cycles(s, 3, 1, 8, 1, 1, 0) == 4 * 3);  // row 7: all 4 columns
    CHECK(ingress_ready_cycles(s, 3, 1, 12, 1, 1, 0) == ingress_cycles(s, 3, 1, 1, 0));
}
