// Test platform for the PCIe/QDMA testbenches: a test "host" driving BAR0
// through PcieEndpoint::host_mmio and owning a HostMemory buffer, the host
// bridge with an MSI recorder, the endpoint, the QDMA, and a loopback that
// plays the router: QDMA tx is fed back to QDMA rx with credits both ways.
// Plus a small test driver for one QDMA queue (descriptors, doorbells,
// completions), written from the register map as a guest driver would be.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/host_bridge.h"
#include "isvp/host_memory.h"
#include "isvp/packet_channel.h"
#include "isvp/packet_format.h"
#include "isvp/packet_network_interface.h"
#include "isvp/pcie_endpoint.h"
#include "isvp/qdma.h"
#include "isvp/qdma_formats.h"
#include "isvp/register_map.h"

namespace isvp::tb {

inline sc_core::sc_time ns(double value) {
    return sc_core::sc_time(value, sc_core::SC_NS);
}

/// Counts checks; prints one line per check.
class Checker {
  public:
    bool expect(bool ok, const std::string& what) {
        (ok ? passed_ : failed_)++;
        std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
        return ok;
    }
    void section(const std::string& title) { std::cout << "-- " << title << "\n"; }
    /// Prints the summary line; the process exit code.
    int finish() const {
        std::cout << passed_ << " passed, " << failed_ << " failed\n";
        return failed_ == 0 && passed_ > 0 ? 0 : 1;
    }

  private:
    int passed_ = 0;  ///< checks that held
    int failed_ = 0;  ///< checks that did not
};

/// The host's interrupt receiver: records every MSI write and when it lands.
class MsiRecorder : public sc_core::sc_module {
  public:
    struct Message {
        sc_core::sc_time at;    ///< arrival at the host (now + annotated delay)
        std::uint64_t address;  ///< MSI address
        std::uint32_t data;     ///< MSI data (the vector, as the tests program it)
    };
    tlm_utils::simple_target_socket<MsiRecorder> socket;  ///< from HostBridge::msi
    std::vector<Message> messages;                        ///< in arrival order

    explicit MsiRecorder(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {
        socket.register_b_transport(this, &MsiRecorder::b_transport);
    }
    /// Messages carrying `data`.
    std::vector<Message> with_data(std::uint32_t data) const {
        std::vector<Message> result;
        for (const auto& message : messages)
            if (message.data == data) result.push_back(message);
        return result;
    }

  private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        std::uint32_t data = 0;
        std::memcpy(&data, payload.get_data_ptr(), 4);
        messages.push_back({sc_core::sc_time_stamp() + delay, payload.get_address(), data});
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/// The test host: MMIO and configuration accesses from one SC_THREAD that
/// runs the test body, then stops the simulation.
class Host : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<Host> mmio;  ///< to PcieEndpoint::host_mmio
    tlm_utils::simple_initiator_socket<Host> cfg;   ///< to PcieEndpoint::config
    std::function<void()> body;                     ///< the test

    explicit Host(sc_core::sc_module_name name) : sc_core::sc_module(name), mmio("mmio"), cfg("cfg") {
        SC_HAS_PROCESS(Host);
        SC_THREAD(run);
    }

    /// Posted write: returns at once.
    void write32(std::uint32_t offset, std::uint32_t value) { access(mmio, true, offset, 4, value); }
    /// Non-posted read: returns after the round trip.
    std::uint32_t read32(std::uint32_t offset) {
        std::uint32_t value = 0;
        access(mmio, false, offset, 4, value);
        return value;
    }
    void cfg_write(std::uint32_t offset, unsigned bytes, std::uint32_t value) {
        access(cfg, true, offset, bytes, value);
    }
    std::uint32_t cfg_read(std::uint32_t offset, unsigned bytes) {
        std::uint32_t value = 0;
        access(cfg, false, offset, bytes, value);
        return value;
    }
    /// The response of the last access.
    tlm::tlm_response_status last_status = tlm::TLM_OK_RESPONSE;

  private:
    void access(tlm_utils::simple_initiator_socket<Host>& socket, bool write, std::uint32_t offset, unsigned bytes,
                std::uint32_t& value) {
        unsigned char data[4] = {};
        for (unsigned i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
        tlm::tlm_generic_payload payload;
        payload.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        payload.set_address(offset);
        payload.set_data_ptr(data);
        payload.set_data_length(bytes);
        payload.set_streaming_width(bytes);
        payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket->b_transport(payload, delay);
        sc_core::wait(delay);
        last_status = payload.get_response_status();
        value = 0;
        for (unsigned i = 0; i < bytes; ++i) value |= static_cast<std::uint32_t>(data[i]) << (8 * i);
    }
    void run() {
        if (body) body();
        sc_core::sc_stop();
    }
};

/// Plays the router for one node: QDMA tx -> (buffer) -> QDMA rx, with
/// credits in both directions per packet_channel.h.
class Loopback : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<Loopback> inject;            ///< from PacketNetworkInterface::tx
    tlm_utils::simple_initiator_socket<Loopback> inject_credit;  ///< to PacketNetworkInterface::tx_credit
    tlm_utils::simple_initiator_socket<Loopback> eject;          ///< to PacketNetworkInterface::rx
    tlm_utils::simple_target_socket<Loopback> eject_credit;      ///< from PacketNetworkInterface::rx_credit

    struct Captured {
        sc_core::sc_time head;            ///< when the QDMA sent it
        sc_core::sc_time tail_after;      ///< its PacketInfo::tail_after
        std::vector<std::uint8_t> bytes;  ///< the whole network packet
    };
    std::vector<Captured> captured;   ///< every packet the QDMA sent
    std::uint32_t eject_credits = 0;  ///< credits QDMA rx has granted and not used

    Loopback(sc_core::sc_module_name name, std::uint32_t buffer_phits)
        : sc_core::sc_module(name),
          inject("inject"),
          inject_credit("inject_credit"),
          eject("eject"),
          eject_credit("eject_credit"),
          buffer_phits_(buffer_phits) {
        inject.register_b_transport(this, &Loopback::on_packet);
        eject_credit.register_b_transport(this, &Loopback::on_credit);
        SC_HAS_PROCESS(Loopback);
        SC_METHOD(grant);
        SC_THREAD(forward);
    }

  private:
    struct Held {
        tlm::tlm_generic_payload* payload;
        sc_core::sc_time head;
    };
    void grant() { credits_.send(inject_credit, 0, buffer_phits_, sc_core::SC_ZERO_TIME); }
    void on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        const auto* data = payload.get_data_ptr();
        captured.push_back({sc_core::sc_time_stamp() + delay, packet_info(payload).tail_after,
                            std::vector<std::uint8_t>(data, data + payload.get_data_length())});
        payload.acquire();
        held_.push_back({&payload, sc_core::sc_time_stamp() + delay});
        wake_.notify(sc_core::SC_ZERO_TIME);
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        CreditReturn* credit = nullptr;
        payload.get_extension(credit);
        arrivals_.emplace(sc_core::sc_time_stamp() + delay, credit->phits);
        wake_.notify(sc_core::SC_ZERO_TIME);
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void forward() {
        for (;;) {
            const sc_core::sc_time now = sc_core::sc_time_stamp();
            while (!arrivals_.empty() && arrivals_.begin()->first <= now) {
                eject_credits += arrivals_.begin()->second;
                arrivals_.erase(arrivals_.begin());
            }
            if (held_.empty()) {
                sc_core::wait(wake_);
                continue;
            }
            Held& head = held_.front();
            if (head.head > now) {
                sc_core::wait(head.head - now, wake_);
                continue;
            }
            const std::uint32_t phits = phits_of(static_cast<std::uint32_t>(head.payload->get_data_length()));
            if (eject_credits < phits) {
                if (arrivals_.empty())
                    sc_core::wait(wake_);
                else
                    sc_core::wait(arrivals_.begin()->first - now, wake_);
                continue;
            }
            eject_credits -= phits;
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            eject->b_transport(*head.payload, delay);
            credits_.send(inject_credit, 0, phits, sc_core::SC_ZERO_TIME);
            head.payload->release();
            held_.pop_front();
        }
    }

    std::uint32_t buffer_phits_;                               ///< buffer granted to the QDMA's tx at time 0
    isvp::CreditMessage credits_;                              ///< reused for every credit return
    std::deque<Held> held_;                                    ///< packets waiting for eject credits
    std::multimap<sc_core::sc_time, std::uint32_t> arrivals_;  ///< eject credits in flight
    sc_core::sc_event wake_;                                   ///< something arrived
};

/// One node's host side and FPGA side, looped back.
struct Platform {
    std::vector<std::uint8_t> memory_bytes;  ///< the host memory (owned here, as a rank's segment would be)
    HostMemory memory;
    HostBridge bridge;
    PcieEndpoint endpoint;
    PacketNetworkInterface network;  ///< the QDMA's port to the (looped-back) network
    Qdma qdma;
    Loopback loopback;
    MsiRecorder msi;
    Host host;

    Platform(const PcieConfig& pcie, const QdmaConfig& qdma_config, std::size_t memory_size,
             std::uint16_t node_address = 1, std::uint16_t node_count = 4, std::uint32_t loopback_phits = 2048)
        : memory_bytes(memory_size, 0),
          memory("memory", memory_bytes.data(), memory_bytes.size()),
          bridge("bridge", memory_bytes.size()),
          endpoint("endpoint", pcie),
          network("network", qdma_config.network_interface(node_address, node_count)),
          qdma("qdma", qdma_config, network),
          loopback("loopback", loopback_phits),
          msi("msi"),
          host("host") {
        host.mmio.bind(endpoint.host_mmio);
        host.cfg.bind(endpoint.config);
        endpoint.bar0.bind(qdma.regs);
        qdma.dma.bind(endpoint.dma);
        qdma.irq.bind(endpoint.irq);
        endpoint.host_dma.bind(bridge.dma);
        bridge.memory.bind(memory.socket);
        bridge.msi.bind(msi.socket);
        network.tx.bind(loopback.inject);
        loopback.inject_credit.bind(network.tx_credit);
        loopback.eject.bind(network.rx);
        network.rx_credit.bind(loopback.eject_credit);
    }

    std::uint8_t* at(std::uint64_t address) { return memory_bytes.data() + address; }
    /// Programs MSI-X entry `vector` to write `vector` to the MSI window and unmasks it.
    void program_msix(unsigned vector) {
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_ADDRESS_LO, static_cast<std::uint32_t>(kMsiWindowBase));
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_ADDRESS_HI, 0);
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_DATA, vector);
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_VECTOR_CONTROL, 0);
    }
};

/// Settings of one test queue.
struct QueueSetup {
    unsigned ring_size_index = 0;       ///< RING_SIZE(i) for all three rings (0: 64 entries)
    bool h2c_status = true;             ///< H2C STATUS_ENABLE
    bool cmpt_status = true;            ///< CMPT STATUS_ENABLE
    bool h2c_irq = false;               ///< H2C IRQ_ENABLE
    bool cmpt_irq = false;              ///< CMPT IRQ_ENABLE
    unsigned h2c_vector = 1;            ///< H2C MSIX_VECTOR
    unsigned cmpt_vector = 2;           ///< CMPT MSIX_VECTOR
    std::uint32_t coalesce = 0;         ///< CMPT_COALESCE
    std::uint32_t buffer_bytes = 4096;  ///< C2H_BUFFER_BYTES
    bool enable_c2h = true;             ///< enable C2H and CMPT as well as H2C
};

/// A guest-style driver for one queue, over 8 MiB of host memory at `base`:
///   +0 MiB H2C ring, +1 MiB C2H ring, +2 MiB CMPT ring,
///   +3 MiB H2C data (2 MiB, bump-allocated), +5 MiB C2H buffers (3 MiB).
class TestQueue {
  public:
    static constexpr std::uint64_t kRegionBytes = 8u << 20;

    TestQueue(Platform& platform, unsigned queue, std::uint64_t base)
        : platform_(platform), queue_(queue), base_(base) {}

    std::uint64_t h2c_ring() const { return base_; }
    std::uint64_t c2h_ring() const { return base_ + (1u << 20); }
    std::uint64_t cmpt_ring() const { return base_ + (2u << 20); }
    std::uint64_t data_area() const { return base_ + (3u << 20); }
    std::uint64_t buffer_area() const { return base_ + (5u << 20); }
    std::uint64_t buffer_address(std::uint32_t slot) const {
        return buffer_area() + static_cast<std::uint64_t>(slot) * setup_.buffer_bytes;
    }
    std::uint32_t reg(std::uint32_t r) const { return regmap::QUEUE(queue_) + r; }
    std::uint32_t doorbell(std::uint32_t r) const { return regmap::DOORBELL(queue_) + r; }
    const RingIndex& ring() const { return ring_; }
    unsigned id() const { return queue_; }

    void enable(const QueueSetup& setup) {
        using namespace regmap;
        setup_ = setup;
        ring_ = RingIndex(kRingSizeReset[setup.ring_size_index]);
        Host& host = platform_.host;
        host.write32(reg(H2C_BASE_LO), static_cast<std::uint32_t>(h2c_ring()));
        host.write32(reg(H2C_BASE_HI), static_cast<std::uint32_t>(h2c_ring() >> 32));
        host.write32(reg(C2H_BASE_LO), static_cast<std::uint32_t>(c2h_ring()));
        host.write32(reg(C2H_BASE_HI), static_cast<std::uint32_t>(c2h_ring() >> 32));
        host.write32(reg(CMPT_BASE_LO), static_cast<std::uint32_t>(cmpt_ring()));
        host.write32(reg(CMPT_BASE_HI), static_cast<std::uint32_t>(cmpt_ring() >> 32));
        host.write32(reg(C2H_BUFFER_BYTES), setup.buffer_bytes);
        host.write32(reg(CMPT_COALESCE), setup.coalesce);
        const std::uint32_t size = control::RING_SIZE_INDEX.make(setup.ring_size_index) | control::ENABLE.make(1);
        host.write32(reg(H2C_CONTROL), size | control::STATUS_ENABLE.make(setup.h2c_status) |
                                           control::IRQ_ENABLE.make(setup.h2c_irq) |
                                           control::MSIX_VECTOR.make(setup.h2c_vector));
        if (setup.enable_c2h) {
            host.write32(reg(C2H_CONTROL), size);
            host.write32(reg(CMPT_CONTROL), size | control::STATUS_ENABLE.make(setup.cmpt_status) |
                                                control::IRQ_ENABLE.make(setup.cmpt_irq) |
                                                control::MSIX_VECTOR.make(setup.cmpt_vector));
        }
        h2c_pidx_ = c2h_pidx_ = cmpt_cidx_ = c2h_used_ = 0;
        colour_ = true;
        data_next_ = 0;
    }

    /// QUEUE_COMMAND.RESET, and the driver's side of it: indices to 0,
    /// colour 1, the completion ring zeroed so old entries do not look new.
    void reset() {
        platform_.host.write32(reg(regmap::QUEUE_COMMAND), regmap::command::RESET.make(1));
        std::memset(platform_.at(cmpt_ring()), 0, ring_.entries() * kCompletionEntryBytes);
        h2c_pidx_ = c2h_pidx_ = cmpt_cidx_ = c2h_used_ = 0;
        colour_ = true;
    }

    /// Writes a processor packet to host memory and posts its descriptors
    /// (at most `max_descriptor` bytes each; SDI on the last if `sdi`);
    /// rings H2C_PIDX (with IRQ_ARM if `arm`) unless `ring` is false.
    void send(const ProcessorHeader& header, const std::vector<std::uint8_t>& payload,
              std::uint32_t max_descriptor = regmap::kMaxDescriptorBytes, bool sdi = false, bool arm = false,
              bool ring = true) {
        const std::uint32_t total = static_cast<std::uint32_t>(ProcessorHeader::kBytes + payload.size());
        if (data_next_ + total > (2u << 20)) data_next_ = 0;
        const std::uint64_t address = data_area() + data_next_;
        data_next_ += (total + 63) & ~63u;
        header.write(platform_.at(address));
        if (!payload.empty())
            std::memcpy(platform_.at(address + ProcessorHeader::kBytes), payload.data(), payload.size());
        std::uint32_t done = 0;
        while (done < total) {
            const std::uint32_t length = std::min(max_descriptor, total - done);
            std::uint32_t flags = 0;
            if (done == 0) flags |= regmap::H2C_SOP;
            if (done + length == total) flags |= regmap::H2C_EOP | (sdi ? regmap::H2C_SDI : 0);
            post_h2c({address + done, length, flags});
            done += length;
        }
        if (ring) ring_h2c(arm);
    }
    /// Posts one raw H2C descriptor (no doorbell).
    void post_h2c(const regmap::H2cDescriptor& descriptor) {
        encode_h2c_descriptor(descriptor, platform_.at(h2c_ring() + h2c_pidx_ * kH2cDescriptorBytes));
        h2c_pidx_ = ring_.next(h2c_pidx_);
    }
    void ring_h2c(bool arm = false) {
        platform_.host.write32(doorbell(regmap::H2C_PIDX),
                               regmap::doorbell::INDEX.make(h2c_pidx_) | regmap::doorbell::IRQ_ARM.make(arm));
    }
    std::uint32_t h2c_pidx() const { return h2c_pidx_; }

    /// Posts `count` receive buffers (slot i at buffer_address(i)) and rings C2H_PIDX.
    void post_buffers(std::uint32_t count) {
        for (std::uint32_t i = 0; i < count; ++i) {
            encode_c2h_descriptor({buffer_address(c2h_pidx_)},
                                  platform_.at(c2h_ring() + c2h_pidx_ * kC2hDescriptorBytes));
            c2h_pidx_ = ring_.next(c2h_pidx_);
        }
        platform_.host.write32(doorbell(regmap::C2H_PIDX), c2h_pidx_);
    }
    /// Buffers posted and not yet used.
    std::uint32_t buffers_posted() const { return ring_.distance(c2h_used_, c2h_pidx_); }

    /// The completion at the driver's CIDX if its colour says it is new.
    std::optional<regmap::CompletionEntry> peek_completion() const {
        const auto entry = decode_completion_entry(platform_.at(cmpt_ring() + cmpt_cidx_ * kCompletionEntryBytes));
        if (((entry.flags & regmap::CMPT_COLOR) != 0) != colour_) return std::nullopt;
        return entry;
    }
    /// Takes the next completion (the caller checked peek_completion) and
    /// returns its payload from the C2H buffer it used (buffers are used in
    /// ring order). Does not ring CMPT_CIDX.
    std::vector<std::uint8_t> take_completion(const regmap::CompletionEntry& entry) {
        const std::uint8_t* data = platform_.at(buffer_address(c2h_used_));
        std::vector<std::uint8_t> payload(data, data + entry.length);
        c2h_used_ = ring_.next(c2h_used_);
        cmpt_cidx_ = ring_.next(cmpt_cidx_);
        if (cmpt_cidx_ == 0) colour_ = !colour_;
        return payload;
    }
    void ring_cmpt(bool arm = false) {
        platform_.host.write32(doorbell(regmap::CMPT_CIDX),
                               regmap::doorbell::INDEX.make(cmpt_cidx_) | regmap::doorbell::IRQ_ARM.make(arm));
    }
    std::uint32_t cmpt_cidx() const { return cmpt_cidx_; }
    bool expected_colour() const { return colour_; }

    /// Polls (every `step`) until `count` new completions are visible or
    /// `timeout` passes; returns how many are visible.
    std::uint32_t wait_completions(std::uint32_t count, sc_core::sc_time timeout = ns(1e6),
                                   sc_core::sc_time step = ns(50)) const {
        const sc_core::sc_time end = sc_core::sc_time_stamp() + timeout;
        for (;;) {
            std::uint32_t visible = 0;
            std::uint32_t index = cmpt_cidx_;
            bool colour = colour_;
            while (visible < count) {
                const auto entry = decode_completion_entry(platform_.at(cmpt_ring() + index * kCompletionEntryBytes));
                if (((entry.flags & regmap::CMPT_COLOR) != 0) != colour) break;
                ++visible;
                index = ring_.next(index);
                if (index == 0) colour = !colour;
            }
            if (visible >= count || sc_core::sc_time_stamp() >= end) return visible;
            sc_core::wait(step);
        }
    }

    /// Status writeback in a ring's last entry.
    regmap::StatusWriteback h2c_writeback() const {
        return decode_status_writeback(platform_.at(h2c_ring() + ring_.status_index() * kH2cDescriptorBytes));
    }
    regmap::StatusWriteback cmpt_writeback() const {
        return decode_status_writeback(platform_.at(cmpt_ring() + ring_.status_index() * kCompletionEntryBytes));
    }

  private:
    Platform& platform_;           ///< the node
    unsigned queue_;               ///< queue number
    std::uint64_t base_;           ///< host memory region of this queue
    QueueSetup setup_;             ///< as enabled
    RingIndex ring_;               ///< geometry of all three rings
    std::uint32_t h2c_pidx_ = 0;   ///< next H2C descriptor slot
    std::uint32_t c2h_pidx_ = 0;   ///< next C2H descriptor slot
    std::uint32_t c2h_used_ = 0;   ///< next C2H buffer the QDMA fills
    std::uint32_t cmpt_cidx_ = 0;  ///< next completion to read
    bool colour_ = true;           ///< colour of new completions at cmpt_cidx_
    std::uint32_t data_next_ = 0;  ///< bump allocator in the data area
};

/// A header for a point-to-point message of `bytes` to `rank`.
inline ProcessorHeader send_header(std::uint32_t bytes, std::uint16_t rank, std::uint8_t context = 0) {
    ProcessorHeader header;
    header.message_bytes = bytes;
    header.context_id = context;
    header.opcode = Opcode::Send;
    header.rank = rank;
    return header;
}

/// `bytes` bytes of a deterministic pattern seeded by `seed`.
inline std::vector<std::uint8_t> pattern(std::size_t bytes, std::uint32_t seed) {
    std::vector<std::uint8_t> data(bytes);
    std::uint32_t state = seed * 2654435761u + 1;
    for (auto& byte : data) {
        state = state * 1664525u + 1013904223u;
        byte = static_cast<std::uint8_t>(state >> 24);
    }
    return data;
}

/// Runs `body` in the host thread, then reports.
inline int run(Platform& platform, Checker& checker, std::function<void()> body) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    // Warnings are part of what the tests provoke; keep them in the log.
    platform.host.body = std::move(body);
    sc_core::sc_start();
    return checker.finish();
}

}  // namespace isvp::tb
