#include "isvp/msix_table.h"

namespace isvp {

MsixTable::MsixTable() = default;

std::uint32_t MsixTable::read(std::uint32_t offset) const {
    if (in_pba(offset)) {
        const std::uint32_t index = (offset - regmap::MSIX_PBA) / 4;
        return static_cast<std::uint32_t>(pending_[index / 2] >> (32 * (index % 2)));
    }
    if (!in_table(offset)) return 0;
    const Entry& entry = entries_[(offset - regmap::MSIX_TABLE) / regmap::MSIX_ENTRY_BYTES];
    switch ((offset - regmap::MSIX_TABLE) % regmap::MSIX_ENTRY_BYTES) {
        case regmap::MSIX_ADDRESS_LO:
            return static_cast<std::uint32_t>(entry.address);
        case regmap::MSIX_ADDRESS_HI:
            return static_cast<std::uint32_t>(entry.address >> 32);
        case regmap::MSIX_DATA:
            return entry.data;
        default:
            return entry.control;
    }
}

std::optional<MsiMessage> MsixTable::write(std::uint32_t offset, std::uint32_t value) {
    if (!in_table(offset)) return std::nullopt;  // the PBA is read-only
    const unsigned vector = (offset - regmap::MSIX_TABLE) / regmap::MSIX_ENTRY_BYTES;
    Entry& entry = entries_[vector];
    switch ((offset - regmap::MSIX_TABLE) % regmap::MSIX_ENTRY_BYTES) {
        case regmap::MSIX_ADDRESS_LO:
            // Message addresses are dword aligned: the low two bits are reserved.
            entry.address = (entry.address & ~0xFFFFFFFFull) | (value & ~3u);
            return std::nullopt;
        case regmap::MSIX_ADDRESS_HI:
            entry.address = (entry.address & 0xFFFFFFFFull) | static_cast<std::uint64_t>(value) << 32;
            return std::nullopt;
        case regmap::MSIX_DATA:
            entry.data = value;
            return std::nullopt;
        default:
            entry.control = value & 1u;
            if (entry.control == 0 && !function_masked_ && pending(vector)) {
                set_pending(vector, false);
                return message(vector);
            }
            return std::nullopt;
    }
}

std::optional<MsiMessage> MsixTable::raise(unsigned vector) {
    if (masked(vector) || function_masked_) {
        set_pending(vector, true);
        return std::nullopt;
    }
    return message(vector);
}

std::vector<MsiMessage> MsixTable::set_function_mask(bool masked_now) {
    std::vector<MsiMessage> deliver;
    const bool was_masked = function_masked_;
    function_masked_ = masked_now;
    if (!was_masked || masked_now) return deliver;
    for (unsigned vector = 0; vector < regmap::kMsixVectors; ++vector) {
        if (pending(vector) && !masked(vector)) {
            set_pending(vector, false);
            deliver.push_back(message(vector));
        }
    }
    return deliver;
}

MsiMessage MsixTable::message(unsigned vector) const {
    MsiMessage result;
    result.address = entries_[vector].address;
    result.data = entries_[vector].data;
    result.vector = vector;
    return result;
}

void MsixTable::set_pending(unsigned vector, bool value) {
    const std::uint64_t bit = 1ull << (vector % 64);
    if (value)
        pending_[vector / 64] |= bit;
    else
        pending_[vector / 64] &= ~bit;
}

}  // namespace isvp
