#include "isvp/node.h"

namespace isvp {

Node::Node(sc_core::sc_module_name name, const NodeConfig& config, std::uint16_t address, std::uint16_t node_count,
           std::uint8_t* memory_base, std::size_t memory_bytes)
    : sc_core::sc_module(name),
      memory("memory", memory_base, memory_bytes),
      bridge("bridge", memory_bytes),
      pcie("pcie", config.pcie),
      bar0("bar0"),
      qdma("qdma", config.qdma, address, node_count),
      collective("collective", address, node_count, config.aglu, config.collective),
      config_access_("config_access"),
      address_(address) {
    bridge.memory.bind(memory.socket);
    pcie.host_dma.bind(bridge.dma);
    pcie.bar0.bind(bar0.from_endpoint);
    bar0.qdma.bind(qdma.regs);
    bar0.accelerator.bind(collective.csr);
    qdma.tx.bind(collective.host_in);
    collective.host_in_credit.bind(qdma.tx_credit);
    collective.host_out.bind(qdma.rx);
    qdma.rx_credit.bind(collective.host_out_credit);
    qdma.dma.bind(pcie.dma);
    qdma.irq.bind(pcie.irq);
    config_access_.bind(pcie.config);
}

void Node::link_fault(const PacketLoss& loss, const std::vector<std::vector<std::uint8_t>>& packets) {
    const bool sending = loss.source == address_;
    const std::uint16_t peer = sending ? loss.destination : loss.source;
    bool point_to_point = packets.empty();
    for (const std::vector<std::uint8_t>& packet : packets) {
        collective.link_fault(peer, loss.source, loss.destination, packet);
        const std::optional<NetworkHeader> header =
            packet.size() >= NetworkHeader::kBytes ? NetworkHeader::read(packet.data()) : std::nullopt;
        if (!header || header->opcode == Opcode::Send) point_to_point = true;
    }
    if (packets.empty()) collective.link_fault(peer, loss.source, loss.destination, {});
    if (point_to_point) qdma.link_fault(peer, sending, loss.packets);
}

nlohmann::json Node::statistics() const {
    const auto& p = pcie.statistics();
    const auto& q = qdma.statistics();
    const nlohmann::json pcie_json = {
        {"dma_reads", p.dma_reads},           {"dma_writes", p.dma_writes},
        {"upstream_bytes", p.upstream_bytes}, {"downstream_bytes", p.downstream_bytes},
        {"msi_messages", p.msi_messages},     {"mmio_reads", p.mmio_reads},
        {"mmio_writes", p.mmio_writes},
    };
    const nlohmann::json qdma_json = {
        {"h2c_packets", q.h2c_packets}, {"h2c_payload_bytes", q.h2c_payload_bytes},
        {"h2c_descriptors", q.h2c_descriptors}, {"c2h_packets", q.c2h_packets},
        {"c2h_payload_bytes", q.c2h_payload_bytes}, {"c2h_stalls", q.c2h_stalls},
        {"rx_dropped", q.rx_dropped}, {"interrupts", q.interrupts},
        {"queue_errors", q.queue_errors},
    };
    const auto& c = collective.statistics();
    const nlohmann::json collective_json = {
        {"collectives", c.collectives},
        {"errors", c.errors},
        {"dropped", c.dropped},
        {"stale", c.stale},
        {"step_packets_sent", c.step_packets_sent},
        {"agreement_packets", c.agreement_packets},
        {"credit_packets", c.credit_packets},
        {"result_packets", c.result_packets},
        {"aglu_cycles", c.aglu_cycles},
        {"bytes_copied", c.bytes_copied},
        {"bytes_combined", c.bytes_combined},
        {"bytes_skipped", c.bytes_skipped},
        {"rows_refused", c.rows_refused},
        {"peak_held_packets", c.peak_held_packets},
    };
    nlohmann::json out = {
        {"address", address_}, {"pcie", pcie_json}, {"qdma", qdma_json}, {"collective", collective_json}};
    if (reliable) {
        const auto& r = reliable->statistics();
        out["reliable"] = {
            {"data_packets", r.data_packets},   {"retransmissions", r.retransmissions},
            {"timeouts", r.timeouts},           {"acks_sent", r.acks_sent},
            {"naks_sent", r.naks_sent},         {"acks_received", r.acks_received},
            {"duplicates", r.duplicates},       {"out_of_order", r.out_of_order},
            {"delivered", r.delivered},         {"lost_sent", r.lost_sent},
            {"lost_received", r.lost_received}, {"peak_buffer_bytes", r.peak_buffer_bytes},
        };
    }
    return out;
}

IdleHost::IdleHost(sc_core::sc_module_name name) : sc_core::sc_module(name), mmio("mmio"), msi("msi") {
    msi.register_b_transport(this, &IdleHost::absorb);
}

void IdleHost::absorb(tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace isvp
