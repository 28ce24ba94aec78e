// PcieEndpoint: the FPGA's PCIe endpoint between the host and the device
// logic (QDMA): configuration space, BAR0 with the MSI-X table, DMA to host
// memory over a timed link, and MSI-X interrupt delivery.
//
// Abstraction: LT, blocking transport with annotated delays; no processes
// run per transfer. Timing (PcieConfig):
//   * each link direction is one shared resource, busy until its last
//     reservation ends; a transfer is serialised after whatever is queued,
//     so concurrent DMAs share the bandwidth. Writes and read completions
//     are cut into MPS-sized TLPs, read requests into MRRS-sized ones, each
//     TLP paying tlp_overhead_bytes;
//   * DMA write (device -> host, upstream): the data lands in host memory
//     at its arrival (end of serialisation + latency), not before — a host
//     woken by a later MSI sees exactly the writes that arrived before it
//     (an SC_METHOD lands them; writes outside host DMI, such as errors,
//     go through host_dma at once, annotated with the arrival); the
//     device's delay is the end of serialisation (a posted write is done
//     once it has left);
//   * DMA read: requests go upstream, completions come back downstream;
//     the device's delay is the arrival of the last completion;
//   * MMIO writes from the host are posted: they reach the device one
//     latency later, in order (an SC_METHOD delivers them); the call returns
//     at once. MMIO reads wait (in the caller's thread) until they reach the
//     device behind earlier posted writes, read there, and annotate the way
//     back: a round trip of 2 x latency plus the device's own delay, and no
//     earlier than the arrival of the device's DMA writes already sent (a
//     completion may not pass posted writes in its direction);
//   * configuration accesses take effect at once and annotate 2 x latency.
//   * MMIO and configuration TLPs take latency only, no link bandwidth (in
//     hardware they interleave with DMA TLPs at TLP granularity).
//
// Sockets:
//   host_mmio  target     BAR0 accesses from the host; address = BAR0 offset;
//                         aligned 4- or 8-byte accesses; b_transport may wait()
//                         for reads, so call it from an SC_THREAD
//   config     target     configuration space; address = register offset;
//                         1/2/4-byte accesses inside one dword
//   bar0       initiator  BAR0 accesses to the device, always aligned 4-byte,
//                         except the MSI-X table and PBA which live here; the
//                         device's target must not wait()
//   dma        target     DMA from the device: address = host address
//   host_dma   initiator  DMA and MSI writes to the host bridge
//   irq        target     interrupt requests from the device (msix_interrupt.h)
//
// Transaction log: with set_transaction_log() every MMIO access, DMA (named
// by the device's DmaTagExtension) and MSI-X message is written to a
// PcieTransactionLog; logging does not change any timing.
//
// Not modelled: link training and errors, replay, flow-control credit
// starvation, TLP reordering (beyond completions waiting for earlier posted
// writes; a device DMA read does not see the device's own writes still in
// flight — the QDMA never reads back what it wrote), the read-completion boundary, the MSI-X Enable
// bit and Command.BUS_MASTER/MEMORY_SPACE gating (the platform is treated as
// enumerated; the bits are stored and readable), INTx and MSI.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/msix_table.h"
#include "isvp/pcie_config.h"
#include "isvp/pcie_config_space.h"
#include "isvp/pcie_transaction_log.h"
#include "isvp/target_socket.h"

namespace isvp {

class PcieEndpoint : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<PcieEndpoint> host_mmio;         ///< BAR0 MMIO from the host
    isvp::BlockingTargetSocket<PcieEndpoint> config;            ///< configuration space accesses
    tlm_utils::simple_initiator_socket<PcieEndpoint> bar0;      ///< BAR0 register accesses to the device
    isvp::BlockingTargetSocket<PcieEndpoint> dma;               ///< DMA from the device
    tlm_utils::simple_initiator_socket<PcieEndpoint> host_dma;  ///< DMA and MSI writes to the host bridge
    isvp::BlockingTargetSocket<PcieEndpoint> irq;               ///< MSI-X vector requests from the device

    PcieEndpoint(sc_core::sc_module_name name, const PcieConfig& config);

    /// What the link has carried, for statistics and tests.
    struct Statistics {
        /// Every field once, with its JSON key (isvp/statistics_table.h).
        template <class Self, class Visitor>
        static void visit(Self& self, Visitor&& field) {
            field("dma_reads", self.dma_reads);
            field("dma_writes", self.dma_writes);
            field("upstream_bytes", self.upstream_bytes);
            field("downstream_bytes", self.downstream_bytes);
            field("msi_messages", self.msi_messages);
            field("mmio_reads", self.mmio_reads);
            field("mmio_writes", self.mmio_writes);
        }

        std::uint64_t dma_reads = 0;         ///< DMA read transactions
        std::uint64_t dma_writes = 0;        ///< DMA write transactions
        std::uint64_t upstream_bytes = 0;    ///< payload bytes device -> host (DMA writes, MSI)
        std::uint64_t downstream_bytes = 0;  ///< payload bytes host -> device (read completions)
        std::uint64_t msi_messages = 0;      ///< MSI writes sent to the host
        std::uint64_t mmio_reads = 0;
        std::uint64_t mmio_writes = 0;
    };
    const Statistics& statistics() const { return statistics_; }
    const PcieConfig& configuration() const { return config_; }
    const pci::PcieConfigSpace& config_space() const { return config_space_; }
    const MsixTable& msix_table() const { return msix_; }

    /// Logs this endpoint's transactions as node `node` (trace.pcie); null
    /// turns logging off. The log must outlive the simulation.
    void set_transaction_log(PcieTransactionLog* log, std::uint32_t node);

  private:
    /// An MMIO write on its way to the device.
    struct PostedWrite {
        sc_core::sc_time arrival;               ///< when it reaches the device
        std::uint32_t offset = 0;               ///< BAR0 offset, dword aligned
        std::uint32_t dwords = 0;               ///< 1 or 2
        std::array<std::uint32_t, 2> values{};  ///< the dwords, low address first
    };

    void mmio_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void config_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void dma_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void irq_b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
    void invalidate_host_dmi(sc_dt::uint64 start, sc_dt::uint64 end);

    /// A DMA write on its way to host memory (upstream posted write).
    struct HostWrite {
        sc_core::sc_time arrival;         ///< when it lands in host memory
        std::uint64_t address = 0;        ///< host address
        std::vector<std::uint8_t> bytes;  ///< the data, copied when the device issued it
        bool host_update = false;         ///< a completion or ring status a polling guest watches
        /// DmaTag::timing_only with nothing to write: `bytes` stays empty;
        /// the write still lands in order (the same events, the same times).
        bool timing_only = false;
    };
    /// Tells the host's CPU that a completion entry or ring status has
    /// landed (kHostUpdateAddress, simulation only: no link time, no log).
    void notify_host_update(const sc_core::sc_time& delay);

    /// SC_METHOD: hands posted writes whose time has come to the device.
    void deliver_posted_writes();
    /// SC_METHOD: lands DMA writes in host memory at their arrival time.
    void land_host_writes();
    /// Whether host DMI covers [address, address + bytes) for `read`/write.
    bool host_dmi_covers(std::uint64_t address, std::uint64_t bytes, bool read);
    /// Where host address `address` is through the DMI region (host_dmi_covers first).
    unsigned char* host_pointer(std::uint64_t address) const {
        return host_dmi_.get_dmi_ptr() + (address - host_dmi_.get_start_address());
    }
    void deliver_due_posted_writes();
    void write_dword(std::uint32_t offset, std::uint32_t value);
    std::uint32_t read_dword(std::uint32_t offset, sc_core::sc_time& delay);
    /// Sends `message` upstream, leaving the device no earlier than `earliest`.
    void send_msi(const MsiMessage& message, const sc_core::sc_time& earliest);
    /// Reserves a direction for `wire_bytes` from `earliest`; returns the end.
    sc_core::sc_time reserve(sc_core::sc_time& free_at, const sc_core::sc_time& earliest, std::uint64_t wire_bytes);
    /// Moves the data of a DMA through host DMI if it covers the access,
    /// else through host_dma's b_transport; sets the response status.
    void access_host(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay);
    void warn(const std::string& message) const;
    /// Writes a DMA to the transaction log: issued at `issued`, complete at `done`.
    void log_dma(const tlm::tlm_generic_payload& payload, const sc_core::sc_time& issued, const sc_core::sc_time& done);

    PcieConfig config_;                        ///< link parameters
    PcieLinkTiming timing_;                    ///< wire bytes and serialisation times
    sc_core::sc_time latency_;                 ///< one-way latency
    pci::PcieConfigSpace config_space_;        ///< configuration registers
    MsixTable msix_;                           ///< MSI-X table and PBA (BAR0)
    sc_core::sc_time upstream_free_;           ///< device -> host direction busy until
    sc_core::sc_time downstream_free_;         ///< host -> device direction busy until
    std::deque<PostedWrite> posted_;           ///< MMIO writes in flight, in arrival order
    sc_core::sc_time last_posted_arrival_;     ///< arrival of the newest posted write
    sc_core::sc_event posted_event_;           ///< the oldest posted write is due
    std::deque<HostWrite> host_writes_;        ///< DMA writes in flight to host memory, in arrival order
    std::vector<std::vector<std::uint8_t>> spare_write_buffers_;  ///< landed writes' buffers, for reuse
    std::vector<std::uint8_t> timing_only_scratch_;  ///< a timing-only write's bytes on the path without DMI
    sc_core::sc_event host_write_event_;       ///< the oldest DMA write lands
    tlm::tlm_dmi host_dmi_;                    ///< DMI region of host memory, if granted
    bool host_dmi_valid_ = false;              ///< host_dmi_ may be used
    tlm::tlm_generic_payload device_payload_;  ///< reused for bar0 dword accesses
    tlm::tlm_generic_payload msi_payload_;     ///< reused for MSI writes
    tlm::tlm_generic_payload host_update_payload_;     ///< reused for notify_host_update
    std::array<unsigned char, 4> host_update_data_{};  ///< its data (kHostUpdateData)
    Statistics statistics_;                    ///< counters
    PcieTransactionLog* log_ = nullptr;        ///< trace.pcie, or null (off)
    std::uint32_t log_node_ = 0;               ///< this node's number in the log
    double ps_per_tick_ = 1;                   ///< SystemC time resolution in ps, for the log
};

}  // namespace isvp
