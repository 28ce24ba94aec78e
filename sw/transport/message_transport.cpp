// DeviceTransport semantics over protocol messages (shared by remote and local ranks).
#include "isvp/message_transport.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "isvp/register_map.h"

namespace isvp::guest {

using transport::Message;
using transport::MessageType;

namespace {

std::string hex32(std::uint32_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%x", value);
    return text;
}

}  // namespace

MessageTransport::MessageTransport(int rank, int size, GuestClock clock)
    : rank_(rank), size_(size), clock_(std::move(clock)) {}

void MessageTransport::attach() {
    Message hello =
        request(MessageType::Hello, static_cast<std::uint64_t>(size_), static_cast<std::uint64_t>(::getpid()));
    hello.time_ps = 0;
    const Message welcome = exchange(hello, MessageType::Welcome);
    if (welcome.arg0 != static_cast<std::uint64_t>(size_))
        fail("the simulator runs a job of " + std::to_string(welcome.arg0) + " ranks, this rank was told " +
             std::to_string(size_));
    clock_.leave();
}

void MessageTransport::mmio_write32(std::uint32_t offset, std::uint32_t value) {
    require_usable("mmio_write32");
    check_offset("mmio_write32", offset);
    clock_.enter();
    const Message message = request(MessageType::MmioWrite, offset, value);
    try {
        send(message);
    } catch (const TransportError& error) {
        fail(error.what());
    }
    clock_.charge_posted_write();
    clock_.leave();
}

void MessageTransport::mmio_write_combined(std::uint32_t offset, const std::uint32_t* values, std::size_t count) {
    require_usable("mmio_write_combined");
    if (count == 0) return;
    if (count > regmap::kBar0Bytes / 4)
        throw TransportError("isvp transport: mmio_write_combined of " + std::to_string(count) +
                             " dwords runs past BAR0");
    check_offset("mmio_write_combined", offset);
    check_offset("mmio_write_combined", offset + static_cast<std::uint32_t>(4 * (count - 1)));
    clock_.enter();
    // Every dword of one 64-byte line leaves in the same burst, at the time
    // the line is flushed; the clock pays one posted store per line.
    for (std::size_t i = 0; i < count; ++i) {
        const auto at = offset + static_cast<std::uint32_t>(4 * i);
        if (i > 0 && at % kWriteCombineBytes == 0) clock_.charge_posted_write();
        try {
            send(request(MessageType::MmioWrite, at, values[i]));
        } catch (const TransportError& error) {
            fail(error.what());
        }
    }
    clock_.charge_posted_write();
    clock_.leave();
}

static_assert(DeviceTransport::kHostUpdate == transport::kHostUpdateVector &&
                  DeviceTransport::kDeadline == transport::kDeadlineVector,
              "device_transport.h and transport_protocol.h agree");

unsigned MessageTransport::wait_event(std::uint64_t vector_mask, bool host_update, std::uint64_t deadline_ps) {
    require_usable("wait_event");
    if (vector_mask == 0 && !host_update && deadline_ps == 0)
        throw TransportError("isvp transport: wait_event with nothing to wait for can never return");
    if (deadline_ps > transport::kWaitDeadlineMask || deadline_ps > transport::kMaxTimePs)
        throw TransportError("isvp transport: wait_event deadline beyond the end of simulated time");
    clock_.enter();
    Message wait = request(MessageType::WaitInterrupt, vector_mask);
    wait.arg1 = (host_update ? transport::kWaitHostUpdate : 0) | deadline_ps;
    const Message reply = exchange(wait, MessageType::InterruptReply);
    const bool expected = (reply.arg0 < transport::kInterruptVectors && (vector_mask >> reply.arg0 & 1u)) ||
                          (reply.arg0 == transport::kHostUpdateVector && host_update) ||
                          (reply.arg0 == transport::kDeadlineVector && deadline_ps != 0);
    if (!expected) fail("protocol error: woken by " + std::to_string(reply.arg0) + ", which was not waited for");
    clock_.resume_at(reply.time_ps);
    clock_.leave();
    return static_cast<unsigned>(reply.arg0);
}

std::uint32_t MessageTransport::mmio_read32(std::uint32_t offset) {
    require_usable("mmio_read32");
    check_offset("mmio_read32", offset);
    clock_.enter();
    const Message reply = exchange(request(MessageType::MmioRead, offset), MessageType::ReadReply);
    if (reply.arg0 != offset)
        fail("protocol error: read reply for offset " + hex32(static_cast<std::uint32_t>(reply.arg0)) + ", asked for " +
             hex32(offset));
    clock_.resume_at(reply.time_ps);
    clock_.leave();
    return static_cast<std::uint32_t>(reply.arg1);
}

unsigned MessageTransport::wait_interrupt(std::uint64_t vector_mask) {
    require_usable("wait_interrupt");
    if (vector_mask == 0)
        throw TransportError("isvp transport: wait_interrupt with an empty vector mask can never return");
    clock_.enter();
    const Message reply = exchange(request(MessageType::WaitInterrupt, vector_mask), MessageType::InterruptReply);
    if (reply.arg0 >= transport::kInterruptVectors || (vector_mask >> reply.arg0 & 1u) == 0)
        fail("protocol error: woken by vector " + std::to_string(reply.arg0) + ", which is not in the mask " +
             transport::describe_vectors(vector_mask));
    clock_.resume_at(reply.time_ps);
    clock_.leave();
    return static_cast<unsigned>(reply.arg0);
}

std::uint64_t MessageTransport::now_ps() {
    clock_.enter();
    clock_.leave();
    return clock_.now_ps();
}

void MessageTransport::compute(std::uint64_t ps) {
    clock_.enter();
    const std::uint64_t room = clock_.remaining_ps();
    clock_.leave();
    // The clock stays where it was: the guest may go on, and finish().
    if (ps > room)
        throw TransportError("isvp transport: rank " + std::to_string(rank_) + ": compute(" + std::to_string(ps) +
                             " ps) at " + transport::format_time_ps(clock_.now_ps()) +
                             " would pass the end of simulated time, " +
                             transport::format_time_ps(transport::kMaxTimePs) + " (2^62 ps)");
    clock_.advance(ps);
}

void MessageTransport::finish(int exit_code) {
    if (finished_ || !failure_.empty()) return;
    clock_.enter();
    finished_ = true;
    try {
        send(request(MessageType::Finish, static_cast<std::uint32_t>(exit_code)));
    } catch (const TransportError& error) {
        failure_ = error.what();
    }
}

void MessageTransport::discard_host_memory(std::uint64_t address, std::size_t bytes) {
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t size = host_memory_bytes();
    if (address >= size) return;
    bytes = std::min<std::size_t>(bytes, size - address);
    const auto start = reinterpret_cast<std::uintptr_t>(host_memory() + address);
    const std::uintptr_t begin = (start + page - 1) / page * page;
    const std::uintptr_t end = (start + bytes) / page * page;
    if (end <= begin) return;
    void* at = reinterpret_cast<void*>(begin);
    // A shared-memory segment (a remote rank's) keeps its pages for the
    // other mapping unless they are removed; private memory (a local
    // rank's) refuses MADV_REMOVE and is given back by MADV_DONTNEED.
    if (discard_removes_ && ::madvise(at, end - begin, MADV_REMOVE) == 0) return;
    discard_removes_ = false;
    ::madvise(at, end - begin, MADV_DONTNEED);
}

Message MessageTransport::request(MessageType type, std::uint64_t arg0, std::uint64_t arg1) {
    Message message;
    message.type = type;
    message.rank = static_cast<std::uint32_t>(rank_);
    message.time_ps = clock_.now_ps();
    message.arg0 = arg0;
    message.arg1 = arg1;
    return message;
}

Message MessageTransport::exchange(const Message& message, MessageType reply_type) {
    Message reply;
    std::string error_text;
    try {
        send(message);
        reply = receive(error_text);
    } catch (const TransportError& error) {
        fail(error.what());
    }
    if (reply.type == MessageType::Error) fail("isvp transport: rank " + std::to_string(rank_) + ": " + error_text);
    if (reply.type != reply_type)
        fail("isvp transport: protocol error: the simulator answered " + transport::to_string(message.type) + " with " +
             transport::to_string(reply.type));
    if (reply.time_ps < message.time_ps)
        fail("isvp transport: protocol error: reply time " + transport::format_time_ps(reply.time_ps) +
             " before the request's " + transport::format_time_ps(message.time_ps));
    return reply;
}

void MessageTransport::require_usable(const char* operation) const {
    if (!failure_.empty()) throw TransportError(failure_);
    if (finished_)
        throw TransportError(std::string("isvp transport: ") + operation + " after finish() on rank " +
                             std::to_string(rank_));
}

void MessageTransport::check_offset(const char* operation, std::uint32_t offset) const {
    if (offset % 4 != 0 || offset >= regmap::kBar0Bytes)
        throw TransportError(std::string("isvp transport: ") + operation + "(" + hex32(offset) +
                             "): BAR0 offsets are 32-bit aligned and below " + hex32(regmap::kBar0Bytes));
}

void MessageTransport::fail(const std::string& reason) {
    failure_ = reason;
    throw TransportError(reason);
}

}  // namespace isvp::guest
