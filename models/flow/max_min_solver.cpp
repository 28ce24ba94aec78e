#include "isvp/max_min_solver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

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

    // Progressive filling over the component.
    for (std::uint32_t r : component_resources_) {
        Resource& resource = resources_[r];
        resource.remaining = resource.capacity;
        resource.usage = 0.0;
    }
    for (std::uint32_t id : component_flows_) {
        Flow& flow = flows_[id];
        flow.fixed = false;
        for (const Use& use : flow.uses) resources_[use.resource].usage += use.weight;
    }
    std::vector<std::uint32_t>& unfixed = unfixed_;
    unfixed = component_flows_;
    // Whether a resource still has unfixed flows is kept by count, not by the
    // floating-point sum of their weights.
    std::vector<std::uint32_t> counts(component_resources_.size(), 0);
    auto slot = [&](std::uint32_t r) {
        return static_cast<std::size_t>(std::lower_bound(component_resources_.begin(), component_resources_.end(), r) -
                                        component_resources_.begin());
    };
    for (std::uint32_t id : unfixed)
        for (const Use& use : flows_[id].uses) ++counts[slot(use.resource)];
    auto share = [&](std::size_t index) {
        const Resource& resource = resources_[component_resources_[index]];
        return std::max(resource.remaining, 0.0) / resource.usage;
    };
    while (!unfixed.empty()) {
        double level = kUnbounded;
        for (std::size_t i = 0; i < component_resources_.size(); ++i)
            if (counts[i] > 0) level = std::min(level, share(i));
        for (std::uint32_t id : unfixed) level = std::min(level, flows_[id].bound);
        const double threshold = level * (1.0 + kTolerance);
        std::size_t kept = 0;
        for (std::uint32_t id : unfixed) {
            Flow& flow = flows_[id];
            bool limited = flow.bound <= threshold;
            for (std::size_t u = 0; !limited && u < flow.uses.size(); ++u)
                limited = share(slot(flow.uses[u].resource)) <= threshold;
            if (limited) {
                flow.fixed = true;
                flow.rate = level;
            } else {
                unfixed[kept++] = id;
            }
        }
        // Give out what the newly fixed flows take (after the scan, so every
        // flow of one round saw the same shares).
        for (std::uint32_t id : component_flows_) {
            Flow& flow = flows_[id];
            if (!flow.fixed || flow.mark != stamp_) continue;
            flow.mark = stamp_ - 1;  // given out: not again in a later round
            for (const Use& use : flow.uses) {
                const std::size_t index = slot(use.resource);
                Resource& resource = resources_[use.resource];
                resource.remaining -= use.weight * flow.rate;
                resource.usage -= use.weight;
                --counts[index];
            }
        }
        unfixed.resize(kept);
    }
    return component_flows_;
}

}  // namespace isvp
