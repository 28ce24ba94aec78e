#include "isvp/credited_port.h"

#include "isvp/packet_channel.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/collective";
}

CreditedOutPort::CreditedOutPort(std::string owner, Socket& socket, const sc_core::sc_time& cycle,
                                 unsigned phits_per_cycle, EarliestWake& wake, Left left)
    : owner_(std::move(owner)),
      socket_(&socket),
      cycle_(cycle),
      phits_per_cycle_(phits_per_cycle),
      left_(std::move(left)),
      wake_(&wake) {}

void CreditedOutPort::receive_credit(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay) {
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_WARNING(kReportType, (owner_ + ": credit transaction without CreditReturn").c_str());
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    // Only a packet stopped for credits waits for these; any other drain()
    // is due anyway (a head, the serialiser, a new packet) and settles them.
    if (delay == sc_core::SC_ZERO_TIME) {
        credits_.grant(credit->vc, credit->phits);
        if (wants_credits_) wake_->at(sc_core::SC_ZERO_TIME);
    } else {
        credits_.arrive(credit->vc, credit->phits, (sim_now() + delay).value());
        if (wants_credits_) wake_->at(delay);
    }
}

void CreditedOutPort::drain() {
    drain_due_ = false;
    wants_credits_ = false;
    // Nothing queued: the returns in flight are counted when a packet needs
    // them (settle counts all due by then, whenever it runs).
    if (urgent_.empty() && queue_.empty()) return;
    const sc_core::sc_time now = sim_now();
    credits_.settle(now.value());
    while (!urgent_.empty() || !queue_.empty()) {
        if (now < free_at_) {
            wake_->at(free_at_ - now);
            return;
        }
        RingQueue<Outgoing>& from = urgent_.empty() ? queue_ : urgent_;
        // A copy: the receiver and the left hook may queue more packets on
        // this port, and a growing ring moves its elements.
        Outgoing o = from.front();
        // Not before its head is here: drain() may run earlier for another
        // packet or a credit, and which of two processes runs first at one
        // time must not decide when a packet leaves.
        if (now < o.ready) {
            wake_->at(o.ready - now);
            return;
        }
        const std::uint32_t phits = o.phits;
        if (!credits_.space_to_send(o.vc, phits)) {
            wants_credits_ = true;
            if (const std::optional<std::uint64_t> due = credits_.next_due()) wake_->at(sim_time(*due) - now);
            return;  // a zero-delay credit return notifies wake
        }
        const std::uint32_t cycles = (phits + phits_per_cycle_ - 1) / phits_per_cycle_;
        if (o.packet == nullptr) o.packet = make_();
        PacketInfo& info = packet_info(*o.packet);
        info.vc = o.vc;
        info.tail_after = cycle_ * static_cast<double>(cycles - 1);
        if (o.credit_to == 0) info.injected = now;
        credits_.take(o.vc, phits);
        free_at_ = now + cycle_ * static_cast<double>(cycles);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        (*socket_)->b_transport(*o.packet, delay);
        if (!o.packet->is_response_ok())
            SC_REPORT_ERROR(
                kReportType,
                (owner_ + ": a receiver refused a packet it had granted credits for (packet_channel.h)").c_str());
        left_(o, info.tail_after);
        o.packet->release();
        from.pop_front();
        // The next packet leaves a serialisation time from now; its payload
        // object has usually left the cache while it waited in the queue.
        if (const RingQueue<Outgoing>& next = urgent_.empty() ? queue_ : urgent_;
            !next.empty() && next.front().packet != nullptr)
            for (unsigned line = 0; line < sizeof(tlm::tlm_generic_payload) + sizeof(PacketInfo); line += 64)
                __builtin_prefetch(reinterpret_cast<const char*>(next.front().packet) + line);
    }
}

}  // namespace isvp
