// PagedBuffer: a collective's buffer as the engine's memory holds it. The
// buffer's address space is the whole message (every block: the
// schedules' streams are ranges of it), but its bytes live in pages
// allocated when first written and released once every read the data
// phase will still make of them is done (expect_reads / read_done: step
// packets to peers, combines with received chunks, result packets to the
// host). So the engine holds a window of the message, not the message
// (issue 12; an unallocated page reads as zeros, as the zeroed buffer did).
// Without expected reads (keep_all) no page is released before clear().
//
// Plain C++17, no SystemC.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "isvp/collective_core.h"

namespace isvp {

class PagedBuffer {
  public:
    static constexpr std::uint64_t kPageBytes = 4096;  ///< allocation unit
    /// Page bytes held by every buffer that shares it (one engine), and
    /// the peak of them plus `others` (what else the owner holds).
    struct Account {
        std::uint64_t held = 0;         ///< page bytes allocated now
        std::uint64_t others = 0;       ///< the owner's other buffers (requests), as last noted
        std::uint64_t* peak = nullptr;  ///< max of held + others (the owner's statistic; null: none)
        /// Released pages kept for reuse (at most kSparePages).
        std::vector<std::unique_ptr<std::uint8_t[]>> spare;
        void note() {
            if (peak && held + others > *peak) *peak = held + others;
        }
    };
    static constexpr std::size_t kSparePages = 256;

    PagedBuffer() = default;
    PagedBuffer(const PagedBuffer&) = delete;
    PagedBuffer& operator=(const PagedBuffer&) = delete;
    PagedBuffer(PagedBuffer&& other) noexcept { *this = std::move(other); }
    PagedBuffer& operator=(PagedBuffer&& other) noexcept;
    ~PagedBuffer() { clear(); }

    /// A zeroed buffer of `bytes` (no page yet), its pages counted in
    /// `account` (may be null); every page kept until clear().
    void reset(std::uint64_t bytes, Account* account);
    /// Releases every page; size 0.
    void clear();
    std::uint64_t size() const { return size_; }
    /// Page bytes allocated now.
    std::uint64_t held_bytes() const { return held_pages_ * kPageBytes; }

    /// Counts the reads of `stream` chunk by chunk (chunks of `chunk_bytes`
    /// from stream byte 0), each to be ended by read_done with the same
    /// chunk's range. Once any is counted, a page is released when its
    /// last counted read is done, and a write into a page no read awaits
    /// is dropped (nothing would read it).
    void expect_reads(const StreamMap& stream, std::uint64_t chunk_bytes);
    /// One counted read of stream bytes [from, to) (a whole chunk) is done.
    void read_done(const StreamMap& stream, std::uint64_t from, std::uint64_t to);

    /// StreamMap::gather / scatter over the pages.
    void gather(const StreamMap& stream, std::uint64_t from, std::uint64_t to, std::uint8_t* out) const;
    void scatter(const StreamMap& stream, const std::uint8_t* in, std::uint64_t from, std::uint64_t to);

  private:
    template <typename F>
    static void for_pages(std::uint64_t at, std::uint64_t n, F&& f) {
        for (std::uint64_t end = at + n; at < end;) {
            const std::uint64_t page = at / kPageBytes, in_page = at % kPageBytes;
            const std::uint64_t take = std::min(end - at, kPageBytes - in_page);
            f(static_cast<std::size_t>(page), in_page, take);
            at += take;
        }
    }
    std::uint8_t* page_for_write(std::size_t page);
    void release(std::size_t page);

    std::uint64_t size_ = 0;                              ///< bytes of address space
    Account* account_ = nullptr;                          ///< where pages are counted (may be null)
    std::vector<std::unique_ptr<std::uint8_t[]>> pages_;  ///< null: not allocated (zeros) or released
    std::vector<std::uint32_t> reads_;                    ///< per page: counted reads still to come
    bool counted_ = false;                                ///< reads are counted: pages are released
    std::uint64_t held_pages_ = 0;                        ///< pages allocated now
};

}  // namespace isvp
