// The endpoint's PCIe configuration space (SystemC-free): a type-0 header
// with the identity from register_map.h, one 64-bit memory BAR0 of
// regmap::kBar0Bytes with standard size probing, a PCI Express capability
// (endpoint, link speed and width from PcieConfig) and an MSI-X capability
// (table and PBA in BAR0 at regmap::MSIX_TABLE / MSIX_PBA).
//
// Registers hold their values and honour per-bit write masks; RW1C status
// bits, power management, AER and other extended capabilities are not
// modelled (they read 0). Device Control's MPS and MRRS fields report the
// configured values and are read-only here, because the link timing is a
// platform parameter, not something the guest renegotiates.
#pragma once

#include <array>
#include <cstdint>

#include "isvp/pcie_config.h"

namespace isvp::pci {

inline constexpr std::uint32_t kConfigSpaceBytes = 4096;

// Type-0 header
inline constexpr std::uint32_t VENDOR_ID = 0x00;    ///< 16 bits
inline constexpr std::uint32_t DEVICE_ID = 0x02;    ///< 16 bits
inline constexpr std::uint32_t COMMAND = 0x04;      ///< 16 bits, bits below
inline constexpr std::uint32_t STATUS = 0x06;       ///< 16 bits
inline constexpr std::uint32_t REVISION_ID = 0x08;  ///< 8 bits, then the 24-bit class code
inline constexpr std::uint32_t CLASS_CODE = 0x09;   ///< 24 bits: base class, sub-class, programming interface
inline constexpr std::uint32_t HEADER_TYPE = 0x0E;
inline constexpr std::uint32_t BAR0 = 0x10;  ///< low half of the 64-bit BAR
inline constexpr std::uint32_t BAR1 = 0x14;  ///< high half of BAR0's address
inline constexpr std::uint32_t SUBSYSTEM_VENDOR_ID = 0x2C;
inline constexpr std::uint32_t SUBSYSTEM_ID = 0x2E;
inline constexpr std::uint32_t CAPABILITIES_POINTER = 0x34;
inline constexpr std::uint32_t INTERRUPT_LINE = 0x3C;
inline constexpr std::uint32_t INTERRUPT_PIN = 0x3D;

namespace command {
inline constexpr std::uint16_t MEMORY_SPACE = 1u << 1;
inline constexpr std::uint16_t BUS_MASTER = 1u << 2;
inline constexpr std::uint16_t INTERRUPT_DISABLE = 1u << 10;
}  // namespace command
inline constexpr std::uint16_t STATUS_CAPABILITIES_LIST = 1u << 4;

/// Processing accelerator (base class 0x12), sub-class 0, interface 0.
inline constexpr std::uint32_t kClassCode = 0x120000;
inline constexpr std::uint8_t kRevision = 0x01;
inline constexpr std::uint16_t kSubsystemId = 0x0007;
/// BAR0 type bits: memory, 64-bit, not prefetchable.
inline constexpr std::uint32_t kBar0TypeBits = 0x4;

// Capabilities (standard layout, offsets inside each capability)
inline constexpr std::uint8_t kPcieCapabilityId = 0x10;
inline constexpr std::uint8_t kMsixCapabilityId = 0x11;
inline constexpr std::uint32_t PCIE_CAPABILITY = 0x40;
inline constexpr std::uint32_t PCIE_CAPABILITIES = 0x02;         ///< [3:0] version 2, [7:4] 0 = endpoint
inline constexpr std::uint32_t PCIE_DEVICE_CAPABILITIES = 0x04;  ///< [2:0] max payload supported
inline constexpr std::uint32_t PCIE_DEVICE_CONTROL = 0x08;       ///< [7:5] MPS, [14:12] MRRS (128 << code)
inline constexpr std::uint32_t PCIE_LINK_CAPABILITIES = 0x0C;    ///< [3:0] max speed, [9:4] max width
inline constexpr std::uint32_t PCIE_LINK_CONTROL = 0x10;
inline constexpr std::uint32_t PCIE_LINK_STATUS = 0x12;          ///< [3:0] current speed, [9:4] negotiated width
inline constexpr std::uint32_t PCIE_LINK_CAPABILITIES_2 = 0x2C;  ///< [7:1] supported speeds vector
inline constexpr std::uint32_t MSIX_CAPABILITY = 0x80;
inline constexpr std::uint32_t MSIX_MESSAGE_CONTROL = 0x02;  ///< [10:0] table size - 1, [14] mask, [15] enable
inline constexpr std::uint32_t MSIX_TABLE_OFFSET = 0x04;     ///< table offset in BAR | BIR
inline constexpr std::uint32_t MSIX_PBA_OFFSET = 0x08;       ///< PBA offset in BAR | BIR
inline constexpr std::uint16_t MSIX_FUNCTION_MASK = 1u << 14;
inline constexpr std::uint16_t MSIX_ENABLE = 1u << 15;

/// Speed code of the PCIe link registers: 1 = 2.5 GT/s ... 5 = 32 GT/s.
constexpr unsigned link_speed_code(unsigned generation) {
    return generation;
}

class PcieConfigSpace {
  public:
    explicit PcieConfigSpace(const PcieConfig& config);

    /// True if [offset, offset + bytes) is a 1-, 2- or 4-byte access inside
    /// one dword of the 4 KiB space: the only accesses config TLPs make.
    static bool valid_access(std::uint32_t offset, std::uint32_t bytes);
    /// Little-endian read of a valid access; unimplemented registers read 0.
    std::uint32_t read(std::uint32_t offset, std::uint32_t bytes) const;
    /// Writes the bits the register allows; everything else is unchanged.
    void write(std::uint32_t offset, std::uint32_t bytes, std::uint32_t value);

    std::uint16_t command_register() const { return static_cast<std::uint16_t>(read(COMMAND, 2)); }
    /// BAR0's address as programmed (type bits stripped).
    std::uint64_t bar0_address() const;
    bool msix_enabled() const { return message_control() & MSIX_ENABLE; }
    bool msix_function_masked() const { return message_control() & MSIX_FUNCTION_MASK; }

  private:
    std::uint16_t message_control() const {
        return static_cast<std::uint16_t>(read(MSIX_CAPABILITY + MSIX_MESSAGE_CONTROL, 2));
    }
    void set(std::uint32_t offset, std::uint32_t bytes, std::uint32_t value, std::uint32_t writable);

    std::array<std::uint8_t, kConfigSpaceBytes> bytes_{};     ///< register contents
    std::array<std::uint8_t, kConfigSpaceBytes> writable_{};  ///< per-bit write masks
};

}  // namespace isvp::pci
