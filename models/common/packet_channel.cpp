#include "isvp/packet_channel.h"

#include <algorithm>

namespace isvp {

PacketPool::~PacketPool() {
    // Payloads still referenced elsewhere at shutdown are owned here; drop
    // their memory-manager link so their destructors do not call back.
    for (auto& placed : all_) placed->slot.set_mm(nullptr);
}

tlm::tlm_generic_payload* PacketPool::allocate(std::uint32_t bytes) {
    return allocate(bytes, bytes);
}

tlm::tlm_generic_payload* PacketPool::allocate_header_only(std::uint32_t bytes) {
    const auto stored = static_cast<std::uint32_t>(std::min<std::size_t>(bytes, kNetworkPacketOverhead));
    tlm::tlm_generic_payload* payload = allocate(bytes, stored);
    static_cast<Slot*>(payload)->info.header_only = true;
    return payload;
}

tlm::tlm_generic_payload* PacketPool::allocate(std::uint32_t bytes, std::uint32_t stored) {
    Slot* slot;
    if (free_.empty()) {
        all_.push_back(std::make_unique<PlacedSlot>());
        slot = &all_.back()->slot;
        slot->set_mm(this);
    } else {
        slot = free_.back();
        free_.pop_back();
    }
    // A slot that held a longer packet keeps its capacity; a slot made for
    // header-only packets never grows beyond the headers.
    const std::size_t capacity = slot->bytes.capacity();
    slot->bytes.resize(stored);
    stored_bytes_ += slot->bytes.capacity() - capacity;
    tlm::tlm_generic_payload& payload = *slot;
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_address(0);
    payload.set_data_ptr(slot->bytes.data());
    payload.set_data_length(bytes);
    payload.set_streaming_width(bytes);
    payload.set_byte_enable_ptr(nullptr);
    payload.set_byte_enable_length(0);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    slot->info = PacketInfo{};
    payload.acquire();
    ++live_;
    return &payload;
}

void PacketPool::free(tlm::tlm_generic_payload* payload) {
    free_.push_back(static_cast<Slot*>(payload));
    --live_;
}

PacketInfo& packet_info_attached(tlm::tlm_generic_payload& payload) {
    PacketInfo* info = nullptr;
    payload.get_extension(info);
    if (info == nullptr) {
        info = new PacketInfo;
        payload.set_extension(info);
    }
    return *info;
}

}  // namespace isvp
