// Qdma construction, BAR0 registers, doorbells, queue errors and interrupts.
#include <algorithm>
#include <sstream>

#include "isvp/msix_interrupt.h"
#include "isvp/qdma.h"
#include "isvp/qdma_formats.h"
#include "isvp/sim_now.h"

namespace isvp {

using regmap::QueueError;

namespace {

constexpr const char* kReportType = "isvp/qdma";

constexpr std::uint32_t kControlMask = regmap::control::RING_SIZE_INDEX.mask() | regmap::control::ENABLE.mask() |
                                       regmap::control::STATUS_ENABLE.mask() | regmap::control::IRQ_ENABLE.mask() |
                                       regmap::control::MSIX_VECTOR.mask() | regmap::control::PREFETCH.mask();
constexpr std::uint32_t kErrorBits = ((1u << 8) - 1) | regmap::error_status::PIO;
constexpr std::uint32_t kVectorMask = (1u << regmap::control::MSIX_VECTOR.width) - 1;

std::uint32_t error_bit(QueueError error) {
    switch (error) {
        case QueueError::DescriptorAddress:
            return regmap::error_status::DMA;
        case QueueError::DescriptorLength:
        case QueueError::PacketFraming:
        case QueueError::PacketHeader:
            return regmap::error_status::DESCRIPTOR;
        case QueueError::DoorbellRange:
        case QueueError::NotEnabled:
            return regmap::error_status::BAD_DOORBELL;
        case QueueError::CompletionOverflow:
            return regmap::error_status::CMPT_OVERFLOW;
        case QueueError::BufferTooSmall:
            return regmap::error_status::C2H_NO_BUFFER;
        case QueueError::None:
            break;
    }
    return 0;
}

const char* error_name(QueueError error) {
    switch (error) {
        case QueueError::None:
            return "None";
        case QueueError::DescriptorAddress:
            return "DescriptorAddress";
        case QueueError::DescriptorLength:
            return "DescriptorLength";
        case QueueError::PacketFraming:
            return "PacketFraming";
        case QueueError::PacketHeader:
            return "PacketHeader";
        case QueueError::DoorbellRange:
            return "DoorbellRange";
        case QueueError::NotEnabled:
            return "NotEnabled";
        case QueueError::CompletionOverflow:
            return "CompletionOverflow";
        case QueueError::BufferTooSmall:
            return "BufferTooSmall";
    }
    return "?";
}

std::uint32_t status_word(std::uint32_t index, QueueError error) {
    return regmap::status::INDEX.make(index) | regmap::status::ERROR.make(error != QueueError::None) |
           regmap::status::ERROR_CODE.make(static_cast<std::uint32_t>(error));
}

}  // namespace

Qdma::Qdma(sc_core::sc_module_name name, const QdmaConfig& config, NetworkInterface& network)
    : sc_core::sc_module(name),
      regs("regs"),
      dma("dma"),
      irq("irq"),
      config_(config),
      network_(network),
      segmenter_(config.packet_payload_bytes, config.train_payload_bytes),
      coalescer_reset_(
          sc_core::sc_time(regmap::coalesce::kTimerTickNs, sc_core::SC_NS).value()) {  // ticks in resolution units
    config_.validate();
    for (unsigned i = 0; i < regmap::kRingSizeCount; ++i) ring_sizes_[i] = regmap::kRingSizeReset[i];
    queues_.resize(config_.queues);  // contexts come when first touched (queue_at)
    network_.set_receiver(*this);

    regs.register_b_transport(this, &Qdma::regs_b_transport);
    window_or_work_ |= window_event_;
    window_or_work_ |= h2c_work_event_;
    space_or_reset_ |= network_.space_event();
    space_or_reset_ |= h2c_reset_event_;

    SC_HAS_PROCESS(Qdma);
    // The H2C stages are methods, not threads: no coroutine stack (two
    // memory mappings each) per stage and node, no context switch per
    // activation. They run once at initialisation, as the threads did, and
    // set their own next_trigger. The C2H engine stays a thread: as a
    // method it would run among the other methods of an instant instead of
    // after them, and that order reaches results (README.md, "Processes").
    SC_METHOD(h2c_fetch_method);
    SC_METHOD(h2c_emit_method);
    SC_THREAD(c2h_thread);
    SC_METHOD(expire_cmpt_timers);
    sensitive << cmpt_timer_event_;
    dont_initialize();
}

std::string Qdma::hex(std::uint64_t value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

std::string Qdma::queue_name(unsigned q, Ring ring) const {
    static const char* const kRingNames[] = {"H2C", "C2H", "CMPT"};
    return std::string(name()) + ": queue " + std::to_string(q) + " " + kRingNames[static_cast<int>(ring)];
}

bool Qdma::dma_access(tlm::tlm_command command, std::uint64_t address, std::uint8_t* data, std::uint32_t bytes,
                      sc_core::sc_time& done, const DmaTag& tag) {
    dma_payload_.set_command(command);
    dma_payload_.set_address(address);
    dma_payload_.set_data_ptr(data);
    dma_payload_.set_data_length(bytes);
    dma_payload_.set_streaming_width(bytes);
    dma_payload_.set_byte_enable_ptr(nullptr);
    dma_payload_.set_dmi_allowed(false);
    dma_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    dma_tag_.tag = tag;
    dma_payload_.set_extension(&dma_tag_);
    dma->b_transport(dma_payload_, delay);
    // The extension is a member: the payload must not free it.
    dma_payload_.clear_extension(&dma_tag_);
    done = sim_now() + delay;
    return dma_payload_.is_response_ok();
}

// ---------------------------------------------------------------------------
// Register access

void Qdma::regs_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    const std::uint64_t offset = payload.get_address();
    if (payload.get_data_length() != 4 || offset % 4 != 0 || offset >= regmap::kBar0Bytes ||
        payload.get_byte_enable_ptr() != nullptr) {
        payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType, (std::string(name()) +
                                      ": regs takes aligned 4-byte BAR0 accesses without "
                                      "byte enables (PcieEndpoint splits wider ones), got " +
                                      std::to_string(payload.get_data_length()) + " bytes at " + hex(offset))
                                         .c_str());
        return;
    }
    unsigned char* data = payload.get_data_ptr();
    const auto at = static_cast<std::uint32_t>(offset);
    if (payload.get_command() == tlm::TLM_READ_COMMAND) {
        const std::uint32_t value = read_register(at);
        for (int i = 0; i < 4; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
    } else if (payload.get_command() == tlm::TLM_WRITE_COMMAND) {
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(data[i]) << (8 * i);
        write_register(at, value);
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

std::uint32_t Qdma::read_register(std::uint32_t offset) {
    using namespace regmap;
    switch (offset) {
        case ID:
            return kIdValue;
        case VERSION:
            return kVersionValue;
        case NODE_ADDRESS:
            return network_.endpoint();
        case NODE_COUNT:
            return network_.endpoints();
        case QUEUE_COUNT:
            return config_.queues;
        case MSIX_VECTORS:
            return kMsixVectors;
        case SCRATCH:
            return scratch_;
        case PACKET_BYTES:
            return config_.packet_payload_bytes;
        case ERROR_STATUS:
            return error_status_;
        case ERROR_QUEUE:
            return error_queue_;
        case ERROR_ADDRESS_LO:
            return static_cast<std::uint32_t>(error_address_);
        case ERROR_ADDRESS_HI:
            return static_cast<std::uint32_t>(error_address_ >> 32);
        case ERROR_MSIX:
            return error_msix_;
        case ERROR_IRQ_ENABLE:
            return error_irq_enable_;
        case LINK_FAULT: {
            link_fault_read_ = LinkFaultEntry{};
            if (link_faults_.empty()) return 0;
            link_fault_read_ = link_faults_.front();
            link_faults_.pop_front();
            return link_fault_read_.entry;
        }
        case LINK_FAULT_FROM:
            return link_fault_read_.from;
        case LINK_FAULT_TO:
            return link_fault_read_.to;
        case PIO_WINDOW_BYTES:
            return PIO_STRIDE;
        default:
            break;
    }
    if (offset >= PIO_BASE && offset < PIO(std::min(config_.queues, kPioQueues))) return 0;  // write-only
    if (offset >= RING_SIZE_BASE && offset < RING_SIZE(kRingSizeCount))
        return ring_sizes_[(offset - RING_SIZE_BASE) / 4];
    if (offset >= CONTEXT_QUEUE_BASE && offset < CONTEXT_QUEUE(kContextCount))
        return context_queue_[(offset - CONTEXT_QUEUE_BASE) / 4];
    if (offset >= QUEUE_BASE && offset < QUEUE(config_.queues)) {
        if (auto value =
                read_queue_register((offset - QUEUE_BASE) / QUEUE_STRIDE, (offset - QUEUE_BASE) % QUEUE_STRIDE))
            return *value;
    } else if (offset >= DOORBELL_BASE && offset < DOORBELL(config_.queues)) {
        const std::uint32_t reg = (offset - DOORBELL_BASE) % DOORBELL_STRIDE;
        if (reg == H2C_PIDX || reg == C2H_PIDX || reg == CMPT_CIDX) return 0;  // write-only
    }
    unmapped_access(offset, true);
    return 0xFFFFFFFFu;
}

std::optional<std::uint32_t> Qdma::read_queue_register(unsigned q, std::uint32_t reg) {
    using namespace regmap;
    const Queue& queue = queue_at(q);
    switch (reg) {
        case H2C_BASE_LO:
            return queue.h2c.base_lo;
        case H2C_BASE_HI:
            return queue.h2c.base_hi;
        case H2C_CONTROL:
            return queue.h2c.control;
        case H2C_STATUS:
            return status_word(queue.h2c.hw_cidx, queue.h2c.error);
        case C2H_BASE_LO:
            return queue.c2h.base_lo;
        case C2H_BASE_HI:
            return queue.c2h.base_hi;
        case C2H_CONTROL:
            return queue.c2h.control;
        case C2H_BUFFER_BYTES:
            return queue.c2h.buffer_bytes;
        case CMPT_BASE_LO:
            return queue.cmpt.base_lo;
        case CMPT_BASE_HI:
            return queue.cmpt.base_hi;
        case CMPT_CONTROL:
            return queue.cmpt.control;
        case CMPT_COALESCE:
            return queue.cmpt.coalesce;
        case C2H_STATUS:
            return status_word(queue.c2h.hw_cidx, queue.c2h.error);
        case CMPT_STATUS:
            return status_word(queue.cmpt.producer.pidx(), queue.cmpt.error) |
                   status::COLOR.make(queue.cmpt.producer.colour());
        case QUEUE_COMMAND:
            return 0;  // write-only
        default:
            return std::nullopt;
    }
}

void Qdma::write_register(std::uint32_t offset, std::uint32_t value) {
    using namespace regmap;
    switch (offset) {
        case ID:
        case VERSION:
        case NODE_ADDRESS:
        case NODE_COUNT:
        case QUEUE_COUNT:
        case MSIX_VECTORS:
        case PACKET_BYTES:
        case ERROR_QUEUE:
        case ERROR_ADDRESS_LO:
        case ERROR_ADDRESS_HI:
        case LINK_FAULT:
        case LINK_FAULT_FROM:
        case LINK_FAULT_TO:
        case PIO_WINDOW_BYTES:
            return;  // read-only: writes are ignored
        case SCRATCH:
            scratch_ = value;
            return;
        case ERROR_STATUS:
            error_status_ &= ~value;
            return;
        case ERROR_MSIX:
            error_msix_ = value & kVectorMask;
            return;
        case ERROR_IRQ_ENABLE:
            error_irq_enable_ = value & kErrorBits;
            return;
        default:
            break;
    }
    if (offset >= RING_SIZE_BASE && offset < RING_SIZE(kRingSizeCount)) {
        if (value >= kMinRingSize && value <= kMaxRingSize)
            ring_sizes_[(offset - RING_SIZE_BASE) / 4] = value;
        else
            unmapped_access(offset, false);
        return;
    }
    if (offset >= CONTEXT_QUEUE_BASE && offset < CONTEXT_QUEUE(kContextCount)) {
        // Same rule as RING_SIZE: a queue that does not exist is refused.
        if (value < config_.queues)
            context_queue_[(offset - CONTEXT_QUEUE_BASE) / 4] = value;
        else
            unmapped_access(offset, false);
        return;
    }
    if (offset >= PIO_BASE && offset < PIO(std::min(config_.queues, kPioQueues))) {
        write_pio((offset - PIO_BASE) / PIO_STRIDE, (offset - PIO_BASE) % PIO_STRIDE, value);
        return;
    }
    if (offset >= QUEUE_BASE && offset < QUEUE(config_.queues)) {
        if (write_queue_register((offset - QUEUE_BASE) / QUEUE_STRIDE, (offset - QUEUE_BASE) % QUEUE_STRIDE, value))
            return;
    } else if (offset >= DOORBELL_BASE && offset < DOORBELL(config_.queues)) {
        const std::uint32_t reg = (offset - DOORBELL_BASE) % DOORBELL_STRIDE;
        if (reg == H2C_PIDX || reg == C2H_PIDX || reg == CMPT_CIDX) {
            write_doorbell((offset - DOORBELL_BASE) / DOORBELL_STRIDE, reg, value, offset);
            return;
        }
    }
    unmapped_access(offset, false);
}

bool Qdma::write_queue_register(unsigned q, std::uint32_t reg, std::uint32_t value) {
    using namespace regmap;
    Queue& queue = queue_at(q);
    switch (reg) {
        case H2C_BASE_LO:
            queue.h2c.base_lo = value;
            return true;
        case H2C_BASE_HI:
            queue.h2c.base_hi = value;
            return true;
        case H2C_CONTROL:
            write_control(q, Ring::H2c, value);
            return true;
        case C2H_BASE_LO:
            queue.c2h.base_lo = value;
            return true;
        case C2H_BASE_HI:
            queue.c2h.base_hi = value;
            return true;
        case C2H_CONTROL:
            write_control(q, Ring::C2h, value);
            return true;
        case C2H_BUFFER_BYTES:
            queue.c2h.buffer_bytes = value;
            c2h_wake(q);
            return true;
        case CMPT_BASE_LO:
            queue.cmpt.base_lo = value;
            return true;
        case CMPT_BASE_HI:
            queue.cmpt.base_hi = value;
            return true;
        case CMPT_CONTROL:
            write_control(q, Ring::Cmpt, value);
            return true;
        case CMPT_COALESCE:
            queue.cmpt.coalesce = value;
            queue.cmpt.interrupt.configure(coalesce::COUNT.get(value), coalesce::TIMER.get(value),
                                           control::IRQ_ENABLE.get(queue.cmpt.control));
            return true;
        case H2C_STATUS:
        case C2H_STATUS:
        case CMPT_STATUS:
            return true;  // read-only
        case QUEUE_COMMAND:
            if (command::RESET.get(value)) reset_queue(q);
            return true;
        default:
            return false;
    }
}

void Qdma::write_control(unsigned q, Ring ring, std::uint32_t value) {
    using namespace regmap;
    Queue& queue = queue_at(q);
    value &= kControlMask;
    if (ring != Ring::H2c) value &= ~control::PREFETCH.mask();  // standing descriptors are an H2C feature
    const bool enable = control::ENABLE.get(value);
    const std::uint32_t entries = ring_sizes_[control::RING_SIZE_INDEX.get(value)];
    switch (ring) {
        case Ring::H2c: {
            H2cState& h2c = queue.h2c;
            const bool was_enabled = h2c.enabled;
            h2c.control = value;
            h2c.interrupt.configure(1, 0, control::IRQ_ENABLE.get(value));
            if (enable && !was_enabled) {
                // Enabling latches the ring and starts it from index 0.
                reset_h2c(q);
                h2c.ring = RingIndex(entries);
                h2c.base = static_cast<std::uint64_t>(h2c.base_hi) << 32 | h2c.base_lo;
            }
            if (!enable && was_enabled) {
                // A packet half-read when the ring stops would hold staging space for good.
                h2c_drop_packet(q);
                h2c.stopped = true;  // until the next enable restarts the ring
            }
            h2c.enabled = enable;
            if (enable) h2c_schedule(q);
            break;
        }
        case Ring::C2h: {
            C2hState& c2h = queue.c2h;
            const bool was_enabled = c2h.enabled;
            c2h.control = value;
            if (enable && !was_enabled) {
                reset_c2h(q);
                c2h.ring = RingIndex(entries);
                c2h.base = static_cast<std::uint64_t>(c2h.base_hi) << 32 | c2h.base_lo;
            }
            c2h.enabled = enable;
            break;
        }
        case Ring::Cmpt: {
            CmptState& cmpt = queue.cmpt;
            const bool was_enabled = cmpt.enabled;
            cmpt.control = value;
            cmpt.interrupt.configure(coalesce::COUNT.get(cmpt.coalesce), coalesce::TIMER.get(cmpt.coalesce),
                                     control::IRQ_ENABLE.get(value));
            if (enable && !was_enabled) {
                reset_cmpt(q);
                cmpt.producer = CompletionProducer(RingIndex(entries));
                cmpt.base = static_cast<std::uint64_t>(cmpt.base_hi) << 32 | cmpt.base_lo;
            }
            cmpt.enabled = enable;
            break;
        }
    }
    c2h_wake(q);
}

void Qdma::write_doorbell(unsigned q, std::uint32_t reg, std::uint32_t value, std::uint32_t offset) {
    using namespace regmap;
    Queue& queue = queue_at(q);
    const std::uint32_t index = doorbell::INDEX.get(value);
    const bool arm = doorbell::IRQ_ARM.get(value);
    if (reg == H2C_PIDX) {
        H2cState& h2c = queue.h2c;
        if (h2c.error != QueueError::None) return;  // stopped until reset
        if (!h2c.enabled) {
            queue_error(q, Ring::H2c, QueueError::NotEnabled, offset, "H2C_PIDX doorbell while H2C is disabled");
            return;
        }
        if (!h2c.ring.valid(index)) {
            queue_error(q, Ring::H2c, QueueError::DoorbellRange, offset,
                        "H2C_PIDX " + std::to_string(index) + " beyond the ring's " + std::to_string(h2c.ring.slots()) +
                            " usable entries");
            return;
        }
        h2c.sw_pidx = index;
        if (arm && h2c.interrupt.on_arm(now_units()).fire) raise_vector(control::MSIX_VECTOR.get(h2c.control));
        h2c_schedule(q);
        return;
    }
    if (reg == C2H_PIDX) {
        C2hState& c2h = queue.c2h;
        if (c2h.error != QueueError::None) return;
        if (!c2h.enabled) {
            queue_error(q, Ring::C2h, QueueError::NotEnabled, offset, "C2H_PIDX doorbell while C2H is disabled");
            return;
        }
        if (!c2h.ring.valid(index)) {
            queue_error(q, Ring::C2h, QueueError::DoorbellRange, offset,
                        "C2H_PIDX " + std::to_string(index) + " beyond the ring's " + std::to_string(c2h.ring.slots()) +
                            " usable entries");
            return;
        }
        c2h.sw_pidx = index;
        c2h_wake(q);
        return;
    }
    CmptState& cmpt = queue.cmpt;
    if (cmpt.error != QueueError::None) return;
    if (!cmpt.enabled) {
        queue_error(q, Ring::Cmpt, QueueError::NotEnabled, offset, "CMPT_CIDX doorbell while CMPT is disabled");
        return;
    }
    if (!cmpt.producer.ring().valid(index)) {
        queue_error(q, Ring::Cmpt, QueueError::DoorbellRange, offset,
                    "CMPT_CIDX " + std::to_string(index) + " beyond the ring's " +
                        std::to_string(cmpt.producer.ring().slots()) + " usable entries");
        return;
    }
    cmpt.sw_cidx = index;
    if (index == cmpt.producer.pidx()) cmpt.interrupt.on_all_consumed();
    if (arm && cmpt.interrupt.on_arm(now_units()).fire) raise_vector(control::MSIX_VECTOR.get(cmpt.control));
    c2h_wake(q);
}

void Qdma::reset_queue(unsigned q) {
    queue_at(q).pio = PioState{};
    reset_h2c(q);
    reset_c2h(q);
    reset_cmpt(q);
    h2c_schedule(q);
    c2h_wake(q);
}

void Qdma::reset_h2c(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    ++h2c.epoch;
    h2c.sw_pidx = h2c.hw_cidx = 0;
    h2c.error = QueueError::None;
    h2c.stopped = false;
    h2c.fetch_index = h2c.next_index = 0;
    h2c.cache.clear();
    h2c.fetch_failure = FetchFailure{};
    h2c.framer.reset();
    h2c.have_descriptor = false;
    h2c.consumed = 0;
    h2c.header_fill = 0;
    h2c.next_packet = 0;
    h2c_drop_packet(q);
    h2c.interrupt.reset();
    h2c_reset_event_.notify(sc_core::SC_ZERO_TIME);
}

void Qdma::reset_c2h(unsigned q) {
    C2hState& c2h = queue_at(q).c2h;
    c2h.sw_pidx = c2h.hw_cidx = 0;
    c2h.error = QueueError::None;
    c2h.fetch_index = 0;
    c2h.cache.clear();
    c2h.fetch_failure = FetchFailure{};
}

void Qdma::reset_cmpt(unsigned q) {
    CmptState& cmpt = queue_at(q).cmpt;
    cmpt.producer = CompletionProducer(cmpt.producer.ring());
    cmpt.sw_cidx = 0;
    cmpt.error = QueueError::None;
    cmpt.interrupt.reset();
}

// ---------------------------------------------------------------------------
// Errors and interrupts

void Qdma::unmapped_access(std::uint32_t offset, bool read) {
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": BAR0 " + (read ? "read of" : "write to") +
                                    " unmapped or refused offset " + hex(offset) +
                                    (read ? " returns 0xFFFFFFFF" : " dropped") + "; ERROR_STATUS.UNMAPPED_ACCESS set")
                                       .c_str());
    global_error(regmap::error_status::UNMAPPED_ACCESS, offset);
}

void Qdma::global_error(std::uint32_t bit, std::optional<std::uint64_t> address) {
    error_status_ |= bit;
    if (address) error_address_ = *address;
    if (error_irq_enable_ & bit) raise_vector(error_msix_);
}

void Qdma::link_fault(std::uint16_t peer, bool sending, std::uint64_t packets, std::uint32_t from, std::uint32_t to) {
    namespace lf = regmap::link_fault;
    namespace ll = regmap::link_fault_link;
    const auto saturated = [](std::uint64_t n) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(n, lf::LOST.mask() >> lf::LOST.shift));
    };
    bool merged = false;
    for (LinkFaultEntry& queued : link_faults_)
        if (lf::PEER.get(queued.entry) == peer && lf::SENDING.get(queued.entry) == (sending ? 1u : 0u)) {
            queued.entry = lf::LOST.set(queued.entry, saturated(lf::LOST.get(queued.entry) + packets));
            // The entry keeps its first cable; another one counts as a further link.
            const bool other_cable =
                ll::OTHER_LINKS.set(from, 0) != ll::OTHER_LINKS.set(queued.from, 0) || to != queued.to;
            const std::uint32_t others =
                ll::OTHER_LINKS.get(queued.from) + ll::OTHER_LINKS.get(from) + (other_cable ? 1u : 0u);
            const std::uint32_t most = ll::OTHER_LINKS.mask() >> ll::OTHER_LINKS.shift;
            queued.from = ll::OTHER_LINKS.set(queued.from, std::min(others, most));
            merged = true;
        }
    if (!merged)
        link_faults_.push_back({lf::PEER.make(peer) | lf::LOST.make(saturated(packets)) |
                                    lf::SENDING.make(sending ? 1 : 0) | lf::VALID.make(1),
                                from, to});
    global_error(regmap::error_status::LINK_FAULT, std::nullopt);
}

void Qdma::queue_error(unsigned q, Ring ring, QueueError error, std::uint64_t address, const std::string& detail) {
    Queue& queue = queue_at(q);
    QueueError* state = ring == Ring::H2c ? &queue.h2c.error : ring == Ring::C2h ? &queue.c2h.error : &queue.cmpt.error;
    if (*state != QueueError::None) return;  // already stopped: the first error stands
    *state = error;
    ++statistics_.queue_errors;
    error_queue_ = q;
    SC_REPORT_WARNING(kReportType, (queue_name(q, ring) + " stopped with " + error_name(error) + " at address " +
                                    hex(address) + ": " + detail + "; QUEUE_COMMAND.RESET restarts it")
                                       .c_str());
    // The writeback carries the error flag; a failing writeback adds nothing.
    if (ring == Ring::H2c && regmap::control::STATUS_ENABLE.get(queue.h2c.control)) h2c_writeback(q);
    if (ring == Ring::Cmpt && regmap::control::STATUS_ENABLE.get(queue.cmpt.control)) cmpt_writeback(q);
    global_error(error_bit(error), address);
}

void Qdma::raise_vector(unsigned vector) {
    ++statistics_.interrupts;
    raise_msix(irq, vector, sc_core::SC_ZERO_TIME);
}

void Qdma::schedule_timer(unsigned q, std::uint64_t at) {
    cmpt_timers_.emplace(at, q);
    const std::uint64_t now = now_units();
    const std::uint64_t first = cmpt_timers_.begin()->first;
    cmpt_timer_event_.notify(sim_time(first > now ? first - now : 0));
}

void Qdma::expire_cmpt_timers() {
    const std::uint64_t now = now_units();
    while (!cmpt_timers_.empty() && cmpt_timers_.begin()->first <= now) {
        const unsigned q = cmpt_timers_.begin()->second;
        cmpt_timers_.erase(cmpt_timers_.begin());
        // A timer left over from an earlier first entry is harmless: the
        // coalescer re-arms it for the current deadline or ignores it.
        CmptState& cmpt = queue_at(q).cmpt;
        const auto decision = cmpt.interrupt.on_timer(now);
        if (decision.fire) raise_vector(regmap::control::MSIX_VECTOR.get(cmpt.control));
        if (decision.timer_at) cmpt_timers_.emplace(decision.timer_at, q);
    }
    if (!cmpt_timers_.empty()) cmpt_timer_event_.notify(sim_time(cmpt_timers_.begin()->first - now));
}

bool Qdma::h2c_writeback(unsigned q) {
    H2cState& h2c = queue_at(q).h2c;
    regmap::StatusWriteback status{};
    status.pidx = static_cast<std::uint16_t>(h2c.sw_pidx);
    status.cidx = static_cast<std::uint16_t>(h2c.hw_cidx);
    status.flags = h2c.error != QueueError::None ? kWritebackError : 0;
    std::uint8_t bytes[kStatusWritebackBytes];
    encode_status_writeback(status, bytes);
    const std::uint64_t address = h2c.base + static_cast<std::uint64_t>(h2c.ring.status_index()) * kRingEntryBytesH2c;
    sc_core::sc_time done;
    if (dma_access(tlm::TLM_WRITE_COMMAND, address, bytes, sizeof bytes, done,
                   DmaTag{DmaPurpose::H2cStatus, static_cast<std::uint16_t>(q), h2c.ring.status_index()}))
        return true;
    queue_error(
        q, Ring::H2c, QueueError::DescriptorAddress, address,
        "status writeback to ring entry " + std::to_string(h2c.ring.status_index()) + " is outside host memory");
    return false;
}

bool Qdma::cmpt_writeback(unsigned q) {
    CmptState& cmpt = queue_at(q).cmpt;
    regmap::StatusWriteback status{};
    status.pidx = static_cast<std::uint16_t>(cmpt.producer.pidx());
    status.cidx = static_cast<std::uint16_t>(cmpt.sw_cidx);
    status.flags =
        (cmpt.producer.colour() ? kWritebackColour : 0) | (cmpt.error != QueueError::None ? kWritebackError : 0);
    std::uint8_t bytes[kStatusWritebackBytes];
    encode_status_writeback(status, bytes);
    const std::uint64_t address =
        cmpt.base + static_cast<std::uint64_t>(cmpt.producer.ring().status_index()) * kRingEntryBytesCmpt;
    sc_core::sc_time done;
    if (dma_access(tlm::TLM_WRITE_COMMAND, address, bytes, sizeof bytes, done,
                   DmaTag{DmaPurpose::CmptStatus, static_cast<std::uint16_t>(q), cmpt.producer.ring().status_index()}))
        return true;
    queue_error(q, Ring::Cmpt, QueueError::DescriptorAddress, address,
                "status writeback to ring entry " + std::to_string(cmpt.producer.ring().status_index()) +
                    " is outside host memory");
    return false;
}

}  // namespace isvp
