// Higher-order collectives (include/isvp_fused.h, docs/FUSED.md): PGEMM and a
// banded SpMV whose multiply-accumulates run in the CGRA as the operands
// enter the switch (an ingress kernel) and whose partial sums are added in
// transit by the switches' reduce-scatter. The host baseline runs the same
// kernel (cgra::run_ingress) on the host and MPI_Reduce_scatter_block:
// identical bytes whenever both reduce-scatters fold in the same order (the
// switch's), integers always.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "coll_util.h"
#include "isvp/cgra.h"
#include "isvp_fused.h"
#include "mpi_impl.h"

namespace isvp::mpi {
namespace {

using namespace coll;

int last_path = 0;

/// ISVP_MPI_HOC_THRESHOLD: the largest kernel output (bytes: the partial C
/// or y every rank makes) offloaded; 256 KiB by default.
std::size_t hoc_threshold() {
    const char* text = std::getenv("ISVP_MPI_HOC_THRESHOLD");
    if (!text || !*text) return 262144;
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (*end != '\0' || value < 0)
        throw Error(MPI_ERR_ARG, std::string("ISVP_MPI_HOC_THRESHOLD must be a byte count >= 0, got '") + text + "'");
    return static_cast<std::size_t>(value);
}

/// ISVP_MPI_HOST_MAC_PS: simulated ps the host baseline charges per
/// multiply-accumulate of its kernel (0 by default: host computation is not
/// charged, as with --compute-scale 0; deterministic unlike measured CPU time).
std::uint64_t host_mac_ps() {
    const char* text = std::getenv("ISVP_MPI_HOST_MAC_PS");
    if (!text || !*text) return 0;
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (*end != '\0' || value < 0 || value > 1000000)
        throw Error(MPI_ERR_ARG,
                    std::string("ISVP_MPI_HOST_MAC_PS must be picoseconds 0..1000000, got '") + text + "'");
    return static_cast<std::uint64_t>(value);
}

cgra::ElementType element_type(const Type& type) {
    if (type.contiguous && type.aglu && type.uniform_count == 1) {
        switch (*type.aglu) {
            case isvp::Datatype::Int32:
                return cgra::ElementType::Int32;
            case isvp::Datatype::Int64:
                return cgra::ElementType::Int64;
            case isvp::Datatype::Float32:
                return cgra::ElementType::Float;
            case isvp::Datatype::Float64:
                return cgra::ElementType::Double;
            default:
                break;
        }
    }
    throw Error(MPI_ERR_TYPE, "higher-order collectives take MPI_INT, a 64-bit integer, MPI_FLOAT or MPI_DOUBLE");
}

/// One ingress kernel: inputs `parts` (concatenated) -> kernel -> reduce-
/// scatter (sum) of `count` elements per rank into `out`. `check` runs the
/// call's own argument checks (given the communicator's size) and returns
/// the kernel's immediate.
template <class Check>
int ingress_call(const char* function, std::vector<std::pair<const void*, std::size_t>> parts, void* out,
                 MPI_Datatype datatype, cgra::CgraOpcode opcode, MPI_Comm comm, Check&& check) {
    cgra::Program program;
    std::vector<std::uint8_t> input;
    std::size_t count = 0;
    int rank = 0, size = 0;
    bool offloaded = false;
    std::uint64_t charge_ps = 0;
    const int checked = entry(function, comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) throw Error(MPI_ERR_COMM, "higher-order collectives need an intra-communicator");
        const Type& type = check_datatype(datatype);
        program.type = element_type(type);
        program.lanes = 1;
        size = c.size();
        rank = c.rank();
        std::size_t elements = 0;  // per part, from check(): counts in elements
        const std::uint64_t immediate = check(size, count, parts);
        program.instructions.push_back({opcode, cgra::CgraOperand::Immediate, immediate});
        const cgra::IngressShape shape = cgra::ingress_shape(program, size);
        for (const auto& [buffer, n] : parts) {
            if (!buffer && n) throw Error(MPI_ERR_BUFFER, "an input buffer is NULL");
            elements += n;
        }
        if (!out && count) throw Error(MPI_ERR_BUFFER, "the output buffer is NULL");
        if (elements != shape.input || shape.output != count * static_cast<std::size_t>(size))
            throw Error(MPI_ERR_INTERN, "kernel shape disagrees with the arguments");
        input.resize(elements * type.size);
        std::size_t at = 0;
        for (const auto& [buffer, n] : parts) {
            if (n) std::memcpy(input.data() + at, data_start(buffer, type), n * type.size);
            at += n * type.size;
        }
        charge_ps = host_mac_ps() * shape.macs;  // if the host runs the kernel
        if (!state().offload || shape.output * type.size > hoc_threshold()) return;
        // Longer lanes than 1 change nothing but the program's words: the
        // kernel's timing uses every PE's lanes (cgra::ingress_cycles).
        const std::vector<std::uint32_t> words = cgra::encode(program);
        offloaded = collectives().ingress_reduce_scatter(c.guest, input.data(), input.size(), data_start(out, type),
                                                         count, *type.aglu, words);
    });
    if (checked != MPI_SUCCESS) return checked;
    last_path = offloaded ? 1 : 0;
    if (offloaded) return MPI_SUCCESS;
    // Host baseline: the same kernel on the host, the partial sums by MPI.
    const std::size_t element = cgra::element_bytes(program.type);
    std::vector<std::uint8_t> partial(count * static_cast<std::size_t>(size) * element);
    cgra::run_ingress(program, input.data(), partial.data(), rank, size);
    if (charge_ps) state().transport->compute(charge_ps);
    return PMPI_Reduce_scatter_block(partial.data(), out, static_cast<int>(count), datatype, MPI_SUM, comm);
}

}  // namespace
}  // namespace isvp::mpi

using namespace isvp::mpi;  // NOLINT: the C entry points below

extern "C" {

int MPIX_Pgemm(const void* a, const void* b, void* c, int m, int n, int k, MPI_Datatype datatype, MPI_Comm comm) {
    return ingress_call(
        "MPIX_Pgemm", {}, c, datatype, isvp::cgra::CgraOpcode::Gemm, comm,
        [&](int size, std::size_t& count, std::vector<std::pair<const void*, std::size_t>>& parts) -> std::uint64_t {
            if (m <= 0 || n <= 0 || k <= 0)
                throw Error(MPI_ERR_DIMS, "m, n and k must be positive, got m " + std::to_string(m) + ", n " +
                                              std::to_string(n) + ", k " + std::to_string(k));
            const std::string p = " is not a multiple of the communicator size " + std::to_string(size);
            if (m % size != 0) throw Error(MPI_ERR_DIMS, "m " + std::to_string(m) + p);
            if (k % size != 0) throw Error(MPI_ERR_DIMS, "k " + std::to_string(k) + p);
            const int kl = k / size;
            if (m > 0xFFFF || n > 0xFFFF || kl > 0xFFFF)
                throw Error(MPI_ERR_DIMS, "m, n and k / size must be at most 65535 (the CGRA's GEMM fields)");
            const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n),
                       ukl = static_cast<std::size_t>(kl);
            if (!a) throw Error(MPI_ERR_BUFFER, "a (this rank's m x k/size column block of A) is NULL");
            if (!b) throw Error(MPI_ERR_BUFFER, "b (this rank's k/size x n row block of B) is NULL");
            if (!c) throw Error(MPI_ERR_BUFFER, "c (this rank's m/size x n row block of C) is NULL");
            parts = {{a, um * ukl}, {b, ukl * un}};
            count = um / static_cast<std::size_t>(size) * un;
            return um | static_cast<std::uint64_t>(ukl) << 16 | static_cast<std::uint64_t>(un) << 32;
        });
}

int MPIX_Spmv_band(const void* band, const void* x, void* y, int cols, int halfwidth, MPI_Datatype datatype,
                   MPI_Comm comm) {
    return ingress_call(
        "MPIX_Spmv_band", {}, y, datatype, isvp::cgra::CgraOpcode::SpmvBand, comm,
        [&](int, std::size_t& count, std::vector<std::pair<const void*, std::size_t>>& parts) -> std::uint64_t {
            if (cols <= 0) throw Error(MPI_ERR_DIMS, "cols must be positive, got " + std::to_string(cols));
            if (halfwidth < 0 || halfwidth > 255)
                throw Error(MPI_ERR_DIMS, "halfwidth must be 0..255, got " + std::to_string(halfwidth));
            if (!band) throw Error(MPI_ERR_BUFFER, "band (this rank's cols x (2 halfwidth + 1) values) is NULL");
            if (!x) throw Error(MPI_ERR_BUFFER, "x (this rank's cols elements of the vector) is NULL");
            if (!y) throw Error(MPI_ERR_BUFFER, "y (this rank's cols elements of the result) is NULL");
            const auto uc = static_cast<std::size_t>(cols), w = static_cast<std::size_t>(halfwidth);
            parts = {{band, uc * (2 * w + 1)}, {x, uc}};
            count = uc;
            return uc | static_cast<std::uint64_t>(w) << 32;
        });
}

int MPIX_Hoc_last_offloaded(void) {
    return last_path;
}

}  // extern "C"
