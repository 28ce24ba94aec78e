// Max-min fair sharing of resources among flows (the bandwidth-sharing core
// of flow-level network simulators: SimGrid's LMM "maxmin" system, the
// CM02/LV08 network models). No SystemC, no time: rates are numbers.
//
// A resource has a capacity C; a flow uses a set of resources, each with a
// weight a (how much of the resource one unit of the flow's rate consumes),
// and may have an upper bound on its rate. The solution gives every flow a
// rate r such that, on every resource, sum of a * r over its flows <= C, and
// the rates are max-min fair: no flow's rate can grow without lowering that
// of a flow whose rate is not larger. Progressive filling computes it: all
// unfixed rates grow together; the first resource to saturate (smallest
// remaining / sum of unfixed weights) or the first bound to be reached fixes
// the flows it holds at that level; repeat with what is left.
//
// Incremental: adding or removing a flow marks its resources; solve()
// recomputes only the flows connected to a marked resource (through shared
// resources, transitively) and says which ones it recomputed. Rates of other
// flows cannot change, since max-min sharing decomposes over components.
// Results are deterministic: a component is solved in increasing flow and
// resource order whatever the order of the changes.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace isvp {

class MaxMinSolver {
  public:
    static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

    /// One resource a flow uses and how much of it a unit of rate consumes.
    struct Use {
        std::uint32_t resource = 0;
        double weight = 1.0;  ///< > 0
    };

    /// Adds a resource of `capacity` (> 0); returns its index (0, 1, ...).
    std::uint32_t add_resource(double capacity);
    std::uint32_t resources() const { return static_cast<std::uint32_t>(resources_.size()); }
    double capacity(std::uint32_t resource) const { return resources_.at(resource).capacity; }

    /// Adds a flow over `uses` (distinct existing resources, weights > 0)
    /// with an upper bound on its rate (kUnbounded: none; a flow with no
    /// uses needs a bound); returns its id. Throws std::invalid_argument on
    /// a bad use or an unbounded flow without uses. Its rate is 0 until solve().
    std::uint32_t add_flow(const std::vector<Use>& uses, double bound = kUnbounded);
    /// Removes an active flow; its id may be reused.
    void remove_flow(std::uint32_t flow);
    bool active(std::uint32_t flow) const { return flow < flows_.size() && flows_[flow].active; }
    std::size_t active_flows() const { return active_count_; }

    /// Recomputes the rates of every flow connected to a resource that a flow
    /// was added to or removed from since the last call; returns their ids,
    /// increasing (empty if nothing changed).
    const std::vector<std::uint32_t>& solve();
    /// Rate of an active flow as of the last solve().
    double rate(std::uint32_t flow) const { return flows_.at(flow).rate; }
    /// Sum of weight x rate over the active flows of a resource (its load).
    double load(std::uint32_t resource) const;
    /// Calls of solve() that had something to recompute.
    std::uint64_t solves() const { return solves_; }

  private:
    struct Resource {
        double capacity = 0;               ///< C
        std::vector<std::uint32_t> flows;  ///< active flows using it
        double remaining = 0;              ///< capacity not yet given out (during solve)
        double usage = 0;                  ///< sum of weights of unfixed flows (during solve)
        std::uint64_t mark = 0;            ///< visit stamp of the component search
        std::uint32_t unfixed = 0;         ///< flows not yet fixed (during solve)
        double share = 0;                  ///< remaining / usage, its key in solve's heap
        std::uint32_t slot = kNotHeld;     ///< its index in solve's heap (kNotHeld: none)
        bool dirty = false;                ///< a flow was added or removed here
    };
    static constexpr std::uint32_t kNotHeld = ~std::uint32_t{0};
    struct Flow {
        std::vector<Use> uses;  ///< resources and weights
        double bound = kUnbounded;
        double rate = 0;         ///< last solution
        bool active = false;     ///< in use (ids of removed flows are reused)
        bool fixed = false;      ///< rate settled (during solve)
        std::uint64_t mark = 0;  ///< visit stamp of the component search
    };

    void mark_dirty(std::uint32_t resource);
    // solve()'s heap: the component's resources with unfixed flows, a 4-ary
    // min-heap by (share, index), one node per resource moved in place when
    // its share changes. (A heap of an entry per change, stale ones skipped
    // when popped, grew to as many entries as the component has uses.)
    bool smaller(std::uint32_t a, std::uint32_t b) const {
        const double x = resources_[a].share, y = resources_[b].share;
        return x != y ? x < y : a < b;
    }
    void heap_insert(std::uint32_t resource);
    void heap_remove(std::uint32_t resource);
    void heap_update(std::uint32_t resource);  ///< its share changed
    void sift_up(std::uint32_t slot);
    void sift_down(std::uint32_t slot);
    void place(std::uint32_t slot, std::uint32_t resource) {
        heap_[slot] = resource;
        resources_[resource].slot = slot;
    }

    std::vector<Resource> resources_;                 ///< by index
    std::vector<Flow> flows_;                         ///< by id
    std::vector<std::uint32_t> free_ids_;             ///< ids of removed flows, reused last-in first-out
    std::vector<std::uint32_t> dirty_;                ///< resources marked since the last solve
    std::size_t active_count_ = 0;                    ///< active flows
    std::uint64_t stamp_ = 0;                         ///< current visit stamp
    std::uint64_t solves_ = 0;                        ///< solve() calls that recomputed something
    std::vector<std::uint32_t> component_flows_;      ///< flows recomputed by the last solve
    std::vector<std::uint32_t> component_resources_;  ///< their resources (scratch)
    std::vector<std::uint32_t> heap_;                 ///< scratch of solve(): resources by share, smallest first
    std::vector<std::uint32_t> bounded_;              ///< scratch of solve(): bounded flows by bound
    std::vector<std::uint32_t> scratch_;              ///< scratch of solve(): flows fixed together
};

}  // namespace isvp
