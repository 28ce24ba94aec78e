#include "isvp/pcie_endpoint.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "isvp/dma_tag_extension.h"
#include "isvp/msix_interrupt.h"
#include "isvp/register_map.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {

constexpr const char* kReportType = "isvp/pcie";

std::uint32_t load_le32(const unsigned char* bytes) {
    return static_cast<std::uint32_t>(bytes[0]) | static_cast<std::uint32_t>(bytes[1]) << 8 |
           static_cast<std::uint32_t>(bytes[2]) << 16 | static_cast<std::uint32_t>(bytes[3]) << 24;
}

void store_le32(std::uint32_t value, unsigned char* bytes) {
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
}

std::string hex(std::uint64_t value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

std::uint64_t ps_of(const sc_core::sc_time& time, double ps_per_tick) {
    return static_cast<std::uint64_t>(static_cast<double>(time.value()) * ps_per_tick + 0.5);
}

sc_core::sc_time picoseconds(std::uint64_t ps) {
    return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

}  // namespace

PcieEndpoint::PcieEndpoint(sc_core::sc_module_name name, const PcieConfig& configuration)
    : sc_core::sc_module(name),
      host_mmio("host_mmio"),
      config("config"),
      bar0("bar0"),
      dma("dma"),
      host_dma("host_dma"),
      irq("irq"),
      config_(configuration),
      timing_(configuration),
      latency_(picoseconds(timing_.latency_ps())),
      config_space_(configuration) {
    host_mmio.register_b_transport(this, &PcieEndpoint::mmio_b_transport);
    config.register_b_transport(this, &PcieEndpoint::config_b_transport);
    dma.register_b_transport(this, &PcieEndpoint::dma_b_transport);
    irq.register_b_transport(this, &PcieEndpoint::irq_b_transport);
    host_dma.register_invalidate_direct_mem_ptr(this, &PcieEndpoint::invalidate_host_dmi);

    SC_HAS_PROCESS(PcieEndpoint);
    SC_METHOD(deliver_posted_writes);
    sensitive << posted_event_;
    dont_initialize();
    SC_METHOD(land_host_writes);
    sensitive << host_write_event_;
    dont_initialize();
}

void PcieEndpoint::set_transaction_log(PcieTransactionLog* log, std::uint32_t node) {
    log_ = log != nullptr && log->logs_node(node) ? log : nullptr;
    log_node_ = node;
    ps_per_tick_ = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
}

void PcieEndpoint::warn(const std::string& message) const {
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": " + message).c_str());
}

// ---------------------------------------------------------------------------
// MMIO from the host

void PcieEndpoint::mmio_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t offset = payload.get_address();
    const unsigned length = payload.get_data_length();
    const bool read = payload.get_command() == tlm::TLM_READ_COMMAND;
    if (payload.get_command() == tlm::TLM_IGNORE_COMMAND) {
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    // A refused access is answered at once, warned about and logged (at the
    // time it reaches the card, as accepted ones are).
    auto refuse = [&](tlm::tlm_response_status status, const std::string& message) {
        warn(message);
        payload.set_response_status(status);
        if (log_) {
            const std::uint64_t now = ps_of(sim_now(), ps_per_tick_);
            log_->mmio_refused(log_node_, now, ps_of(sim_now() + delay + latency_, ps_per_tick_), !read, offset, length,
                               message);
        }
    };
    if (payload.get_byte_enable_ptr() != nullptr) {
        refuse(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
               "BAR0 access at " + hex(offset) + " with byte enables refused: only whole 4- or 8-byte accesses");
        return;
    }
    if ((length != 4 && length != 8) || offset % length != 0) {
        refuse(tlm::TLM_BURST_ERROR_RESPONSE, "BAR0 " + std::string(read ? "read" : "write") + " of " +
                                                  std::to_string(length) + " bytes at " + hex(offset) +
                                                  " refused: only aligned 4- or 8-byte accesses");
        return;
    }
    if (offset >= regmap::kBar0Bytes || length > regmap::kBar0Bytes - offset) {
        refuse(tlm::TLM_ADDRESS_ERROR_RESPONSE,
               "BAR0 access at " + hex(offset) + " is beyond the " + std::to_string(regmap::kBar0Bytes) + "-byte BAR");
        return;
    }
    unsigned char* data = payload.get_data_ptr();
    const auto dwords = length / 4;
    // Posted writes and reads stay in order: nothing reaches the device
    // before an earlier posted write.
    sc_core::sc_time arrival = std::max(sim_now() + delay + latency_, last_posted_arrival_);
    if (!read) {
        ++statistics_.mmio_writes;
        PostedWrite write;
        write.arrival = arrival;
        write.offset = static_cast<std::uint32_t>(offset);
        write.dwords = dwords;
        for (unsigned i = 0; i < dwords; ++i) write.values[i] = load_le32(data + 4 * i);
        if (posted_.empty()) posted_event_.notify(arrival - sim_now());
        posted_.push_back(write);
        last_posted_arrival_ = arrival;
        if (log_) {
            const std::uint64_t at = ps_of(arrival, ps_per_tick_);
            log_->mmio(log_node_, ps_of(sim_now(), ps_per_tick_), at, at, true, write.offset, write.values.data(),
                       dwords);
        }
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    ++statistics_.mmio_reads;
    sc_core::wait(arrival - sim_now());
    delay = sc_core::SC_ZERO_TIME;
    deliver_due_posted_writes();
    sc_core::sc_time device_delay = sc_core::SC_ZERO_TIME;
    for (unsigned i = 0; i < dwords; ++i)
        store_le32(read_dword(static_cast<std::uint32_t>(offset) + 4 * i, device_delay), data + 4 * i);
    // The completion travels upstream like the device's DMA writes and, by
    // PCIe ordering, may not pass a posted write issued before it: it
    // arrives no earlier than the last of them, so a driver that reads a
    // status register finds the entries it announces already in memory.
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time behind_writes =
        upstream_free_ + latency_ > now ? upstream_free_ + latency_ - now : sc_core::SC_ZERO_TIME;
    delay = std::max(device_delay + latency_, behind_writes);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    if (log_) {
        std::array<std::uint32_t, 2> values{};
        for (unsigned i = 0; i < dwords; ++i) values[i] = load_le32(data + 4 * i);
        const std::uint64_t at = ps_of(now, ps_per_tick_);
        log_->mmio(log_node_, at, at, ps_of(now + delay, ps_per_tick_), false, static_cast<std::uint32_t>(offset),
                   values.data(), dwords);
    }
}

void PcieEndpoint::deliver_posted_writes() {
    deliver_due_posted_writes();
    if (!posted_.empty()) posted_event_.notify(posted_.front().arrival - sim_now());
}

void PcieEndpoint::deliver_due_posted_writes() {
    const sc_core::sc_time now = sim_now();
    while (!posted_.empty() && posted_.front().arrival <= now) {
        const PostedWrite write = posted_.front();
        posted_.pop_front();
        for (unsigned i = 0; i < write.dwords; ++i) write_dword(write.offset + 4 * i, write.values[i]);
    }
}

void PcieEndpoint::write_dword(std::uint32_t offset, std::uint32_t value) {
    if (MsixTable::contains(offset)) {
        if (const auto message = msix_.write(offset, value)) send_msi(*message, sim_now());
        return;
    }
    unsigned char bytes[4];
    store_le32(value, bytes);
    device_payload_.set_command(tlm::TLM_WRITE_COMMAND);
    device_payload_.set_address(offset);
    device_payload_.set_data_ptr(bytes);
    device_payload_.set_data_length(4);
    device_payload_.set_streaming_width(4);
    device_payload_.set_byte_enable_ptr(nullptr);
    device_payload_.set_dmi_allowed(false);
    device_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time ignored = sc_core::SC_ZERO_TIME;  // posted: nobody waits for the device
    bar0->b_transport(device_payload_, ignored);
}

std::uint32_t PcieEndpoint::read_dword(std::uint32_t offset, sc_core::sc_time& delay) {
    if (MsixTable::contains(offset)) return msix_.read(offset);
    unsigned char bytes[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    device_payload_.set_command(tlm::TLM_READ_COMMAND);
    device_payload_.set_address(offset);
    device_payload_.set_data_ptr(bytes);
    device_payload_.set_data_length(4);
    device_payload_.set_streaming_width(4);
    device_payload_.set_byte_enable_ptr(nullptr);
    device_payload_.set_dmi_allowed(false);
    device_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    bar0->b_transport(device_payload_, delay);
    // A failed non-posted request completes as Unsupported Request: all ones.
    if (!device_payload_.is_response_ok()) return 0xFFFFFFFFu;
    return load_le32(bytes);
}

// ---------------------------------------------------------------------------
// Configuration space

void PcieEndpoint::config_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t offset = payload.get_address();
    const unsigned length = payload.get_data_length();
    if (payload.get_command() == tlm::TLM_IGNORE_COMMAND) {
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (offset >= pci::kConfigSpaceBytes ||
        !pci::PcieConfigSpace::valid_access(static_cast<std::uint32_t>(offset), length) ||
        payload.get_byte_enable_ptr() != nullptr) {
        warn("configuration access of " + std::to_string(length) + " bytes at " + hex(offset) +
             " refused: 1, 2 or 4 bytes inside one dword of the 4 KiB space, no byte enables");
        payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    unsigned char* data = payload.get_data_ptr();
    const auto at = static_cast<std::uint32_t>(offset);
    if (payload.get_command() == tlm::TLM_READ_COMMAND) {
        const std::uint32_t value = config_space_.read(at, length);
        for (unsigned i = 0; i < length; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
    } else {
        std::uint32_t value = 0;
        for (unsigned i = 0; i < length; ++i) value |= static_cast<std::uint32_t>(data[i]) << (8 * i);
        config_space_.write(at, length, value);
        for (const MsiMessage& message : msix_.set_function_mask(config_space_.msix_function_masked()))
            send_msi(message, sim_now() + delay + latency_);
    }
    delay += 2 * latency_;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---------------------------------------------------------------------------
// DMA and interrupts from the device

sc_core::sc_time PcieEndpoint::reserve(sc_core::sc_time& free_at, const sc_core::sc_time& earliest,
                                       std::uint64_t wire_bytes) {
    const sc_core::sc_time start = std::max(earliest, free_at);
    free_at = start + picoseconds(timing_.serialisation_ps(wire_bytes));
    return free_at;
}

void PcieEndpoint::dma_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time issued = now + delay;
    const std::uint64_t bytes = payload.get_data_length();
    if (payload.get_command() == tlm::TLM_WRITE_COMMAND) {
        ++statistics_.dma_writes;
        const sc_core::sc_time sent = reserve(upstream_free_, issued, timing_.write_wire_bytes(bytes));
        const sc_core::sc_time arrival = sent + latency_;
        const auto* extension = payload.get_extension<DmaTagExtension>();
        const bool host_update = extension && (extension->tag.purpose == DmaPurpose::CmptEntry ||
                                               extension->tag.purpose == DmaPurpose::H2cStatus ||
                                               extension->tag.purpose == DmaPurpose::CmptStatus);
        if (bytes > 0 && payload.get_byte_enable_ptr() == nullptr &&
            host_dmi_covers(payload.get_address(), bytes, false)) {
            HostWrite write;
            write.arrival = arrival;
            write.address = payload.get_address();
            write.host_update = host_update;
            if (!spare_write_buffers_.empty()) {
                write.bytes = std::move(spare_write_buffers_.back());
                spare_write_buffers_.pop_back();
            }
            // Timing only: the bytes nobody reads are neither kept nor written.
            const bool timing_only = extension && extension->tag.timing_only;
            const std::uint64_t written =
                timing_only ? std::min<std::uint64_t>(bytes, extension->tag.written_bytes) : bytes;
            write.timing_only = written == 0;
            if (written > 0) write.bytes.assign(payload.get_data_ptr(), payload.get_data_ptr() + written);
            if (host_writes_.empty()) host_write_event_.notify(arrival - now);
            host_writes_.push_back(std::move(write));
            payload.set_response_status(tlm::TLM_OK_RESPONSE);
        } else if (extension && extension->tag.timing_only) {
            // The slow path writes whole buffers: the bytes nobody reads (which
            // a header-only packet does not even have) land as zeros.
            const std::uint64_t written = std::min<std::uint64_t>(bytes, extension->tag.written_bytes);
            timing_only_scratch_.assign(bytes, 0);
            if (written > 0) std::memcpy(timing_only_scratch_.data(), payload.get_data_ptr(), written);
            unsigned char* data = payload.get_data_ptr();
            payload.set_data_ptr(timing_only_scratch_.data());
            access_host(payload, arrival - now);
            payload.set_data_ptr(data);
            if (host_update && payload.is_response_ok()) notify_host_update(arrival - now);
        } else {
            access_host(payload, arrival - now);
            if (host_update && payload.is_response_ok()) notify_host_update(arrival - now);
        }
        if (payload.is_response_ok()) statistics_.upstream_bytes += bytes;
        delay = sent - now;
        if (log_) log_dma(payload, issued, arrival);
        return;
    }
    if (payload.get_command() == tlm::TLM_READ_COMMAND) {
        ++statistics_.dma_reads;
        // Requests go upstream; the host starts answering when the first
        // one arrives, and completions share the downstream direction.
        const sc_core::sc_time requests_start = std::max(issued, upstream_free_);
        reserve(upstream_free_, issued, timing_.read_request_wire_bytes(bytes));
        const sc_core::sc_time at_host =
            requests_start + picoseconds(timing_.serialisation_ps(timing_.header_only_wire_bytes())) + latency_;
        const auto* extension = payload.get_extension<DmaTagExtension>();
        if (extension && extension->tag.timing_only && payload.get_byte_enable_ptr() == nullptr && bytes > 0 &&
            host_dmi_covers(payload.get_address(), bytes, true)) {
            // Timing only: the bytes nobody reads are not copied (the first
            // written_bytes are); the completions are charged the same.
            const std::uint64_t copied = std::min<std::uint64_t>(bytes, extension->tag.written_bytes);
            if (copied > 0) std::memcpy(payload.get_data_ptr(), host_pointer(payload.get_address()), copied);
            payload.set_response_status(tlm::TLM_OK_RESPONSE);
        } else {
            access_host(payload, at_host - now);
        }
        const bool ok = payload.is_response_ok();
        if (ok) statistics_.downstream_bytes += bytes;
        // A refused read completes with one header-only Unsupported Request.
        const sc_core::sc_time done =
            reserve(downstream_free_, at_host, ok ? timing_.write_wire_bytes(bytes) : timing_.header_only_wire_bytes());
        delay = done + latency_ - now;
        if (log_) log_dma(payload, issued, done + latency_);
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void PcieEndpoint::log_dma(const tlm::tlm_generic_payload& payload, const sc_core::sc_time& issued,
                           const sc_core::sc_time& done) {
    DmaTag tag;
    if (const auto* extension = payload.get_extension<DmaTagExtension>()) tag = extension->tag;
    const bool ok = payload.is_response_ok();
    log_->dma(log_node_, ps_of(sim_now(), ps_per_tick_), ps_of(issued, ps_per_tick_), ps_of(done, ps_per_tick_),
              payload.get_command() == tlm::TLM_WRITE_COMMAND, payload.get_address(), payload.get_data_length(), tag,
              ok ? payload.get_data_ptr() : nullptr, ok);
}

bool PcieEndpoint::host_dmi_covers(std::uint64_t address, std::uint64_t bytes, bool read) {
    auto covers = [&] {
        return host_dmi_valid_ && address >= host_dmi_.get_start_address() && address <= host_dmi_.get_end_address() &&
               bytes - 1 <= host_dmi_.get_end_address() - address &&
               (read ? host_dmi_.is_read_allowed() : host_dmi_.is_write_allowed());
    };
    if (!covers()) {
        tlm::tlm_generic_payload probe;
        probe.set_address(address);
        probe.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
        tlm::tlm_dmi region;
        if (host_dma->get_direct_mem_ptr(probe, region)) {
            host_dmi_ = region;
            host_dmi_valid_ = true;
        }
    }
    return covers();
}

void PcieEndpoint::land_host_writes() {
    const sc_core::sc_time now = sim_now();
    while (!host_writes_.empty() && host_writes_.front().arrival <= now) {
        HostWrite& write = host_writes_.front();
        const auto bytes = static_cast<std::uint64_t>(write.bytes.size());
        if (write.timing_only) {
            // nothing to write (DmaTag::timing_only)
        } else if (host_dmi_covers(write.address, bytes, false)) {
            std::memcpy(host_pointer(write.address), write.bytes.data(), bytes);
        } else {  // DMI was withdrawn in flight: the ordinary path
            tlm::tlm_generic_payload payload;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(write.address);
            payload.set_data_ptr(write.bytes.data());
            payload.set_data_length(static_cast<unsigned>(bytes));
            payload.set_streaming_width(static_cast<unsigned>(bytes));
            sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
            host_dma->b_transport(payload, zero);
        }
        if (write.host_update) notify_host_update(sc_core::SC_ZERO_TIME);  // after the data, never before
        spare_write_buffers_.push_back(std::move(write.bytes));
        host_writes_.pop_front();
    }
    if (!host_writes_.empty()) host_write_event_.notify(host_writes_.front().arrival - now);
}

void PcieEndpoint::access_host(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay) {
    const std::uint64_t address = payload.get_address();
    const std::uint64_t bytes = payload.get_data_length();
    const bool read = payload.get_command() == tlm::TLM_READ_COMMAND;
    if (payload.get_byte_enable_ptr() == nullptr && bytes > 0) {
        if (host_dmi_covers(address, bytes, read)) {
            unsigned char* memory = host_pointer(address);
            if (read)
                std::memcpy(payload.get_data_ptr(), memory, bytes);
            else
                std::memcpy(memory, payload.get_data_ptr(), bytes);
            payload.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
    }
    sc_core::sc_time host_delay = delay;
    host_dma->b_transport(payload, host_delay);
}

void PcieEndpoint::invalidate_host_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
    if (host_dmi_valid_ && start <= host_dmi_.get_end_address() && end >= host_dmi_.get_start_address())
        host_dmi_valid_ = false;
}

void PcieEndpoint::irq_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const auto vector = msix_vector_of(payload);
    if (!vector) {
        payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": irq transaction must be a 4-byte write carrying the MSI-X vector "
                                               "(see msix_interrupt.h)")
                            .c_str());
        return;
    }
    if (*vector >= regmap::kMsixVectors) {
        // The vector number comes from a register the guest programs.
        warn("interrupt on MSI-X vector " + std::to_string(*vector) + " dropped: the table has " +
             std::to_string(regmap::kMsixVectors) + " entries");
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (const auto message = msix_.raise(*vector)) send_msi(*message, sim_now() + delay);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// One payload for every notification (a payload built per call allocated
// its extension array): it has no memory manager, b_transport returns it
// to us, and every attribute is set again before each call. A target that
// waited inside the call and let another notification reuse it would see
// the same attributes; nobody reads the response.
void PcieEndpoint::notify_host_update(const sc_core::sc_time& delay) {
    store_le32(regmap::kHostUpdateData, host_update_data_.data());
    tlm::tlm_generic_payload& payload = host_update_payload_;
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_address(regmap::kHostUpdateAddress);
    payload.set_data_ptr(host_update_data_.data());
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time annotated = delay;
    host_dma->b_transport(payload, annotated);
    payload.free_all_extensions();  // as a fresh payload's destruction would
}

void PcieEndpoint::send_msi(const MsiMessage& message, const sc_core::sc_time& earliest) {
    const sc_core::sc_time now = sim_now();
    const sc_core::sc_time sent = reserve(upstream_free_, std::max(earliest, now), timing_.write_wire_bytes(4));
    unsigned char data[4];
    store_le32(message.data, data);
    msi_payload_.set_command(tlm::TLM_WRITE_COMMAND);
    msi_payload_.set_address(message.address);
    msi_payload_.set_data_ptr(data);
    msi_payload_.set_data_length(4);
    msi_payload_.set_streaming_width(4);
    msi_payload_.set_byte_enable_ptr(nullptr);
    msi_payload_.set_dmi_allowed(false);
    msi_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sent + latency_ - now;
    if (log_)
        log_->msix(log_node_, ps_of(now, ps_per_tick_), ps_of(std::max(earliest, now), ps_per_tick_),
                   ps_of(sent + latency_, ps_per_tick_), message.vector, message.address, message.data);
    host_dma->b_transport(msi_payload_, delay);
    ++statistics_.msi_messages;
    statistics_.upstream_bytes += 4;
    if (!msi_payload_.is_response_ok())
        warn("MSI-X vector " + std::to_string(message.vector) + ": the host refused the message write to " +
             hex(message.address));
}

}  // namespace isvp
