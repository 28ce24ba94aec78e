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

void store_le32(std::uint8_t* out, std::uint32_t value) { put32(out, value); }
std::uint32_t load_le32(const std::uint8_t* in) { return get32(in); }

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
    const auto k = static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(d)));  // d is 2^k
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
        case Opcode::Allreduce:
            return {0, 1};
        case Opcode::ReduceScatter:
        case Opcode::Alltoall:
            return {0, n};
        case Opcode::Scatter:
            return rank == root ? BlockSpan{0, n} : BlockSpan{0, 0};
        case Opcode::Gather:
        case Opcode::Allgather:
            return {r, 1};
        default:
            return {0, 0};
    }
}

BlockSpan result_span(Opcode collective, int size, int rank, int root) {
    const auto n = static_cast<std::uint32_t>(size);
    const auto r = static_cast<std::uint32_t>(rank);
    switch (collective) {
        case Opcode::Bcast:
        case Opcode::Allreduce:
            return {0, 1};
        case Opcode::Reduce:
            return rank == root ? BlockSpan{0, 1} : BlockSpan{0, 0};
        case Opcode::Scatter:
        case Opcode::ReduceScatter:
            return {r, 1};
        case Opcode::Gather:
            return rank == root ? BlockSpan{0, n} : BlockSpan{0, 0};
        case Opcode::Allgather:
        case Opcode::Alltoall:
            return {0, n};
        default:
            return {0, 0};
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

// ------------------------------------------------------------------ layouts and streams

BlockLayout BlockLayout::uniform(std::uint32_t blocks, std::uint64_t block_bytes) {
    BlockLayout l;
    l.blocks_ = blocks;
    l.uniform_ = block_bytes;
    return l;
}

BlockLayout BlockLayout::variable(const std::vector<std::uint64_t>& block_bytes) {
    BlockLayout l;
    l.blocks_ = static_cast<std::uint32_t>(block_bytes.size());
    l.offsets_.resize(block_bytes.size() + 1);
    for (std::size_t b = 0; b < block_bytes.size(); ++b) l.offsets_[b + 1] = l.offsets_[b] + block_bytes[b];
    return l;
}

StreamMap::StreamMap(const std::vector<BlockSpan>& spans, const BlockLayout& layout) {
    for (const BlockSpan& s : spans) {
        const std::uint64_t buffer = layout.offset(s.first), length = layout.bytes(s);
        if (length == 0) continue;
        Piece* last = count_ == 0 ? nullptr : count_ == 1 ? &single_ : &pieces_.back();
        if (last != nullptr && last->buffer + last->length == buffer)
            last->length += length;
        else
            add(Piece{bytes_, buffer, length});
        bytes_ += length;
    }
    if (count_ < 2) return;
    by_buffer_.resize(pieces_.size());
    for (std::uint32_t i = 0; i < by_buffer_.size(); ++i) by_buffer_[i] = i;
    std::sort(by_buffer_.begin(), by_buffer_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return pieces_[a].buffer < pieces_[b].buffer; });
}

StreamMap::StreamMap(std::uint64_t buffer, std::uint64_t length) : bytes_(length) {
    if (length) add(Piece{0, buffer, length});
}

void StreamMap::add(const Piece& piece) {
    if (count_ == 0) {
        single_ = piece;
    } else {
        if (count_ == 1) pieces_.push_back(single_);
        pieces_.push_back(piece);
    }
    ++count_;
}

std::uint64_t StreamMap::pending_end_pieces(std::uint64_t from, std::uint64_t lo, std::uint64_t hi) const {
    // First piece (by buffer offset) that ends after lo.
    auto it = std::partition_point(by_buffer_.begin(), by_buffer_.end(), [&](std::uint32_t i) {
        return pieces_[i].buffer + pieces_[i].length <= lo;
    });
    std::uint64_t last = 0;
    for (; it != by_buffer_.end() && pieces_[*it].buffer < hi; ++it) {
        const Piece& p = pieces_[*it];
        const std::uint64_t end = p.stream + (std::min(hi, p.buffer + p.length) - p.buffer);  // overlap's stream end
        if (end > from) last = std::max(last, end);                                          // ... past `from`
    }
    return last;
}

void StreamMap::gather(const std::uint8_t* buffer, std::uint64_t from, std::uint64_t to, std::uint8_t* out) const {
    for_each(from, to, [&](std::uint64_t at, std::uint64_t n, std::uint64_t s) {
        std::memcpy(out + (s - from), buffer + at, n);
    });
}

void StreamMap::scatter(const std::uint8_t* in, std::uint64_t from, std::uint64_t to, std::uint8_t* buffer) const {
    for_each(from, to, [&](std::uint64_t at, std::uint64_t n, std::uint64_t s) {
        std::memcpy(buffer + at, in + (s - from), n);
    });
}

// ------------------------------------------------------------------ argument agreement

void CollectiveArguments::write(std::uint8_t* out) const {
    put32(out, count);
    put16(out + 4, size);
    put16(out + 6, root);
    put32(out + 8, sequence);
    put32(out + 12, errors);
}

CollectiveArguments CollectiveArguments::read(const std::uint8_t* in, Opcode opcode, std::uint8_t operation,
                                              std::uint8_t datatype, std::uint8_t algorithm) {
    CollectiveArguments a;
    a.opcode = opcode;
    a.operation = operation;
    a.datatype = datatype;
    a.algorithm = algorithm;
    a.count = get32(in);
    a.size = get16(in + 4);
    a.root = get16(in + 6);
    a.sequence = get32(in + 8);
    a.errors = get32(in + 12);
    return a;
}

std::uint32_t mismatch_fields(const CollectiveArguments& a, const CollectiveArguments& b) {
    std::uint32_t m = 0;
    if (a.count != b.count) m |= mismatch::kCount;
    if (a.root != b.root) m |= mismatch::kRoot;
    if (a.operation != b.operation) m |= mismatch::kOperation;
    if (a.datatype != b.datatype) m |= mismatch::kDatatype;
    if (a.opcode != b.opcode) m |= mismatch::kCollective;
    if (a.algorithm != b.algorithm) m |= mismatch::kAlgorithm;
    if (a.size != b.size) m |= mismatch::kSize;
    if (a.sequence != b.sequence) m |= mismatch::kSequence;
    return m;
}

std::string describe_mismatch(std::uint32_t mask) {
    static const char* const kNames[] = {"count",      "root",      "operation",
                                         "datatype",   "collective", "algorithm",
                                         "communicator size", "sequence (a member skipped a collective)",
                                         "operation/datatype unsupported at a member",
                                         "contribution size at a member",
                                         "arguments outside a member's CT row or buffer",
                                         "a step packet that disagrees with the schedule",
                                         "a member's CT row was released (collective aborted)",
                                         "packets between members were lost (link fault)"};
    std::string out;
    for (unsigned bit = 0; bit < sizeof kNames / sizeof kNames[0]; ++bit)
        if (mask >> bit & 1u) out += (out.empty() ? "" : ", ") + std::string(kNames[bit]);
    return out.empty() ? "unknown" : out;
}

std::uint32_t counts_digest(const std::vector<std::uint32_t>& counts) {
    std::uint32_t h = 2166136261u;
    for (const std::uint32_t c : counts)
        for (int i = 0; i < 4; ++i) h = (h ^ (c >> (8 * i) & 0xFFu)) * 16777619u;
    return h == kVariableCounts ? 0 : h;
}

// ------------------------------------------------------------------ step packets

void set_step_sequence(ProcessorHeader& h, std::uint32_t sequence) {
    const std::uint32_t s = sequence & kStepSequenceMask;
    h.context_id = static_cast<std::uint8_t>(s & 0x1F);
    h.operation = static_cast<std::uint8_t>(s >> 5 & 0xF);
    h.datatype = static_cast<std::uint8_t>(s >> 9 & 0xF);
    h.algorithm = static_cast<std::uint8_t>(s >> 13 & 0x3);
}

std::uint16_t step_sequence(const ProcessorHeader& h) {
    return static_cast<std::uint16_t>((h.context_id & 0x1F) | (h.operation & 0xF) << 5 | (h.datatype & 0xF) << 9 |
                                      (h.algorithm & 0x3) << 13);
}

int compare_sequence(std::uint16_t a, std::uint16_t b) {
    const std::uint32_t d = (static_cast<std::uint32_t>(a) - b) & kStepSequenceMask;
    if (d == 0) return 0;
    return d < (kStepSequenceMask + 1) / 2 ? 1 : -1;
}

void ChannelStore::push(const NetworkPacketView& v, void* owner) {
    HeldPacket p;
    p.step = v.network.step;
    p.opcode = v.network.opcode;
    p.operation = v.network.operation;
    p.datatype = v.network.datatype;
    p.algorithm = v.network.algorithm;
    p.sequence = step_sequence(v.processor);
    p.message_bytes = v.processor.message_bytes;
    p.offset = v.offset;
    p.payload = v.payload;
    p.payload_bytes = v.payload_bytes;
    p.owner = owner;
    channel(v.network.context_id, v.processor.rank).push_back(p);
    ++held_[v.network.context_id];
    ++total_;
}

void* ChannelStore::pop(std::uint8_t context, std::uint16_t sender) {
    HeldChannel* fifo = channels_[context].find(sender);
    if (fifo == nullptr || fifo->empty()) return nullptr;
    void* owner = fifo->front().owner;
    fifo->pop_front();
    --held_[context];
    --total_;
    return owner;
}

std::vector<std::uint16_t> ChannelStore::senders(std::uint8_t context) const {
    std::vector<std::uint16_t> out;
    channels_[context].for_each([&](std::uint16_t sender, const HeldChannel& fifo) {
        if (!fifo.empty()) out.push_back(sender);
    });
    return out;
}

std::string endpoint_label(unsigned address, unsigned hosts) {
    if (address < hosts) return "node " + std::to_string(address);
    return "switch " + std::to_string(address - hosts);
}

}  // namespace isvp
