// ArgumentAgreement: one member's side of a collective's argument agreement
// (docs/COLLECTIVES.md, "Mismatched arguments"), SystemC-free. The members
// run a hypercube allreduce of their CollectiveArguments records, in
// parallel with the data: at each step a member sends its record (with the
// mismatch bits seen so far) to one peer and takes the peer's, ORing the
// peer's bits and the fields that differ from its own into the collective's
// mask. Records of older collectives (ended here with an error or an abort
// before taking them) are skipped. When every step is done the members
// agree: a non-zero mask ends the collective with an error on every member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "isvp/collective_core.h"

namespace isvp {

class ArgumentAgreement {
  public:
    /// The owner's side of exchange().
    class Driver {
      public:
        virtual ~Driver() = default;
        /// Send this member's record (with the mask so far) to comm rank `peer`.
        virtual void send_record(int peer) = 0;
        /// The records received from comm rank `peer` on this context, in arrival order.
        virtual std::deque<CollectiveArguments>& records_from(int peer) = 0;
        /// A record of an older collective was skipped.
        virtual void stale_record() = 0;
        /// Every step is done: the members agree on the mask.
        virtual void agreed() = 0;
    };

    std::shared_ptr<const Schedule> agree;  ///< the hypercube allreduce's steps for this member (null: none)
    std::size_t agree_step = 0;             ///< steps done
    bool agree_sent = false;                ///< agree_step's record has gone
    bool agreed = false;                    ///< every step done
    CollectiveArguments mine;               ///< this member's record (errors: its local error bits)

    /// The agreement's steps (none before begin()).
    const std::vector<Step>& agree_steps() const {
        static const std::vector<Step> none;
        return agree ? agree->steps : none;
    }
    /// Sets up the steps of comm rank `rank` of `size` (from `cache` when given).
    void begin(int size, int rank, ScheduleCache* cache = nullptr) {
        agree = cache ? cache->get(Opcode::Allreduce, Algorithm::RecursiveDoubling, size, rank, 0, Fold::Hypercube)
                      : std::make_shared<const Schedule>(make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling,
                                                                       size, rank, 0, Fold::Hypercube));
    }
    /// Runs the exchange as far as the received records allow for the
    /// collective of 15-bit `sequence`, ORing peers' bits into `mask`;
    /// true if anything moved.
    bool exchange(std::uint16_t sequence, std::uint32_t& mask, Driver& driver);
};

}  // namespace isvp
