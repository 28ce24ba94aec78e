// Nonblocking fused collectives (isvp_fused.h: MPIX_Iallreduce_op ...
// MPIX_Iallgather_prefix_allgatherv; docs/FUSED.md, "Nonblocking").
//
// Each call takes the blocking call's decision (the evaluator's rule) and
// returns a request made of stages that run in order:
//   - switch: the first collective (and the CGRA program, and for the fully
//     fused IS pattern the allgather the engine starts) posted at the call
//     (guest::Collectives::post_fused), collected when it has arrived;
//   - software: a nonblocking collective's round schedule (MPI_Iallreduce,
//     MPI_Iallgather, MPI_Ialltoall, MPI_Iallgatherv: the same algorithms
//     and operand order as the blocking calls), built when its stage starts
//     — its inputs are the previous stage's output — on the tag this call
//     reserved at the call, so the members' calls match in call order;
//   - local: the program on the host (cgra::run_program), copies, the
//     counts and displacements.
// A software stage is captured with schedule_capture() (as persistent
// collectives do), so it is this request's, not a request of its own.
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll_nonblocking.h"
#include "coll_util.h"
#include "fused_common.h"

namespace {

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Opcode;

/// A nonblocking fused call: its stages, advanced in order.
class FusedRequest final : public CollectiveProgress {
  public:
    /// True once the stage is done; may throw Error.
    using Stage = std::function<bool()>;

    void add(Stage stage) { stages_.push_back(std::move(stage)); }

    bool advance() override {
        while (current_ < stages_.size()) {
            if (!stages_[current_]()) return false;
            ++current_;
        }
        return true;
    }

  private:
    std::vector<Stage> stages_;
    std::size_t current_ = 0;  ///< the stage in progress
};

/// The stage that collects a post_fused() ticket.
FusedRequest::Stage switch_stage(std::uint64_t ticket) {
    return [ticket] {
        try {
            return collectives().collect_fused(ticket, false);
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
    };
}

/// A stage that runs `step` once.
FusedRequest::Stage local_stage(std::function<void()> step) {
    return [step = std::move(step)] {
        step();
        return true;
    };
}

/// A software stage: `start(&request)` (a PMPI_I... call) builds its round
/// schedule when the stage starts, on `tags`; then the schedule advances.
FusedRequest::Stage software_stage(std::vector<std::uint32_t> tags, std::function<int(MPI_Request*)> start) {
    auto schedule = std::make_shared<std::shared_ptr<RoundSchedule>>();
    return [tags = std::move(tags), start = std::move(start), schedule] {
        if (!*schedule) {
            ScheduleCapture capture{tags, nullptr};
            ScheduleCapture* const previous = schedule_capture();
            schedule_capture() = &capture;
            MPI_Request ignored = MPI_REQUEST_NULL;
            const int status = start(&ignored);
            schedule_capture() = previous;
            if (status != MPI_SUCCESS) fail(status, "the fused call's next collective could not be started");
            if (!capture.schedule) fail(MPI_ERR_INTERN, "the fused call's next collective made no schedule");
            *schedule = std::move(capture.schedule);
        }
        return (*schedule)->advance();
    };
}

/// The call's tags for its software stages: one per schedule phase, all the
/// call's collective tag (as every phase of one call: collective_tag).
std::vector<std::uint32_t> call_tags(Comm& comm) {
    return std::vector<std::uint32_t>(kMaxSchedulePhases, collective_tag(comm));
}

/// The checks every fused call starts with: an intra-communicator, a request.
Comm& check_fused_call(MPI_Comm comm, MPI_Request* request) {
    check_request_pointer(request);
    Comm& c = check_comm(comm);
    if (c.is_inter()) throw Error(MPI_ERR_COMM, "fused collectives need an intra-communicator");
    return c;
}

/// The program, copied: the user may free it before the request completes.
std::shared_ptr<const isvp::cgra::Program> keep(MPIX_Cgra_program program) {
    return std::make_shared<const isvp::cgra::Program>(program->program);
}

/// Adds the first half of a semi-fused call to `request`: the collective
/// and program posted to the switch when the evaluator's rule allows it
/// (returns true), else the software collective into `recvbuf` and the
/// program on the host. `recvbuf` holds `result_bytes` afterwards.
bool add_semi_fused(FusedRequest& request, Comm& c, MPI_Comm comm, Opcode collective, const void* sendbuf,
                    void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPIX_Cgra_program program,
                    const std::vector<std::uint32_t>& tags) {
    const Type& type = check_program_type(program, datatype);
    if (count < 0) throw Error(MPI_ERR_COUNT, "count is negative");
    const int size = c.size(), rank = c.rank();
    const auto n = static_cast<std::size_t>(count);
    const std::size_t result_bytes =
        n * type.size * (collective == Opcode::Allgather ? static_cast<std::size_t>(size) : 1u);
    if (count == 0) return false;
    if (result_bytes <= fused_threshold() && state().offload && !in_place(sendbuf)) {
        std::optional<std::uint64_t> ticket;
        if (collective == Opcode::Allreduce) {
            const Reduction reduction = check_reduction(count, datatype, op);
            if (const auto aglu = offload_reduction(c, Opcode::Allreduce, reduction, n))
                ticket =
                    collectives().post_fused(c.guest, collective, data_start(sendbuf, type), data_start(recvbuf, type),
                                             n, *aglu, *reduction.op->predefined, program->words);
        } else if (offload_bytes(c, Opcode::Allgather, n * type.size)) {
            ticket = collectives().post_fused(c.guest, collective, data_start(sendbuf, type), data_start(recvbuf, type),
                                              n, *type.aglu, std::nullopt, program->words);
        }
        if (ticket) {
            request.add(switch_stage(*ticket));
            return true;
        }
    }
    if (collective == Opcode::Allreduce) {
        check_reduction(count, datatype, op);
        request.add(software_stage(
            tags, [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r); }));
    } else {
        request.add(software_stage(tags, [=](MPI_Request* r) {
            return PMPI_Iallgather(sendbuf, count, datatype, recvbuf, count, datatype, comm, r);
        }));
    }
    request.add(local_stage([program = keep(program), recvbuf, result_bytes, rank, size] {
        isvp::cgra::run_program(*program, static_cast<std::uint8_t*>(recvbuf), result_bytes, rank, size);
    }));
    return false;
}

int semi_fused(const char* function, Opcode collective, const void* sendbuf, void* recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request) {
    return entry(function, comm, [&] {
        Comm& c = check_fused_call(comm, request);
        auto fused = std::make_shared<FusedRequest>();
        const bool offloaded =
            add_semi_fused(*fused, c, comm, collective, sendbuf, recvbuf, count, datatype, op, program, call_tags(c));
        last_offloaded = offloaded ? 1 : 0;
        *request = collective_request(function, comm, std::move(fused));
    });
}

}  // namespace

extern "C" {

int MPIX_Iallreduce_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request) {
    return semi_fused("MPIX_Iallreduce_op", Opcode::Allreduce, sendbuf, recvbuf, count, datatype, op, program, comm,
                      request);
}

int MPIX_Iallgather_op(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPIX_Cgra_program program,
                       MPI_Comm comm, MPI_Request* request) {
    return semi_fused("MPIX_Iallgather_op", Opcode::Allgather, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, program,
                      comm, request);
}

int MPIX_Iallreduce_op_alltoall(const void* sendbuf, void* opbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                MPI_Op op, MPIX_Cgra_program program, MPI_Comm comm, MPI_Request* request) {
    const char* function = "MPIX_Iallreduce_op_alltoall";
    return entry(function, comm, [&] {
        Comm& c = check_fused_call(comm, request);
        const int size = c.size();
        const Type& type = check_program_type(program, datatype);
        if (count < 0 || count % size != 0)
            throw Error(MPI_ERR_COUNT,
                        "count " + std::to_string(count) + " is not a multiple of the size " + std::to_string(size));
        const auto n = static_cast<std::size_t>(count);
        auto fused = std::make_shared<FusedRequest>();
        const std::vector<std::uint32_t> tags = call_tags(c);
        if (count > 0 && n * type.size <= fused_threshold() && state().offload && !in_place(sendbuf)) {
            const Reduction reduction = check_reduction(count, datatype, op);
            if (const auto aglu = offload_reduction(c, Opcode::Allreduce, reduction, n)) {
                // Fully fused: allreduce, program, alltoall of the outputs, all in the switch.
                const std::optional<std::uint64_t> ticket = collectives().post_fused(
                    c.guest, Opcode::Allreduce, data_start(sendbuf, type), data_start(opbuf, type), n, *aglu,
                    *reduction.op->predefined, program->words, data_start(recvbuf, type));
                if (ticket) {
                    fused->add(switch_stage(*ticket));
                    last_offloaded = 2;
                    *request = collective_request(function, comm, std::move(fused));
                    return;
                }
            }
        }
        // As the blocking call: semi-fused (switch or host), then the Alltoall in software.
        last_offloaded =
            add_semi_fused(*fused, c, comm, Opcode::Allreduce, sendbuf, opbuf, count, datatype, op, program, tags) ? 1
                                                                                                                   : 0;
        if (count > 0) {
            const int block = count / size;
            fused->add(software_stage(tags, [=](MPI_Request* r) {
                return PMPI_Ialltoall(opbuf, block, datatype, recvbuf, block, datatype, comm, r);
            }));
        }
        *request = collective_request(function, comm, std::move(fused));
    });
}

int MPIX_Iallgather_prefix_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype datatype, void* recvbuf,
                                      int recvcounts[], int displs[], MPI_Comm comm, MPI_Request* request) {
    const char* function = "MPIX_Iallgather_prefix_allgatherv";
    return entry(function, comm, [&] {
        Comm& c = check_fused_call(comm, request);
        if (!recvcounts || !displs) throw Error(MPI_ERR_ARG, "recvcounts or displs is NULL");
        if (sendcount < 0) throw Error(MPI_ERR_COUNT, "sendcount is negative");
        check_datatype(datatype);
        const int size = c.size();
        // The counts' allgather and an inclusive PREFIX_SUM (int32, 1 lane): the ends of the blocks.
        struct Counts {
            int mine = 0;
            std::vector<int> ends;
            MPIX_Cgra_program_s prefix;
        };
        auto counts = std::make_shared<Counts>();
        counts->mine = sendcount;
        counts->ends.assign(static_cast<std::size_t>(size), 0);
        counts->prefix.program.type = isvp::cgra::ElementType::Int32;
        counts->prefix.program.lanes = 1;
        counts->prefix.program.instructions.push_back(
            {isvp::cgra::CgraOpcode::PrefixSum, isvp::cgra::CgraOperand::Immediate, 0});
        counts->prefix.words = isvp::cgra::encode(counts->prefix.program);
        auto fused = std::make_shared<FusedRequest>();
        const std::vector<std::uint32_t> tags = call_tags(c);
        const auto fill_counts = local_stage([counts, recvcounts, displs, size] {
            for (int i = 0; i < size; ++i) {
                displs[i] = i == 0 ? 0 : counts->ends[static_cast<std::size_t>(i) - 1];
                recvcounts[i] = counts->ends[static_cast<std::size_t>(i)] - displs[i];
            }
        });
        const auto gatherv = software_stage(tags, [=](MPI_Request* r) {
            return PMPI_Iallgatherv(sendbuf, sendcount, datatype, recvbuf, recvcounts, displs, datatype, comm, r);
        });
        // Fully fused as the blocking call (same conditions): both requests
        // posted now, the engine starts the data's when the prefix sum is done.
        const Type& type = check_datatype(datatype);
        if (state().offload && !in_place(sendbuf) && type.contiguous && type.aglu && type.uniform_count == 1 &&
            static_cast<std::size_t>(size) * 4 <= fused_threshold()) {
            std::optional<std::uint64_t> ticket;
            try {
                ticket = collectives().post_fused_allgatherv(c.guest, sendcount, counts->ends.data(),
                                                             data_start(sendbuf, type), data_start(recvbuf, type),
                                                             *type.aglu, counts->prefix.words);
            } catch (const isvp::guest::DriverError& e) {
                throw Error(MPI_ERR_OTHER, e.what());
            }
            if (ticket) {
                // Path 1: the blocks exceed the switch's buffer (every member
                // learns it from the ends): they are gathered in software,
                // and MPIX_Fused_last_offloaded() says 1 from then on, as
                // the blocking call does (unless a later fused call set it).
                last_offloaded = 2;
                auto path = std::make_shared<int>(0);
                fused->add([ticket = *ticket, path, call = last_offloaded.call] {
                    try {
                        const bool in = collectives().collect_fused(ticket, false, path.get());
                        if (in && *path == 1 && last_offloaded.call == call) last_offloaded.path = 1;
                        return in;
                    } catch (const isvp::guest::DriverError& error) {
                        fail(MPI_ERR_OTHER, error.what());
                    }
                });
                fused->add(fill_counts);
                fused->add([path, gatherv] { return *path != 1 || gatherv(); });
                *request = collective_request(function, comm, std::move(fused));
                return;
            }
        }
        last_offloaded = add_semi_fused(*fused, c, comm, Opcode::Allgather, &counts->mine, counts->ends.data(), 1,
                                        MPI_INT, MPI_OP_NULL, &counts->prefix, tags)
                             ? 1
                             : 0;
        fused->add(fill_counts);
        fused->add(gatherv);
        *request = collective_request(function, comm, std::move(fused));
    });
}

}  // extern "C"
