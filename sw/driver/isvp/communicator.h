// Communicators on the guest side: which global ranks take part, in which
// comm-rank order, and under which context ID the switch knows them.
//
// The pure functions here (ct_row, split_order) are what the collectives
// layer uses to create communicators and to describe them to the switch's
// communicator table (CT, register_map.h); they are unit-tested on their own.
//
// Plain C++17, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isvp/register_map.h"

namespace isvp::guest {

/// Identifies a communicator's messages and, below 32, its CT row. IDs
/// 0..31 are the switch's context IDs; 32..kCommunicatorIds-1 are
/// software-only (no context ID was free on every member).
inline constexpr unsigned kCommunicatorIds = 256;
inline constexpr unsigned kContextIds = regmap::kContextCount;

struct Communicator {
    unsigned id = 0;             ///< agreed by all members; < kContextIds: the context ID
    int rank = 0;                ///< own comm rank
    std::vector<int> members;    ///< global ranks, in comm-rank order
    bool offloadable = false;    ///< has a CT row in the switch (accelerator present, context ID free)
    std::uint32_t sequence = 0;  ///< collectives issued on it so far (the same on every member)
    /// Freed by Collectives::retire while requests may still use it: members
    /// kept (they map comm ranks), the ID held, no new collective accepted.
    bool retired = false;
    /// The reserved tags of the exchanges that created it (on its parent and
    /// on itself). A member whose part of the creation failed sends an abort
    /// notice on one of them; Collectives::check_creation finds it here.
    std::vector<std::uint32_t> creation_tags;
    /// Non-empty once such a notice was found: why every later collective
    /// on it fails (the other members never got it: ULFM's revoked state).
    std::string revoked;

    int size() const { return static_cast<int>(members.size()); }
    /// The context ID, or -1 for a software-only communicator.
    int context_id() const { return id < kContextIds ? static_cast<int>(id) : -1; }
    int global_rank(int comm_rank) const { return members.at(static_cast<std::size_t>(comm_rank)); }
};

/// One CT row for comm rank `comm_rank` of a communicator whose members
/// (global ranks, comm-rank order) are `members`: entry k names the global
/// rank of comm rank (comm_rank XOR 2^k) with tag 1 (higher), 2 (lower) or
/// 0 (absent, beyond the size); valid bit and padding zero. Throws
/// DriverError for an empty or too large communicator, a comm rank outside
/// it or a global rank that does not fit 16 bits.
std::array<std::uint32_t, regmap::kCtStagingDwords> ct_row(const std::vector<int>& members, int comm_rank);

/// A member's arguments to split: colour (negative: MPI_UNDEFINED) and key.
struct SplitRequest {
    int colour = 0;
    int key = 0;
};

/// The new communicator of parent comm rank `parent_rank` given every
/// parent member's request (index = parent comm rank): the parent comm
/// ranks with the same colour, ordered by key, ties by parent rank. Empty
/// when the colour is negative.
std::vector<int> split_order(const std::vector<SplitRequest>& requests, int parent_rank);

}  // namespace isvp::guest
