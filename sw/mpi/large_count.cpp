// MPI 4.0 large-count functions (the _c forms, MPI_Count arguments) and
// MPI_Isendrecv / MPI_Isendrecv_replace.
//
// Large counts. One message of the platform is at most 512 MiB (a
// processor packet), so isvp's MPI keeps int counts inside: every _c
// function checks that its counts, sizes and displacements fit an int and
// calls the int form; a value that does not is MPI_ERR_COUNT (MPI_ERR_ARG
// for displacements and positions) naming the function, the argument and
// the limit. Results (sizes, extents, counts) are widened to MPI_Count.
//
// MPI_Isendrecv (MPI 4.0 §3.10): sends are eager here (point_to_point.cpp),
// so the send part completes at the call; the request returned is the
// receive's, and its status is the receive's, as the standard says.
// MPI_Isendrecv_replace packs the buffer at the call, sends the packed copy,
// and receives into the buffer.
#include <climits>
#include <string>
#include <vector>

#include "mpi_impl.h"

using namespace isvp::mpi;

namespace {

/// `value` as an int; MPI_ERR_COUNT (or `error_class`) when it does not fit.
int narrow(MPI_Count value, const char* what, int error_class = MPI_ERR_COUNT) {
    if (value > INT_MAX || value < INT_MIN)
        fail(error_class, std::string(what) + " " + std::to_string(value) +
                              " does not fit an int (isvp's MPI takes counts up to INT_MAX = 2147483647; one message "
                              "is at most 512 MiB)");
    return static_cast<int>(value);
}

/// `n` entries of `values` as ints (empty for NULL, which the int form then reports).
template <class Wide>
std::vector<int> narrow_array(const Wide* values, int n, const char* what, int error_class = MPI_ERR_COUNT) {
    std::vector<int> out;
    if (values == nullptr || n <= 0) return out;
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        out.push_back(narrow(values[i], (std::string(what) + "[" + std::to_string(i) + "]").c_str(), error_class));
    return out;
}
/// Runs `body` as `function` (errors through `comm`'s handler); then, on
/// success, returns what `then()` returns.
template <class Body, class Then>
int narrowed(const char* function, MPI_Comm comm, Body body, Then then) {
    const int status = entry(function, comm, body);
    return status != MPI_SUCCESS ? status : then();
}

/// The size of `comm` (0 when it is not a communicator: the int form reports it).
int comm_size(MPI_Comm comm) {
    const Comm* c = find_comm(comm);
    return c != nullptr ? c->size() : 0;
}

/// How many ranks a per-peer count array of `comm` covers: the communicator's
/// size, or on an inter-communicator the remote group's (MPI 3.1 §5.2.2).
int peer_count(MPI_Comm comm) {
    const Comm* c = find_comm(comm);
    return c != nullptr ? c->peer_size() : 0;
}

/// How many entries a rooted v-collective's counts and displacements have at
/// this rank, 0 where they are not significant: the root's (on an
/// inter-communicator the rank passing MPI_ROOT, whose arrays cover the
/// remote group), nobody else's.
int root_size(MPI_Comm comm, int root) {
    const Comm* c = find_comm(comm);
    if (c == nullptr) return 0;
    if (c->is_inter()) return root == MPI_ROOT ? c->peer_size() : 0;
    return c->rank() == root ? c->size() : 0;
}

}  // namespace

extern "C" {

// ---- point-to-point ----------------------------------------------------------------------------

#define ISVP_P2P_C(name, call_int)                                                                                   \
    int PMPI_##name##_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm) { \
        int n = 0;                                                                                                   \
        return narrowed(                                                                                             \
            "MPI_" #name "_c", comm, [&] { n = narrow(count, "count"); }, [&] { return call_int; });                 \
    }

ISVP_P2P_C(Send, PMPI_Send(buf, n, datatype, peer, tag, comm))
ISVP_P2P_C(Ssend, PMPI_Ssend(buf, n, datatype, peer, tag, comm))
ISVP_P2P_C(Bsend, PMPI_Bsend(buf, n, datatype, peer, tag, comm))
ISVP_P2P_C(Rsend, PMPI_Rsend(buf, n, datatype, peer, tag, comm))
#undef ISVP_P2P_C

#define ISVP_P2P_REQUEST_C(name, buffer_type)                                                                      \
    int PMPI_##name##_c(buffer_type buf, MPI_Count count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, \
                        MPI_Request* request) {                                                                    \
        int n = 0;                                                                                                 \
        return narrowed(                                                                                           \
            "MPI_" #name "_c", comm, [&] { n = narrow(count, "count"); },                                          \
            [&] { return PMPI_##name(buf, n, datatype, peer, tag, comm, request); });                              \
    }

ISVP_P2P_REQUEST_C(Isend, const void*)
ISVP_P2P_REQUEST_C(Issend, const void*)
ISVP_P2P_REQUEST_C(Ibsend, const void*)
ISVP_P2P_REQUEST_C(Irsend, const void*)
ISVP_P2P_REQUEST_C(Irecv, void*)
ISVP_P2P_REQUEST_C(Send_init, const void*)
ISVP_P2P_REQUEST_C(Ssend_init, const void*)
ISVP_P2P_REQUEST_C(Bsend_init, const void*)
ISVP_P2P_REQUEST_C(Rsend_init, const void*)
ISVP_P2P_REQUEST_C(Recv_init, void*)
#undef ISVP_P2P_REQUEST_C

int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
    int n = 0;
    return narrowed(
        "MPI_Recv_c", comm, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Recv(buf, n, datatype, source, tag, comm, status); });
}

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status* status) {
    int s = 0, r = 0;
    return narrowed(
        "MPI_Sendrecv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            r = narrow(recvcount, "recvcount");
        },
        [&] {
            return PMPI_Sendrecv(sendbuf, s, sendtype, dest, sendtag, recvbuf, r, recvtype, source, recvtag, comm,
                                 status);
        });
}

int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status* status) {
    int n = 0;
    return narrowed(
        "MPI_Sendrecv_replace_c", comm, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Sendrecv_replace(buf, n, datatype, dest, sendtag, source, recvtag, comm, status); });
}

int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
    int n = 0;
    return narrowed(
        "MPI_Mrecv_c", MPI_COMM_WORLD, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Mrecv(buf, n, datatype, message, status); });
}

int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
    int n = 0;
    return narrowed(
        "MPI_Imrecv_c", MPI_COMM_WORLD, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Imrecv(buf, n, datatype, message, request); });
}

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
    if (request == nullptr) return entry("MPI_Isendrecv", comm, [] { fail(MPI_ERR_ARG, "request is NULL"); });
    // As MPI_Sendrecv (types that are not valid are refused by Irecv/Isend below).
    const Type* sent = find_datatype(sendtype);
    const Type* received = find_datatype(recvtype);
    if (sent != nullptr && received != nullptr)
        if (const int status = entry("MPI_Isendrecv", comm,
                                     [&] {
                                         check_disjoint(sendbuf, sendcount, *sent, dest, recvbuf, recvcount, *received,
                                                        source, "MPI_Isendrecv");
                                     });
            status != MPI_SUCCESS)
            return status;
    MPI_Request send = MPI_REQUEST_NULL;
    // The receive is posted first: a message this rank sends itself matches it.
    if (const int status = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, request);
        status != MPI_SUCCESS)
        return status;
    if (const int status = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &send);
        status != MPI_SUCCESS) {
        PMPI_Cancel(request);
        PMPI_Request_free(request);
        return status;
    }
    return PMPI_Request_free(&send);  // complete already (eager)
}

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Request* request) {
    std::vector<unsigned char> packed;
    int bytes = 0;
    const int checked = entry("MPI_Isendrecv_replace", comm, [&] {
        if (request == nullptr) fail(MPI_ERR_ARG, "request is NULL");
        check_count(count, "count");
        const Type& type = check_datatype(datatype);
        check_buffer(buf, count, type, "buf");
        packed.resize(static_cast<std::size_t>(count) * type.size);
        if (!packed.empty()) pack(buf, static_cast<std::size_t>(count), type, packed.data());
        bytes = narrow(static_cast<MPI_Count>(packed.size()), "message bytes");
    });
    if (checked != MPI_SUCCESS) return checked;
    MPI_Request send = MPI_REQUEST_NULL;
    if (const int status =
            PMPI_Isend(packed.empty() ? nullptr : packed.data(), bytes, MPI_BYTE, dest, sendtag, comm, &send);
        status != MPI_SUCCESS)
        return status;
    if (const int status = PMPI_Request_free(&send); status != MPI_SUCCESS) return status;
    return PMPI_Irecv(buf, count, datatype, source, recvtag, comm, request);
}

int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                     MPI_Request* request) {
    int s = 0, r = 0;
    return narrowed(
        "MPI_Isendrecv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            r = narrow(recvcount, "recvcount");
        },
        [&] {
            return PMPI_Isendrecv(sendbuf, s, sendtype, dest, sendtag, recvbuf, r, recvtype, source, recvtag, comm,
                                  request);
        });
}

int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request* request) {
    int n = 0;
    return narrowed(
        "MPI_Isendrecv_replace_c", comm, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Isendrecv_replace(buf, n, datatype, dest, sendtag, source, recvtag, comm, request); });
}

// ---- statuses, datatypes, packing -----------------------------------------------------------------

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    int n = 0;
    const int result = PMPI_Get_count(status, datatype, &n);
    if (result == MPI_SUCCESS && count != nullptr) *count = n;
    return result;
}

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
    return PMPI_Get_elements_x(status, datatype, count);
}

int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
    return PMPI_Status_set_elements_x(status, datatype, count);
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
    return PMPI_Type_size_x(datatype, size);
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
    return PMPI_Type_get_extent_x(datatype, lb, extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
    return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
    int n = 0;
    return narrowed(
        "MPI_Type_contiguous_c", MPI_COMM_WORLD, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Type_contiguous(n, oldtype, newtype); });
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
    int n = 0, b = 0, s = 0;
    return narrowed(
        "MPI_Type_vector_c", MPI_COMM_WORLD,
        [&] {
            n = narrow(count, "count");
            b = narrow(blocklength, "blocklength");
            s = narrow(stride, "stride", MPI_ERR_ARG);
        },
        [&] { return PMPI_Type_vector(n, b, s, oldtype, newtype); });
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
    int n = 0, b = 0;
    return narrowed(
        "MPI_Type_create_hvector_c", MPI_COMM_WORLD,
        [&] {
            n = narrow(count, "count");
            b = narrow(blocklength, "blocklength");
        },
        [&] { return PMPI_Type_create_hvector(n, b, static_cast<MPI_Aint>(stride), oldtype, newtype); });
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
    int n = 0;
    std::vector<int> lengths, displacements;
    return narrowed(
        "MPI_Type_indexed_c", MPI_COMM_WORLD,
        [&] {
            n = narrow(count, "count");
            lengths = narrow_array(array_of_blocklengths, n, "array_of_blocklengths");
            displacements = narrow_array(array_of_displacements, n, "array_of_displacements", MPI_ERR_ARG);
        },
        [&] { return PMPI_Type_indexed(n, data_or_null(lengths), data_or_null(displacements), oldtype, newtype); });
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
    int n = 0, b = 0;
    std::vector<int> displacements;
    return narrowed(
        "MPI_Type_create_indexed_block_c", MPI_COMM_WORLD,
        [&] {
            n = narrow(count, "count");
            b = narrow(blocklength, "blocklength");
            displacements = narrow_array(array_of_displacements, n, "array_of_displacements", MPI_ERR_ARG);
        },
        [&] { return PMPI_Type_create_indexed_block(n, b, data_or_null(displacements), oldtype, newtype); });
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
    int n = 0;
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    return narrowed(
        "MPI_Type_create_hindexed_c", MPI_COMM_WORLD,
        [&] {
            n = narrow(count, "count");
            lengths = narrow_array(array_of_blocklengths, n, "array_of_blocklengths");
            if (array_of_displacements != nullptr)
                displacements.assign(array_of_displacements, array_of_displacements + (n > 0 ? n : 0));
        },
        [&] {
            return PMPI_Type_create_hindexed(n, data_or_null(lengths),
                                             displacements.empty() ? nullptr : displacements.data(), oldtype, newtype);
        });
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
    return PMPI_Type_create_resized(oldtype, static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent), newtype);
}

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                MPI_Count* position, MPI_Comm comm) {
    int n = 0, size = 0, at = 0;
    const int status = narrowed(
        "MPI_Pack_c", comm,
        [&] {
            if (position == nullptr) fail(MPI_ERR_ARG, "position is NULL");
            n = narrow(incount, "incount");
            size = narrow(outsize, "outsize");
            at = narrow(*position, "position", MPI_ERR_ARG);
        },
        [&] { return PMPI_Pack(inbuf, n, datatype, outbuf, size, &at, comm); });
    if (status == MPI_SUCCESS) *position = at;
    return status;
}

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
    int size = 0, n = 0, at = 0;
    const int status = narrowed(
        "MPI_Unpack_c", comm,
        [&] {
            if (position == nullptr) fail(MPI_ERR_ARG, "position is NULL");
            size = narrow(insize, "insize");
            n = narrow(outcount, "outcount");
            at = narrow(*position, "position", MPI_ERR_ARG);
        },
        [&] { return PMPI_Unpack(inbuf, size, &at, outbuf, n, datatype, comm); });
    if (status == MPI_SUCCESS) *position = at;
    return status;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
    // The size itself may pass INT_MAX (2^30 doubles: 8 GiB): incount x the
    // type's size, not MPI_Pack_size's int.
    return entry("MPI_Pack_size_c", comm, [&] {
        check_comm(comm);
        const int n = narrow(incount, "incount");
        check_count(n, "incount");
        const Type& type = check_datatype(datatype);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = static_cast<MPI_Count>(n) * static_cast<MPI_Count>(type.size);
    });
}

int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
    int n = 0;
    return narrowed(
        "MPI_Reduce_local_c", MPI_COMM_WORLD, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Reduce_local(inbuf, inoutbuf, n, datatype, op); });
}

// ---- blocking and nonblocking collectives ---------------------------------------------------------

int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    int n = 0;
    return narrowed(
        "MPI_Bcast_c", comm, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Bcast(buffer, n, datatype, root, comm); });
}

int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
    int n = 0;
    return narrowed(
        "MPI_Ibcast_c", comm, [&] { n = narrow(count, "count"); },
        [&] { return PMPI_Ibcast(buffer, n, datatype, root, comm, request); });
}

#define ISVP_REDUCTION_C(name, ...)                                                                            \
    int PMPI_##name##_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, \
                        __VA_ARGS__) {                                                                         \
        int n = 0;                                                                                             \
        return narrowed(                                                                                       \
            "MPI_" #name "_c", comm, [&] { n = narrow(count, "count"); }, [&] { return ISVP_CALL; });          \
    }

#define ISVP_CALL PMPI_Allreduce(sendbuf, recvbuf, n, datatype, op, comm)
ISVP_REDUCTION_C(Allreduce, MPI_Comm comm)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Scan(sendbuf, recvbuf, n, datatype, op, comm)
ISVP_REDUCTION_C(Scan, MPI_Comm comm)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Exscan(sendbuf, recvbuf, n, datatype, op, comm)
ISVP_REDUCTION_C(Exscan, MPI_Comm comm)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Reduce(sendbuf, recvbuf, n, datatype, op, root, comm)
ISVP_REDUCTION_C(Reduce, int root, MPI_Comm comm)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Iallreduce(sendbuf, recvbuf, n, datatype, op, comm, request)
ISVP_REDUCTION_C(Iallreduce, MPI_Comm comm, MPI_Request* request)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Iscan(sendbuf, recvbuf, n, datatype, op, comm, request)
ISVP_REDUCTION_C(Iscan, MPI_Comm comm, MPI_Request* request)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Iexscan(sendbuf, recvbuf, n, datatype, op, comm, request)
ISVP_REDUCTION_C(Iexscan, MPI_Comm comm, MPI_Request* request)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Ireduce(sendbuf, recvbuf, n, datatype, op, root, comm, request)
ISVP_REDUCTION_C(Ireduce, int root, MPI_Comm comm, MPI_Request* request)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Reduce_scatter_block(sendbuf, recvbuf, n, datatype, op, comm)
ISVP_REDUCTION_C(Reduce_scatter_block, MPI_Comm comm)
#undef ISVP_CALL
#define ISVP_CALL PMPI_Ireduce_scatter_block(sendbuf, recvbuf, n, datatype, op, comm, request)
ISVP_REDUCTION_C(Ireduce_scatter_block, MPI_Comm comm, MPI_Request* request)
#undef ISVP_CALL
#undef ISVP_REDUCTION_C

int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
    std::vector<int> counts;
    return narrowed(
        "MPI_Reduce_scatter_c", comm, [&] { counts = narrow_array(recvcounts, comm_size(comm), "recvcounts"); },
        [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, data_or_null(counts), datatype, op, comm); });
}

int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request* request) {
    std::vector<int> counts;
    return narrowed(
        "MPI_Ireduce_scatter_c", comm, [&] { counts = narrow_array(recvcounts, comm_size(comm), "recvcounts"); },
        [&] { return PMPI_Ireduce_scatter(sendbuf, recvbuf, data_or_null(counts), datatype, op, comm, request); });
}

// Equal-count data movement: (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, ...).
#define ISVP_MOVE_C(name, call, ...)                                                                    \
    int PMPI_##name##_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, \
                        MPI_Count recvcount, MPI_Datatype recvtype, __VA_ARGS__) {                      \
        int s = 0, r = 0;                                                                               \
        return narrowed(                                                                                \
            "MPI_" #name "_c", comm,                                                                    \
            [&] {                                                                                       \
                s = narrow(sendcount, "sendcount");                                                     \
                r = narrow(recvcount, "recvcount");                                                     \
            },                                                                                          \
            [&] { return call; });                                                                      \
    }

ISVP_MOVE_C(Scatter, PMPI_Scatter(sendbuf, s, sendtype, recvbuf, r, recvtype, root, comm), int root, MPI_Comm comm)
ISVP_MOVE_C(Gather, PMPI_Gather(sendbuf, s, sendtype, recvbuf, r, recvtype, root, comm), int root, MPI_Comm comm)
ISVP_MOVE_C(Allgather, PMPI_Allgather(sendbuf, s, sendtype, recvbuf, r, recvtype, comm), MPI_Comm comm)
ISVP_MOVE_C(Alltoall, PMPI_Alltoall(sendbuf, s, sendtype, recvbuf, r, recvtype, comm), MPI_Comm comm)
ISVP_MOVE_C(Iscatter, PMPI_Iscatter(sendbuf, s, sendtype, recvbuf, r, recvtype, root, comm, request), int root,
            MPI_Comm comm, MPI_Request* request)
ISVP_MOVE_C(Igather, PMPI_Igather(sendbuf, s, sendtype, recvbuf, r, recvtype, root, comm, request), int root,
            MPI_Comm comm, MPI_Request* request)
ISVP_MOVE_C(Iallgather, PMPI_Iallgather(sendbuf, s, sendtype, recvbuf, r, recvtype, comm, request), MPI_Comm comm,
            MPI_Request* request)
ISVP_MOVE_C(Ialltoall, PMPI_Ialltoall(sendbuf, s, sendtype, recvbuf, r, recvtype, comm, request), MPI_Comm comm,
            MPI_Request* request)
#undef ISVP_MOVE_C

int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    std::vector<int> counts, offsets;
    int r = 0;
    return narrowed(
        "MPI_Scatterv_c", comm,
        [&] {
            counts = narrow_array(sendcounts, root_size(comm, root), "sendcounts");
            offsets = narrow_array(displs, root_size(comm, root), "displs", MPI_ERR_ARG);
            r = narrow(recvcount, "recvcount");
        },
        [&] {
            return PMPI_Scatterv(sendbuf, data_or_null(counts), data_or_null(offsets), sendtype, recvbuf, r, recvtype,
                                 root, comm);
        });
}

int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
    std::vector<int> counts, offsets;
    int s = 0;
    return narrowed(
        "MPI_Gatherv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            counts = narrow_array(recvcounts, root_size(comm, root), "recvcounts");
            offsets = narrow_array(displs, root_size(comm, root), "displs", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Gatherv(sendbuf, s, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets), recvtype,
                                root, comm);
        });
}

int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    std::vector<int> counts, offsets;
    int s = 0;
    return narrowed(
        "MPI_Allgatherv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            counts = narrow_array(recvcounts, peer_count(comm), "recvcounts");
            offsets = narrow_array(displs, peer_count(comm), "displs", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Allgatherv(sendbuf, s, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets), recvtype,
                                   comm);
        });
}

int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
    std::vector<int> scounts, sdisp, rcounts, rdisp;
    return narrowed(
        "MPI_Alltoallv_c", comm,
        [&] {
            const int n = peer_count(comm);
            if (sendbuf != MPI_IN_PLACE) {
                scounts = narrow_array(sendcounts, n, "sendcounts");
                sdisp = narrow_array(sdispls, n, "sdispls", MPI_ERR_ARG);
            }
            rcounts = narrow_array(recvcounts, n, "recvcounts");
            rdisp = narrow_array(rdispls, n, "rdispls", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Alltoallv(sendbuf, data_or_null(scounts), data_or_null(sdisp), sendtype, recvbuf,
                                  data_or_null(rcounts), data_or_null(rdisp), recvtype, comm);
        });
}

int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    std::vector<int> scounts, sdisp, rcounts, rdisp;
    return narrowed(
        "MPI_Alltoallw_c", comm,
        [&] {
            const int n = peer_count(comm);
            if (sendbuf != MPI_IN_PLACE) {
                scounts = narrow_array(sendcounts, n, "sendcounts");
                sdisp = narrow_array(sdispls, n, "sdispls", MPI_ERR_ARG);
            }
            rcounts = narrow_array(recvcounts, n, "recvcounts");
            rdisp = narrow_array(rdispls, n, "rdispls", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Alltoallw(sendbuf, data_or_null(scounts), data_or_null(sdisp), sendtypes, recvbuf,
                                  data_or_null(rcounts), data_or_null(rdisp), recvtypes, comm);
        });
}

int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request* request) {
    std::vector<int> counts, offsets;
    int r = 0;
    return narrowed(
        "MPI_Iscatterv_c", comm,
        [&] {
            counts = narrow_array(sendcounts, root_size(comm, root), "sendcounts");
            offsets = narrow_array(displs, root_size(comm, root), "displs", MPI_ERR_ARG);
            r = narrow(recvcount, "recvcount");
        },
        [&] {
            return PMPI_Iscatterv(sendbuf, data_or_null(counts), data_or_null(offsets), sendtype, recvbuf, r, recvtype,
                                  root, comm, request);
        });
}

int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
    std::vector<int> counts, offsets;
    int s = 0;
    return narrowed(
        "MPI_Igatherv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            counts = narrow_array(recvcounts, root_size(comm, root), "recvcounts");
            offsets = narrow_array(displs, root_size(comm, root), "displs", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Igatherv(sendbuf, s, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets), recvtype,
                                 root, comm, request);
        });
}

int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request) {
    std::vector<int> counts, offsets;
    int s = 0;
    return narrowed(
        "MPI_Iallgatherv_c", comm,
        [&] {
            s = narrow(sendcount, "sendcount");
            counts = narrow_array(recvcounts, peer_count(comm), "recvcounts");
            offsets = narrow_array(displs, peer_count(comm), "displs", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Iallgatherv(sendbuf, s, sendtype, recvbuf, data_or_null(counts), data_or_null(offsets),
                                    recvtype, comm, request);
        });
}

int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
    std::vector<int> scounts, sdisp, rcounts, rdisp;
    return narrowed(
        "MPI_Ialltoallv_c", comm,
        [&] {
            const int n = peer_count(comm);
            if (sendbuf != MPI_IN_PLACE) {
                scounts = narrow_array(sendcounts, n, "sendcounts");
                sdisp = narrow_array(sdispls, n, "sdispls", MPI_ERR_ARG);
            }
            rcounts = narrow_array(recvcounts, n, "recvcounts");
            rdisp = narrow_array(rdispls, n, "rdispls", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Ialltoallv(sendbuf, data_or_null(scounts), data_or_null(sdisp), sendtype, recvbuf,
                                   data_or_null(rcounts), data_or_null(rdisp), recvtype, comm, request);
        });
}

int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
    std::vector<int> scounts, sdisp, rcounts, rdisp;
    return narrowed(
        "MPI_Ialltoallw_c", comm,
        [&] {
            const int n = peer_count(comm);
            if (sendbuf != MPI_IN_PLACE) {
                scounts = narrow_array(sendcounts, n, "sendcounts");
                sdisp = narrow_array(sdispls, n, "sdispls", MPI_ERR_ARG);
            }
            rcounts = narrow_array(recvcounts, n, "recvcounts");
            rdisp = narrow_array(rdispls, n, "rdispls", MPI_ERR_ARG);
        },
        [&] {
            return PMPI_Ialltoallw(sendbuf, data_or_null(scounts), data_or_null(sdisp), sendtypes, recvbuf,
                                   data_or_null(rcounts), data_or_null(rdisp), recvtypes, comm, request);
        });
}

}  // extern "C"

ISVP_MPI_ALIAS(Send_c)
ISVP_MPI_ALIAS(Ssend_c)
ISVP_MPI_ALIAS(Bsend_c)
ISVP_MPI_ALIAS(Rsend_c)
ISVP_MPI_ALIAS(Isend_c)
ISVP_MPI_ALIAS(Issend_c)
ISVP_MPI_ALIAS(Ibsend_c)
ISVP_MPI_ALIAS(Irsend_c)
ISVP_MPI_ALIAS(Irecv_c)
ISVP_MPI_ALIAS(Send_init_c)
ISVP_MPI_ALIAS(Ssend_init_c)
ISVP_MPI_ALIAS(Bsend_init_c)
ISVP_MPI_ALIAS(Rsend_init_c)
ISVP_MPI_ALIAS(Recv_init_c)
ISVP_MPI_ALIAS(Recv_c)
ISVP_MPI_ALIAS(Sendrecv_c)
ISVP_MPI_ALIAS(Sendrecv_replace_c)
ISVP_MPI_ALIAS(Mrecv_c)
ISVP_MPI_ALIAS(Imrecv_c)
ISVP_MPI_ALIAS(Isendrecv)
ISVP_MPI_ALIAS(Isendrecv_replace)
ISVP_MPI_ALIAS(Isendrecv_c)
ISVP_MPI_ALIAS(Isendrecv_replace_c)
ISVP_MPI_ALIAS(Get_count_c)
ISVP_MPI_ALIAS(Get_elements_c)
ISVP_MPI_ALIAS(Status_set_elements_c)
ISVP_MPI_ALIAS(Type_size_c)
ISVP_MPI_ALIAS(Type_get_extent_c)
ISVP_MPI_ALIAS(Type_get_true_extent_c)
ISVP_MPI_ALIAS(Type_contiguous_c)
ISVP_MPI_ALIAS(Type_vector_c)
ISVP_MPI_ALIAS(Type_create_hvector_c)
ISVP_MPI_ALIAS(Type_indexed_c)
ISVP_MPI_ALIAS(Type_create_indexed_block_c)
ISVP_MPI_ALIAS(Type_create_hindexed_c)
ISVP_MPI_ALIAS(Type_create_resized_c)
ISVP_MPI_ALIAS(Pack_c)
ISVP_MPI_ALIAS(Unpack_c)
ISVP_MPI_ALIAS(Pack_size_c)
ISVP_MPI_ALIAS(Reduce_local_c)
ISVP_MPI_ALIAS(Bcast_c)
ISVP_MPI_ALIAS(Ibcast_c)
ISVP_MPI_ALIAS(Allreduce_c)
ISVP_MPI_ALIAS(Scan_c)
ISVP_MPI_ALIAS(Exscan_c)
ISVP_MPI_ALIAS(Reduce_c)
ISVP_MPI_ALIAS(Iallreduce_c)
ISVP_MPI_ALIAS(Iscan_c)
ISVP_MPI_ALIAS(Iexscan_c)
ISVP_MPI_ALIAS(Ireduce_c)
ISVP_MPI_ALIAS(Reduce_scatter_block_c)
ISVP_MPI_ALIAS(Ireduce_scatter_block_c)
ISVP_MPI_ALIAS(Reduce_scatter_c)
ISVP_MPI_ALIAS(Ireduce_scatter_c)
ISVP_MPI_ALIAS(Scatter_c)
ISVP_MPI_ALIAS(Gather_c)
ISVP_MPI_ALIAS(Allgather_c)
ISVP_MPI_ALIAS(Alltoall_c)
ISVP_MPI_ALIAS(Iscatter_c)
ISVP_MPI_ALIAS(Igather_c)
ISVP_MPI_ALIAS(Iallgather_c)
ISVP_MPI_ALIAS(Ialltoall_c)
ISVP_MPI_ALIAS(Scatterv_c)
ISVP_MPI_ALIAS(Gatherv_c)
ISVP_MPI_ALIAS(Allgatherv_c)
ISVP_MPI_ALIAS(Alltoallv_c)
ISVP_MPI_ALIAS(Alltoallw_c)
ISVP_MPI_ALIAS(Iscatterv_c)
ISVP_MPI_ALIAS(Igatherv_c)
ISVP_MPI_ALIAS(Iallgatherv_c)
ISVP_MPI_ALIAS(Ialltoallv_c)
ISVP_MPI_ALIAS(Ialltoallw_c)
