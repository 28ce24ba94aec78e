// PcieEndpoint, HostBridge and HostMemory against their specification:
// configuration space identity and capabilities, BAR0 size probing, MMIO
// posting and round trips, the MSI-X table with masking and pending bits,
// DMA latency, bandwidth and sharing, address errors, MSI routing and DMI.
// A stub device stands in for the QDMA behind BAR0.
#include <map>

#include "isvp/msix_interrupt.h"
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

namespace {

/// Device side of the endpoint: records register accesses, offers DMA and
/// interrupt initiators to the test.
class DeviceStub : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<DeviceStub> regs;    ///< from PcieEndpoint::bar0
    tlm_utils::simple_initiator_socket<DeviceStub> dma;  ///< to PcieEndpoint::dma
    tlm_utils::simple_initiator_socket<DeviceStub> irq;  ///< to PcieEndpoint::irq

    struct Access {
        sc_core::sc_time at;
        bool write;
        std::uint32_t offset;
        std::uint32_t value;
    };
    std::vector<Access> accesses;                   ///< every register access, in order
    std::map<std::uint32_t, std::uint32_t> values;  ///< registers written so far

    explicit DeviceStub(sc_core::sc_module_name name) : sc_core::sc_module(name), regs("regs"), dma("dma"), irq("irq") {
        regs.register_b_transport(this, &DeviceStub::b_transport);
    }

    /// One DMA from the current time; returns the response, sets `delay`.
    tlm::tlm_response_status transfer(bool write, std::uint64_t address, std::uint8_t* data, std::uint32_t bytes,
                                      sc_core::sc_time& delay) {
        tlm::tlm_generic_payload payload;
        payload.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        payload.set_address(address);
        payload.set_data_ptr(data);
        payload.set_data_length(bytes);
        payload.set_streaming_width(bytes);
        payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        delay = sc_core::SC_ZERO_TIME;
        dma->b_transport(payload, delay);
        return payload.get_response_status();
    }

  private:
    void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        std::uint32_t value = 0;
        const auto offset = static_cast<std::uint32_t>(payload.get_address());
        if (payload.get_command() == tlm::TLM_WRITE_COMMAND) {
            std::memcpy(&value, payload.get_data_ptr(), 4);
            values[offset] = value;
        } else {
            value = values.count(offset) ? values[offset] : 0xD0000000u | offset;
            std::memcpy(payload.get_data_ptr(), &value, 4);
        }
        accesses.push_back(
            {sc_core::sc_time_stamp() + delay, payload.get_command() == tlm::TLM_WRITE_COMMAND, offset, value});
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

constexpr std::size_t kMemoryBytes = 16u << 20;

struct Bench {
    std::vector<std::uint8_t> memory_bytes = std::vector<std::uint8_t>(kMemoryBytes, 0);
    HostMemory memory{"memory", memory_bytes.data(), memory_bytes.size()};
    HostBridge bridge{"bridge", memory_bytes.size()};
    PcieEndpoint endpoint;
    DeviceStub device{"device"};
    MsiRecorder msi{"msi"};
    Host host{"host"};

    explicit Bench(const PcieConfig& config) : endpoint("endpoint", config) {
        host.mmio.bind(endpoint.host_mmio);
        host.cfg.bind(endpoint.config);
        endpoint.bar0.bind(device.regs);
        device.dma.bind(endpoint.dma);
        device.irq.bind(endpoint.irq);
        endpoint.host_dma.bind(bridge.dma);
        bridge.memory.bind(memory.socket);
        bridge.msi.bind(msi.socket);
    }
};

std::string show(const sc_core::sc_time& time) {
    return time.to_string();
}

double gbytes_per_s(std::uint64_t bytes, const sc_core::sc_time& time) {
    return bytes / time.to_seconds() / 1e9;
}

}  // namespace

int sc_main(int, char**) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    Checker check;

    // The bridge refuses a host memory that would reach the MSI window.
    {
        std::string report;
        try {
            HostBridge too_big("too_big", kMsiWindowBase + 4096);
        } catch (const sc_core::sc_report& error) {
            report = error.what();
        }
        check.expect(report.find("overlaps the MSI window") != std::string::npos,
                     "a host memory larger than 0xFEE00000 bytes is refused: " + report);
    }

    const PcieConfig config;  // Gen3 x16, MPS 256, MRRS 512, 24 B/TLP, 10 % DLLP, 900 ns
    const PcieLinkTiming timing(config);
    Bench bench(config);
    Host& host = bench.host;
    const sc_core::sc_time latency = ns(config.latency_ns);
    auto serialise = [&](std::uint64_t wire_bytes) {
        return sc_core::sc_time(static_cast<double>(timing.serialisation_ps(wire_bytes)), sc_core::SC_PS);
    };

    host.body = [&] {
        using namespace pci;
        check.section("configuration space identity");
        check.expect(host.cfg_read(VENDOR_ID, 2) == regmap::kVendorId, "vendor ID is Xilinx 0x10EE");
        check.expect(host.cfg_read(DEVICE_ID, 2) == regmap::kDeviceId, "device ID is 0x9E5F");
        check.expect(host.cfg_read(REVISION_ID, 4) >> 8 == kClassCode, "class code is processing accelerator 0x120000");
        check.expect(host.cfg_read(HEADER_TYPE, 1) == 0, "header type 0 (endpoint)");
        check.expect(host.cfg_read(STATUS, 2) & STATUS_CAPABILITIES_LIST, "status announces a capabilities list");
        host.cfg_write(VENDOR_ID, 2, 0x1234);
        check.expect(host.cfg_read(VENDOR_ID, 2) == regmap::kVendorId, "vendor ID is read-only");

        const sc_core::sc_time before = sc_core::sc_time_stamp();
        host.cfg_read(DEVICE_ID, 2);
        check.expect(sc_core::sc_time_stamp() - before == 2 * latency,
                     "a configuration read takes a round trip of 2 x 900 ns");

        check.section("capabilities");
        const std::uint32_t pcie = host.cfg_read(CAPABILITIES_POINTER, 1);
        check.expect(pcie == PCIE_CAPABILITY && host.cfg_read(pcie, 1) == kPcieCapabilityId,
                     "the capability list starts with the PCI Express capability");
        check.expect((host.cfg_read(pcie + PCIE_CAPABILITIES, 2) & 0xFF) == 0x02,
                     "PCIe capability version 2, device type endpoint");
        const std::uint32_t link = host.cfg_read(pcie + PCIE_LINK_CAPABILITIES, 4);
        check.expect((link & 0xF) == 3 && ((link >> 4) & 0x3F) == 16, "link capabilities: 8 GT/s (Gen3), x16");
        const std::uint32_t status = host.cfg_read(pcie + PCIE_LINK_STATUS, 2);
        check.expect((status & 0xF) == 3 && ((status >> 4) & 0x3F) == 16, "link status: trained at Gen3 x16");
        check.expect(host.cfg_read(pcie + PCIE_LINK_CAPABILITIES_2, 4) == 0xE,
                     "supported link speeds 2.5, 5 and 8 GT/s");
        const std::uint32_t control = host.cfg_read(pcie + PCIE_DEVICE_CONTROL, 2);
        check.expect(((control >> 5) & 7) == 1 && ((control >> 12) & 7) == 2,
                     "device control reports MPS 256 B and MRRS 512 B");
        const std::uint32_t msix = host.cfg_read(pcie + 1, 1);
        check.expect(
            msix == MSIX_CAPABILITY && host.cfg_read(msix, 1) == kMsixCapabilityId && host.cfg_read(msix + 1, 1) == 0,
            "the PCIe capability links to the MSI-X capability, the last one");
        check.expect((host.cfg_read(msix + MSIX_MESSAGE_CONTROL, 2) & 0x7FF) == regmap::kMsixVectors - 1,
                     "MSI-X table size field says 64 vectors");
        check.expect(host.cfg_read(msix + MSIX_TABLE_OFFSET, 4) == regmap::MSIX_TABLE,
                     "MSI-X table at BAR0 + 0x4000 (BIR 0)");
        check.expect(host.cfg_read(msix + MSIX_PBA_OFFSET, 4) == regmap::MSIX_PBA,
                     "MSI-X PBA at BAR0 + 0x5000 (BIR 0)");

        check.section("BAR0 size probing and the command register");
        host.cfg_write(BAR0, 4, 0xFFFFFFFFu);
        const std::uint32_t size_mask = host.cfg_read(BAR0, 4);
        check.expect(size_mask == 0xFFFF0004u, "BAR0 all-ones probe reads 0xFFFF0004: 64-bit memory, non-prefetchable");
        check.expect((~(size_mask & ~0xFu) + 1) == regmap::kBar0Bytes, "the probed size is kBar0Bytes (64 KiB)");
        host.cfg_write(BAR1, 4, 0xFFFFFFFFu);
        check.expect(host.cfg_read(BAR1, 4) == 0xFFFFFFFFu, "BAR1 (upper half) takes all address bits");
        host.cfg_write(BAR0, 4, 0xC0001234u);
        host.cfg_write(BAR1, 4, 0x1u);
        check.expect(
            host.cfg_read(BAR0, 4) == 0xC0000004u && bench.endpoint.config_space().bar0_address() == 0x1C0000000ull,
            "BAR0 keeps the programmed address above its size, type bits intact");
        host.cfg_write(0x18, 4, 0xFFFFFFFFu);
        check.expect(host.cfg_read(0x18, 4) == 0, "BAR2 is not implemented and reads 0");
        host.cfg_write(COMMAND, 2, 0xFFFF);
        check.expect(
            host.cfg_read(COMMAND, 2) == (command::MEMORY_SPACE | command::BUS_MASTER | command::INTERRUPT_DISABLE),
            "command register keeps only memory space, bus master and INTx disable");
        host.cfg_read(VENDOR_ID, 3);
        check.expect(host.last_status == tlm::TLM_BURST_ERROR_RESPONSE, "a 3-byte configuration access is refused");

        check.section("MMIO");
        std::size_t seen = bench.device.accesses.size();
        sc_core::sc_time start = sc_core::sc_time_stamp();
        host.write32(0x18, 0xCAFE);
        check.expect(sc_core::sc_time_stamp() == start, "a posted MMIO write returns at once");
        sc_core::wait(ns(2000));
        check.expect(bench.device.accesses.size() == seen + 1 && bench.device.accesses.back().write &&
                         bench.device.accesses.back().offset == 0x18 && bench.device.accesses.back().value == 0xCAFE &&
                         bench.device.accesses.back().at == start + latency,
                     "the write reaches the device 900 ns later");

        seen = bench.device.accesses.size();
        start = sc_core::sc_time_stamp();
        host.write32(0x100, 1);
        host.write32(0x104, 2);
        const std::uint32_t value = host.read32(0x100);
        const auto& log = bench.device.accesses;
        check.expect(value == 1, "a read after posted writes sees their effect");
        check.expect(log.size() == seen + 3 && log[seen].offset == 0x100 && log[seen + 1].offset == 0x104 &&
                         !log[seen + 2].write && log[seen + 2].at == start + latency,
                     "posted writes and the read reach the device in order, 900 ns after issue");
        check.expect(sc_core::sc_time_stamp() - start == 2 * latency, "an MMIO read takes a 1800 ns round trip");

        seen = bench.device.accesses.size();
        {
            unsigned char data[8] = {1, 0, 0, 0, 2, 0, 0, 0};
            tlm::tlm_generic_payload payload;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(0x200);
            payload.set_data_ptr(data);
            payload.set_data_length(8);
            payload.set_streaming_width(8);
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            host.mmio->b_transport(payload, delay);
        }
        sc_core::wait(ns(1000));
        check.expect(bench.device.accesses.size() == seen + 2 && bench.device.accesses[seen].offset == 0x200 &&
                         bench.device.accesses[seen].value == 1 && bench.device.accesses[seen + 1].offset == 0x204 &&
                         bench.device.accesses[seen + 1].value == 2,
                     "an 8-byte MMIO write reaches the device as two dwords, low first");
        {
            unsigned char data[2] = {};
            tlm::tlm_generic_payload payload;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(0x20);
            payload.set_data_ptr(data);
            payload.set_data_length(2);
            payload.set_streaming_width(2);
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            host.mmio->b_transport(payload, delay);
            check.expect(payload.get_response_status() == tlm::TLM_BURST_ERROR_RESPONSE,
                         "a 2-byte MMIO access is refused (warning, not a crash)");
        }
        host.read32(regmap::kBar0Bytes);
        check.expect(host.last_status == tlm::TLM_ADDRESS_ERROR_RESPONSE, "an MMIO access beyond BAR0 is refused");

        check.section("MSI-X table and pending bits");
        seen = bench.device.accesses.size();
        const unsigned vector = 3;
        check.expect(host.read32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_VECTOR_CONTROL) == 1,
                     "MSI-X entries reset masked");
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_ADDRESS_LO, static_cast<std::uint32_t>(kMsiWindowBase));
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_ADDRESS_HI, 0);
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_DATA, 0x33);
        check.expect(host.read32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_DATA) == 0x33,
                     "an MSI-X entry reads back what was programmed");
        check.expect(bench.device.accesses.size() == seen, "MSI-X table accesses stay in the endpoint");

        const std::size_t messages = bench.msi.messages.size();
        check.expect(raise_msix(bench.device.irq, vector, sc_core::SC_ZERO_TIME) == tlm::TLM_OK_RESPONSE,
                     "the device raises a masked vector");
        sc_core::wait(ns(3000));
        check.expect(bench.msi.messages.size() == messages, "a masked vector sends no message");
        check.expect(host.read32(regmap::MSIX_PBA) == 1u << vector, "... and sets its pending bit");
        start = sc_core::sc_time_stamp();
        host.write32(regmap::MSIX_ENTRY(vector) + regmap::MSIX_VECTOR_CONTROL, 0);
        sc_core::wait(ns(3000));
        check.expect(bench.msi.messages.size() == messages + 1 && bench.msi.messages.back().data == 0x33 &&
                         bench.msi.messages.back().address == kMsiWindowBase,
                     "unmasking delivers the pending message once");
        check.expect(
            bench.msi.messages.back().at == start + latency + serialise(28) + latency,
            "... when the unmask arrives plus the upstream trip: " + show(bench.msi.messages.back().at - start));
        check.expect(host.read32(regmap::MSIX_PBA) == 0, "... and clears the pending bit");

        start = sc_core::sc_time_stamp();
        raise_msix(bench.device.irq, vector, sc_core::SC_ZERO_TIME);
        check.expect(bench.msi.messages.size() == messages + 2 &&
                         bench.msi.messages.back().at == start + serialise(28) + latency,
                     "an unmasked vector's MSI reaches the host one latency later");

        host.cfg_write(MSIX_CAPABILITY + MSIX_MESSAGE_CONTROL, 2, MSIX_ENABLE | MSIX_FUNCTION_MASK);
        raise_msix(bench.device.irq, vector, sc_core::SC_ZERO_TIME);
        check.expect(bench.msi.messages.size() == messages + 2 && bench.endpoint.msix_table().pending(vector),
                     "the function mask holds the message as pending");
        host.cfg_write(MSIX_CAPABILITY + MSIX_MESSAGE_CONTROL, 2, MSIX_ENABLE);
        check.expect(bench.msi.messages.size() == messages + 3 && !bench.endpoint.msix_table().pending(vector),
                     "clearing the function mask delivers it");
        check.expect(raise_msix(bench.device.irq, regmap::kMsixVectors, sc_core::SC_ZERO_TIME) ==
                         tlm::TLM_ADDRESS_ERROR_RESPONSE,
                     "a vector beyond the table is refused with a warning");

        check.section("DMA latency and errors");
        sc_core::sc_time delay;
        std::uint8_t word[4] = {1, 2, 3, 4};
        sc_core::wait(ns(10000));  // idle link
        check.expect(bench.device.transfer(true, 0x1000, word, 4, delay) == tlm::TLM_OK_RESPONSE &&
                         bench.memory_bytes[0x1000] != 1,
                     "a DMA write is not visible in host memory before it arrives");
        sc_core::wait(delay + latency - sc_core::sc_time(1, sc_core::SC_PS));
        check.expect(bench.memory_bytes[0x1000] != 1, "... not even a picosecond before its arrival");
        sc_core::wait(sc_core::sc_time(1, sc_core::SC_PS));
        check.expect(bench.memory_bytes[0x1000] == 1 && bench.memory_bytes[0x1003] == 4,
                     "a DMA write lands in host memory at its arrival (serialisation + latency)");
        check.expect(delay == serialise(4 + 24), "a posted DMA write is done once serialised: " + show(delay));
        sc_core::wait(ns(10000));
        std::uint8_t back[4] = {};
        bench.device.transfer(false, 0x1000, back, 4, delay);
        check.expect(std::memcmp(back, word, 4) == 0, "a DMA read returns host memory");
        check.expect(delay == serialise(24) + latency + serialise(4 + 24) + latency,
                     "a small DMA read takes the round trip, ~1.8 us: " + show(delay));
        std::uint8_t spill[4] = {9, 9, 9, 9};
        bench.memory_bytes[kMemoryBytes - 2] = 0x55;
        check.expect(
            bench.device.transfer(true, kMemoryBytes - 2, spill, 4, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE &&
                bench.memory_bytes[kMemoryBytes - 2] == 0x55,
            "a DMA write past the end of host memory is refused and writes nothing");
        check.expect(bench.device.transfer(false, kMemoryBytes, spill, 4, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE,
                     "a DMA read outside host memory is refused");

        check.section("DMA bandwidth (effective, from issue to last byte)");
        for (const std::uint32_t bytes : {4096u, 65536u, 4u << 20}) {
            std::vector<std::uint8_t> buffer(bytes);
            sc_core::wait(ns(20000));
            bench.device.transfer(false, 0x100000, buffer.data(), bytes, delay);
            const sc_core::sc_time expected = serialise(timing.header_only_wire_bytes()) + latency +
                                              serialise(timing.write_wire_bytes(bytes)) + latency;
            check.expect(delay == expected, "read of " + std::to_string(bytes) + " B: " + show(delay) + " = " +
                                                std::to_string(gbytes_per_s(bytes, delay)) + " GB/s");
            if (bytes == (4u << 20)) {
                const double rate = gbytes_per_s(bytes, delay);
                check.expect(rate >= 12.0 && rate <= 13.0, "a 4 MB DMA read lands at 12-13 GB/s");
            }
            sc_core::wait(delay + ns(20000));
            bench.device.transfer(true, 0x100000, buffer.data(), bytes, delay);
            const sc_core::sc_time landed = delay + latency;
            check.expect(delay == serialise(timing.write_wire_bytes(bytes)),
                         "write of " + std::to_string(bytes) + " B lands after " + show(landed) + " = " +
                             std::to_string(gbytes_per_s(bytes, landed)) + " GB/s");
            if (bytes == (4u << 20)) {
                const double rate = gbytes_per_s(bytes, landed);
                check.expect(rate >= 12.0 && rate <= 13.0, "a 4 MB DMA write lands at 12-13 GB/s");
            }
            sc_core::wait(landed);
        }

        check.section("concurrent DMAs share the link");
        sc_core::wait(ns(20000));
        std::vector<std::uint8_t> a(1u << 20), b(1u << 20);
        sc_core::sc_time first, second;
        bench.device.transfer(false, 0x200000, a.data(), 1u << 20, first);
        bench.device.transfer(false, 0x400000, b.data(), 1u << 20, second);
        check.expect(second - first == serialise(timing.write_wire_bytes(1u << 20)),
                     "a second read issued together finishes one serialisation later: " + show(second - first));
        sc_core::wait(second + ns(1000));
        bench.device.transfer(true, 0x200000, a.data(), 1u << 20, first);
        const sc_core::sc_time written = sc_core::sc_time_stamp() + first;
        raise_msix(bench.device.irq, vector, sc_core::SC_ZERO_TIME);
        check.expect(bench.msi.messages.back().at == written + serialise(28) + latency,
                     "an MSI raised after a DMA write leaves behind the data (PCIe ordering)");

        check.section("host bridge: MSI window and DMI");
        std::uint8_t msi_data[4] = {7, 0, 0, 0};
        const std::size_t before_msi = bench.msi.messages.size();
        check.expect(bench.device.transfer(true, kMsiWindowBase + 0x10, msi_data, 4, delay) == tlm::TLM_OK_RESPONSE &&
                         bench.msi.messages.size() == before_msi + 1 &&
                         bench.msi.messages.back().address == kMsiWindowBase + 0x10 &&
                         bench.msi.messages.back().data == 7,
                     "a 4-byte write into the MSI window goes to the interrupt receiver unchanged");
        check.expect(
            bench.device.transfer(false, kMsiWindowBase, msi_data, 4, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE,
            "a read of the MSI window is refused");
        std::uint8_t wide[8] = {};
        check.expect(bench.device.transfer(true, kMsiWindowBase, wide, 8, delay) == tlm::TLM_ADDRESS_ERROR_RESPONSE &&
                         bench.msi.messages.size() == before_msi + 1,
                     "an 8-byte write into the MSI window is refused");
        tlm::tlm_generic_payload probe;
        tlm::tlm_dmi dmi;
        probe.set_address(0x40);
        probe.set_command(tlm::TLM_READ_COMMAND);
        const bool granted = bench.endpoint.host_dma->get_direct_mem_ptr(probe, dmi);
        check.expect(granted && dmi.get_dmi_ptr() == bench.memory_bytes.data() && dmi.get_start_address() == 0 &&
                         dmi.get_end_address() == kMemoryBytes - 1 && dmi.is_read_write_allowed(),
                     "the bridge forwards DMI over the whole host memory");
        probe.set_address(kMsiWindowBase);
        check.expect(!bench.endpoint.host_dma->get_direct_mem_ptr(probe, dmi), "no DMI into the MSI window");
        check.expect(bench.endpoint.statistics().dma_reads > 0 && bench.endpoint.statistics().msi_messages > 0,
                     "the endpoint counts DMA and MSI traffic");
    };
    sc_core::sc_start();
    return check.finish();
}
