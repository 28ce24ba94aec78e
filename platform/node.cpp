#include "isvp/node.h"

#include <algorithm>

#include "isvp/statistics_table.h"

namespace isvp {

Node::Node(sc_core::sc_module_name name, const NodeConfig& config, std::uint16_t address, std::uint16_t node_count,
           std::uint8_t* memory_base, std::size_t memory_bytes)
    : sc_core::sc_module(name),
      memory("memory", memory_base, memory_bytes),
      bridge("bridge", memory_bytes),
      pcie("pcie", config.pcie),
      bar0("bar0"),
      network_interface("network_interface", config.qdma.network_interface(address, node_count)),
      qdma("qdma", config.qdma, network_interface),
      collective("collective", address, node_count, config.aglu, config.collective),
      kernel("kernel", address, node_count, config.kernel),
      irq("irq"),
      config_access_("config_access"),
      address_(address) {
    bridge.memory.bind(memory.socket);
    pcie.host_dma.bind(bridge.dma);
    pcie.bar0.bind(bar0.from_endpoint);
    bar0.qdma.bind(qdma.regs);
    bar0.accelerator.bind(collective.csr);
    network_interface.tx.bind(collective.host_in);
    collective.host_in_credit.bind(network_interface.tx_credit);
    collective.host_out.bind(network_interface.rx);
    network_interface.rx_credit.bind(collective.host_out_credit);
    qdma.dma.bind(pcie.dma);
    qdma.irq.bind(irq.from_qdma);
    kernel.irq.bind(irq.from_kernel);
    irq.to_endpoint.bind(pcie.irq);
    bar0.kernel.bind(kernel.csr);
    kernel.to_engine.bind(collective.kernel_in);
    collective.kernel_in_credit.bind(kernel.to_engine_credit);
    collective.kernel_out.bind(kernel.from_engine);
    kernel.from_engine_credit.bind(collective.kernel_out_credit);
    config_access_.bind(pcie.config);
}

void Node::link_fault(const PacketLoss& loss, const std::vector<std::vector<std::uint8_t>>& packets, std::uint32_t from,
                      std::uint32_t to) {
    const bool sending = loss.source == address_;
    const std::uint16_t peer = sending ? loss.destination : loss.source;
    bool point_to_point = packets.empty();
    const FaultedLink link{from, to, static_cast<std::uint32_t>(std::min<std::uint64_t>(loss.packets, 0xFFFFFFFFu))};
    for (const std::vector<std::uint8_t>& packet : packets) {
        collective.link_fault(peer, loss.source, loss.destination, packet, link);
        const std::optional<NetworkHeader> header =
            packet.size() >= NetworkHeader::kBytes ? NetworkHeader::read(packet.data()) : std::nullopt;
        if (!header || header->opcode == Opcode::Send) point_to_point = true;
    }
    if (packets.empty()) collective.link_fault(peer, loss.source, loss.destination, {}, link);
    if (point_to_point) qdma.link_fault(peer, sending, loss.packets, from, to);
}

nlohmann::json Node::statistics() const {
    nlohmann::json out = {{"address", address_},
                          {"pcie", statistics_json(pcie.statistics())},
                          {"qdma", statistics_json(qdma.statistics())},
                          {"collective", statistics_json(collective.statistics())},
                          {"kernel", statistics_json(kernel.statistics())}};
    if (reliable) out["reliable"] = statistics_json(reliable->statistics());
    return out;
}

IdleHost::IdleHost(sc_core::sc_module_name name) : sc_core::sc_module(name), mmio("mmio"), msi("msi") {
    msi.register_b_transport(this, &IdleHost::absorb);
}

void IdleHost::absorb(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace isvp
