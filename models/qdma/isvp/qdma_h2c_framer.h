// The H2C side of the QDMA (SystemC-free): checking that a queue's
// descriptors frame processor packets correctly, and cutting each processor
// packet's message into packets (their network headers are the network
// interface's: models/network_interface, PacketFraming).
//
// A processor packet is the 8-byte ProcessorHeader followed by
// message_bytes of payload, spread over the descriptors from SOP to EOP.
// H2cFramer sees the descriptors one by one as the engine reaches them and
// the header once its 8 bytes have been read, and says which QueueError (if
// any) the queue must stop with:
//   DescriptorLength  length 0 or > kMaxDescriptorBytes
//   PacketFraming     first descriptor without SOP, SOP inside a packet,
//                     descriptors covering more or fewer than
//                     8 + message_bytes bytes (checked as soon as it is known:
//                     an overrun at the descriptor that overruns, a missing
//                     or early EOP at the descriptor that has/lacks it)
//   PacketHeader      reserved opcode, opcode stream, a rank the network
//                     does not reach (>= its endpoint count)
// With standing descriptors (H2C_CONTROL.PREFETCH) a descriptor is a buffer
// instead: accept_standing() turns it into the descriptor the engine
// consumes — SOP on the first buffer of a packet, as many bytes of each
// buffer as the header's 8 + message_bytes still needs, EOP on the buffer
// that completes it (the first buffer is trimmed once the header is read:
// described_bytes()). Only DescriptorLength (capacity below 8 or above
// kMaxDescriptorBytes) and PacketHeader can occur.
// (message_bytes > kMaxMessageBytes cannot occur: the field is 29 bits.)
#pragma once

#include <cstdint>
#include <optional>

#include "isvp/packet_format.h"
#include "isvp/register_map.h"

namespace isvp {

class H2cFramer {
  public:
    /// `endpoints`: ranks a header may name (NetworkInterface::endpoints()).
    explicit H2cFramer(std::uint32_t endpoints) : endpoints_(endpoints) {}

    /// The next descriptor of the queue, before any of its data is used.
    regmap::QueueError accept_descriptor(const regmap::H2cDescriptor& descriptor);
    /// A standing descriptor (buffer of `descriptor.length` bytes), rewritten
    /// to the part of it the current packet uses.
    regmap::QueueError accept_standing(regmap::H2cDescriptor& descriptor);
    /// The packet's 8 header bytes, once all have been read.
    regmap::QueueError accept_header(const std::uint8_t* header_bytes);
    /// The engine has consumed all of an EOP descriptor: the packet is done.
    void end_packet() { reset(); }
    /// Forget any packet in progress (queue reset).
    void reset();

    bool in_packet() const { return in_packet_; }
    /// Bytes the packet's descriptors cover so far (standing: after the
    /// header, the used part of the first buffer).
    std::uint64_t described_bytes() const { return described_bytes_; }
    /// The packet's last descriptor has been accepted.
    bool eop_seen() const { return eop_seen_; }
    /// The decoded header, once accepted.
    const std::optional<ProcessorHeader>& header() const { return header_; }

  private:
    regmap::QueueError check_total() const;

    std::uint32_t endpoints_;                ///< ranks the network reaches (rank == node for now)
    bool in_packet_ = false;                 ///< SOP seen, EOP not yet consumed
    bool eop_seen_ = false;                  ///< the packet's EOP descriptor has been accepted
    bool standing_ = false;                  ///< the packet is framed by its header in standing buffers
    std::uint64_t described_bytes_ = 0;      ///< sum of the packet's descriptor lengths so far
    std::optional<ProcessorHeader> header_;  ///< set once the header is read and valid
};

/// Where one network packet sits in its message.
struct PacketPlan {
    std::uint32_t offset = 0;  ///< payload byte offset in the message
    std::uint32_t bytes = 0;   ///< payload bytes in this packet
    bool last = false;         ///< last packet of the message
};

/// Cuts messages into network packets of `capacity` payload bytes: full
/// packets then one partial; a zero-byte message is one empty packet.
///
/// With trains (network.flow_train_packets; `hardware` > 0, the hardware
/// packet's payload of which `capacity` is a train) a message is cut into
/// trains only as long as leave it kTrainsPerTransfer of them, into
/// hardware packets when it is shorter (train_payload_for, as the collective
/// engine cuts its blocks).
class MessageSegmenter {
  public:
    explicit MessageSegmenter(std::uint32_t capacity, std::uint32_t hardware = 0)
        : capacity_(capacity), hardware_(hardware) {}
    std::uint32_t capacity() const { return capacity_; }
    /// Payload bytes per full packet of a message of `message_bytes`.
    std::uint32_t capacity_for(std::uint32_t message_bytes) const {
        return train_payload_for(message_bytes, hardware_, capacity_);
    }
    std::uint32_t packet_count(std::uint32_t message_bytes) const {
        const std::uint32_t capacity = capacity_for(message_bytes);
        return message_bytes == 0 ? 1 : (message_bytes + capacity - 1) / capacity;
    }
    PacketPlan packet(std::uint32_t message_bytes, std::uint32_t index) const;

  private:
    std::uint32_t capacity_;      ///< payload bytes per full packet
    std::uint32_t hardware_ = 0;  ///< hardware packet payload of a train; 0: no trains
};

}  // namespace isvp
