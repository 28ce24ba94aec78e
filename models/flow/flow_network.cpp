#include "isvp/flow_network.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "isvp/packet_format.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {

constexpr const char* kReportType = "isvp/flow";
/// With network.flow_linger_round_trips = n > 0, a stream that runs dry
/// keeps its flow (and its share) for n round trips over its route plus this
/// many of its last packet's drain times before it leaves the sharing
/// problem: a stream paced by its source (a collective step forwarding what
/// the previous step delivers) sends its next packet about one drain time
/// later, one held by the receiver's window a round trip later; either would
/// otherwise leave and re-enter the problem, a solve each way, every few packets.
constexpr double kLingerDrains = 2.0;

std::uint64_t ns_to_ticks(double ns) {
    return sc_core::sc_time(ns, sc_core::SC_NS).value();  // rounds as the packet model's sc_time does
}

}  // namespace

FlowNetwork::FlowNetwork(sc_core::sc_module_name name, const FabricConfig& config, double linger_round_trips,
                         FlowHold hold, std::uint32_t train_payload_bytes)
    : sc_core::sc_module(name),
      config_(config),
      topology_(config.topology()),
      routing_(config_.routing(topology_)),
      linger_round_trips_(linger_round_trips),
      hold_(hold),
      train_payload_(train_payload_bytes) {
    config_.validate();
    cycle_ = ns_to_ticks(config_.router.clock_period_ns());
    pipeline_ = config_.router.pipeline_cycles * cycle_;
    vc_buffer_phits_ = config_.router.vc_buffer_phits();
    for (const TopologyCable& cable : topology_.cables()) {
        const AuroraConfig link = config_.link_config(cable);
        cable_timing_.emplace_back(link);
        cable_latency_.push_back(ns_to_ticks(link.latency_ns));
    }
    for (unsigned s = 0; s < topology_.switches(); ++s) {
        first_port_.push_back(ports_total_);
        ports_total_ += topology_.switch_at(s).ports;
    }
    // Resources: every switch port's outgoing cable direction (unused where
    // no cable), then inject ports, then eject ports; capacity 1 = busy all
    // the time, weights are ticks per byte.
    const std::uint32_t resources = ports_total_ + 2 * topology_.hosts();
    for (std::uint32_t r = 0; r < resources; ++r) solver_.add_resource(1.0);
    loads_.resize(resources);
    ejects_.resize(topology_.hosts());

    for (unsigned h = 0; h < topology_.hosts(); ++h) {
        const std::string n = std::to_string(h);
        inject_.push_back(std::make_unique<PacketInSocket>(("inject_" + n).c_str()));
        inject_credit_.push_back(std::make_unique<CreditOutSocket>(("inject_credit_" + n).c_str()));
        eject_.push_back(std::make_unique<PacketOutSocket>(("eject_" + n).c_str()));
        eject_credit_.push_back(std::make_unique<CreditInSocket>(("eject_credit_" + n).c_str()));
        packet_targets_.emplace_back(*this, &FlowNetwork::on_packet, h);
        credit_targets_.emplace_back(*this, &FlowNetwork::on_credit, h);
        inject_.back()->bind(packet_targets_.back());
        eject_credit_.back()->bind(credit_targets_.back());
    }

    SC_HAS_PROCESS(FlowNetwork);
    SC_METHOD(grant_initial_credits);
    SC_METHOD(wake);
    sensitive << wake_event_;
    dont_initialize();
}

FlowNetwork::PacketInSocket& FlowNetwork::inject(unsigned host) {
    return *inject_.at(host);
}
FlowNetwork::CreditOutSocket& FlowNetwork::inject_credit(unsigned host) {
    return *inject_credit_.at(host);
}
FlowNetwork::PacketOutSocket& FlowNetwork::eject(unsigned host) {
    return *eject_.at(host);
}
FlowNetwork::CreditInSocket& FlowNetwork::eject_credit(unsigned host) {
    return *eject_credit_.at(host);
}

void FlowNetwork::start_of_simulation() {
    eject_if_.assign(topology_.hosts(), nullptr);
    inject_credit_if_.assign(topology_.hosts(), nullptr);
    for (unsigned h = 0; h < topology_.hosts(); ++h) {
        if (eject_[h]->size() != 0) eject_if_[h] = (*eject_[h]).operator->();
        if (inject_credit_[h]->size() != 0) inject_credit_if_[h] = (*inject_credit_[h]).operator->();
    }
}

void FlowNetwork::grant_initial_credits() {
    // As the first router's local input port: each VC's whole buffer.
    for (unsigned h = 0; h < topology_.hosts(); ++h) {
        if (inject_credit_if_[h] == nullptr) continue;
        for (unsigned vc = 0; vc < config_.router.vcs; ++vc)
            credit_message_.send(inject_credit_if_[h], static_cast<std::uint8_t>(vc), vc_buffer_phits_,
                                 sc_core::SC_ZERO_TIME);
    }
}

// ---------------------------------------------------------------- costs

std::uint64_t FlowNetwork::port_ticks(std::uint32_t phits) const {
    const unsigned per_cycle = config_.router.phits_per_cycle;
    return (phits + per_cycle - 1) / per_cycle * cycle_;
}

std::uint64_t FlowNetwork::serialisation_ticks(std::uint32_t cable, std::uint32_t bytes) const {
    return ns_to_ticks(cable_timing_[cable].serialisation_ns(bytes));
}

FlowNetwork::Train FlowNetwork::train_of(std::uint32_t bytes) const {
    const std::uint32_t overhead = static_cast<std::uint32_t>(kNetworkPacketOverhead);
    if (train_payload_ == 0 || bytes <= overhead + train_payload_) return Train{1, bytes, bytes};
    const std::uint32_t payload = bytes - overhead;
    const std::uint32_t packets = (payload + train_payload_ - 1) / train_payload_;
    return Train{packets, overhead + train_payload_, overhead + payload - (packets - 1) * train_payload_};
}

std::uint64_t FlowNetwork::port_cost(std::uint32_t bytes) const {
    if (train_payload_ == 0) return port_ticks(phits_of(bytes));  // per packet, per resource: no trains, no split
    const Train train = train_of(bytes);
    const std::uint64_t last = port_ticks(phits_of(train.last_bytes));
    return train.packets == 1 ? last : (train.packets - 1) * port_ticks(phits_of(train.full_bytes)) + last;
}

std::uint64_t FlowNetwork::cable_cost(std::uint32_t cable, std::uint32_t bytes) const {
    if (train_payload_ == 0) return serialisation_ticks(cable, bytes);
    const Train train = train_of(bytes);
    const std::uint64_t last = serialisation_ticks(cable, train.last_bytes);
    return train.packets == 1 ? last : (train.packets - 1) * serialisation_ticks(cable, train.full_bytes) + last;
}

std::uint32_t FlowNetwork::cable_resource(unsigned switch_index, unsigned port) const {
    return first_port_[switch_index] + port;
}

std::vector<MaxMinSolver::Use> FlowNetwork::uses_for(const Stream& stream, std::uint32_t bytes) const {
    const double size = std::max<std::uint32_t>(bytes, 1);
    const double port = static_cast<double>(port_cost(bytes)) / size;
    std::vector<MaxMinSolver::Use> uses;
    uses.reserve(stream.resources.size());
    uses.push_back({stream.resources.front(), port});
    for (std::size_t i = 0; i < stream.cables.size(); ++i)
        uses.push_back({stream.resources[i + 1], static_cast<double>(cable_cost(stream.cables[i], bytes)) / size});
    uses.push_back({stream.resources.back(), port});
    return uses;
}

std::int64_t FlowNetwork::after_drain(Stream& stream, std::uint32_t bytes) {
    if (stream.cached_bytes == bytes) return stream.cached_after;
    // What the packet model gives one uncontended packet after the first
    // router's pipeline: store-and-forward serialisation and latency per
    // cable, a pipeline per further router; the drain stood for the slowest
    // of the costs (the bottleneck).
    //
    // A train (network.flow_train_packets) is its hardware packets back to
    // back, cut through: the last one's head leaves (n - 1) bottleneck
    // times after the first's, crosses the route as one packet does, and
    // its tail follows X(last); the eject port hands the train over in
    // X(train) = its port cost, so its head is due that much before.
    const Train train = train_of(bytes);
    std::uint64_t each = port_ticks(phits_of(train.full_bytes));  // bottleneck per full hardware packet
    std::uint64_t drain = port_cost(bytes);                       // the whole train's
    std::uint64_t total = stream.latency + stream.cables.size() * pipeline_;
    for (std::uint32_t cable : stream.cables) {
        total += serialisation_ticks(cable, train.last_bytes);
        each = std::max(each, serialisation_ticks(cable, train.full_bytes));
        drain = std::max(drain, cable_cost(cable, bytes));
    }
    const std::uint64_t tail = (train.packets - 1) * each + total + port_ticks(phits_of(train.last_bytes));
    stream.cached_bytes = bytes;
    stream.cached_after = static_cast<std::int64_t>(tail) - static_cast<std::int64_t>(port_cost(bytes)) -
                          static_cast<std::int64_t>(drain);
    return stream.cached_after;
}

std::uint32_t FlowNetwork::stream_for(unsigned source, unsigned destination) {
    const std::uint64_t key = std::uint64_t{source} * topology_.hosts() + destination;
    if (!stream_table_.empty() && stream_table_[key] != 0) return stream_table_[key] - 1;
    const auto found = stream_index_.find(key);
    if (found != stream_index_.end()) return found->second;
    Stream stream;
    stream.source = source;
    stream.destination = destination;
    std::vector<FlowHop> hops;
    try {
        hops = trace_flow_path(topology_, *routing_, source, destination);
    } catch (const std::runtime_error& error) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": " + error.what()).c_str());
    }
    stream.resources.push_back(inject_resource(source));
    for (const FlowHop& hop : hops) {
        stream.cables.push_back(hop.cable);
        stream.resources.push_back(cable_resource(hop.switch_index, hop.port));
        stream.latency += cable_latency_[hop.cable];
    }
    stream.resources.push_back(eject_resource(destination));
    streams_.push_back(std::move(stream));
    ++statistics_.streams;
    const auto index = static_cast<std::uint32_t>(streams_.size() - 1);
    stream_index_.emplace(key, index);
    if (topology_.hosts() <= kDenseStreamHosts) {
        if (stream_table_.empty()) stream_table_.assign(std::size_t{topology_.hosts()} * topology_.hosts(), 0);
        stream_table_[key] = index + 1;
    }
    return index;
}

// ---------------------------------------------------------------- arrivals

void FlowNetwork::on_packet(unsigned host, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t now = sim_now().value();
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    PacketInfo& info = packet_info(payload);
    const std::uint32_t length = payload.get_data_length();
    const std::uint64_t head = now + delay.value();
    if (info.vc >= config_.router.vcs) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": packet " + std::to_string(info.trace_id) +
                                      " from host " + std::to_string(host) + " on VC " + std::to_string(info.vc) +
                                      ", but the network has " + std::to_string(config_.router.vcs) + " VCs")
                                         .c_str());
        return;
    }
    if (info.destination == PacketInfo::kUnrouted) {
        std::string error;
        const auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &error);
        if (!view) {
            ++statistics_.dropped_malformed;
            drop(host, payload, head + info.tail_after.value(), "it does not parse: " + error);
            return;
        }
        info.destination = view->network.destination;
    }
    if (info.destination >= topology_.hosts()) {
        ++statistics_.dropped_misaddressed;
        drop(host, payload, head + info.tail_after.value(),
             "destination " + std::to_string(info.destination) + " is not a node of the network");
        return;
    }
    // Its message, from the network header: a stream's packets may mix
    // messages (a step's data and the window grants of the reverse step), so
    // a message is keyed by context, step and opcode, and ends with the
    // packet whose `last` bit is set (network.flow_hold = message keeps a dry
    // stream's flow while one of its messages is unfinished). A packet too
    // short for a header is a message of its own.
    bool last = true;
    std::uint32_t message = 0;
    if (length >= NetworkHeader::kBytes)
        if (const auto header = NetworkHeader::read(payload.get_data_ptr())) {
            last = header->last;
            message = std::uint32_t{header->context_id} << 16 | std::uint32_t{header->step} << 8 |
                      static_cast<std::uint32_t>(header->opcode);
        }
    payload.acquire();
    const std::uint32_t index = stream_for(host, info.destination);
    Stream& stream = streams_[index];
    QueuedPacket packet;
    packet.payload = &payload;
    packet.ready = head + pipeline_;
    packet.bytes = length;
    packet.phits = phits_of(length);
    packet.vc = info.vc;
    packet.last = last;
    packet.message = message;
    stream.queue.push_back(packet);
    if (!stream.running && stream.queue.size() == 1) schedule(packet.ready, {AgendaItem::Activate, index, 0});
}

void FlowNetwork::drop(unsigned host, tlm::tlm_generic_payload& payload, std::uint64_t credit_tick,
                       const std::string& why) {
    const PacketInfo& info = packet_info(payload);
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped packet " + std::to_string(info.trace_id) +
                                    " from host " + std::to_string(host) + ": " + why)
                                       .c_str());
    const std::uint64_t now = sim_now().value();
    if (inject_credit_if_[host] != nullptr)
        credit_message_.send(inject_credit_if_[host], info.vc, phits_of(payload.get_data_length()),
                             sim_time(credit_tick - now));
}

void FlowNetwork::on_credit(unsigned host, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr || credit->vc >= config_.router.vcs) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": credit return from host " + std::to_string(host) +
                                      (credit ? " for VC " + std::to_string(credit->vc) + ", but the network has " +
                                                    std::to_string(config_.router.vcs) + " VCs"
                                              : " without a CreditReturn extension"))
                                         .c_str());
        return;
    }
    if (credit->vc != 0) return;  // packets leave the network on VC 0 (as the routers' host ports send them)
    const std::uint64_t arrival = sim_now().value() + delay.value();
    EjectPort& port = ejects_[host];
    port.pending.push(arrival, credit->phits);
    if (port.waiting) schedule_eject(host, arrival);  // else nothing waits for credits
}

// ---------------------------------------------------------------- agenda

void FlowNetwork::schedule(std::uint64_t tick, const AgendaItem& item) {
    agenda_.push(tick, item);
    if (tick < next_wake_) {
        const std::uint64_t now = sim_now().value();
        next_wake_ = tick;
        wake_event_.notify(sim_time(tick > now ? tick - now : 0));
    }
}

void FlowNetwork::schedule_eject(unsigned host, std::uint64_t tick) {
    EjectPort& port = ejects_[host];
    if (tick >= port.wake_at) return;
    port.wake_at = tick;
    schedule(tick, {AgendaItem::Eject, host, ++port.version});  // an earlier wake replaces a later one
}

void FlowNetwork::schedule_drain(Stream& stream, std::uint32_t index, std::uint64_t now) {
    ++stream.version;
    if (!(stream.rate > 0)) return;  // its flow has no share yet: the end of this instant's solve schedules it
    const double ticks = stream.rate > 0 ? std::llround(std::max(stream.remaining, 0.0) / stream.rate) : 0.0;
    schedule(now + static_cast<std::uint64_t>(ticks), {AgendaItem::Drained, index, stream.version});
}

void FlowNetwork::wake() {
    const std::uint64_t now = sim_now().value();
    next_wake_ = kNever;
    while (!agenda_.empty() && agenda_.next_time() <= now) {
        const AgendaItem item = agenda_.pop();
        switch (item.kind) {
            case AgendaItem::Activate:
                activate(item.index, now);
                break;
            case AgendaItem::Drained:
                if (item.version == streams_[item.index].version) drained(item.index, now);
                break;
            case AgendaItem::Retire: {
                Stream& stream = streams_[item.index];
                if (item.version != stream.retire_version || stream.running || stream.idle_listed) break;
                stream.idle_listed = true;
                idle_.push_back(item.index);
                break;
            }
            case AgendaItem::Eject:
                if (item.version != ejects_[item.index].version) break;
                ejects_[item.index].wake_at = kNever;
                eject_due(item.index, now);
                break;
        }
    }
    // Streams that stopped and did not start again this instant leave the
    // sharing problem; then the shares of every flow they touched (and of
    // new flows) are recomputed, once for the instant.
    for (std::uint32_t index : idle_) {
        Stream& stream = streams_[index];
        stream.idle_listed = false;
        if (stream.running || stream.flow == kNoFlow) continue;
        solver_.remove_flow(stream.flow);
        stream.flow = kNoFlow;
        stream.rate = 0;
    }
    idle_.clear();
    for (std::uint32_t id : solver_.solve()) {
        Stream& stream = streams_[flow_owner_[id]];
        const double rate = solver_.rate(id);
        if (stream.running) {
            stream.remaining -= stream.rate * static_cast<double>(now - stream.last);
            stream.last = now;
            if (rate == stream.rate) continue;  // unchanged: its Drained item stands
            stream.rate = rate;
            schedule_drain(stream, flow_owner_[id], now);
        } else {
            stream.rate = rate;
        }
    }
    if (!agenda_.empty() && agenda_.next_time() < next_wake_) {
        next_wake_ = agenda_.next_time();
        wake_event_.notify(sim_time(next_wake_ > now ? next_wake_ - now : 0));
    }
}

void FlowNetwork::activate(std::uint32_t index, std::uint64_t now) {
    Stream& stream = streams_[index];
    if (stream.running || stream.queue.empty()) return;
    const QueuedPacket& head = stream.queue.front();
    if (head.ready > now) {
        schedule(head.ready, {AgendaItem::Activate, index, 0});
        return;
    }
    stream.running = true;
    ++stream.retire_version;  // a pending Retire no longer applies
    start_head(stream, now);
    if (express(stream, head)) {
        start_express(stream, index, now);
        return;
    }
    if (stream.flow != kNoFlow && head.bytes <= stream.weight_bytes) {
        schedule_drain(stream, index, now);  // stopped and started again within one instant: same share
        return;
    }
    if (stream.flow == kNoFlow) ++statistics_.flow_starts;
    weigh(stream, index, head.bytes);
}

bool FlowNetwork::express(const Stream& stream, const QueuedPacket& packet) const {
    // A message of one phit (a window-credit return, an 8-byte step) on a
    // stream without a flow: as a flow it would start and end within one
    // port cycle, a solve of its whole component each way (most of the
    // solves left once flows live as long as messages).
    return hold_ == FlowHold::Message && stream.flow == kNoFlow && packet.last && packet.phits <= 1;
}

void FlowNetwork::start_express(Stream& stream, std::uint32_t index, std::uint64_t now) {
    // It drains in its uncontended bottleneck time, what a flow of its own
    // would take on idle resources, without joining the sharing problem.
    const QueuedPacket& head = stream.queue.front();
    std::uint64_t ticks = port_cost(head.bytes);
    for (std::uint32_t cable : stream.cables) ticks = std::max(ticks, cable_cost(cable, head.bytes));
    ++statistics_.express;
    ++stream.version;
    stream.rate = static_cast<double>(head.bytes) / static_cast<double>(std::max<std::uint64_t>(ticks, 1));
    schedule(now + ticks, {AgendaItem::Drained, index, stream.version});
}

void FlowNetwork::weigh(Stream& stream, std::uint32_t index, std::uint32_t bytes) {
    // A packet's costs per byte depend on its size (framing, whole port
    // cycles): a 22-byte window grant costs a port three times what a byte
    // of a 1 KiB data packet does. A flow is weighted for the largest packet
    // it has drained since it joined the problem, so a grant that starts a
    // stream does not slow the data behind it (and every flow it shares
    // with) for the rest of the stream, while grants and a message's short
    // last packet among data packets do not make it churn (one re-weigh per
    // flow, not one per packet).
    if (stream.flow != kNoFlow) {
        solver_.remove_flow(stream.flow);
        ++statistics_.reweighs;
    }
    stream.flow = solver_.add_flow(uses_for(stream, bytes));
    stream.weight_bytes = bytes;
    stream.rate = 0;
    ++stream.version;  // no drain until the solver gives a rate (end of this instant)
    if (flow_owner_.size() <= stream.flow) flow_owner_.resize(stream.flow + 1);
    flow_owner_[stream.flow] = index;
}

void FlowNetwork::start_head(Stream& stream, std::uint64_t now) {
    const QueuedPacket& head = stream.queue.front();
    stream.remaining = head.bytes;
    stream.last = now;
    // Between two hosts of one switch the packet model's router sends the
    // head out after its pipeline, as the drain starts; the eject port (one
    // packet per X(k)) and the drain pace what follows.
    if (stream.cables.empty()) to_eject(stream, head, now, now);
}

void FlowNetwork::to_eject(Stream& stream, const QueuedPacket& packet, std::uint64_t due, std::uint64_t now) {
    Arrival arrival;
    // Packets of one stream arrive in order (one route): a short packet
    // after a long one is not due before it.
    arrival.due = std::max({due, now, stream.last_due});
    stream.last_due = arrival.due;
    arrival.sequence = arrival_sequence_++;
    arrival.payload = packet.payload;
    arrival.phits = packet.phits;
    arrival.hops = static_cast<std::uint16_t>(stream.cables.size());
    ejects_[stream.destination].arrivals.push(arrival);
    schedule_eject(stream.destination, arrival.due);
}

void FlowNetwork::drained(std::uint32_t index, std::uint64_t now) {
    Stream& stream = streams_[index];
    const QueuedPacket packet = stream.queue.front();
    stream.queue.pop_front();
    if (stream.flow == kNoFlow) stream.rate = 0;  // it went express: no share to keep
    // Load on every resource it crossed (statistics).
    const std::uint64_t port = port_cost(packet.bytes);
    for (std::size_t r = 0; r < stream.resources.size(); ++r) {
        ResourceLoad& load = loads_[stream.resources[r]];
        ++load.packets;
        load.bytes += packet.bytes;
        load.busy +=
            (r == 0 || r + 1 == stream.resources.size()) ? port : cable_cost(stream.cables[r - 1], packet.bytes);
    }
    // Messages it has begun and not finished (network.flow_hold = message).
    if (hold_ == FlowHold::Message) {
        const auto open = std::find(stream.open.begin(), stream.open.end(), packet.message);
        if (!packet.last && open == stream.open.end())
            stream.open.push_back(packet.message);
        else if (packet.last && open != stream.open.end())
            stream.open.erase(open);
    }
    // On to the destination's eject port (between hosts of one switch it
    // went there when it started draining).
    // A train on a route so short that its head reaches the eject port
    // before it has drained (after < 0) is handed over when it has: its
    // tail up to (n - 1) X - the route's latency late (about 0.5 us for
    // trains of 16 on one hop; trains exist only where a message has 256
    // of them). Shortening its eject transfer instead moved a 1,024-node
    // 4 MiB Allreduce by 0.06 % and made its max-min solves 8 times as many.
    if (!stream.cables.empty())
        to_eject(
            stream, packet,
            static_cast<std::uint64_t>(std::max<std::int64_t>(
                static_cast<std::int64_t>(now) + after_drain(stream, packet.bytes), static_cast<std::int64_t>(now))),
            now);
    // The next packet continues at the same share, or the stream stops.
    if (!stream.queue.empty() && stream.queue.front().ready <= now) {
        start_head(stream, now);
        if (express(stream, stream.queue.front())) {
            start_express(stream, index, now);
        } else if (stream.flow == kNoFlow) {
            ++statistics_.flow_starts;
            weigh(stream, index, stream.queue.front().bytes);
        } else if (stream.queue.front().bytes <= stream.weight_bytes) {
            schedule_drain(stream, index, now);
        } else {
            weigh(stream, index, stream.queue.front().bytes);
        }
    } else if (!stream.open.empty() && stream.rate > 0) {
        // Dry inside a message: the source paces it (a collective step
        // forwarding what the previous one delivers, a window) and its next
        // packet follows; the flow keeps its share until the message's last
        // packet has drained, so solves follow messages, not packets.
        stream.running = false;
        ++stream.version;
        ++stream.retire_version;  // a Retire from an earlier message no longer applies
        ++statistics_.holds;
        if (!stream.queue.empty()) schedule(stream.queue.front().ready, {AgendaItem::Activate, index, 0});
    } else {
        stream.running = false;
        ++stream.version;
        // With network.flow_linger_round_trips > 0 its flow lingers in case
        // the next packet follows (kLingerDrains); else it leaves at the end
        // of this instant.
        const double round_trip =
            2.0 * static_cast<double>(std::max<std::int64_t>(after_drain(stream, packet.bytes), 0) + pipeline_);
        const double linger = linger_round_trips_ > 0 && stream.rate > 0
                                  ? kLingerDrains * packet.bytes / stream.rate + linger_round_trips_ * round_trip
                                  : 0.0;
        if (linger >= 1.0) {
            schedule(now + static_cast<std::uint64_t>(std::llround(linger)),
                     {AgendaItem::Retire, index, ++stream.retire_version});
        } else if (!stream.idle_listed) {
            stream.idle_listed = true;
            idle_.push_back(index);
        }
        if (!stream.queue.empty()) schedule(stream.queue.front().ready, {AgendaItem::Activate, index, 0});
    }
    // Its place in the first router's buffer is free (last: the NIC may
    // send again from inside this call).
    if (inject_credit_if_[stream.source] != nullptr)
        credit_message_.send(inject_credit_if_[stream.source], packet.vc, packet.phits, sc_core::SC_ZERO_TIME);
}

void FlowNetwork::eject_due(unsigned host, std::uint64_t now) {
    EjectPort& port = ejects_[host];
    const std::uint32_t margin = config_.router.flow_control_margin_phits;
    while (!port.arrivals.empty() && port.arrivals.top().due <= now) {
        if (port.free_at > now) {
            schedule_eject(host, port.free_at);
            return;
        }
        port.credits += static_cast<std::int64_t>(port.pending.pop_due(now));
        port.capacity =
            std::max<std::uint32_t>(port.capacity, static_cast<std::uint32_t>(std::max<std::int64_t>(port.credits, 0)));
        const Arrival arrival = port.arrivals.top();
        if (port.capacity > 0 && arrival.phits + margin > port.capacity) {
            port.arrivals.pop();
            ++statistics_.dropped_oversized;
            SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped packet " +
                                            std::to_string(packet_info(*arrival.payload).trace_id) + " for host " +
                                            std::to_string(host) + ": its " + std::to_string(arrival.phits) +
                                            " phits plus the flow-control margin never fit the NIC's " +
                                            std::to_string(port.capacity) + "-phit buffer")
                                               .c_str());
            arrival.payload->release();
            continue;
        }
        if (port.credits < static_cast<std::int64_t>(arrival.phits + margin)) {
            port.waiting = true;  // on_credit wakes the port
            if (!port.pending.empty()) schedule_eject(host, port.pending.next_time());
            return;
        }
        port.waiting = false;
        port.arrivals.pop();
        port.credits -= arrival.phits;
        const std::uint64_t transfer = port_cost(static_cast<std::uint32_t>(arrival.payload->get_data_length()));
        port.free_at = now + transfer;
        PacketInfo& info = packet_info(*arrival.payload);
        info.vc = 0;
        info.tail_after = sim_time(transfer);
        info.hops = static_cast<std::uint16_t>(info.hops + arrival.hops);
        ++statistics_.packets;
        statistics_.bytes += arrival.payload->get_data_length();
        statistics_.packet_hops += arrival.hops;
        if (eject_if_[host] == nullptr) {
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": packet for host " + std::to_string(host) +
                                          ", whose eject port is not bound")
                                             .c_str());
            arrival.payload->release();
            continue;
        }
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        eject_if_[host]->b_transport(*arrival.payload, delay);
        if (arrival.payload->get_response_status() != tlm::TLM_OK_RESPONSE)
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": the NIC of host " + std::to_string(host) +
                                          " refused a packet; receivers must accept credited packets")
                                             .c_str());
        arrival.payload->release();
    }
    if (!port.arrivals.empty()) schedule_eject(host, std::max(port.arrivals.top().due, port.free_at));
}

// ---------------------------------------------------------------- statistics

const FlowNetworkStatistics& FlowNetwork::counters() const {
    statistics_.solves = solver_.solves();
    return statistics_;
}

nlohmann::json FlowNetwork::statistics(const sc_core::sc_time& elapsed) const {
    const FlowNetworkStatistics& c = counters();
    const double elapsed_ticks = static_cast<double>(elapsed.value());
    const double ns_per_tick = sc_core::sc_get_time_resolution().to_seconds() * 1e9;
    nlohmann::json links = nlohmann::json::array();
    const bool torus = topology_.kind() == "torus";
    for (unsigned s = 0; s < topology_.switches(); ++s)
        for (unsigned p = 0; p < topology_.switch_at(s).ports; ++p) {
            if (topology_.peer(s, p).kind != PortPeer::Kind::Switch) continue;
            const ResourceLoad& load = loads_[cable_resource(s, p)];
            if (load.packets == 0) continue;
            links.push_back(
                {{"from", torus ? nlohmann::json(s) : nlohmann::json(topology_.switch_at(s).name)},
                 {"port", torus ? std::string(TorusTopology::port_name(p)) : "p" + std::to_string(p)},
                 {"packets", load.packets},
                 {"bytes", load.bytes},
                 {"busy_ns", static_cast<double>(load.busy) * ns_per_tick},
                 {"utilisation", elapsed_ticks > 0 ? static_cast<double>(load.busy) / elapsed_ticks : 0.0}});
        }
    return {{"model", "flow"},
            {"topology", topology_.description()},
            {"packets", c.packets},
            {"bytes", c.bytes},
            {"packet_hops", c.packet_hops},
            {"streams", c.streams},
            {"flow_starts", c.flow_starts},
            {"reweighs", c.reweighs},
            {"holds", c.holds},
            {"express", c.express},
            {"solves", c.solves},
            {"dropped_malformed", c.dropped_malformed},
            {"dropped_misaddressed", c.dropped_misaddressed},
            {"dropped_oversized", c.dropped_oversized},
            {"links", links}};
}

}  // namespace isvp
