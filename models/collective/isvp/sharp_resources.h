// SHArP-style aggregation resources (collective.mode = sharp;
// docs/COLLECTIVES.md, "SHArP mode"). No SystemC.
//
// In Mellanox SHArP the aggregation nodes (ANs) in the switches are
// fixed-function and small: an AN serves at most 64 aggregation trees and
// has a fixed number of operation buffers. The aggregation manager
// (sharp_am, software on a management host) hands a group — a
// communicator's members — its resources when the group is created: on
// every AN of the group's tree, a tree slot and the buffers of the group's
// outstanding-operation slots (OSTs). Reserving them up front is what keeps
// many jobs sharing switches free of deadlock: an operation never waits at
// an AN for a buffer another operation holds. A group the manager cannot
// serve (an AN out of tree slots or buffers, or faulted) gets no tree and
// runs its collectives without SHArP (the fallback); the group's later
// operations then never touch an AN. Or it first waits, bounded, for the
// resources a freed group gives back (collective.sharp_queue_us): the
// manager's queue, served in the order groups began waiting.
//
// `SharpResources` is the manager's books; `OperationSlots` is one AN's
// per-operation state, allocated when an operation's first packet arrives
// and freed when it completes (within the group's reservation).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isvp/packet_format.h"

namespace isvp {

/// The collectives SHArP's aggregation nodes run: Allreduce, Reduce and
/// Barrier; the others run as without SHArP.
bool sharp_offloads(Opcode collective);

/// Why an AN ended an operation with error 7 (CollectiveError::Sharp).
enum class SharpFailure : std::uint8_t {
    NodeFault = 1,      ///< the AN failed: the group's tree is gone
    MemberTimeout = 2,  ///< no packet of the operation came for collective.sharp_timeout_us
};
/// Error 7's detail word: switch index << 16 | failure.
inline std::uint32_t sharp_error_detail(unsigned switch_index, SharpFailure why) {
    return static_cast<std::uint32_t>(switch_index) << 16 | static_cast<std::uint32_t>(why);
}
/// In a NodeFault notice's detail word: the AN had run no operation of the
/// tree, so the notice names no sequence (every member's running one ends).
inline constexpr std::uint32_t kSharpAnySequence = 0x100;
/// "SHArP: the aggregation node of switch 3 failed".
std::string describe_sharp_error(std::uint32_t detail);

/// Limits of every AN (collective.sharp_* parameters).
struct SharpLimits {
    unsigned max_trees_per_an = 64;  ///< aggregation trees (groups) one AN serves at once
    unsigned osts_per_tree = 1;      ///< outstanding operations a group may have; each needs a buffer per AN
    unsigned buffers_per_an = 64;    ///< operation buffers of one AN
    /// The parameter max_trees_per_an comes from, for messages (the same
    /// books count a switch engine's trees with collective.placement =
    /// switch outside SHArP mode: collective.switch_max_trees).
    const char* trees_parameter = "collective.sharp_max_trees_per_an";
};

/// What the manager knows of one AN.
struct AggregationNodeUsage {
    unsigned trees = 0;                 ///< groups with a vertex here
    unsigned buffers_reserved = 0;      ///< by those groups' OSTs
    bool faulted = false;               ///< failed: no new group gets it
    std::uint64_t groups_admitted = 0;  ///< groups given a tree slot here
    std::uint64_t groups_refused = 0;   ///< groups that fell back because of this AN
};

/// The manager's answer to a group.
struct SharpAdmission {
    enum class Outcome : std::uint8_t { Granted, NoTreeSlot, NoBuffers, FaultedNode };
    Outcome outcome = Outcome::Granted;
    unsigned node = 0;  ///< the AN that refused (not Granted)
    bool granted() const { return outcome == Outcome::Granted; }
    /// "AN 9 serves 64 trees (sharp_max_trees_per_an)": why a group fell back.
    std::string describe(const SharpLimits& limits) const;
};

class SharpResources {
  public:
    /// `nodes` ANs (one per switch), numbered 0..nodes-1.
    SharpResources(unsigned nodes, SharpLimits limits);

    /// Reserves, all or nothing, a tree slot and osts_per_tree buffers on
    /// every AN in `nodes` (the group's vertices) for `group`. A group that
    /// holds resources already gives them back first (a new communicator
    /// under the same key). Refused: nothing is reserved and the AN that
    /// refused (the lowest index) is named and counted.
    SharpAdmission admit(std::uint64_t group, const std::vector<unsigned>& nodes);
    /// Gives a group's reservations back (nothing if it holds none).
    void release(std::uint64_t group);
    /// The AN failed: no later group is admitted on it; the groups using it
    /// keep their books until released (their trees report the fault).
    void fault(unsigned node);

    // The queue of groups admit() refused, waiting for released resources.
    /// `group` (refused on `nodes`) waits until `deadline` (the caller's
    /// time unit); waiting again replaces its entry.
    void wait(std::uint64_t group, const std::vector<unsigned>& nodes, std::uint64_t deadline);
    /// Admits every waiting group that fits now, in the order they began
    /// waiting (first fit: one that does not fit does not hold up a later
    /// one); returns them in that order. Call after release().
    std::vector<std::uint64_t> admit_waiting();
    /// Removes and returns the waiting groups whose deadline is at or
    /// before `now` (they fall back), in the order they began waiting.
    std::vector<std::uint64_t> expire(std::uint64_t now);
    /// `group` stops waiting (nothing if it does not wait).
    void stop_waiting(std::uint64_t group);
    bool waiting(std::uint64_t group) const;
    /// The earliest deadline of a waiting group; none when nobody waits.
    std::optional<std::uint64_t> next_deadline() const;
    std::uint64_t queued() const { return queued_; }  ///< groups that began waiting, ever

    bool holds(std::uint64_t group) const { return groups_.count(group) != 0; }
    const AggregationNodeUsage& usage(unsigned node) const { return usage_.at(node); }
    const SharpLimits& limits() const { return limits_; }
    std::uint64_t admitted() const { return admitted_; }  ///< groups given a tree
    std::uint64_t refused() const { return refused_; }    ///< groups that fell back

  private:
    /// The AN that refuses `nodes` (sorted, distinct) and why; Granted when all fit.
    SharpAdmission check(const std::vector<unsigned>& nodes) const;
    void reserve(std::uint64_t group, std::vector<unsigned> nodes);
    struct Waiting {
        std::uint64_t group = 0;
        std::vector<unsigned> nodes;  ///< sorted, distinct
        std::uint64_t deadline = 0;
    };

    SharpLimits limits_;
    std::vector<AggregationNodeUsage> usage_;                ///< per AN
    std::map<std::uint64_t, std::vector<unsigned>> groups_;  ///< group -> its ANs
    std::deque<Waiting> waiting_;                            ///< in the order they began waiting
    std::uint64_t admitted_ = 0, refused_ = 0, queued_ = 0;
};

/// One AN's operation state: a buffer per running operation, taken when
/// its first packet arrives and given back when it completes or fails.
class OperationSlots {
  public:
    explicit OperationSlots(unsigned buffers) : buffers_(buffers) {}
    /// False when every buffer is in use (the manager's reservations make
    /// that impossible; the caller refuses the operation's packets).
    bool begin(std::uint32_t tree);
    /// Frees the tree's buffer; nothing if it holds none.
    void end(std::uint32_t tree);
    bool running(std::uint32_t tree) const { return running_.count(tree) != 0; }
    unsigned in_use() const { return static_cast<unsigned>(running_.size()); }
    unsigned peak() const { return peak_; }
    std::uint64_t operations() const { return operations_; }  ///< begun, ever
    std::uint64_t refused() const { return refused_; }        ///< begin() found no buffer

  private:
    unsigned buffers_;
    std::map<std::uint32_t, bool> running_;  ///< trees with an operation here
    unsigned peak_ = 0;
    std::uint64_t operations_ = 0, refused_ = 0;
};

}  // namespace isvp
