// Encoding and validation of the guest <-> simulator wire protocol.
#include "isvp/transport_protocol.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace isvp::transport {

namespace {

void put16(std::uint8_t* out, std::uint16_t value) {
    out[0] = static_cast<std::uint8_t>(value);
    out[1] = static_cast<std::uint8_t>(value >> 8);
}
void put32(std::uint8_t* out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}
void put64(std::uint8_t* out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}
std::uint16_t get16(const std::uint8_t* in) {
    return static_cast<std::uint16_t>(in[0] | (in[1] << 8));
}
std::uint32_t get32(const std::uint8_t* in) {
    std::uint32_t value = 0;
    for (int i = 3; i >= 0; --i) value = (value << 8) | in[i];
    return value;
}
std::uint64_t get64(const std::uint8_t* in) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | in[i];
    return value;
}

bool travels(MessageType type, Direction direction) {
    switch (type) {
        case MessageType::Hello:
        case MessageType::MmioWrite:
        case MessageType::MmioRead:
        case MessageType::WaitInterrupt:
        case MessageType::Finish:
            return direction == Direction::ToSimulator;
        case MessageType::Welcome:
        case MessageType::ReadReply:
        case MessageType::InterruptReply:
        case MessageType::Error:
            return direction == Direction::ToGuest;
    }
    return false;
}

std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

WireMessage encode(const Message& message, std::uint32_t length) {
    WireMessage wire{};
    put32(&wire[0], kMagic);
    put16(&wire[4], kProtocolVersion);
    put16(&wire[6], static_cast<std::uint16_t>(message.type));
    put32(&wire[8], message.rank);
    put32(&wire[12], length);
    put64(&wire[16], message.time_ps);
    put64(&wire[24], message.arg0);
    put64(&wire[32], message.arg1);
    return wire;
}

std::vector<std::uint8_t> encode_error(std::uint32_t rank, std::uint64_t time_ps, ErrorCode code,
                                       const std::string& text) {
    const std::size_t text_bytes = std::min(text.size(), kMaxErrorText);
    Message message;
    message.type = MessageType::Error;
    message.rank = rank;
    message.time_ps = time_ps;
    message.arg0 = static_cast<std::uint64_t>(code);
    message.arg1 = text_bytes;
    const WireMessage header = encode(message, static_cast<std::uint32_t>(kMessageBytes + text_bytes));
    std::vector<std::uint8_t> bytes(kMessageBytes + text_bytes);
    std::copy(header.begin(), header.end(), bytes.begin());
    std::copy(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text_bytes),
              bytes.begin() + static_cast<std::ptrdiff_t>(kMessageBytes));
    return bytes;
}

Decoded decode(const std::uint8_t* bytes, Direction direction) {
    Decoded result;
    const std::uint32_t magic = get32(&bytes[0]);
    if (magic != kMagic) {
        result.error = "bad magic " + hex(magic) + " (expected " + hex(kMagic) + ", 'ISVT'): not an isvp guest";
        return result;
    }
    const std::uint16_t version = get16(&bytes[4]);
    if (version != kProtocolVersion) {
        result.error = "protocol version " + std::to_string(version) + ", this simulator speaks version " +
                       std::to_string(kProtocolVersion) + " (rebuild the guest against this isvp)";
        return result;
    }
    const auto type = static_cast<MessageType>(get16(&bytes[6]));
    if (!travels(type, direction)) {
        result.error = "unexpected message " + to_string(type) +
                       (direction == Direction::ToSimulator ? " from a guest" : " from the simulator");
        return result;
    }
    result.length = get32(&bytes[12]);
    const bool text_allowed = type == MessageType::Error;
    if (result.length < kMessageBytes || (!text_allowed && result.length != kMessageBytes) ||
        result.length > kMessageBytes + kMaxErrorText) {
        result.error = "length field " + std::to_string(result.length) + " in a " + to_string(type) +
                       " message (expected " + std::to_string(kMessageBytes) + " bytes)";
        return result;
    }
    Message message;
    message.type = type;
    message.rank = get32(&bytes[8]);
    message.time_ps = get64(&bytes[16]);
    message.arg0 = get64(&bytes[24]);
    message.arg1 = get64(&bytes[32]);
    result.message = message;
    return result;
}

std::string to_string(MessageType type) {
    switch (type) {
        case MessageType::Hello:
            return "Hello";
        case MessageType::Welcome:
            return "Welcome";
        case MessageType::MmioWrite:
            return "MmioWrite";
        case MessageType::MmioRead:
            return "MmioRead";
        case MessageType::ReadReply:
            return "ReadReply";
        case MessageType::WaitInterrupt:
            return "WaitInterrupt";
        case MessageType::InterruptReply:
            return "InterruptReply";
        case MessageType::Finish:
            return "Finish";
        case MessageType::Error:
            return "Error";
    }
    return "type " + std::to_string(static_cast<unsigned>(type));
}

unsigned lowest_vector(std::uint64_t mask) {
    return static_cast<unsigned>(__builtin_ctzll(mask));
}

std::string describe_vectors(std::uint64_t mask) {
    std::ostringstream text;
    text << "{";
    bool first = true;
    for (unsigned vector = 0; vector < kInterruptVectors; ++vector) {
        if ((mask >> vector & 1u) == 0) continue;
        text << (first ? "" : ", ") << vector;
        first = false;
    }
    text << "}";
    return text.str();
}

std::string format_time_ps(std::uint64_t time_ps) {
    char text[48];
    std::snprintf(text, sizeof text, "%llu.%06llu us", static_cast<unsigned long long>(time_ps / 1000000),
                  static_cast<unsigned long long>(time_ps % 1000000));
    return text;
}

}  // namespace isvp::transport
