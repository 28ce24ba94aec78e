// Qdma H2C: descriptor fetch, checks, reading messages into packets the
// network interface frames, and handing them to it, in two stages connected
// by an ordered item queue.
#include <algorithm>

#include "isvp/qdma.h"
#include "isvp/qdma_formats.h"
#include "isvp/sim_now.h"

namespace isvp {

using regmap::QueueError;

namespace {
constexpr const char* kReportType = "isvp/qdma";
}

void Qdma::h2c_schedule(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    if (!h2c.scheduled) {
        h2c.scheduled = true;
        h2c_ready_.push_back(q);
    }
    h2c_work_event_.notify(sc_core::SC_ZERO_TIME);
}

// ---------------------------------------------------------------------------
// Fetch stage

// An SC_METHOD: each activation runs rounds until none makes progress, then
// says with next_trigger what it waits for (as an SC_THREAD's wait would,
// without a coroutine of its own).
void Qdma::h2c_fetch_method() {
    for (;;) {
        if (h2c_ready_.empty()) {
            next_trigger(h2c_work_event_);
            return;
        }
        // One round over the queues with work, one packet each.
        bool progress = false;
        bool window_full = false;
        sc_core::sc_time earliest = sc_core::SC_ZERO_TIME;
        const std::size_t round = h2c_ready_.size();
        for (std::size_t i = 0; i < round && !h2c_ready_.empty(); ++i) {
            const unsigned q = h2c_ready_.front();
            h2c_ready_.pop_front();
            sc_core::sc_time wake_at;
            switch (h2c_step(q, wake_at)) {
                case StepResult::Produced:
                    h2c_ready_.push_back(q);
                    progress = true;
                    break;
                case StepResult::Idle:
                    queue_at(q).h2c.scheduled = false;
                    progress = true;
                    break;
                case StepResult::Waiting:
                    h2c_ready_.push_back(q);
                    if (earliest == sc_core::SC_ZERO_TIME || wake_at < earliest) earliest = wake_at;
                    break;
                case StepResult::WindowFull:
                    h2c_ready_.push_back(q);
                    window_full = true;
                    break;
            }
        }
        if (progress) continue;
        const sc_core::sc_time now = sim_now();
        if (earliest == sc_core::SC_ZERO_TIME)
            next_trigger(window_or_work_);
        else if (window_full)
            next_trigger(earliest - now, window_or_work_);
        else
            next_trigger(earliest - now, h2c_work_event_);
        return;
    }
}

Qdma::StepResult Qdma::h2c_step(unsigned q, sc_core::sc_time& wake_at) {
    H2cState& h2c = queue_at(q).h2c;
    const sc_core::sc_time now = sim_now();
    for (;;) {
        if (!h2c.enabled || h2c.error != QueueError::None || h2c.stopped) return StepResult::Idle;

        // A filled packet goes to the emit stage.
        if (h2c.packet && h2c.packet_fill == h2c.packet.payload_bytes) {
            H2cItem item;
            item.kind = H2cItem::Kind::Packet;
            item.queue = q;
            item.epoch = h2c.epoch;
            item.at = h2c.packet_ready;
            item.packet = h2c.packet;
            item.window_bytes = h2c.packet.wire_bytes;
            h2c_items_.push_back(std::move(item));
            h2c_item_event_.notify(sc_core::SC_ZERO_TIME);
            h2c.packet = OutgoingPacket{};
            return StepResult::Produced;
        }

        // The message's next packet, once its header is known.
        const auto& header = h2c.framer.header();
        if (header && !h2c.packet && h2c.next_packet < segmenter_.packet_count(header->message_bytes)) {
            const PacketPlan plan = segmenter_.packet(header->message_bytes, h2c.next_packet);
            if (window_used_ + network_.wire_bytes(plan.bytes) > config_.h2c_buffer_bytes)
                return StepResult::WindowFull;
            h2c_start_packet(q);
            continue;
        }

        // The next descriptor.
        const bool standing = regmap::control::PREFETCH.get(h2c.control);
        if (!h2c.have_descriptor) {
            if (h2c.next_index == h2c.sw_pidx) {
                // Standing descriptors are fetched ahead of the doorbell,
                // while the queue is idle: the next doorbell finds them.
                if (standing) h2c_prefetch(q);
                return StepResult::Idle;
            }
            // While streaming, standing descriptors are fetched when half a
            // batch is left (an idle queue keeps one to two batches ahead).
            if (!standing || h2c.cache.size() <= config_.descriptor_prefetch / 2) h2c_prefetch(q);
            if (h2c.cache.empty()) {
                // Only a failed fetch leaves nothing to take (a guest moving
                // PIDX backwards can at worst make us fetch stale entries).
                if (!h2c.fetch_failure.failed) return StepResult::Idle;
                const FetchFailure& failure = h2c.fetch_failure;
                h2c_stop(q, QueueError::DescriptorAddress, failure.address, failure.at,
                         "fetching descriptor " + std::to_string(failure.index) + " from outside host memory");
                return StepResult::Idle;
            }
            if (h2c.cache.front().available > now) {
                wake_at = h2c.cache.front().available;
                return StepResult::Waiting;
            }
            h2c.current = h2c.cache.front();
            h2c.cache.pop_front();
            h2c.next_index = h2c.ring.next(h2c.next_index);
            const std::uint64_t descriptor_address = h2c.base + h2c.current.index * kRingEntryBytesH2c;
            const regmap::H2cDescriptor as_fetched = h2c.current.descriptor;
            const QueueError error = standing ? h2c.framer.accept_standing(h2c.current.descriptor)
                                              : h2c.framer.accept_descriptor(h2c.current.descriptor);
            if (error != QueueError::None) {
                h2c_stop(q, error, descriptor_address, now,
                         "descriptor " + std::to_string(h2c.current.index) + " (length " +
                             std::to_string(as_fetched.length) + ", flags " + std::to_string(as_fetched.flags) + ") " +
                             (standing ? "is not a standing buffer of 8..65535 bytes"
                                       : "does not frame a valid processor packet"));
                return StepResult::Idle;
            }
            h2c.have_descriptor = true;
            h2c.consumed = 0;
            h2c.current_ready = now;
            if (!standing) h2c_prefetch(q);
            continue;
        }

        // The current descriptor is used up: it completes behind the data.
        const regmap::H2cDescriptor& descriptor = h2c.current.descriptor;
        const std::uint32_t remaining = descriptor.length - h2c.consumed;
        if (remaining == 0) {
            h2c.have_descriptor = false;
            H2cItem item;
            item.kind = H2cItem::Kind::Completion;
            item.queue = q;
            item.epoch = h2c.epoch;
            item.at = h2c.current_ready;
            item.next_cidx = h2c.ring.next(h2c.current.index);
            item.sdi = descriptor.flags & regmap::H2C_SDI;
            h2c_items_.push_back(std::move(item));
            h2c_item_event_.notify(sc_core::SC_ZERO_TIME);
            if (descriptor.flags & regmap::H2C_EOP) {
                h2c.framer.end_packet();
                h2c.header_fill = 0;
                h2c.next_packet = 0;
            }
            continue;
        }

        // Header bytes first, then payload into the packet being filled.
        const std::uint64_t address = descriptor.address + h2c.consumed;
        const bool reading_header = !header;
        if (!reading_header && !h2c.packet) {
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": H2C queue " + std::to_string(q) +
                                          " has descriptor bytes left after the message's last packet "
                                          "(framing check missed it)")
                                             .c_str());
            return StepResult::Idle;
        }
        std::uint8_t* target;
        std::uint32_t bytes;
        if (reading_header) {
            bytes = std::min<std::uint32_t>(remaining, ProcessorHeader::kBytes - h2c.header_fill);
            target = h2c.header_bytes.data() + h2c.header_fill;
        } else {
            bytes = std::min(remaining, h2c.packet.payload_bytes - h2c.packet_fill);
            target = h2c.packet.payload + h2c.packet_fill;
        }
        sc_core::sc_time arrived;
        DmaTag tag{reading_header ? DmaPurpose::H2cPacketHeader : DmaPurpose::H2cData, static_cast<std::uint16_t>(q),
                   h2c.current.index};
        // Timing only: a length-only message's bytes past its envelope are
        // read by no one (the receiver's C2H writes only the envelope), so
        // they are not copied out of host memory; the link is charged the same.
        if (!reading_header && config_.timing_only) {
            const ProcessorHeader& message = *h2c.framer.header();
            if (message.opcode == Opcode::Send && message.datatype == kLengthOnlyDatatype) {
                tag.timing_only = true;
                tag.written_bytes = length_only_carried_bytes(h2c.packet_offset + h2c.packet_fill);
            }
        }
        if (!dma_access(tlm::TLM_READ_COMMAND, address, target, bytes, arrived, tag)) {
            h2c_stop(q, QueueError::DescriptorAddress, address, arrived,
                     "descriptor " + std::to_string(h2c.current.index) + " data [" + hex(address) + ", +" +
                         std::to_string(bytes) + ") is outside host memory");
            return StepResult::Idle;
        }
        h2c.consumed += bytes;
        h2c.current_ready = std::max(h2c.current_ready, arrived);
        if (!reading_header) {
            h2c.packet_fill += bytes;
            h2c.packet_ready = std::max(h2c.packet_ready, arrived);
            continue;
        }
        h2c.header_fill += bytes;
        h2c.header_ready = std::max(h2c.header_ready, arrived);
        if (h2c.header_fill == ProcessorHeader::kBytes) {
            const QueueError error = h2c.framer.accept_header(h2c.header_bytes.data());
            if (error != QueueError::None) {
                const auto bits = ProcessorHeader::read(h2c.header_bytes.data());
                h2c_stop(q, error, h2c.base + h2c.current.index * kRingEntryBytesH2c, h2c.header_ready,
                         "processor header of the packet ending at descriptor " + std::to_string(h2c.current.index) +
                             (error == QueueError::PacketHeader
                                  ? (bits ? " names rank " + std::to_string(bits->rank) + " of " +
                                                std::to_string(network_.endpoints())
                                          : std::string(" has a reserved opcode"))
                                  : std::string(": descriptors do not add up to 8 + message_bytes")));
                return StepResult::Idle;
            }
            h2c.next_packet = 0;
            if (standing) {
                // The header says how much of the first buffer the packet uses.
                h2c.current.descriptor.length = static_cast<std::uint32_t>(h2c.framer.described_bytes());
                if (h2c.framer.eop_seen()) h2c.current.descriptor.flags |= regmap::H2C_EOP;
            }
        }
    }
}

void Qdma::h2c_start_packet(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    const ProcessorHeader& header = *h2c.framer.header();
    const PacketPlan plan = segmenter_.packet(header.message_bytes, h2c.next_packet);
    h2c.packet = network_.frame(NetworkRequest{header, plan.offset, plan.bytes, plan.last});
    h2c.packet_fill = 0;
    h2c.packet_offset = plan.offset;
    h2c.packet_ready = h2c.header_ready;
    window_used_ += h2c.packet.wire_bytes;
    ++h2c.next_packet;
}

void Qdma::h2c_prefetch(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    if (h2c.fetch_failure.failed || h2c.cache.size() > config_.descriptor_prefetch) return;
    // Standing descriptors (H2C_CONTROL.PREFETCH) are valid whether posted
    // or not; otherwise only what the doorbell has posted is fetched.
    const std::uint32_t posted =
        regmap::control::PREFETCH.get(h2c.control) ? h2c.ring.slots() : h2c.ring.distance(h2c.fetch_index, h2c.sw_pidx);
    if (posted == 0) return;
    const std::uint32_t count = std::min({config_.descriptor_prefetch, posted, h2c.ring.until_wrap(h2c.fetch_index)});
    const std::uint64_t address = h2c.base + static_cast<std::uint64_t>(h2c.fetch_index) * kRingEntryBytesH2c;
    fetch_buffer_.resize(count * kRingEntryBytesH2c);
    sc_core::sc_time arrived;
    if (!dma_access(tlm::TLM_READ_COMMAND, address, fetch_buffer_.data(),
                    static_cast<std::uint32_t>(fetch_buffer_.size()), arrived,
                    DmaTag{DmaPurpose::H2cDescriptorFetch, static_cast<std::uint16_t>(q), h2c.fetch_index})) {
        h2c.fetch_failure = FetchFailure{true, address, h2c.fetch_index, arrived};
        return;
    }
    ++statistics_.h2c_descriptor_fetches;
    for (std::uint32_t i = 0; i < count; ++i) {
        FetchedH2c fetched;
        fetched.descriptor = decode_h2c_descriptor(fetch_buffer_.data() + i * kRingEntryBytesH2c);
        fetched.index = h2c.ring.advance(h2c.fetch_index, i);
        fetched.available = arrived;
        h2c.cache.push_back(fetched);
    }
    h2c.fetch_index = h2c.ring.advance(h2c.fetch_index, count);
}

void Qdma::h2c_drop_packet(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    if (!h2c.packet) return;
    window_used_ -= h2c.packet.wire_bytes;
    network_.discard(h2c.packet);
    window_event_.notify(sc_core::SC_ZERO_TIME);
}

void Qdma::h2c_stop(unsigned q, QueueError error, std::uint64_t address, sc_core::sc_time at,
                    const std::string& detail) {
    H2cState& h2c = queue_at(q).h2c;
    h2c.stopped = true;
    h2c_drop_packet(q);
    H2cItem item;
    item.kind = H2cItem::Kind::Error;
    item.queue = q;
    item.epoch = h2c.epoch;
    item.at = at;
    item.error = error;
    item.address = address;
    item.detail = detail;
    h2c_items_.push_back(std::move(item));
    h2c_item_event_.notify(sc_core::SC_ZERO_TIME);
}

// ---------------------------------------------------------------------------
// Emit stage

// An SC_METHOD like the fetch stage: it hands over items until the front
// one has to wait, then triggers itself on what it waits for.
void Qdma::h2c_emit_method() {
    for (;;) {
        if (h2c_items_.empty()) {
            next_trigger(h2c_item_event_);
            return;
        }
        H2cItem& item = h2c_items_.front();
        if (item.epoch != queue_at(item.queue).h2c.epoch) {
            h2c_discard(item);
            h2c_items_.pop_front();
            continue;
        }
        const sc_core::sc_time now = sim_now();
        if (item.at > now) {
            next_trigger(item.at - now, h2c_reset_event_);
            return;
        }
        switch (item.kind) {
            case H2cItem::Kind::Packet: {
                const sc_core::sc_time link_free = network_.link_free_at();
                if (link_free > now) {
                    next_trigger(link_free - now, h2c_reset_event_);
                    return;
                }
                if (!network_.space_to_send(item.packet)) {
                    next_trigger(space_or_reset_);
                    return;
                }
                H2cItem taken = std::move(item);
                h2c_items_.pop_front();
                h2c_send(taken);
                break;
            }
            case H2cItem::Kind::Completion: {
                H2cItem taken = std::move(item);
                h2c_items_.pop_front();
                h2c_complete(taken);
                break;
            }
            case H2cItem::Kind::Error: {
                H2cItem taken = std::move(item);
                h2c_items_.pop_front();
                queue_error(taken.queue, Ring::H2c, taken.error, taken.address, taken.detail);
                break;
            }
        }
    }
}

void Qdma::h2c_discard(H2cItem& item) {
    if (item.kind != H2cItem::Kind::Packet) return;
    window_used_ -= item.window_bytes;
    network_.discard(item.packet);
    window_event_.notify(sc_core::SC_ZERO_TIME);
}

void Qdma::h2c_send(H2cItem& item) {
    const std::uint32_t payload_bytes = item.packet.payload_bytes;
    network_.send(item.packet);
    ++statistics_.h2c_packets;
    statistics_.h2c_payload_bytes += payload_bytes;
    window_used_ -= item.window_bytes;
    window_event_.notify(sc_core::SC_ZERO_TIME);
}

void Qdma::h2c_complete(H2cItem& item) {
    const unsigned q = item.queue;
    H2cState& h2c = queue_at(q).h2c;
    const sc_core::sc_time now = sim_now();
    h2c.hw_cidx = item.next_cidx;
    bool sdi = item.sdi;
    ++statistics_.h2c_descriptors;
    // Descriptors completing at the same instant share one writeback.
    while (!h2c_items_.empty()) {
        const H2cItem& next = h2c_items_.front();
        if (next.kind != H2cItem::Kind::Completion || next.queue != q || next.epoch != h2c.epoch || next.at > now)
            break;
        h2c.hw_cidx = next.next_cidx;
        sdi = sdi || next.sdi;
        ++statistics_.h2c_descriptors;
        h2c_items_.pop_front();
    }
    if (regmap::control::STATUS_ENABLE.get(h2c.control) && !h2c_writeback(q)) return;
    if (sdi && h2c.interrupt.on_entry(now_units()).fire) raise_vector(regmap::control::MSIX_VECTOR.get(h2c.control));
}

}  // namespace isvp
