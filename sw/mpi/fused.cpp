// SmartFuse fused collectives (include/isvp_fused.h, docs/FUSED.md): the
// first collective and its CGRA program in the switch when the evaluator's
// rule allows it (offload on, the call would offload, the op's array at
// most ISVP_MPI_FUSED_THRESHOLD bytes), otherwise the plain MPI calls and
// the same program (cgra::run_program) on the host. The second collective
// is the shim's MPI call either way. Each phase is its own top-level MPI
// call (its own collective tag), as a user writing them out would have.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "coll_util.h"
#include "fused_common.h"

namespace isvp::mpi {

using namespace coll;

LastOffloaded last_offloaded;

/// ISVP_MPI_FUSED_THRESHOLD: the largest op array (bytes) offloaded; 16 KiB by default.
std::size_t fused_threshold() {
    const char* text = std::getenv("ISVP_MPI_FUSED_THRESHOLD");
    if (!text || !*text) return 16384;
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (*end != '\0' || value < 0)
        throw Error(MPI_ERR_ARG, std::string("ISVP_MPI_FUSED_THRESHOLD must be a byte count >= 0, got '") + text + "'");
    return static_cast<std::size_t>(value);
}

/// The CGRA element type `datatype` is, checked against the program's.
const Type& check_program_type(MPIX_Cgra_program program, MPI_Datatype datatype) {
    if (!program) throw Error(MPI_ERR_ARG, "the CGRA program is MPIX_CGRA_PROGRAM_NULL");
    const Type& type = check_datatype(datatype);
    std::optional<cgra::ElementType> element;
    if (type.contiguous && type.aglu && type.uniform_count == 1) {
        switch (*type.aglu) {
            case isvp::Datatype::Int32:
                element = cgra::ElementType::Int32;
                break;
            case isvp::Datatype::Int64:
                element = cgra::ElementType::Int64;
                break;
            case isvp::Datatype::Float32:
                element = cgra::ElementType::Float;
                break;
            case isvp::Datatype::Float64:
                element = cgra::ElementType::Double;
                break;
            default:
                break;
        }
    }
    if (cgra::is_ingress(program->program))
        throw Error(MPI_ERR_ARG, "an ingress kernel (GEMM, SPMV_BAND) runs only in MPIX_Pgemm / MPIX_Spmv_band");
    if (!element)
        throw Error(MPI_ERR_TYPE, "fused collectives take MPI_INT, a 64-bit integer, MPI_FLOAT or MPI_DOUBLE");
    if (*element != program->program.type)
        throw Error(MPI_ERR_TYPE, "the datatype is not the CGRA program's element type (word 0, bits [19:16] = " +
                                      std::to_string(static_cast<unsigned>(program->program.type)) + ")");
    return type;
}

namespace {

/// Semi-fused first half: collective + program. Offloaded (returns true) or
/// the plain call and the program on the host.
int semi_fused(const char* function, Opcode collective, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm) {
    bool offloaded = false;
    std::size_t result_bytes = 0;
    int size = 0, rank = 0;
    const int checked = entry(function, comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) throw Error(MPI_ERR_COMM, "fused collectives need an intra-communicator");
        const Type& type = check_program_type(program, datatype);
        if (count < 0) throw Error(MPI_ERR_COUNT, "count is negative");
        size = c.size();
        rank = c.rank();
        const auto n = static_cast<std::size_t>(count);
        result_bytes = n * type.size * (collective == Opcode::Allgather ? static_cast<std::size_t>(size) : 1u);
        if (count == 0 || result_bytes > fused_threshold() || !state().offload) return;
        if (collective == Opcode::Allreduce) {
            const Reduction reduction = check_reduction(count, datatype, op);
            const auto aglu = offload_reduction(c, Opcode::Allreduce, reduction, n);
            if (!aglu || in_place(sendbuf)) return;
            offloaded = collectives().fused(c.guest, collective, data_start(sendbuf, type), data_start(recvbuf, type),
                                            n, *aglu, *reduction.op->predefined, program->words, true);
        } else {
            if (in_place(sendbuf) || !offload_bytes(c, Opcode::Allgather, n * type.size)) return;
            offloaded = collectives().fused(c.guest, collective, data_start(sendbuf, type), data_start(recvbuf, type),
                                            n, *type.aglu, std::nullopt, program->words, true);
        }
    });
    if (checked != MPI_SUCCESS) return checked;
    last_offloaded = offloaded ? 1 : 0;
    if (offloaded || count == 0) return MPI_SUCCESS;
    const int plain = collective == Opcode::Allreduce
                          ? PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)
                          : PMPI_Allgather(sendbuf, count, datatype, recvbuf, count, datatype, comm);
    if (plain != MPI_SUCCESS) return plain;
    cgra::run_program(program->program, static_cast<std::uint8_t*>(recvbuf), result_bytes, rank, size);
    return MPI_SUCCESS;
}

}  // namespace
}  // namespace isvp::mpi

using namespace isvp::mpi;  // NOLINT: the C entry points below
using namespace isvp::mpi::coll;
using isvp::Opcode;

extern "C" {

int MPIX_Cgra_program_create(const uint32_t words[], int nwords, MPIX_Cgra_program* program) {
    return entry("MPIX_Cgra_program_create", MPI_COMM_WORLD, [&] {
        if (!program) throw Error(MPI_ERR_ARG, "program is NULL");
        *program = MPIX_CGRA_PROGRAM_NULL;
        if (nwords < 0 || (nwords > 0 && !words)) throw Error(MPI_ERR_ARG, "words is NULL or nwords negative");
        std::vector<std::uint32_t> w(words, words + nwords);
        const isvp::cgra::LoadOutcome out = isvp::cgra::decode(w, isvp::cgra::Limits{isvp::cgra::kMaxInstructions, 64});
        // With offload on the switch's CGRA checks it (and keeps it loaded).
        try {
            if (state().offload) collectives().cgra_check(w);
        } catch (const isvp::guest::DriverError& e) {
            throw Error(MPI_ERR_ARG, e.what());
        }
        if (!out.program) throw Error(MPI_ERR_ARG, out.why);
        auto made = std::make_unique<MPIX_Cgra_program_s>();
        made->words = std::move(w);
        made->program = *out.program;
        *program = made.release();
    });
}

int MPIX_Cgra_program_free(MPIX_Cgra_program* program) {
    return entry("MPIX_Cgra_program_free", MPI_COMM_WORLD, [&] {
        if (!program) throw Error(MPI_ERR_ARG, "program is NULL");
        delete *program;
        *program = MPIX_CGRA_PROGRAM_NULL;
    });
}

int MPIX_Allreduce_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPIX_Cgra_program program, MPI_Comm comm) {
    return semi_fused("MPIX_Allreduce_op", Opcode::Allreduce, sendbuf, recvbuf, count, datatype, op, program, comm);
}

int MPIX_Allgather_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPIX_Cgra_program program,
                      MPI_Comm comm) {
    return semi_fused("MPIX_Allgather_op", Opcode::Allgather, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, program,
                      comm);
}

int MPIX_Allreduce_op_alltoall(const void* sendbuf, void* opbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm) {
    int size = 0;
    bool fused = false;
    const int checked = entry("MPIX_Allreduce_op_alltoall", comm, [&] {
        Comm& c = check_comm(comm);
        if (c.is_inter()) throw Error(MPI_ERR_COMM, "fused collectives need an intra-communicator");
        size = c.size();
        const Type& type = check_program_type(program, datatype);
        if (count < 0 || count % size != 0)
            throw Error(MPI_ERR_COUNT,
                        "count " + std::to_string(count) + " is not a multiple of the size " + std::to_string(size));
        const auto n = static_cast<std::size_t>(count);
        if (count == 0 || n * type.size > fused_threshold() || !state().offload || in_place(sendbuf)) return;
        const Reduction reduction = check_reduction(count, datatype, op);
        const auto aglu = offload_reduction(c, Opcode::Allreduce, reduction, n);
        if (!aglu) return;
        // Fully fused: the switch runs the allreduce, the program and the
        // alltoall of the outputs (any size: docs/FUSED.md).
        fused = collectives().fused_allreduce_alltoall(c.guest, data_start(sendbuf, type), data_start(opbuf, type),
                                                       data_start(recvbuf, type), n, *aglu, *reduction.op->predefined,
                                                       program->words);
    });
    if (checked != MPI_SUCCESS) return checked;
    if (fused) {
        last_offloaded = 2;
        return MPI_SUCCESS;
    }
    const int first = MPIX_Allreduce_op(sendbuf, opbuf, count, datatype, op, program, comm);
    if (first != MPI_SUCCESS) return first;
    return PMPI_Alltoall(opbuf, count / size, datatype, recvbuf, count / size, datatype, comm);
}

int MPIX_Allgather_prefix_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype datatype, void* recvbuf,
                                     int recvcounts[], int displs[], MPI_Comm comm) {
    static MPIX_Cgra_program prefix = MPIX_CGRA_PROGRAM_NULL;  // PREFIX_SUM inclusive on int32, 1 lane
    int size = 0;
    const int checked = entry("MPIX_Allgather_prefix_allgatherv", comm, [&] {
        size = check_comm(comm).size();
        if (!recvcounts || !displs) throw Error(MPI_ERR_ARG, "recvcounts or displs is NULL");
        if (sendcount < 0) throw Error(MPI_ERR_COUNT, "sendcount is negative");
    });
    if (checked != MPI_SUCCESS) return checked;
    // Fully fused in the switch when it can (docs/FUSED.md): the counts'
    // allgather, the prefix sum and the data's allgather with unequal
    // counts, the second started by the engine.
    int fully = 0;
    const int attempted = entry("MPIX_Allgather_prefix_allgatherv", comm, [&] {
        Comm& c = check_comm(comm);
        const Type& type = check_datatype(datatype);
        if (c.is_inter() || !state().offload || in_place(sendbuf) || !type.contiguous || !type.aglu ||
            type.uniform_count != 1 || static_cast<std::size_t>(size) * 4 > fused_threshold())
            return;
        isvp::cgra::Program p;
        p.type = isvp::cgra::ElementType::Int32;
        p.lanes = 1;
        p.instructions.push_back({isvp::cgra::CgraOpcode::PrefixSum, isvp::cgra::CgraOperand::Immediate, 0});
        std::vector<std::int32_t> ends(static_cast<std::size_t>(size));
        try {
            fully =
                collectives().fused_allgather_allgatherv(c.guest, sendcount, ends.data(), data_start(sendbuf, type),
                                                         data_start(recvbuf, type), *type.aglu, isvp::cgra::encode(p));
        } catch (const isvp::guest::DriverError& e) {
            throw Error(MPI_ERR_OTHER, e.what());
        }
        if (!fully) return;
        for (int i = 0; i < size; ++i) {
            displs[i] = i == 0 ? 0 : ends[static_cast<std::size_t>(i) - 1];
            recvcounts[i] = ends[static_cast<std::size_t>(i)] - displs[i];
        }
    });
    if (attempted != MPI_SUCCESS) return attempted;
    if (fully) {
        last_offloaded = fully;
        return MPI_SUCCESS;
    }
    if (!prefix) {
        isvp::cgra::Program p;
        p.type = isvp::cgra::ElementType::Int32;
        p.lanes = 1;
        p.instructions.push_back({isvp::cgra::CgraOpcode::PrefixSum, isvp::cgra::CgraOperand::Immediate, 0});
        const std::vector<std::uint32_t> words = isvp::cgra::encode(p);
        const int made = MPIX_Cgra_program_create(words.data(), static_cast<int>(words.size()), &prefix);
        if (made != MPI_SUCCESS) return made;
    }
    std::vector<int> ends(static_cast<std::size_t>(size));
    const int first = MPIX_Allgather_op(&sendcount, ends.data(), 1, MPI_INT, prefix, comm);
    if (first != MPI_SUCCESS) return first;
    for (int i = 0; i < size; ++i) {
        displs[i] = i == 0 ? 0 : ends[static_cast<std::size_t>(i) - 1];
        recvcounts[i] = ends[static_cast<std::size_t>(i)] - displs[i];
    }
    return PMPI_Allgatherv(sendbuf, sendcount, datatype, recvbuf, recvcounts, displs, datatype, comm);
}

int MPIX_Fused_last_offloaded(void) {
    return last_offloaded.path;
}

}  // extern "C"
