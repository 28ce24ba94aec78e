#include "isvp/cgra.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace isvp::cgra {

std::size_t element_bytes(ElementType type) {
    switch (type) {
        case ElementType::Int32:
        case ElementType::Float:
            return 4;
        case ElementType::Int64:
        case ElementType::Double:
            return 8;
    }
    return 4;
}

namespace {

const char* opcode_name(CgraOpcode op) {
    switch (op) {
        case CgraOpcode::Add:
            return "ADD";
        case CgraOpcode::Sub:
            return "SUB";
        case CgraOpcode::Mul:
            return "MUL";
        case CgraOpcode::Min:
            return "MIN";
        case CgraOpcode::Max:
            return "MAX";
        case CgraOpcode::PrefixSum:
            return "PREFIX_SUM";
        case CgraOpcode::Scale:
            return "SCALE";
        case CgraOpcode::ShiftLeft:
            return "SHL";
        case CgraOpcode::ShiftRight:
            return "SHR";
        case CgraOpcode::Gemm:
            return "GEMM";
        case CgraOpcode::SpmvBand:
            return "SPMV_BAND";
    }
    return "?";
}

LoadOutcome refuse(LoadError error, std::uint32_t instruction, std::string why) {
    LoadOutcome out;
    out.error = error;
    out.instruction = instruction;
    out.why = "CGRA program refused: " + std::move(why);
    return out;
}

bool is_float(ElementType t) {
    return t == ElementType::Float || t == ElementType::Double;
}

}  // namespace

LoadOutcome decode(const std::vector<std::uint32_t>& words, const Limits& limits) {
    if (words.empty()) return refuse(LoadError::Length, 0, "no words staged");
    const std::uint32_t head = words[0];
    if ((head >> 24) != kMagic || ((head >> 20) & 0xF) != kVersion)
        return refuse(
            LoadError::Magic, 0, "word 0 must start with magic 0xC6 and version 1, got 0x" + [&] {
                char buf[16];
                std::snprintf(buf, sizeof buf, "%08X", head);
                return std::string(buf);
            }());
    const unsigned type = (head >> 16) & 0xF, lanes = (head >> 8) & 0xFF, count = head & 0xFF;
    if (type >= kElementTypeCount)
        return refuse(LoadError::ElementType, 0, "element type " + std::to_string(type) + " is not 0..3");
    if (lanes == 0 || (lanes & (lanes - 1)) != 0 || lanes > limits.max_lanes)
        return refuse(LoadError::Lanes, 0,
                      "lanes must be a power of two in 1.." + std::to_string(limits.max_lanes) + ", got " +
                          std::to_string(lanes));
    if (count == 0 || count > limits.processing_elements || count > kMaxInstructions)
        return refuse(LoadError::Instructions, 0,
                      "instructions must be 1.." +
                          std::to_string(std::min(limits.processing_elements, kMaxInstructions)) +
                          " (one per processing element), got " + std::to_string(count));
    if (words.size() != 1 + std::size_t{kWordsPerInstruction} * count)
        return refuse(LoadError::Length, 0,
                      std::to_string(count) + " instructions take " + std::to_string(1 + kWordsPerInstruction * count) +
                          " words, " + std::to_string(words.size()) + " were staged");
    Program p;
    p.type = static_cast<ElementType>(type);
    p.lanes = lanes;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t a = words[1 + kWordsPerInstruction * i];
        Instruction ins;
        ins.immediate =
            words[2 + kWordsPerInstruction * i] | static_cast<std::uint64_t>(words[3 + kWordsPerInstruction * i]) << 32;
        const unsigned op = a & 0xFF, operand = (a >> 8) & 0x3;
        const std::string where = "instruction " + std::to_string(i) + ": ";
        if (op < 1 || op > 11) return refuse(LoadError::Opcode, i, where + "unknown opcode " + std::to_string(op));
        if ((a >> 10) != 0) return refuse(LoadError::Reserved, i, where + "bits [31:10] of word a must be zero");
        ins.opcode = static_cast<CgraOpcode>(op);
        ins.operand = static_cast<CgraOperand>(operand);
        const bool elementwise = op <= static_cast<unsigned>(CgraOpcode::Max);
        if (!elementwise && ins.operand != CgraOperand::Immediate)
            return refuse(LoadError::Operand, i,
                          where + opcode_name(ins.opcode) + " takes only an immediate operand (operand 0)");
        const unsigned bits = 8 * static_cast<unsigned>(element_bytes(p.type));
        if (ins.opcode == CgraOpcode::ShiftLeft || ins.opcode == CgraOpcode::ShiftRight) {
            if (is_float(p.type))
                return refuse(LoadError::TypeMismatch, i,
                              where + opcode_name(ins.opcode) + " is for integer elements, the program's are " +
                                  (p.type == ElementType::Float ? "float" : "double"));
            if (ins.immediate >= bits)
                return refuse(LoadError::Immediate, i,
                              where + "shift count must be below " + std::to_string(bits) + ", got " +
                                  std::to_string(ins.immediate));
        }
        if (ins.opcode == CgraOpcode::PrefixSum && ins.immediate > 1)
            return refuse(LoadError::Immediate, i,
                          where + "PREFIX_SUM's immediate is 0 (inclusive) or 1 (exclusive), got " +
                              std::to_string(ins.immediate));
        if (ins.opcode == CgraOpcode::Gemm || ins.opcode == CgraOpcode::SpmvBand) {
            if (count != 1)
                return refuse(
                    LoadError::Instructions, i,
                    where + opcode_name(ins.opcode) + " is an ingress kernel: the program's only instruction");
            const std::uint64_t imm = ins.immediate;
            if (ins.opcode == CgraOpcode::Gemm &&
                ((imm & 0xFFFF) == 0 || (imm >> 16 & 0xFFFF) == 0 || (imm >> 32 & 0xFFFF) == 0 || (imm >> 48) != 0))
                return refuse(
                    LoadError::Immediate, i,
                    where + "GEMM's immediate is m [15:0], kl [31:16], n [47:32], each 1..65535, [63:48] zero");
            if (ins.opcode == CgraOpcode::SpmvBand && ((imm & 0xFFFFFFFF) == 0 || (imm >> 40) != 0))
                return refuse(LoadError::Immediate, i,
                              where + "SPMV_BAND's immediate is cols [31:0] (at least 1), w [39:32], [63:40] zero");
        }
        p.instructions.push_back(ins);
    }
    LoadOutcome out;
    out.program = std::move(p);
    return out;
}

std::vector<std::uint32_t> encode(const Program& program) {
    std::vector<std::uint32_t> words;
    words.push_back(kMagic << 24 | kVersion << 20 | static_cast<std::uint32_t>(program.type) << 16 |
                    (program.lanes & 0xFF) << 8 | (program.instructions.size() & 0xFF));
    for (const Instruction& i : program.instructions) {
        words.push_back(static_cast<std::uint32_t>(i.opcode) | static_cast<std::uint32_t>(i.operand) << 8);
        words.push_back(static_cast<std::uint32_t>(i.immediate));
        words.push_back(static_cast<std::uint32_t>(i.immediate >> 32));
    }
    return words;
}

namespace {

__extension__ typedef __int128 Wide;  // SCALE's 64 x 64-bit product

// Integers wrap: the arithmetic is done on the unsigned type of the same width.
template <typename T>
T from_immediate(std::uint64_t imm) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(imm));
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        return static_cast<std::int64_t>(imm);
    } else if constexpr (std::is_same_v<T, float>) {
        const auto low = static_cast<std::uint32_t>(imm);
        float f;
        std::memcpy(&f, &low, 4);
        return f;
    } else {
        double d;
        std::memcpy(&d, &imm, 8);
        return d;
    }
}

template <typename T>
T wrap_add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
        return a + b;
    }
}
template <typename T>
T wrap_sub(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
        return a - b;
    }
}
template <typename T>
T wrap_mul(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
        return a * b;
    }
}

template <typename T>
void run_typed(const Program& program, std::uint8_t* data, std::size_t n, std::int64_t rank, std::int64_t size) {
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), data, n * sizeof(T));
    for (const Instruction& ins : program.instructions) {
        const T imm = from_immediate<T>(ins.immediate);
        const auto operand = [&](std::size_t i) -> T {
            switch (ins.operand) {
                case CgraOperand::Immediate:
                    return imm;
                case CgraOperand::Rank:
                    return static_cast<T>(rank);
                case CgraOperand::Index:
                    return static_cast<T>(i);
                case CgraOperand::Size:
                    return static_cast<T>(size);
            }
            return imm;
        };
        switch (ins.opcode) {
            case CgraOpcode::Add:
                for (std::size_t i = 0; i < n; ++i) v[i] = wrap_add(v[i], operand(i));
                break;
            case CgraOpcode::Sub:
                for (std::size_t i = 0; i < n; ++i) v[i] = wrap_sub(v[i], operand(i));
                break;
            case CgraOpcode::Mul:
                for (std::size_t i = 0; i < n; ++i) v[i] = wrap_mul(v[i], operand(i));
                break;
            case CgraOpcode::Min:
                for (std::size_t i = 0; i < n; ++i) v[i] = std::min(v[i], operand(i));
                break;
            case CgraOpcode::Max:
                for (std::size_t i = 0; i < n; ++i) v[i] = std::max(v[i], operand(i));
                break;
            case CgraOpcode::PrefixSum: {
                // In element order (the lanes carry into the next vector), so
                // floating point sums in one fixed order. Exclusive: the sum
                // before the element (0 first).
                T running{};
                for (std::size_t i = 0; i < n; ++i) {
                    const T x = v[i];
                    if (ins.immediate == 1) {
                        v[i] = running;
                        running = wrap_add(running, x);
                    } else {
                        running = wrap_add(running, x);
                        v[i] = running;
                    }
                }
                break;
            }
            case CgraOpcode::Scale:
                if constexpr (std::is_integral_v<T>) {
                    // Q16.16: the product in 128 bits would be exact; 64-bit
                    // elements keep the low 64 bits of (x * imm) >> 16 as the
                    // hardware's 64 x 64 multiplier's middle bits.
                    for (std::size_t i = 0; i < n; ++i) {
                        const Wide product = static_cast<Wide>(v[i]) * static_cast<Wide>(imm);
                        v[i] = static_cast<T>(static_cast<std::uint64_t>(product >> 16));
                    }
                } else {
                    for (std::size_t i = 0; i < n; ++i) v[i] = v[i] * imm;
                }
                break;
            case CgraOpcode::ShiftLeft:
                if constexpr (std::is_integral_v<T>) {
                    using U = std::make_unsigned_t<T>;
                    for (std::size_t i = 0; i < n; ++i)
                        v[i] = static_cast<T>(static_cast<U>(static_cast<U>(v[i]) << ins.immediate));
                }
                break;
            case CgraOpcode::ShiftRight:
                if constexpr (std::is_integral_v<T>) {
                    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(v[i] >> ins.immediate);
                }
                break;
            case CgraOpcode::Gemm:
            case CgraOpcode::SpmvBand:
                break;  // ingress kernels: run_ingress
        }
    }
    if (n) std::memcpy(data, v.data(), n * sizeof(T));
}

template <typename T>
void ingress_typed(const Program& program, const std::uint8_t* input, std::uint8_t* output, std::int64_t rank,
                   std::int64_t size) {
    const Instruction& ins = program.instructions.front();
    const IngressShape shape = ingress_shape(program, size);
    std::vector<T> in(shape.input), out(shape.output, T{});
    if (shape.input) std::memcpy(in.data(), input, shape.input * sizeof(T));
    if (ins.opcode == CgraOpcode::Gemm) {
        const std::uint64_t m = ins.immediate & 0xFFFF, kl = ins.immediate >> 16 & 0xFFFF,
                            n = ins.immediate >> 32 & 0xFFFF;
        const T* a = in.data();
        const T* b = in.data() + m * kl;
        for (std::uint64_t i = 0; i < m; ++i)
            for (std::uint64_t j = 0; j < n; ++j) {
                T sum{};
                for (std::uint64_t t = 0; t < kl; ++t) sum = wrap_add(sum, wrap_mul(a[i * kl + t], b[t * n + j]));
                out[i * n + j] = sum;
            }
    } else {
        const std::int64_t cols = static_cast<std::int64_t>(ins.immediate & 0xFFFFFFFF);
        const std::int64_t w = static_cast<std::int64_t>(ins.immediate >> 32 & 0xFF);
        const std::int64_t rows = cols * size;
        const T* band = in.data();
        const T* x = in.data() + static_cast<std::size_t>(cols * (2 * w + 1));
        for (std::int64_t j = 0; j < cols; ++j) {
            const std::int64_t g = rank * cols + j;
            for (std::int64_t d = -w; d <= w; ++d) {
                if (g + d < 0 || g + d >= rows) continue;
                T& y = out[static_cast<std::size_t>(g + d)];
                y = wrap_add(y, wrap_mul(band[static_cast<std::size_t>(j * (2 * w + 1) + w + d)],
                                         x[static_cast<std::size_t>(j)]));
            }
        }
    }
    if (shape.output) std::memcpy(output, out.data(), shape.output * sizeof(T));
}

}  // namespace

bool is_ingress(const Program& program) {
    return program.instructions.size() == 1 && (program.instructions.front().opcode == CgraOpcode::Gemm ||
                                                program.instructions.front().opcode == CgraOpcode::SpmvBand);
}

IngressShape ingress_shape(const Program& program, std::int64_t size) {
    IngressShape s;
    if (!is_ingress(program) || size <= 0) return s;
    const Instruction& ins = program.instructions.front();
    if (ins.opcode == CgraOpcode::Gemm) {
        const std::uint64_t m = ins.immediate & 0xFFFF, kl = ins.immediate >> 16 & 0xFFFF,
                            n = ins.immediate >> 32 & 0xFFFF;
        s.input = m * kl + kl * n;
        s.output = m * n;
        s.macs = m * n * kl;
    } else {
        const std::uint64_t cols = ins.immediate & 0xFFFFFFFF, w = ins.immediate >> 32 & 0xFF;
        s.input = cols * (2 * w + 1) + cols;
        s.output = cols * static_cast<std::uint64_t>(size);
        s.macs = cols * (2 * w + 1);
    }
    return s;
}

void run_ingress(const Program& program, const std::uint8_t* input, std::uint8_t* output, std::int64_t rank,
                 std::int64_t size) {
    if (!is_ingress(program)) return;
    switch (program.type) {
        case ElementType::Int32:
            return ingress_typed<std::int32_t>(program, input, output, rank, size);
        case ElementType::Int64:
            return ingress_typed<std::int64_t>(program, input, output, rank, size);
        case ElementType::Float:
            return ingress_typed<float>(program, input, output, rank, size);
        case ElementType::Double:
            return ingress_typed<double>(program, input, output, rank, size);
    }
}

std::uint64_t ingress_cycles(const Program& program, std::int64_t size, unsigned processing_elements,
                             unsigned cycles_per_vector, unsigned pe_latency_cycles) {
    const IngressShape s = ingress_shape(program, size);
    const std::uint64_t units = std::uint64_t{processing_elements} * program.lanes;
    const std::uint64_t work = std::max(s.macs, s.output);
    return (work + units - 1) / units * cycles_per_vector + pe_latency_cycles;
}

std::uint64_t ingress_ready_cycles(const Program& program, std::int64_t size, std::int64_t rank, std::uint64_t done,
                                   unsigned processing_elements, unsigned cycles_per_vector,
                                   unsigned pe_latency_cycles) {
    const IngressShape s = ingress_shape(program, size);
    done = std::min(done, s.output);
    if (done == s.output)
        return ingress_cycles(program, size, processing_elements, cycles_per_vector, pe_latency_cycles);
    const std::uint64_t units = std::uint64_t{processing_elements} * program.lanes;
    const Instruction& ins = program.instructions.front();
    std::uint64_t work = 0;
    if (ins.opcode == CgraOpcode::Gemm) {
        work = done * (ins.immediate >> 16 & 0xFFFF);
    } else if (done > 0) {
        const auto cols = static_cast<std::int64_t>(ins.immediate & 0xFFFFFFFF);
        const auto w = static_cast<std::int64_t>(ins.immediate >> 32 & 0xFF);
        const std::int64_t needed =
            std::clamp<std::int64_t>(static_cast<std::int64_t>(done) - 1 - rank * cols + w + 1, 0, cols);
        work = std::max<std::uint64_t>(static_cast<std::uint64_t>(needed * (2 * w + 1)), done);
    }
    return (work + units - 1) / units * cycles_per_vector + pe_latency_cycles;
}

void run_program(const Program& program, std::uint8_t* data, std::size_t bytes, std::int64_t rank, std::int64_t size) {
    const std::size_t n = bytes / element_bytes(program.type);
    switch (program.type) {
        case ElementType::Int32:
            return run_typed<std::int32_t>(program, data, n, rank, size);
        case ElementType::Int64:
            return run_typed<std::int64_t>(program, data, n, rank, size);
        case ElementType::Float:
            return run_typed<float>(program, data, n, rank, size);
        case ElementType::Double:
            return run_typed<double>(program, data, n, rank, size);
    }
}

std::uint64_t program_cycles(const Program& program, std::uint64_t elements, unsigned cycles_per_vector,
                             unsigned pe_latency_cycles) {
    const std::uint64_t vectors = (elements + program.lanes - 1) / program.lanes;
    return vectors * cycles_per_vector + std::uint64_t{pe_latency_cycles} * program.instructions.size();
}

}  // namespace isvp::cgra
