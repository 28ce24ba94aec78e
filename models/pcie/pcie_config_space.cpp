#include "isvp/pcie_config_space.h"

#include "isvp/register_map.h"

namespace isvp::pci {

namespace {

unsigned log2_of(unsigned value) {
    unsigned result = 0;
    while (value > 1) {
        value >>= 1;
        ++result;
    }
    return result;
}

/// Encoding of MPS/MRRS fields: 128 << code bytes.
unsigned size_code(unsigned bytes) {
    return log2_of(bytes / 128);
}

}  // namespace

PcieConfigSpace::PcieConfigSpace(const PcieConfig& config) {
    config.validate();
    set(VENDOR_ID, 2, regmap::kVendorId, 0);
    set(DEVICE_ID, 2, regmap::kDeviceId, 0);
    set(COMMAND, 2, 0, command::MEMORY_SPACE | command::BUS_MASTER | command::INTERRUPT_DISABLE);
    set(STATUS, 2, STATUS_CAPABILITIES_LIST, 0);
    set(REVISION_ID, 1, kRevision, 0);
    set(CLASS_CODE, 1, kClassCode & 0xFF, 0);
    set(CLASS_CODE + 1, 2, kClassCode >> 8, 0);
    set(HEADER_TYPE, 1, 0x00, 0);
    // BAR0: the address bits above the size are writable; writing all-ones
    // and reading back yields the size mask plus the type bits.
    set(BAR0, 4, kBar0TypeBits, ~(regmap::kBar0Bytes - 1));
    set(BAR1, 4, 0, 0xFFFFFFFFu);
    set(SUBSYSTEM_VENDOR_ID, 2, regmap::kVendorId, 0);
    set(SUBSYSTEM_ID, 2, kSubsystemId, 0);
    set(CAPABILITIES_POINTER, 1, PCIE_CAPABILITY, 0);
    set(INTERRUPT_LINE, 1, 0, 0xFF);
    set(INTERRUPT_PIN, 1, 0, 0);  // no INTx: MSI-X only

    const std::uint32_t pcie = PCIE_CAPABILITY;
    set(pcie, 1, kPcieCapabilityId, 0);
    set(pcie + 1, 1, MSIX_CAPABILITY, 0);
    set(pcie + PCIE_CAPABILITIES, 2, 0x0002, 0);  // version 2, endpoint
    set(pcie + PCIE_DEVICE_CAPABILITIES, 4, size_code(config.max_payload_bytes), 0);
    set(pcie + PCIE_DEVICE_CONTROL, 2,
        size_code(config.max_payload_bytes) << 5 | size_code(config.max_read_request_bytes) << 12, 0);
    const unsigned speed = link_speed_code(config.generation);
    set(pcie + PCIE_LINK_CAPABILITIES, 4, speed | config.lanes << 4, 0);
    set(pcie + PCIE_LINK_CONTROL, 2, 0, 0);
    set(pcie + PCIE_LINK_STATUS, 2, speed | config.lanes << 4, 0);
    set(pcie + PCIE_LINK_CAPABILITIES_2, 4, ((1u << config.generation) - 1) << 1, 0);

    const std::uint32_t msix = MSIX_CAPABILITY;
    set(msix, 1, kMsixCapabilityId, 0);
    set(msix + 1, 1, 0, 0);  // last capability
    set(msix + MSIX_MESSAGE_CONTROL, 2, regmap::kMsixVectors - 1, MSIX_FUNCTION_MASK | MSIX_ENABLE);
    set(msix + MSIX_TABLE_OFFSET, 4, regmap::MSIX_TABLE | 0 /* BIR 0 */, 0);
    set(msix + MSIX_PBA_OFFSET, 4, regmap::MSIX_PBA | 0 /* BIR 0 */, 0);
}

void PcieConfigSpace::set(std::uint32_t offset, std::uint32_t bytes, std::uint32_t value, std::uint32_t writable) {
    for (std::uint32_t i = 0; i < bytes; ++i) {
        bytes_[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
        writable_[offset + i] = static_cast<std::uint8_t>(writable >> (8 * i));
    }
}

bool PcieConfigSpace::valid_access(std::uint32_t offset, std::uint32_t bytes) {
    if (bytes != 1 && bytes != 2 && bytes != 4) return false;
    if (offset >= kConfigSpaceBytes || offset % bytes != 0) return false;
    return true;
}

std::uint32_t PcieConfigSpace::read(std::uint32_t offset, std::uint32_t bytes) const {
    std::uint32_t value = 0;
    for (std::uint32_t i = 0; i < bytes && offset + i < kConfigSpaceBytes; ++i)
        value |= static_cast<std::uint32_t>(bytes_[offset + i]) << (8 * i);
    return value;
}

void PcieConfigSpace::write(std::uint32_t offset, std::uint32_t bytes, std::uint32_t value) {
    for (std::uint32_t i = 0; i < bytes && offset + i < kConfigSpaceBytes; ++i) {
        const std::uint8_t mask = writable_[offset + i];
        const auto byte = static_cast<std::uint8_t>(value >> (8 * i));
        bytes_[offset + i] = static_cast<std::uint8_t>((bytes_[offset + i] & ~mask) | (byte & mask));
    }
}

std::uint64_t PcieConfigSpace::bar0_address() const {
    return (static_cast<std::uint64_t>(read(BAR1, 4)) << 32) | (read(BAR0, 4) & ~0xFu);
}

}  // namespace isvp::pci
