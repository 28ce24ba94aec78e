// MPI-style collectives on any communicator, offloaded to the switch's
// collective engine when it can run them, otherwise executed in software.
//
// Per call: offload when the accelerator exists, the communicator has a CT
// row, the collective's switch algorithm is not Ring (the row holds only
// hypercube peers) and the switch runs it, for reductions the AgLU
// supports (op, datatype), and the buffer fits the switch's
// (ACCEL_MAX_BUFFER_BYTES). Otherwise — or always with offload = false — the
// rank runs make_schedule(..., Fold::Pairwise) over point-to-point messages
// with reserved tags (one per communicator and sequence), combining with
// aglu_combine in the schedule's operand order: integer results equal the
// reference exactly, float results are the same on every rank and every run.
//
// Counts are in elements (per rank block for scatter, gather, allgather and
// reduce_scatter_block), roots in comm ranks. Every call blocks until this
// rank's part is done. Offloaded calls whose arguments differ across the
// members (count, root, operation, datatype, collective) fail on every
// member with a DriverError naming what differs (error code 3); the
// communicator stays usable. Plain C++17, no SystemC.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isvp/collective_schedule.h"
#include "isvp/communicator.h"
#include "isvp/driver.h"
#include "isvp/reduction_types.h"

namespace isvp::guest {

/// One per Driver: it owns the rank's communicator IDs, and two instances
/// would hand out the same IDs (and message tags).
class Collectives {
  public:
    /// `offload` false forces the software path everywhere (the baseline);
    /// true offloads where the accelerator the driver probed can run it.
    explicit Collectives(Driver& driver, bool offload = true);

    /// MPI_COMM_WORLD: every rank, context ID 0; its CT row is uploaded here.
    Communicator& world() { return world_; }

    /// Collective over `parent`: a new communicator with the same members.
    Communicator dup(Communicator& parent);
    /// Collective over `parent`: members with the same colour, ordered by key,
    /// ties by parent rank; nullopt for a negative colour.
    std::optional<Communicator> split(Communicator& parent, int colour, int key);
    /// Releases the communicator's ID (and CT row); `comm` must not be used again.
    void free(Communicator& comm);
    /// MPI_Comm_free: frees `comm` for new collectives now (its CT row goes,
    /// after a software barrier when it has one: collective over the members)
    /// but keeps its members, and keeps its ID in use on this rank while
    /// `users` has owners (pending requests and schedules still send,
    /// receive and match under the ID). agree_id gives the ID back once
    /// `users` has expired, so a new communicator takes it only when every
    /// member of its parent is done with the old one: no message of the old
    /// communicator can match one of the new.
    void retire(Communicator& comm, std::weak_ptr<const void> users);

    /// Throws LinkFaultError when `comm` is revoked: its creation (dup,
    /// split) succeeded on this rank but failed on another member, whose
    /// abort notice for one of the creation's exchanges (or the notice's
    /// loss) has arrived. The other members never got the communicator, so
    /// nothing on it can complete; every later call finds it revoked too.
    /// Called while this rank waits on `comm` (here and in the MPI layer).
    void check_creation(Communicator& comm);

    /// The IDs free on this rank (retired ones nobody uses any more given
    /// back first): bit id % 32 of word id / 32. For communicators whose
    /// members have no common parent to agree over (the MPI layer's
    /// inter-communicators: it ANDs these over both groups).
    std::array<std::uint32_t, kCommunicatorIds / 32> free_ids();
    /// A communicator whose ID the caller agreed on among every member (free
    /// on each, see free_ids): marks it used. With `upload_row` it is an
    /// intra-communicator and gets its CT row where it can (collective over
    /// `members`, as dup); without, it never goes to the switch (an
    /// inter-communicator: `members` is the local group).
    Communicator adopt(unsigned id, std::vector<int> members, int rank, bool upload_row);

    void bcast(Communicator& comm, void* buffer, std::size_t count, Datatype type, int root);
    /// `recv` is written at the root only.
    void reduce(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type, Operation op,
                int root);
    void allreduce(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type, Operation op);
    /// `send` holds size x count elements at the root; `recv` count elements.
    void scatter(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type, int root);
    /// `recv` holds size x count elements at the root.
    void gather(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type, int root);
    void allgather(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type);
    /// `send` holds size x count elements, block i for comm rank i; `recv`
    /// gets block r from rank r. In the switch (the engine's Alltoall, any
    /// size) when it would offload the buffer of alltoall_buffer_blocks
    /// blocks, else in software.
    void alltoall(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type);
    /// Allgather with unequal counts (MPI_Allgatherv packed): rank i sends
    /// counts[i] elements, `recv` gets the blocks in rank order. In the
    /// switch (the engine's unequal-count allgather, counts table in the
    /// request) when it would offload the whole, else in software.
    void allgatherv(Communicator& comm, const void* send, void* recv, const std::vector<std::size_t>& counts,
                    Datatype type);
    /// `send` holds size x count elements; rank i receives the reduction of block i.
    void reduce_scatter_block(Communicator& comm, const void* send, void* recv, std::size_t count, Datatype type,
                              Operation op);
    /// Unequal blocks: `counts` has one entry per comm rank (the same on
    /// every member); `send` holds their sum, block i (counts[i] elements)
    /// after block i - 1; rank i receives counts[i] elements, the reduction
    /// of block i. Offloaded like reduce_scatter_block: the request carries
    /// the counts and the switch's recursive halving moves blocks of those
    /// sizes.
    void reduce_scatter(Communicator& comm, const void* send, void* recv, const std::vector<std::size_t>& counts,
                        Datatype type, Operation op);
    void barrier(Communicator& comm);
    /// A barrier in software whatever the switch offers (MPI_Finalize's,
    /// when the switch's failed: collective.mode = sharp after an AN fault).
    void software_barrier(Communicator& comm);
    /// MPI_Finalize's barrier (in software when `software`, else as
    /// barrier()): in its software schedule a message lost for good (a link
    /// fault) counts as arrived -- its sender did reach the barrier -- so
    /// every member runs the whole schedule and none waits for a member that
    /// gave up (docs/MPI.md, Link faults).
    void finalize_barrier(Communicator& comm, bool software);

    /// An offloaded collective posted to the switch and not yet collected.
    struct Posted {
        unsigned context = 0;
        Opcode collective = Opcode::Barrier;
        void* recv = nullptr;    ///< where the result goes
        std::size_t result = 0;  ///< bytes of result expected
        /// The communicator posted on (post's `comm`, which must outlive
        /// the request): a revocation found while collecting aborts it.
        Communicator* comm = nullptr;
    };
    /// The first half of an offloaded call, for MPI 4 persistent
    /// collectives (MPI_Start): the checks of the blocking call, the next
    /// sequence, the request posted to the switch; never waits for the
    /// other members. `comm` must offload the call (would_offload) and have
    /// no other collective in flight in the switch (a persistent request
    /// has a communicator of its own). Arguments as the blocking calls
    /// (`send` and `recv` alike for bcast); `recv` must stay valid until
    /// collect() has returned true.
    Posted post(Communicator& comm, Opcode collective, Datatype type, std::optional<Operation> op, std::size_t count,
                int root, const void* send, void* recv);
    /// The second half: true once the result is in `recv`; waits for it
    /// when `wait`, otherwise only looks (no device access). Throws
    /// DriverError as the blocking call for a switch error.
    bool collect(const Posted& posted, bool wait);

    /// Whether a call with these arguments would run in the switch.
    /// `buffer_bytes` is the collective buffer the switch holds (all blocks:
    /// size x block for the per-rank collectives, 0 for a barrier); above
    /// the switch's ACCEL_MAX_BUFFER_BYTES the call runs in software. Every
    /// member passes the same arguments, so every member decides alike.
    bool would_offload(const Communicator& comm, Opcode collective, std::optional<Operation> op, Datatype type,
                       std::uint64_t buffer_bytes) const;
    /// SmartFuse semi-fused collective (docs/FUSED.md): an Allreduce (`op`)
    /// or Allgather (`count` per rank) whose result runs through the CGRA
    /// program `words` (models/collective/isvp/cgra.h) before it lands in
    /// `recv`. In the switch — the CGRA beside the engine runs it on the
    /// result stream — when `offload` allows it, the call would offload and
    /// the switch has a CGRA; otherwise the collective as the plain call
    /// runs it, then the same program on the host (cgra::run_program: the
    /// same bytes). Returns true when the program ran in the switch. Throws
    /// DriverError for a program the switch (or, without one, the host's
    /// decoder) refuses.
    bool fused(Communicator& comm, Opcode collective, const void* send, void* recv, std::size_t count, Datatype type,
               std::optional<Operation> op, const std::vector<std::uint32_t>& words, bool offload);
    /// Fully fused NAS IS (docs/FUSED.md): Allreduce (`op`) -> program ->
    /// Alltoall of the program's output, all in the switch: the engine
    /// returns the output (`out`, count elements) and starts the alltoall
    /// itself when the program is done (no host step between; the call
    /// takes two sequence numbers): `recv` gets count elements, block r
    /// (count / size elements) being block `rank` of member r's output.
    /// Returns false, having done nothing, when the switch cannot (offload
    /// off, either collective not offloaded, no CGRA, a size that does not
    /// divide count): the caller falls back.
    bool fused_allreduce_alltoall(Communicator& comm, const void* send, void* out, void* recv, std::size_t count,
                                  Datatype type, Operation op, const std::vector<std::uint32_t>& words);
    /// Higher-order collectives (docs/FUSED.md): `input` (input_bytes) goes
    /// to the switch, whose CGRA runs the ingress kernel `words` (GEMM,
    /// SPMV_BAND) on it; the kernel's output (size x count elements) is
    /// reduce-scattered (sum) in the switches and `recv` gets this member's
    /// block of count elements. Returns false, having done nothing, when the
    /// switch cannot (offload off, the reduce-scatter not offloaded, no CGRA,
    /// a message over the limit): the caller runs the host baseline.
    bool ingress_reduce_scatter(Communicator& comm, const void* input, std::size_t input_bytes, void* recv,
                                std::size_t count, Datatype type, const std::vector<std::uint32_t>& words);

    /// Fully fused FEM (docs/FUSED.md): Allgather of `count` (int32) ->
    /// the program `words` (an int32 inclusive prefix sum: block ends) ->
    /// Allgather with unequal counts of `data` (`count` elements of `type`)
    /// whose counts the engine takes from the program's output: the host
    /// posts both requests at once (the second's counts table holds
    /// placeholders), the engine starts the second as soon as the program
    /// is done. `ends` gets size int32 block ends, `recv` the blocks in rank
    /// order. Returns 2 when all ran in the switch; 1 when the blocks
    /// exceed the switch's buffer (every member learns it from `ends`): the
    /// switch refuses the second request on every member and the driver
    /// runs it in software; 0, having done nothing, when the switch cannot
    /// (offload off, timing only, no CGRA, the counts' allgather not
    /// offloaded): the caller falls back.
    int fused_allgather_allgatherv(Communicator& comm, std::int32_t count, std::int32_t* ends, const void* data,
                                   void* recv, Datatype type, const std::vector<std::uint32_t>& words);
    /// Nonblocking fused (MPIX_I... calls, docs/FUSED.md): the offloaded
    /// path of fused() (`alltoall_recv` null) or of
    /// fused_allreduce_alltoall() (`recv` gets the program's output,
    /// `alltoall_recv` the alltoall's result) posted to the switch without
    /// waiting. Returns a ticket for collect_fused(), or nullopt having done
    /// nothing when the switch would not run it (offload off, the call not
    /// offloaded, no CGRA): the caller falls back. The request is on the
    /// communicator's own context: before anything else is posted there (or
    /// the communicator is freed, or the program's CGRA slot is reloaded)
    /// the driver collects its results, so the buffers must stay valid
    /// until collect_fused() returns true.
    std::optional<std::uint64_t> post_fused(Communicator& comm, Opcode collective, const void* send, void* recv,
                                            std::size_t count, Datatype type, std::optional<Operation> op,
                                            const std::vector<std::uint32_t>& words, void* alltoall_recv = nullptr);
    /// The nonblocking form of fused_allgather_allgatherv(): both requests
    /// posted, nothing waited for; nullopt (nothing done) where that returns
    /// 0. collect_fused() gives the path: 2 the blocks are in `recv`, 1 they
    /// exceed the switch's buffer (the switch refused the data request on
    /// every member, which all learn from `ends`): the caller gathers them
    /// in software with the counts from `ends`.
    std::optional<std::uint64_t> post_fused_allgatherv(Communicator& comm, std::int32_t count, std::int32_t* ends,
                                                       const void* data, void* recv, Datatype type,
                                                       const std::vector<std::uint32_t>& words);
    /// True once the ticket's results are in (then the ticket is spent, and
    /// `path`, when given, gets 2, or 1 for post_fused_allgatherv's blocks
    /// beyond the buffer); waits for them when `wait`, otherwise takes what
    /// has arrived. Throws DriverError for a switch error or a ticket not in flight.
    bool collect_fused(std::uint64_t ticket, bool wait, int* path = nullptr);
    /// Checks `words` as a LOAD does: in the switch's CGRA when there is one
    /// (the program stays loaded for fused()), else with the host's decoder.
    /// Throws DriverError naming what is wrong.
    void cgra_check(const std::vector<std::uint32_t>& words);
    std::uint64_t software_calls() const { return software_calls_; }
    std::uint64_t offloaded_calls() const { return offloaded_calls_; }

  private:
    struct Call;
    /// finalize_barrier is running: a receive's link fault counts as the message.
    bool lost_counts_as_arrived_ = false;
    /// receive_reserved, or (lost_counts_as_arrived_) a status of `expected`
    /// bytes when the message was lost for good. Otherwise a lost message
    /// gives the software collective up: every other member of `comm` gets
    /// an abort notice (notice_tag), so that none waits for ever for
    /// this rank's later messages; a member's notice ends the wait here.
    ReceiveStatus receive_step(Communicator& comm, int source, std::uint32_t tag, void* buffer,
                               std::size_t capacity, std::size_t expected);
    void run(Communicator& comm, const Call& call);
    /// The host algorithm over point-to-point messages. Without `payload`
    /// (a user call with DriverConfig::timing_only) the messages are length
    /// only and nothing is copied or combined: no buffer of the call's size.
    /// Communicator management (agreeing on IDs and rows, split) always
    /// carries its payload.
    void run_software(Communicator& comm, const Call& call, bool payload = true);
    void run_offloaded(Communicator& comm, const Call& call);
    /// run()'s checks; the switch buffer the call needs (bytes).
    std::uint64_t check_call(const Communicator& comm, const Call& call) const;
    /// run_offloaded's request; returns the result bytes expected. Posts
    /// call.recv as the result's destination (Driver::post_collective_destination)
    /// for `destination_bytes` (nullopt: the result bytes returned; 0: posts
    /// none, the caller posts it later). A destination overlapping the
    /// contribution (in place) is posted once the contribution has gone.
    std::size_t post_offloaded(Communicator& comm, const Call& call,
                               std::optional<std::size_t> destination_bytes = std::nullopt);
    /// run_offloaded's result; throws DriverError for a switch error. With
    /// `comm`, a revocation found while waiting (check_creation) releases
    /// its CT row, which aborts the collective in the switch (error 5 here
    /// and at its peers): the call fails with the revocation's text.
    void receive_offloaded(unsigned context, Opcode collective, void* recv, std::size_t result,
                           Communicator* comm = nullptr);
    /// One exchange of a communicator's creation (software, with payload):
    /// its tag goes into `tags` (Communicator::creation_tags) and, as in
    /// run(), the sequence moves on whether it succeeds or not, so that a
    /// member whose part failed stays in step with the others.
    void run_creation_exchange(Communicator& comm, const Call& call, std::vector<std::uint32_t>& tags);
    /// While waiting for an offloaded result on `comm` (null: nothing): a
    /// revocation found (check_creation) releases its CT row, which aborts
    /// the collective in the switch (error 5 here and at its peers).
    void abort_if_revoked(Communicator* comm);
    /// Takes every abort notice (or its loss) that arrived for the
    /// exchanges with `tags`; what the first said, if any.
    std::optional<std::string> take_creation_notices(const std::vector<std::uint32_t>& tags);
    /// The tags of the creation exchanges run so far by the creation in
    /// progress (run_creation_exchange), or null.
    const std::vector<std::uint32_t>* creation_watch_ = nullptr;
    /// Agrees on the lowest ID free on every member of `parent` (software
    /// allreduce of the free bitmaps); its exchange's tag goes into `tags`.
    unsigned agree_id(Communicator& parent, std::vector<std::uint32_t>& tags);
    /// Marks `id` used, sets offloadable and uploads the CT row when it can
    /// (its exchange's tag goes into comm.creation_tags). When that
    /// exchange fails, the ID and the row are given back.
    void activate(Communicator& comm);

    /// Ends the communicator's CT row use (free, retire).
    void drop_row(Communicator& comm, const char* what);
    /// Gives back the IDs of retired communicators nobody uses any more.
    void release_retired();

    struct Retired {
        unsigned id = 0;
        std::weak_ptr<const void> users;
    };

    Driver& driver_;
    bool offload_;                        ///< offload where possible (false: software only)
    std::bitset<kCommunicatorIds> used_;  ///< IDs of this rank's live and still used retired communicators
    std::vector<Retired> retired_;        ///< retired, ID still held; in retire order
    Communicator world_;
    std::uint64_t software_calls_ = 0;
    std::uint64_t offloaded_calls_ = 0;
    /// The program each CGRA slot holds (as loaded), and the slot the next new program takes.
    std::array<std::vector<std::uint32_t>, regmap::kCgraSlots> cgra_slots_;
    unsigned cgra_next_slot_ = 0;
    std::optional<std::uint32_t> cgra_capabilities_;  ///< CGRA_CAPABILITIES, read once (an MMIO round trip)
    /// A post_fused() request whose results have not been collected.
    struct InFlight {
        unsigned context = 0;
        unsigned slot = 0;  ///< the CGRA slot armed for it
        /// One result the switch sends back, in order (a fully fused call has two).
        struct Part {
            Opcode collective = Opcode::Allreduce;
            void* recv = nullptr;  ///< nullptr: a result drained, not kept (an error expected)
            std::size_t bytes = 0;
        };
        std::vector<Part> parts;
        std::size_t taken = 0;  ///< parts received
        /// post_fused_allgatherv: parts[0] are int32 block ends, from which
        /// the data's part (or the drain of its refusal) is added.
        struct Blocks {
            std::int32_t* ends = nullptr;
            void* recv = nullptr;
            Datatype type = Datatype::Int32;
            std::size_t size = 0;
        };
        std::optional<Blocks> blocks;
        int path = 2;  ///< collect_fused's
        /// settle() is taking it from the device (it may run the MPI layer's
        /// progress, which must not complete the request before the bytes are in).
        bool receiving = false;
        bool arrived = false;  ///< every part taken from the device
        std::string error;     ///< the switch's error, reported by collect_fused
    };
    /// Takes `request`'s parts from the device in order: all of them
    /// (waiting) when `wait`, else those that have arrived.
    void take_parts(InFlight& request, bool wait);
    std::map<std::uint64_t, InFlight> in_flight_;  ///< by ticket (post order)
    std::uint64_t next_ticket_ = 1;
    /// Takes the results of the in-flight requests on `context` (or armed
    /// with CGRA slot `slot`) from the device, waiting for them: nothing else
    /// may be posted there (or loaded into the slot) before.
    void settle(std::optional<unsigned> context, std::optional<unsigned> slot = std::nullopt);
    /// The slot holding `words`, loading it first (round robin) if needed;
    /// nullopt without a CGRA. Throws DriverError when the switch refuses it.
    std::optional<unsigned> cgra_slot(const std::vector<std::uint32_t>& words);
};

/// Combines `bytes` of elements: out = left op right, element by element, with
/// the AgLU's arithmetic. `out` may alias either operand. Throws DriverError
/// for a pair the AgLU does not support.
void combine_elements(Operation op, Datatype type, const std::uint8_t* left, const std::uint8_t* right,
                      std::uint8_t* out, std::size_t bytes);

}  // namespace isvp::guest
