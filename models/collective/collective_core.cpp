#include "isvp/collective_core.h"

#include <algorithm>
#include <cstring>

namespace isvp {

namespace {
void put16(std::uint8_t* out, std::uint16_t v) {
    out[0] = static_cast<std::uint8_t>(v);
    out[1] = static_cast<std::uint8_t>(v >> 8);
}
void put32(std::uint8_t* out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint16_t get16(const std::uint8_t* in) { return static_cast<std::uint16_t>(in[0] | in[1] << 8); }
std::uint32_t get32(const std::uint8_t* in) {
    return static_cast<std::uint32_t>(in[0]) | static_cast<std::uint32_t>(in[1]) << 8 |
           static_cast<std::uint32_t>(in[2]) << 16 | static_cast<std::uint32_t>(in[3]) << 24;
}
}  // namespace

// ------------------------------------------------------------------ envelope

void CollectiveEnvelope::write(std::uint8_t* out) const {
    put32(out, elements_per_block);
    put16(out + 4, size);
    put16(out + 6, root);
    put16(out + 8, global_rank0);
    put16(out + 10, global_root);
    put32(out + 12, sequence);
}

CollectiveEnvelope CollectiveEnvelope::read(const std::uint8_t* in) {
    CollectiveEnvelope e;
    e.elements_per_block = get32(in);
    e.size = get16(in + 4);
    e.root = get16(in + 6);
    e.global_rank0 = get16(in + 8);
    e.global_root = get16(in + 10);
    e.sequence = get32(in + 12);
    return e;
}

bool CollectiveEnvelope::operator==(const CollectiveEnvelope& o) const {
    return elements_per_block == o.elements_per_block && size == o.size && root == o.root &&
           global_rank0 == o.global_rank0 && global_root == o.global_root && sequence == o.sequence;
}

// ------------------------------------------------------------------ CT row

CtRow::Dwords CtRow::encode() const {
    Dwords dwords{};
    auto set_bits = [&](unsigned at, unsigned width, std::uint32_t value) {
        for (unsigned i = 0; i < width; ++i)
            if (value >> i & 1u) dwords[(at + i) / 32] |= 1u << ((at + i) % 32);
    };
    set_bits(0, 1, valid ? 1 : 0);
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        const unsigned at = 8 + regmap::kCtEntryBits * k;
        set_bits(at, 16, global[k]);
        set_bits(at + 16, 2, tag[k]);
    }
    return dwords;
}

CtRow CtRow::decode(const Dwords& dwords) {
    auto bits = [&](unsigned at, unsigned width) {
        std::uint32_t value = 0;
        for (unsigned i = 0; i < width; ++i) value |= (dwords[(at + i) / 32] >> ((at + i) % 32) & 1u) << i;
        return value;
    };
    CtRow row;
    row.valid = bits(0, 1) != 0;
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        const unsigned at = 8 + regmap::kCtEntryBits * k;
        row.global[k] = static_cast<std::uint16_t>(bits(at, 16));
        row.tag[k] = static_cast<std::uint8_t>(bits(at + 16, 2));
    }
    return row;
}

std::optional<int> CtRow::own_rank() const {
    int rank = 0;
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        if (tag[k] == Reserved) return std::nullopt;
        if (tag[k] == Lower) rank |= 1 << k;
    }
    return rank;
}

bool CtRow::consistent_with(int size, int rank) const {
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        const int peer = rank ^ (1 << k);
        const std::uint8_t expected = peer >= size ? Absent : (peer > rank ? Higher : Lower);
        // A lower peer always exists; bit k of the rank is carried by the tag
        // even where the entry is "absent" only if the peer is higher.
        if (tag[k] != expected) return false;
    }
    return true;
}

std::optional<std::uint16_t> CtRow::neighbour(int own, int peer) const {
    const int d = own ^ peer;
    if (d <= 0 || (d & (d - 1)) != 0) return std::nullopt;
    unsigned k = 0;
    while ((1 << k) != d) ++k;
    if (k >= regmap::kCtEntries || tag[k] == Absent || tag[k] == Reserved) return std::nullopt;
    return global[k];
}

CtRow make_ct_row(int rank, const std::vector<std::uint16_t>& global_of) {
    CtRow row;
    const int size = static_cast<int>(global_of.size());
    for (unsigned k = 0; k < regmap::kCtEntries; ++k) {
        const int peer = rank ^ (1 << k);
        if (peer >= size) continue;
        row.global[k] = global_of[static_cast<std::size_t>(peer)];
        row.tag[k] = peer > rank ? CtRow::Higher : CtRow::Lower;
    }
    return row;
}

// ------------------------------------------------------------------ layouts

bool is_reduction(Opcode c) { return c == Opcode::Reduce || c == Opcode::Allreduce || c == Opcode::ReduceScatter; }

std::uint64_t block_bytes(Opcode collective, std::uint32_t elements_per_block, Datatype type) {
    if (collective == Opcode::Barrier) return 0;
    return static_cast<std::uint64_t>(elements_per_block) * element_size(type);
}

BlockSpan contribution_span(Opcode collective, int size, int rank, int root) {
    const auto n = static_cast<std::uint32_t>(size);
    const auto r = static_cast<std::uint32_t>(rank);
    switch (collective) {
        case Opcode::Bcast:
        case Opcode::Reduce:
        case Opcode::Allreduce: return {0, 1};
        case Opcode::ReduceScatter: return {0, n};
        case Opcode::Scatter: return rank == root ? BlockSpan{0, n} : BlockSpan{0, 0};
        case Opcode::Gather:
        case Opcode::Allgather: return {r, 1};
        default: return {0, 0};
    }
}

BlockSpan result_span(Opcode collective, int size, int rank, int root) {
    const auto n = static_cast<std::uint32_t>(size);
    const auto r = static_cast<std::uint32_t>(rank);
    switch (collective) {
        case Opcode::Bcast:
        case Opcode::Allreduce: return {0, 1};
        case Opcode::Reduce: return rank == root ? BlockSpan{0, 1} : BlockSpan{0, 0};
        case Opcode::Scatter:
        case Opcode::ReduceScatter: return {r, 1};
        case Opcode::Gather: return rank == root ? BlockSpan{0, n} : BlockSpan{0, 0};
        case Opcode::Allgather: return {0, n};
        default: return {0, 0};
    }
}

std::uint64_t transfer_bytes(const std::vector<BlockSpan>& spans, std::uint64_t block_bytes) {
    std::uint64_t blocks = 0;
    for (const BlockSpan& s : spans) blocks += s.count;
    return blocks * block_bytes;
}

void gather_spans(const std::uint8_t* buffer, const std::vector<BlockSpan>& spans, std::uint64_t block_bytes,
                  std::uint8_t* stream) {
    for (const BlockSpan& s : spans) {
        const std::uint64_t n = s.count * block_bytes;
        if (n) std::memcpy(stream, buffer + s.first * block_bytes, n);
        stream += n;
    }
}

void scatter_spans(const std::uint8_t* stream, const std::vector<BlockSpan>& spans, std::uint64_t block_bytes,
                   std::uint8_t* buffer) {
    for (const BlockSpan& s : spans) {
        const std::uint64_t n = s.count * block_bytes;
        if (n) std::memcpy(buffer + s.first * block_bytes, stream, n);
        stream += n;
    }
}

// ------------------------------------------------------------------ message store

MessageStore::AddResult MessageStore::add(const NetworkPacketView& p) {
    auto& queue = queues_[key(p.network.context_id, p.processor.rank)];
    bool fresh = false;
    if (queue.empty() || queue.back().complete()) {
        fresh = true;
        Message m;
        if (!spare_.empty()) {
            m.data = std::move(spare_.back());
            spare_.pop_back();
        }
        m.step = p.network.step;
        m.opcode = p.network.opcode;
        m.operation = p.network.operation;
        m.datatype = p.network.datatype;
        m.algorithm = p.network.algorithm;
        m.bytes = p.processor.message_bytes;
        if (m.data.size() < m.bytes) m.data.resize(m.bytes);
        queue.push_back(std::move(m));
    }
    Message& m = queue.back();
    const bool same = m.step == p.network.step && m.opcode == p.network.opcode && m.bytes == p.processor.message_bytes &&
                      m.operation == p.network.operation && m.datatype == p.network.datatype &&
                      m.algorithm == p.network.algorithm;
    if (!same || static_cast<std::uint64_t>(p.offset) + p.payload_bytes > m.bytes ||
        m.received + p.payload_bytes > m.bytes) {
        if (fresh) {  // a message this packet opened: undo
            spare_.push_back(std::move(m.data));
            queue.pop_back();
        }
        return AddResult::Inconsistent;
    }
    if (p.payload_bytes) std::memcpy(m.data.data() + p.offset, p.payload, p.payload_bytes);
    m.received += p.payload_bytes;
    stored_bytes_ += p.payload_bytes;
    return m.complete() ? AddResult::Completed : AddResult::Ok;
}

MessageStore::Message* MessageStore::front_complete(std::uint8_t context, std::uint16_t sender) {
    const auto it = queues_.find(key(context, sender));
    if (it == queues_.end() || it->second.empty() || !it->second.front().complete()) return nullptr;
    return &it->second.front();
}

void MessageStore::pop(std::uint8_t context, std::uint16_t sender) {
    const auto it = queues_.find(key(context, sender));
    if (it == queues_.end() || it->second.empty()) return;
    Message& m = it->second.front();
    stored_bytes_ -= m.received;
    spare_.push_back(std::move(m.data));
    it->second.pop_front();
}

std::size_t MessageStore::messages() const {
    std::size_t n = 0;
    for (const auto& [k, q] : queues_) n += q.size();
    return n;
}

}  // namespace isvp
