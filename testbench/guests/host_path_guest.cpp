// Guest for the driver's send and completion paths (driver.send_path,
// driver.completion; testbench/cmake/host_path.cmake). Two ranks under
// `isvp run`:
//
//   host_path_guest SEND_PATH COMPLETION data
//       ping-pong of verified messages of many sizes, both directions; with
//       pio or auto, every message of up to pio_max_bytes goes through the
//       PIO window and every larger one through descriptors (fallback: fetch
//       for pio, prefetch's standing descriptors for auto).
//   host_path_guest SEND_PATH COMPLETION malformed
//       rank 0 first writes malformed PIO packets (out of order, bad header,
//       too long, abandoned) into its own window and another queue's; each
//       is refused with ERROR_STATUS.PIO, ERROR_QUEUE, ERROR_ADDRESS and the
//       error interrupt, and the data exchange that follows is intact.
//
//   host_path_guest SEND_PATH COMPLETION small_ring
//       a 64-entry H2C ring of 1 KiB descriptors: rank 0 sends messages of
//       many more descriptors than the ring holds, so it waits for ring
//       slots between two batch doorbells; every message must arrive intact
//       (a polling driver must post the descriptors it wrote before it
//       waits, or the device goes idle and the job deadlocks).
//
// Prints "host_path <scenario> ok" and exits 0 when every check holds.
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "isvp/driver.h"
#include "isvp/packet_format.h"
#include "isvp/register_map.h"
#include "isvp/remote_transport.h"

namespace rm = isvp::regmap;
using isvp::guest::Driver;
using isvp::guest::DriverConfig;

namespace {

std::uint8_t pattern(int source, std::size_t size, std::size_t i) {
    return static_cast<std::uint8_t>(source * 59 + size * 7 + i * 13 + (i >> 8));
}

bool check(bool condition, const std::string& what) {
    if (!condition) std::cout << "host_path CHECK FAILED: " << what << "\n";
    return condition;
}

bool exchange(Driver& driver, const DriverConfig& config) {
    const int me = driver.rank();
    const int peer = 1 - me;
    const std::vector<std::size_t> sizes = {
        0, 1, 8, 60, 200, config.pio_max_bytes, config.pio_max_bytes + 1u, 300, 488, 1000, 4096, 5000, 70000};
    bool ok = true;
    for (std::size_t size : sizes) {
        std::vector<std::uint8_t> out(size), in(size + 16);
        for (std::size_t i = 0; i < size; ++i) out[i] = pattern(me, size, i);
        const std::uint64_t pio_before = driver.pio_sends(), fetch_before = driver.fetch_sends();
        for (int turn = 0; turn < 2; ++turn) {
            if (turn == me) {
                driver.send(peer, static_cast<std::uint32_t>(size), out.data(), size);
            } else {
                const auto status = driver.receive(peer, static_cast<std::int64_t>(size), in.data(), in.size());
                ok &= check(status.bytes == size && !status.truncated,
                            "size " + std::to_string(size) + " arrived as " + std::to_string(status.bytes) + " bytes");
                for (std::size_t i = 0; i < size && ok; ++i)
                    ok &= check(in[i] == pattern(peer, size, i), "byte " + std::to_string(i) + " of a " +
                                                                     std::to_string(size) + "-byte message corrupted");
            }
        }
        const bool pio =
            (config.send_path == isvp::guest::SendPath::Pio || config.send_path == isvp::guest::SendPath::Auto) &&
            size <= config.pio_max_bytes;
        ok &=
            check(driver.pio_sends() - pio_before == (pio ? 1u : 0u) &&
                      driver.fetch_sends() - fetch_before == (pio ? 0u : 1u),
                  "a " + std::to_string(size) + "-byte message went through the " + (pio ? "fetch" : "pio") + " path");
    }
    // A burst that goes round the H2C ring (1023 slots) more than once, with
    // sizes that straddle the standing slots: in order and intact.
    constexpr int kBurst = 1100;
    std::vector<std::uint8_t> out(3000), in(3000);
    for (int i = 0; i < kBurst && ok; ++i) {
        const std::size_t size = 1 + static_cast<std::size_t>(i) * 37 % 2999;
        if (me == 0) {
            for (std::size_t b = 0; b < size; ++b) out[b] = pattern(i, size, b);
            driver.send(peer, 7, out.data(), size);
        } else {
            const auto status = driver.receive(peer, 7, in.data(), in.size());
            ok &= check(status.bytes == size, "burst message " + std::to_string(i) + " arrived as " +
                                                  std::to_string(status.bytes) + " bytes, not " + std::to_string(size));
            for (std::size_t b = 0; b < size && ok; ++b)
                ok &= check(in[b] == pattern(i, size, b), "burst message " + std::to_string(i) + " corrupted");
        }
    }
    return ok;
}

/// Messages far larger than the H2C ring, rank 0 to rank 1, verified.
bool small_ring(Driver& driver) {
    bool ok = true;
    for (const std::size_t size : {std::size_t{200000}, std::size_t{65000}, std::size_t{300001}}) {
        std::vector<std::uint8_t> data(size);
        if (driver.rank() == 0) {
            for (std::size_t i = 0; i < size; ++i) data[i] = pattern(0, size, i);
            driver.send(1, 9, data.data(), size);
        } else {
            const auto status = driver.receive(0, 9, data.data(), size);
            ok &= check(status.bytes == size,
                        std::to_string(size) + "-byte message arrived as " + std::to_string(status.bytes) + " bytes");
            for (std::size_t i = 0; i < size && ok; ++i)
                ok &= check(data[i] == pattern(0, size, i), std::to_string(size) + "-byte message corrupted");
        }
    }
    return ok;
}

/// Raw writes into a PIO window, then the refusal the device must report.
bool refused(isvp::guest::DeviceTransport& transport, const DriverConfig& config, unsigned queue,
             const std::vector<std::pair<std::uint32_t, std::uint32_t>>& writes, std::uint32_t address,
             const std::string& what) {
    for (const auto& [offset, value] : writes) transport.mmio_write32(rm::PIO(queue) + offset, value);
    const unsigned vector = transport.wait_interrupt(1ull << config.error_vector);
    const std::uint32_t status = transport.mmio_read32(rm::ERROR_STATUS);
    const std::uint32_t error_queue = transport.mmio_read32(rm::ERROR_QUEUE);
    const std::uint32_t error_address = transport.mmio_read32(rm::ERROR_ADDRESS_LO);
    transport.mmio_write32(rm::ERROR_STATUS, status);  // RW1C
    return check(vector == config.error_vector && status == rm::error_status::PIO && error_queue == queue &&
                     error_address == address,
                 what + ": ERROR_STATUS " + std::to_string(status) + ", ERROR_QUEUE " + std::to_string(error_queue) +
                     ", ERROR_ADDRESS " + std::to_string(error_address));
}

std::uint32_t header_low(std::uint32_t message_bytes, std::uint16_t rank) {
    isvp::ProcessorHeader header;
    header.message_bytes = message_bytes;
    header.opcode = isvp::Opcode::Send;
    header.rank = rank;
    std::uint8_t bytes[8];
    header.write(bytes);
    std::uint32_t low;
    std::memcpy(&low, bytes, 4);
    return low;
}

std::uint32_t header_high(std::uint32_t message_bytes, std::uint16_t rank) {
    isvp::ProcessorHeader header;
    header.message_bytes = message_bytes;
    header.opcode = isvp::Opcode::Send;
    header.rank = rank;
    std::uint8_t bytes[8];
    header.write(bytes);
    std::uint32_t high;
    std::memcpy(&high, bytes + 4, 4);
    return high;
}

bool malformed(Driver& driver, isvp::guest::DeviceTransport& transport, const DriverConfig& config) {
    if (driver.rank() != 0) return true;
    bool ok = check(transport.mmio_read32(rm::PIO_WINDOW_BYTES) == rm::PIO_STRIDE, "PIO_WINDOW_BYTES");
    // Out of order: the first write is not at offset 0.
    ok &= refused(transport, config, 3, {{8, 0x11111111}, {12, 0x22222222}}, rm::PIO(3) + 8, "write at offset 8 first");
    // A destination outside the network (rank 99 of 2).
    ok &= refused(transport, config, 0, {{0, header_low(16, 99)}, {4, header_high(16, 99)}}, rm::PIO(0) + 4,
                  "header naming rank 99");
    // Longer than the window.
    ok &= refused(transport, config, 0, {{0, header_low(600, 1)}, {4, header_high(600, 1)}}, rm::PIO(0) + 4,
                  "600-byte message");
    // An unfinished packet abandoned by a new one at offset 0.
    ok &=
        refused(transport, config, 3, {{0, header_low(32, 1)}, {4, header_high(32, 1)}, {8, 0}, {0, header_low(32, 1)}},
                rm::PIO(3) + 8, "unfinished packet");
    // Nothing was sent: the peer must see only the exchange's messages.
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cout << "usage: host_path_guest fetch|prefetch|pio|auto msi|poll|hybrid data|malformed|small_ring\n";
        return 2;
    }
    const std::string scenario = argv[3];
    try {
        DriverConfig config;
        config.send_path = isvp::guest::parse_send_path(argv[1]);
        config.completion = isvp::guest::parse_completion_mode(argv[2]);
        if (scenario == "small_ring") {
            config.h2c_ring_entries = 64;
            config.descriptor_bytes = 1024;
        }
        auto transport = isvp::guest::RemoteTransport::from_environment();
        Driver driver(*transport, config);
        bool ok = true;
        if (scenario == "malformed") ok &= malformed(driver, *transport, config);
        if (scenario == "small_ring")
            ok &= small_ring(driver);
        else
            ok &= exchange(driver, config);
        ok &= check(driver.dropped_messages() == 0, "messages dropped: " + driver.last_drop_reason());
        std::cout << "host_path " << scenario << " rank " << driver.rank() << (ok ? " ok" : " FAILED")
                  << " pio_sends=" << driver.pio_sends() << " fetch_sends=" << driver.fetch_sends()
                  << " interrupts=" << driver.interrupts() << " poll_wakeups=" << driver.poll_wakeups() << "\n";
        transport->finish(ok ? 0 : 1);
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::cout << "host_path " << scenario << " error: " << error.what() << "\n";
        return 2;
    }
}
