// One rank's host CPU in the platform: MMIO out, MSI-X in.
#include "isvp/guest_gateway.h"

#include <string>
#include <utility>

#include "isvp/register_map.h"
#include "isvp/sim_now.h"

namespace isvp::transport {

namespace {
constexpr const char* kReportType = "isvp/transport";
}

std::uint64_t to_ps(const sc_core::sc_time& time) {
    return time.value();
}

sc_core::sc_time from_ps(std::uint64_t time_ps) {
    return sc_core::sc_time::from_value(time_ps);
}

GuestGateway::GuestGateway(sc_core::sc_module_name name, int rank, CompletionSink sink)
    : sc_core::sc_module(name), mmio("mmio"), msi("msi"), rank_(rank), sink_(std::move(sink)) {
    msi.register_b_transport(this, &GuestGateway::msi_transport);
    SC_HAS_PROCESS(GuestGateway);
    SC_THREAD(serve);
    SC_METHOD(deliver_arrivals);
    sensitive << arrival_event_;
    dont_initialize();
    SC_METHOD(wait_deadline);
    sensitive << deadline_event_;
    dont_initialize();
}

void GuestGateway::execute(const Message& request) {
    inbox_.push_back(request);
    request_event_.notify(sc_core::SC_ZERO_TIME);
}

void GuestGateway::cancel() {
    // Requests already handed over were executed at their times and are
    // carried out; only the wait is forgotten.
    wait_mask_ = 0;
    waiting_ = false;
    deadline_event_.cancel();
}

void GuestGateway::serve() {
    for (;;) {
        while (inbox_.empty()) wait(request_event_);
        const Message request = inbox_.front();
        inbox_.pop_front();
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        switch (request.type) {
            case MessageType::MmioWrite:
                ++writes_;
                access(tlm::TLM_WRITE_COMMAND, request.arg0, static_cast<std::uint32_t>(request.arg1), delay);
                break;
            case MessageType::MmioRead: {
                ++reads_;
                const std::uint32_t value = access(tlm::TLM_READ_COMMAND, request.arg0, 0, delay);
                complete(MessageType::ReadReply, to_ps(sim_now() + delay), request.arg0, value);
                break;
            }
            case MessageType::WaitInterrupt: {
                wait_mask_ = request.arg0;
                waiting_ = true;
                wait_host_update_ = (request.arg1 & kWaitHostUpdate) != 0;
                host_updates_wanted_ = host_updates_wanted_ || wait_host_update_;
                if (try_wake()) break;
                const std::uint64_t deadline = request.arg1 & kWaitDeadlineMask;
                if (deadline == 0) break;
                const std::uint64_t now = to_ps(sim_now());
                deadline_event_.notify(from_ps(deadline > now ? deadline - now : 0));
                break;
            }
            default:
                SC_REPORT_ERROR(
                    kReportType,
                    (std::string(name()) + ": cannot execute a " + to_string(request.type) + " request").c_str());
        }
    }
}

std::uint32_t GuestGateway::access(tlm::tlm_command command, std::uint64_t offset, std::uint32_t value,
                                   sc_core::sc_time& delay) {
    unsigned char data[4] = {static_cast<unsigned char>(value), static_cast<unsigned char>(value >> 8),
                             static_cast<unsigned char>(value >> 16), static_cast<unsigned char>(value >> 24)};
    tlm::tlm_generic_payload& payload = payload_;
    payload.set_command(command);
    payload.set_address(offset);
    payload.set_data_ptr(data);
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mmio->b_transport(payload, delay);
    payload.free_all_extensions();  // as a fresh payload's destruction would
    payload.set_data_ptr(nullptr);
    if (!payload.is_response_ok()) {
        ++mmio_errors_;
        return 0xFFFFFFFFu;
    }
    return static_cast<std::uint32_t>(data[0]) | static_cast<std::uint32_t>(data[1]) << 8 |
           static_cast<std::uint32_t>(data[2]) << 16 | static_cast<std::uint32_t>(data[3]) << 24;
}

void GuestGateway::msi_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const unsigned char* data = payload.get_data_ptr();
    const bool shaped = payload.get_command() == tlm::TLM_WRITE_COMMAND && payload.get_data_length() == 4 &&
                        payload.get_byte_enable_ptr() == nullptr && data != nullptr;
    const std::uint32_t vector =
        shaped ? (static_cast<std::uint32_t>(data[0]) | static_cast<std::uint32_t>(data[1]) << 8 |
                  static_cast<std::uint32_t>(data[2]) << 16 | static_cast<std::uint32_t>(data[3]) << 24)
               : 0;
    const bool host_update =
        shaped && payload.get_address() == regmap::kHostUpdateAddress && vector == regmap::kHostUpdateData;
    if (host_update) {  // not an interrupt: a completion landed in host memory
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        // Kept only once the rank polls: a rank that never does sees the
        // platform with no event of this kind (its simulated times are
        // exactly those without the notification).
        if (!host_updates_wanted_) return;
        in_flight_.emplace(sim_now() + delay, kHostUpdateVector);
        arrival_event_.notify(in_flight_.begin()->first - sim_now());
        return;
    }
    if (!shaped || vector >= kInterruptVectors) {
        // What reaches the MSI window is guest-controlled (the MSI-X table's
        // data field, or a DMA a guest aimed at the window): like a host's
        // interrupt controller with an illegal vector, drop it and say so.
        ++dropped_msis_;
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        SC_REPORT_WARNING(
            kReportType, (std::string(name()) + ": MSI dropped: it must be a 4-byte write of a vector below " +
                          std::to_string(kInterruptVectors) + (shaped ? ", got vector " + std::to_string(vector) : "") +
                          " (check the MSI-X table's data fields)")
                             .c_str());
        return;
    }
    ++interrupts_;
    const sc_core::sc_time arrival = sim_now() + delay;
    in_flight_.emplace(arrival, vector);
    arrival_event_.notify(in_flight_.begin()->first - sim_now());
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void GuestGateway::deliver_arrivals() {
    const sc_core::sc_time now = sim_now();
    while (!in_flight_.empty() && in_flight_.begin()->first <= now) {
        const unsigned vector = in_flight_.begin()->second;
        if (vector == kHostUpdateVector)
            host_update_ = true;
        else
            ++pending_[vector];
        in_flight_.erase(in_flight_.begin());
    }
    if (!in_flight_.empty()) arrival_event_.notify(in_flight_.begin()->first - now);
    try_wake();
}

bool GuestGateway::try_wake() {
    if (!waiting_) return false;
    std::uint64_t ready = 0;
    for (unsigned vector = 0; vector < kInterruptVectors; ++vector)
        if (pending_[vector] > 0) ready |= std::uint64_t{1} << vector;
    ready &= wait_mask_;
    unsigned vector;
    if (ready != 0) {
        vector = lowest_vector(ready);
        --pending_[vector];
    } else if (wait_host_update_ && host_update_) {
        vector = kHostUpdateVector;
        host_update_ = false;
    } else {
        return false;
    }
    wait_mask_ = 0;
    waiting_ = false;
    deadline_event_.cancel();
    complete(MessageType::InterruptReply, to_ps(sim_now()), vector, 0);
    return true;
}

void GuestGateway::wait_deadline() {
    if (!waiting_) return;
    wait_mask_ = 0;
    waiting_ = false;
    complete(MessageType::InterruptReply, to_ps(sim_now()), kDeadlineVector, 0);
}

void GuestGateway::complete(MessageType type, std::uint64_t time_ps, std::uint64_t arg0, std::uint64_t arg1) {
    Message reply;
    reply.type = type;
    reply.rank = static_cast<std::uint32_t>(rank_);
    reply.time_ps = time_ps;
    reply.arg0 = arg0;
    reply.arg1 = arg1;
    sink_(rank_, reply);
    sc_core::sc_pause();
}

}  // namespace isvp::transport
