#include "isvp/sharp_resources.h"

#include <algorithm>
#include <stdexcept>

namespace isvp {

bool sharp_offloads(Opcode collective) {
    return collective == Opcode::Allreduce || collective == Opcode::Reduce || collective == Opcode::Barrier;
}

std::string describe_sharp_error(std::uint32_t detail) {
    const std::string node = "the aggregation node of switch " + std::to_string(detail >> 16);
    switch (static_cast<SharpFailure>(detail & 0xFF)) {
        case SharpFailure::NodeFault:
            return "SHArP: " + node + " failed; the group's aggregation tree is gone (a new communicator falls back)";
        case SharpFailure::MemberTimeout:
            return "SHArP: " + node + " timed out waiting for a member (collective.sharp_timeout_us)";
    }
    return "SHArP: " + node + " reported failure " + std::to_string(detail & 0xFF);
}

std::string SharpAdmission::describe(const SharpLimits& limits) const {
    const std::string an = "AN " + std::to_string(node);
    switch (outcome) {
        case Outcome::Granted:
            return "granted";
        case Outcome::NoTreeSlot:
            return an + " serves " + std::to_string(limits.max_trees_per_an) + " trees already (" +
                   limits.trees_parameter + ")";
        case Outcome::NoBuffers:
            return an + " has fewer than " + std::to_string(limits.osts_per_tree) +
                   " free operation buffers (collective.sharp_buffers_per_an)";
        case Outcome::FaultedNode:
            return an + " has failed";
    }
    return "?";
}

SharpResources::SharpResources(unsigned nodes, SharpLimits limits) : limits_(limits), usage_(nodes) {}

namespace {
std::vector<unsigned> distinct(std::vector<unsigned> nodes) {
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
}
}  // namespace

SharpAdmission SharpResources::check(const std::vector<unsigned>& nodes) const {
    for (const unsigned n : nodes) {
        if (n >= usage_.size())
            throw std::invalid_argument("sharp: AN " + std::to_string(n) + " outside the network's " +
                                        std::to_string(usage_.size()) + " switches");
        const AggregationNodeUsage& u = usage_[n];
        SharpAdmission refusal;
        refusal.node = n;
        if (u.faulted)
            refusal.outcome = SharpAdmission::Outcome::FaultedNode;
        else if (u.trees >= limits_.max_trees_per_an)
            refusal.outcome = SharpAdmission::Outcome::NoTreeSlot;
        else if (u.buffers_reserved + limits_.osts_per_tree > limits_.buffers_per_an)
            refusal.outcome = SharpAdmission::Outcome::NoBuffers;
        else
            continue;
        return refusal;
    }
    return SharpAdmission{};
}

void SharpResources::reserve(std::uint64_t group, std::vector<unsigned> nodes) {
    for (const unsigned n : nodes) {
        ++usage_[n].trees;
        usage_[n].buffers_reserved += limits_.osts_per_tree;
        ++usage_[n].groups_admitted;
    }
    groups_.emplace(group, std::move(nodes));
    ++admitted_;
}

SharpAdmission SharpResources::admit(std::uint64_t group, const std::vector<unsigned>& nodes) {
    release(group);
    std::vector<unsigned> sorted = distinct(nodes);
    const SharpAdmission answer = check(sorted);
    if (!answer.granted()) {
        ++usage_[answer.node].groups_refused;
        ++refused_;
        return answer;
    }
    reserve(group, std::move(sorted));
    return answer;
}

void SharpResources::release(std::uint64_t group) {
    const auto it = groups_.find(group);
    if (it == groups_.end()) return;
    for (const unsigned n : it->second) {
        --usage_[n].trees;
        usage_[n].buffers_reserved -= limits_.osts_per_tree;
    }
    groups_.erase(it);
}

void SharpResources::fault(unsigned node) {
    usage_.at(node).faulted = true;
}

void SharpResources::wait(std::uint64_t group, const std::vector<unsigned>& nodes, std::uint64_t deadline) {
    stop_waiting(group);
    waiting_.push_back(Waiting{group, distinct(nodes), deadline});
    ++queued_;
}

std::vector<std::uint64_t> SharpResources::admit_waiting() {
    std::vector<std::uint64_t> admitted;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (holds(it->group) || !check(it->nodes).granted()) {
            ++it;
            continue;
        }
        reserve(it->group, std::move(it->nodes));
        admitted.push_back(it->group);
        it = waiting_.erase(it);
    }
    return admitted;
}

std::vector<std::uint64_t> SharpResources::expire(std::uint64_t now) {
    std::vector<std::uint64_t> expired;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->deadline > now) {
            ++it;
            continue;
        }
        expired.push_back(it->group);
        it = waiting_.erase(it);
    }
    return expired;
}

void SharpResources::stop_waiting(std::uint64_t group) {
    waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [&](const Waiting& w) { return w.group == group; }),
                   waiting_.end());
}

bool SharpResources::waiting(std::uint64_t group) const {
    return std::any_of(waiting_.begin(), waiting_.end(), [&](const Waiting& w) { return w.group == group; });
}

std::optional<std::uint64_t> SharpResources::next_deadline() const {
    std::optional<std::uint64_t> next;
    for (const Waiting& w : waiting_)
        if (!next || w.deadline < *next) next = w.deadline;
    return next;
}

bool OperationSlots::begin(std::uint32_t tree) {
    if (running_.count(tree)) return true;
    if (running_.size() >= buffers_) {
        ++refused_;
        return false;
    }
    running_.emplace(tree, true);
    ++operations_;
    peak_ = std::max(peak_, static_cast<unsigned>(running_.size()));
    return true;
}

void OperationSlots::end(std::uint32_t tree) {
    running_.erase(tree);
}

}  // namespace isvp
