// Point-to-point: blocking, nonblocking and persistent sends and receives,
// probes, and the matching engine behind them; the argument checks; the
// internal messages of the software collectives.
//
// Matching (MPI 3.1 §3.5). The driver queues complete messages in arrival
// order. The engine here takes every user message out of that queue
// (pull) and offers it to the posted receives in posting order; the first
// that matches completes, otherwise the message joins the unexpected queue.
// A new receive first pulls, then takes the first matching unexpected
// message, else it is posted. So a message always goes to the earliest
// posted matching receive, messages of one sender on one communicator
// match in the order they were sent, and nothing in the unexpected queue
// matches a posted receive.
//
// Send modes. Standard, buffered and ready sends are eager: the driver
// copies the data to its staging ring, so they complete at once.
// Synchronous sends (MPI_Ssend, MPI_Issend, MPI_Ssend_init; MPI 3.1 §3.4)
// are eager too, as MPICH's eager sync protocol: the message carries the
// synchronous bit and, after its data, the sender's 32-bit sync sequence
// number; the receiver, when a receive matches the message (a posted
// receive, a later receive that takes it from the unexpected queue, or
// MPI_Mrecv/MPI_Imrecv — not a probe), sends an internal acknowledgement
// naming that number back, and the sender's request completes when it
// arrives. A rank waiting for an acknowledgement keeps serving incoming
// messages (block_until pulls), so two ranks that Ssend to each other
// before receiving block for good, as the standard says, and the
// simulator's deadlock rule ends the job. MPI_Cancel of a synchronous send
// that is still waiting asks the receiver (kCancelRequest below): a message
// no receive has matched yet is dropped there and the send completes as
// cancelled (MPI_Test_cancelled), else it completes normally. A standard
// send whose request is not completed yet is cancelled the same way (its
// message named by tag and ordinal, see send_ordinal_control).
//
// Wire tags (the driver's 32-bit envelope tag):
//   bit  31      0 (guest::Collectives owns 0x80000000 and above)
//   bit  30      0 user message, 1 MPI-internal
//   bits 29..22  communicator ID (0..255)
//   bit  21      user: synchronous send (a 4-byte sequence number trails
//                the data); internal: a synchronous-send acknowledgement
//                (data: the 4-byte sequence number)
//   bits 20..0   user tag (MPI_TAG_UB = 2^21 - 1) or, internal, the
//                per-communicator collective sequence
//
// Waiting blocks on the device's interrupts (Driver::wait); a test or probe
// that finds nothing pays one PCIe round trip (Driver::poll(true)) so that
// a program polling in a loop lets simulated time advance.
//
// Nonblocking collectives (coll_nonblocking.h) are requests of kind
// Collective: every pull() advances the incomplete ones in start order
// (progress_collectives), so any wait, test or probe drives them.
//
// Progress while blocked in the driver (MPI 3.1 §3.7.4): MPI_Init installs
// a driver progress hook (install_progress_hook) that pulls whenever the
// driver is about to sleep, so a rank blocked in a software or offloaded
// collective, a communicator call or the MPI_Finalize barrier still matches
// messages, acknowledges synchronous sends and advances nonblocking
// collectives.
#include <algorithm>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <sstream>
#include <tuple>

#include "isvp/packet_format.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

constexpr std::uint32_t kTagUpperBound = kMpiTagUpperBound;  // user tags and collective sequences
constexpr std::uint32_t kSynchronousBit = 1u << 21;
constexpr std::uint32_t kCommShift = 22;
constexpr std::uint32_t kInternalBit = 1u << 30;
constexpr std::uint32_t kClassMask = 0xC0000000u;  // bit 31: guest collectives; bit 30: internal
static_assert(kTagUpperBound < kSynchronousBit, "user tags must not reach the synchronous bit");
constexpr std::size_t kSequenceBytes = sizeof(std::uint32_t);  ///< a sync send's trailer, an ack's data

std::uint32_t wire_tag(const Comm& comm, int tag) {
    return comm.guest.id << kCommShift | static_cast<std::uint32_t>(tag);
}
unsigned wire_comm_id(std::uint32_t tag) {
    return tag >> kCommShift & 0xFFu;
}
int wire_user_tag(std::uint32_t tag) {
    return static_cast<int>(tag & kTagUpperBound);
}

/// A software collective that a member gave up (its abort notice).
struct CollectiveAbort {
    std::uint32_t sequence = 0;  ///< the collective's full number on its communicator (Comm::collective_sequence)
    std::string text;            ///< why: names the member and the link fault
    /// The notice itself was lost (its lost message on the notice's tag):
    /// its full number is not known, it ends the collective with its tag.
    bool any_sequence = false;
};

/// A message taken from the driver that no posted receive has matched.
struct Incoming {
    int source = -1;  ///< global rank
    std::uint32_t tag = 0;
    std::vector<std::uint8_t> data;
    std::shared_ptr<Comm> comm;       ///< set once matched by MPI_Mprobe / MPI_Improbe
    bool synchronous = false;         ///< its sender waits until a receive matches it
    std::uint32_t sync_sequence = 0;  ///< the sender's number for it, echoed in the acknowledgement
    std::uint64_t ordinal = 0;        ///< its place among the messages of its sender with its tag (MPI_Cancel)
    /// Lost over a link fault (guest::Driver::ArrivedMessage::lost): a
    /// receive that matches it fails with `why`; a wildcard one matches any
    /// receive from its source.
    bool lost = false;
    bool wildcard = false;
    std::string why{};
};

struct Request {
    /// Collective: a nonblocking collective (coll_nonblocking*.cpp), advanced by pull().
    /// Generalized: MPI_Grequest_start; complete after MPI_Grequest_complete.
    enum class Kind { Send, Receive, Collective, Generalized };
    Kind kind = Kind::Send;
    bool persistent = false;
    bool active = false;            ///< started and not yet returned by a completion call
    bool complete = false;          ///< the operation is done
    bool detached = false;          ///< MPI_Request_free'd while active: nobody waits for it
    bool synchronous = false;       ///< a synchronous send: complete when the receiver acknowledges
    bool cancel_requested = false;  ///< MPI_Cancel asked the receiver to drop this send
    std::uint32_t sent_tag = 0;     ///< a started send: its wire tag
    std::uint64_t ordinal = 0;      ///< a started send: its place among this rank's messages to its peer with its tag
    std::shared_ptr<Comm> comm;
    std::shared_ptr<Type> type;
    const void* send_buffer = nullptr;
    void* buffer = nullptr;
    int count = 0;
    int peer = MPI_PROC_NULL;  ///< destination or source (comm rank, MPI_ANY_SOURCE, MPI_PROC_NULL)
    int tag = 0;               ///< or MPI_ANY_TAG
    MPI_Status status{};
    int error = MPI_SUCCESS;                         ///< MPI_ERR_TRUNCATE on a too-long message
    std::string error_message;                       ///< what went wrong
    std::shared_ptr<CollectiveProgress> collective;  ///< Kind::Collective: its schedule
    const char* function = nullptr;                  ///< Kind::Collective: the call that started it
    /// A persistent collective (persistent.cpp): a fresh run per MPI_Start,
    /// and what MPI_Request_free releases.
    std::function<std::shared_ptr<CollectiveProgress>()> restart;
    std::function<void()> release;
    /// Kind::Generalized: the user's functions and their argument.
    MPI_Grequest_query_function* query = nullptr;
    MPI_Grequest_free_function* free = nullptr;
    MPI_Grequest_cancel_function* cancel = nullptr;
    void* extra_state = nullptr;
    bool freed = false;  ///< MPI_Request_free'd before MPI_Grequest_complete
};

struct Engine {
    HandleTable<Request> requests{kind::kRequest, true};
    std::list<std::shared_ptr<Request>> posted;      ///< active receives, posting order
    std::deque<Incoming> unexpected;                 ///< arrival order
    HandleTable<Incoming> messages{kind::kMessage};  ///< matched by MPI_Mprobe, not yet received
    std::deque<Incoming> self_internal;              ///< internal messages a rank sent itself
    /// Started synchronous sends not yet acknowledged, by sync sequence number.
    std::map<std::uint32_t, std::shared_ptr<Request>> awaiting_ack;
    std::uint32_t next_sync_sequence = 0;  ///< numbers this rank's synchronous sends
    /// Messages sent per (destination, wire tag) and arrived per (source,
    /// wire tag): a message's ordinal names it in a cancel request.
    std::map<std::pair<int, std::uint32_t>, std::uint64_t> sent, arrived;
    /// Standard sends whose cancel request is unanswered, by (destination, wire tag, ordinal).
    std::map<std::tuple<int, std::uint32_t, std::uint64_t>, std::shared_ptr<Request>> cancelling;
    /// Nonblocking collectives not yet complete, in the order they were started.
    std::vector<std::shared_ptr<Request>> collectives;
    /// Abort notices of software collectives (a member gave one up over a
    /// link fault), by the collective's wire tag; kept until this rank's
    /// receive of that collective sees them (watch_for_link_faults).
    std::map<std::uint32_t, CollectiveAbort> collective_aborts;
    bool progressing = false;  ///< inside progress_collectives (no re-entry from a user op)
    bool pulling = false;      ///< inside pull (the driver's progress hook does not nest in it)
    void* attached = nullptr;  ///< MPI_Buffer_attach (unused: sends are eager)
    int attached_bytes = 0;
    Engine() { requests.put(0, nullptr); }
};

Engine& engine() {
    static Engine instance;
    return instance;
}

void set_empty(MPI_Status& status, int source = MPI_ANY_SOURCE) {
    status.MPI_SOURCE = source;
    status.MPI_TAG = MPI_ANY_TAG;
    status.MPI_ERROR = MPI_SUCCESS;
    status.isvp_cancelled = 0;
    status.isvp_bytes = 0;
}

/// Copies a completed operation's status, leaving MPI_ERROR alone (single
/// completion calls do not set it, MPI 3.1 §3.2.5).
void copy_status(const MPI_Status& from, MPI_Status* to, bool with_error = false) {
    if (to == nullptr || to == MPI_STATUS_IGNORE) return;
    const int error = to->MPI_ERROR;
    *to = from;
    if (!with_error) to->MPI_ERROR = error;
}

bool matches(const Request& request, int source, std::uint32_t tag) {
    const Comm& comm = *request.comm;
    if (wire_comm_id(tag) != comm.guest.id) return false;
    if (request.tag != MPI_ANY_TAG && wire_user_tag(tag) != request.tag) return false;
    if (request.peer == MPI_ANY_SOURCE) return comm.peer_rank(source) != MPI_UNDEFINED;
    return comm.peer_global(request.peer) == source;
}

/// `matches` for an arrived message: a wildcard lost one (its tag unknown)
/// matches any receive from its source.
bool matches(const Request& request, const Incoming& message) {
    if (!message.wildcard) return matches(request, message.source, message.tag);
    const Comm& comm = *request.comm;
    if (request.peer == MPI_ANY_SOURCE) return comm.peer_rank(message.source) != MPI_UNDEFINED;
    return comm.peer_global(request.peer) == message.source;
}

std::string describe_type(const Type& type) {
    return type.name.empty() ? "a derived datatype" : type.name;
}

void complete_receive(Request& request, int source, std::uint32_t tag, const std::vector<std::uint8_t>& data) {
    const Type& type = *request.type;
    const std::size_t capacity = static_cast<std::size_t>(request.count) * type.size;
    unpack(data.data(), data.size(), static_cast<std::size_t>(request.count), type, request.buffer);
    request.status.MPI_SOURCE = request.comm->peer_rank(source);
    request.status.MPI_TAG = wire_user_tag(tag);
    request.status.isvp_cancelled = 0;
    request.status.isvp_bytes = static_cast<long long>(std::min(data.size(), capacity));
    if (data.size() > capacity) {
        request.error = MPI_ERR_TRUNCATE;
        request.error_message = "message of " + std::to_string(data.size()) + " bytes from rank " +
                                std::to_string(request.status.MPI_SOURCE) + " (tag " +
                                std::to_string(request.status.MPI_TAG) + ") is longer than the receive buffer (" +
                                std::to_string(request.count) + " x " + describe_type(type) + " = " +
                                std::to_string(capacity) + " bytes)";
    }
    request.status.MPI_ERROR = request.error;
    request.complete = true;
}

void fail_with_link_fault(Request& request, const std::string& why);

/// Completes `request` with `message`, or fails it when the message was lost.
void complete_receive(Request& request, const Incoming& message) {
    if (message.lost)
        return fail_with_link_fault(request,
                                    "receive from rank " + std::to_string(message.source) + " failed: " + message.why);
    complete_receive(request, message.source, message.tag, message.data);
}

/// The sender's side of a synchronous send: the receiver acknowledged it.
void complete_synchronous(std::uint32_t sequence) {
    auto& waiting = engine().awaiting_ack;
    const auto it = waiting.find(sequence);
    if (it == waiting.end()) return;  // not ours to complete (the engine was reset since)
    it->second->complete = true;
    waiting.erase(it);
}

/// The receiver's side: a receive has matched `message`; a synchronous
/// sender is told so (an internal message, never matched by user receives).
void acknowledge(const Incoming& message) {
    if (!message.synchronous) return;
    if (message.source == driver().rank()) {
        complete_synchronous(message.sync_sequence);
        return;
    }
    std::uint8_t data[kSequenceBytes];
    std::memcpy(data, &message.sync_sequence, kSequenceBytes);
    const std::uint32_t tag = kInternalBit | kSynchronousBit | wire_comm_id(message.tag) << kCommShift;
    driver().send(message.source, tag, data, kSequenceBytes);
}

// Cancelling a synchronous send (MPI 3.1 §3.8.4). The sender asks the
// receiver (an internal message on the acknowledgement tag, 8 bytes: the
// sync sequence and kCancelRequest); the receiver answers kCancelled when
// the message is still unmatched in its unexpected queue — and drops it —
// else kNotCancelled (a receive matched it: its acknowledgement went out
// first, so the send has completed). The sender's request completes with
// the answer or the acknowledgement, whichever comes.
constexpr std::uint32_t kCancelRequest = 1;
constexpr std::uint32_t kCancelled = 2;
constexpr std::uint32_t kNotCancelled = 3;

// A software collective's abort notice (docs/MPI.md, Link faults): an
// internal message on the acknowledgement class with the collective's own
// tag, longer than the other control messages: kCollectiveAbort, the
// collective's full sequence number, then the text of the failure.
constexpr std::uint32_t kCollectiveAbort = 4;
constexpr std::size_t kAbortHeaderBytes = 2 * kSequenceBytes;

void record_collective_abort(const guest::Driver::ArrivedMessage& message) {
    std::uint32_t what = 0;
    CollectiveAbort notice;
    std::memcpy(&what, message.data.data(), kSequenceBytes);
    std::memcpy(&notice.sequence, message.data.data() + kSequenceBytes, kSequenceBytes);
    if (what != kCollectiveAbort) return;
    notice.text.assign(message.data.begin() + kAbortHeaderBytes, message.data.end());
    // The first notice of a collective wins; others say the same of another member.
    engine().collective_aborts.emplace(message.tag & ~kSynchronousBit, std::move(notice));
}

void send_control(int destination, unsigned comm_id, std::uint32_t sequence, std::uint32_t what) {
    std::uint8_t data[2 * kSequenceBytes];
    std::memcpy(data, &sequence, kSequenceBytes);
    std::memcpy(data + kSequenceBytes, &what, kSequenceBytes);
    const std::uint32_t tag = kInternalBit | kSynchronousBit | comm_id << kCommShift;
    driver().send(destination, tag, data, sizeof data);
}

/// The sender's side: its synchronous send `sequence` was cancelled.
void complete_cancelled(std::uint32_t sequence) {
    auto& waiting = engine().awaiting_ack;
    const auto it = waiting.find(sequence);
    if (it == waiting.end()) return;
    Request& request = *it->second;
    set_empty(request.status);
    request.status.isvp_cancelled = 1;
    request.complete = true;
    waiting.erase(it);
}

/// The receiver's side: drops `source`'s unmatched synchronous message
/// `sequence`; whether it was there.
bool drop_unmatched(int source, std::uint32_t sequence) {
    auto& queue = engine().unexpected;
    const auto it = std::find_if(queue.begin(), queue.end(), [&](const Incoming& m) {
        return m.synchronous && m.source == source && m.sync_sequence == sequence;
    });
    if (it == queue.end()) return false;
    queue.erase(it);
    return true;
}

// Cancelling a standard (eager, locally complete) send works the same way,
// naming the message by its wire tag and ordinal (its place among the
// sender's messages to that receiver with that tag, counted on both sides):
// 16 bytes {what, tag, ordinal} with what = kCancelRequest, kCancelled or
// kNotCancelled. The request is incomplete again until the answer arrives.
void send_ordinal_control(int destination, unsigned comm_id, std::uint32_t what, std::uint32_t tag,
                          std::uint64_t ordinal) {
    std::uint8_t data[16];
    std::memcpy(data, &what, 4);
    std::memcpy(data + 4, &tag, 4);
    std::memcpy(data + 8, &ordinal, 8);
    driver().send(destination, kInternalBit | kSynchronousBit | comm_id << kCommShift, data, sizeof data);
}

/// The receiver's side: drops `source`'s unmatched message (tag, ordinal); whether it was there.
bool drop_unmatched_message(int source, std::uint32_t tag, std::uint64_t ordinal) {
    auto& queue = engine().unexpected;
    const auto it = std::find_if(queue.begin(), queue.end(), [&](const Incoming& m) {
        return !m.synchronous && m.source == source && m.tag == tag && m.ordinal == ordinal;
    });
    if (it == queue.end()) return false;
    queue.erase(it);
    return true;
}

/// The sender's side: the answer for the standard send (destination, tag, ordinal).
void cancel_answered(int destination, std::uint32_t tag, std::uint64_t ordinal, bool cancelled) {
    auto& waiting = engine().cancelling;
    const auto it = waiting.find({destination, tag, ordinal});
    if (it == waiting.end()) return;
    Request& request = *it->second;
    if (cancelled) {
        set_empty(request.status);
        request.status.isvp_cancelled = 1;
    }
    request.complete = true;
    waiting.erase(it);
}

/// Offers a message to the posted receives; unmatched, it joins the unexpected queue.
void deliver(Incoming message) {
    Engine& e = engine();
    for (auto it = e.posted.begin(); it != e.posted.end(); ++it)
        if (matches(**it, message)) {
            const std::shared_ptr<Request> request = *it;
            e.posted.erase(it);
            complete_receive(*request, message);
            acknowledge(message);
            return;
        }
    e.unexpected.push_back(std::move(message));
}

/// A user message from the driver; a synchronous one's trailing sequence
/// number is taken off its data.
Incoming arrived(guest::Driver::ArrivedMessage& message) {
    Incoming incoming{message.source, message.tag, std::move(message.data), nullptr};
    incoming.ordinal = engine().arrived[{message.source, message.tag}]++;
    incoming.lost = message.lost;
    incoming.wildcard = message.wildcard;
    incoming.why = std::move(message.why);
    if (incoming.lost) return incoming;
    if ((message.tag & kSynchronousBit) != 0 && incoming.data.size() >= kSequenceBytes) {
        const std::size_t bytes = incoming.data.size() - kSequenceBytes;
        std::memcpy(&incoming.sync_sequence, incoming.data.data() + bytes, kSequenceBytes);
        incoming.data.resize(bytes);
        incoming.synchronous = true;
    }
    return incoming;
}

/// Completes a pending request with a link-fault error (MPI_ERR_OTHER).
void fail_with_link_fault(Request& request, const std::string& why) {
    request.error = MPI_ERR_OTHER;
    request.error_message = why;
    request.status.MPI_ERROR = MPI_ERR_OTHER;
    request.complete = true;
}

/// Fails the synchronous sends to global rank `peer` (on communicator ID
/// `comm_id` only, when given) that wait for an acknowledgement.
void fail_synchronous_sends(int peer, std::optional<unsigned> comm_id, const std::string& why) {
    auto& waiting = engine().awaiting_ack;
    for (auto it = waiting.begin(); it != waiting.end();) {
        Request& request = *it->second;
        if (request.comm->peer_global(request.peer) != peer || (comm_id && request.comm->guest.id != *comm_id)) {
            ++it;
            continue;
        }
        fail_with_link_fault(request, "synchronous send to rank " + std::to_string(peer) + " failed: " + why);
        it = waiting.erase(it);
    }
}

/// A lost internal message of the acknowledgement class from `source`: an
/// acknowledgement (the synchronous sends to `source` waiting for one fail)
/// or a software collective's abort notice (the collective with its tag
/// fails: check_collective_abort).
void lost_control_message(const guest::Driver::ArrivedMessage& message) {
    fail_synchronous_sends(message.source, wire_comm_id(message.tag), "its acknowledgement was lost: " + message.why);
    CollectiveAbort notice;
    notice.text = "a member's abort notice for this software collective was lost (lost message from rank " +
                  std::to_string(message.source) + ": " + message.why + ")";
    notice.any_sequence = true;
    engine().collective_aborts.emplace(message.tag & ~kSynchronousBit, std::move(notice));
}

/// Moves every user message the driver has into the matching engine and
/// completes the synchronous sends whose acknowledgements have arrived.
void pull() {
    Engine& e = engine();
    const bool outer = !e.pulling;
    struct Guard {
        bool& flag;
        bool owner;
        ~Guard() {
            if (owner) flag = false;
        }
    } guard{e.pulling, outer};
    e.pulling = true;
    guest::Driver::ArrivedMessage message;
    while (driver().take_message(guest::kAnySource, kClassMask, 0, message)) deliver(arrived(message));
    while (driver().take_message(guest::kAnySource, kClassMask | kSynchronousBit, kInternalBit | kSynchronousBit,
                                 message)) {
        std::uint32_t sequence = 0, what = 0;
        if (message.lost) {
            lost_control_message(message);
            driver().note_progress();
        } else if (message.data.size() == kSequenceBytes) {
            std::memcpy(&sequence, message.data.data(), kSequenceBytes);
            complete_synchronous(sequence);
        } else if (message.data.size() == 2 * kSequenceBytes) {  // cancelling a synchronous send
            std::memcpy(&sequence, message.data.data(), kSequenceBytes);
            std::memcpy(&what, message.data.data() + kSequenceBytes, kSequenceBytes);
            if (what == kCancelRequest)
                send_control(message.source, wire_comm_id(message.tag), sequence,
                             drop_unmatched(message.source, sequence) ? kCancelled : kNotCancelled);
            else if (what == kCancelled)
                complete_cancelled(sequence);
        } else if (message.data.size() == 16) {  // cancelling a standard send
            std::uint32_t tag = 0;
            std::uint64_t ordinal = 0;
            std::memcpy(&what, message.data.data(), 4);
            std::memcpy(&tag, message.data.data() + 4, 4);
            std::memcpy(&ordinal, message.data.data() + 8, 8);
            if (what == kCancelRequest)
                send_ordinal_control(message.source, wire_comm_id(message.tag),
                                     drop_unmatched_message(message.source, tag, ordinal) ? kCancelled : kNotCancelled,
                                     tag, ordinal);
            else
                cancel_answered(message.source, tag, ordinal, what == kCancelled);
        } else if (message.data.size() > 16) {
            record_collective_abort(message);
            driver().note_progress();  // a blocked collective's receive must see it
        }
    }
    // This rank's own packets to a peer were lost (docs/MPI.md, Link faults):
    // a synchronous send's message or its acknowledgement may be the one, so
    // those to that peer fail; receives fail on the lost messages themselves.
    for (const int peer : driver().link_fault_peers()) {
        guest::LinkFault fault;
        driver().take_link_fault(peer, fault);
        fail_synchronous_sends(peer, std::nullopt, guest::describe(fault, driver().node_address()));
    }
    progress_collectives();
}

/// Pulls; if `done` is still false, polls the device once (a round trip).
template <class Done>
bool test_once(Done done) {
    pull();
    if (done()) return true;
    driver().poll(true);
    pull();
    return done();
}

template <class Done>
void block_until(Done done) {
    pull();
    while (!done()) {
        driver().wait();
        pull();
    }
}

/// The first unexpected message matching (source, tag) on `comm`.
std::deque<Incoming>::iterator find_unexpected(const Comm& comm, int source, int tag) {
    Engine& e = engine();
    Request probe;
    probe.comm = std::shared_ptr<Comm>(std::shared_ptr<Comm>(), const_cast<Comm*>(&comm));
    probe.peer = source;
    probe.tag = tag;
    return std::find_if(e.unexpected.begin(), e.unexpected.end(), [&](const Incoming& m) { return matches(probe, m); });
}

void advance_collective(Request& request);

void start(Request& request, const std::shared_ptr<Request>& shared) {
    request.cancel_requested = false;
    request.active = true;
    request.complete = false;
    request.error = MPI_SUCCESS;
    request.error_message.clear();
    set_empty(request.status);
    if (request.kind == Request::Kind::Collective) {  // a persistent collective: a fresh run
        try {
            request.collective = request.restart();
        } catch (...) {
            request.active = false;
            throw;
        }
        advance_collective(request);
        if (!request.complete) engine().collectives.push_back(shared);
        return;
    }
    if (request.peer == MPI_PROC_NULL) {
        set_empty(request.status, MPI_PROC_NULL);
        request.complete = true;
        return;
    }
    const Comm& comm = *request.comm;
    const Type& type = *request.type;
    if (request.kind == Request::Kind::Send) {
        const int destination = comm.peer_global(request.peer);
        const std::size_t bytes = static_cast<std::size_t>(request.count) * type.size;
        std::vector<std::uint8_t> packed;
        const void* data = static_cast<const std::uint8_t*>(request.send_buffer) + type.true_lb;
        if (!type.contiguous) {
            packed.resize(bytes);
            pack(request.send_buffer, static_cast<std::size_t>(request.count), type, packed.data());
            data = packed.data();
        }
        const auto* begin = static_cast<const std::uint8_t*>(data);
        Incoming message{driver().rank(), wire_tag(comm, request.tag), {}, nullptr};
        if (request.synchronous) {
            // Registered before anything is sent: a receive this rank already
            // posted for a message to itself acknowledges it at once.
            message.synchronous = true;
            message.sync_sequence = engine().next_sync_sequence++;
            message.tag |= kSynchronousBit;
            engine().awaiting_ack.emplace(message.sync_sequence, shared);
        }
        message.ordinal = engine().sent[{destination, message.tag}]++;
        request.sent_tag = message.tag;
        request.ordinal = message.ordinal;
        if (destination == driver().rank()) {
            message.data.assign(begin, begin + bytes);
            deliver(std::move(message));
        } else if (request.synchronous) {
            message.data.resize(bytes + kSequenceBytes);
            if (bytes > 0) std::memcpy(message.data.data(), begin, bytes);
            std::memcpy(message.data.data() + bytes, &message.sync_sequence, kSequenceBytes);
            driver().send(destination, message.tag, message.data.data(), message.data.size());
        } else {
            driver().send(destination, message.tag, bytes > 0 ? data : nullptr, bytes);
        }
        if (!request.synchronous) request.complete = true;
        return;
    }
    pull();
    const auto it = find_unexpected(comm, request.peer, request.tag);
    if (it != engine().unexpected.end()) {
        const Incoming message = std::move(*it);
        engine().unexpected.erase(it);
        complete_receive(request, message);
        acknowledge(message);
        return;
    }
    engine().posted.push_back(shared);
}

struct Arguments {
    std::shared_ptr<Comm> comm;
    std::shared_ptr<Type> type;
};

/// Checks a send's or receive's arguments; the comm and datatype they name.
Arguments check_p2p(const void* buffer, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                    bool receive, const char* buffer_name = "buf", const char* type_name = "datatype",
                    bool synchronous = false) {
    Comm& c = check_comm(comm);
    check_count(count, "count");
    const Type& type = check_datatype(datatype, type_name);
    check_rank(c, peer, receive ? "source" : "destination", true, receive);
    check_tag(tag, "tag", receive);
    check_buffer(buffer, count, type, buffer_name);
    // One message is one processor packet: 16 envelope bytes + data (+ a
    // synchronous send's sequence number) within the 29-bit size.
    const std::size_t largest = isvp::kMaxMessageBytes - 16 - (synchronous ? kSequenceBytes : 0);
    if (!receive && static_cast<std::size_t>(count) * type.size > largest)
        fail(MPI_ERR_COUNT, "message of " + std::to_string(static_cast<std::size_t>(count) * type.size) +
                                " bytes exceeds the platform's largest message, " + std::to_string(largest) + " bytes");
    return {communicators().shared(comm), datatypes().shared(datatype)};
}

std::shared_ptr<Request> make_request(Request::Kind kind, const Arguments& args, const void* buffer, int count,
                                      int peer, int tag) {
    auto request = std::make_shared<Request>();
    request->kind = kind;
    request->comm = args.comm;
    request->type = args.type;
    request->count = count;
    request->peer = peer;
    request->tag = tag;
    if (kind == Request::Kind::Send)
        request->send_buffer = buffer;
    else
        request->buffer = const_cast<void*>(buffer);
    return request;
}

/// A nonblocking (started at once) or persistent (inactive) request;
/// `synchronous` for MPI_Issend and MPI_Ssend_init.
int new_request(const char* function, Request::Kind kind, bool persistent, bool synchronous, const void* buffer,
                int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Request* request) {
    return entry(function, comm, [&] {
        const Arguments args = check_p2p(buffer, count, datatype, peer, tag, comm, kind == Request::Kind::Receive,
                                         "buf", "datatype", synchronous);
        if (request == nullptr) fail(MPI_ERR_ARG, "request is NULL");
        auto made = make_request(kind, args, buffer, count, peer, tag);
        made->persistent = persistent;
        made->synchronous = synchronous;
        if (!persistent) start(*made, made);
        *request = engine().requests.add(made);
    });
}

/// Runs a blocking operation to completion; throws its error.
void run_blocking(const std::shared_ptr<Request>& request, MPI_Status* status) {
    start(*request, request);
    block_until([&] { return request->complete; });
    copy_status(request->status, status);
    if (request->error != MPI_SUCCESS) fail(request->error, request->error_message);
}

Request* find_request(MPI_Request handle) {
    return engine().requests.find(handle);
}

DeferredWork& deferred_work() {
    static DeferredWork work;
    return work;
}

/// A completion call's first step: runs the deferred work (set_deferred_work)
/// when one of `requests` waits for it.
void run_deferred(int count, const MPI_Request* requests) {
    const DeferredWork& work = deferred_work();
    if (work.owns == nullptr || requests == nullptr) return;
    for (int i = 0; i < count; ++i) {
        const Request* request = find_request(requests[i]);
        if (request != nullptr && request->kind == Request::Kind::Generalized && !request->complete &&
            work.owns(request->extra_state)) {
            work.run();
            return;
        }
    }
}

/// The communicator whose error handler a call on `handle` reports through.
MPI_Comm comm_of(const MPI_Request* handle) {
    if (handle == nullptr) return MPI_COMM_WORLD;
    const Request* request = find_request(*handle);
    return request != nullptr && request->comm ? request->comm->handle : MPI_COMM_WORLD;
}

/// A request handle that is MPI_REQUEST_NULL or live; nullptr for NULL.
Request* check_request(MPI_Request handle, const char* what) {
    if (handle == MPI_REQUEST_NULL) return nullptr;
    Request* request = find_request(handle);
    if (request == nullptr) fail(MPI_ERR_REQUEST, std::string(what) + " is not a valid request");
    return request;
}

bool pending(const Request* request) {
    return request != nullptr && request->active;
}

/// Returns a completed request's status and releases it (persistent
/// requests become inactive); the request's error class.
int retire(MPI_Request& handle, MPI_Status* status, bool with_error, std::string* message) {
    Request* request = find_request(handle);
    if (request == nullptr || !request->active) {
        if (status != nullptr && status != MPI_STATUS_IGNORE) {
            const int error = status->MPI_ERROR;
            set_empty(*status);
            if (!with_error) status->MPI_ERROR = error;
        }
        return MPI_SUCCESS;
    }
    if (request->kind == Request::Kind::Generalized) {
        // MPI 3.1 §12.2: the status comes from query_fn, then free_fn runs;
        // an error either returns is the completion call's.
        if (const int rc = request->query(request->extra_state, &request->status); rc != MPI_SUCCESS) {
            request->error = rc;
            request->error_message = "the generalized request's query_fn returned " + std::to_string(rc);
        }
        if (const int rc = request->free(request->extra_state); rc != MPI_SUCCESS && request->error == MPI_SUCCESS) {
            request->error = rc;
            request->error_message = "the generalized request's free_fn returned " + std::to_string(rc);
        }
    }
    copy_status(request->status, status, with_error);
    const int error = request->error;
    if (message != nullptr && error != MPI_SUCCESS) *message = request->error_message;
    request->active = false;
    if (request->kind == Request::Kind::Collective) request->collective.reset();
    if (!request->persistent) {
        engine().requests.remove(handle);
        handle = MPI_REQUEST_NULL;
    }
    return error;
}

/// Waits for (or tests) a set of requests; retires and reports completed ones.
int complete_all(int count, MPI_Request requests[], MPI_Status statuses[]) {
    const bool ignore = statuses == MPI_STATUSES_IGNORE || statuses == nullptr;
    int errors = 0;
    std::string first;
    for (int i = 0; i < count; ++i) {
        std::string message;
        const int error = retire(requests[i], ignore ? MPI_STATUS_IGNORE : &statuses[i], true, &message);
        if (error != MPI_SUCCESS && errors++ == 0) first = "request " + std::to_string(i) + ": " + message;
    }
    if (errors > 0) fail(MPI_ERR_IN_STATUS, std::to_string(errors) + " request(s) failed; " + first);
    return MPI_SUCCESS;
}

/// Checks the array of a completion call, then runs the deferred work it waits for.
void check_request_array(int count, const MPI_Request requests[], const char* name) {
    if (count < 0) fail(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
    if (count > 0 && requests == nullptr) fail(MPI_ERR_REQUEST, std::string(name) + " is NULL");
    for (int i = 0; i < count; ++i)
        check_request(requests[i], (std::string(name) + "[" + std::to_string(i) + "]").c_str());
    run_deferred(count, requests);
}

/// Index of the first completed active request, -1 if none, MPI_UNDEFINED
/// if none is active.
int first_complete(int count, const MPI_Request requests[]) {
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
        const Request* request = find_request(requests[i]);
        if (!pending(request)) continue;
        any_active = true;
        if (request->complete) return i;
    }
    return any_active ? -1 : MPI_UNDEFINED;
}

void probe_status(const Comm& comm, const Incoming& message, MPI_Status* status);

/// Every active request in `requests` has completed.
bool all_complete(int count, const MPI_Request requests[]) {
    for (int i = 0; i < count; ++i) {
        const Request* request = find_request(requests[i]);
        if (pending(request) && !request->complete) return false;
    }
    return true;
}

/// The probes' common part: checks the arguments and looks for a matching
/// unexpected message, waiting for one when `blocking`. Returns the
/// communicator's end() when none was found or `source` is MPI_PROC_NULL
/// (then `status` says so and `*null_source` is set).
std::deque<Incoming>::iterator probe(MPI_Comm comm, int source, int tag, bool blocking, MPI_Status* status,
                                     bool* null_source) {
    Comm& c = check_comm(comm);
    check_rank(c, source, "source", true, true);
    check_tag(tag, "tag", true);
    auto& queue = engine().unexpected;
    *null_source = source == MPI_PROC_NULL;
    if (*null_source) {
        if (status != nullptr && status != MPI_STATUS_IGNORE) set_empty(*status, MPI_PROC_NULL);
        return queue.end();
    }
    auto it = queue.end();
    const auto found = [&] { return (it = find_unexpected(c, source, tag)) != queue.end(); };
    if (blocking)
        block_until(found);
    else
        test_once(found);
    if (it != queue.end() && it->lost)
        fail(MPI_ERR_OTHER, "the message from rank " + std::to_string(c.peer_rank(it->source)) +
                                " this probe matches was lost: " + it->why);
    if (it != queue.end()) probe_status(c, *it, status);
    return it;
}

void probe_status(const Comm& comm, const Incoming& message, MPI_Status* status) {
    if (status == nullptr || status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = comm.peer_rank(message.source);
    status->MPI_TAG = wire_user_tag(message.tag);
    status->isvp_cancelled = 0;
    status->isvp_bytes = static_cast<long long>(message.data.size());
}

/// Receives a message matched by MPI_Mprobe into a buffer.
void receive_matched(Incoming& message, void* buffer, int count, MPI_Datatype datatype, Request& request) {
    request.kind = Request::Kind::Receive;
    request.comm = message.comm;
    request.type = datatypes().shared(datatype);
    request.buffer = buffer;
    request.count = count;
    request.active = true;
    complete_receive(request, message);
}

}  // namespace

// ---- argument checks ---------------------------------------------------------

void check_count(int count, const char* what) {
    if (count < 0) fail(MPI_ERR_COUNT, "invalid " + std::string(what) + " " + std::to_string(count) + " (negative)");
}

void check_root(const Comm& comm, int root) {
    if (root < 0 || root >= comm.size())
        fail(MPI_ERR_ROOT,
             "invalid root " + std::to_string(root) + " (communicator size " + std::to_string(comm.size()) + ")");
}

void check_rank(const Comm& comm, int rank, const char* what, bool allow_proc_null, bool allow_any_source) {
    if (rank >= 0 && rank < comm.peer_size()) return;
    if (allow_proc_null && rank == MPI_PROC_NULL) return;
    if (allow_any_source && rank == MPI_ANY_SOURCE) return;
    const std::string role = std::string(what);
    const std::string named = role.size() >= 4 && role.compare(role.size() - 4, 4, "rank") == 0 ? role : role + " rank";
    if (rank == MPI_ANY_SOURCE) fail(MPI_ERR_RANK, "MPI_ANY_SOURCE is not a " + named);
    if (rank == MPI_PROC_NULL) fail(MPI_ERR_RANK, "MPI_PROC_NULL is not a " + named + " here");
    fail(MPI_ERR_RANK, "invalid " + std::string(what) + " rank " + std::to_string(rank) +
                           (comm.is_inter() ? " (remote group size " : " (communicator size ") +
                           std::to_string(comm.peer_size()) + ")");
}

void check_tag(int tag, const char* what, bool allow_any) {
    if (tag >= 0 && static_cast<std::uint32_t>(tag) <= kTagUpperBound) return;
    if (allow_any && tag == MPI_ANY_TAG) return;
    fail(MPI_ERR_TAG, "invalid " + std::string(what) + " " + std::to_string(tag) + " (tags are 0.." +
                          std::to_string(kTagUpperBound) + " = MPI_TAG_UB" + (allow_any ? ", or MPI_ANY_TAG)" : ")"));
}

void check_disjoint(const void* sendbuf, int sendcount, const Type& sendtype, int dest, const void* recvbuf,
                    int recvcount, const Type& recvtype, int source, const char* function) {
    // The standard wants the two buffers disjoint. Checked where it is
    // certain: contiguous data on both sides, both moving (strided types may
    // interleave; MPI_PROC_NULL moves nothing).
    if (sendcount <= 0 || recvcount <= 0 || dest == MPI_PROC_NULL || source == MPI_PROC_NULL) return;
    if (!sendtype.contiguous || !recvtype.contiguous || sendtype.size == 0 || recvtype.size == 0) return;
    const auto* s = static_cast<const std::uint8_t*>(sendbuf) + sendtype.true_lb;
    const auto* r = static_cast<const std::uint8_t*>(recvbuf) + recvtype.true_lb;
    if (s < r + static_cast<std::size_t>(recvcount) * recvtype.size &&
        r < s + static_cast<std::size_t>(sendcount) * sendtype.size)
        fail(MPI_ERR_BUFFER, std::string("sendbuf and recvbuf overlap (") + function +
                                 " needs disjoint buffers; MPI_Sendrecv_replace sends and receives in one)");
}

void check_buffer(const void* buffer, int count, const Type& type, const char* what) {
    // The collectives that take MPI_IN_PLACE check it before they get here.
    if (buffer == MPI_IN_PLACE)
        fail(MPI_ERR_BUFFER, std::string(what) + " is MPI_IN_PLACE, which only some collectives take");
    if (buffer != nullptr || count == 0 || type.size == 0 || type.true_lb != 0) return;
    fail(MPI_ERR_BUFFER,
         std::string(what) + " is NULL with count " + std::to_string(count) + " of " + describe_type(type));
}

// ---- internal messages ---------------------------------------------------------

namespace {

struct CallCounter {
    std::uint64_t serial = 0;  ///< top-level MPI calls begun
    int depth = 0;             ///< entry() calls running (nested ones inside the top-level one)
};

CallCounter& call_counter() {
    static CallCounter counter;
    return counter;
}

}  // namespace

CallScope::CallScope() {
    if (call_counter().depth++ == 0) ++call_counter().serial;
}

CallScope::~CallScope() {
    --call_counter().depth;
}

std::uint64_t current_mpi_call() {
    return call_counter().depth > 0 ? call_counter().serial : 0;
}

std::uint32_t collective_tag(Comm& comm) {
    const std::uint64_t call = current_mpi_call();
    if (call != 0 && comm.tag_call == call) return comm.call_tag;
    // A communicator whose creation failed on another member (revoked):
    // none of its collectives can complete.
    if (!comm.guest.revoked.empty()) fail(MPI_ERR_OTHER, comm.guest.revoked);
    const std::uint32_t sequence = comm.collective_sequence++;
    const std::uint32_t tag = kInternalBit | comm.guest.id << kCommShift | (sequence & kTagUpperBound);
    // An abort notice kept for an earlier collective with the same low bits
    // is stale (this rank finished that one); one for this very collective
    // (a member gave it up before this rank started it) stays.
    auto& aborts = engine().collective_aborts;
    if (const auto it = aborts.find(tag);
        it != aborts.end() && !it->second.any_sequence && it->second.sequence != sequence)
        aborts.erase(it);
    comm.tag_call = call;
    comm.call_tag = tag;
    return tag;
}

namespace {

/// The full sequence number of the latest collective `comm` issued with wire tag `tag`.
std::uint32_t issued_sequence(const Comm& comm, std::uint32_t tag) {
    const std::uint32_t latest = comm.collective_sequence - 1;
    return latest - ((latest - tag) & kTagUpperBound);
}

}  // namespace

[[noreturn]] void abort_collective(Comm& comm, std::uint32_t tag, const std::string& why) {
    const std::string text = "rank " + std::to_string(comm.rank()) + " gave this software collective up: " + why;
    std::vector<std::uint8_t> notice(kAbortHeaderBytes + text.size());
    const std::uint32_t sequence = issued_sequence(comm, tag);
    std::memcpy(notice.data(), &kCollectiveAbort, kSequenceBytes);
    std::memcpy(notice.data() + kSequenceBytes, &sequence, kSequenceBytes);
    std::memcpy(notice.data() + kAbortHeaderBytes, text.data(), text.size());
    for (int peer = 0; peer < comm.peer_size(); ++peer) {
        const int global = comm.peer_global(peer);
        if (global != driver().rank()) driver().send(global, tag | kSynchronousBit, notice.data(), notice.size());
    }
    fail(MPI_ERR_OTHER, text + " (its other members were told)");
}

void check_collective_abort(Comm& comm, std::uint32_t tag) {
    auto& aborts = engine().collective_aborts;
    if (const auto it = aborts.find(tag);
        it != aborts.end() && (it->second.any_sequence || it->second.sequence == issued_sequence(comm, tag))) {
        const std::string text = std::move(it->second.text);
        aborts.erase(it);
        fail(MPI_ERR_OTHER, text);
    }
}

// A member's abort notice fails the collective at once, also one that was
// lost (pull() records it). A lost message of the member awaited fails the
// receive itself (the driver's LinkFaultError, or a lost message taken).
void watch_for_link_faults(Comm& comm, std::uint32_t tag) {
    check_collective_abort(comm, tag);
    // The communicator's creation failed on another member (it is revoked):
    // give the collective up as for a lost message (blocking and nonblocking
    // alike: an MPI error, the other members told).
    try {
        collectives().check_creation(comm.guest);
    } catch (const guest::LinkFaultError& error) {
        abort_collective(comm, tag, error.what());
    }
}

void send_internal(Comm& comm, int destination, std::uint32_t tag, const void* data, std::size_t bytes) {
    const int global = comm.peer_global(destination);
    if (global == driver().rank()) {
        const auto* begin = static_cast<const std::uint8_t*>(data);
        engine().self_internal.push_back({global, tag, std::vector<std::uint8_t>(begin, begin + bytes), nullptr});
        return;
    }
    if (bytes < kInternalPieceBytes) {
        driver().send(global, tag, data, bytes);
        return;
    }
    // Too long for one packet: full pieces, then a shorter one (maybe empty)
    // that tells the receiver the message ends there (kInternalPieceBytes).
    const auto* piece = static_cast<const std::uint8_t*>(data);
    std::size_t left = bytes;
    for (;;) {
        const std::size_t length = std::min(left, kInternalPieceBytes);
        driver().send(global, tag, piece, length);
        if (length < kInternalPieceBytes) return;
        piece += length;
        left -= length;
    }
}

std::size_t receive_internal(Comm& comm, int source, std::uint32_t tag, void* data, std::size_t capacity) {
    const int global = comm.peer_global(source);
    std::size_t bytes = 0;
    if (global == driver().rank()) {
        auto& queue = engine().self_internal;
        const auto it = std::find_if(queue.begin(), queue.end(), [&](const Incoming& m) { return m.tag == tag; });
        if (it == queue.end()) fail(MPI_ERR_INTERN, "internal receive from this rank itself before its send");
        bytes = it->data.size();
        if (bytes <= capacity && bytes > 0) std::memcpy(data, it->data.data(), bytes);
        queue.erase(it);
    } else {
        // While this blocking collective waits, the driver's progress hook
        // (install_progress_hook) keeps matching, acknowledging synchronous
        // sends and advancing nonblocking collectives: a peer may need any
        // of them to reach this call.
        try {
            // A message of kInternalPieceBytes or more comes in pieces, the
            // last one shorter (send_internal); one longer than `capacity`
            // is found at the piece that does not fit.
            auto* piece = static_cast<std::uint8_t*>(data);
            std::size_t got = 0;
            do {
                const std::size_t room = std::min(capacity - bytes, kInternalPieceBytes);
                got = driver().receive(global, tag, piece, room, [&] { watch_for_link_faults(comm, tag); }).bytes;
                bytes += got;
                if (got > room) break;
                piece += got;
            } while (got == kInternalPieceBytes);
        } catch (const guest::LinkFaultError& error) {
            // Packets this receive waits for were lost: the collective ends
            // here, and its other members are told (abort_collective).
            abort_collective(comm, tag, error.what());
        }
    }
    if (bytes > capacity)
        fail(MPI_ERR_TRUNCATE, "internal message of " + std::to_string(bytes) + " bytes from rank " +
                                   std::to_string(source) + " exceeds the expected " + std::to_string(capacity) +
                                   " (do all ranks pass matching counts?)");
    return bytes;
}

// ---- nonblocking collectives ----------------------------------------------------------

namespace {

/// Advances one collective request; marks it complete when done or failed.
void advance_collective(Request& request) {
    try {
        if (request.collective->advance()) request.complete = true;
    } catch (const Error& error) {
        request.error = error.error_class();
        request.error_message = std::string(request.function) + ": " + error.what();
        request.status.MPI_ERROR = request.error;
        request.complete = true;
    }
}

}  // namespace

MPI_Request collective_request(const char* function, MPI_Comm comm, std::shared_ptr<CollectiveProgress> collective) {
    auto request = std::make_shared<Request>();
    request->kind = Request::Kind::Collective;
    request->comm = communicators().shared(comm);
    request->collective = std::move(collective);
    request->function = function;
    request->active = true;
    set_empty(request->status);
    advance_collective(*request);
    if (!request->complete) engine().collectives.push_back(request);
    return engine().requests.add(request);
}

MPI_Request persistent_collective_request(const char* function, MPI_Comm comm,
                                          std::function<std::shared_ptr<CollectiveProgress>()> start,
                                          std::function<void()> release) {
    auto request = std::make_shared<Request>();
    request->kind = Request::Kind::Collective;
    request->persistent = true;
    request->comm = communicators().shared(comm);
    request->function = function;
    request->restart = std::move(start);
    request->release = std::move(release);
    set_empty(request->status);
    return engine().requests.add(request);
}

void progress_collectives() {
    Engine& e = engine();
    if (e.progressing || e.collectives.empty()) return;
    struct Guard {
        bool& flag;
        ~Guard() { flag = false; }
    } guard{e.progressing};
    e.progressing = true;
    // Advancing one collective never starts another, so one pass suffices.
    for (const auto& request : e.collectives) advance_collective(*request);
    e.collectives.erase(std::remove_if(e.collectives.begin(), e.collectives.end(),
                                       [](const std::shared_ptr<Request>& r) { return r->complete; }),
                        e.collectives.end());
}

void set_deferred_work(DeferredWork work) {
    deferred_work() = work;
}

void install_progress_hook() {
    // Runs only when the driver is about to sleep (any blocking wait in the
    // driver: a software or offloaded collective, a communicator call, the
    // MPI_Finalize barrier, a send waiting for staging). pull() reads queued
    // messages only, so a rank with nothing to serve pays no device access;
    // it sends acknowledgements and nonblocking-collective rounds. Not
    // nested in a pull already running (MPI 3.1 §3.7.4 progress rule).
    driver().set_progress_hook([] {
        if (engine().pulling) return;
        pull();
    });
}

std::vector<std::string> unfinished_operations() {
    std::vector<std::string> found;
    engine().requests.for_each([&](const Request& request) {
        if (!request.active || request.complete) return;
        const std::string on = request.comm ? " on " + (request.comm->name.empty() ? std::string("a communicator")
                                                                                   : request.comm->name)
                                            : std::string();
        auto rank = [](int peer) { return peer == MPI_ANY_SOURCE ? std::string("any rank") : "rank " + std::to_string(peer); };
        switch (request.kind) {
            case Request::Kind::Collective:
                found.push_back(std::string(request.function ? request.function : "a nonblocking collective") + on);
                break;
            case Request::Kind::Send:
                found.push_back("a send to " + rank(request.peer) + " (tag " + std::to_string(request.tag) + ")" + on);
                break;
            case Request::Kind::Receive:
                found.push_back("a receive from " + rank(request.peer) +
                                (request.tag == MPI_ANY_TAG ? std::string(" (any tag)")
                                                            : " (tag " + std::to_string(request.tag) + ")") +
                                on);
                break;
            case Request::Kind::Generalized: {
                const DeferredWork& work = deferred_work();
                if (work.owns && work.function && work.owns(request.extra_state))
                    found.push_back(work.function(request.extra_state));  // MPI_Comm_idup's own
                else
                    found.push_back("a generalized request (MPI_Grequest_start)");
                break;
            }
        }
    });
    return found;
}

void reset_point_to_point() {
    Engine& e = engine();
    e.collectives.clear();
    e.posted.clear();
    e.unexpected.clear();
    e.self_internal.clear();
    e.awaiting_ack.clear();
    e.cancelling.clear();
    e.sent.clear();
    e.arrived.clear();
    e.requests.clear_from(1);
    e.messages.clear_from(0);
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

// ---- blocking ---------------------------------------------------------------------

int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return entry("MPI_Send", comm, [&] {
        const Arguments args = check_p2p(buf, count, datatype, dest, tag, comm, false);
        run_blocking(make_request(Request::Kind::Send, args, buf, count, dest, tag), MPI_STATUS_IGNORE);
    });
}

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return entry("MPI_Ssend", comm, [&] {
        const Arguments args = check_p2p(buf, count, datatype, dest, tag, comm, false, "buf", "datatype", true);
        auto request = make_request(Request::Kind::Send, args, buf, count, dest, tag);
        request->synchronous = true;
        run_blocking(request, MPI_STATUS_IGNORE);
    });
}
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
    return entry("MPI_Recv", comm, [&] {
        const Arguments args = check_p2p(buf, count, datatype, source, tag, comm, true);
        run_blocking(make_request(Request::Kind::Receive, args, buf, count, source, tag), status);
    });
}

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
    return entry("MPI_Sendrecv", comm, [&] {
        const Arguments send_args =
            check_p2p(sendbuf, sendcount, sendtype, dest, sendtag, comm, false, "sendbuf", "sendtype");
        const Arguments recv_args =
            check_p2p(recvbuf, recvcount, recvtype, source, recvtag, comm, true, "recvbuf", "recvtype");
        check_disjoint(sendbuf, sendcount, *send_args.type, dest, recvbuf, recvcount, *recv_args.type, source,
                       "MPI_Sendrecv");
        run_blocking(make_request(Request::Kind::Send, send_args, sendbuf, sendcount, dest, sendtag),
                     MPI_STATUS_IGNORE);
        run_blocking(make_request(Request::Kind::Receive, recv_args, recvbuf, recvcount, source, recvtag), status);
    });
}

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status* status) {
    return entry("MPI_Sendrecv_replace", comm, [&] {
        const Arguments send_args = check_p2p(buf, count, datatype, dest, sendtag, comm, false);
        const Arguments recv_args = check_p2p(buf, count, datatype, source, recvtag, comm, true);
        // The outgoing data is copied out (packed) before the receive lands.
        const Type& type = *send_args.type;
        std::vector<std::uint8_t> packed(static_cast<std::size_t>(count) * type.size);
        pack(buf, static_cast<std::size_t>(count), type, packed.data());
        auto send =
            make_request(Request::Kind::Send, send_args, nullptr, static_cast<int>(packed.size()), dest, sendtag);
        send->type = datatypes().shared(MPI_BYTE);
        send->send_buffer = packed.data();
        run_blocking(send, MPI_STATUS_IGNORE);
        run_blocking(make_request(Request::Kind::Receive, recv_args, buf, count, source, recvtag), status);
    });
}

// ---- nonblocking and persistent ----------------------------------------------------------

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return new_request("MPI_Isend", Request::Kind::Send, false, false, buf, count, datatype, dest, tag, comm, request);
}
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return new_request("MPI_Issend", Request::Kind::Send, false, true, buf, count, datatype, dest, tag, comm, request);
}
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return new_request("MPI_Ibsend", Request::Kind::Send, false, false, buf, count, datatype, dest, tag, comm, request);
}
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return new_request("MPI_Irsend", Request::Kind::Send, false, false, buf, count, datatype, dest, tag, comm, request);
}
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
    return new_request("MPI_Irecv", Request::Kind::Receive, false, false, buf, count, datatype, source, tag, comm,
                       request);
}
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return new_request("MPI_Send_init", Request::Kind::Send, true, false, buf, count, datatype, dest, tag, comm,
                       request);
}
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return new_request("MPI_Ssend_init", Request::Kind::Send, true, true, buf, count, datatype, dest, tag, comm,
                       request);
}
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return new_request("MPI_Bsend_init", Request::Kind::Send, true, false, buf, count, datatype, dest, tag, comm,
                       request);
}
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return new_request("MPI_Rsend_init", Request::Kind::Send, true, false, buf, count, datatype, dest, tag, comm,
                       request);
}
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return new_request("MPI_Recv_init", Request::Kind::Receive, true, false, buf, count, datatype, source, tag, comm,
                       request);
}

int PMPI_Start(MPI_Request* request) {
    return entry("MPI_Start", comm_of(request), [&] {
        if (request == nullptr) fail(MPI_ERR_REQUEST, "request is NULL");
        Request* found = check_request(*request, "request");
        if (found == nullptr || !found->persistent) fail(MPI_ERR_REQUEST, "request is not a persistent request");
        if (found->active) fail(MPI_ERR_REQUEST, "persistent request is already active");
        start(*found, engine().requests.shared(*request));
    });
}

int PMPI_Startall(int count, MPI_Request requests[]) {
    for (int i = 0; i < count; ++i)
        if (const int status = PMPI_Start(&requests[i]); status != MPI_SUCCESS) return status;
    return entry("MPI_Startall", MPI_COMM_WORLD, [&] { check_count(count, "count"); });
}

// ---- completion ----------------------------------------------------------------------------

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
    return entry("MPI_Wait", comm_of(request), [&] {
        if (request == nullptr) fail(MPI_ERR_REQUEST, "request is NULL");
        Request* found = check_request(*request, "request");
        run_deferred(1, request);
        if (pending(found)) block_until([&] { return found->complete; });
        std::string message;
        const int error = retire(*request, status, false, &message);
        if (error != MPI_SUCCESS) fail(error, message);
    });
}

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    return entry("MPI_Test", comm_of(request), [&] {
        if (request == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "request or flag is NULL");
        Request* found = check_request(*request, "request");
        run_deferred(1, request);
        *flag = !pending(found) || test_once([&] { return found->complete; }) ? 1 : 0;
        if (!*flag) return;
        std::string message;
        const int error = retire(*request, status, false, &message);
        if (error != MPI_SUCCESS) fail(error, message);
    });
}

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
    return entry("MPI_Request_get_status", comm_of(&request), [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        Request* found = check_request(request, "request");
        run_deferred(1, &request);
        *flag = !pending(found) || test_once([&] { return found->complete; }) ? 1 : 0;
        if (!*flag) return;
        if (pending(found))
            copy_status(found->status, status);
        else if (status != nullptr && status != MPI_STATUS_IGNORE)
            set_empty(*status);
    });
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    return entry("MPI_Waitall", MPI_COMM_WORLD, [&] {
        check_request_array(count, requests, "array_of_requests");
        block_until([&] { return all_complete(count, requests); });
        complete_all(count, requests, statuses);
    });
}

int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    return entry("MPI_Testall", MPI_COMM_WORLD, [&] {
        check_request_array(count, requests, "array_of_requests");
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        *flag = test_once([&] { return all_complete(count, requests); });
        if (*flag) complete_all(count, requests, statuses);
    });
}

int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
    return entry("MPI_Waitany", MPI_COMM_WORLD, [&] {
        check_request_array(count, requests, "array_of_requests");
        if (index == nullptr) fail(MPI_ERR_ARG, "index is NULL");
        int found = -1;
        block_until([&] { return (found = first_complete(count, requests)) != -1; });
        *index = found;
        if (found == MPI_UNDEFINED) {
            if (status != nullptr && status != MPI_STATUS_IGNORE) set_empty(*status);
            return;
        }
        std::string message;
        const int error = retire(requests[found], status, false, &message);
        if (error != MPI_SUCCESS) fail(error, message);
    });
}

int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    return entry("MPI_Testany", MPI_COMM_WORLD, [&] {
        check_request_array(count, requests, "array_of_requests");
        if (index == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "index or flag is NULL");
        int found = -1;
        test_once([&] { return (found = first_complete(count, requests)) != -1; });
        *flag = found != -1 ? 1 : 0;
        *index = found == -1 ? MPI_UNDEFINED : found;
        if (found == -1) return;
        if (found == MPI_UNDEFINED) {
            if (status != nullptr && status != MPI_STATUS_IGNORE) set_empty(*status);
            return;
        }
        std::string message;
        const int error = retire(requests[found], status, false, &message);
        if (error != MPI_SUCCESS) fail(error, message);
    });
}

/// Waitsome / Testsome: retires every completed request.
static void some(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[],
                 bool blocking) {
    check_request_array(incount, requests, "array_of_requests");
    if (outcount == nullptr || (incount > 0 && indices == nullptr)) fail(MPI_ERR_ARG, "outcount or indices is NULL");
    int first = -1;
    const auto done = [&] { return (first = first_complete(incount, requests)) != -1; };
    if (blocking)
        block_until(done);
    else
        test_once(done);
    if (first == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
        return;
    }
    const bool ignore = statuses == MPI_STATUSES_IGNORE || statuses == nullptr;
    int n = 0, errors = 0;
    std::string message;
    for (int i = 0; i < incount && first != -1; ++i) {
        const Request* request = find_request(requests[i]);
        if (!pending(request) || !request->complete) continue;
        std::string text;
        if (retire(requests[i], ignore ? MPI_STATUS_IGNORE : &statuses[n], true, &text) != MPI_SUCCESS && errors++ == 0)
            message = "request " + std::to_string(i) + ": " + text;
        indices[n++] = i;
    }
    *outcount = n;
    if (errors > 0) fail(MPI_ERR_IN_STATUS, std::to_string(errors) + " request(s) failed; " + message);
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    return entry("MPI_Waitsome", MPI_COMM_WORLD, [&] { some(incount, requests, outcount, indices, statuses, true); });
}

int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    return entry("MPI_Testsome", MPI_COMM_WORLD, [&] { some(incount, requests, outcount, indices, statuses, false); });
}

int PMPI_Request_free(MPI_Request* request) {
    return entry("MPI_Request_free", comm_of(request), [&] {
        if (request == nullptr) fail(MPI_ERR_REQUEST, "request is NULL");
        Request* found = check_request(*request, "request");
        if (found == nullptr) fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
        if (found->kind == Request::Kind::Collective && found->persistent && found->active)
            fail(MPI_ERR_REQUEST, std::string("request is an active persistent collective's (") + found->function +
                                      "), which cannot be freed (MPI 4.0 §6.12); complete it with MPI_Wait or "
                                      "MPI_Test first");
        if (found->kind == Request::Kind::Collective && !found->persistent)
            fail(MPI_ERR_REQUEST,
                 std::string("request is a nonblocking collective's (") + found->function +
                     "), which cannot be freed (MPI 3.1 §5.12); complete it with MPI_Wait or MPI_Test");
        if (found->kind == Request::Kind::Generalized && !found->complete && deferred_work().owns != nullptr &&
            deferred_work().owns(found->extra_state))
            fail(MPI_ERR_REQUEST,
                 "request is an incomplete MPI_Comm_idup's, a nonblocking collective operation's, which cannot be "
                 "freed (MPI 3.1 §5.12); complete it with MPI_Wait or MPI_Test");
        if (found->kind == Request::Kind::Generalized) {
            // free_fn runs once the request is complete (MPI 3.1 §12.2).
            if (!found->complete) {
                found->freed = true;  // MPI_Grequest_complete frees it
                *request = MPI_REQUEST_NULL;
                return;
            }
            const int rc = found->free(found->extra_state);
            engine().requests.remove(*request);
            *request = MPI_REQUEST_NULL;
            if (rc != MPI_SUCCESS) fail(rc, "the generalized request's free_fn returned " + std::to_string(rc));
            return;
        }
        if (found->release) {
            const std::function<void()> release = std::move(found->release);
            found->release = nullptr;
            release();
        }
        found->detached = true;  // a posted receive still completes into its buffer
        engine().requests.remove(*request);
        *request = MPI_REQUEST_NULL;
    });
}

int PMPI_Cancel(MPI_Request* request) {
    return entry("MPI_Cancel", comm_of(request), [&] {
        if (request == nullptr) fail(MPI_ERR_REQUEST, "request is NULL");
        Request* found = check_request(*request, "request");
        if (found == nullptr) fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
        if (found->kind == Request::Kind::Collective)
            fail(MPI_ERR_REQUEST, std::string("request is a nonblocking collective's (") + found->function +
                                      "), which cannot be cancelled (MPI 3.1 §5.12)");
        if (found->kind == Request::Kind::Generalized) {
            const int rc = found->cancel(found->extra_state, found->complete ? 1 : 0);
            if (rc != MPI_SUCCESS) fail(rc, "the generalized request's cancel_fn returned " + std::to_string(rc));
            return;
        }
        if (found->active && found->kind == Request::Kind::Send && !found->synchronous && found->complete &&
            !found->cancel_requested && found->peer != MPI_PROC_NULL) {
            // A standard send has completed locally (eager); its message may
            // still be unmatched at the receiver: ask it (see cancel_answered).
            found->cancel_requested = true;
            const int destination = found->comm->peer_global(found->peer);
            if (destination == driver().rank()) {
                if (drop_unmatched_message(destination, found->sent_tag, found->ordinal)) {
                    set_empty(found->status);
                    found->status.isvp_cancelled = 1;
                }
                return;
            }
            found->complete = false;
            engine().cancelling[{destination, found->sent_tag, found->ordinal}] = engine().requests.shared(*request);
            send_ordinal_control(destination, found->comm->guest.id, kCancelRequest, found->sent_tag, found->ordinal);
            return;
        }
        if (!found->active || found->complete) return;  // a completed operation cannot be cancelled
        if (found->kind == Request::Kind::Send) {
            // Only a synchronous send is still pending: no receive has matched
            // it yet. Ask the receiver to drop it (see kCancelRequest).
            Engine& e = engine();
            const auto it = std::find_if(e.awaiting_ack.begin(), e.awaiting_ack.end(),
                                         [&](const auto& entry) { return entry.second.get() == found; });
            if (it == e.awaiting_ack.end() || found->cancel_requested) return;
            found->cancel_requested = true;
            const std::uint32_t sequence = it->first;
            const int destination = found->comm->peer_global(found->peer);
            if (destination == driver().rank()) {
                if (drop_unmatched(destination, sequence)) complete_cancelled(sequence);
                return;
            }
            send_control(destination, found->comm->guest.id, sequence, kCancelRequest);
            return;
        }
        auto& posted = engine().posted;
        posted.remove_if([&](const std::shared_ptr<Request>& r) { return r.get() == found; });
        set_empty(found->status);
        found->status.isvp_cancelled = 1;
        found->complete = true;
    });
}

// ---- probes ---------------------------------------------------------------------------------

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    return entry("MPI_Iprobe", comm, [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        bool null_source = false;
        // Probe first: it may take new messages into the queue, which moves its end().
        const auto found = probe(comm, source, tag, false, status, &null_source);
        *flag = found != engine().unexpected.end() || null_source;
    });
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    return entry("MPI_Probe", comm, [&] {
        bool null_source = false;
        probe(comm, source, tag, true, status, &null_source);
    });
}

/// MPI_Improbe / MPI_Mprobe: takes the message out for MPI_Mrecv.
static void matched_probe(int source, int tag, MPI_Comm comm, bool blocking, int* flag, MPI_Message* message,
                          MPI_Status* status) {
    if (message == nullptr) fail(MPI_ERR_ARG, "message is NULL");
    bool null_source = false;
    const auto it = probe(comm, source, tag, blocking, status, &null_source);
    *flag = it != engine().unexpected.end() || null_source;
    if (null_source) *message = MPI_MESSAGE_NO_PROC;
    if (it == engine().unexpected.end()) return;
    it->comm = communicators().shared(comm);
    *message = engine().messages.add(std::make_shared<Incoming>(std::move(*it)));
    engine().unexpected.erase(it);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
    return entry("MPI_Improbe", comm, [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        matched_probe(source, tag, comm, false, flag, message, status);
    });
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    return entry("MPI_Mprobe", comm, [&] {
        int flag = 0;
        matched_probe(source, tag, comm, true, &flag, message, status);
    });
}

/// MPI_Mrecv's work; fills `request` (completed).
static void matched_receive(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, Request& request) {
    check_count(count, "count");
    const Type& type = check_datatype(datatype);
    check_buffer(buf, count, type, "buf");
    if (message == nullptr) fail(MPI_ERR_ARG, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        set_empty(request.status, MPI_PROC_NULL);
        request.active = true;
        request.complete = true;
        *message = MPI_MESSAGE_NULL;
        return;
    }
    const std::shared_ptr<Incoming> matched = engine().messages.shared(*message);
    if (!matched) fail(MPI_ERR_REQUEST, "message is not a message matched by MPI_Mprobe/MPI_Improbe");
    receive_matched(*matched, buf, count, datatype, request);
    acknowledge(*matched);  // a matched probe does not release a synchronous sender; this receive does
    engine().messages.remove(*message);
    *message = MPI_MESSAGE_NULL;
}

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
    return entry("MPI_Mrecv", MPI_COMM_WORLD, [&] {
        Request request;
        matched_receive(buf, count, datatype, message, request);
        copy_status(request.status, status);
        if (request.error != MPI_SUCCESS) fail(request.error, request.error_message);
    });
}

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
    return entry("MPI_Imrecv", MPI_COMM_WORLD, [&] {
        if (request == nullptr) fail(MPI_ERR_ARG, "request is NULL");
        auto made = std::make_shared<Request>();
        made->kind = Request::Kind::Receive;
        matched_receive(buf, count, datatype, message, *made);
        *request = engine().requests.add(made);
    });
}

// ---- generalized requests (MPI 3.1 §12.2) ---------------------------------------------------

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
    return entry("MPI_Grequest_start", MPI_COMM_WORLD, [&] {
        if (request == nullptr) fail(MPI_ERR_ARG, "request is NULL");
        if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr)
            fail(MPI_ERR_ARG, "query_fn, free_fn and cancel_fn must all be functions");
        auto made = std::make_shared<Request>();
        made->kind = Request::Kind::Generalized;
        made->query = query_fn;
        made->free = free_fn;
        made->cancel = cancel_fn;
        made->extra_state = extra_state;
        made->active = true;
        set_empty(made->status);
        *request = engine().requests.add(made);
    });
}

int PMPI_Grequest_complete(MPI_Request request) {
    return entry("MPI_Grequest_complete", MPI_COMM_WORLD, [&] {
        Request* found = check_request(request, "request");
        if (found == nullptr || found->kind != Request::Kind::Generalized)
            fail(MPI_ERR_REQUEST, "request is not a generalized request (MPI_Grequest_start)");
        if (found->complete) fail(MPI_ERR_REQUEST, "the generalized request is already complete");
        found->complete = true;
        if (found->freed) {  // MPI_Request_free came first: nobody will wait for it
            const int rc = found->free(found->extra_state);
            engine().requests.remove(request);
            if (rc != MPI_SUCCESS) fail(rc, "the generalized request's free_fn returned " + std::to_string(rc));
        }
    });
}

int PMPI_Buffer_attach(void* buffer, int size) {
    return entry("MPI_Buffer_attach", MPI_COMM_WORLD, [&] {
        if (size < 0) fail(MPI_ERR_ARG, "size " + std::to_string(size) + " is negative");
        engine().attached = buffer;
        engine().attached_bytes = size;
    });
}

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
    return entry("MPI_Buffer_detach", MPI_COMM_WORLD, [&] {
        if (buffer_addr == nullptr || size == nullptr) fail(MPI_ERR_ARG, "buffer_addr or size is NULL");
        std::memcpy(buffer_addr, &engine().attached, sizeof(void*));
        *size = engine().attached_bytes;
        engine().attached = nullptr;
        engine().attached_bytes = 0;
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Send)
ISVP_MPI_ALIAS(Ssend)
ISVP_MPI_ALIAS(Bsend)
ISVP_MPI_ALIAS(Rsend)
ISVP_MPI_ALIAS(Recv)
ISVP_MPI_ALIAS(Sendrecv)
ISVP_MPI_ALIAS(Sendrecv_replace)
ISVP_MPI_ALIAS(Isend)
ISVP_MPI_ALIAS(Issend)
ISVP_MPI_ALIAS(Ibsend)
ISVP_MPI_ALIAS(Irsend)
ISVP_MPI_ALIAS(Irecv)
ISVP_MPI_ALIAS(Send_init)
ISVP_MPI_ALIAS(Ssend_init)
ISVP_MPI_ALIAS(Bsend_init)
ISVP_MPI_ALIAS(Rsend_init)
ISVP_MPI_ALIAS(Recv_init)
ISVP_MPI_ALIAS(Start)
ISVP_MPI_ALIAS(Startall)
ISVP_MPI_ALIAS(Wait)
ISVP_MPI_ALIAS(Test)
ISVP_MPI_ALIAS(Request_get_status)
ISVP_MPI_ALIAS(Waitall)
ISVP_MPI_ALIAS(Testall)
ISVP_MPI_ALIAS(Waitany)
ISVP_MPI_ALIAS(Testany)
ISVP_MPI_ALIAS(Waitsome)
ISVP_MPI_ALIAS(Testsome)
ISVP_MPI_ALIAS(Request_free)
ISVP_MPI_ALIAS(Cancel)
ISVP_MPI_ALIAS(Iprobe)
ISVP_MPI_ALIAS(Probe)
ISVP_MPI_ALIAS(Improbe)
ISVP_MPI_ALIAS(Mprobe)
ISVP_MPI_ALIAS(Mrecv)
ISVP_MPI_ALIAS(Imrecv)
ISVP_MPI_ALIAS(Grequest_start)
ISVP_MPI_ALIAS(Grequest_complete)
ISVP_MPI_ALIAS(Buffer_attach)
ISVP_MPI_ALIAS(Buffer_detach)
