// QDMA data path, H2C -> loopback -> C2H, driven through BAR0 like a guest
// driver: packet conversion (network and replicated headers), payloads byte
// for byte, completion entries (header, offset, length, last, colour),
// descriptor framing variants, status writeback, context steering, ring wrap
// with colour flips over 250 packets, and a 1 MiB message streaming through
// the bounded H2C buffer.
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

namespace {

constexpr std::size_t kMemoryBytes = 64u << 20;
constexpr std::uint16_t kNode = 1;  // this node (and rank)
constexpr std::uint16_t kNodes = 4;

/// Receives one whole message on `queue`: takes completions until LAST,
/// places each payload at its offset, reposts the buffers it used.
struct Received {
    std::vector<std::uint8_t> data;
    std::vector<regmap::CompletionEntry> entries;
};

Received receive_message(TestQueue& queue, std::uint32_t bytes, sc_core::sc_time timeout = ns(1e6)) {
    Received received;
    received.data.assign(bytes, 0);
    const sc_core::sc_time end = sc_core::sc_time_stamp() + timeout;
    while (sc_core::sc_time_stamp() < end) {
        const auto entry = queue.peek_completion();
        if (!entry) {
            sc_core::wait(ns(100));
            continue;
        }
        const auto payload = queue.take_completion(*entry);
        received.entries.push_back(*entry);
        if (entry->offset + payload.size() <= bytes)
            std::copy(payload.begin(), payload.end(), received.data.begin() + entry->offset);
        queue.post_buffers(1);
        queue.ring_cmpt();
        if (entry->flags & regmap::CMPT_LAST) break;
    }
    return received;
}

}  // namespace

int sc_main(int, char**) {
    Checker check;
    const QdmaConfig config;  // 1024-byte packets, 64 queues, 512-bit stream at 250 MHz
    Platform platform(PcieConfig{}, config, kMemoryBytes, kNode, kNodes);
    Host& host = platform.host;
    TestQueue q0(platform, 0, 0);
    TestQueue q1(platform, 1, 1 * TestQueue::kRegionBytes);
    TestQueue q2(platform, 2, 2 * TestQueue::kRegionBytes);
    TestQueue q3(platform, 3, 3 * TestQueue::kRegionBytes);

    return run(platform, check, [&] {
        q0.enable(QueueSetup{});
        q0.post_buffers(32);

        check.section("one small message");
        {
            const auto payload = pattern(100, 1);
            const auto header = send_header(100, 2, 0);
            q0.send(header, payload);
            check.expect(q0.wait_completions(1) == 1, "a 100-byte message produces a completion");
            const auto entry = *q0.peek_completion();
            const auto data = q0.take_completion(entry);
            q0.ring_cmpt();
            const auto delivered = ProcessorHeader::decode(entry.header);
            check.expect(delivered && delivered->rank == kNode && delivered->message_bytes == 100 &&
                             delivered->opcode == Opcode::Send && delivered->context_id == 0,
                         "the completion carries the header with rank = the source rank");
            check.expect(entry.offset == 0 && entry.length == 100 && (entry.flags & regmap::CMPT_LAST) &&
                             (entry.flags & regmap::CMPT_COLOR) && !(entry.flags & regmap::CMPT_ERROR),
                         "offset 0, length 100, LAST, colour 1");
            check.expect(data == payload, "the payload arrives byte for byte");

            const auto& sent = platform.loopback.captured.back();
            std::string why;
            const auto view = NetworkPacketView::parse(sent.bytes.data(), sent.bytes.size(), &why);
            check.expect(view.has_value(), "the QDMA emits a well-formed network packet " + why);
            if (view) {
                check.expect(view->network.size_code == 6 && view->network.payload_capacity() == 1024,
                             "network header size code 6 = 1024-byte packets");
                check.expect(
                    view->network.destination == 2 && view->network.opcode == Opcode::Send && view->network.last,
                    "network header: destination node 2 (rank 2), opcode, last");
                check.expect(view->processor.rank == kNode && view->processor.message_bytes == 100 &&
                                 view->offset == 0 && view->payload_bytes == 100,
                             "replicated header names the source rank; offset 0; 100 payload bytes");
            }
            check.expect(sent.tail_after == ns(4), "118 bytes on a 64-byte stream: tail one 4 ns cycle after head");
            check.expect(host.read32(q0.reg(regmap::H2C_STATUS)) == regmap::status::INDEX.make(1),
                         "H2C_STATUS.INDEX (CIDX) advanced to 1, no error");
            check.expect(host.read32(regmap::PACKET_BYTES) == 1024, "PACKET_BYTES reads the packet capacity");
        }

        check.section("a 5000-byte message over 1500-byte descriptors");
        {
            const auto payload = pattern(5000, 2);
            const std::size_t first = platform.loopback.captured.size();
            q0.send(send_header(5000, 3, 0), payload, 1500);
            const Received received = receive_message(q0, 5000);
            check.expect(received.entries.size() == 5, "five network packets: 4 x 1024 + 904");
            bool layout = received.entries.size() == 5;
            for (std::size_t i = 0; layout && i < 5; ++i) {
                const auto& entry = received.entries[i];
                layout = entry.offset == i * 1024 && entry.length == (i < 4 ? 1024 : 904) &&
                         ((entry.flags & regmap::CMPT_LAST) != 0) == (i == 4);
            }
            check.expect(layout, "completions in order with offsets 0, 1024, ... and LAST only on the last");
            check.expect(received.data == payload, "the message reassembles byte for byte");
            bool headers = platform.loopback.captured.size() == first + 5;
            for (std::size_t i = 0; headers && i < 5; ++i) {
                const auto& bytes = platform.loopback.captured[first + i].bytes;
                const auto view = NetworkPacketView::parse(bytes.data(), bytes.size(), nullptr);
                headers = view && view->network.destination == 3 && view->network.last == (i == 4) &&
                          view->processor.rank == kNode && view->processor.message_bytes == 5000 &&
                          view->offset == i * 1024;
            }
            check.expect(headers, "every packet replicates the processor header; last flag on the final one");
        }

        check.section("framing variants");
        {
            q0.send(send_header(0, 0, 0), {});
            const Received empty = receive_message(q0, 0);
            check.expect(empty.entries.size() == 1 && empty.entries[0].length == 0 &&
                             (empty.entries[0].flags & regmap::CMPT_LAST) &&
                             platform.loopback.captured.back().bytes.size() == kNetworkPacketOverhead,
                         "a zero-byte message is still one (header-only) packet");

            const std::uint32_t before = q0.h2c_pidx();
            const auto payload = pattern(20, 3);
            q0.send(send_header(20, 1, 0), payload, 5);  // header split over two descriptors
            const Received split = receive_message(q0, 20);
            check.expect(split.entries.size() == 1 && split.data == payload,
                         "a header split across descriptors still frames the packet");
            check.expect(q0.ring().distance(before, q0.h2c_pidx()) == 6 &&
                             host.read32(q0.reg(regmap::H2C_STATUS)) == regmap::status::INDEX.make(q0.h2c_pidx()),
                         "all six 5-byte descriptors complete (CIDX == PIDX)");
        }

        check.section("status writeback");
        {
            const auto h2c = q0.h2c_writeback();
            check.expect(h2c.pidx == q0.h2c_pidx() && h2c.cidx == q0.h2c_pidx() && h2c.flags == 0,
                         "H2C writeback in the ring's last entry: PIDX, CIDX, no error");
            const auto cmpt = q0.cmpt_writeback();
            const std::uint32_t status = host.read32(q0.reg(regmap::CMPT_STATUS));
            check.expect(cmpt.pidx == q0.cmpt_cidx() && regmap::status::INDEX.get(status) == cmpt.pidx &&
                             (cmpt.flags & kWritebackColour) && regmap::status::COLOR.get(status) == 1,
                         "CMPT writeback: PIDX as CMPT_STATUS.INDEX, colour 1 before any wrap");
            check.expect(cmpt.cidx == q0.cmpt_cidx() - 1,
                         "CMPT writeback CIDX: the driver's CMPT_CIDX as of the last entry");
        }

        check.section("context steering");
        {
            q3.enable(QueueSetup{});
            q3.post_buffers(8);
            host.write32(regmap::CONTEXT_QUEUE(5), 3);
            check.expect(host.read32(regmap::CONTEXT_QUEUE(5)) == 3, "CONTEXT_QUEUE(5) reads back 3");
            const auto payload = pattern(300, 5);
            q0.send(send_header(300, 2, 5), payload);
            check.expect(q3.wait_completions(1, ns(20000)) == 1 && !q0.peek_completion(),
                         "a packet of context 5 lands on queue 3, not queue 0");
            const Received received = receive_message(q3, 300);
            check.expect(
                received.data == payload && ProcessorHeader::decode(received.entries[0].header)->context_id == 5,
                "... with its payload and context ID");
        }

        check.section("ring wrap: 64-entry rings, 250 packets");
        {
            QueueSetup setup;
            setup.ring_size_index = 0;  // 64 entries: 63 usable, 62 outstanding
            q1.enable(setup);
            host.write32(regmap::CONTEXT_QUEUE(1), 1);
            q1.post_buffers(62);
            constexpr std::uint32_t kPackets = 250;
            std::uint32_t sent = 0, received = 0;
            bool payloads = true, colours = true, headers = true;
            const sc_core::sc_time end = sc_core::sc_time_stamp() + ns(5e6);
            while (received < kPackets && sc_core::sc_time_stamp() < end) {
                // Post while the H2C ring has room (its writeback says how far the QDMA got).
                while (sent < kPackets &&
                       q1.ring().distance(q1.h2c_writeback().cidx, q1.h2c_pidx()) < q1.ring().slots() - 1) {
                    q1.send(send_header(512, 0, 1), pattern(512, 1000 + sent));
                    ++sent;
                }
                std::uint32_t taken = 0;
                while (const auto entry = q1.peek_completion()) {
                    const bool colour = (entry->flags & regmap::CMPT_COLOR) != 0;
                    colours = colours && colour == ((received / q1.ring().slots()) % 2 == 0);
                    const auto data = q1.take_completion(*entry);
                    payloads = payloads && data == pattern(512, 1000 + received);
                    headers =
                        headers && entry->length == 512 && (entry->flags & regmap::CMPT_LAST) && entry->offset == 0;
                    ++received;
                    ++taken;
                }
                if (taken) {
                    q1.post_buffers(taken);
                    q1.ring_cmpt();
                }
                sc_core::wait(ns(200));
            }
            check.expect(received == kPackets,
                         "all 250 packets delivered through 64-entry rings (" + std::to_string(received) + ")");
            check.expect(payloads && headers, "every payload byte for byte, in order, with LAST and length");
            check.expect(colours, "the completion colour flips each time the ring wraps (63 entries per lap)");
            const bool colour_now = (kPackets / q1.ring().slots()) % 2 == 0;
            check.expect(regmap::status::COLOR.get(host.read32(q1.reg(regmap::CMPT_STATUS))) == colour_now &&
                             q1.expected_colour() == colour_now,
                         "CMPT_STATUS.COLOR is the colour of the next entry after three wraps");
            check.expect(
                regmap::status::INDEX.get(host.read32(q1.reg(regmap::CMPT_STATUS))) == kPackets % q1.ring().slots(),
                "CMPT PIDX wrapped to 250 mod 63");
            check.expect(((q1.cmpt_writeback().flags & kWritebackColour) != 0) == colour_now,
                         "the CMPT writeback carries the current colour");
        }

        check.section("a 1 MiB message streams through the bounded H2C buffer");
        {
            QueueSetup setup;
            setup.ring_size_index = 5;  // 2048 entries
            setup.buffer_bytes = 1024;
            q2.enable(setup);
            host.write32(regmap::CONTEXT_QUEUE(2), 2);
            q2.post_buffers(1100);
            sc_core::wait(ns(5000));
            constexpr std::uint32_t kBytes = 1u << 20;
            const auto payload = pattern(kBytes, 7);
            const std::size_t first = platform.loopback.captured.size();
            const sc_core::sc_time start = sc_core::sc_time_stamp();
            q2.send(send_header(kBytes, 3, 2), payload);
            const Received received = receive_message(q2, kBytes, ns(2e6));
            const sc_core::sc_time elapsed = sc_core::sc_time_stamp() - start;
            check.expect(received.entries.size() == 1024 && received.data == payload,
                         "1024 packets reassemble the 1 MiB message byte for byte");
            const sc_core::sc_time first_out = platform.loopback.captured[first].head - start;
            check.expect(first_out < ns(5000),
                         "the first packet leaves " + first_out.to_string() +
                             " after the doorbell: data streams, no store-and-forward of the message");
            const double rate = kBytes / elapsed.to_seconds() / 1e9;
            check.expect(rate > 10.0, "loopback H2C + C2H moves " + std::to_string(rate) + " GB/s (PCIe-bound)");
            const sc_core::sc_time last_out = platform.loopback.captured.back().head - start;
            check.expect(last_out > ns(70000),
                         "... and the stream is paced by the PCIe reads (last packet at " + last_out.to_string() + ")");
            check.expect(platform.network.rx_buffered_phits() == 0, "nothing is left in the receive buffer");
        }
        // One digest of everything observable: packets with their times, and
        // host memory. Two runs must print the same line (see CTest).
        std::uint64_t digest = 1469598103934665603ull;
        auto mix = [&digest](std::uint64_t value) {
            for (int i = 0; i < 8; ++i) digest = (digest ^ ((value >> (8 * i)) & 0xFF)) * 1099511628211ull;
        };
        for (const auto& packet : platform.loopback.captured) {
            mix(packet.head.value());
            mix(packet.tail_after.value());
            for (const std::uint8_t byte : packet.bytes) mix(byte);
        }
        for (const std::uint8_t byte : platform.memory_bytes) mix(byte);
        mix(sc_core::sc_time_stamp().value());
        std::cout << "trace digest " << std::hex << digest << std::dec << "\n";
        check.expect(platform.qdma.statistics().h2c_packets == platform.qdma.statistics().c2h_packets,
                     "every packet sent came back (" + std::to_string(platform.qdma.statistics().h2c_packets) + ")");
    });
}
