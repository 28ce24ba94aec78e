// PartitionWindow: what the main loop of one simulator process sees of a
// distributed simulation, in which several processes each simulate a
// partition of the platform (docs/PARTITIONS.md). No SystemC, no MPI: the
// platform implements it (platform/partition_sync.*).
//
// Conservative, windowed synchronisation: SystemC may run every event
// before bound_ps(). Then every partition calls synchronise() (a collective
// call: it returns when all have called it): the traffic that crossed the
// cut is exchanged and delivered, and the partitions agree on the next
// window — from the earliest activity of any partition, so idle simulated
// time is skipped — and on whether the job goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace isvp::transport {

class PartitionWindow {
  public:
    /// No activity: a partition with nothing scheduled.
    static constexpr std::uint64_t kIdle = ~std::uint64_t{0};

    /// What this partition reports when it synchronises.
    struct Report {
        std::uint64_t next_ps = kIdle;  ///< earliest local activity at or after bound_ps(), after delivery
        bool live = false;              ///< some rank of this partition is still live
        std::string abort;              ///< non-empty: this partition ends the job, and why
    };
    /// What all partitions agreed.
    struct Agreement {
        bool live = false;              ///< some partition still has a live rank
        std::uint64_t next_ps = kIdle;  ///< earliest activity of any partition (kIdle: none)
        std::string abort;              ///< why the job ends, if some partition ended it ("" if not)
    };

    virtual ~PartitionWindow() = default;

    /// Which partition this process simulates, and how many there are.
    virtual unsigned partition() const = 0;
    virtual unsigned partitions() const = 0;
    /// Exclusive end of the current window, ps.
    virtual std::uint64_t bound_ps() const = 0;
    /// Collective: call with SystemC at bound_ps() - 1 ps and every event up
    /// to that time done. Exchanges and delivers cut traffic; `report`
    /// computes this partition's figures after delivery. Opens the next
    /// window (bound_ps() moves on) unless the job ends.
    virtual Agreement synchronise(const std::function<Report()>& report) = 0;
    /// This partition cannot go on (its platform failed): ends every
    /// partition's process at once with `why`, the partition named, rather
    /// than leave the others waiting for it.
    [[noreturn]] virtual void fail(const std::string& why) = 0;
};

}  // namespace isvp::transport
