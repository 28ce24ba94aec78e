#include "isvp/packet_endpoints.h"

#include <algorithm>
#include <cstring>

#include "isvp/packet_format.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {

constexpr const char* kReportType = "isvp/packet_endpoints";
constexpr std::uint64_t kSequenceBits = 40;

/// Word `index` of packet `trace_id`'s payload: distinct per packet and
/// position, so a misdelivered, reordered or corrupted word shows.
std::uint64_t pattern_word(std::uint64_t trace_id, std::uint64_t index) {
    return ((trace_id << 20) ^ index) * 0x9E3779B97F4A7C15ull;
}

}  // namespace

// ---------------------------------------------------------------- source

void PacketSource::fill_payload(std::uint64_t trace_id, std::uint8_t* payload, std::uint32_t bytes) {
    std::uint32_t at = 0;
    for (; at + 8 <= bytes; at += 8) {
        const std::uint64_t word = pattern_word(trace_id, at / 8);
        std::memcpy(payload + at, &word, 8);  // host byte order: the pattern is local to one process
    }
    if (at < bytes) {
        const std::uint64_t word = pattern_word(trace_id, at / 8);
        std::memcpy(payload + at, &word, bytes - at);
    }
}

std::int64_t PacketSource::payload_mismatch(std::uint64_t trace_id, const std::uint8_t* payload, std::uint32_t bytes) {
    for (std::uint32_t at = 0; at < bytes; at += 8) {
        const std::uint64_t expected = pattern_word(trace_id, at / 8);
        const std::uint32_t length = std::min<std::uint32_t>(8, bytes - at);
        std::uint64_t word = expected;  // a short last word compares its own bytes only
        std::memcpy(&word, payload + at, length);
        if (word == expected) continue;
        const auto* want = reinterpret_cast<const std::uint8_t*>(&expected);
        for (std::uint32_t i = 0; i < length; ++i)
            if (payload[at + i] != want[i]) return at + i;
    }
    return -1;
}

PacketSource::PacketSource(sc_core::sc_module_name name, std::uint32_t node, unsigned vcs, double clock_mhz,
                           unsigned phits_per_cycle)
    : sc_core::sc_module(name),
      out("out"),
      credit_in("credit_in"),
      node_(node),
      vcs_(vcs),
      cycle_(1000.0 / clock_mhz, sc_core::SC_NS),
      phits_per_cycle_(phits_per_cycle),
      credits_(vcs, 0),
      pending_(vcs) {
    credit_in.register_b_transport(this, &PacketSource::on_credit);
    SC_HAS_PROCESS(PacketSource);
    SC_METHOD(step);
    sensitive << wake_;
}

void PacketSource::use_scheduler(WakeupScheduler& scheduler) {
    scheduler_ = &scheduler;
    client_ = scheduler.attach(*this);
}

void PacketSource::wake_at(std::uint64_t tick, std::uint64_t now) {
    if (scheduler_ != nullptr)
        scheduler_->request(client_, tick);
    else
        wake_.notify(sim_time(tick - now));
}

std::int64_t PacketSource::credits(unsigned vc) const {
    return credits_.at(vc) + static_cast<std::int64_t>(pending_.at(vc).total());
}

void PacketSource::on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr || credit->vc >= vcs_) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": malformed credit return").c_str());
        return;
    }
    const std::uint64_t now = sim_now().value();
    pending_[credit->vc].push(now + delay.value(), credit->phits);
    if (waiting_for_credits_) {
        waiting_for_credits_ = false;
        wake_at(now + delay.value(), now);
    }
}

bool PacketSource::next_request() {
    if (!queue_.empty()) return true;
    PacketRequest request;
    if (generator_ && generator_(request)) {
        queue_.push_back(request);
        return true;
    }
    return false;
}

void PacketSource::step() {
    const sc_core::sc_time now = sim_now();
    for (unsigned vc = 0; vc < vcs_; ++vc)
        credits_[vc] += static_cast<std::int64_t>(pending_[vc].pop_due(now.value()));
    while (next_request()) {
        const PacketRequest& request = queue_.front();
        if (request.vc >= vcs_) {
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": request on VC " + std::to_string(request.vc) +
                                          " of " + std::to_string(vcs_))
                                             .c_str());
            queue_.pop_front();
            continue;
        }
        if (request.time > now) {
            wake_at(request.time.value(), now.value());
            return;
        }
        if (free_at_ > now) {
            wake_at(free_at_.value(), now.value());
            return;
        }
        const std::uint32_t phits =
            phits_of(static_cast<std::uint32_t>(kNetworkPacketOverhead) + request.payload_bytes);
        if (credits_[request.vc] < phits) {
            const CreditQueue& pending = pending_[request.vc];
            if (!pending.empty())
                wake_at(pending.next_time(), now.value());
            else
                waiting_for_credits_ = true;
            return;
        }
        const PacketRequest copy = request;
        queue_.pop_front();
        send(copy);
    }
}

void PacketSource::send(const PacketRequest& request) {
    const sc_core::sc_time now = sim_now();
    const std::uint32_t bytes = static_cast<std::uint32_t>(kNetworkPacketOverhead) + request.payload_bytes;
    const std::uint32_t phits = phits_of(bytes);
    const std::uint64_t trace_id = (std::uint64_t{node_} << kSequenceBits) | sequence_++;
    tlm::tlm_generic_payload* payload = pool_.allocate(bytes);
    std::uint8_t* data = payload->get_data_ptr();

    NetworkHeader network;
    network.size_code = size_code_for(std::max<std::uint32_t>(request.payload_bytes, 1)).value_or(15);
    network.opcode = Opcode::Send;
    network.destination = static_cast<std::uint16_t>(request.destination);
    network.last = true;
    ProcessorHeader processor;
    processor.message_bytes = request.payload_bytes;
    processor.opcode = Opcode::Send;
    processor.rank = static_cast<std::uint16_t>(node_);
    write_network_packet(network, processor, 0, nullptr, 0, data);
    fill_payload(trace_id, data + kNetworkPacketOverhead, request.payload_bytes);
    if (request.malformed) data[NetworkHeader::kBytes - 1] = 0xFF;  // reserved header bits [47:40]
    // A destination beyond 16 bits cannot be encoded; the caller tests drops
    // with addresses that fit the field but not the network.

    const sc_core::sc_time transfer = cycle_ * static_cast<double>((phits + phits_per_cycle_ - 1) / phits_per_cycle_);
    PacketInfo& info = packet_info(*payload);
    info.vc = request.vc;
    info.trace_id = trace_id;
    info.injected = now;
    info.tail_after = transfer;
    info.hops = 0;
    credits_[request.vc] -= phits;
    free_at_ = now + transfer;
    ++sent_;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    out->b_transport(*payload, delay);
    if (payload->get_response_status() != tlm::TLM_OK_RESPONSE)
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": packet " + std::to_string(trace_id) + " refused").c_str());
    payload->release();
}

// ---------------------------------------------------------------- sink

PacketSink::PacketSink(sc_core::sc_module_name name, std::uint32_t node, unsigned vcs, std::uint32_t buffer_phits,
                       double drain_gbps)
    : sc_core::sc_module(name),
      in("in"),
      credit_out("credit_out"),
      node_(node),
      vcs_(vcs),
      buffer_phits_(buffer_phits),
      drain_gbps_(drain_gbps),
      occupancy_(vcs, 0),
      releases_(vcs) {
    in.register_b_transport(this, &PacketSink::on_packet);
    SC_HAS_PROCESS(PacketSink);
    SC_METHOD(grant_initial_credits);
}

void PacketSink::grant_initial_credits() {
    for (unsigned vc = 0; vc < vcs_; ++vc)
        credit_message_.send(credit_out, static_cast<std::uint8_t>(vc), buffer_phits_, sc_core::SC_ZERO_TIME);
}

void PacketSink::fail(const std::string& what) {
    if (errors_++ == 0) first_error_ = std::string(name()) + ": " + what;
}

void PacketSink::on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const sc_core::sc_time now = sim_now();
    const PacketInfo& info = packet_info(payload);
    const std::uint32_t length = payload.get_data_length();
    const std::uint32_t phits = phits_of(length);
    const sc_core::sc_time head = now + delay;
    const sc_core::sc_time tail = head + info.tail_after;
    const unsigned vc = info.vc < vcs_ ? info.vc : 0;
    if (info.vc >= vcs_) fail("packet " + std::to_string(info.trace_id) + " on VC " + std::to_string(info.vc));

    // Buffer occupancy when the head arrives: a credit-respecting sender
    // never exceeds the buffer.
    TimedAgenda<std::uint32_t>& releases = releases_[vc];
    while (!releases.empty() && releases.next_time() <= head.value()) occupancy_[vc] -= releases.pop();
    occupancy_[vc] += phits;
    if (occupancy_[vc] > buffer_phits_) ++overruns_;
    peak_occupancy_ = std::max(peak_occupancy_, occupancy_[vc]);

    std::string error;
    const auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &error);
    if (!view) {
        fail("packet " + std::to_string(info.trace_id) + " does not parse: " + error);
    } else if (view->network.destination != node_) {
        fail("packet " + std::to_string(info.trace_id) + " for node " + std::to_string(view->network.destination) +
             " delivered to node " + std::to_string(node_));
    } else {
        const std::int64_t wrong = PacketSource::payload_mismatch(info.trace_id, view->payload, view->payload_bytes);
        if (wrong >= 0)
            fail("packet " + std::to_string(info.trace_id) + " has a wrong payload byte at " + std::to_string(wrong));
    }

    ++packets_;
    bytes_ += length;
    hops_ += info.hops;
    const sc_core::sc_time latency = tail - info.injected;
    latency_sum_ += latency;
    latency_max_ = std::max(latency_max_, latency);
    last_tail_ = std::max(last_tail_, tail);
    if (keep_arrivals_)
        arrivals_.push_back(PacketArrival{info.trace_id, view ? view->processor.rank : 0u, length, info.hops, info.vc,
                                          info.injected, head, tail});

    sc_core::sc_time drained = tail;
    if (drain_gbps_ > 0.0) {
        drained = std::max(tail, drained_at_) + sc_core::sc_time(length * 8.0 / drain_gbps_, sc_core::SC_NS);
        drained_at_ = drained;
    }
    releases.push(drained.value(), phits);
    credit_message_.send(credit_out, static_cast<std::uint8_t>(vc), phits, drained - now);
}

}  // namespace isvp
