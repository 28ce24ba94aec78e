// SwitchCollectiveEngine with collective.mode = sharp: the switch engine as
// a SHArP aggregation node (AN) — the manager's admission of groups at the
// planner, an AN's operation buffers, member timeouts and AN faults
// reported to every member (docs/COLLECTIVES.md, "SHArP mode").
#include <algorithm>
#include <string>

#include "isvp/switch_engine.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/switch_collective";
constexpr unsigned kMaxSlots = 0xF9;  // as switch_engine.cpp: a tree's slot + 1 is its data packets' step field
}  // namespace

bool SwitchCollectiveEngine::sharp_admit(std::uint8_t context, std::uint32_t group,
                                         const std::vector<unsigned>& members, const std::vector<unsigned>& vertices) {
    // The manager learns of a failed AN at its failure (SHArP: through the
    // subnet manager); the manager itself runs on a management host and
    // outlives any AN, its planner's included.
    if (config_.sharp_fault_switch >= 0 &&
        sc_core::sc_time_stamp() >= sc_core::sc_time(config_.sharp_fault_at_us, sc_core::SC_US))
        sharp_books_->fault(static_cast<unsigned>(config_.sharp_fault_switch));
    const SharpAdmission admission = sharp_books_->admit(group, vertices);
    if (admission.granted()) {
        ++statistics_.sharp_groups_admitted;
        return true;
    }
    ++statistics_.sharp_groups_fallback;
    SC_REPORT_INFO(kReportType, (std::string(name()) + ": SHArP group of " + std::to_string(members.size()) +
                                 " members on context " + std::to_string(context) +
                                 " runs without SHArP: " + admission.describe(sharp_books_->limits()))
                                    .c_str());
    for (const unsigned host : members) {
        TreeConfig config;
        config.target = static_cast<std::uint16_t>(host);
        config.slot = TreeConfig::kSharpFallbackSlot;
        send_configuration(context, config.target, config);
    }
    return false;
}

bool SwitchCollectiveEngine::sharp_packet(const NetworkPacketView& v) {
    if (sharp_failed_) {  // a failed AN takes nothing in any more
        ++statistics_.sharp_absorbed;
        return true;
    }
    const std::uint8_t step = v.network.step;
    if (step == kAbortStep) {
        // From a member's NIC (its comm rank < hosts): its own abort of an
        // operation this AN ended or told it of already. From an AN: go on.
        if (v.processor.rank < topology_->hosts() || v.payload_bytes != kLinkFaultAbortNoticeBytes) return true;
        const std::uint32_t word = load_le32(v.payload);
        if (((word >> kAbortCauseShift) & 0xFF) != static_cast<std::uint32_t>(CollectiveError::Sharp)) return true;
        const auto slot = static_cast<std::uint8_t>(word >> 24);
        if (slot >= kMaxSlots) return true;
        Tree& t = tree(v.network.context_id, slot);
        const auto sequence = static_cast<std::uint16_t>(word & kStepSequenceMask);
        if (t.sharp_failed || (t.sharp_notified && compare_sequence(sequence, *t.sharp_notified) <= 0)) return true;
        sharp_end_operation(t, sequence, load_le32(v.payload + 4), v.processor.rank);
        return true;
    }
    if (step >= 1 && step <= kMaxSlots) {
        const auto it = trees_.find(tree_key(v.network.context_id, static_cast<std::uint8_t>(step - 1)));
        if (it != trees_.end() && it->second.sharp_failed) {  // its tree is gone: discarded, credit returned
            owe_credit(it->second, v.processor.rank);
            return true;
        }
    }
    return false;
}

void SwitchCollectiveEngine::sharp_data_arrived(Tree& t) {
    t.last_packet = sc_core::sc_time_stamp();
    if (sharp_timeout_ != sc_core::SC_ZERO_TIME) sharp_timeout_event_.notify(sharp_timeout_);
}

void SwitchCollectiveEngine::sharp_discard_stale(Tree& t) {
    // Packets of operations that ended (done, or ended by an error notice)
    // and of a failed tree: their credits go back.
    const auto stale = [&](std::uint16_t sequence) {
        if (t.sharp_failed) return true;
        if (t.last_done && compare_sequence(sequence, *t.last_done) <= 0) return true;
        return t.sharp_notified && sequence == *t.sharp_notified && !(t.run.running && t.run.sequence == sequence);
    };
    for (const std::uint16_t sender : t.held.senders(t.context))
        while (const HeldPacket* p = t.held.front(t.context, sender)) {
            if (!stale(p->sequence)) break;
            if (void* owner = t.held.pop(t.context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
            --held_total_;
            owe_credit(t, sender);
        }
}

void SwitchCollectiveEngine::sharp_end_operation(Tree& t, std::uint16_t sequence, std::uint32_t detail, int from) {
    const bool fault = static_cast<SharpFailure>(detail & 0xFF) == SharpFailure::NodeFault;
    t.sharp_notified = sequence;
    if (fault) t.sharp_failed = true;
    // Every neighbour in the tree but the one it came from: the notice goes
    // round the whole tree, each participant once, and reaches every member.
    std::vector<int> neighbours(t.role.children.begin(), t.role.children.end());
    if (t.role.parent >= 0) neighbours.push_back(t.role.parent);
    for (const int to : neighbours) {
        if (to == from) continue;
        NetworkHeader network;
        network.opcode = t.run.running ? t.run.header.opcode : Opcode::Allreduce;
        network.destination = static_cast<std::uint16_t>(to);
        network.context_id = t.context;
        network.step = kAbortStep;
        ProcessorHeader processor;
        processor.opcode = network.opcode;
        processor.context_id = t.context;
        processor.rank = address_;  // an AN: >= hosts
        processor.message_bytes = kLinkFaultAbortNoticeBytes;
        std::uint8_t payload[kLinkFaultAbortNoticeBytes] = {};  // no faulted link: the words after the detail are 0
        store_le32(payload, (sequence & kStepSequenceMask) |
                                static_cast<std::uint32_t>(CollectiveError::Sharp) << kAbortCauseShift |
                                std::uint32_t{t.slot} << 24);
        store_le32(payload + 4, detail);
        ++statistics_.sharp_error_notices;
        emit(network, processor, payload, kLinkFaultAbortNoticeBytes, false);
    }
    // The operation's state here: freed (chunks in the AgLUs dropped with it).
    Run& r = t.run;
    if (r.running && (fault || r.sequence == sequence)) {
        t.last_done = r.sequence;
        r.running = false;
        r.combining.clear();
        r.steps.clear();
        r.buffer.clear();
        sharp_slots_.end(t.owner);
        cgr_.release(t.owner, sc_core::sc_time_stamp().value());
        if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
    }
    sharp_discard_stale(t);
    progress(t);
}

void SwitchCollectiveEngine::on_sharp_fault() {
    const sc_core::sc_time at(config_.sharp_fault_at_us, sc_core::SC_US);
    if (sc_core::sc_time_stamp() < at) {
        next_trigger(at - sc_core::sc_time_stamp());
        return;
    }
    ++statistics_.sharp_faults;
    SC_REPORT_INFO(kReportType, (std::string(name()) + ": SHArP aggregation node of switch " +
                                 std::to_string(switch_index_) + " fails (collective.sharp_fault_switch)")
                                    .c_str());
    // Its neighbours in every tree learn it (SHArP: the link-down traps of
    // the ports around it), as notices from its place in the tree.
    for (auto& [key, t] : trees_) {
        if (!t.configured || t.sharp_failed) continue;
        std::uint32_t detail = sharp_error_detail(switch_index_, SharpFailure::NodeFault);
        std::uint16_t sequence = 0;
        if (t.run.running)
            sequence = t.run.sequence;
        else if (t.last_done)
            sequence = static_cast<std::uint16_t>((*t.last_done + 1) & kStepSequenceMask);
        else
            detail |= kSharpAnySequence;
        sharp_end_operation(t, sequence, detail, -1);
    }
    sharp_failed_ = true;
}

void SwitchCollectiveEngine::on_sharp_timeout() {
    if (sharp_failed_) return;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    bool pending = false;
    sc_core::sc_time next;
    for (auto& [key, t] : trees_) {
        if (!t.run.running || t.sharp_failed) continue;
        const sc_core::sc_time due = t.last_packet + sharp_timeout_;
        if (due <= now) {
            ++statistics_.sharp_timeouts;
            sharp_end_operation(t, t.run.sequence, sharp_error_detail(switch_index_, SharpFailure::MemberTimeout), -1);
            continue;
        }
        if (!pending || due < next) next = due;
        pending = true;
    }
    if (pending) sharp_timeout_event_.notify(next - now);
}

}  // namespace isvp
