// SwitchCollectiveEngine with collective.mode = sharp: the switch engine as
// a SHArP aggregation node (AN) — the manager's admission of groups at the
// planner, an AN's operation buffers, member timeouts and AN faults
// reported to every member (docs/COLLECTIVES.md, "SHArP mode").
#include <algorithm>
#include <string>

#include "isvp/sim_now.h"
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
    if (config_.sharp() && config_.sharp_fault_switch >= 0 &&
        sim_now() >= sc_core::sc_time(config_.sharp_fault_at_us, sc_core::SC_US))
        sharp_books_->fault(static_cast<unsigned>(config_.sharp_fault_switch));
    const SharpAdmission admission = sharp_books_->admit(group, vertices);
    if (admission.granted()) {
        ++(config_.sharp() ? statistics_.sharp_groups_admitted : statistics_.groups_admitted);
        return true;
    }
    // SHArP names its aggregation nodes; outside SHArP mode they are the switch engines.
    const std::string why = config_.sharp() || admission.outcome != SharpAdmission::Outcome::NoTreeSlot
                                ? admission.describe(sharp_books_->limits())
                                : "the engine of switch " + std::to_string(admission.node) + " holds " +
                                      std::to_string(sharp_books_->limits().max_trees_per_an) +
                                      " trees already (collective.switch_max_trees)";
    // Out of tree slots or buffers: the group waits for a freed
    // communicator's (a failed AN gives nothing back: no wait).
    if (sharp_queue_wait_ != sc_core::SC_ZERO_TIME && admission.outcome != SharpAdmission::Outcome::FaultedNode) {
        ++statistics_.sharp_groups_queued;
        sharp_books_->wait(group, vertices, (sim_now() + sharp_queue_wait_).value());
        sharp_arm_queue();
        SC_REPORT_INFO(kReportType, (std::string(name()) + ": SHArP group of " + std::to_string(members.size()) +
                                     " members on context " + std::to_string(context) + " waits: " + why)
                                        .c_str());
        return false;
    }
    sharp_fall_back(context, group, why);
    return false;
}

void SwitchCollectiveEngine::sharp_fall_back(std::uint8_t context, std::uint32_t key, const std::string& why) {
    Group& g = groups_.at(key);
    ++(config_.sharp() ? statistics_.sharp_groups_fallback : statistics_.groups_fallback);
    const std::string group = config_.sharp() ? "SHArP group of " : "group of ";
    const std::string without = config_.sharp() ? " runs without SHArP: " : " runs on the NIC engines: ";
    SC_REPORT_INFO(kReportType, (std::string(name()) + ": " + group + std::to_string(g.hosts.size()) +
                                 " members on context " + std::to_string(context) + without + why)
                                    .c_str());
    for (const auto& [rank, host] : g.hosts) {
        TreeConfig config;
        config.target = host;
        config.slot = TreeConfig::kSharpFallbackSlot;
        send_configuration(context, config.target, config);
    }
}

void SwitchCollectiveEngine::leave(const NetworkPacketView& v) {
    if (!planner_ || !sharp_books_) return drop("tree leave at an engine that does not plan trees");
    if (v.payload_bytes != TreeJoin::kBytes) return drop("tree leave of " + std::to_string(v.payload_bytes) + " bytes");
    const TreeJoin j = TreeJoin::read(v.payload);
    const std::uint8_t context = v.network.context_id;
    const std::uint32_t key = static_cast<std::uint32_t>(context) << 16 | j.global_rank0;
    // The late leave of a member of a communicator a new one under the key
    // replaced (its group was given back then): nothing more to do.
    const std::uint8_t number = v.network.datatype;  // its join's
    const auto late = late_leaves_.find(key);
    if (late != late_leaves_.end() && late->second.erase(std::make_tuple(j.size, j.comm_rank, j.host, number))) {
        if (late->second.empty()) late_leaves_.erase(late);
        return;
    }
    const auto found = groups_.find(key);
    // A leave of a group that never formed concerns nobody.
    if (found == groups_.end() || found->second.size != j.size) return;
    Group& g = found->second;
    const auto member = g.hosts.find(j.comm_rank);
    if (member == g.hosts.end() || member->second != j.host) return;
    // The leave of the member's older join (sent again after the reliable
    // layer gave it up, though it had come): its new join stays.
    if (g.join_numbers[j.comm_rank] != number) {
        ++statistics_.setup_duplicates;
        return;
    }
    if (g.hosts.size() < g.size) {  // still joining: it no longer joins
        g.hosts.erase(member);
        return;
    }
    g.left.insert(j.comm_rank);
    if (sharp_books_->waiting(key)) {  // a member gave up waiting: the others run without SHArP
        sharp_books_->stop_waiting(key);
        sharp_fall_back(context, key, "a member's communicator was freed while the group waited for resources");
    }
    if (g.left.size() < g.size) return;
    // Every member left: the group's tree slot and buffers go back, and the
    // groups waiting for them are served.
    if (sharp_books_->holds(key)) ++(config_.sharp() ? statistics_.sharp_groups_released : statistics_.groups_released);
    sharp_books_->release(key);
    groups_.erase(found);
    sharp_serve_queue();
}

void SwitchCollectiveEngine::replace_group(std::uint32_t key, Group& g) {
    // Its context was free at every member of the new communicator's parent
    // when they agreed on it, so every member of the old one has freed it:
    // the leaves still to come are on their way (a member's leave precedes
    // its own next join, not the others'). The group is given back now, as
    // its last leave would have, and those leaves are recognised when they come.
    for (const auto& [rank, host] : g.hosts)
        if (!g.left.count(rank)) {
            late_leaves_[key].insert(std::make_tuple(g.size, rank, host, g.join_numbers[rank]));
            ++statistics_.leaves_overtaken;
        }
    g.left.clear();
    if (!sharp_books_) return;
    if (sharp_books_->holds(key)) ++(config_.sharp() ? statistics_.sharp_groups_released : statistics_.groups_released);
    sharp_books_->release(key);
    sharp_serve_queue();
}

void SwitchCollectiveEngine::sharp_serve_queue() {
    for (const std::uint64_t key : sharp_books_->admit_waiting()) {
        ++statistics_.sharp_groups_admitted;
        form_group(static_cast<std::uint8_t>(key >> 16), static_cast<std::uint32_t>(key), true);
    }
}

void SwitchCollectiveEngine::sharp_arm_queue() {
    if (const std::optional<std::uint64_t> next = sharp_books_->next_deadline())
        sharp_queue_event_.notify(sc_core::sc_time::from_value(*next) - sim_now());
}

void SwitchCollectiveEngine::on_sharp_queue() {
    for (const std::uint64_t key : sharp_books_->expire(sim_now().value()))
        sharp_fall_back(static_cast<std::uint8_t>(key >> 16), static_cast<std::uint32_t>(key),
                        "no freed resources within collective.sharp_queue_us");
    sharp_arm_queue();
}

bool SwitchCollectiveEngine::sharp_packet(const NetworkPacketView& v) {
    if (sharp_failed_) {  // a failed AN takes nothing in any more
        ++statistics_.sharp_absorbed;
        return true;
    }
    const std::uint8_t step = v.network.step;
    if (step >= 1 && step <= kMaxSlots) {
        const auto it = trees_.find(tree_key(v.network.context_id, static_cast<std::uint8_t>(step - 1)));
        // Its tree is gone: discarded, credit returned (a new communicator's
        // packets, of another generation, wait for their configuration).
        if (it != trees_.end() && it->second.sharp_failed && v.generation == (it->second.generation & 0x7)) {
            owe_credit(it->second, v.processor.rank);
            return true;
        }
    }
    return false;
}

void SwitchCollectiveEngine::sharp_data_arrived(Tree& t) {
    t.last_packet = sim_now();
    if (sharp_timeout_ != sc_core::SC_ZERO_TIME) sharp_timeout_event_.notify(sharp_timeout_);
}

void SwitchCollectiveEngine::sharp_discard_stale(Tree& t) {
    // Packets of operations that ended (done, or ended by an error notice)
    // and of a failed tree: their credits go back.
    const auto stale = [&](std::uint16_t sequence) {
        if (t.sharp_failed) return true;
        if (t.last_done && compare_sequence(sequence, *t.last_done) <= 0) return true;
        return t.notified && sequence == *t.notified && !(t.run.running && t.run.sequence == sequence);
    };
    for (const std::uint16_t sender : t.held.senders(t.context))
        while (const HeldPacket* p = t.held.front(t.context, sender)) {
            if (!stale(p->sequence)) break;
            if (void* owner = t.held.pop(t.context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
            --held_total_;
            owe_credit(t, sender);
        }
}

void SwitchCollectiveEngine::sharp_end_operation(Tree& t, std::uint16_t sequence, std::uint32_t detail) {
    std::uint8_t notice[kLinkFaultAbortNoticeBytes] = {};  // no faulted link: the words after the detail are 0
    store_le32(notice, (sequence & kStepSequenceMask) |
                           static_cast<std::uint32_t>(CollectiveError::Sharp) << kAbortCauseShift |
                           std::uint32_t{t.slot} << 24);
    store_le32(notice + 4, detail);
    end_operation(t, sequence, notice, kLinkFaultAbortNoticeBytes, -1);
}

void SwitchCollectiveEngine::on_sharp_fault() {
    const sc_core::sc_time at(config_.sharp_fault_at_us, sc_core::SC_US);
    if (sim_now() < at) {
        next_trigger(at - sim_now());
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
        sharp_end_operation(t, sequence, detail);
    }
    sharp_failed_ = true;
}

void SwitchCollectiveEngine::on_sharp_timeout() {
    if (sharp_failed_) return;
    const sc_core::sc_time now = sim_now();
    bool pending = false;
    sc_core::sc_time next;
    for (auto& [key, t] : trees_) {
        if (!t.run.running || t.sharp_failed) continue;
        const sc_core::sc_time due = t.last_packet + sharp_timeout_;
        if (due <= now) {
            ++statistics_.sharp_timeouts;
            sharp_end_operation(t, t.run.sequence, sharp_error_detail(switch_index_, SharpFailure::MemberTimeout));
            continue;
        }
        if (!pending || due < next) next = due;
        pending = true;
    }
    if (pending) sharp_timeout_event_.notify(next - now);
}

}  // namespace isvp
