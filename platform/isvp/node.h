// Node: one cluster node of the direct network (DESIGN §3.1) — the host's
// memory and root complex (HostMemory, HostBridge) and the FPGA's PCIe
// endpoint, QDMA engine and collective engine (CCM, communicator table,
// CGR units: models/collective), bound together. The router and links are
// the fabric's (Fabric); the host CPU is a guest gateway (sw/transport)
// or, for nodes that run no rank, an IdleHost.
//
//   host CPU --host_mmio--> PcieEndpoint --bar0--> Bar0Splitter --> Qdma.regs
//                                                               \--> CollectiveEngine.csr (0x6000..0x7FFF)
//   Qdma.dma --> PcieEndpoint.dma --host_dma--> HostBridge --memory--> HostMemory
//                                                        \--msi--> host CPU
//                                                               \--> KernelUnit.csr (0x7000..0x70FF)
//   Qdma.irq, KernelUnit.irq --> IrqJoin --> PcieEndpoint.irq (MSI-X)
//   Qdma --> NetworkInterface (PacketNetworkInterface: network headers, VC,
//   credits) .tx/rx <--> CollectiveEngine.host_in/host_out;
//   KernelUnit.to_engine/from_engine <--> CollectiveEngine.kernel_in/kernel_out (SMI stream packets);
//   CollectiveEngine.net_out/net_in <--> the router's inject/eject port
//   (inject(), eject() below name the engine's network side)
#pragma once

#include <cstdint>
#include <memory>

#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>

#include "isvp/bar0_splitter.h"
#include "isvp/collective_engine.h"
#include "isvp/host_bridge.h"
#include "isvp/host_memory.h"
#include "isvp/irq_join.h"
#include "isvp/kernel_unit.h"
#include "isvp/packet_network_interface.h"
#include "isvp/pcie_endpoint.h"
#include "isvp/qdma.h"
#include "isvp/reliable_endpoint.h"
#include "isvp/target_socket.h"

namespace isvp {

struct NodeConfig {
    PcieConfig pcie;              ///< pcie.*
    QdmaConfig qdma;              ///< qdma.*
    AgluConfig aglu;              ///< aglu.*: the CGR units' AgLUs
    CollectiveConfig collective;  ///< collective.*
    KernelConfig kernel;          ///< kernel.*
};

class Node : public sc_core::sc_module {
  public:
    /// `memory`, `memory_bytes`: this node's host memory, owned by the caller
    /// (a rank's shared-memory segment, or a local allocation).
    Node(sc_core::sc_module_name name, const NodeConfig& config, std::uint16_t address, std::uint16_t node_count,
         std::uint8_t* memory, std::size_t memory_bytes);

    std::uint16_t address() const { return address_; }
    /// Counters of the endpoint and the QDMA.
    nlohmann::json statistics() const;
    /// The reliable layer gave up packets between this node and another
    /// (`loss`; `packets`: each lost packet's bytes, empty where unknown).
    /// The collective engine ends the collectives they belonged to with
    /// error 6; a lost point-to-point (or unknown) packet goes to the driver
    /// through the QDMA's LINK_FAULT register and error interrupt, with the
    /// cable they were dropped on (`from`, `to`: LINK_FAULT_FROM/TO words).
    void link_fault(const PacketLoss& loss, const std::vector<std::vector<std::uint8_t>>& packets,
                    std::uint32_t from = 0, std::uint32_t to = 0);

    HostMemory memory;                         ///< the host's DRAM, guest-physical from 0
    HostBridge bridge;                         ///< root complex: DMA to memory, MSI to the CPU
    PcieEndpoint pcie;                         ///< the FPGA's PCIe endpoint (BAR0, MSI-X, DMA timing)
    Bar0Splitter bar0;                         ///< BAR0 decoder: QDMA registers or accelerator CSRs
    PacketNetworkInterface network_interface;  ///< the QDMA's port to the network (headers, VC, credits)
    Qdma qdma;                                 ///< the FPGA's queue DMA engine
    CollectiveEngine collective;               ///< in-switch collectives at the router's local port
    KernelUnit kernel;                         ///< on-FPGA kernels and their SMI channels, behind the engine
    IrqJoin irq;                               ///< the QDMA's and the kernel unit's interrupts to the endpoint
    /// End-to-end reliable delivery between the engine and the router's
    /// local port (ClusterPlatform builds it when reliable.mode says so), or null.
    std::unique_ptr<ReliableEndpoint> reliable;

  private:
    tlm_utils::simple_initiator_socket<Node> config_access_;  ///< enumeration: the BIOS's configuration cycles
    std::uint16_t address_;                                   ///< node address in the network
};

/// Host CPU of a node that runs no rank: it never touches BAR0 and takes
/// any MSI silently, so the node's sockets are bound.
class IdleHost : public sc_core::sc_module {
  public:
    explicit IdleHost(sc_core::sc_module_name name);
    tlm_utils::simple_initiator_socket<IdleHost> mmio;  ///< bound to the endpoint's host_mmio
    isvp::BlockingTargetSocket<IdleHost> msi;           ///< bound to the bridge's msi

  private:
    void absorb(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
};

}  // namespace isvp
