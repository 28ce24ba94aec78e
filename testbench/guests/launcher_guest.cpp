// A guest program for `isvp run` that misbehaves on purpose, below MPI:
//
//   launcher_guest flood N   N posted MMIO writes to an unmapped BAR0 offset
//                            (each makes the platform warn; a read after
//                            every 65536, as a rank may not post more without
//                            blocking), then a read of ERROR_STATUS (it comes
//                            after every write: PCIe ordering) and finish(0);
//                            exits 1 if ERROR_STATUS.UNMAPPED_ACCESS is not set
//
// The launcher's stdout must stay empty and its stderr bounded (the SystemC
// warnings are rate-limited, platform/report_handler.h).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "isvp/register_map.h"
#include "isvp/remote_transport.h"

namespace {

/// Between LINK_FAULT and the RING_SIZE registers: nothing is there.
constexpr std::uint32_t kUnmappedOffset = 0x003C;
static_assert(kUnmappedOffset > isvp::regmap::LINK_FAULT && kUnmappedOffset < isvp::regmap::RING_SIZE_BASE);

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 || std::string(argv[1]) != "flood") {
        std::cerr << "usage: " << argv[0] << " flood N   (started by the isvp launcher)\n";
        return 2;
    }
    try {
        const unsigned long writes = std::stoul(argv[2]);
        auto transport = isvp::guest::RemoteTransport::from_environment();
        for (unsigned long i = 0; i < writes; ++i) {
            transport->mmio_write32(kUnmappedOffset, static_cast<std::uint32_t>(i));
            // A rank may post at most kMaxQueued writes without blocking.
            if ((i + 1) % 65536 == 0) transport->mmio_read32(isvp::regmap::ERROR_STATUS);
        }
        const std::uint32_t status = transport->mmio_read32(isvp::regmap::ERROR_STATUS);
        const int code = (status & isvp::regmap::error_status::UNMAPPED_ACCESS) != 0 ? 0 : 1;
        if (code != 0) std::cerr << "launcher_guest: ERROR_STATUS.UNMAPPED_ACCESS is not set\n";
        transport->finish(code);
        return code;
    } catch (const std::exception& error) {
        std::cerr << "launcher_guest: " << error.what() << "\n";
        return 2;
    }
}
