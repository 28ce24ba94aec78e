// PagedBuffer: the collective buffer in pages that exist only while a read
// still awaits them (models/collective/README.md, "Memory with payload").
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "isvp/paged_buffer.h"

using namespace isvp;

namespace {
constexpr std::uint64_t kPage = PagedBuffer::kPageBytes;
}  // namespace

TEST_CASE("A paged buffer reads zeros until written and allocates only the pages written", "[collective][paged]") {
    PagedBuffer::Account account;
    std::uint64_t peak = 0;
    account.peak = &peak;
    PagedBuffer buffer;
    buffer.reset(4 * kPage, &account);
    const StreamMap whole(0, 4 * kPage);
    std::vector<std::uint8_t> out(4 * kPage, 0xAA);
    buffer.gather(whole, 0, out.size(), out.data());
    CHECK(out == std::vector<std::uint8_t>(4 * kPage, 0));
    CHECK(buffer.held_bytes() == 0);
    const std::vector<std::uint8_t> in(10, 7);
    buffer.scatter(whole, in.data(), kPage - 5, kPage + 5);  // straddles pages 0 and 1
    CHECK(buffer.held_bytes() == 2 * kPage);
    CHECK(account.held == 2 * kPage);
    buffer.gather(whole, kPage - 6, kPage + 6, out.data());
    CHECK(out[0] == 0);
    CHECK(out[1] == 7);
    CHECK(out[10] == 7);
    CHECK(out[11] == 0);
    buffer.clear();  // every page goes back (kept whole without counted reads)
    CHECK(account.held == 0);
    CHECK(peak == 2 * kPage);
}

TEST_CASE("A page is released when its last counted read is done, and a write no read awaits is dropped",
          "[collective][paged]") {
    PagedBuffer::Account account;
    std::uint64_t peak = 0;
    account.peak = &peak;
    PagedBuffer buffer;
    buffer.reset(3 * kPage, &account);
    const StreamMap first_two(0, 2 * kPage);  // read twice, in chunks of one page
    const StreamMap last(2 * kPage, kPage);   // never read
    buffer.expect_reads(first_two, kPage);
    buffer.expect_reads(first_two, kPage);
    const std::vector<std::uint8_t> in(3 * kPage, 1);
    buffer.scatter(first_two, in.data(), 0, 2 * kPage);
    buffer.scatter(last, in.data(), 0, kPage);
    CHECK(buffer.held_bytes() == 2 * kPage);  // the unread page was never allocated
    buffer.read_done(first_two, 0, kPage);
    CHECK(buffer.held_bytes() == 2 * kPage);  // page 0 awaits its second read
    buffer.read_done(first_two, 0, kPage);
    CHECK(buffer.held_bytes() == kPage);
    std::vector<std::uint8_t> out(kPage);
    buffer.gather(first_two, kPage, 2 * kPage, out.data());
    CHECK(out == std::vector<std::uint8_t>(kPage, 1));
    buffer.read_done(first_two, kPage, 2 * kPage);
    buffer.read_done(first_two, kPage, 2 * kPage);
    CHECK(buffer.held_bytes() == 0);
    CHECK(account.held == 0);
    CHECK(peak == 2 * kPage);
}

TEST_CASE("A moved paged buffer keeps its pages and the account counts them once", "[collective][paged]") {
    PagedBuffer::Account account;
    PagedBuffer buffer;
    buffer.reset(2 * kPage, &account);
    const StreamMap whole(0, 2 * kPage);
    const std::uint8_t byte = 9;
    buffer.scatter(whole, &byte, 0, 1);
    PagedBuffer kept = std::move(buffer);
    CHECK(buffer.held_bytes() == 0);
    CHECK(kept.held_bytes() == kPage);
    CHECK(account.held == kPage);
    std::uint8_t out = 0;
    kept.gather(whole, 0, 1, &out);
    CHECK(out == 9);
    kept.clear();
    CHECK(account.held == 0);
}
