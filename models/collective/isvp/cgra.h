// The SmartFuse CGRA beside the collective engine: a small array of
// processing elements (PEs) with SIMD lanes that runs an operation on a
// collective's result stream in the switch (semi-fused collectives,
// docs/FUSED.md). SystemC-free: the program format, its decoder (what a LOAD
// refuses and why), the arithmetic and the cycle count. The engine
// (collective_engine.cpp) owns the registers and the timing; the guest's
// software fallback runs the same `run_program`, so both give identical bytes.
//
// Program format (32-bit words, little-endian in the staging registers):
//   word 0           [31:24] magic 0xC6   [23:20] version 1
//                    [19:16] element type (ElementType)
//                    [15:8]  SIMD lanes (power of two, 1 .. max_lanes)
//                    [7:0]   instructions n (1 .. processing elements)
//   then per instruction three words:
//     word a         [7:0] opcode (CgraOpcode)  [9:8] operand (CgraOperand)
//                    [31:10] zero
//     words b, c     64-bit immediate, low word first
// Instructions run in program order, each on one PE, elements streaming
// through the PEs lanes at a time (a spatial pipeline).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isvp::cgra {

inline constexpr std::uint32_t kMagic = 0xC6;
inline constexpr std::uint32_t kVersion = 1;
inline constexpr unsigned kWordsPerInstruction = 3;
/// Most instructions any program may have (the staging registers' size).
inline constexpr unsigned kMaxInstructions = 32;
inline constexpr unsigned kMaxWords = 1 + kWordsPerInstruction * kMaxInstructions;

/// What the PEs read the stream as. Integers wrap (two's complement).
enum class ElementType : std::uint8_t { Int32 = 0, Int64 = 1, Float = 2, Double = 3 };
inline constexpr unsigned kElementTypeCount = 4;
std::size_t element_bytes(ElementType type);

enum class CgraOpcode : std::uint8_t {
    Add = 1,         ///< x += operand
    Sub = 2,         ///< x -= operand
    Mul = 3,         ///< x *= operand
    Min = 4,         ///< x = min(x, operand)
    Max = 5,         ///< x = max(x, operand)
    PrefixSum = 6,   ///< running sum in element order; immediate 0 inclusive, 1 exclusive (operand Immediate)
    Scale = 7,       ///< integers: x = (x * imm) >> 16 (Q16.16); floating point: x *= imm (operand Immediate)
    ShiftLeft = 8,   ///< integers only: x <<= imm (operand Immediate, imm < element bits)
    ShiftRight = 9,  ///< integers only: arithmetic x >>= imm (operand Immediate, imm < element bits)
    // Ingress kernels (higher-order collectives, docs/FUSED.md): the sole
    // instruction of a program that runs on the host's request as it enters
    // the engine, before the reduce-scatter that follows; not on a result.
    Gemm = 10,      ///< partial C (m x n) = A block (m x kl) . B block (kl x n); imm [15:0] m, [31:16] kl, [47:32] n
    SpmvBand = 11,  ///< partial y (cols x size) = A column block (band storage) . x block; imm [31:0] cols, [39:32] w
};

/// The second operand of Add .. Max.
enum class CgraOperand : std::uint8_t {
    Immediate = 0,  ///< the instruction's immediate (int32: low 32 bits; float: low word's bits; double: all 64)
    Rank = 1,       ///< this member's comm rank
    Index = 2,      ///< the element's index in the result
    Size = 3,       ///< the communicator's size
};

struct Instruction {
    CgraOpcode opcode = CgraOpcode::Add;
    CgraOperand operand = CgraOperand::Immediate;
    std::uint64_t immediate = 0;
};

struct Program {
    ElementType type = ElementType::Int32;
    unsigned lanes = 1;
    std::vector<Instruction> instructions;
};

/// The array's size, which a program must fit.
struct Limits {
    unsigned processing_elements = 8;  ///< one instruction per PE
    unsigned max_lanes = 8;            ///< SIMD lanes per PE
};

/// Why a LOAD refused a program (CGRA_STATUS.ERROR).
enum class LoadError : std::uint8_t {
    None = 0,
    Length = 1,         ///< word count is not 1 + 3 x instructions, or 0
    Magic = 2,          ///< word 0 lacks 0xC6 / version 1
    ElementType = 3,    ///< unknown element type
    Lanes = 4,          ///< lanes 0, not a power of two, or more than the PEs have
    Instructions = 5,   ///< no instruction, or more than the PEs
    Opcode = 6,         ///< unknown opcode
    Operand = 7,        ///< unknown operand, or an operand the opcode does not take
    Reserved = 8,       ///< reserved bits set
    Immediate = 9,      ///< immediate out of range (shift count, prefix-sum mode)
    TypeMismatch = 10,  ///< a shift on floating-point elements
};

struct LoadOutcome {
    std::optional<Program> program;  ///< set when accepted
    LoadError error = LoadError::None;
    std::uint32_t instruction = 0;  ///< the offending instruction's index (where it applies)
    std::string why;                ///< a sentence naming what is wrong
};

/// Decodes and checks a program; refuses a malformed one with the reason.
LoadOutcome decode(const std::vector<std::uint32_t>& words, const Limits& limits);
/// The words of `program` (decode(encode(p)) gives p back).
std::vector<std::uint32_t> encode(const Program& program);

/// Runs `program` on `bytes` bytes at `data` in place (whole elements of the
/// program's type; trailing bytes pass unchanged; an ingress kernel leaves
/// them unchanged: it runs only through run_ingress). `rank`, `size`: the
/// member's comm rank and the communicator's size (operands).
void run_program(const Program& program, std::uint8_t* data, std::size_t bytes, std::int64_t rank, std::int64_t size);

/// Whether `program` is an ingress kernel (GEMM or SPMV_BAND).
bool is_ingress(const Program& program);

/// An ingress kernel's sizes on a communicator of `size` members, in elements.
struct IngressShape {
    std::uint64_t input = 0;   ///< the host's request after the envelope
    std::uint64_t output = 0;  ///< the reduce-scatter's contribution (size blocks)
    std::uint64_t macs = 0;    ///< multiply-accumulates
};
IngressShape ingress_shape(const Program& program, std::int64_t size);

/// Runs an ingress kernel: `input` (ingress_shape().input elements) into
/// `output` (ingress_shape().output elements, overwritten). GEMM:
/// out[i][j] = sum over t = 0 .. kl-1 ascending of a[i][t] * b[t][j] (row
/// major; a first, then b in the input). SPMV_BAND: global column g = rank x
/// cols + j holds 2w+1 values band[j][w + d] = A[g + d][g] (d = -w .. w,
/// rows outside 0 .. cols x size - 1 ignored), then x (cols elements);
/// out[g + d] += band[j][w + d] * x[j] for j ascending, d ascending. Floating
/// point in exactly that order, integers wrap.
void run_ingress(const Program& program, const std::uint8_t* input, std::uint8_t* output, std::int64_t rank,
                 std::int64_t size);

/// Cycles an ingress kernel takes: all PEs' lanes are multiply-accumulate
/// units, ceil(max(macs, output) / (processing_elements x lanes)) x
/// cycles_per_vector, plus one pipeline latency.
std::uint64_t ingress_cycles(const Program& program, std::int64_t size, unsigned processing_elements,
                             unsigned cycles_per_vector, unsigned pe_latency_cycles);

/// Cycles after the kernel starts by which its first `done` output elements
/// are final (the output streams on in element order): GEMM row major, kl
/// MACs per element; SPMV_BAND element e once the columns up to e + w of
/// this rank's block are done (elements no column of it reaches: at once,
/// bounded by writing the output lanes at a time). ingress_ready_cycles(
/// output) == ingress_cycles.
std::uint64_t ingress_ready_cycles(const Program& program, std::int64_t size, std::int64_t rank, std::uint64_t done,
                                   unsigned processing_elements, unsigned cycles_per_vector,
                                   unsigned pe_latency_cycles);

/// Cycles the array takes for `elements` elements: ceil(elements / lanes)
/// vectors x cycles_per_vector, plus each PE's pipeline latency once.
std::uint64_t program_cycles(const Program& program, std::uint64_t elements, unsigned cycles_per_vector,
                             unsigned pe_latency_cycles);

}  // namespace isvp::cgra
