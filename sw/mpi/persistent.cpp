// MPI 4.0 persistent collectives (§6.12): MPI_Barrier_init ...
// MPI_Exscan_init. The _init call checks the arguments as the blocking call
// does (the messages name the _init call) and returns an inactive request;
// MPI_Start / MPI_Startall run the collective once more, MPI_Wait / Test
// and friends complete it, MPI_Request_free frees the inactive request.
//
// Offload. _init takes the blocking call's offload decision (the same
// function of the arguments: offload_bytes / offload_reduction,
// docs/MPI.md). When the call goes to the switch, _init gives the request a
// switch context of its own — a private copy of the communicator, agreed by
// the members and its communicator-table row loaded once, here — and every
// MPI_Start posts the request to the switch on that context
// (guest::Collectives::post) without waiting; the completion calls collect
// the result when it has arrived (guest::Collectives::collect). The row
// stays loaded until MPI_Request_free, which is therefore collective over
// the communicator for an offloaded request (a software barrier before the
// row goes: no member's switch may still be serving the last run). When no
// context is free on every member, or the row cannot be loaded everywhere,
// the members agree to run the request in software.
//
// Software. Otherwise each MPI_Start builds the nonblocking call's round
// schedule (coll_nonblocking*.cpp: the same algorithms and operand order as
// the blocking call, so bit-identical results) on tags reserved once at
// _init. Matching therefore follows the order of the _init calls, not of
// the starts: members may start different persistent collectives of one
// communicator in different orders (MPI 4.0 §6.12), in software and
// offloaded alike (each offloaded request has its own context).
//
// Link faults (docs/MPI.md, Link faults). A software start watches for them
// as a nonblocking collective does (abort notices, lost messages). As every
// start reuses the reserved tags, a failed start breaks the request for
// good (SoftwareRequest): later starts fail and tell the other members, so
// that no start takes a message left over from a failed one.
#include <cstring>
#include <string>
#include <vector>

#include "coll_nonblocking.h"
#include "coll_util.h"
#include "registry.h"

using namespace isvp::mpi;
using namespace isvp::mpi::coll;
using isvp::Opcode;

namespace {

using Starter = std::function<std::shared_ptr<CollectiveProgress>()>;

/// A software persistent request's state over its starts. A start that
/// fails (a link fault: docs/MPI.md, Link faults) may leave its members'
/// messages on the reserved tags, which a later start would take silently
/// as its own; so the first failed start breaks the request for good: every
/// later MPI_Start of it fails (MPI 4.0 §2.8: state undefined after an
/// error) and tells the other members again.
struct SoftwareRequest {
    std::vector<std::uint32_t> tags;  ///< reserved at _init, one per phase
    std::shared_ptr<Comm> comm;
    std::uint64_t starts = 0;     ///< MPI_Start calls so far
    std::uint64_t broken_at = 0;  ///< the start that failed; 0: none
    std::string broken;           ///< why it failed
    /// Records the first failure (`why`) of start `start`.
    void break_at(std::uint64_t start, const std::string& why) {
        if (broken_at != 0) return;
        broken_at = start;
        broken = why;
    }
};

/// One start of a software persistent request: its schedule; a failure
/// breaks the request.
class SoftwareRun final : public CollectiveProgress {
  public:
    SoftwareRun(std::shared_ptr<SoftwareRequest> request, std::shared_ptr<CollectiveProgress> schedule)
        : request_(std::move(request)), schedule_(std::move(schedule)), start_(request_->starts) {}
    bool advance() override {
        try {
            return schedule_->advance();
        } catch (const Error& error) {
            request_->break_at(start_, error.what());
            throw;
        }
    }

  private:
    std::shared_ptr<SoftwareRequest> request_;
    std::shared_ptr<CollectiveProgress> schedule_;
    std::uint64_t start_;  ///< which start of the request this is
};

/// A software persistent collective: `call(&request)` is the nonblocking
/// call with the _init's arguments; each start runs it with a capture so
/// that it hands over its schedule on the tags reserved here.
template <class Call>
Starter software(Comm& c, Call call) {
    auto request = std::make_shared<SoftwareRequest>();
    for (int phase = 0; phase < kMaxSchedulePhases; ++phase) request->tags.push_back(collective_tag(c));
    request->comm = communicators().shared(c.handle);
    return [request, call]() -> std::shared_ptr<CollectiveProgress> {
        const std::uint64_t start = ++request->starts;
        if (request->broken_at != 0)
            abort_collective(*request->comm, request->tags.front(),
                             "start " + std::to_string(start) + " of a persistent collective whose start " +
                                 std::to_string(request->broken_at) + " failed: " + request->broken);
        try {
            // A member gave an earlier start up, or this one before this rank started it.
            for (const std::uint32_t tag : request->tags) check_collective_abort(*request->comm, tag);
        } catch (const Error& error) {
            request->break_at(start, error.what());
            throw;
        }
        ScheduleCapture capture{request->tags, nullptr};
        ScheduleCapture* const previous = schedule_capture();
        schedule_capture() = &capture;
        MPI_Request ignored = MPI_REQUEST_NULL;
        const int status = call(&ignored);
        schedule_capture() = previous;
        if (status != MPI_SUCCESS) fail(status, "the collective could not be started");
        if (!capture.schedule) fail(MPI_ERR_INTERN, "the collective made no schedule");
        return std::make_shared<SoftwareRun>(request, std::move(capture.schedule));
    };
}

/// One MPI_Start of an offloaded persistent collective: the request posted
/// to the switch; complete once its result has arrived and `finish` (the
/// unpacking into a non-contiguous receive buffer) has run.
class OffloadedRun final : public CollectiveProgress {
  public:
    bool advance() override {
        if (done_) return true;
        try {
            if (!collectives().collect(posted, false)) return false;
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
        done_ = true;
        if (finish) finish();
        return true;
    }

    isvp::guest::Collectives::Posted posted;
    std::vector<std::uint8_t> staging;  ///< the result when it cannot go to the user's buffer directly
    std::vector<std::uint8_t> packed;   ///< the contribution, packed at MPI_Start, when its layout is not contiguous
    std::function<void()> finish;

  private:
    bool done_ = false;
};

/// An offloaded persistent collective's own switch context.
struct Context {
    isvp::guest::Communicator guest;
    /// An MPI view of it, for the offload decision (offload_bytes / offload_reduction).
    Comm view() const {
        Comm comm;
        comm.guest = guest;
        return comm;
    }
};

/// When `offloads(comm)` says the blocking call would go to the switch: a
/// private context for the request (collective over `c`, every member
/// decides alike), or nullptr when the request runs in software.
template <class Offloads>
std::shared_ptr<Context> offload_context(Comm& c, Offloads offloads) {
    if (c.size() == 1 || !offloads(c)) return nullptr;
    auto context = std::make_shared<Context>();
    try {
        context->guest = collectives().dup(c.guest);
    } catch (const isvp::guest::LinkFaultError&) {
        // Its members may disagree on the outcome: the _init fails (an MPI
        // error naming the fault) rather than run in software here while
        // the others go to the switch.
        throw;
    } catch (const isvp::guest::DriverError&) {
        return nullptr;  // no ID free on every member: all of them see the same
    }
    Comm view = context->view();
    if (!offloads(view)) {  // the row could not be loaded on every member
        collectives().free(context->guest);
        return nullptr;
    }
    return context;
}

/// An offloaded start: `post(context, run)` posts the request (and fills
/// run.finish); counted by ISVP_MPI_STATS.
template <class Post>
Starter offloaded(std::shared_ptr<Context> context, Post post) {
    return [context, post]() -> std::shared_ptr<CollectiveProgress> {
        note_offload(true);
        auto run = std::make_shared<OffloadedRun>();
        try {
            post(context->guest, *run);
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
        return run;
    };
}

/// A software start that counts as a decided-not-offloaded call (the
/// collectives that may go to the switch, with data).
Starter counted(Starter start, bool count) {
    if (!count) return start;
    return [start]() {
        note_offload(false);
        return start();
    };
}

/// Frees an offloaded request's context (collective: see the file comment).
std::function<void()> releaser(const std::shared_ptr<Context>& context) {
    if (!context) return nullptr;
    return [context] {
        try {
            collectives().free(context->guest);
        } catch (const isvp::guest::DriverError& error) {
            fail(MPI_ERR_OTHER, error.what());
        }
    };
}

/// The common frame of every _init: checks, the request.
template <class Body>
int persistent_init(const char* function, MPI_Comm comm, MPI_Info info, MPI_Request* request, Body body) {
    return entry(function, comm, [&] {
        Comm& c = check_comm(comm);
        unsupported_on_inter(c, function);  // MPI 4.0 defines them there; isvp does not run them yet
        check_hints(info);
        check_request_pointer(request);
        std::function<void()> release;
        Starter start = body(c, release);
        *request = persistent_collective_request(function, comm, std::move(start), std::move(release));
    });
}

std::shared_ptr<Type> held(MPI_Datatype handle) {
    return handle == MPI_DATATYPE_NULL ? nullptr : datatypes().shared(handle);
}

std::vector<int> copy_of(const int* values, int n) {
    return values == nullptr ? std::vector<int>() : std::vector<int>(values, values + n);
}
/// Where an offloaded data-movement result of `count` elements of `type`
/// at `buffer` lands: the buffer itself when contiguous, else run.staging,
/// unpacked by run.finish.
std::uint8_t* result_target(OffloadedRun& run, void* buffer, std::size_t count, std::shared_ptr<Type> type) {
    if (count == 0) return nullptr;
    if (type->contiguous) return data_start(buffer, *type);
    run.staging.resize(count * type->size);
    run.finish = [&run, buffer, count, type] { unpack_from(run.staging.data(), count, *type, buffer); };
    return run.staging.data();
}

/// Packed bytes of `count` elements of `type` at `buffer`.
std::vector<std::uint8_t> packed_copy(const void* buffer, std::size_t count, const Type& type) {
    std::vector<std::uint8_t> packed(count * type.size);
    if (!packed.empty()) pack_into(buffer, count, type, packed.data());
    return packed;
}

/// Reduce_scatter_block, and Reduce_scatter with every count equal
/// (`own` elements per rank), offloaded as the blocking calls.
Starter reduce_scatter_offloaded(const std::shared_ptr<Context>& context, const void* sendbuf, void* recvbuf,
                                 std::size_t own, MPI_Datatype datatype, isvp::Operation operation,
                                 isvp::Datatype element) {
    const auto t = held(datatype);
    return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
        const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
        const std::uint8_t* packed = packed_view(input, own * static_cast<std::size_t>(guest.size()), *t, run.packed);
        run.posted = collectives().post(guest, Opcode::ReduceScatter, element, operation, aglu_elements(own, *t), 0,
                                        packed, result_target(run, recvbuf, own, t));
    });
}

}  // namespace

extern "C" {

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Barrier_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const auto context = offload_context(c, [](Comm& on) {
            return collectives().would_offload(on.guest, Opcode::Barrier, std::nullopt, isvp::Datatype::UInt8, 0);
        });
        release = releaser(context);
        if (context)
            return offloaded(context, [](isvp::guest::Communicator& guest, OffloadedRun& run) {
                run.posted = collectives().post(guest, Opcode::Barrier, isvp::Datatype::UInt8, std::nullopt, 0, 0,
                                                nullptr, nullptr);
            });
        return counted(software(c, [comm](MPI_Request* r) { return PMPI_Ibarrier(comm, r); }), c.size() > 1);
    });
}

int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request* request) {
    return persistent_init("MPI_Bcast_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const Type& type = check_bcast(c, buffer, count, datatype, root, "MPI_Bcast_init");
        const std::size_t bytes = bytes_of(count, type);
        const auto context =
            bytes == 0 ? nullptr
                       : offload_context(c, [&](Comm& on) { return offload_bytes(on, Opcode::Bcast, bytes, false); });
        release = releaser(context);
        if (context) {
            const auto t = held(datatype);
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const bool is_root = guest.rank == root;
                const auto n = static_cast<std::size_t>(count);
                std::uint8_t* data = result_target(run, buffer, n, t);
                if (!t->contiguous) {
                    if (is_root) {
                        pack_into(buffer, n, *t, data);
                        run.finish = nullptr;  // the root's buffer is the source
                    }
                }
                run.posted = collectives().post(guest, Opcode::Bcast, isvp::Datatype::UInt8, std::nullopt, bytes, root,
                                                data, data);
            });
        }
        return counted(software(c, [=](MPI_Request* r) { return PMPI_Ibcast(buffer, count, datatype, root, comm, r); }),
                       bytes > 0 && c.size() > 1);
    });
}

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Reduce_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const Reduction reduction = check_reduction(count, datatype, op);
        check_root(c, root);
        check_reduce_buffers(c, sendbuf, recvbuf, count, *reduction.type, root, "MPI_Reduce_init");
        const auto n = static_cast<std::size_t>(count);
        std::optional<isvp::Datatype> aglu;
        const auto context = n == 0 ? nullptr : offload_context(c, [&](Comm& on) {
            return (aglu = offload_reduction(on, Opcode::Reduce, reduction, n, false)).has_value();
        });
        release = releaser(context);
        if (context) {
            const auto t = held(datatype);
            const isvp::Operation operation = *reduction.op->predefined;
            const isvp::Datatype element = *aglu;
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
                const std::uint8_t* packed = packed_view(input, n, *t, run.packed);
                run.posted = collectives().post(guest, Opcode::Reduce, element, operation, aglu_elements(n, *t), root,
                                                packed, guest.rank == root ? result_target(run, recvbuf, n, t) : nullptr);
            });
        }
        return counted(
            software(
                c, [=](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); }),
            n > 0 && c.size() > 1);
    });
}

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Allreduce_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Allreduce_init");
        const auto n = static_cast<std::size_t>(count);
        std::optional<isvp::Datatype> aglu;
        const auto context = n == 0 ? nullptr : offload_context(c, [&](Comm& on) {
            return (aglu = offload_reduction(on, Opcode::Allreduce, reduction, n, false)).has_value();
        });
        release = releaser(context);
        if (context) {
            const auto t = held(datatype);
            const isvp::Operation operation = *reduction.op->predefined;
            const isvp::Datatype element = *aglu;
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const void* input = in_place(sendbuf) ? recvbuf : sendbuf;
                const std::uint8_t* packed = packed_view(input, n, *t, run.packed);
                run.posted = collectives().post(guest, Opcode::Allreduce, element, operation, aglu_elements(n, *t), 0,
                                                packed, result_target(run, recvbuf, n, t));
            });
        }
        return counted(
            software(c,
                     [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r); }),
            n > 0 && c.size() > 1);
    });
}

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init(
        "MPI_Reduce_scatter_block_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
            const Reduction reduction = check_reduction(recvcount, datatype, op, "recvcount");
            check_result_buffers(sendbuf, recvbuf, recvcount, *reduction.type, "MPI_Reduce_scatter_block_init");
            const auto own = static_cast<std::size_t>(recvcount);
            std::optional<isvp::Datatype> aglu;
            const auto context = own == 0 ? nullptr : offload_context(c, [&](Comm& on) {
                return (aglu = offload_reduction(on, Opcode::ReduceScatter, reduction, own, false)).has_value();
            });
            release = releaser(context);
            if (context)
                return reduce_scatter_offloaded(context, sendbuf, recvbuf, own, datatype, *reduction.op->predefined,
                                                *aglu);
            return counted(software(c,
                                    [=](MPI_Request* r) {
                                        return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                                                          comm, r);
                                    }),
                           own > 0 && c.size() > 1);
        });
}

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init(
        "MPI_Reduce_scatter_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
            std::vector<std::size_t> first;
            const Reduction reduction =
                check_reduce_scatter(c, sendbuf, recvbuf, recvcounts, datatype, op, "MPI_Reduce_scatter_init", first);
            const auto me = static_cast<std::size_t>(c.rank());
            const std::size_t total = first.back(), own = first[me + 1] - first[me];
            bool equal = true;
            for (std::size_t b = 0; b + 1 < first.size(); ++b) equal = equal && first[b + 1] - first[b] == own;
            std::optional<isvp::Datatype> aglu;
            const auto context = total == 0 || !equal ? nullptr : offload_context(c, [&](Comm& on) {
                return (aglu = offload_reduction(on, Opcode::ReduceScatter, reduction, own, false)).has_value();
            });
            release = releaser(context);
            if (context)
                return reduce_scatter_offloaded(context, sendbuf, recvbuf, own, datatype, *reduction.op->predefined,
                                                *aglu);
            const std::vector<int> counts = copy_of(recvcounts, c.size());
            return counted(software(c,
                                    [=](MPI_Request* r) {
                                        return PMPI_Ireduce_scatter(sendbuf, recvbuf, data_or_null(counts), datatype,
                                                                    op, comm, r);
                                    }),
                           total > 0 && equal && c.size() > 1);
        });
}

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Scatter_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const MoveArguments args =
            check_scatter(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Scatter_init");
        const std::size_t block = args.block;
        const auto context =
            block == 0 ? nullptr
                       : offload_context(c, [&](Comm& on) { return offload_bytes(on, Opcode::Scatter, block, false); });
        release = releaser(context);
        if (context) {
            const bool is_root = c.rank() == root;
            const bool keep = args.keep;
            const auto stype = is_root ? held(sendtype) : nullptr;
            const auto rtype = keep ? nullptr : held(recvtype);
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const auto size = static_cast<std::size_t>(guest.size());
                std::vector<std::uint8_t> all;
                if (is_root) all = packed_copy(sendbuf, size * static_cast<std::size_t>(sendcount), *stype);
                std::uint8_t* result = nullptr;
                if (keep) {  // the root's own block stays in sendbuf: the switch's copy is dropped
                    run.staging.resize(block);
                    result = run.staging.data();
                } else {
                    result = result_target(run, recvbuf, static_cast<std::size_t>(recvcount), rtype);
                }
                run.posted = collectives().post(guest, Opcode::Scatter, isvp::Datatype::UInt8, std::nullopt, block,
                                                root, is_root ? all.data() : nullptr, result);
            });
        }
        return counted(software(c,
                                [=](MPI_Request* r) {
                                    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                         root, comm, r);
                                }),
                       block > 0 && c.size() > 1);
    });
}

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Gather_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const MoveArguments args =
            check_gather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Gather_init");
        const std::size_t block = args.block;
        const auto context =
            block == 0 ? nullptr
                       : offload_context(c, [&](Comm& on) { return offload_bytes(on, Opcode::Gather, block, false); });
        release = releaser(context);
        if (context) {
            const bool is_root = c.rank() == root;
            const bool keep = args.keep;
            const auto stype = keep ? nullptr : held(sendtype);
            const auto rtype = is_root ? held(recvtype) : nullptr;
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const auto size = static_cast<std::size_t>(guest.size());
                const auto rcount = static_cast<std::size_t>(recvcount);
                const std::vector<std::uint8_t> mine =
                    keep
                        ? packed_copy(element(recvbuf, static_cast<std::size_t>(root) * rcount, *rtype), rcount, *rtype)
                        : packed_copy(sendbuf, static_cast<std::size_t>(sendcount), *stype);
                std::uint8_t* result = is_root ? result_target(run, recvbuf, size * rcount, rtype) : nullptr;
                run.posted = collectives().post(guest, Opcode::Gather, isvp::Datatype::UInt8, std::nullopt, block, root,
                                                mine.data(), result);
            });
        }
        return counted(software(c,
                                [=](MPI_Request* r) {
                                    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                        root, comm, r);
                                }),
                       block > 0 && c.size() > 1);
    });
}

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Allgather_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const MoveArguments args =
            check_allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Allgather_init");
        const std::size_t block = args.block;
        const auto context = block == 0 ? nullptr : offload_context(c, [&](Comm& on) {
            return offload_bytes(on, Opcode::Allgather, block, false);
        });
        release = releaser(context);
        if (context) {
            const bool keep = args.keep;
            const auto stype = keep ? nullptr : held(sendtype);
            const auto rtype = held(recvtype);
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const auto size = static_cast<std::size_t>(guest.size());
                const auto rcount = static_cast<std::size_t>(recvcount);
                const auto own = static_cast<std::size_t>(guest.rank) * rcount;
                const std::vector<std::uint8_t> mine =
                    keep ? packed_copy(element(recvbuf, own, *rtype), rcount, *rtype)
                         : packed_copy(sendbuf, static_cast<std::size_t>(sendcount), *stype);
                std::uint8_t* result = result_target(run, recvbuf, size * rcount, rtype);
                run.posted = collectives().post(guest, Opcode::Allgather, isvp::Datatype::UInt8, std::nullopt, block, 0,
                                                mine.data(), result);
            });
        }
        return counted(software(c,
                                [=](MPI_Request* r) {
                                    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                           comm, r);
                                }),
                       block > 0 && c.size() > 1);
    });
}

// ---- software only (as their blocking forms) ---------------------------------------------

int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
    return persistent_init("MPI_Scatterv_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        check_scatterv(c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       "MPI_Scatterv_init");
        const bool is_root = c.rank() == root;
        const std::vector<int> counts = is_root ? copy_of(sendcounts, c.size()) : std::vector<int>();
        const std::vector<int> offsets = is_root ? copy_of(displs, c.size()) : std::vector<int>();
        return software(c, [=](MPI_Request* r) {
            return PMPI_Iscatterv(sendbuf, data_or_null(counts), data_or_null(offsets), sendtype, recvbuf, recvcount,
                                  recvtype, root, comm, r);
        });
    });
}

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
    return persistent_init("MPI_Gatherv_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        check_gatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, "MPI_Gatherv_init");
        const bool is_root = c.rank() == root;
        const std::vector<int> counts = is_root ? copy_of(recvcounts, c.size()) : std::vector<int>();
        const std::vector<int> offsets = is_root ? copy_of(displs, c.size()) : std::vector<int>();
        return software(c, [=](MPI_Request* r) {
            return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets),
                                 recvtype, root, comm, r);
        });
    });
}

int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Allgatherv_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        std::vector<std::size_t> first;
        check_allgatherv(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, "MPI_Allgatherv_init",
                         first);
        const std::vector<int> counts = copy_of(recvcounts, c.size());
        const std::vector<int> offsets = copy_of(displs, c.size());
        return software(c, [=](MPI_Request* r) {
            return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets),
                                    recvtype, comm, r);
        });
    });
}

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Alltoall_init", comm, info, request, [&](Comm& c, std::function<void()>& release) {
        const MoveArguments args =
            check_alltoall(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Alltoall_init");
        const std::size_t block = args.block;
        // The blocking MPI_Alltoall's decision (coll_alltoall.cpp): the
        // blocks packed as bytes, so any datatype and MPI_IN_PLACE offload.
        const auto context = block == 0 ? nullptr : offload_context(c, [&](Comm& on) {
            return offload_bytes(on, Opcode::Alltoall, block, false);
        });
        release = releaser(context);
        if (context) {
            const bool keep = args.keep;
            const auto stype = keep ? nullptr : held(sendtype);
            const auto rtype = held(recvtype);
            return offloaded(context, [=](isvp::guest::Communicator& guest, OffloadedRun& run) {
                const auto size = static_cast<std::size_t>(guest.size());
                const auto rcount = static_cast<std::size_t>(recvcount);
                // Packed at the start (MPI_IN_PLACE: from recvbuf), before
                // the result may land there.
                const std::vector<std::uint8_t> blocks =
                    keep ? packed_copy(recvbuf, size * rcount, *rtype)
                         : packed_copy(sendbuf, size * static_cast<std::size_t>(sendcount), *stype);
                std::uint8_t* result = result_target(run, recvbuf, size * rcount, rtype);
                run.posted = collectives().post(guest, Opcode::Alltoall, isvp::Datatype::UInt8, std::nullopt, block, 0,
                                                blocks.data(), result);
            });
        }
        return counted(software(c,
                                [=](MPI_Request* r) {
                                    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                                          comm, r);
                                }),
                       block > 0 && c.size() > 1);
    });
}

int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Alltoallv_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        check_alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                        "MPI_Alltoallv_init");
        const bool place = in_place(sendbuf);
        const std::vector<int> scounts = place ? std::vector<int>() : copy_of(sendcounts, c.size());
        const std::vector<int> sdisp = place ? std::vector<int>() : copy_of(sdispls, c.size());
        const std::vector<int> rcounts = copy_of(recvcounts, c.size());
        const std::vector<int> rdisp = copy_of(rdispls, c.size());
        return software(c, [=](MPI_Request* r) {
            return PMPI_Ialltoallv(sendbuf, data_or_null(scounts), data_or_null(sdisp), sendtype, recvbuf,
                                   data_or_null(rcounts), data_or_null(rdisp), recvtype, comm, r);
        });
    });
}

int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Alltoallw_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        check_alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                        "MPI_Alltoallw_init");
        const bool place = in_place(sendbuf);
        const auto n = static_cast<std::size_t>(c.size());
        const std::vector<int> scounts = place ? std::vector<int>() : copy_of(sendcounts, c.size());
        const std::vector<int> sdisp = place ? std::vector<int>() : copy_of(sdispls, c.size());
        const std::vector<MPI_Datatype> stypes =
            place ? std::vector<MPI_Datatype>() : std::vector<MPI_Datatype>(sendtypes, sendtypes + n);
        const std::vector<int> rcounts = copy_of(recvcounts, c.size());
        const std::vector<int> rdisp = copy_of(rdispls, c.size());
        const std::vector<MPI_Datatype> rtypes(recvtypes, recvtypes + n);
        return software(c, [=](MPI_Request* r) {
            return PMPI_Ialltoallw(sendbuf, data_or_null(scounts), data_or_null(sdisp),
                                   stypes.empty() ? nullptr : stypes.data(), recvbuf, data_or_null(rcounts),
                                   data_or_null(rdisp), rtypes.data(), comm, r);
        });
    });
}

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Scan_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Scan_init");
        return software(c, [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
    });
}

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
    return persistent_init("MPI_Exscan_init", comm, info, request, [&](Comm& c, std::function<void()>&) {
        const Reduction reduction = check_reduction(count, datatype, op);
        check_result_buffers(sendbuf, recvbuf, count, *reduction.type, "MPI_Exscan_init", c.rank() > 0);
        return software(c,
                        [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Barrier_init)
ISVP_MPI_ALIAS(Bcast_init)
ISVP_MPI_ALIAS(Reduce_init)
ISVP_MPI_ALIAS(Allreduce_init)
ISVP_MPI_ALIAS(Reduce_scatter_block_init)
ISVP_MPI_ALIAS(Reduce_scatter_init)
ISVP_MPI_ALIAS(Scatter_init)
ISVP_MPI_ALIAS(Gather_init)
ISVP_MPI_ALIAS(Allgather_init)
ISVP_MPI_ALIAS(Scatterv_init)
ISVP_MPI_ALIAS(Gatherv_init)
ISVP_MPI_ALIAS(Allgatherv_init)
ISVP_MPI_ALIAS(Alltoall_init)
ISVP_MPI_ALIAS(Alltoallv_init)
ISVP_MPI_ALIAS(Alltoallw_init)
ISVP_MPI_ALIAS(Scan_init)
ISVP_MPI_ALIAS(Exscan_init)
