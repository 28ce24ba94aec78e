// Internal interface of libisvp_mpi: what every MPI_ function body builds on
// (per-process state, handle lookup, argument checks, the error path,
// datatype pack/unpack, reductions, internal point-to-point messages).
//
// Stability: sw/mpi/coll*.cpp (the collectives) build on this header. It
// only grows; a breaking change is announced here first:
//   (none so far; nonblocking collectives added: CollectiveProgress;
//   inter-communicators added: Comm::remote/local, is_inter, peer_*: on an
//   inter-communicator check_rank, send_internal, receive_internal and the
//   round schedules name the remote group's ranks; calls that cannot take
//   one refuse it with refuse_inter / unsupported_on_inter;
//   persistent collectives: persistent_collective_request)
//
// The collectives: blocking in coll_move/alltoall/reduce.cpp, nonblocking
// in coll_nonblocking*.cpp (a round schedule engine whose requests the
// point-to-point engine completes: CollectiveProgress below); the
// neighbourhood collectives in coll_neighbor.cpp (topologies: topology.h);
// every collective of MPI 3.1 is implemented (what is not, elsewhere,
// reports MPI_ERR_UNSUPPORTED_OPERATION from unsupported.cpp).
// sw/mpi/CMakeLists.txt globs sw/mpi/*.cpp.
//
// How an MPI function is written:
//
//   extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
//       return isvp::mpi::entry("MPI_Bcast", comm, [&] {
//           Comm& c = check_comm(comm);
//           const Type& type = check_datatype(datatype);
//           check_count(count, "count");
//           check_root(c, root);
//           check_buffer(buffer, count, type, "buffer");
//           ...
//       });
//   }
//   ISVP_MPI_ALIAS(Bcast)
//
// A check that fails throws isvp::mpi::Error (class + message naming the
// argument); entry() turns it into the communicator's error handler call
// (default: "MPI_Bcast: invalid root 7 (communicator size 4)" on stderr and
// the job ends; MPI_ERRORS_RETURN: the class is returned). Driver errors
// become MPI_ERR_OTHER, allocation failures MPI_ERR_NO_MEM; a transport
// error (the job is ending: deadlock, another rank aborted) always ends
// this rank.
//
// Tags. The driver's tag space is 32 bits; guest::Collectives owns
// 0x80000000 | ID << 23 | sequence. The MPI layer uses the rest:
//   bit 31 = 0, bit 30 = 0: user point-to-point, (comm ID << 22) | user tag,
//                           user tags 0 .. MPI_TAG_UB = 2^21 - 1; bit 21
//                           marks a synchronous send (point_to_point.cpp)
//   bit 31 = 0, bit 30 = 1: MPI-internal collective traffic,
//                           (1 << 30) | (comm ID << 22) | per-communicator
//                           sequence (collective_tag()), 21 bits; with bit
//                           21 set: a synchronous send's acknowledgement
// The user receive engine never takes internal messages, and internal
// receives are exact-tag driver receives, so they cannot match each other.
// (Until synchronous sends got bit 21, user tags and sequences had 22 bits.)
//
// Plain C++17, no SystemC.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "isvp/collectives.h"
#include "isvp/communicator.h"
#include "isvp/device_transport.h"
#include "isvp/driver.h"
#include "isvp/packet_format.h"
#include "isvp/reduction_types.h"

/// Makes MPI_name a weak alias of PMPI_name (profiling interface). Use once
/// per function, after PMPI_name's definition, at namespace scope.
#define ISVP_MPI_ALIAS(name) extern "C" __attribute__((weak, alias("PMPI_" #name))) decltype(PMPI_##name) MPI_##name;

namespace isvp::mpi {

// ---- errors -------------------------------------------------------------

/// An MPI error: its class (MPI_ERR_*) and a message naming the argument,
/// without the function name ("invalid root 7 (communicator size 4)").
class Error : public std::runtime_error {
  public:
    Error(int error_class, const std::string& message) : std::runtime_error(message), error_class_(error_class) {}
    int error_class() const { return error_class_; }

  private:
    int error_class_;
};

/// Throws Error(error_class, message).
[[noreturn]] void fail(int error_class, const std::string& message);

/// Reports an error of `function` through `comm`'s error handler (that of
/// MPI_COMM_WORLD when `comm` is not a valid communicator): fatal handler —
/// prints "function: message" and ends the job; MPI_ERRORS_RETURN — returns
/// error_class; a user handler — calls it, then returns error_class.
int raise(MPI_Comm comm, int error_class, const char* function, const std::string& message);
struct Comm;
/// raise() by a handler known already (also MPI_Finalize's error, reported
/// by the world's handler after the world is gone; `target`, if known, is
/// named in the fatal message): MPI_ERRORS_RETURN returns the class, any
/// other ends the rank as MPI_ERRORS_ARE_FATAL does.
int raise_with(MPI_Errhandler handler, int error_class, const char* function, const std::string& message,
               const Comm* target = nullptr);

/// The exception in flight, reported through raise(); for entry().
int raise_current_exception(const char* function, MPI_Comm comm) noexcept;

/// Throws Error(MPI_ERR_OTHER) when the thread level provided (SINGLE or
/// FUNNELED) allows MPI calls only from the thread that initialised MPI and
/// this is another one (MPI 3.1 §12.4.3): caught at the call, not as a
/// corrupted device protocol later.
void check_thread();

/// Numbers the top-level MPI calls (entry() holds one while the body runs;
/// calls made inside it, from the library or a user callback, count as
/// part of it), so that collective_tag gives every phase of one call on a
/// communicator the same tag.
class CallScope {
  public:
    CallScope();
    ~CallScope();
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;
};
/// The number of the top-level MPI call running (0: none).
std::uint64_t current_mpi_call();

/// Runs an MPI function's body; returns MPI_SUCCESS or what raise() returns.
template <class Body>
int entry(const char* function, MPI_Comm comm, Body&& body) noexcept {
    try {
        check_thread();
        const CallScope call;
        body();
        return MPI_SUCCESS;
    } catch (...) {
        return raise_current_exception(function, comm);
    }
}

/// entry() without check_thread(), for the calls any thread may make
/// (MPI_Initialized, Finalized, Query_thread, Is_thread_main, Get_version,
/// Get_library_version).
template <class Body>
int entry_any_thread(const char* function, MPI_Comm comm, Body&& body) noexcept {
    try {
        body();
        return MPI_SUCCESS;
    } catch (...) {
        return raise_current_exception(function, comm);
    }
}

/// Throws Error(MPI_ERR_UNSUPPORTED_OPERATION, "... is not supported by isvp's MPI (docs/MPI.md)").
[[noreturn]] void unsupported(const char* function);

// ---- per-process state ---------------------------------------------------

/// The library's state between MPI_Init and MPI_Finalize.
struct State {
    std::unique_ptr<guest::DeviceTransport> transport;  ///< this rank's way to the platform
    std::unique_ptr<guest::Driver> driver;              ///< QDMA queues, messages
    std::unique_ptr<guest::Collectives> collectives;    ///< communicator IDs, offloaded/software collectives
    bool offload = true;                                ///< ISVP_MPI_OFFLOAD (false: software everywhere)
    int thread_level = MPI_THREAD_SINGLE;               ///< provided by MPI_Init_thread
};

/// The state; throws Error(MPI_ERR_OTHER) before MPI_Init or after MPI_Finalize.
State& state();
inline guest::Driver& driver() {
    return *state().driver;
}
inline guest::Collectives& collectives() {
    return *state().collectives;
}
inline bool offload_enabled() {
    return state().offload;
}

// ---- communicators --------------------------------------------------------

struct GraphTopology;  // topology.h

/// An MPI communicator: an intra-communicator, or an inter-communicator
/// (MPI 3.1 §6.6; intercommunicators.cpp) whose `guest` is the local group
/// under the ID both groups agreed on, never offloaded.
struct Comm {
    guest::Communicator guest;        ///< members (global ranks), ID, own rank, guest sequence
    MPI_Comm handle = MPI_COMM_NULL;  ///< its handle
    MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
    std::string name;                       ///< MPI_Comm_set_name
    std::uint32_t collective_sequence = 0;  ///< MPI-level software collectives issued (collective_tag)
    std::uint64_t tag_call = 0;             ///< the top-level MPI call that issued `call_tag` (collective_tag)
    std::uint32_t call_tag = 0;             ///< the tag of that call's collectives on this communicator
    std::map<int, void*> attributes;        ///< keyval -> attribute value
    /// keyval -> when its attribute was set, counted per communicator: at
    /// MPI_Finalize MPI_COMM_SELF's are deleted last set first (MPI 3.1 §8.7.1).
    std::map<int, std::uint64_t> attribute_set_order;
    /// Records that `keyval`'s attribute was just set.
    void note_attribute_set(int keyval) {
        std::uint64_t last = 0;
        for (const auto& entry : attribute_set_order) last = std::max(last, entry.second);
        attribute_set_order[keyval] = last + 1;
    }
    /// MPI_Cart_create: a Cartesian topology, its extent and periodicity per dimension.
    bool cartesian = false;
    std::vector<int> cart_dims;
    std::vector<int> cart_periods;
    /// MPI_Graph_create / MPI_Dist_graph_create(_adjacent): the graph (topology.h).
    std::shared_ptr<const GraphTopology> graph;

    /// Inter-communicator: the remote group's global ranks, in remote-rank
    /// order (empty: an intra-communicator).
    std::vector<int> remote;
    /// Inter-communicator: its local group as an intra-communicator of its
    /// own (a handle never given to the program), for the local phases of
    /// the collectives; freed with it.
    MPI_Comm local = MPI_COMM_NULL;

    int rank() const { return guest.rank; }
    int size() const { return guest.size(); }
    int global_rank(int comm_rank) const { return guest.global_rank(comm_rank); }
    /// The comm rank of global rank `global`, or MPI_UNDEFINED.
    int comm_rank(int global) const;
    bool is_inter() const { return !remote.empty(); }
    /// The group that point-to-point ranks name (MPI 3.1 §6.6.1): the remote
    /// group of an inter-communicator, else the communicator's own.
    int peer_size() const { return is_inter() ? static_cast<int>(remote.size()) : size(); }
    int peer_global(int peer) const {
        return is_inter() ? remote.at(static_cast<std::size_t>(peer)) : global_rank(peer);
    }
    /// The peer rank of global rank `global`, or MPI_UNDEFINED.
    int peer_rank(int global) const;
};

/// Throws Error(MPI_ERR_COMM) naming `function` when `comm` is an
/// inter-communicator: for the calls the standard defines on
/// intra-communicators only (MPI_Scan, MPI_Cart_create, ...).
void refuse_inter(const Comm& comm, const char* function);
/// MPI_ERR_INFO unless `info` is MPI_INFO_NULL or a live info object: for
/// calls that take hints and ignore them (communicators.cpp).
void check_hints(MPI_Info info);
/// The array's data, or NULL when it is empty, for an int-count form that
/// checks its arrays itself (large_count.cpp, persistent.cpp).
inline const int* data_or_null(const std::vector<int>& values) {
    return values.empty() ? nullptr : values.data();
}
/// Throws Error(MPI_ERR_UNSUPPORTED_OPERATION) naming `function` when `comm`
/// is an inter-communicator: for the calls isvp does not implement on
/// inter-communicators (MPI_Comm_split_type; docs/MPI.md).
void unsupported_on_inter(const Comm& comm, const char* function);

/// Throws Error(MPI_ERR_COMM) for MPI_COMM_NULL, a freed or invalid handle.
Comm& check_comm(MPI_Comm handle);
/// nullptr when `handle` is not a live communicator.
Comm* find_comm(MPI_Comm handle) noexcept;

// ---- datatypes ---------------------------------------------------------------

/// A run of `count` consecutive basic elements of predefined type `basic`
/// at byte `offset` from the start of one element of a datatype.
struct Segment {
    MPI_Aint offset = 0;
    std::size_t count = 0;
    MPI_Datatype basic = MPI_DATATYPE_NULL;  ///< a predefined type (pair types included)
};

/// A datatype: predefined or derived.
struct Type {
    MPI_Datatype handle = MPI_DATATYPE_NULL;
    std::size_t size = 0;      ///< bytes of data per element (packed)
    MPI_Aint lb = 0;           ///< lower bound
    MPI_Aint extent = 0;       ///< ub - lb: stride between consecutive elements
    MPI_Aint true_lb = 0;      ///< lowest data byte
    MPI_Aint true_extent = 0;  ///< highest data byte + 1 - true_lb
    bool predefined = false;
    bool committed = false;  ///< predefined types are always committed
    /// Data of `count` elements is exactly [buf + true_lb, buf + true_lb +
    /// count * size): no gaps and extent == size. Pack/unpack are a memcpy.
    bool contiguous = false;
    /// The predefined type every basic element has (pair types are one
    /// basic element), or MPI_DATATYPE_NULL for a mixed type.
    MPI_Datatype uniform = MPI_DATATYPE_NULL;
    std::size_t uniform_count = 0;  ///< basic elements per element when uniform
    /// The AgLU datatype of `uniform` when there is one (a predefined C type
    /// the switch computes on: INT8..64, UINT8..64 and their C aliases,
    /// FLOAT, DOUBLE, FLOAT_INT, 2INT, C_BOOL as uint8).
    std::optional<isvp::Datatype> aglu;
    std::vector<Segment> segments;  ///< one element's data, in type-map order
    /// lb / ub set explicitly (MPI_Type_create_resized, the MPI-1 MPI_LB /
    /// MPI_UB markers, or inherited from a type with them): they override
    /// the data's bounds in every type built on this one, and an explicit
    /// ub is never padded to alignment (MPI 3.1 §4.1.6).
    bool explicit_lb = false;
    bool explicit_ub = false;
    std::size_t alignment = 1;  ///< strictest alignment of its basic types
    std::string name;           ///< MPI_Type_get_name
    /// MPI_Type_set_attr: keyval -> attribute value (attributes.cpp).
    std::map<int, void*> attributes;
    // Constructor arguments (MPI_Type_get_envelope / get_contents).
    int combiner = MPI_COMBINER_NAMED;
    std::vector<int> integers;
    std::vector<MPI_Aint> addresses;
    std::vector<MPI_Datatype> types;
};

/// Throws Error(MPI_ERR_TYPE) for MPI_DATATYPE_NULL, an invalid or freed
/// handle, or (unless `allow_uncommitted`) a derived type not committed.
const Type& check_datatype(MPI_Datatype handle, bool allow_uncommitted = false);
/// The same, naming the argument in the message ("sendtype", "recvtype").
const Type& check_datatype(MPI_Datatype handle, const char* what, bool allow_uncommitted = false);
/// nullptr when `handle` is not a live datatype.
const Type* find_datatype(MPI_Datatype handle) noexcept;

/// Copies the data of `count` elements at `buffer` (memory layout) to
/// `packed` (count * type.size bytes).
void pack(const void* buffer, std::size_t count, const Type& type, void* packed);
/// The reverse: `bytes` of packed data (at most count * type.size; a
/// shorter message fills whole basic elements from the start) into `buffer`.
void unpack(const void* packed, std::size_t bytes, std::size_t count, const Type& type, void* buffer);
/// Basic elements in `bytes` of packed data of `type` (MPI_Get_elements).
std::size_t basic_elements(const Type& type, std::size_t bytes);

// ---- operations ----------------------------------------------------------------

struct Op {
    MPI_Op handle = MPI_OP_NULL;
    std::optional<isvp::Operation> predefined;  ///< SUM ... MAXLOC (REPLACE/NO_OP: neither)
    MPI_User_function* user = nullptr;          ///< MPI_Op_create (MPI_Op_create_c: a stand-in, never called)
    MPI_User_function_c* user_c = nullptr;      ///< MPI_Op_create_c: called with an MPI_Count length
    bool commutative = true;
};

/// Throws Error(MPI_ERR_OP) for MPI_OP_NULL or an invalid/freed handle.
const Op& check_op(MPI_Op handle);
/// Throws Error(MPI_ERR_OP) when a predefined op is not defined on `type`
/// by the MPI standard (e.g. MINLOC on MPI_INT, SUM on MPI_BYTE, anything on
/// a mixed derived type). User ops accept every type.
void check_op_on_type(const Op& op, const Type& type);
/// inout[i] = in[i] op inout[i] for `count` elements of `datatype`, both
/// buffers in the datatype's memory layout (as MPI_Reduce_local). Predefined
/// ops on AgLU datatypes use the AgLU's arithmetic (bit-identical to the
/// switch); user ops get (in, inout, &count, &datatype).
void reduce_local(const void* in, void* inout, std::size_t count, MPI_Datatype datatype, const Op& op);

// ---- argument checks (throw Error with the standard's class) ---------------------

/// MPI_ERR_COUNT for count < 0; `what` names the argument ("count", "sendcount").
void check_count(int count, const char* what);
/// MPI_ERR_ROOT for a root outside 0 .. size-1.
void check_root(const Comm& comm, int root);
/// MPI_ERR_RANK for a rank outside 0 .. size-1 (MPI_PROC_NULL allowed when
/// `allow_proc_null`, MPI_ANY_SOURCE when `allow_any_source`).
void check_rank(const Comm& comm, int rank, const char* what, bool allow_proc_null = true,
                bool allow_any_source = false);
/// MPI_TAG_UB: user tags have 21 bits of the wire tag (see Tags above).
inline constexpr std::uint32_t kMpiTagUpperBound = (1u << 21) - 1;
/// MPI_ERR_TAG for a tag outside 0 .. MPI_TAG_UB (MPI_ANY_TAG when `allow_any`).
void check_tag(int tag, const char* what, bool allow_any = false);
/// MPI_ERR_BUFFER for a null buffer with count > 0 of a type with data at
/// offset 0 (MPI_BOTTOM with absolute-address types stays legal).
void check_buffer(const void* buffer, int count, const Type& type, const char* what);
/// MPI_ERR_BUFFER when a send-receive's contiguous buffers overlap (both
/// sides moving data); `function` names the call in the message.
void check_disjoint(const void* sendbuf, int sendcount, const Type& sendtype, int dest, const void* recvbuf,
                    int recvcount, const Type& recvtype, int source, const char* function);

// ---- internal point-to-point (collective algorithms) -------------------------------

/// The tag for the next MPI-level collective call on `comm` (advances
/// comm.collective_sequence; every member calls it in the same order).
/// Within one top-level MPI call every phase gets the same tag (one
/// sequence number per call): a member that gives a call up part-way (a
/// link fault) stays in step with the members that finished it. The
/// phases' messages between two ranks follow one another in the same order
/// at both ends, so one tag keeps them apart from other calls' messages.
std::uint32_t collective_tag(Comm& comm);
/// The longest internal message the driver carries in one packet (16
/// envelope bytes within the packet format's 29-bit size). A software
/// collective's message may be longer (a 600 MiB MPI_Bcast): it goes as
/// pieces of this size ended by a shorter, possibly empty, piece, so that the
/// receiver knows where it ends whatever it expects (send_internal,
/// receive_internal, the nonblocking schedules). Shorter messages are one
/// piece, as before.
inline constexpr std::size_t kInternalPieceBytes = isvp::kMaxMessageBytes - 16;
/// Sends `bytes` to comm rank `destination` (of an inter-communicator: the
/// remote group's rank) on an internal tag (in pieces when longer than
/// kInternalPieceBytes).
void send_internal(Comm& comm, int destination, std::uint32_t tag, const void* data, std::size_t bytes);
/// For a software collective on `comm` with internal tag `tag` that waits
/// for a message: fails it (Error MPI_ERR_OTHER) when a member's abort
/// notice for it has come or was lost. (A lost message of the member it
/// waits for fails the receive itself.) docs/MPI.md, Link faults.
void watch_for_link_faults(Comm& comm, std::uint32_t tag);
/// A new intra-communicator `made` of `parent` (dup, split, create,
/// create_group): its software collectives' sequence starts from the
/// parent's driver sequence, alike on every member. Its ID may be a freed
/// communicator's; starting at 0 again, a late message of a collective the
/// freed one gave up over a link fault would match this one's receive
/// (docs/MPI.md, Link faults).
void start_collective_sequence(Comm& made, const Comm& parent);
/// Fails (Error MPI_ERR_OTHER, taking the notice) when a member's abort
/// notice for the software collective with internal tag `tag` has come.
void check_collective_abort(Comm& comm, std::uint32_t tag);
/// Gives the software collective `tag` up on this rank over a link fault
/// (`why` names it): every other member gets an abort notice, so that none
/// waits for ever for this rank's later messages, and the call fails with
/// MPI_ERR_OTHER (docs/MPI.md, Link faults).
[[noreturn]] void abort_collective(Comm& comm, std::uint32_t tag, const std::string& why);
/// Receives from comm rank `source` on an internal tag; returns the bytes
/// received. Throws Error(MPI_ERR_TRUNCATE) when the message exceeds `capacity`.
std::size_t receive_internal(Comm& comm, int source, std::uint32_t tag, void* data, std::size_t capacity);

// ---- nonblocking collectives ---------------------------------------------------------

/// A nonblocking collective in progress (coll_nonblocking*.cpp). The
/// point-to-point engine advances it whenever it looks for messages.
class CollectiveProgress {
  public:
    virtual ~CollectiveProgress() = default;
    /// Goes as far as the messages that have arrived allow, without waiting
    /// for or polling the device; true once the collective is complete.
    /// Throws Error when it fails (a message of the wrong length).
    virtual bool advance() = 0;
};

/// Makes a started nonblocking collective of `function` ("MPI_Ibcast") on
/// `comm` a request that MPI_Wait/Test and friends complete; advances it
/// once (it may complete at once). Returns the request handle.
MPI_Request collective_request(const char* function, MPI_Comm comm, std::shared_ptr<CollectiveProgress> collective);
/// An MPI 4 persistent collective's request of `function`
/// ("MPI_Bcast_init") on `comm`, inactive: every MPI_Start calls `start`
/// for a fresh run of the collective (then completed like a nonblocking
/// one); MPI_Request_free of the inactive request calls `release` (may be
/// empty) and frees it. (persistent.cpp)
MPI_Request persistent_collective_request(const char* function, MPI_Comm comm,
                                          std::function<std::shared_ptr<CollectiveProgress>()> start,
                                          std::function<void()> release);
/// Work that a completion call (Wait, Test and their array forms,
/// Request_get_status) does before it waits or tests, when one of its
/// requests is an incomplete generalized request whose extra_state `owns`
/// says is such work's (comm_nonblocking.cpp: the MPI_Comm_idup duplicates,
/// made when the program first completes one of them).
struct DeferredWork {
    bool (*owns)(void* extra_state) = nullptr;
    void (*run)() = nullptr;
    /// The call that started an owned request ("MPI_Comm_idup"), for messages.
    const char* (*function)(void* extra_state) = nullptr;
};
void set_deferred_work(DeferredWork work);
/// Advances every incomplete nonblocking collective, in the order they were
/// started. Every wait or test of the point-to-point engine does this.
void progress_collectives();
/// The nonblocking operations the program started and that are not
/// complete (MPI_Finalize names them), e.g. "MPI_Iallreduce on MPI_COMM_WORLD".
std::vector<std::string> unfinished_operations();
/// Makes the driver keep this layer's progress (matching, synchronous-send
/// acknowledgements, nonblocking collectives) going whenever it blocks.
/// MPI_Init calls it once the engine can take messages.
void install_progress_hook();

}  // namespace isvp::mpi
