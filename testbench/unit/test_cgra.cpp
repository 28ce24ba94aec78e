// The SmartFuse CGRA's core (models/collective/isvp/cgra.h): program
// decoding and its refusals, the arithmetic, the cycle count.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "isvp/cgra.h"

using namespace isvp::cgra;

namespace {
std::uint32_t head(unsigned type, unsigned lanes, unsigned n) {
    return 0xC6u << 24 | 1u << 20 | type << 16 | lanes << 8 | n;
}
}  // namespace

TEST_CASE("cgra: a program decodes, encodes back and runs in order", "[cgra]") {
    const std::vector<std::uint32_t> words{head(0, 4, 3), 3, 3, 0, 1 | 1u << 8, 0, 0, 6, 0, 0};
    const LoadOutcome out = decode(words, Limits{});
    REQUIRE(out.program);
    CHECK(encode(*out.program) == words);
    std::vector<std::int32_t> v{1, 2, 3};
    run_program(*out.program, reinterpret_cast<std::uint8_t*>(v.data()), 12, 5, 8);
    CHECK(v == std::vector<std::int32_t>{8, 19, 33});  // (x*3 + 5), then the running sum
}

TEST_CASE("cgra: exclusive prefix sum and shifts on int64", "[cgra]") {
    Program p;
    p.type = ElementType::Int64;
    p.instructions = {{CgraOpcode::PrefixSum, CgraOperand::Immediate, 1},
                      {CgraOpcode::ShiftLeft, CgraOperand::Immediate, 2}};
    std::vector<std::int64_t> v{4, 5, 6};
    run_program(p, reinterpret_cast<std::uint8_t*>(v.data()), 24, 0, 1);
    CHECK(v == std::vector<std::int64_t>{0, 16, 36});
}

TEST_CASE("cgra: malformed programs are refused naming what is wrong", "[cgra]") {
    const Limits limits{8, 8};
    CHECK(decode({}, limits).error == LoadError::Length);
    CHECK(decode({0x12345601u, 1, 0, 0}, limits).error == LoadError::Magic);
    CHECK(decode({head(7, 1, 1), 1, 0, 0}, limits).error == LoadError::ElementType);
    CHECK(decode({head(0, 3, 1), 1, 0, 0}, limits).error == LoadError::Lanes);
    CHECK(decode({head(0, 16, 1), 1, 0, 0}, limits).error == LoadError::Lanes);
    CHECK(decode({head(0, 1, 9)}, limits).error == LoadError::Instructions);
    CHECK(decode({head(0, 1, 2), 1, 0, 0}, limits).error == LoadError::Length);
    CHECK(decode({head(0, 1, 1), 42, 0, 0}, limits).error == LoadError::Opcode);
    CHECK(decode({head(0, 1, 1), 1 | 1u << 12, 0, 0}, limits).error == LoadError::Reserved);
    CHECK(decode({head(0, 1, 1), 6 | 1u << 8, 0, 0}, limits).error == LoadError::Operand);
    CHECK(decode({head(2, 1, 1), 8, 3, 0}, limits).error == LoadError::TypeMismatch);
    CHECK(decode({head(0, 1, 1), 8, 32, 0}, limits).error == LoadError::Immediate);
    const LoadOutcome bad = decode({head(0, 1, 1), 42, 0, 0}, limits);
    CHECK(bad.why == "CGRA program refused: instruction 0: unknown opcode 42");
}

TEST_CASE("cgra: cycles are vectors per lane plus each PE's latency", "[cgra]") {
    Program p;
    p.lanes = 4;
    p.instructions.resize(3);
    CHECK(program_cycles(p, 10, 1, 4) == 3 + 12);
    CHECK(program_cycles(p, 0, 1, 4) == 12);
}
