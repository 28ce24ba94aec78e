// The wire protocol between a guest rank and the simulator, version 1.
//
// Every message is a fixed 40-byte little-endian record; only an Error (which
// the simulator sends) is followed by `length - 40` bytes of UTF-8 text:
//
//   offset  bytes  field
//        0      4  magic     kMagic ("ISVT" in memory order)
//        4      2  version   kProtocolVersion
//        6      2  type      MessageType
//        8      4  rank      sender (guest -> simulator) or addressee (reverse)
//       12      4  length    bytes of the whole message: 40, or 40 + text (Error)
//       16      8  time_ps   simulated time in picoseconds (meaning per type)
//       24      8  arg0      per type, see MessageType
//       32      8  arg1      per type, see MessageType
//
// The same Message record travels through the in-process channel of a local
// rank, so remote and local ranks are scheduled from identical requests.
// Plain C++17, no SystemC.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isvp::transport {

inline constexpr std::uint32_t kMagic = 0x54565349;  ///< bytes 'I' 'S' 'V' 'T'
inline constexpr std::uint16_t kProtocolVersion = 1;
inline constexpr std::size_t kMessageBytes = 40;    ///< every message's fixed part
inline constexpr std::size_t kMaxErrorText = 4096;  ///< longest Error text
inline constexpr unsigned kInterruptVectors = 64;   ///< vectors a wait mask can name
/// WaitInterrupt arg1, bit 63: also wake when a completion entry or ring
/// status has landed in the rank's host memory since the last such wake
/// (a guest polling its completion ring); replied as kHostUpdateVector.
inline constexpr std::uint64_t kWaitHostUpdate = std::uint64_t{1} << 63;
/// WaitInterrupt arg1, bits 62..0: wake at this time at the latest (0 =
/// none); replied as kDeadlineVector.
inline constexpr std::uint64_t kWaitDeadlineMask = kWaitHostUpdate - 1;
inline constexpr unsigned kHostUpdateVector = kInterruptVectors;    ///< InterruptReply arg0: host memory updated
inline constexpr unsigned kDeadlineVector = kInterruptVectors + 1;  ///< InterruptReply arg0: the deadline came
/// The end of simulated time (2^62 ps, about 53 days): no request is stamped
/// and no reply dated later, so sums of times and delays cannot overflow
/// SystemC's 64-bit time. A guest clock never passes it (GuestClock); the
/// simulator ends a job that reaches it like job.max_simulated_us.
inline constexpr std::uint64_t kMaxTimePs = std::uint64_t{1} << 62;

/// What a message is. Guest -> simulator: Hello, MmioWrite, MmioRead,
/// WaitInterrupt, Finish. Simulator -> guest: Welcome, ReadReply,
/// InterruptReply, Error.
enum class MessageType : std::uint16_t {
    Hello = 1,           ///< first message of a rank: arg0 job size, arg1 process id; reply Welcome
    Welcome = 2,         ///< arg0 job size
    MmioWrite = 3,       ///< posted BAR0 write at time_ps: arg0 offset, arg1 value; no reply
    MmioRead = 4,        ///< BAR0 read at time_ps: arg0 offset; reply ReadReply
    ReadReply = 5,       ///< time_ps = completion, arg0 offset, arg1 value
    WaitInterrupt = 6,   ///< wait from time_ps for a vector in the mask arg0 (arg1: kWaitHostUpdate | deadline); reply
                         ///< InterruptReply
    InterruptReply = 7,  ///< time_ps = when the rank resumes, arg0 vector
    Finish = 8,          ///< clean end at time_ps, arg0 exit code (low 32 bits); no reply
    Error = 9,           ///< the simulator ends this rank: arg0 ErrorCode; text follows
};

/// Why the simulator ended a rank (Error arg0).
enum class ErrorCode : std::uint64_t {
    Protocol = 1,  ///< the rank sent something malformed or out of order
    Deadlock = 2,  ///< the rank waits for something that can never happen
    Aborted = 3,   ///< the job is being torn down (signal, platform error)
};

/// Which way a message travels; each direction accepts its own types.
enum class Direction { ToSimulator, ToGuest };

struct Message {
    MessageType type = MessageType::Hello;
    std::uint32_t rank = 0;     ///< sender or addressee
    std::uint64_t time_ps = 0;  ///< simulated picoseconds
    std::uint64_t arg0 = 0;     ///< per type
    std::uint64_t arg1 = 0;     ///< per type
};

using WireMessage = std::array<std::uint8_t, kMessageBytes>;

/// The 40-byte record of `message`; `length` is the length field (40 unless
/// an Error's text follows).
WireMessage encode(const Message& message, std::uint32_t length = kMessageBytes);

/// An Error message with its text (truncated to kMaxErrorText), ready to send.
std::vector<std::uint8_t> encode_error(std::uint32_t rank, std::uint64_t time_ps, ErrorCode code,
                                       const std::string& text);

/// The outcome of decoding a 40-byte record.
struct Decoded {
    std::optional<Message> message;  ///< set when the record is well formed
    std::uint32_t length = 0;        ///< the length field (text bytes = length - 40 for an Error)
    std::string error;               ///< what is wrong, when `message` is empty
};

/// Checks magic, version, type (for the direction) and length; never throws.
Decoded decode(const std::uint8_t* bytes, Direction direction);

/// "MmioRead" etc.; "type 77" for an unknown value.
std::string to_string(MessageType type);

/// Lowest vector set in `mask`; `mask` must not be 0.
unsigned lowest_vector(std::uint64_t mask);

/// "{2, 5}" — the vectors in a mask, for messages.
std::string describe_vectors(std::uint64_t mask);

/// "3.400000 us" — a simulated time for messages (exact to the picosecond).
std::string format_time_ps(std::uint64_t time_ps);

}  // namespace isvp::transport
