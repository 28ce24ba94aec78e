#include "isvp/paged_buffer.h"

#include <algorithm>
#include <cstring>

namespace isvp {

PagedBuffer& PagedBuffer::operator=(PagedBuffer&& other) noexcept {
    if (this == &other) return *this;
    clear();
    size_ = other.size_;
    account_ = other.account_;
    pages_ = std::move(other.pages_);
    reads_ = std::move(other.reads_);
    counted_ = other.counted_;
    held_pages_ = other.held_pages_;
    other.pages_.clear();
    other.reads_.clear();
    other.size_ = 0;
    other.held_pages_ = 0;
    other.counted_ = false;
    return *this;
}

void PagedBuffer::reset(std::uint64_t bytes, Account* account) {
    clear();
    size_ = bytes;
    account_ = account;
    pages_.resize(static_cast<std::size_t>((bytes + kPageBytes - 1) / kPageBytes));
}

void PagedBuffer::clear() {
    for (std::size_t p = 0; p < pages_.size(); ++p)
        if (pages_[p]) release(p);
    pages_.clear();
    reads_.clear();
    counted_ = false;
    size_ = 0;
}

std::uint8_t* PagedBuffer::page_for_write(std::size_t page) {
    std::unique_ptr<std::uint8_t[]>& slot = pages_[page];
    if (!slot) {
        if (account_ && !account_->spare.empty()) {
            slot = std::move(account_->spare.back());
            account_->spare.pop_back();
            std::memset(slot.get(), 0, kPageBytes);
        } else {
            slot.reset(new std::uint8_t[kPageBytes]());
        }
        ++held_pages_;
        if (account_) {
            account_->held += kPageBytes;
            account_->note();
        }
    }
    return slot.get();
}

void PagedBuffer::release(std::size_t page) {
    --held_pages_;
    if (account_) {
        account_->held -= kPageBytes;
        if (account_->spare.size() < kSparePages) account_->spare.push_back(std::move(pages_[page]));
    }
    pages_[page].reset();
}

void PagedBuffer::expect_reads(const StreamMap& stream, std::uint64_t chunk_bytes) {
    if (!counted_) {
        reads_.assign(pages_.size(), 0);
        counted_ = true;
    }
    // The pieces read_done will meet: each chunk's range cut at the pieces.
    for (const StreamMap::Piece& piece : stream.pieces())
        for (std::uint64_t at = piece.stream, end = piece.stream + piece.length; at < end;) {
            const std::uint64_t next = std::min(end, (at / chunk_bytes + 1) * chunk_bytes);
            for_pages(piece.buffer + (at - piece.stream), next - at,
                      [&](std::size_t page, std::uint64_t, std::uint64_t) { ++reads_[page]; });
            at = next;
        }
}

void PagedBuffer::read_done(const StreamMap& stream, std::uint64_t from, std::uint64_t to) {
    if (!counted_) return;
    stream.for_each(from, to, [&](std::uint64_t at, std::uint64_t n, std::uint64_t) {
        for_pages(at, n, [&](std::size_t page, std::uint64_t, std::uint64_t) {
            if (reads_[page] > 0 && --reads_[page] == 0 && pages_[page]) release(page);
        });
    });
}

void PagedBuffer::gather(const StreamMap& stream, std::uint64_t from, std::uint64_t to, std::uint8_t* out) const {
    stream.for_each(from, to, [&](std::uint64_t at, std::uint64_t n, std::uint64_t s) {
        std::uint8_t* o = out + (s - from);
        for_pages(at, n, [&](std::size_t page, std::uint64_t in_page, std::uint64_t take) {
            if (pages_[page])
                std::memcpy(o, pages_[page].get() + in_page, take);
            else
                std::memset(o, 0, take);
            o += take;
        });
    });
}

void PagedBuffer::scatter(const StreamMap& stream, const std::uint8_t* in, std::uint64_t from, std::uint64_t to) {
    stream.for_each(from, to, [&](std::uint64_t at, std::uint64_t n, std::uint64_t s) {
        const std::uint8_t* i = in + (s - from);
        for_pages(at, n, [&](std::size_t page, std::uint64_t in_page, std::uint64_t take) {
            if (!counted_ || reads_[page] > 0) std::memcpy(page_for_write(page) + in_page, i, take);
            i += take;
        });
    });
}

}  // namespace isvp
