#include "isvp/packet_format.h"

#include <array>
#include <cstring>

namespace isvp {
namespace {

constexpr std::array<std::string_view, kOpcodeCount> kOpcodeNames = {"send",    "bcast",  "reduce",    "allreduce",
                                                                     "scatter", "gather", "allgather", "reduce_scatter",
                                                                     "barrier", "stream", "alltoall"};

std::uint64_t bits(std::uint64_t value, unsigned shift, unsigned width) {
    return (value >> shift) & ((1ull << width) - 1);
}

void store_le(std::uint64_t value, std::size_t bytes, std::uint8_t* out) {
    for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint64_t load_le(const std::uint8_t* in, std::size_t bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
    return value;
}

}  // namespace

std::string_view to_string(Opcode opcode) { return kOpcodeNames.at(static_cast<std::size_t>(opcode)); }

std::optional<Opcode> opcode_from_code(unsigned code) {
    if (code >= kOpcodeCount) return std::nullopt;
    return static_cast<Opcode>(code);
}

std::uint64_t ProcessorHeader::encode() const {
    return (static_cast<std::uint64_t>(message_bytes) & 0x1FFFFFFFull) |
           static_cast<std::uint64_t>(context_id & 0x1F) << 29 | static_cast<std::uint64_t>(operation & 0xF) << 34 |
           static_cast<std::uint64_t>(static_cast<unsigned>(opcode) & 0xF) << 38 |
           static_cast<std::uint64_t>(algorithm & 0x3) << 42 | static_cast<std::uint64_t>(datatype & 0xF) << 44 |
           static_cast<std::uint64_t>(rank) << 48;
}

std::optional<ProcessorHeader> ProcessorHeader::decode(std::uint64_t value) {
    const auto opcode = opcode_from_code(static_cast<unsigned>(bits(value, 38, 4)));
    if (!opcode) return std::nullopt;
    ProcessorHeader header;
    header.message_bytes = static_cast<std::uint32_t>(bits(value, 0, 29));
    header.context_id = static_cast<std::uint8_t>(bits(value, 29, 5));
    header.operation = static_cast<std::uint8_t>(bits(value, 34, 4));
    header.opcode = *opcode;
    header.algorithm = static_cast<std::uint8_t>(bits(value, 42, 2));
    header.datatype = static_cast<std::uint8_t>(bits(value, 44, 4));
    header.rank = static_cast<std::uint16_t>(bits(value, 48, 16));
    return header;
}

void ProcessorHeader::write(std::uint8_t* out) const { store_le(encode(), kBytes, out); }

std::optional<ProcessorHeader> ProcessorHeader::read(const std::uint8_t* in) { return decode(load_le(in, kBytes)); }

bool ProcessorHeader::operator==(const ProcessorHeader& other) const { return encode() == other.encode(); }

std::uint64_t NetworkHeader::encode() const {
    return static_cast<std::uint64_t>(size_code & 0xF) | static_cast<std::uint64_t>(static_cast<unsigned>(opcode) & 0xF)
                                                              << 4 |
           static_cast<std::uint64_t>(destination) << 8 | static_cast<std::uint64_t>(context_id & 0x1F) << 24 |
           static_cast<std::uint64_t>(operation & 0xF) << 29 | static_cast<std::uint64_t>(algorithm & 0x3) << 33 |
           static_cast<std::uint64_t>(last ? 1 : 0) << 35 | static_cast<std::uint64_t>(datatype & 0xF) << 36 |
           static_cast<std::uint64_t>(step) << 40;
}

std::optional<NetworkHeader> NetworkHeader::decode(std::uint64_t value) {
    const auto opcode = opcode_from_code(static_cast<unsigned>(bits(value, 4, 4)));
    if (!opcode) return std::nullopt;
    // A point-to-point packet has no step: non-zero bits there are corruption.
    if (*opcode == Opcode::Send && bits(value, 40, 8) != 0) return std::nullopt;
    NetworkHeader header;
    header.size_code = static_cast<std::uint8_t>(bits(value, 0, 4));
    header.opcode = *opcode;
    header.destination = static_cast<std::uint16_t>(bits(value, 8, 16));
    header.context_id = static_cast<std::uint8_t>(bits(value, 24, 5));
    header.operation = static_cast<std::uint8_t>(bits(value, 29, 4));
    header.algorithm = static_cast<std::uint8_t>(bits(value, 33, 2));
    header.last = bits(value, 35, 1) != 0;
    header.datatype = static_cast<std::uint8_t>(bits(value, 36, 4));
    header.step = static_cast<std::uint8_t>(bits(value, 40, 8));
    return header;
}

void NetworkHeader::write(std::uint8_t* out) const { store_le(encode(), kBytes, out); }

std::optional<NetworkHeader> NetworkHeader::read(const std::uint8_t* in) { return decode(load_le(in, kBytes)); }

std::optional<std::uint8_t> size_code_for(std::uint32_t bytes) {
    for (std::uint8_t code = 0; code < 16; ++code)
        if ((16u << code) >= bytes) return code;
    return std::nullopt;
}

std::optional<NetworkPacketView> NetworkPacketView::parse(const std::uint8_t* bytes, std::size_t length,
                                                          std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<NetworkPacketView> {
        if (error) *error = why;
        return std::nullopt;
    };
    if (length < kNetworkPacketOverhead)
        return fail("network packet of " + std::to_string(length) + " bytes is shorter than its " +
                    std::to_string(kNetworkPacketOverhead) + "-byte headers");
    const auto network = NetworkHeader::read(bytes);
    if (!network) return fail("network header has a reserved opcode or non-zero reserved bits");
    const auto processor = ProcessorHeader::read(bytes + NetworkHeader::kBytes);
    if (!processor) return fail("replicated processor header has a reserved opcode");
    NetworkPacketView view;
    view.network = *network;
    view.processor = *processor;
    const auto word = static_cast<std::uint32_t>(load_le(bytes + NetworkHeader::kBytes + ProcessorHeader::kBytes, 4));
    view.offset = word & kPayloadOffsetMask;
    view.generation = static_cast<std::uint8_t>(word >> kTreeGenerationShift);
    view.payload = bytes + kNetworkPacketOverhead;
    view.payload_bytes = static_cast<std::uint32_t>(length - kNetworkPacketOverhead);
    if (view.payload_bytes > network->payload_capacity())
        return fail("payload of " + std::to_string(view.payload_bytes) + " bytes exceeds the size code's " +
                    std::to_string(network->payload_capacity()));
    if (static_cast<std::uint64_t>(view.offset) + view.payload_bytes > processor->message_bytes)
        return fail("payload [" + std::to_string(view.offset) + ", +" + std::to_string(view.payload_bytes) +
                    ") runs past the " + std::to_string(processor->message_bytes) + "-byte message");
    return view;
}

std::size_t write_network_packet(const NetworkHeader& network, const ProcessorHeader& processor, std::uint32_t offset,
                                 const std::uint8_t* payload, std::uint32_t payload_bytes, std::uint8_t* out) {
    network.write(out);
    processor.write(out + NetworkHeader::kBytes);
    store_le(offset, 4, out + NetworkHeader::kBytes + ProcessorHeader::kBytes);
    if (payload_bytes) std::memcpy(out + kNetworkPacketOverhead, payload, payload_bytes);
    return kNetworkPacketOverhead + payload_bytes;
}

}  // namespace isvp
namespace {
void put16(std::uint8_t* out, std::uint16_t v) {
    out[0] = static_cast<std::uint8_t>(v);
    out[1] = static_cast<std::uint8_t>(v >> 8);
}
std::uint16_t get16(const std::uint8_t* in) {
    return static_cast<std::uint16_t>(in[0] | in[1] << 8);
}
}  // namespace

void TreeJoin::write(std::uint8_t* out) const {
    put16(out, size);
    put16(out + 2, comm_rank);
    put16(out + 4, host);
    put16(out + 6, global_rank0);
}

TreeJoin TreeJoin::read(const std::uint8_t* in) {
    TreeJoin j;
    j.size = get16(in);
    j.comm_rank = get16(in + 2);
    j.host = get16(in + 4);
    j.global_rank0 = get16(in + 6);
    return j;
}

void TreeConfig::write(std::uint8_t* out) const {
    put16(out, target);
    out += 2;
    put16(out, static_cast<std::uint16_t>(slot | generation << 8));
    put16(out + 2, parent);
    put16(out + 4, root_vertex);
    put16(out + 6, static_cast<std::uint16_t>(inputs.size()));
    for (std::size_t i = 0; i < inputs.size(); ++i) put16(out + kHeaderBytes - 2 + 2 * i, inputs[i]);
    if (size == 0) return;
    out += kHeaderBytes - 2 + 2 * inputs.size();
    put16(out, size);
    out += 2;
    for (const std::vector<Run>& runs : input_ranks) {
        put16(out, static_cast<std::uint16_t>(runs.size()));
        out += 2;
        for (const Run& run : runs) {
            put16(out, run.first);
            put16(out + 2, run.count);
            out += 4;
        }
    }
}

std::size_t TreeConfig::bytes() const {
    std::size_t n = kHeaderBytes + 2 * inputs.size();
    if (size == 0) return n;
    n += 2;
    for (const std::vector<Run>& runs : input_ranks) n += 2 + 4 * runs.size();
    return n;
}

std::optional<TreeConfig> TreeConfig::read(const std::uint8_t* in, std::size_t length) {
    if (length < kHeaderBytes) return std::nullopt;
    TreeConfig c;
    c.target = get16(in);
    in += 2;
    length -= 2;
    const std::uint16_t slot = get16(in);
    c.slot = static_cast<std::uint8_t>(slot);
    c.generation = static_cast<std::uint8_t>(slot >> 8);
    c.parent = get16(in + 2);
    c.root_vertex = get16(in + 4);
    const std::size_t inputs = get16(in + 6);
    if (length < kHeaderBytes - 2 + 2 * inputs) return std::nullopt;
    for (std::size_t i = 0; i < inputs; ++i) c.inputs.push_back(get16(in + kHeaderBytes - 2 + 2 * i));
    in += kHeaderBytes - 2 + 2 * inputs;
    length -= kHeaderBytes - 2 + 2 * inputs;
    if (length == 0) return c;
    // The members' comm ranks per input: every run inside the communicator.
    if (length < 2 || inputs == 0) return std::nullopt;
    c.size = get16(in);
    in += 2;
    length -= 2;
    if (c.size == 0) return std::nullopt;
    for (std::size_t i = 0; i < inputs; ++i) {
        if (length < 2) return std::nullopt;
        const std::size_t runs = get16(in);
        in += 2;
        length -= 2;
        if (length < 4 * runs) return std::nullopt;
        std::vector<Run> list;
        for (std::size_t r = 0; r < runs; ++r, in += 4, length -= 4) {
            const Run run{get16(in), get16(in + 2)};
            if (run.count == 0 || std::uint32_t{run.first} + run.count > c.size) return std::nullopt;
            list.push_back(run);
        }
        c.input_ranks.push_back(std::move(list));
    }
    if (length != 0) return std::nullopt;
    return c;
}
