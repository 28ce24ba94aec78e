#include "isvp/argument_agreement.h"

namespace isvp {

bool ArgumentAgreement::exchange(std::uint16_t sequence, std::uint32_t& mask, Driver& driver) {
    bool moved = false;
    while (!agreed) {
        if (agree_step == agree_steps().size()) {
            agreed = true;
            driver.agreed();
            return true;
        }
        const Step& s = agree_steps()[agree_step];
        if (s.send && !agree_sent) {
            driver.send_record(s.send->peer);
            agree_sent = true;
            moved = true;
        }
        if (s.receive) {
            std::deque<CollectiveArguments>& q = driver.records_from(s.receive->peer);
            // Records of an aborted collective that ended here before it took them.
            while (!q.empty() &&
                   compare_sequence(static_cast<std::uint16_t>(q.front().sequence & kStepSequenceMask), sequence) < 0) {
                q.pop_front();
                driver.stale_record();
            }
            if (q.empty()) return moved;
            mask |= q.front().errors | mismatch_fields(mine, q.front());
            q.pop_front();
        }
        ++agree_step;
        agree_sent = false;
        moved = true;
    }
    return moved;
}

}  // namespace isvp
