// The MSI-X table and pending-bit array (SystemC-free), at
// regmap::MSIX_TABLE and regmap::MSIX_PBA in BAR0.
//
// Each of the regmap::kMsixVectors entries holds a 64-bit message address,
// 32-bit message data and a vector-control word whose bit 0 masks the
// vector (reset: masked). Raising a vector that is masked — by its own mask
// bit or by the function mask in the MSI-X capability — sets its pending bit
// instead of producing a message; clearing the mask later delivers the
// message once and clears the bit (PCIe MSI-X semantics). Accesses are
// aligned dwords.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "isvp/register_map.h"

namespace isvp {

/// One message-signalled interrupt: a 4-byte write of `data` to `address`.
struct MsiMessage {
    std::uint64_t address = 0;
    std::uint32_t data = 0;
    unsigned vector = 0;  ///< the MSI-X entry it came from
};

class MsixTable {
  public:
    MsixTable();

    /// BAR0 byte ranges the table and the PBA occupy.
    static constexpr std::uint32_t kTableBytes = regmap::MSIX_ENTRY_BYTES * regmap::kMsixVectors;
    static constexpr std::uint32_t kPbaBytes = 8 * ((regmap::kMsixVectors + 63) / 64);
    static bool in_table(std::uint32_t offset) {
        return offset >= regmap::MSIX_TABLE && offset - regmap::MSIX_TABLE < kTableBytes;
    }
    static bool in_pba(std::uint32_t offset) {
        return offset >= regmap::MSIX_PBA && offset - regmap::MSIX_PBA < kPbaBytes;
    }
    static bool contains(std::uint32_t offset) { return in_table(offset) || in_pba(offset); }

    /// Reads the aligned dword at BAR0 `offset` (table or PBA).
    std::uint32_t read(std::uint32_t offset) const;
    /// Writes the aligned dword at BAR0 `offset`. The PBA is read-only. If the
    /// write unmasks a pending vector (and the function is not masked), the
    /// message to deliver now is returned.
    std::optional<MsiMessage> write(std::uint32_t offset, std::uint32_t value);

    /// The device signals `vector` (< kMsixVectors): the message to deliver
    /// now, or nullopt when masked (its pending bit is then set).
    std::optional<MsiMessage> raise(unsigned vector);

    /// Sets the capability's function mask; clearing it returns the pending,
    /// individually unmasked vectors' messages (lowest vector first).
    std::vector<MsiMessage> set_function_mask(bool masked);

    bool masked(unsigned vector) const { return entries_[vector].control & 1u; }
    bool pending(unsigned vector) const { return (pending_[vector / 64] >> (vector % 64)) & 1u; }

  private:
    struct Entry {
        std::uint64_t address = 0;  ///< message address
        std::uint32_t data = 0;     ///< message data
        std::uint32_t control = 1;  ///< bit 0: masked
    };
    MsiMessage message(unsigned vector) const;
    void set_pending(unsigned vector, bool value);

    std::array<Entry, regmap::kMsixVectors> entries_;                        ///< the table
    std::array<std::uint64_t, (regmap::kMsixVectors + 63) / 64> pending_{};  ///< PBA bits
    bool function_masked_ = false;                                           ///< MSI-X capability's function mask
};

}  // namespace isvp
