// CRC-32 as Aurora's CRC option and Ethernet use it (IEEE 802.3:
// polynomial 0x04C11DB7, reflected, initial value and final XOR 0xFFFFFFFF;
// crc32("123456789") = 0xCBF43926). Plain C++: table-driven, 8 bytes per
// step ("slicing by 8", compile-time tables); on x86-64 hosts with PCLMULQDQ
// (checked at run time) packets of 64 bytes and more are folded by
// carry-less multiplication, about ten times faster. Both give the same CRC.
#pragma once

#include <cstddef>
#include <cstdint>

namespace isvp {

/// CRC-32 of `length` bytes at `data` (the fastest method the host has).
std::uint32_t crc32(const std::uint8_t* data, std::size_t length);
/// The same by tables only (the reference the fast path is tested against).
std::uint32_t crc32_portable(const std::uint8_t* data, std::size_t length);

}  // namespace isvp
