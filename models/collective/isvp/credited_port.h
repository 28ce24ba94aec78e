// CreditedOutPort: one credited packet output of an engine (toward a
// router's inject port, or toward the QDMA): two FIFOs (small urgent control
// packets first), the receiver's credits per VC (a CreditLedger: those in
// flight arrive with their delay; each packet takes them on the VC its
// sender's NetworkFraming chose), and the serialiser (a packet of P phits occupies the
// port ceil(P / phits_per_cycle) cycles; its tail follows the head by one
// cycle less). Packet-level, approximately timed.
//
// Not an sc_module: it asks its owner's EarliestWake for the times drain()
// is due; the owner's method (sensitive to that wake-up) calls drain() and
// then end_of_run(), and forwards the credit socket's b_transport to
// receive_credit(); so any engine (a torus node's, a switch's with R ports)
// keeps one per output and its processes stay its own. It asks for no
// wake-up it knows drain() would spend asking for a later one: a credit
// return wakes the owner only while a packet waits for credits, a packet
// queued behind a busy serialiser not before it is free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include <systemc>
#include <tlm>

#include "isvp/earliest_wake.h"
#include "isvp/packet_network_core.h"
#include "isvp/ring_queue.h"
#include "isvp/sim_now.h"

namespace isvp {

class CreditedOutPort {
  public:
    /// A packet waiting to leave.
    struct Outgoing {
        /// Acquired by the owner; released when it left. Null: made by the
        /// owner's Make hook when it is about to leave (set_make).
        tlm::tlm_generic_payload* packet = nullptr;
        std::uint8_t credit_to = 0;  ///< owner's tag: upstream input to credit when it leaves (0: none, generated here)
        std::int8_t ends_call = -1;  ///< owner's tag (traced: the last result packet of a call on this context)
        std::uint32_t phits = 0;     ///< its length (known when queued; drain need not touch it)
        std::uint8_t vc = NetworkFraming::kInjectVc;  ///< the VC it goes on (NetworkFraming::vc_for)
        sc_core::sc_time ready{};                     ///< set by enqueue(): when its head is here and it may leave
    };
    /// Called when a packet has left, after the receiver took it and before
    /// it is released: `tail_after` is when its tail follows (credit
    /// returns for a passed-through packet go upstream then).
    using Left = std::function<void(const Outgoing&, const sc_core::sc_time& tail_after)>;
    /// Makes (acquired) the next packet queued without one, in queue order:
    /// a packet that holds nothing until it leaves (timing-only results).
    using Make = std::function<tlm::tlm_generic_payload*()>;

    /// `owner`: for messages; `socket`: the output; `cycle`: one clock
    /// cycle; `phits_per_cycle`: the serialisation width; `wake`: the
    /// owner's wake-up, whose method calls drain().
    /// The socket type: any TLM initiator socket (also the optional kind).
    using Socket = sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>;
    CreditedOutPort(std::string owner, Socket& socket, const sc_core::sc_time& cycle, unsigned phits_per_cycle,
                    EarliestWake& wake, Left left);

    /// Queues `packet` (urgent: ahead of the ordinary queue), to leave no
    /// earlier than `delay` from now, and asks for the owner's wake-up then
    /// (or when the serialiser is free, if later; queued for now while the
    /// owner runs, its drain() in that run considers it).
    void enqueue(const Outgoing& packet, bool urgent, const sc_core::sc_time& delay) {
        RingQueue<Outgoing>& into = urgent ? urgent_ : queue_;
        const sc_core::sc_time now = sim_now();
        into.push_back(packet);
        into.back().ready = now + delay;
        // Queued for now while the owner runs: its drain() is still to come
        // (end_of_run() catches one queued after it).
        if (delay == sc_core::SC_ZERO_TIME && wake_->serving()) {
            drain_due_ = true;
            return;
        }
        wake_after(now, delay);
    }
    /// The owner's run ends (after its drain() calls): a packet queued for
    /// now after this port's drain() wakes the owner in the next delta cycle
    /// (or when the serialiser is free, if later).
    void end_of_run() {
        if (!drain_due_) return;
        drain_due_ = false;
        wake_after(sim_now(), sc_core::SC_ZERO_TIME);
    }
    /// Sets the hook that makes packets queued without one.
    void set_make(Make make) { make_ = std::move(make); }
    /// The last packet queued (not urgent), to tag it.
    Outgoing& last_queued() { return queue_.back(); }
    /// The credit socket's b_transport: a CreditReturn, counted for its VC
    /// (a transaction without one is refused with a warning).
    void receive_credit(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay);
    /// Sends what the credits and the serialiser allow now; asks the
    /// owner's wake-up for when it can send more.
    void drain();

  private:
    /// The owner's wake-up `delay` after `now`, but not before the
    /// serialiser is free (drain() would only ask again then).
    void wake_after(const sc_core::sc_time& now, const sc_core::sc_time& delay) {
        wake_->at(free_at_ > now + delay ? free_at_ - now : delay);
    }

    std::string owner_;            ///< the owning module's name (messages)
    Socket* socket_;               ///< where packets go
    sc_core::sc_time cycle_;       ///< one clock cycle
    unsigned phits_per_cycle_;     ///< serialisation width
    Left left_;                    ///< the owner's per-packet hook
    Make make_;                    ///< makes packets queued without one
    RingQueue<Outgoing> urgent_;   ///< small control packets (agreement, credits): go first
    RingQueue<Outgoing> queue_;    ///< waiting packets, in order (rings keep their storage: queuing does not allocate)
    CreditLedger credits_;         ///< the receiver's credits per VC, usable now and in flight (ps)
    sc_core::sc_time free_at_;     ///< serialiser free
    EarliestWake* wake_;           ///< the owner's: re-run drain()
    bool wants_credits_ = false;   ///< drain() last stopped for credits: their returns wake the owner
    bool drain_due_ = false;       ///< queued for now while the owner runs, not drained since (end_of_run())
};

}  // namespace isvp
