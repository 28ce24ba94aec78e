// Names of the BAR0 registers of register_map.h, for logs and tests: the
// offset -> name lookup that the PCIe transaction log (trace.pcie), the
// testbenches and the guest driver share, so a register is called the same
// everywhere. Queue-indexed registers carry their queue ("H2C_PIDX[q1]"),
// table entries their index ("RING_SIZE[3]", "MSIX_DATA[v2]").
// SystemC-free.
#pragma once

#include <cstdint>
#include <string>

namespace isvp::regmap {

/// The register at BAR0 `offset` (a dword offset): its name in
/// register_map.h with the queue, vector or table index in brackets, e.g.
/// "H2C_PIDX[q1]", "CMPT_CONTROL[q0]", "CT_STAGING[4]", "MSIX_PBA[0]";
/// "unmapped" where the map has nothing.
std::string register_name(std::uint32_t offset);

/// The named fields of `value` at `offset` where the map declares fields or
/// flag bits, e.g. "index=5 irq_arm=1" for a doorbell, "ring_size_index=0
/// enable=1 msix_vector=2" for a ring control word; empty for plain values.
std::string register_fields(std::uint32_t offset, std::uint32_t value);

}  // namespace isvp::regmap
