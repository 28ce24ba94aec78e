#include "isvp/reliable_endpoint.h"
#include "isvp/sim_now.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/reliable";
/// Retransmission timeouts double up to this many times.
constexpr unsigned kMaxBackoffDoublings = 10;
}  // namespace

ReliableEndpoint::ReliableEndpoint(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes,
                                   const ReliableConfig& config, sc_core::sc_time cycle, unsigned phits_per_cycle)
    : sc_core::sc_module(name),
      from_node("from_node"),
      from_node_credit("from_node_credit"),
      to_network("to_network"),
      to_network_credit("to_network_credit"),
      from_network("from_network"),
      from_network_credit("from_network_credit"),
      to_node("to_node"),
      to_node_credit("to_node_credit"),
      node_(node),
      framing_(node, 16),
      config_(config),
      cycle_(cycle),
      phits_per_cycle_(std::max(1u, phits_per_cycle)),
      timeout_(config.timeout_ns, sc_core::SC_NS),
      ack_delay_(config.ack_delay_ns, sc_core::SC_NS),
      peers_(nodes) {
    config_.validate();
    from_node.register_b_transport(this, &ReliableEndpoint::on_from_node);
    to_network_credit.register_b_transport(this, &ReliableEndpoint::on_network_credit);
    from_network.register_b_transport(this, &ReliableEndpoint::on_from_network);
    to_node_credit.register_b_transport(this, &ReliableEndpoint::on_node_credit);
    SC_HAS_PROCESS(ReliableEndpoint);
    SC_METHOD(grant_initial_credits);
    SC_METHOD(run);
    sensitive << wake_ << timer_;
    dont_initialize();
}

void ReliableEndpoint::grant_initial_credits() {
    node_credit_.send(from_node_credit, 0, config_.tx_buffer_phits, sc_core::SC_ZERO_TIME);
}

sc_core::sc_time ReliableEndpoint::timeout_of(unsigned retries) const {
    return timeout_ * static_cast<double>(1u << std::min(retries, kMaxBackoffDoublings));
}

// ---------------------------------------------------------------------------
// Sender

void ReliableEndpoint::on_from_node(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    std::uint16_t destination = 0;
    bool fresh = false;
    if (length >= NetworkHeader::kBytes)
        if (const auto header = NetworkHeader::read(payload.get_data_ptr());
            header && header->destination < peers_.size()) {
            destination = header->destination;
            fresh = true;
        }
    // A packet without a valid destination goes unsequenced: the router drops and counts it.
    payload.acquire();
    fresh_.push_back(Outgoing{&payload, phits_of(length), destination, fresh, sim_now() + delay, next_delta_count()});
    wake_.notify(delay);
}

void ReliableEndpoint::on_network_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    if (credit == nullptr || credit->vc != 0) return;  // only VC 0 is injected on
    if (delay == sc_core::SC_ZERO_TIME) {
        inbox_.push_back(Feedback{Feedback::Kind::Credit, 0, credit->phits, {}, next_delta_count()});
        wake_.notify(sc_core::SC_ZERO_TIME);
    } else {
        arriving_.emplace(sim_now() + delay, credit->phits);
        wake_.notify(delay);
    }
}

// One process, and it acts only on what reached it in earlier delta cycles:
// the node's packets (fresh_), and what the router's packets and credits
// said (inbox_). Which packet leaves next, the ack it carries and when the
// timers fire then do not depend on which of the processes due at one time
// (the router's, the engine's, this one's timed wake-up) SystemC runs first.
// With bit errors, that order would otherwise decide which packets meet the
// links' error draws (docs/PARTITIONS.md, "Determinism").
void ReliableEndpoint::run() {
    const sc_core::sc_time now = sim_now();
    const std::uint64_t delta = sc_core::sc_delta_count();
    while (!inbox_.empty() && inbox_.front().visible_from <= delta) {
        const Feedback feedback = inbox_.front();
        inbox_.pop_front();
        apply(feedback);
    }
    if (timer_armed_ && timer_at_ <= now) on_timer(now);
    drain(now, delta);
    // What is left in inbox_ came in this delta cycle: whoever put it there
    // notified wake_ for the next one.
}

void ReliableEndpoint::apply(const Feedback& feedback) {
    Peer& peer = peers_[feedback.peer];
    switch (feedback.kind) {
        case Feedback::Kind::Credit:
            credits_ += feedback.value;
            break;
        case Feedback::Kind::Ack:
            acknowledged(feedback.peer, feedback.value);
            break;
        case Feedback::Kind::Nak:
            acknowledged(feedback.peer, feedback.value);
            // A nak that arrived when a timeout had just sent everything again
            // asks for what is already on its way: not a second round.
            if (!peer.unacked.empty() && peer.unacked.front().sequence == feedback.value &&
                peer.went_back_at != feedback.at) {
                if (peer.retries >= config_.max_retransmissions)
                    give_up_oldest(feedback.peer);
                else
                    go_back(feedback.peer);
            }
            break;
        case Feedback::Kind::AckOwed:
            peer.ack_value = feedback.value;
            if (!peer.ack_due || feedback.at < peer.ack_at) {
                peer.ack_due = true;
                peer.ack_at = feedback.at;
                arm_timer(peer.ack_at);
            }
            break;
        case Feedback::Kind::NakOwed:
            queue_control(feedback.peer, PacketInfo::Reliable::Nak, feedback.value);
            break;
    }
}

void ReliableEndpoint::drain(sc_core::sc_time now, std::uint64_t delta) {
    while (!arriving_.empty() && arriving_.top().first <= now) {
        credits_ += arriving_.top().second;
        arriving_.pop();
    }
    for (;;) {
        if (now < free_at_) {
            wake_.notify(free_at_ - now);
            return;
        }
        std::deque<Outgoing>* from = !control_.empty() ? &control_ : !resend_.empty() ? &resend_ : &fresh_;
        if (from->empty()) return;
        if (from == &fresh_) {
            // Not before it was handed over in an earlier delta cycle, nor
            // before its head is here.
            if (fresh_.front().visible_from > delta) {
                wake_.notify(sc_core::SC_ZERO_TIME);
                return;
            }
            if (now < fresh_.front().ready) {
                wake_.notify(fresh_.front().ready - now);
                return;
            }
        }
        Outgoing o = from->front();
        const auto length = static_cast<std::uint32_t>(o.packet->get_data_length());
        if (o.fresh && held_bytes_ > 0 && held_bytes_ + length > config_.retransmit_buffer_bytes)
            return;  // an ack frees room and wakes drain()
        if (credits_ < o.phits) {
            if (!arriving_.empty()) wake_.notify(arriving_.top().first - now);
            return;  // a zero-delay credit return notifies wake_
        }
        from->pop_front();
        PacketInfo& info = packet_info(*o.packet);
        if (o.fresh) {
            Peer& peer = peers_[o.destination];
            Held held;
            held.sequence = peer.next_sequence++;
            held.bytes.assign(o.packet->get_data_ptr(), o.packet->get_data_ptr() + length);
            held.trace_id = info.trace_id;
            held.injected = info.injected;
            if (peer.unacked.empty()) {
                peer.retries = 0;
                peer.deadline = now + timeout_;
                arm_timer(peer.deadline);
            }
            peer.unacked.push_back(std::move(held));
            held_bytes_ += length;
            statistics_.peak_buffer_bytes = std::max(statistics_.peak_buffer_bytes, held_bytes_);
            ++statistics_.data_packets;
            info.reliable = PacketInfo::Reliable::Data;
            info.reliable_source = node_;
            info.reliable_sequence = peer.unacked.back().sequence;
        }
        if (info.reliable == PacketInfo::Reliable::Data) {
            Peer& peer = peers_[o.destination];
            info.reliable_base = peer.unacked.empty() ? peer.next_sequence : peer.unacked.front().sequence;
            // Piggy-backed: the ack owed to that node goes with this packet.
            info.reliable_ack = peer.ack_value;
            peer.ack_due = false;
        }
        const unsigned cycles = (o.phits + phits_per_cycle_ - 1) / phits_per_cycle_;
        info.vc = NetworkFraming::kInjectVc;  // one VC toward the router: its credits are counted for VC 0 only
        info.tail_after = std::max(info.tail_after, cycle_ * static_cast<double>(cycles - 1));
        credits_ -= o.phits;
        free_at_ = now + info.tail_after + cycle_;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        to_network->b_transport(*o.packet, delay);
        if (!o.packet->is_response_ok())
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": the router refused a packet it had granted "
                                                                "credits for (packet_channel.h)")
                                             .c_str());
        if (from == &fresh_) node_credit_.send(from_node_credit, 0, o.phits, info.tail_after);
        o.packet->release();
    }
}

tlm::tlm_generic_payload* ReliableEndpoint::copy_of(const Held& held) {
    tlm::tlm_generic_payload* packet = pool_.allocate(static_cast<std::uint32_t>(held.bytes.size()));
    std::memcpy(packet->get_data_ptr(), held.bytes.data(), held.bytes.size());
    PacketInfo& info = packet_info(*packet);
    info.trace_id = held.trace_id;
    info.injected = held.injected;
    info.reliable = PacketInfo::Reliable::Data;
    info.reliable_source = node_;
    info.reliable_sequence = held.sequence;
    return packet;
}

void ReliableEndpoint::go_back(std::uint16_t peer_node) {
    Peer& peer = peers_[peer_node];
    // Copies of an earlier go-back to this node that have not left yet are
    // replaced by this one.
    for (auto it = resend_.begin(); it != resend_.end();)
        if (it->destination == peer_node) {
            it->packet->release();
            it = resend_.erase(it);
        } else {
            ++it;
        }
    for (const Held& held : peer.unacked) {
        tlm::tlm_generic_payload* packet = copy_of(held);
        resend_.push_back(
            Outgoing{packet, phits_of(static_cast<std::uint32_t>(held.bytes.size())), peer_node, false, {}, 0});
        ++statistics_.retransmissions;
    }
    ++peer.retries;
    peer.went_back_at = sim_now();
    peer.deadline = sim_now() + timeout_of(peer.retries);
    arm_timer(peer.deadline);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void ReliableEndpoint::give_up_oldest(std::uint16_t peer_node) {
    Peer& peer = peers_[peer_node];
    const Held& lost = peer.unacked.front();
    PacketLoss loss;
    loss.source = node_;
    loss.destination = peer_node;
    loss.first_sequence = lost.sequence;
    loss.packets = 1;
    loss.at_sender = true;
    loss.retransmissions = peer.retries;
    loss.packet = lost.bytes;
    loss.lost_in_a_row = ++peer.lost_in_a_row;
    loss.no_progress = peer.lost_in_a_row >= config_.max_losses_in_a_row;
    held_bytes_ -= lost.bytes.size();
    peer.unacked.pop_front();
    ++statistics_.lost_sent;
    peer.retries = 0;
    if (!peer.unacked.empty()) {
        if (config_.max_retransmissions > 0) {
            // The receiver dropped what followed the gap: send it again, with
            // a base that tells it the gap is given up.
            go_back(peer_node);
            peer.retries = 0;
        }
        peer.deadline = sim_now() + timeout_;
        arm_timer(peer.deadline);
    }
    wake_.notify(sc_core::SC_ZERO_TIME);
    if (observer_) {
        observer_(loss);
    } else {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": a packet to node " + std::to_string(peer_node) +
                                      " was lost (sequence " + std::to_string(loss.first_sequence) + ")")
                                         .c_str());
    }
}

std::vector<std::uint8_t> ReliableEndpoint::held_packet(std::uint16_t destination, std::uint32_t sequence) const {
    if (destination >= peers_.size()) return {};
    for (const Held& held : peers_[destination].unacked)
        if (held.sequence == sequence) return held.bytes;
    return {};
}

void ReliableEndpoint::acknowledged(std::uint16_t peer_node, std::uint32_t cumulative) {
    Peer& peer = peers_[peer_node];
    bool progress = false;
    while (!peer.unacked.empty() && peer.unacked.front().sequence < cumulative) {
        held_bytes_ -= peer.unacked.front().bytes.size();
        peer.unacked.pop_front();
        progress = true;
    }
    if (!progress) return;
    peer.retries = 0;
    peer.lost_in_a_row = 0;
    if (!peer.unacked.empty()) {
        peer.deadline = sim_now() + timeout_;
        arm_timer(peer.deadline);
    }
    wake_.notify(sc_core::SC_ZERO_TIME);  // retransmit-buffer room
}

// ---------------------------------------------------------------------------
// Receiver

void ReliableEndpoint::queue_control(std::uint16_t peer_node, PacketInfo::Reliable kind, std::uint32_t sequence) {
    // A header-only Send to the peer's node, from this node.
    PacketFrame frame;
    frame.destination = peer_node;
    frame.carried.rank = node_;
    const std::uint32_t bytes = NetworkFraming::wire_bytes(0);
    tlm::tlm_generic_payload* packet = pool_.allocate(bytes);
    framing_.write_headers(frame, packet->get_data_ptr());
    PacketInfo& info = packet_info(*packet);
    info.trace_id = (std::uint64_t{node_} << 40) | (std::uint64_t{1} << 39) | next_trace_id_++;
    info.injected = sim_now();
    info.reliable = kind;
    info.reliable_source = node_;
    info.reliable_sequence = sequence;
    control_.push_back(Outgoing{packet, phits_of(bytes), peer_node, false, {}, 0});
    ++(kind == PacketInfo::Reliable::Nak ? statistics_.naks_sent : statistics_.acks_sent);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void ReliableEndpoint::on_from_network(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    PacketInfo& info = packet_info(payload);
    const std::uint32_t phits = phits_of(static_cast<std::uint32_t>(payload.get_data_length()));
    const sc_core::sc_time tail = delay + info.tail_after;
    const std::uint16_t source = info.reliable_source;
    if (info.reliable == PacketInfo::Reliable::None || source >= peers_.size()) {
        to_node->b_transport(payload, delay);
        return;
    }
    // What the packet tells the sender side waits for run() (see there); the
    // receiver side (deliver or drop) is decided here, by this process only.
    const std::uint64_t visible_from = next_delta_count();
    const auto tell = [&](Feedback::Kind kind, std::uint32_t value, sc_core::sc_time at = {}) {
        inbox_.push_back(Feedback{kind, source, value, at, visible_from});
        wake_.notify(sc_core::SC_ZERO_TIME);
    };
    if (info.reliable != PacketInfo::Reliable::Data) {  // an ack or a nak: ends here
        ++statistics_.acks_received;
        tell(info.reliable == PacketInfo::Reliable::Nak ? Feedback::Kind::Nak : Feedback::Kind::Ack,
             info.reliable_sequence, sim_now());
        network_credit_.send(from_network_credit, 0, phits, tail);
        return;
    }
    tell(Feedback::Kind::Ack, info.reliable_ack);  // piggy-backed
    Peer& peer = peers_[source];
    const sc_core::sc_time now = sim_now();
    // The sender has given up what lies below its base (and reported it).
    if (static_cast<std::int32_t>(info.reliable_base - peer.expected) > 0) {
        peer.expected = info.reliable_base;
        peer.nak_sent = false;
    }
    const auto ahead = static_cast<std::int32_t>(info.reliable_sequence - peer.expected);
    if (ahead > 0 && config_.max_retransmissions == 0) {
        // Detection only: the missing packets are not coming; say so and go on.
        PacketLoss loss;
        loss.source = source;
        loss.destination = node_;
        loss.first_sequence = peer.expected;
        loss.packets = static_cast<std::uint64_t>(ahead);
        statistics_.lost_received += loss.packets;
        peer.expected = info.reliable_sequence;
        if (observer_) observer_(loss);
    }
    if (info.reliable_sequence == peer.expected) {
        ++peer.expected;
        peer.nak_sent = false;
        ++statistics_.delivered;
        tell(Feedback::Kind::AckOwed, peer.expected, now + tail + ack_delay_);
        to_node->b_transport(payload, delay);
        return;
    }
    if (ahead < 0) {  // already delivered: its ack was lost or late
        ++statistics_.duplicates;
        tell(Feedback::Kind::AckOwed, peer.expected, now + tail);
    } else {  // beyond a gap: dropped; the sender goes back to the gap
        ++statistics_.out_of_order;
        // One nak per round: the first packet beyond the gap, and again when
        // the sender's go-back lost the gap's packet once more (the
        // sequence numbers beyond the gap start over).
        if (!peer.nak_sent || static_cast<std::int32_t>(info.reliable_sequence - peer.beyond_gap) <= 0) {
            peer.nak_sent = true;
            tell(Feedback::Kind::NakOwed, peer.expected);
        }
        peer.beyond_gap = info.reliable_sequence;
    }
    network_credit_.send(from_network_credit, 0, phits, tail);
}

void ReliableEndpoint::on_node_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    // The node's input buffer is the router's eject credit pool: pass through.
    from_network_credit->b_transport(payload, delay);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---------------------------------------------------------------------------
// Timers

void ReliableEndpoint::arm_timer(sc_core::sc_time at) {
    if (timer_armed_ && timer_at_ <= at) return;
    const sc_core::sc_time now = sim_now();
    timer_armed_ = true;
    timer_at_ = std::max(at, now);
    timer_.cancel();
    timer_.notify(timer_at_ - now);
}

void ReliableEndpoint::on_timer(sc_core::sc_time now) {
    timer_armed_ = false;
    for (std::size_t p = 0; p < peers_.size(); ++p) {
        Peer& peer = peers_[p];
        const auto node = static_cast<std::uint16_t>(p);
        if (peer.ack_due && peer.ack_at <= now) {
            peer.ack_due = false;
            queue_control(node, PacketInfo::Reliable::Ack, peer.ack_value);
        }
        if (!peer.unacked.empty() && peer.deadline <= now) {
            ++statistics_.timeouts;
            if (peer.retries >= config_.max_retransmissions)
                give_up_oldest(node);
            else
                go_back(node);
        }
    }
    for (const Peer& peer : peers_) {
        if (peer.ack_due) arm_timer(peer.ack_at);
        if (!peer.unacked.empty()) arm_timer(peer.deadline);
    }
}

}  // namespace isvp
