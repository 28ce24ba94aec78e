#include "isvp/qdma_formats.h"

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

}  // namespace isvp
