#include "isvp/qdma_formats.h"

#include <cstdio>
#include <initializer_list>
#include <utility>

#include "isvp/packet_format.h"
#include "isvp/reduction_types.h"

namespace isvp {

namespace {

std::uint64_t load(const std::uint8_t* in, std::size_t bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
    return value;
}

void store(std::uint64_t value, std::size_t bytes, std::uint8_t* out) {
    for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

/// Flag names joined by '|', unknown bits in hex, "-" for none.
std::string flags(std::uint32_t value, std::initializer_list<std::pair<std::uint32_t, const char*>> names) {
    std::string text;
    for (const auto& [bit, name] : names) {
        if (!(value & bit)) continue;
        if (!text.empty()) text += '|';
        text += name;
        value &= ~bit;
    }
    if (value != 0) text += (text.empty() ? "" : "|") + hex(value);
    return text.empty() ? "-" : text;
}

}  // namespace

regmap::H2cDescriptor decode_h2c_descriptor(const std::uint8_t* bytes) {
    regmap::H2cDescriptor descriptor{};
    descriptor.address = load(bytes, 8);
    descriptor.length = static_cast<std::uint32_t>(load(bytes + 8, 4));
    descriptor.flags = static_cast<std::uint32_t>(load(bytes + 12, 4));
    return descriptor;
}

void encode_h2c_descriptor(const regmap::H2cDescriptor& descriptor, std::uint8_t* out) {
    store(descriptor.address, 8, out);
    store(descriptor.length, 4, out + 8);
    store(descriptor.flags, 4, out + 12);
}

regmap::C2hDescriptor decode_c2h_descriptor(const std::uint8_t* bytes) {
    regmap::C2hDescriptor descriptor{};
    descriptor.address = load(bytes, 8);
    return descriptor;
}

void encode_c2h_descriptor(const regmap::C2hDescriptor& descriptor, std::uint8_t* out) {
    store(descriptor.address, 8, out);
}

regmap::CompletionEntry decode_completion_entry(const std::uint8_t* bytes) {
    regmap::CompletionEntry entry{};
    entry.header = load(bytes, 8);
    entry.offset = static_cast<std::uint32_t>(load(bytes + 8, 4));
    entry.length = static_cast<std::uint16_t>(load(bytes + 12, 2));
    entry.flags = static_cast<std::uint16_t>(load(bytes + 14, 2));
    return entry;
}

void encode_completion_entry(const regmap::CompletionEntry& entry, std::uint8_t* out) {
    store(entry.header, 8, out);
    store(entry.offset, 4, out + 8);
    store(entry.length, 2, out + 12);
    store(entry.flags, 2, out + 14);
}

regmap::StatusWriteback decode_status_writeback(const std::uint8_t* bytes) {
    regmap::StatusWriteback status{};
    status.pidx = static_cast<std::uint16_t>(load(bytes, 2));
    status.cidx = static_cast<std::uint16_t>(load(bytes + 2, 2));
    status.flags = static_cast<std::uint32_t>(load(bytes + 4, 4));
    return status;
}

void encode_status_writeback(const regmap::StatusWriteback& status, std::uint8_t* out) {
    store(status.pidx, 2, out);
    store(status.cidx, 2, out + 2);
    store(status.flags, 4, out + 4);
}

std::string describe(const regmap::H2cDescriptor& descriptor) {
    return "addr=" + hex(descriptor.address) + " len=" + std::to_string(descriptor.length) + " flags=" +
           flags(descriptor.flags, {{regmap::H2C_SOP, "SOP"}, {regmap::H2C_EOP, "EOP"}, {regmap::H2C_SDI, "SDI"}});
}

std::string describe(const regmap::C2hDescriptor& descriptor) {
    return "buffer=" + hex(descriptor.address);
}

std::string describe(const regmap::CompletionEntry& entry) {
    return "{" + describe_processor_header(entry.header) + "} offset=" + std::to_string(entry.offset) +
           " len=" + std::to_string(entry.length) + " flags=" +
           flags(entry.flags & ~regmap::CMPT_COLOR, {{regmap::CMPT_LAST, "LAST"}, {regmap::CMPT_ERROR, "ERROR"}}) +
           " colour=" + std::to_string((entry.flags & regmap::CMPT_COLOR) ? 1 : 0);
}

std::string describe(const regmap::StatusWriteback& status, bool completion_ring) {
    std::string text = "pidx=" + std::to_string(status.pidx) + " cidx=" + std::to_string(status.cidx);
    if (completion_ring) text += " colour=" + std::to_string(status.flags & kWritebackColour ? 1 : 0);
    text += " error=" + std::to_string(status.flags & kWritebackError ? 1 : 0);
    return text;
}

std::string describe_processor_header(std::uint64_t bits) {
    const auto header = ProcessorHeader::decode(bits);
    if (!header) return "reserved opcode, header " + hex(bits);
    std::string text = std::string(to_string(header->opcode)) + " " + std::to_string(header->message_bytes) +
                       " B rank " + std::to_string(header->rank) + " ctx " + std::to_string(header->context_id);
    if (header->opcode != Opcode::Send && header->opcode != Opcode::Barrier) {
        if (header->datatype == kErrorResultDatatype) return text + " error result";
        if (header->operation < kOperationCount)
            text += " op " + std::string(to_string(static_cast<Operation>(header->operation)));
        if (header->datatype < kDatatypeCount)
            text += " type " + std::string(to_string(static_cast<Datatype>(header->datatype)));
        text += " alg " + std::to_string(header->algorithm);
    }
    return text;
}

}  // namespace isvp
