// Conservative synchronisation bookkeeping: which request runs next.
#include "isvp/sync_core.h"

#include "isvp/heap_moves.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace isvp::transport {

namespace {

std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

bool needs_platform(const SyncCore::Entry& entry) {
    return !entry.leaving && entry.message.type != MessageType::Finish;
}

}  // namespace

std::string describe_request(const Message& request) {
    const std::string at = " at " + format_time_ps(request.time_ps);
    switch (request.type) {
        case MessageType::MmioRead:
            return "MmioRead of BAR0 " + hex(request.arg0) + at;
        case MessageType::MmioWrite:
            return "MmioWrite of " + hex(request.arg1) + " to BAR0 " + hex(request.arg0) + at;
        case MessageType::WaitInterrupt:
            return "WaitInterrupt for MSI-X vectors " + describe_vectors(request.arg0) + at;
        default:
            return to_string(request.type) + at;
    }
}

std::string list_ranks(const std::vector<int>& ranks) {
    constexpr std::size_t kListed = 8;
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size() && i < kListed; ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
    if (ranks.size() > kListed) text += " and " + std::to_string(ranks.size() - kListed) + " more";
    return text;
}

std::string list_rank_ranges(std::vector<int> ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    std::size_t runs = 0;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t last = i;
        while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
        if (runs == kRankRunsListed) {
            text += " and " + std::to_string(ranks.size() - i) + " more ranks";
            break;
        }
        text += (runs == 0 ? "" : ", ") + std::to_string(ranks[i]);
        if (last > i) text += "-" + std::to_string(ranks[last]);
        ++runs;
        i = last + 1;
    }
    return text;
}

RankHeap::RankHeap(std::size_t ranks) : slot_(ranks, kAbsent) {
    heap_.reserve(ranks);
}

void RankHeap::place(std::size_t at, const std::pair<std::uint64_t, int>& entry) {
    heap_[at] = entry;
    slot_[static_cast<std::size_t>(entry.second)] = at;
}

void RankHeap::sift_up(std::size_t at) {
    heap_moves::sift_up(heap_.data(), at, std::less<>{}, [this](std::size_t index, const Entry& entry) {
        slot_[static_cast<std::size_t>(entry.second)] = index;
    });
}

void RankHeap::sift_down(std::size_t at) {
    heap_moves::sift_down(heap_.data(), heap_.size(), at, std::less<>{}, [this](std::size_t index, const Entry& entry) {
        slot_[static_cast<std::size_t>(entry.second)] = index;
    });
}

void RankHeap::set(int rank, std::uint64_t time) {
    const std::size_t at = slot_[static_cast<std::size_t>(rank)];
    if (at == kAbsent) {
        heap_.emplace_back(time, rank);
        slot_[static_cast<std::size_t>(rank)] = heap_.size() - 1;
        sift_up(heap_.size() - 1);
        return;
    }
    const std::uint64_t was = heap_[at].first;
    heap_[at].first = time;
    if (time < was)
        sift_up(at);
    else
        sift_down(at);
}

void RankHeap::erase(int rank) {
    const std::size_t at = slot_[static_cast<std::size_t>(rank)];
    if (at == kAbsent) return;
    slot_[static_cast<std::size_t>(rank)] = kAbsent;
    const std::pair<std::uint64_t, int> last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;  // it was the last
    place(at, last);
    if (at > 0 && last < heap_[(at - 1) / heap_moves::kArity])
        sift_up(at);
    else
        sift_down(at);
}

SyncCore::SyncCore(int ranks, std::uint32_t bar_bytes)
    : ranks_(static_cast<std::size_t>(std::max(ranks, 0))),
      bar_bytes_(bar_bytes),
      quick_(ranks_.size()),
      fronts_(ranks_.size()) {
    if (ranks < 1) throw std::invalid_argument("SyncCore: a job needs at least one rank");
    index_.resize(ranks_.size());
    for (int rank = 0; rank < ranks; ++rank) reindex(rank);
}

SyncCore::Rank& SyncCore::at(int rank) {
    return ranks_.at(static_cast<std::size_t>(rank));
}

bool SyncCore::live(int rank) const {
    const RankState state = ranks_.at(static_cast<std::size_t>(rank)).state;
    return state == RankState::Running || state == RankState::InSimulator;
}

std::string SyncCore::accept(int rank, const Message& request) {
    Rank& entry = at(rank);
    const std::string what = to_string(request.type);
    if (entry.state == RankState::Finished || entry.state == RankState::Dead || entry.finish_queued)
        return what + " after the rank's Finish";
    if (entry.leaving) return what + " after the rank left";
    if (entry.state == RankState::InSimulator)
        return what + " while its " + describe_request(*entry.outstanding) + " is still outstanding";
    // A rank blocks on a read or a wait until it is answered: nothing may
    // follow one in the queue.
    if (!entry.queue.empty() && (entry.queue.back().message.type == MessageType::MmioRead ||
                                 entry.queue.back().message.type == MessageType::WaitInterrupt))
        return what + " while its " + describe_request(entry.queue.back().message) + " is still outstanding";
    if (entry.queue.size() >= kMaxQueued)
        return what + " beyond " + std::to_string(kMaxQueued) + " posted writes without blocking";
    if (request.time_ps > kMaxTimePs)
        return what + " at " + format_time_ps(request.time_ps) + ", beyond the simulator's range (" +
               format_time_ps(kMaxTimePs) + ")";
    const std::uint64_t last = entry.queue.empty() ? entry.clock_ps : entry.queue.back().message.time_ps;
    if (request.time_ps < last)
        return "time going backwards: " + what + " at " + format_time_ps(request.time_ps) +
               ", but the rank's clock already reached " + format_time_ps(last);
    switch (request.type) {
        case MessageType::MmioWrite:
        case MessageType::MmioRead:
            if (request.arg0 % 4 != 0 || request.arg0 >= bar_bytes_)
                return what + " of offset " + hex(request.arg0) + ": outside BAR0 (" + hex(bar_bytes_) +
                       " bytes) or not 32-bit aligned";
            if (request.type == MessageType::MmioWrite && request.arg1 > 0xFFFFFFFFull)
                return "MmioWrite value " + hex(request.arg1) + " does not fit 32 bits";
            break;
        case MessageType::WaitInterrupt:
            if (request.arg0 == 0 && request.arg1 == 0) return "WaitInterrupt with an empty vector mask";
            if ((request.arg1 & kWaitDeadlineMask) > kMaxTimePs)
                return "WaitInterrupt deadline " + hex(request.arg1 & kWaitDeadlineMask) +
                       " beyond the simulator's range";
            break;
        case MessageType::Finish:
            entry.finish_queued = true;
            break;
        default:
            return "unexpected " + what + " (only one Hello, first)";
    }
    entry.queue.push_back({request, false, {}});
    entry.last = request;
    ++entry.requests;
    reindex(rank);
    return {};
}

void SyncCore::leave(int rank, const std::string& reason) {
    Rank& entry = at(rank);
    if (!live(rank) || entry.leaving) return;
    if (entry.finish_queued) return;  // Finish ends it; the link closing after that is normal
    if (entry.state == RankState::InSimulator) {
        end(rank, reason);
        return;
    }
    entry.leaving = true;
    Entry leaving;
    leaving.message.rank = static_cast<std::uint32_t>(rank);
    leaving.message.time_ps = entry.queue.empty() ? entry.clock_ps : entry.queue.back().message.time_ps;
    leaving.leaving = true;
    leaving.reason = reason;
    entry.queue.push_back(leaving);
    reindex(rank);
}

void SyncCore::end(int rank, const std::string& reason) {
    Rank& entry = at(rank);
    if (!live(rank)) return;
    entry.state = RankState::Dead;
    entry.queue.clear();
    entry.outstanding.reset();
    entry.reason = reason;
    reindex(rank);
}

namespace {

/// Whether a queued entry stops its rank until the scheduler answers: reads
/// and waits do, and so do finish and leaving (nothing follows them).
bool blocks(const SyncCore::Entry& entry) {
    if (entry.leaving) return true;
    return entry.message.type == MessageType::MmioRead || entry.message.type == MessageType::WaitInterrupt ||
           entry.message.type == MessageType::Finish;
}

}  // namespace

void SyncCore::reindex(int rank) {
    const Rank& entry = ranks_[static_cast<std::size_t>(rank)];
    Index& old = index_[static_cast<std::size_t>(rank)];
    Index now;
    now.live = entry.state == RankState::Running || entry.state == RankState::InSimulator;
    if (entry.state == RankState::Running) {
        // A rank whose queue holds only posted writes is still executing
        // and may be reading its host memory: the platform must not change
        // that memory under it, so nothing runs until the rank blocks (a
        // read, a wait, finish, or leaving ends its queue).
        now.idle = entry.queue.empty() || !blocks(entry.queue.back());
        if (!entry.queue.empty()) {
            if (needs_platform(entry.queue.front()))
                now.front = entry.queue.front().message.time_ps;
            else
                now.quick = true;
        }
    }
    live_count_ += int(now.live) - int(old.live);
    idle_count_ += int(now.idle) - int(old.idle);
    if (old.quick != now.quick) {
        if (now.quick)
            quick_.set(rank, 0);
        else
            quick_.erase(rank);
    }
    if (old.front != now.front) {
        if (now.front)
            fronts_.set(rank, *now.front);
        else
            fronts_.erase(rank);
    }
    old = now;
}

SyncCore::Decision SyncCore::next() const {
    Decision decision;
    // Finish and leaving touch no device state: take them at once, lowest rank first.
    if (!quick_.empty()) {
        const int rank = quick_.top().second;
        decision.kind = Decision::Kind::Execute;
        decision.rank = rank;
        decision.time_ps = ranks_[static_cast<std::size_t>(rank)].queue.front().message.time_ps;
        decision.simulated = false;
        return decision;
    }
    if (live_count_ == 0) return decision;
    if (idle_count_ > 0) {
        decision.kind = Decision::Kind::WaitForGuests;
        return decision;
    }
    if (fronts_.empty()) {
        decision.kind = Decision::Kind::RunUntilWake;
        return decision;
    }
    // The earliest queued request; ties go to the lowest rank.
    decision.kind = Decision::Kind::Execute;
    decision.time_ps = fronts_.top().first;
    decision.rank = fronts_.top().second;
    return decision;
}

SyncCore::Entry SyncCore::pop(int rank) {
    Rank& entry = at(rank);
    if (entry.state != RankState::Running || entry.queue.empty())
        throw std::logic_error("SyncCore::pop: rank " + std::to_string(rank) + " has nothing to execute");
    Entry front = std::move(entry.queue.front());
    entry.queue.pop_front();
    if (front.leaving) {
        entry.state = RankState::Dead;
        entry.reason = front.reason;
        entry.queue.clear();
        reindex(rank);
        return front;
    }
    entry.clock_ps = front.message.time_ps;
    switch (front.message.type) {
        case MessageType::MmioRead:
        case MessageType::WaitInterrupt:
            entry.state = RankState::InSimulator;
            entry.outstanding = front.message;
            break;
        case MessageType::Finish:
            entry.state = RankState::Finished;
            entry.finish_ps = front.message.time_ps;
            entry.queue.clear();
            break;
        default:
            break;
    }
    reindex(rank);
    return front;
}

const Message& SyncCore::front(int rank) const {
    const Rank& entry = ranks_.at(static_cast<std::size_t>(rank));
    if (entry.queue.empty())
        throw std::logic_error("SyncCore::front: rank " + std::to_string(rank) + " has nothing queued");
    return entry.queue.front().message;
}

bool SyncCore::complete(int rank, std::uint64_t time_ps) {
    Rank& entry = at(rank);
    if (entry.state != RankState::InSimulator) return false;
    entry.state = RankState::Running;
    entry.outstanding.reset();
    if (time_ps > entry.clock_ps) entry.clock_ps = time_ps;
    reindex(rank);
    return true;
}

std::vector<int> SyncCore::blocked() const {
    std::vector<int> result;
    for (int rank = 0; rank < ranks(); ++rank)
        if (ranks_[static_cast<std::size_t>(rank)].state == RankState::InSimulator) result.push_back(rank);
    return result;
}

std::string SyncCore::describe() const {
    std::ostringstream text;
    for (int rank = 0; rank < ranks(); ++rank) {
        const Rank& entry = ranks_[static_cast<std::size_t>(rank)];
        text << (rank == 0 ? "" : "; ") << "rank " << rank << " ";
        switch (entry.state) {
            case RankState::Running:
                // What it did last is all the transport knows of a rank
                // that computes (or polls) instead of waiting.
                if (!entry.queue.empty() && blocks(entry.queue.back()) && !entry.queue.back().leaving)
                    text << "waits for its " << describe_request(entry.queue.back().message) << " (queued; ";
                else
                    text << "computes outside the platform (clock " << format_time_ps(entry.clock_ps) << "; "
                         << (entry.last ? "last request " + describe_request(*entry.last) + ", " : "");
                text << entry.requests << (entry.requests == 1 ? " request" : " requests") << " so far)";
                break;
            case RankState::InSimulator:
                if (entry.outstanding->type == MessageType::WaitInterrupt)
                    text << "waits for MSI-X vector" << (__builtin_popcountll(entry.outstanding->arg0) > 1 ? "s " : " ")
                         << describe_vectors(entry.outstanding->arg0) << " since "
                         << format_time_ps(entry.outstanding->time_ps);
                else
                    text << "waits for its " << describe_request(*entry.outstanding);
                break;
            case RankState::Finished:
                text << "finished at " << format_time_ps(entry.finish_ps);
                break;
            case RankState::Dead:
                text << "ended (" << entry.reason << ")";
                break;
        }
    }
    return text.str();
}

}  // namespace isvp::transport
