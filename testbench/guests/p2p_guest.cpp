// A guest program for `isvp run`: point-to-point messages through the
// modelled hardware with every payload verified. One scenario per run:
//
//   p2p_guest pingpong   rank 0 <-> rank 1, sizes 0 .. 1 MiB incl. odd ones
//   p2p_guest far        rank 0 <-> the last rank (several hops)
//   p2p_guest ring       every rank to its right neighbour, from its left
//   p2p_guest alltoall   every rank to every other; received by wildcard
//   p2p_guest large      64 MiB from rank 0 to rank 1 and back
//   p2p_guest crash      rank 1 aborts while rank 0 streams 16 MiB at it
//   p2p_guest badsend    rank 0 sends to a rank outside the job (error path)
//   p2p_guest cutoff     rank 0's message stops mid-way; rank 1 drops it, goes on
//   p2p_guest sessions   two driver sessions one after the other
//   p2p_guest badmsi     rank 0 programs an illegal MSI vector; the job goes on
//   p2p_guest truncate   rank 0 tries to shrink its host memory; sealed, it cannot
//
// Prints "p2p <scenario> ok <simulated ps>" per rank and exits 0, or names
// the first mismatch and exits 1.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "isvp/driver.h"
#include "isvp/packet_format.h"
#include "isvp/register_map.h"
#include "isvp/remote_transport.h"

using isvp::guest::Driver;

namespace {

std::uint8_t pattern(int source, std::uint32_t tag, std::size_t i) {
    return static_cast<std::uint8_t>(source * 31 + tag * 7 + i * 13 + (i >> 8));
}

std::vector<std::uint8_t> make_message(int source, std::uint32_t tag, std::size_t bytes) {
    std::vector<std::uint8_t> data(bytes);
    for (std::size_t i = 0; i < bytes; ++i) data[i] = pattern(source, tag, i);
    return data;
}

bool verify(const std::vector<std::uint8_t>& data, std::size_t bytes, int source, std::uint32_t tag,
            const std::string& what) {
    for (std::size_t i = 0; i < bytes; ++i)
        if (data[i] != pattern(source, tag, i)) {
            std::cout << "p2p MISMATCH " << what << ": byte " << i << " of " << bytes << " from rank " << source
                      << " tag " << tag << "\n";
            return false;
        }
    return true;
}

bool exchange(Driver& driver, int me, int peer, const std::vector<std::size_t>& sizes) {
    std::uint32_t tag = 100;
    for (const std::size_t bytes : sizes) {
        ++tag;
        std::vector<std::uint8_t> in(bytes);
        if (me < peer) {
            const auto out = make_message(me, tag, bytes);
            driver.send(peer, tag, out.data(), bytes);
            const auto status = driver.receive(peer, tag, in.data(), bytes);
            if (status.bytes != bytes || !verify(in, bytes, peer, tag, "echo of " + std::to_string(bytes)))
                return false;
        } else {
            const auto status = driver.receive(peer, tag, in.data(), bytes);
            if (status.bytes != bytes || status.source != peer ||
                !verify(in, bytes, peer, tag, "message of " + std::to_string(bytes)))
                return false;
            const auto out = make_message(me, tag, bytes);
            driver.send(peer, tag, out.data(), bytes);
        }
    }
    return true;
}

bool run(const std::string& scenario, isvp::guest::DeviceTransport& transport) {
    const int me = transport.rank();
    if (scenario == "sessions") {
        // Two driver sessions one after the other in one rank: the second
        // must not inherit the first's ring state from the device.
        for (std::uint32_t session = 0; session < 2; ++session) {
            Driver driver(transport);
            if (me > 1) continue;
            if (!exchange(driver, me, 1 - me, {100, 5000})) return false;
        }
        return true;
    }
    Driver driver(transport);
    const int size = transport.size();
    const std::vector<std::size_t> sizes = {0, 1, 8, 17, 1000, 1024, 1025, 4096, 65539, 1 << 20};
    if (scenario == "pingpong") return me > 1 || exchange(driver, me, 1 - me, sizes);
    if (scenario == "far") {
        if (me != 0 && me != size - 1) return true;
        return exchange(driver, me, me == 0 ? size - 1 : 0, {8, 4096, 100000});
    }
    if (scenario == "large") {
        if (me > 1) return true;
        return exchange(driver, me, 1 - me, {64u << 20});
    }
    if (scenario == "ring") {
        const int right = (me + 1) % size, left = (me + size - 1) % size;
        for (std::uint32_t round = 0; round < 3; ++round) {
            const std::size_t bytes = 3000 * (round + 1) + me;
            const auto out = make_message(me, round, bytes);
            driver.send(right, round, out.data(), bytes);
            std::vector<std::uint8_t> in(bytes + 64);
            const auto status = driver.receive(left, round, in.data(), in.size());
            if (status.bytes != 3000 * (round + 1) + static_cast<std::size_t>(left) ||
                !verify(in, status.bytes, left, round, "ring"))
                return false;
        }
        return true;
    }
    if (scenario == "alltoall") {
        for (int peer = 0; peer < size; ++peer) {
            if (peer == me) continue;
            const auto out = make_message(me, static_cast<std::uint32_t>(peer), 2000 + 100 * me);
            driver.send(peer, static_cast<std::uint32_t>(peer), out.data(), out.size());
        }
        std::vector<bool> seen(size, false);
        for (int n = 0; n + 1 < size; ++n) {
            std::vector<std::uint8_t> in(1 << 16);
            const auto status = driver.receive(isvp::guest::kAnySource, isvp::guest::kAnyTag, in.data(), in.size());
            if (status.source < 0 || status.source >= size || seen[status.source] ||
                status.tag != static_cast<std::uint32_t>(me) || status.bytes != 2000u + 100u * status.source ||
                !verify(in, status.bytes, status.source, status.tag, "alltoall"))
                return false;
            seen[status.source] = true;
        }
        return true;
    }
    if (scenario == "crash") {
        // Rank 1 dies while rank 0 is streaming 16 MiB at it: the packets
        // already in its node back up, rank 0's send stalls, and the job must
        // end promptly with a report rather than hang.
        if (me == 1) {
            std::vector<std::uint8_t> in(8);
            driver.receive(0, 7, in.data(), in.size());  // the go signal: rank 0 is about to stream
            std::abort();
        }
        if (me == 0) {
            const std::uint8_t go = 1;
            driver.send(1, 7, &go, 1);
            const auto out = make_message(0, 1, 16u << 20);
            driver.send(1, 1, out.data(), out.size());
            std::vector<std::uint8_t> in(8);
            driver.receive(1, 2, in.data(), in.size());  // never comes
        }
        return true;
    }
    if (scenario == "cutoff") {
        // Rank 0's second queue stops mid-message (its second descriptor
        // points outside host memory): rank 1 gets the first part of that
        // message, then an ordinary one. It must drop the cut-off message and
        // receive the next, not die.
        if (me == 0) {
            transport.mmio_write32(isvp::regmap::ERROR_IRQ_ENABLE, 0);  // rank 0 knows it misbehaves
            std::uint8_t* memory = transport.host_memory();
            const std::uint64_t ring = 128u << 20, data = ring + (64u << 10);
            isvp::ProcessorHeader header;
            header.message_bytes = 16 + 8192;
            header.opcode = isvp::Opcode::Send;
            header.rank = 1;
            header.write(memory + data);
            const std::uint32_t tag = 7;
            const std::uint64_t bytes = 8192;
            std::memcpy(memory + data + 8, &tag, 4);
            std::memcpy(memory + data + 16, &bytes, 8);
            const isvp::regmap::H2cDescriptor first{data, 8 + 16 + 4096, isvp::regmap::H2C_SOP};
            const isvp::regmap::H2cDescriptor outside{0x7FFFFFFF0000ull, 4096, isvp::regmap::H2C_EOP};
            std::memcpy(memory + ring, &first, 16);
            std::memcpy(memory + ring + 16, &outside, 16);
            const std::uint32_t q1 = isvp::regmap::QUEUE(1);
            transport.mmio_write32(q1 + isvp::regmap::H2C_BASE_LO, static_cast<std::uint32_t>(ring));
            transport.mmio_write32(q1 + isvp::regmap::H2C_BASE_HI, 0);
            transport.mmio_write32(q1 + isvp::regmap::H2C_CONTROL, isvp::regmap::control::ENABLE.make(1));
            transport.mmio_write32(isvp::regmap::DOORBELL(1) + isvp::regmap::H2C_PIDX, 2);
            transport.compute(20'000'000);  // 20 us later, an ordinary message
            const auto out = make_message(0, 8, 16);
            driver.send(1, 8, out.data(), out.size());
            std::vector<std::uint8_t> in(8);
            driver.receive(1, 9, in.data(), in.size());
            return true;
        }
        if (me == 1) {
            std::vector<std::uint8_t> in(1 << 16);
            const auto status = driver.receive(0, isvp::guest::kAnyTag, in.data(), in.size());
            const bool ok = status.tag == 8 && status.bytes == 16 && verify(in, 16, 0, 8, "after the cut-off") &&
                            driver.dropped_messages() == 1;
            std::cout << "p2p cutoff: received tag " << status.tag << ", dropped " << driver.dropped_messages()
                      << " (" << driver.last_drop_reason() << ")\n";
            const std::uint8_t done = 1;
            driver.send(0, 9, &done, 1);
            return ok;
        }
        return true;
    }
    if (scenario == "badmsi") {
        // Rank 0 programs an illegal vector (200) into its error interrupt's
        // MSI-X data and provokes that interrupt: the host drops the MSI with
        // a warning, and both ranks carry on.
        if (me == 0) {
            transport.mmio_write32(isvp::regmap::MSIX_ENTRY(2) + isvp::regmap::MSIX_DATA, 200);
            transport.mmio_write32(0x0300, 1);  // unmapped offset: raises the error interrupt
        }
        return me > 1 || exchange(driver, me, 1 - me, {8, 4096});
    }
    if (scenario == "truncate") {
        // A hostile rank tries to shrink its host memory under the
        // simulator's mapping (which would make the next DMA fault): the
        // memory is sealed, so the attempt fails and the job goes on.
        if (me == 0) {
            const char* fd = std::getenv("ISVP_SHM_FD");
            if (fd == nullptr || ::ftruncate(std::atoi(fd), 4096) == 0) {
                std::cout << "p2p truncate: host memory could be shrunk\n";
                return false;
            }
        }
        return me > 1 || exchange(driver, me, 1 - me, {8, 1 << 20});
    }
    if (scenario == "badsend") {
        if (me == 0) {
            std::uint8_t byte = 0;
            driver.send(size + 5, 1, &byte, 1);  // throws DriverError naming the rank
        }
        return true;
    }
    std::cout << "p2p: unknown scenario '" << scenario << "'\n";
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string scenario = argc > 1 ? argv[1] : "pingpong";
    try {
        auto transport = isvp::guest::RemoteTransport::from_environment();
        const bool ok = run(scenario, *transport);
        std::cout << "p2p " << scenario << (ok ? " ok " : " FAILED ") << transport->now_ps() << "\n";
        transport->finish(ok ? 0 : 1);
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::cout << "p2p " << scenario << " error: " << error.what() << "\n";
        return 2;
    }
}
