// Qdma C2H: packets the network interface delivers into C2H buffers,
// completion entries, coalesced interrupts, and the packets released back to
// the interface (their credits return to the network).
#include <algorithm>

#include "isvp/qdma.h"
#include "isvp/qdma_formats.h"
#include "isvp/sim_now.h"

namespace isvp {

using regmap::QueueError;

namespace {
constexpr const char* kReportType = "isvp/qdma";
}

void Qdma::on_malformed(const std::string& why) {
    ++statistics_.rx_dropped;
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped a malformed network packet: " + why +
                                    "; ERROR_STATUS.PACKET_DROPPED set")
                                       .c_str());
    global_error(regmap::error_status::PACKET_DROPPED, std::nullopt);
}

void Qdma::on_receive(const IncomingPacket& packet) {
    const unsigned q = context_queue_[packet.context_id];
    C2hState& c2h = queue_at(q).c2h;
    c2h.pending.push_back(packet);
    if (!c2h.blocked && !c2h.scheduled) {
        c2h.scheduled = true;
        c2h_ready_.push_back(q);
        c2h_event_.notify(sc_core::SC_ZERO_TIME);
    }
}

void Qdma::c2h_wake(unsigned q) {
    C2hState& c2h = queue_at(q).c2h;
    c2h.blocked = false;
    if (c2h.scheduled || c2h.pending.empty()) return;
    c2h.scheduled = true;
    c2h_ready_.push_back(q);
    c2h_event_.notify(sc_core::SC_ZERO_TIME);
}

void Qdma::c2h_thread() {
    for (;;) {
        if (c2h_ready_.empty()) {
            sc_core::wait(c2h_event_);
            continue;
        }
        const unsigned q = c2h_ready_.front();
        c2h_ready_.pop_front();
        const bool delivered = c2h_deliver(q);
        C2hState& c2h = queue_at(q).c2h;
        if (delivered && !c2h.pending.empty()) {
            c2h_ready_.push_back(q);  // round-robin: one packet per turn
            continue;
        }
        c2h.scheduled = false;
        if (!delivered) {
            c2h.blocked = true;
            ++statistics_.c2h_stalls;
        }
    }
}

bool Qdma::c2h_deliver(unsigned q) {
    Queue& queue = queue_at(q);
    C2hState& c2h = queue.c2h;
    CmptState& cmpt = queue.cmpt;
    for (;;) {
        const sc_core::sc_time now = sim_now();
        if (c2h.pending.empty()) return true;
        const IncomingPacket& packet = c2h.pending.front();
        if (packet.tail > now) {
            sc_core::wait(packet.tail - now);
            continue;
        }
        if (!c2h.enabled || !cmpt.enabled || c2h.error != QueueError::None || cmpt.error != QueueError::None)
            return false;
        const std::uint32_t needed = std::max({config_.packet_payload_bytes, packet.payload_bytes});
        if (c2h.buffer_bytes < needed) {
            queue_error(q, Ring::C2h, QueueError::BufferTooSmall, regmap::QUEUE(q) + regmap::C2H_BUFFER_BYTES,
                        "C2H_BUFFER_BYTES " + std::to_string(c2h.buffer_bytes) + " cannot hold a " +
                            std::to_string(needed) + "-byte packet payload (PACKET_BYTES " +
                            std::to_string(config_.packet_payload_bytes) + ")");
            return false;
        }
        if (cmpt.producer.full(cmpt.sw_cidx)) return false;
        if (c2h.cache.empty()) {
            if (c2h.fetch_failure.failed) {
                if (c2h.fetch_failure.at > now) {
                    sc_core::wait(c2h.fetch_failure.at - now);
                    continue;
                }
                queue_error(
                    q, Ring::C2h, QueueError::DescriptorAddress, c2h.fetch_failure.address,
                    "fetching C2H descriptor " + std::to_string(c2h.fetch_failure.index) + " from outside host memory");
                return false;
            }
            if (c2h.fetch_index == c2h.sw_pidx) return false;  // no buffer posted
            c2h_prefetch(q);
            continue;
        }
        if (c2h.cache.front().available > now) {
            sc_core::wait(c2h.cache.front().available - now);
            continue;
        }

        // Deliver: payload into the buffer, then the completion entry.
        const FetchedC2h buffer = c2h.cache.front();
        sc_core::sc_time data_sent = now;
        DmaTag tag{DmaPurpose::C2hData, static_cast<std::uint16_t>(q), buffer.index};
        // Timing only: a collective result's bytes are not meaningful and the
        // driver does not read them, nor a length-only message's past its
        // envelope (it does read other messages and error codes).
        if (packet.payload == nullptr) {  // not carried (a header-only packet): nothing to write
            tag.timing_only = true;
        } else if (config_.timing_only) {
            const std::optional<ProcessorHeader> h = ProcessorHeader::decode(packet.header);
            if (h && h->opcode != Opcode::Send && h->datatype != kErrorResultDatatype) tag.timing_only = true;
            if (h && h->opcode == Opcode::Send && h->datatype == kLengthOnlyDatatype) {
                tag.timing_only = true;
                tag.written_bytes = length_only_carried_bytes(packet.offset);
            }
        }
        if (packet.payload_bytes > 0 &&
            !dma_access(tlm::TLM_WRITE_COMMAND, buffer.address, packet.payload, packet.payload_bytes, data_sent, tag)) {
            queue_error(q, Ring::C2h, QueueError::DescriptorAddress, buffer.address,
                        "C2H descriptor " + std::to_string(buffer.index) + " buffer [" + hex(buffer.address) + ", +" +
                            std::to_string(packet.payload_bytes) + ") is outside host memory");
            return false;
        }
        c2h.cache.pop_front();
        c2h.hw_cidx = c2h.ring.next(c2h.hw_cidx);
        c2h_prefetch(q);

        const CompletionProducer::Slot slot = cmpt.producer.produce();
        regmap::CompletionEntry entry{};
        entry.header = packet.header;
        entry.offset = packet.offset;
        entry.length = static_cast<std::uint16_t>(packet.payload_bytes);
        entry.flags =
            static_cast<std::uint16_t>((packet.last ? regmap::CMPT_LAST : 0) | (slot.colour ? regmap::CMPT_COLOR : 0));
        std::uint8_t bytes[kCompletionEntryBytes];
        encode_completion_entry(entry, bytes);
        const std::uint64_t entry_address = cmpt.base + static_cast<std::uint64_t>(slot.index) * kRingEntryBytesCmpt;
        sc_core::sc_time entry_sent;
        bool delivered = true;
        if (!dma_access(tlm::TLM_WRITE_COMMAND, entry_address, bytes, sizeof bytes, entry_sent,
                        DmaTag{DmaPurpose::CmptEntry, static_cast<std::uint16_t>(q), slot.index})) {
            // The data is in place but its completion is lost: the ring stops.
            queue_error(q, Ring::Cmpt, QueueError::DescriptorAddress, entry_address,
                        "completion entry " + std::to_string(slot.index) + " is outside host memory");
            delivered = false;
        } else if (!regmap::control::STATUS_ENABLE.get(cmpt.control) || cmpt_writeback(q)) {
            const auto decision = cmpt.interrupt.on_entry(now_units());
            if (decision.fire) raise_vector(regmap::control::MSIX_VECTOR.get(cmpt.control));
            if (decision.timer_at) schedule_timer(q, decision.timer_at);
        }

        ++statistics_.c2h_packets;
        statistics_.c2h_payload_bytes += packet.payload_bytes;
        // The buffer space is free once the payload has left for the host.
        network_.release(packet, data_sent - now);
        c2h.pending.pop_front();
        return delivered;
    }
}

void Qdma::c2h_prefetch(unsigned q) {
    C2hState& c2h = queue_at(q).c2h;
    if (c2h.fetch_failure.failed || c2h.cache.size() > config_.descriptor_prefetch) return;
    const std::uint32_t posted = c2h.ring.distance(c2h.fetch_index, c2h.sw_pidx);
    if (posted == 0) return;
    const std::uint32_t count = std::min({config_.descriptor_prefetch, posted, c2h.ring.until_wrap(c2h.fetch_index)});
    const std::uint64_t address = c2h.base + static_cast<std::uint64_t>(c2h.fetch_index) * kRingEntryBytesC2h;
    fetch_buffer_.resize(count * kRingEntryBytesC2h);
    sc_core::sc_time arrived;
    if (!dma_access(tlm::TLM_READ_COMMAND, address, fetch_buffer_.data(),
                    static_cast<std::uint32_t>(fetch_buffer_.size()), arrived,
                    DmaTag{DmaPurpose::C2hDescriptorFetch, static_cast<std::uint16_t>(q), c2h.fetch_index})) {
        c2h.fetch_failure = FetchFailure{true, address, c2h.fetch_index, arrived};
        return;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
        FetchedC2h fetched;
        fetched.address = decode_c2h_descriptor(fetch_buffer_.data() + i * kRingEntryBytesC2h).address;
        fetched.index = c2h.ring.advance(c2h.fetch_index, i);
        fetched.available = arrived;
        c2h.cache.push_back(fetched);
    }
    c2h.fetch_index = c2h.ring.advance(c2h.fetch_index, count);
}

}  // namespace isvp
