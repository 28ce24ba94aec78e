// QDMA error paths, each with the exact register bits: the ring's status
// (ERROR + ERROR_CODE), ERROR_STATUS, ERROR_QUEUE, ERROR_ADDRESS, the error
// flag in the status writeback, the warning text; the queue stops until
// QUEUE_COMMAND.RESET and works again afterwards; nothing is lost on C2H.
#include <sstream>

#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;
using regmap::QueueError;

namespace {

constexpr std::size_t kMemoryBytes = 64u << 20;
constexpr std::uint64_t kOutside = 0x10000000;  // 256 MiB: beyond host memory
std::string last_warning;                       // the latest SC_REPORT_WARNING text

void record_warnings(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (report.get_severity() == sc_core::SC_WARNING) last_warning = report.get_msg();
    sc_core::sc_report_handler::default_handler(report, actions);
}

std::string code_name(QueueError error) {
    return std::to_string(static_cast<unsigned>(error));
}

std::string hex(std::uint64_t value) {
    std::ostringstream text;
    text << "0x" << std::hex << value;
    return text.str();
}

}  // namespace

int sc_main(int, char**) {
    sc_core::sc_report_handler::set_handler(record_warnings);
    Checker check;
    Platform platform(PcieConfig{}, QdmaConfig{}, kMemoryBytes);
    Host& host = platform.host;
    TestQueue q0(platform, 0, 3 * TestQueue::kRegionBytes);  // not at 0: ERROR_ADDRESS checks mean something
    TestQueue q6(platform, 6, 1 * TestQueue::kRegionBytes);
    TestQueue q7(platform, 7, 2 * TestQueue::kRegionBytes);
    const auto h2c_status = regmap::H2C_STATUS;
    const auto c2h_status = regmap::C2H_STATUS;
    const auto cmpt_status = regmap::CMPT_STATUS;

    // Checks the registers after a queue error, then clears ERROR_STATUS.
    auto expect_error = [&](const std::string& what, unsigned q, std::uint32_t status_register, QueueError code,
                            std::uint32_t bit, std::uint64_t address) {
        sc_core::wait(ns(20000));
        const std::uint32_t status = host.read32(regmap::QUEUE(q) + status_register);
        check.expect(regmap::status::ERROR.get(status) == 1 &&
                         regmap::status::ERROR_CODE.get(status) == static_cast<std::uint32_t>(code),
                     what + ": ring status ERROR with code " + code_name(code) + " (status " + hex(status) + ")");
        const std::uint32_t errors = host.read32(regmap::ERROR_STATUS);
        const std::uint64_t at = host.read32(regmap::ERROR_ADDRESS_LO) |
                                 static_cast<std::uint64_t>(host.read32(regmap::ERROR_ADDRESS_HI)) << 32;
        check.expect(errors == bit && host.read32(regmap::ERROR_QUEUE) == q && at == address,
                     what + ": ERROR_STATUS " + hex(bit) + ", ERROR_QUEUE " + std::to_string(q) + ", ERROR_ADDRESS " +
                         hex(address) + " (got " + hex(errors) + ", " + hex(at) + ")");
        host.write32(regmap::ERROR_STATUS, errors);
        check.expect(host.read32(regmap::ERROR_STATUS) == 0, what + ": ERROR_STATUS clears by writing 1s");
    };
    auto header_bytes = [](const ProcessorHeader& header) {
        std::vector<std::uint8_t> bytes(8);
        header.write(bytes.data());
        return bytes;
    };
    // Writes `bytes` at `address` and posts one descriptor for them.
    auto post_raw = [&](TestQueue& queue, std::uint64_t address, const std::vector<std::uint8_t>& bytes,
                        std::uint32_t length, std::uint32_t flags) {
        std::memcpy(platform.at(address), bytes.data(), bytes.size());
        queue.post_h2c({address, length, flags});
    };

    return run(platform, check, [&] {
        using namespace regmap;
        q0.enable(QueueSetup{});
        q0.post_buffers(16);
        const std::uint64_t data = q0.data_area();
        const std::uint32_t sop_eop = H2C_SOP | H2C_EOP;

        check.section("doorbells");
        host.write32(DOORBELL(5) + H2C_PIDX, 1);
        expect_error("H2C_PIDX on disabled queue 5", 5, h2c_status, QueueError::NotEnabled, error_status::BAD_DOORBELL,
                     DOORBELL(5) + H2C_PIDX);
        check.expect(last_warning.find("queue 5 H2C") != std::string::npos &&
                         last_warning.find("NotEnabled") != std::string::npos,
                     "the warning names the queue, ring and error: " + last_warning);
        check.expect(host.read32(QUEUE(5) + c2h_status) == 0, "only the H2C ring of queue 5 stopped");
        host.write32(DOORBELL(5) + C2H_PIDX, 1);
        expect_error("C2H_PIDX on disabled queue 5", 5, c2h_status, QueueError::NotEnabled, error_status::BAD_DOORBELL,
                     DOORBELL(5) + C2H_PIDX);
        host.write32(DOORBELL(5) + CMPT_CIDX, 1);
        expect_error("CMPT_CIDX on disabled queue 5", 5, cmpt_status, QueueError::NotEnabled,
                     error_status::BAD_DOORBELL, DOORBELL(5) + CMPT_CIDX);
        host.write32(QUEUE(5) + QUEUE_COMMAND, command::RESET.make(1));
        sc_core::wait(ns(1000));
        check.expect(host.read32(QUEUE(5) + h2c_status) == 0 && host.read32(QUEUE(5) + c2h_status) == 0 &&
                         host.read32(QUEUE(5) + cmpt_status) == status::COLOR.make(1),
                     "QUEUE_COMMAND.RESET clears all three rings' errors");

        host.write32(DOORBELL(0) + H2C_PIDX, 63);
        expect_error("H2C_PIDX 63 on a 64-entry ring", 0, h2c_status, QueueError::DoorbellRange,
                     error_status::BAD_DOORBELL, DOORBELL(0) + H2C_PIDX);
        const std::size_t sent = platform.loopback.captured.size();
        q0.send(send_header(16, 0, 0), pattern(16, 1));
        sc_core::wait(ns(20000));
        check.expect(
            platform.loopback.captured.size() == sent &&
                host.read32(QUEUE(0) + h2c_status) ==
                    (status::ERROR.make(1) | status::ERROR_CODE.make(static_cast<unsigned>(QueueError::DoorbellRange))),
            "a stopped queue ignores further doorbells");
        q0.reset();
        q0.post_buffers(16);
        q0.send(send_header(16, 0, 0), pattern(16, 2));
        check.expect(
            q0.wait_completions(1, ns(20000)) == 1 && host.read32(QUEUE(0) + h2c_status) == status::INDEX.make(1),
            "after QUEUE_COMMAND.RESET the queue runs again from index 0");
        q0.take_completion(*q0.peek_completion());
        q0.ring_cmpt();
        host.write32(DOORBELL(0) + C2H_PIDX, 63);
        expect_error("C2H_PIDX 63 on a 64-entry ring", 0, c2h_status, QueueError::DoorbellRange,
                     error_status::BAD_DOORBELL, DOORBELL(0) + C2H_PIDX);
        host.write32(DOORBELL(0) + CMPT_CIDX, 100);
        expect_error("CMPT_CIDX 100 on a 64-entry ring", 0, cmpt_status, QueueError::DoorbellRange,
                     error_status::BAD_DOORBELL, DOORBELL(0) + CMPT_CIDX);
        q0.reset();
        q0.post_buffers(16);

        check.section("descriptor length");
        post_raw(q0, data, header_bytes(send_header(0, 0)), 0, sop_eop);
        q0.ring_h2c();
        expect_error("a zero-length descriptor", 0, h2c_status, QueueError::DescriptorLength, error_status::DESCRIPTOR,
                     q0.h2c_ring());
        check.expect(
            last_warning.find("descriptor 0") != std::string::npos && last_warning.find("0x") != std::string::npos,
            "the warning names the descriptor index and address: " + last_warning);
        check.expect(q0.h2c_writeback().flags == kWritebackError, "the H2C status writeback carries the error flag");
        q0.reset();
        post_raw(q0, data, header_bytes(send_header(70000 - 8, 0)), 70000, sop_eop);
        q0.ring_h2c();
        expect_error("a descriptor over 65535 bytes", 0, h2c_status, QueueError::DescriptorLength,
                     error_status::DESCRIPTOR, q0.h2c_ring());
        q0.reset();

        check.section("packet framing");
        const auto h100 = header_bytes(send_header(100, 0));
        post_raw(q0, data, h100, 108, H2C_EOP);
        q0.ring_h2c();
        expect_error("a first descriptor without SOP", 0, h2c_status, QueueError::PacketFraming,
                     error_status::DESCRIPTOR, q0.h2c_ring());
        q0.reset();
        post_raw(q0, data, h100, 8, H2C_SOP);
        post_raw(q0, data + 8, {}, 100, sop_eop);
        q0.ring_h2c();
        expect_error("SOP inside a packet", 0, h2c_status, QueueError::PacketFraming, error_status::DESCRIPTOR,
                     q0.h2c_ring() + 16);
        q0.reset();
        post_raw(q0, data, h100, 50, sop_eop);
        q0.ring_h2c();
        expect_error("EOP before 8 + message_bytes", 0, h2c_status, QueueError::PacketFraming, error_status::DESCRIPTOR,
                     q0.h2c_ring());
        q0.reset();
        post_raw(q0, data, h100, 200, sop_eop);
        q0.ring_h2c();
        expect_error("descriptors longer than 8 + message_bytes", 0, h2c_status, QueueError::PacketFraming,
                     error_status::DESCRIPTOR, q0.h2c_ring());
        q0.reset();
        post_raw(q0, data, h100, 108, H2C_SOP);
        q0.ring_h2c();
        expect_error("a complete packet without EOP", 0, h2c_status, QueueError::PacketFraming,
                     error_status::DESCRIPTOR, q0.h2c_ring());
        q0.reset();
        post_raw(q0, data, h100, 60, H2C_SOP);
        post_raw(q0, data + 60, {}, 60, H2C_EOP);
        q0.ring_h2c();
        expect_error("a later descriptor overrunning the packet", 0, h2c_status, QueueError::PacketFraming,
                     error_status::DESCRIPTOR, q0.h2c_ring() + 16);
        q0.reset();

        check.section("processor header");
        auto reserved = h100;
        const std::uint64_t bits = send_header(100, 0).encode() | (12ull << 38);  // opcode 12 is reserved
        for (int i = 0; i < 8; ++i) reserved[i] = static_cast<std::uint8_t>(bits >> (8 * i));
        post_raw(q0, data, reserved, 108, sop_eop);
        q0.ring_h2c();
        expect_error("a reserved opcode", 0, h2c_status, QueueError::PacketHeader, error_status::DESCRIPTOR,
                     q0.h2c_ring());
        q0.reset();
        post_raw(q0, data, header_bytes(send_header(100, 4)), 108, sop_eop);
        q0.ring_h2c();
        expect_error("destination rank 4 of 4 nodes", 0, h2c_status, QueueError::PacketHeader, error_status::DESCRIPTOR,
                     q0.h2c_ring());
        check.expect(last_warning.find("rank 4 of 4") != std::string::npos,
                     "the warning names the rank: " + last_warning);
        q0.reset();

        check.section("DMA outside host memory");
        q0.post_h2c({kOutside, 108, sop_eop});
        q0.ring_h2c();
        expect_error("descriptor data outside host memory", 0, h2c_status, QueueError::DescriptorAddress,
                     error_status::DMA, kOutside);
        q0.reset();
        q6.enable(QueueSetup{});
        host.write32(q6.reg(H2C_CONTROL), 0);
        host.write32(q6.reg(H2C_BASE_LO), static_cast<std::uint32_t>(kOutside));
        host.write32(q6.reg(H2C_CONTROL), control::ENABLE.make(1));
        host.write32(q6.doorbell(H2C_PIDX), 1);
        expect_error("an H2C ring outside host memory", 6, h2c_status, QueueError::DescriptorAddress, error_status::DMA,
                     kOutside);

        // A C2H buffer outside memory: the packet is kept, not lost.
        encode_c2h_descriptor({kOutside}, platform.at(q0.c2h_ring()));
        host.write32(q0.doorbell(C2H_PIDX), 1);
        const auto kept = pattern(100, 9);
        q0.send(send_header(100, 0, 0), kept);
        expect_error("a C2H buffer outside host memory", 0, c2h_status, QueueError::DescriptorAddress,
                     error_status::DMA, kOutside);
        check.expect(platform.network.rx_buffered_phits() == phits_of(kNetworkPacketOverhead + 100),
                     "the packet stays in the receive buffer");
        q0.reset();
        q0.post_buffers(4);
        check.expect(q0.wait_completions(1, ns(20000)) == 1 && q0.take_completion(*q0.peek_completion()) == kept,
                     "after reset and good buffers it is delivered byte for byte");
        q0.ring_cmpt();

        host.write32(CONTEXT_QUEUE(6), 6);
        host.write32(q6.reg(C2H_CONTROL), 0);
        host.write32(q6.reg(C2H_BASE_LO), static_cast<std::uint32_t>(kOutside));
        host.write32(q6.reg(C2H_CONTROL), control::ENABLE.make(1));
        host.write32(q6.doorbell(C2H_PIDX), 1);
        q0.send(send_header(32, 0, 6), pattern(32, 10));
        expect_error("a C2H ring outside host memory", 6, c2h_status, QueueError::DescriptorAddress, error_status::DMA,
                     kOutside);
        // Repair: a good C2H ring, and a CMPT ring outside memory instead.
        host.write32(q6.reg(C2H_CONTROL), 0);
        host.write32(q6.reg(C2H_BASE_LO), static_cast<std::uint32_t>(q6.c2h_ring()));
        host.write32(q6.reg(CMPT_CONTROL), 0);
        host.write32(q6.reg(CMPT_BASE_LO), static_cast<std::uint32_t>(kOutside));
        host.write32(q6.reg(QUEUE_COMMAND), command::RESET.make(1));
        host.write32(q6.reg(C2H_CONTROL), control::ENABLE.make(1));
        host.write32(q6.reg(CMPT_CONTROL), control::ENABLE.make(1) | control::STATUS_ENABLE.make(1));
        encode_c2h_descriptor({q6.buffer_address(0)}, platform.at(q6.c2h_ring()));
        host.write32(q6.doorbell(C2H_PIDX), 1);
        expect_error("a completion ring outside host memory", 6, cmpt_status, QueueError::DescriptorAddress,
                     error_status::DMA, kOutside);
        check.expect(std::vector<std::uint8_t>(platform.at(q6.buffer_address(0)),
                                               platform.at(q6.buffer_address(0)) + 32) == pattern(32, 10),
                     "the payload reached its buffer before the completion write failed");

        check.section("C2H buffer too small");
        QueueSetup small;
        small.buffer_bytes = 512;
        q7.enable(small);
        host.write32(CONTEXT_QUEUE(7), 7);
        q7.post_buffers(4);
        const auto big = pattern(100, 11);
        q0.send(send_header(100, 0, 7), big);
        expect_error("C2H_BUFFER_BYTES 512 below PACKET_BYTES 1024", 7, c2h_status, QueueError::BufferTooSmall,
                     error_status::C2H_NO_BUFFER, QUEUE(7) + C2H_BUFFER_BYTES);
        host.write32(q7.reg(C2H_BUFFER_BYTES), 1024);
        q7.reset();
        q7.post_buffers(4);
        check.expect(q7.wait_completions(1, ns(20000)) == 1 && q7.take_completion(*q7.peek_completion()) == big,
                     "with a big enough buffer and a reset, the held packet is delivered");

        check.section("malformed network packets");
        {
            PacketPool pool;
            tlm::tlm_generic_payload* packet = pool.allocate(kNetworkPacketOverhead + 8);
            std::memset(packet->get_data_ptr(), 0, packet->get_data_length());
            packet->get_data_ptr()[0] = 0xF6;  // opcode 15: reserved
            const std::uint32_t held = platform.network.rx_buffered_phits();
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            platform.loopback.eject->b_transport(*packet, delay);
            check.expect(packet->is_response_ok() && platform.qdma.statistics().rx_dropped == 1 &&
                             platform.network.rx_buffered_phits() == held,
                         "a packet with a reserved opcode is accepted and dropped");
            packet->release();
            check.expect(host.read32(ERROR_STATUS) == error_status::PACKET_DROPPED,
                         "ERROR_STATUS.PACKET_DROPPED is set");
            host.write32(ERROR_STATUS, error_status::PACKET_DROPPED);
        }
        check.expect(host.read32(ERROR_STATUS) == 0, "no error bit is left behind");
    });
}
