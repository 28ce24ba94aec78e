#include "isvp/max_min_solver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "isvp/heap_moves.h"

namespace isvp {

namespace {
/// Relative tolerance when comparing a resource's share or a bound with the
/// current level: shares equal up to rounding saturate in the same round.
constexpr double kTolerance = 1e-9;
}  // namespace

std::uint32_t MaxMinSolver::add_resource(double capacity) {
    if (!(capacity > 0.0) || capacity == kUnbounded)
        throw std::invalid_argument("max-min solver: resource capacity must be positive and finite, got " +
                                    std::to_string(capacity));
    Resource resource;
    resource.capacity = capacity;
    resources_.push_back(std::move(resource));
    return static_cast<std::uint32_t>(resources_.size() - 1);
}

std::uint32_t MaxMinSolver::add_flow(const std::vector<Use>& uses, double bound) {
    if (!(bound > 0.0))
        throw std::invalid_argument("max-min solver: a flow's bound must be positive, got " + std::to_string(bound));
    if (uses.empty() && bound == kUnbounded)
        throw std::invalid_argument("max-min solver: a flow that uses no resource needs a bound");
    for (std::size_t i = 0; i < uses.size(); ++i) {
        if (uses[i].resource >= resources_.size())
            throw std::invalid_argument("max-min solver: flow uses resource " + std::to_string(uses[i].resource) +
                                        " of " + std::to_string(resources_.size()));
        if (!(uses[i].weight > 0.0) || uses[i].weight == kUnbounded)
            throw std::invalid_argument("max-min solver: weight on resource " + std::to_string(uses[i].resource) +
                                        " must be positive and finite, got " + std::to_string(uses[i].weight));
        for (std::size_t j = 0; j < i; ++j)
            if (uses[j].resource == uses[i].resource)
                throw std::invalid_argument("max-min solver: flow uses resource " + std::to_string(uses[i].resource) +
                                            " twice");
    }
    std::uint32_t id;
    if (!free_ids_.empty()) {
        id = free_ids_.back();
        free_ids_.pop_back();
    } else {
        id = static_cast<std::uint32_t>(flows_.size());
        flows_.emplace_back();
    }
    Flow& flow = flows_[id];
    flow.uses = uses;
    flow.bound = bound;
    flow.rate = 0.0;
    flow.active = true;
    ++active_count_;
    for (const Use& use : uses) {
        resources_[use.resource].flows.push_back(id);
        mark_dirty(use.resource);
    }
    if (uses.empty()) {  // alone in its component: its bound is its rate
        flow.rate = bound;
    }
    return id;
}

void MaxMinSolver::remove_flow(std::uint32_t id) {
    if (!active(id)) throw std::invalid_argument("max-min solver: flow " + std::to_string(id) + " is not active");
    Flow& flow = flows_[id];
    for (const Use& use : flow.uses) {
        auto& list = resources_[use.resource].flows;
        list.erase(std::find(list.begin(), list.end(), id));
        mark_dirty(use.resource);
    }
    flow.active = false;
    flow.uses.clear();
    flow.rate = 0.0;
    --active_count_;
    free_ids_.push_back(id);
}

void MaxMinSolver::mark_dirty(std::uint32_t resource) {
    if (resources_[resource].dirty) return;
    resources_[resource].dirty = true;
    dirty_.push_back(resource);
}

double MaxMinSolver::load(std::uint32_t resource) const {
    double sum = 0.0;
    for (std::uint32_t id : resources_.at(resource).flows)
        for (const Use& use : flows_[id].uses)
            if (use.resource == resource) sum += use.weight * flows_[id].rate;
    return sum;
}

const std::vector<std::uint32_t>& MaxMinSolver::solve() {
    component_flows_.clear();
    component_resources_.clear();
    if (dirty_.empty()) return component_flows_;
    ++solves_;
    // The component(s) touched: resources reachable from a dirty one through
    // shared flows.
    ++stamp_;
    std::vector<std::uint32_t> stack;
    for (std::uint32_t r : dirty_) {
        resources_[r].dirty = false;
        if (resources_[r].mark == stamp_) continue;
        resources_[r].mark = stamp_;
        stack.push_back(r);
    }
    dirty_.clear();
    while (!stack.empty()) {
        const std::uint32_t r = stack.back();
        stack.pop_back();
        component_resources_.push_back(r);
        for (std::uint32_t id : resources_[r].flows) {
            Flow& flow = flows_[id];
            if (flow.mark == stamp_) continue;
            flow.mark = stamp_;
            component_flows_.push_back(id);
            for (const Use& use : flow.uses) {
                Resource& next = resources_[use.resource];
                if (next.mark == stamp_) continue;
                next.mark = stamp_;
                stack.push_back(use.resource);
            }
        }
    }
    std::sort(component_flows_.begin(), component_flows_.end());
    std::sort(component_resources_.begin(), component_resources_.end());

    // Progressive filling over the component, driven by a heap of resource
    // shares (remaining / sum of unfixed weights): fixing flows at the
    // current level never lowers another resource's share, so the smallest
    // share (or bound) left is always the next level. Cost O(C log C) for C
    // uses in the component, however many distinct levels there are.
    for (std::uint32_t r : component_resources_) {
        Resource& resource = resources_[r];
        resource.remaining = resource.capacity;
        resource.usage = 0.0;
        resource.unfixed = 0;
    }
    bounded_.clear();
    for (std::uint32_t id : component_flows_) {
        Flow& flow = flows_[id];
        flow.fixed = false;
        for (const Use& use : flow.uses) {
            resources_[use.resource].usage += use.weight;
            ++resources_[use.resource].unfixed;
        }
        if (flow.bound != kUnbounded) bounded_.push_back(id);
    }
    // Bounds in increasing order (ties: flow id), consumed from the front.
    std::sort(bounded_.begin(), bounded_.end(), [this](std::uint32_t a, std::uint32_t b) {
        return flows_[a].bound != flows_[b].bound ? flows_[a].bound < flows_[b].bound : a < b;
    });
    auto share = [](const Resource& resource) { return std::max(resource.remaining, 0.0) / resource.usage; };
    heap_.clear();
    for (std::uint32_t r : component_resources_) {
        Resource& resource = resources_[r];
        if (resource.unfixed == 0) continue;
        resource.share = share(resource);
        heap_insert(r);
    }
    std::size_t next_bounded = 0;
    double level = 0.0;  // the last level given out
    const auto fix = [&](Flow& flow, double rate) {
        flow.fixed = true;
        flow.rate = rate;
        for (const Use& use : flow.uses) {
            Resource& resource = resources_[use.resource];
            resource.remaining -= use.weight * rate;
            resource.usage -= use.weight;
            if (--resource.unfixed > 0) {
                resource.share = share(resource);
                heap_update(use.resource);
            } else {
                heap_remove(use.resource);
            }
        }
    };
    // Shares equal up to rounding saturate at one level.
    const auto at_level = [&](double value) { return value <= level * (1.0 + kTolerance) ? level : value; };
    while (true) {
        while (next_bounded < bounded_.size() && flows_[bounded_[next_bounded]].fixed) ++next_bounded;
        const bool have_share = !heap_.empty();
        const bool have_bound = next_bounded < bounded_.size();
        if (!have_share && !have_bound) break;
        if (have_bound && (!have_share || flows_[bounded_[next_bounded]].bound <= resources_[heap_.front()].share)) {
            Flow& flow = flows_[bounded_[next_bounded++]];
            level = at_level(flow.bound);
            fix(flow, level);
            continue;
        }
        const std::uint32_t saturated = heap_.front();
        level = at_level(resources_[saturated].share);
        // The flows of the saturated resource, in id order (the list may be
        // in any order; fixing does not change it). Fixing the last of them
        // takes the resource out of the heap.
        scratch_.clear();
        for (std::uint32_t id : resources_[saturated].flows)
            if (!flows_[id].fixed) scratch_.push_back(id);
        std::sort(scratch_.begin(), scratch_.end());
        for (std::uint32_t id : scratch_) fix(flows_[id], level);
    }
    return component_flows_;
}

void MaxMinSolver::heap_insert(std::uint32_t resource) {
    heap_.push_back(resource);
    sift_up(static_cast<std::uint32_t>(heap_.size() - 1));
}

void MaxMinSolver::heap_remove(std::uint32_t resource) {
    const std::uint32_t slot = resources_[resource].slot;
    if (slot == kNotHeld) return;
    resources_[resource].slot = kNotHeld;
    const std::uint32_t last = heap_.back();
    heap_.pop_back();
    if (slot == heap_.size()) return;
    place(slot, last);
    heap_update(last);
}

void MaxMinSolver::heap_update(std::uint32_t resource) {
    const std::uint32_t slot = resources_[resource].slot;
    if (slot > 0 && smaller(resource, heap_[(slot - 1) / heap_moves::kArity]))
        sift_up(slot);
    else
        sift_down(slot);
}

void MaxMinSolver::sift_up(std::uint32_t slot) {
    heap_moves::sift_up(
        heap_.data(), slot, [this](std::uint32_t a, std::uint32_t b) { return smaller(a, b); },
        [this](std::size_t at, std::uint32_t resource) { resources_[resource].slot = static_cast<std::uint32_t>(at); });
}

void MaxMinSolver::sift_down(std::uint32_t slot) {
    heap_moves::sift_down(
        heap_.data(), heap_.size(), slot, [this](std::uint32_t a, std::uint32_t b) { return smaller(a, b); },
        [this](std::size_t at, std::uint32_t resource) { resources_[resource].slot = static_cast<std::uint32_t>(at); });
}

}  // namespace isvp
