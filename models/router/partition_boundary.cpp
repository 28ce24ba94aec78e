#include "isvp/partition_boundary.h"
#include "isvp/sim_now.h"

#include <cstring>
#include <string>

namespace isvp {

namespace {

constexpr const char* kReportType = "isvp/partition";

/// One packet or credit return crossing the cut, as it travels between the
/// partitions (the processes run the same build on the same architecture:
/// host byte order). A packet's bytes follow the record.
struct WireRecord {
    std::uint32_t channel;        ///< channel id (PartitionPlan::channels())
    std::uint32_t length;         ///< packet bytes that follow; 0 for credits
    std::uint64_t arrival_ps;     ///< packet head at the far router / credits at the sending router
    std::uint64_t trace_id;       ///< PacketInfo
    std::uint64_t tail_after_ps;  ///< PacketInfo
    std::uint64_t injected_ps;    ///< PacketInfo
    std::uint32_t destination;    ///< PacketInfo
    std::uint32_t reliable_sequence;
    std::uint32_t reliable_base;
    std::uint32_t reliable_ack;
    std::uint32_t phits;            ///< credits: how many
    std::uint16_t hops;             ///< PacketInfo
    std::uint16_t reliable_source;  ///< PacketInfo
    std::uint8_t credit;            ///< 1: a credit return
    std::uint8_t vc;                ///< PacketInfo::vc / CreditReturn::vc
    std::uint8_t reliable;          ///< PacketInfo::Reliable
    std::uint8_t unused = 0;
};

void append(std::vector<std::uint8_t>& out, const void* data, std::size_t bytes) {
    const auto* begin = static_cast<const std::uint8_t*>(data);
    out.insert(out.end(), begin, begin + bytes);
}

}  // namespace

PartitionBoundary::PartitionBoundary(sc_core::sc_module_name name, const PartitionPlan& plan, unsigned self)
    : sc_core::sc_module(name),
      plan_(plan),
      self_(self),
      channels_(plan.channels().size()),
      outboxes_(plan.partitions()) {}

void PartitionBoundary::attach_outgoing(unsigned channel, AuroraLink& link) {
    Channel& c = channels_.at(channel);
    c.link = &link;
    c.packet_target = std::make_unique<Target>(*this, &PartitionBoundary::on_packet, channel);
    const std::string name = "packets_" + std::to_string(channel);
    c.packet_socket = std::make_unique<TargetSocket>(name.c_str());
    c.packet_socket->bind(*c.packet_target);
    link.out.bind(*c.packet_socket);
    const std::string stub = "credit_stub_" + std::to_string(channel);
    c.credit_stub = std::make_unique<Initiator>(stub.c_str());
    c.credit_stub->bind(link.credit_in);
}

void PartitionBoundary::attach_incoming(unsigned channel, Router& router, unsigned port) {
    Channel& c = channels_.at(channel);
    const std::string packets = "to_router_" + std::to_string(channel);
    c.packet_out = std::make_unique<Initiator>(packets.c_str());
    c.packet_out->bind(router.in(port));
    c.credit_target = std::make_unique<Target>(*this, &PartitionBoundary::on_credit, channel);
    const std::string credits = "credits_" + std::to_string(channel);
    c.credit_socket = std::make_unique<TargetSocket>(credits.c_str());
    c.credit_socket->bind(*c.credit_target);
    router.credit_out(port).bind(*c.credit_socket);
}

void PartitionBoundary::clear_outboxes() {
    for (auto& box : outboxes_) box.clear();
}

void PartitionBoundary::on_packet(unsigned channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const CutChannel& cut = plan_.channels()[channel];
    const PacketInfo& info = packet_info(payload);
    WireRecord record{};
    record.channel = channel;
    record.length = payload.get_data_length();
    record.arrival_ps = (sim_now() + delay).value();
    record.trace_id = info.trace_id;
    record.tail_after_ps = info.tail_after.value();
    record.injected_ps = info.injected.value();
    record.destination = info.destination;
    record.reliable_sequence = info.reliable_sequence;
    record.reliable_base = info.reliable_base;
    record.reliable_ack = info.reliable_ack;
    record.hops = info.hops;
    record.reliable_source = info.reliable_source;
    record.vc = info.vc;
    record.reliable = static_cast<std::uint8_t>(info.reliable);
    std::vector<std::uint8_t>& box = outboxes_[plan_.switch_owner(cut.to)];
    append(box, &record, sizeof record);
    append(box, payload.get_data_ptr(), record.length);
    ++statistics_.packets_sent;
    statistics_.bytes_sent += sizeof record + record.length;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void PartitionBoundary::on_credit(unsigned channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr) {
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": credit return without a CreditReturn extension").c_str());
        return;
    }
    const CutChannel& cut = plan_.channels()[channel];
    WireRecord record{};
    record.channel = channel;
    record.credit = 1;
    record.vc = credit->vc;
    record.phits = credit->phits;
    // The far link hands credits back one cable latency later (AuroraLink).
    record.arrival_ps = (sim_now() + delay).value() + cut.latency_ps;
    append(outboxes_[plan_.switch_owner(cut.from)], &record, sizeof record);
    ++statistics_.credits_sent;
    statistics_.bytes_sent += sizeof record;
}

void PartitionBoundary::deliver(const std::uint8_t* data, std::size_t bytes) {
    const std::uint64_t now = sim_now().value();
    std::size_t at = 0;
    while (at < bytes) {
        WireRecord record;
        if (bytes - at < sizeof record)
            SC_REPORT_FATAL(kReportType, "partition traffic cut short: a record is incomplete");
        std::memcpy(&record, data + at, sizeof record);
        at += sizeof record;
        if (record.channel >= channels_.size() || bytes - at < record.length)
            SC_REPORT_FATAL(kReportType, "partition traffic corrupted: bad channel or length");
        if (record.arrival_ps < now)
            SC_REPORT_FATAL(kReportType,
                            (std::string(name()) + ": traffic on channel " + std::to_string(record.channel) +
                             " arrives at " + std::to_string(record.arrival_ps) + " ps, in this partition's past (" +
                             std::to_string(now) + " ps): lookahead violated")
                                .c_str());
        Channel& c = channels_[record.channel];
        sc_core::sc_time delay = sc_core::sc_time::from_value(record.arrival_ps - now);
        if (record.credit) {
            if (c.link == nullptr) SC_REPORT_FATAL(kReportType, "credits for a channel that does not leave here");
            c.link->return_credits(record.vc, record.phits, delay);
            ++statistics_.credits_received;
            continue;
        }
        if (!c.packet_out) SC_REPORT_FATAL(kReportType, "a packet for a channel that does not enter here");
        tlm::tlm_generic_payload* payload = pool_.allocate(record.length);
        std::memcpy(payload->get_data_ptr(), data + at, record.length);
        at += record.length;
        PacketInfo& info = packet_info(*payload);
        info.vc = record.vc;
        info.trace_id = record.trace_id;
        info.tail_after = sc_core::sc_time::from_value(record.tail_after_ps);
        info.injected = sc_core::sc_time::from_value(record.injected_ps);
        info.hops = record.hops;
        info.destination = record.destination;
        info.reliable = static_cast<PacketInfo::Reliable>(record.reliable);
        info.reliable_source = record.reliable_source;
        info.reliable_sequence = record.reliable_sequence;
        info.reliable_base = record.reliable_base;
        info.reliable_ack = record.reliable_ack;
        (*c.packet_out)->b_transport(*payload, delay);
        if (payload->get_response_status() != tlm::TLM_OK_RESPONSE)
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": the router refused packet " +
                                          std::to_string(record.trace_id) + " from another partition")
                                             .c_str());
        payload->release();
        ++statistics_.packets_received;
    }
}

}  // namespace isvp
