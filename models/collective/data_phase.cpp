#include "isvp/data_phase.h"

namespace isvp {

void DataPhase::build(const Schedule& schedule, const BlockSpan& contribution_blocks, const BlockSpan& result_blocks,
                      const std::function<StepLinks(std::size_t, const Step&)>& links) {
    data = true;
    buffer.reset(carry_payload ? layout.total() : 0, buffer_account);
    steps.clear();
    steps.reserve(schedule.steps.size());
    for (const Step& s : schedule.steps) {
        const StepLinks link = links(steps.size(), s);
        StepRun r;
        r.apply = s.apply;
        if (s.send) {
            r.send_peer = s.send->peer;
            r.send_node = link.send_node;
            r.send = StreamMap(s.send->spans, layout);
            r.send_chunks = chunks_of(r.send.bytes());
            r.credits = link.credits;
        }
        if (s.receive) {
            r.recv_peer = s.receive->peer;
            r.recv = StreamMap(s.receive->spans, layout);
            r.recv_chunks = chunks_of(r.recv.bytes());
            r.channel = link.channel;
        }
        for (std::size_t j = steps.size(); j-- > 0;) {  // one channel carries its steps in schedule order
            if (r.send_after < 0 && r.send_peer >= 0 && steps[j].send_peer == r.send_peer)
                r.send_after = static_cast<std::ptrdiff_t>(j);
            if (r.recv_after < 0 && r.recv_peer >= 0 && steps[j].recv_peer == r.recv_peer)
                r.recv_after = static_cast<std::ptrdiff_t>(j);
        }
        steps.push_back(std::move(r));
    }
    // One run of blocks each: one buffer range (no span list to allocate).
    contribution = StreamMap(layout.offset(contribution_blocks.first), layout.bytes(contribution_blocks));
    result = StreamMap(layout.offset(result_blocks.first), layout.bytes(result_blocks));
    result_chunks = chunks_of(result.bytes());
    if (carry_payload && release_pages) {  // every read the data phase will make of the buffer
        for (const StepRun& r : steps) {
            if (r.send_peer >= 0) buffer.expect_reads(r.send, chunk_bytes);
            if (r.recv_peer >= 0 && r.apply != Apply::Copy) buffer.expect_reads(r.recv, chunk_bytes);
        }
        buffer.expect_reads(result, chunk_bytes);
    }
}

void DataPhase::take_contribution(std::uint64_t offset, const std::uint8_t* data_in, std::uint64_t bytes) {
    if (!data || offset + bytes <= header_bytes) return;
    const std::uint64_t skip = offset < header_bytes ? header_bytes - offset : 0;
    const std::uint64_t from = offset + skip - header_bytes;
    const std::uint64_t to = std::min(contribution.bytes(), from + bytes - skip);
    if (from >= to) return;
    if (carry_payload) buffer.scatter(contribution, data_in + skip, from, to);
    contributed = to;
}

DataPhase::Wait DataPhase::pending_write(std::size_t before, std::uint64_t lo, std::uint64_t hi, bool sends) const {
    const std::uint64_t c = chunk_bytes;
    if (const std::uint64_t end = contribution.pending_end(contributed, lo, hi))
        return Wait{Wait::Contribution, 0, end};
    for (std::size_t j = first_open; j < before; ++j) {
        const StepRun& r = steps[j];
        if (r.recv_peer >= 0)
            if (const std::uint64_t end = r.recv.pending_end(chunk_begin(r.applied), lo, hi))
                return Wait{Wait::Applied, j, (end + c - 1) / c};
        if (sends && r.send_peer >= 0)
            if (const std::uint64_t end = r.send.pending_end(chunk_begin(r.sent), lo, hi))
                return Wait{Wait::Sent, j, (end + c - 1) / c};
    }
    return Wait{};
}

namespace {
/// Whether every step before `k` is done, both ways (zero-byte transfers
/// keep the schedule's order: a Barrier's steps must not overtake).
template <typename Steps>
bool all_done_before(const Steps& steps, std::size_t first, std::size_t k, bool sends) {
    for (std::size_t j = first; j < k; ++j)
        if (!steps[j].recv_done() || (sends && !steps[j].send_done())) return false;
    return true;
}
}  // namespace

bool DataPhase::send_ready(std::size_t k) {
    StepRun& s = steps[k];
    if (s.send_after >= 0 && !steps[static_cast<std::size_t>(s.send_after)].send_done()) return false;
    if (s.send.bytes() == 0) return contributed == contribution.bytes() && all_done_before(steps, first_open, k, false);
    Wait wait;
    s.send.for_each(chunk_begin(s.sent), chunk_end(s.sent, s.send.bytes()),
                    [&](std::uint64_t at, std::uint64_t n, std::uint64_t) {
                        if (wait.kind == Wait::None) wait = pending_write(k, at, at + n, false);
                    });
    s.send_wait = wait;
    return wait.kind == Wait::None;
}

bool DataPhase::take_ready(std::size_t k) {
    StepRun& s = steps[k];
    if (compare_sequence(s.channel->front().sequence, sequence) != 0) return false;
    if (s.recv_after >= 0) {  // earlier steps from the same peer come first
        const StepRun& before = steps[static_cast<std::size_t>(s.recv_after)];
        if (before.issued < before.recv_chunks) return false;
    }
    if (s.recv.bytes() == 0) return contributed == contribution.bytes() && all_done_before(steps, first_open, k, false);
    Wait wait;
    s.recv.for_each(chunk_begin(s.issued), chunk_end(s.issued, s.recv.bytes()),
                    [&](std::uint64_t at, std::uint64_t n, std::uint64_t) {
                        if (wait.kind != Wait::None) return;
                        // Earlier writes final, earlier and this step's reads of these bytes sent.
                        wait = pending_write(k, at, at + n, true);
                        if (wait.kind == Wait::None && s.send_peer >= 0)
                            if (const std::uint64_t end = s.send.pending_end(chunk_begin(s.sent), at, at + n))
                                wait = Wait{Wait::Sent, k, (end + chunk_bytes - 1) / chunk_bytes};
                    });
    s.take_wait = wait;
    return wait.kind == Wait::None;
}

bool DataPhase::can_return() {
    if (results_final == result_chunks || !satisfied(return_wait)) return false;
    if (result.bytes() == 0)
        return contributed == contribution.bytes() && all_done_before(steps, first_open, steps.size(), true);
    Wait wait;
    result.for_each(chunk_begin(results_final), chunk_end(results_final, result.bytes()),
                    [&](std::uint64_t at, std::uint64_t n, std::uint64_t) {
                        if (wait.kind == Wait::None) wait = pending_write(steps.size(), at, at + n, false);
                    });
    return_wait = wait;
    return wait.kind == Wait::None;
}

}  // namespace isvp
