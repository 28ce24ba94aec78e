// Guest-side communicators: the communicator-table row the driver uploads
// (register_map.h layout, checked bit by bit) and MPI_Comm_split's ordering.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "isvp/collectives.h"
#include "isvp/communicator.h"
#include "isvp/driver.h"

using namespace isvp;
using namespace isvp::guest;

namespace {

using Row = std::array<std::uint32_t, regmap::kCtStagingDwords>;

std::uint32_t bits(const Row& row, unsigned position, unsigned width) {
    std::uint32_t value = 0;
    for (unsigned bit = 0; bit < width; ++bit)
        value |= (row[(position + bit) / 32] >> ((position + bit) % 32) & 1u) << bit;
    return value;
}
std::uint32_t entry_rank(const Row& row, unsigned k) {
    return bits(row, 8 + 18 * k, 16);
}
std::uint32_t entry_tag(const Row& row, unsigned k) {
    return bits(row, 8 + 18 * k + 16, 2);
}

std::vector<int> identity(int n) {
    std::vector<int> members;
    for (int r = 0; r < n; ++r) members.push_back(r);
    return members;
}

}  // namespace

TEST_CASE("ct_row of a singleton has every entry absent and the valid bit clear", "[driver][ct_row]") {
    const Row row = ct_row({7}, 0);
    for (const std::uint32_t dword : row) CHECK(dword == 0);
}

TEST_CASE("ct_row names hypercube peers with higher, lower and absent tags", "[driver][ct_row]") {
    // Comm rank 5 = 0b101 of 8: peer 4 lower, peer 7 higher, peer 1 lower.
    const std::vector<int> members = {100, 101, 102, 103, 104, 105, 106, 107};
    const Row row = ct_row(members, 5);
    CHECK(bits(row, 0, 8) == 0);
    CHECK(entry_rank(row, 0) == 104);
    CHECK(entry_tag(row, 0) == 2);
    CHECK(entry_rank(row, 1) == 107);
    CHECK(entry_tag(row, 1) == 1);
    CHECK(entry_rank(row, 2) == 101);
    CHECK(entry_tag(row, 2) == 2);
    for (unsigned k = 3; k < 16; ++k) {
        INFO("entry " << k);
        CHECK(entry_rank(row, k) == 0);
        CHECK(entry_tag(row, k) == 0);
    }
    // Entry 0 spans bits [25:8], entry 1 [43:26]: the first dwords exactly.
    CHECK(row[0] == (104u << 8 | 2u << 24 | (107u & 0x3Fu) << 26));
    CHECK(row[1] == (107u >> 6 | 1u << 10 | 101u << 12 | 2u << 28));
    // Bits past the 296-bit row are padding, zero.
    CHECK(bits(row, 296, 24) == 0);
}

TEST_CASE("ct_row maps comm ranks to the members' global ranks, not to themselves", "[driver][ct_row]") {
    const std::vector<int> reversed = {6, 4, 2, 0};  // comm rank i is global 6 - 2i
    const Row row = ct_row(reversed, 0);
    CHECK(entry_rank(row, 0) == 4);
    CHECK(entry_tag(row, 0) == 1);
    CHECK(entry_rank(row, 1) == 2);
    CHECK(entry_tag(row, 1) == 1);
    CHECK(entry_tag(row, 2) == 0);
}

TEST_CASE("ct_row marks peers beyond an odd size absent", "[driver][ct_row]") {
    // Comm rank 4 of 5: peers 5 and 6 do not exist, peer 0 is lower.
    const Row row = ct_row(identity(5), 4);
    CHECK(entry_tag(row, 0) == 0);
    CHECK(entry_tag(row, 1) == 0);
    CHECK(entry_rank(row, 2) == 0);
    CHECK(entry_tag(row, 2) == 2);
    // The switch recovers its comm rank from the tags: bit k set where peer k is lower.
    unsigned recovered = 0;
    for (unsigned k = 0; k < 16; ++k)
        if (entry_tag(row, k) == 2) recovered |= 1u << k;
    CHECK(recovered == 4);
}

TEST_CASE("ct_row uses all 16 entries for the largest global ranks", "[driver][ct_row]") {
    std::vector<int> members(65536);
    for (int r = 0; r < 65536; ++r) members[static_cast<std::size_t>(r)] = 65535 - r;
    const Row row = ct_row(members, 0);
    for (unsigned k = 0; k < 16; ++k) {
        INFO("entry " << k);
        CHECK(entry_rank(row, k) == 65535u - (1u << k));
        CHECK(entry_tag(row, k) == 1);
    }
}

TEST_CASE("ct_row rejects a comm rank outside the members and oversized global ranks", "[driver][ct_row]") {
    CHECK_THROWS_WITH(ct_row({0, 1}, 2), Catch::Contains("comm_rank 2 outside 0..1"));
    CHECK_THROWS_WITH(ct_row({}, 0), Catch::Contains("members must hold 1..65536"));
    CHECK_THROWS_WITH(ct_row({0, 70000}, 0), Catch::Contains("global rank 70000"));
}

TEST_CASE("split_order groups by colour and orders by key, ties by parent rank", "[driver][split]") {
    const std::vector<SplitRequest> requests = {{1, 5}, {0, 0}, {1, 2}, {0, 0}, {1, 5}, {-1, 0}};
    CHECK(split_order(requests, 0) == std::vector<int>{2, 0, 4});
    CHECK(split_order(requests, 4) == std::vector<int>{2, 0, 4});
    CHECK(split_order(requests, 1) == std::vector<int>{1, 3});
}

TEST_CASE("split_order with reversed keys reverses the group", "[driver][split]") {
    std::vector<SplitRequest> requests;
    for (int r = 0; r < 5; ++r) requests.push_back({0, -r});
    CHECK(split_order(requests, 3) == std::vector<int>{4, 3, 2, 1, 0});
}

TEST_CASE("split_order gives a negative colour no communicator", "[driver][split]") {
    const std::vector<SplitRequest> requests = {{-1, 0}, {0, 0}, {-5, 0}};
    CHECK(split_order(requests, 0).empty());
    CHECK(split_order(requests, 2).empty());
    CHECK(split_order(requests, 1) == std::vector<int>{1});
}

TEST_CASE("split_order with distinct colours makes singletons", "[driver][split]") {
    const std::vector<SplitRequest> requests = {{3, 0}, {2, 0}, {1, 0}};
    for (int r = 0; r < 3; ++r) CHECK(split_order(requests, r) == std::vector<int>{r});
}

TEST_CASE("combine_elements reduces odd-length vectors with the AgLU's arithmetic", "[driver][combine]") {
    std::vector<std::int32_t> a(11), b(11), out(11);
    for (int i = 0; i < 11; ++i) {
        a[static_cast<std::size_t>(i)] = i;
        b[static_cast<std::size_t>(i)] = 100 * i;
    }
    a[3] = 0x7FFFFFFF;  // wraps
    combine_elements(Operation::Sum, Datatype::Int32, reinterpret_cast<const std::uint8_t*>(a.data()),
                     reinterpret_cast<const std::uint8_t*>(b.data()), reinterpret_cast<std::uint8_t*>(out.data()),
                     11 * 4);
    for (int i = 0; i < 11; ++i) {
        INFO("element " << i);
        const std::int32_t expected =
            static_cast<std::int32_t>(static_cast<std::uint32_t>(a[static_cast<std::size_t>(i)]) +
                                      static_cast<std::uint32_t>(b[static_cast<std::size_t>(i)]));
        CHECK(out[static_cast<std::size_t>(i)] == expected);
    }
}

TEST_CASE("combine_elements names an operation the datatype does not have", "[driver][combine]") {
    double x = 1, y = 2;
    CHECK_THROWS_WITH(
        combine_elements(Operation::Bxor, Datatype::Float64, reinterpret_cast<const std::uint8_t*>(&x),
                         reinterpret_cast<const std::uint8_t*>(&y), reinterpret_cast<std::uint8_t*>(&x), 8),
        Catch::Contains("BXOR") && Catch::Contains("float64"));
}
