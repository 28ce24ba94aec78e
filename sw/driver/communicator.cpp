#include "isvp/communicator.h"

#include <algorithm>
#include <string>

#include "isvp/driver.h"

namespace isvp::guest {

namespace {

/// Writes `width` bits of `value` at bit `position` of a little-endian dword array.
void put_bits(std::array<std::uint32_t, regmap::kCtStagingDwords>& row, unsigned position, unsigned width,
              std::uint32_t value) {
    for (unsigned bit = 0; bit < width; ++bit)
        if (value >> bit & 1u) row[(position + bit) / 32] |= 1u << ((position + bit) % 32);
}

}  // namespace

std::array<std::uint32_t, regmap::kCtStagingDwords> ct_row(const std::vector<int>& members, int comm_rank) {
    const auto size = static_cast<long>(members.size());
    if (size == 0 || size > (1l << regmap::kCtMaxRankBits))
        throw DriverError("ct_row: members must hold 1..65536 global ranks, got " + std::to_string(size));
    if (comm_rank < 0 || comm_rank >= size)
        throw DriverError("ct_row: comm_rank " + std::to_string(comm_rank) + " outside 0.." + std::to_string(size - 1));
    std::array<std::uint32_t, regmap::kCtStagingDwords> row{};
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        const long peer = comm_rank ^ (1l << k);
        if (peer >= size) continue;  // tag 0: absent
        const int global = members[static_cast<std::size_t>(peer)];
        if (global < 0 || global > 0xFFFF)
            throw DriverError("ct_row: global rank " + std::to_string(global) + " of comm rank " +
                              std::to_string(peer) + " does not fit 16 bits");
        const std::uint32_t tag = peer > comm_rank ? 1 : 2;
        const unsigned position = 8 + regmap::kCtEntryBits * k;
        put_bits(row, position, regmap::kCtMaxRankBits, static_cast<std::uint32_t>(global));
        put_bits(row, position + regmap::kCtMaxRankBits, 2, tag);
    }
    return row;
}

std::vector<int> split_order(const std::vector<SplitRequest>& requests, int parent_rank) {
    if (parent_rank < 0 || parent_rank >= static_cast<int>(requests.size()))
        throw DriverError("split_order: parent_rank " + std::to_string(parent_rank) + " outside 0.." +
                          std::to_string(static_cast<long>(requests.size()) - 1));
    const int colour = requests[static_cast<std::size_t>(parent_rank)].colour;
    std::vector<int> ranks;
    if (colour < 0) return ranks;
    for (int r = 0; r < static_cast<int>(requests.size()); ++r)
        if (requests[static_cast<std::size_t>(r)].colour == colour) ranks.push_back(r);
    std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) {
        return requests[static_cast<std::size_t>(a)].key < requests[static_cast<std::size_t>(b)].key;
    });
    return ranks;
}

}  // namespace isvp::guest
