// Little-endian codecs of the in-memory formats of register_map.h (H2C and
// C2H descriptors, completion entries, status writeback), independent of
// the host's byte order and struct packing. SystemC-free; shared by the
// QDMA model, the tests and the driver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "isvp/register_map.h"

namespace isvp {

inline constexpr std::size_t kH2cDescriptorBytes = 16;
inline constexpr std::size_t kC2hDescriptorBytes = 8;
inline constexpr std::size_t kCompletionEntryBytes = 16;
inline constexpr std::size_t kStatusWritebackBytes = 8;
/// Bytes of one ring entry of each kind (also the stride of the status entry).
inline constexpr std::size_t kRingEntryBytesH2c = kH2cDescriptorBytes;
inline constexpr std::size_t kRingEntryBytesC2h = kC2hDescriptorBytes;
inline constexpr std::size_t kRingEntryBytesCmpt = kCompletionEntryBytes;

/// Status writeback flag bits (StatusWriteback::flags).
inline constexpr std::uint32_t kWritebackColour = 1u << 0;
inline constexpr std::uint32_t kWritebackError = 1u << 1;

regmap::H2cDescriptor decode_h2c_descriptor(const std::uint8_t* bytes);
void encode_h2c_descriptor(const regmap::H2cDescriptor& descriptor, std::uint8_t* out);
regmap::C2hDescriptor decode_c2h_descriptor(const std::uint8_t* bytes);
void encode_c2h_descriptor(const regmap::C2hDescriptor& descriptor, std::uint8_t* out);
regmap::CompletionEntry decode_completion_entry(const std::uint8_t* bytes);
void encode_completion_entry(const regmap::CompletionEntry& entry, std::uint8_t* out);
regmap::StatusWriteback decode_status_writeback(const std::uint8_t* bytes);
void encode_status_writeback(const regmap::StatusWriteback& status, std::uint8_t* out);

// Field-by-field descriptions, as the PCIe transaction log (trace.pcie)
// prints them: "addr=0x12340 len=8 flags=SOP|EOP|SDI".
std::string describe(const regmap::H2cDescriptor& descriptor);
std::string describe(const regmap::C2hDescriptor& descriptor);
/// Includes the processor header (source rank, opcode, size, context).
std::string describe(const regmap::CompletionEntry& entry);
/// `completion_ring`: the CMPT ring's (bit 0 is its colour) or a descriptor ring's.
std::string describe(const regmap::StatusWriteback& status, bool completion_ring);
/// An encoded ProcessorHeader: "send 8 B rank 1 ctx 0" ("reserved opcode ..." if not one).
std::string describe_processor_header(std::uint64_t bits);

}  // namespace isvp
