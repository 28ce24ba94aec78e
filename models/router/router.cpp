#include "isvp/router.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "isvp/packet_channel.h"
#include "isvp/packet_format.h"
#include "isvp/sim_now.h"

namespace isvp {


namespace {

constexpr const char* kReportType = "isvp/router";
constexpr std::uint64_t kNever = ~0ull;

sc_core::sc_time ticks(std::uint64_t value) {
    return sim_time(value);
}

}  // namespace

Router::Router(sc_core::sc_module_name name, const RouterConfig& config, std::shared_ptr<const RoutingPolicy> routing,
               std::uint32_t node, const std::vector<std::string>& port_names, WakeupScheduler* scheduler)
    : sc_core::sc_module(name), node_(node), scheduler_(scheduler), config_(config), routing_(std::move(routing)) {
    config_.validate();
    if (!routing_) SC_REPORT_ERROR(kReportType, (std::string(this->name()) + ": no routing policy").c_str());
    route_ = routing_.get();
    vcs_ = config_.vcs;
    ports_ = routing_->ports(node_);
    cycle_ = sc_core::sc_time(config_.clock_period_ns(), sc_core::SC_NS).value();
    pipeline_ticks_ = (config_.pipeline_cycles - 1) * cycle_;
    phits_per_cycle_ = config_.phits_per_cycle;
    margin_phits_ = config_.flow_control_margin_phits;
    vc_buffer_phits_ = config_.vc_buffer_phits();
    if (!port_names.empty() && port_names.size() != ports_)
        SC_REPORT_ERROR(kReportType, (std::string(this->name()) + ": " + std::to_string(port_names.size()) +
                                      " port names for " + std::to_string(ports_) + " ports")
                                         .c_str());
    const unsigned requesters = ports_ * config_.vcs;
    if (config_.vcs > kMaxVcs || requesters > RequestSet::kCapacity)
        SC_REPORT_ERROR(kReportType, (std::string(this->name()) + ": " + std::to_string(ports_) + " ports x " +
                                      std::to_string(config_.vcs) + " VCs exceed the allocator's " +
                                      std::to_string(RequestSet::kCapacity) + " input VCs")
                                         .c_str());
    input_vcs_ = std::make_unique<InputVc[]>(requesters);
    inputs_ = std::make_unique<InputPort[]>(ports_);  // in(p) is bound to inputs_[p].packet_target
    output_vcs_ = std::make_unique<OutputVc[]>(requesters);
    outputs_ = std::make_unique<OutputPort[]>(ports_);
    for (unsigned p = 0; p < ports_; ++p) {
        const std::string label = port_names.empty() ? std::to_string(p) : port_names[p];
        port_names_.push_back(label);
        in_.push_back(std::make_unique<PacketInSocket>(("in_" + label).c_str()));
        credit_out_.push_back(std::make_unique<CreditOutSocket>(("credit_out_" + label).c_str()));
        out_.push_back(std::make_unique<PacketOutSocket>(("out_" + label).c_str()));
        credit_in_.push_back(std::make_unique<CreditInSocket>(("credit_in_" + label).c_str()));
        inputs_[p].packet_target.attach(*this, p);
        credit_targets_.emplace_back(*this, p);
        in_.back()->bind(inputs_[p].packet_target);
        credit_in_.back()->bind(credit_targets_.back());
    }
    requesters_ = static_cast<std::uint16_t>(requesters);
    if (requesters > 64) {
        wide_requests_ = std::make_unique<RequestSet[]>(ports_);
        for (unsigned p = 0; p < ports_; ++p) wide_requests_[p] = RequestSet(requesters);
    }
    for (unsigned p = 0; p < ports_; ++p) {
        outputs_[p].to_host = routing_->is_host_port(node_, p);
        outputs_[p].switch_arbiter = RoundRobinArbiter(requesters);
    }
    for (unsigned i = 0; i < requesters; ++i) output_vcs_[i].va_arbiter = RoundRobinArbiter(requesters);
    dirty_outputs_ = RequestSet(ports_);
    vc_candidates_.assign(config_.vcs, RequestSet(requesters));
    va_winners_ = RequestSet(requesters);
    oversized_.assign(requesters, 0);

    SC_HAS_PROCESS(Router);
    SC_METHOD(grant_initial_credits);
    if (scheduler_) {
        scheduler_id_ = scheduler_->attach(*this, &vcs_, kHotLines);
    } else {
        SC_METHOD(wake);
        sensitive << wake_event_;
        dont_initialize();
    }
}

void Router::start_of_simulation() {
    // Bindings are final now; keep the receivers' interfaces at hand.
    for (unsigned p = 0; p < ports_; ++p) {
        outputs_[p].out_if = out_[p]->size() != 0 ? (*out_[p]).operator->() : nullptr;
        InputPort& input = inputs_[p];
        input.credit_out_if = credit_out_[p]->size() != 0 ? (*credit_out_[p]).operator->() : nullptr;
        // Credits that only cross links go straight to the upstream router
        // (CreditRoute); anything else (a NIC, a partition boundary) by TLM.
        CreditRoute route;
        if (credit_route_of(input.credit_out_if, route) && route.delay <= std::numeric_limits<std::uint32_t>::max() &&
            route.port <= std::numeric_limits<std::uint16_t>::max()) {
            input.credit_sink = route.sink;
            input.credit_delay = static_cast<std::uint32_t>(route.delay);
            input.credit_port = static_cast<std::uint16_t>(route.port);
            auto* upstream = dynamic_cast<Router*>(route.sink);
            if (upstream != nullptr && upstream->vcs_ == vcs_ && route.port < upstream->ports_)
                input.credit_vcs = &upstream->output_vc(route.port, 0);
        }
    }
}

void Router::describe_wake(const AgendaItem& item, WakeupScheduler::Hint& hint) const {
    switch (item.kind) {
        case AgendaItem::HeadReady:
            hint_departure(hint, item.port * vcs_ + item.vc);
            break;
        case AgendaItem::OutputFree:
            if (const auto only = single_request(item.port))
                hint_departure(hint, *only);
            else
                hint.add(&outputs_[item.port]);
            break;
        case AgendaItem::InputFree:
            hint.add(&inputs_[item.port].free_at);
            for (unsigned vc = 0; vc < vcs_; ++vc) hint.add(&input_vcs_[item.port * vcs_ + vc]);
            break;
        case AgendaItem::CreditsDue:  // often asked from the router downstream: its records only, none read now
            hint.add(&output_vcs_[item.port * vcs_ + item.vc]);
            hint.add(&outputs_[item.port]);
            break;
    }
}

void Router::hint_departure(WakeupScheduler::Hint& hint, unsigned requester) const {
    const InputVc& input = input_vcs_[requester];
    hint.add(&input);
    if (input.empty()) return;
    const BufferedPacket& head = input.head;
    const OutputPort& output = outputs_[head.out_port];
    hint.add(&output);
    hint.add(&output_vcs_[head.out_port * vcs_ + head.out_vc]);  // its credits
    hint.add(&inputs_[requester / vcs_].free_at);                // the input's crossbar
    hint.add(head.payload);                                      // data pointer and length
    hint.add(PacketPool::info_address(*head.payload));           // memory manager and PacketInfo
    for (const void* line : receiver_lines(output)) hint.add(line);
}

std::array<const void*, 2> Router::receiver_lines(const OutputPort& output) {
    if (output.out_if == nullptr) return {};
    // Address arithmetic on the integer: a receiver other than a link (a
    // host port's) may be smaller than two lines.
    const auto first = reinterpret_cast<std::uintptr_t>(output.out_if);
    return {output.out_if, reinterpret_cast<const void*>(first + kCacheLineBytes)};
}

void Router::request_wake(std::uint64_t tick, const AgendaItem& item, std::uint64_t now) {
    next_wake_ = tick;
    if (scheduler_)
        scheduler_->request(scheduler_id_, tick, [&](WakeupScheduler::Hint& hint) { describe_wake(item, hint); });
    else
        wake_event_.notify(ticks(tick > now ? tick - now : 0));
}

Router::PacketInSocket& Router::in(unsigned port) {
    return *in_.at(port);
}
Router::CreditOutSocket& Router::credit_out(unsigned port) {
    return *credit_out_.at(port);
}
Router::PacketOutSocket& Router::out(unsigned port) {
    return *out_.at(port);
}
Router::CreditInSocket& Router::credit_in(unsigned port) {
    return *credit_in_.at(port);
}

RouterPortStatistics Router::port_statistics(unsigned port) const {
    if (port >= ports_)
        throw std::out_of_range(std::string(name()) + ": port " + std::to_string(port) + " of " +
                                std::to_string(ports_));
    const OutputPort& output = outputs_[port];
    const InputPort& input = inputs_[port];
    RouterPortStatistics statistics;
    statistics.packets_in = input.packets_in;
    statistics.phits_in = input.phits_in;
    statistics.packets_out = output.packets_out;
    statistics.phits_out = output.phits_out;
    statistics.stall_time = ticks(output.stall_ticks);
    statistics.busy_time = ticks(output.busy_ticks);
    return statistics;
}

std::size_t Router::buffered_packets() const {
    std::size_t count = 0;
    for (unsigned i = 0; i < ports_ * vcs_; ++i) count += input_vcs_[i].size();
    return count;
}

std::int64_t Router::output_credits(unsigned port, unsigned vc) const {
    if (port >= ports_ || vc >= vcs_)
        throw std::out_of_range(std::string(name()) + ": port " + std::to_string(port) + " VC " + std::to_string(vc) +
                                " of " + std::to_string(ports_) + " ports x " + std::to_string(vcs_) + " VCs");
    const OutputVc& output = output_vcs_[port * vcs_ + vc];
    return output.credits + static_cast<std::int64_t>(output.pending.total());
}

void Router::set_trace(TraceWriter* writer, std::uint32_t pid, const std::string& label) {
    trace_ = writer;
    trace_pid_ = pid;
    ps_per_tick_ = sc_core::sc_get_time_resolution().to_seconds() * 1e12;
    if (!trace_) return;
    trace_->name_process(pid, "switch " + label);
    for (unsigned p = 0; p < ports_; ++p) trace_->name_thread(pid, p, "out " + port_names_[p]);
}

void Router::trace_departure(unsigned port, const BufferedPacket& packet, std::uint64_t head_out,
                             std::uint64_t tail_out) {
    if (!trace_->accepting()) {
        trace_->count_dropped();
        return;
    }
    const auto* bytes = packet.payload->get_data_ptr();
    const auto view = NetworkPacketView::parse(bytes, packet.payload->get_data_length(), nullptr);
    std::string name = view ? std::string(to_string(view->network.opcode)) : std::string("packet");
    std::string args = "\"id\":" + std::to_string(packet_info(*packet.payload).trace_id) +
                       ",\"bytes\":" + std::to_string(packet.payload->get_data_length()) +
                       ",\"vc\":" + std::to_string(packet.out_vc);
    if (view) {
        name += " to " + std::to_string(view->network.destination);
        if (view->network.step != 0) name += " step " + std::to_string(view->network.step);
        args += ",\"destination\":" + std::to_string(view->network.destination) +
                ",\"context\":" + std::to_string(view->network.context_id) +
                ",\"offset\":" + std::to_string(view->offset);
    }
    const auto ps = [&](std::uint64_t tick) { return static_cast<std::uint64_t>(tick * ps_per_tick_ + 0.5); };
    trace_->complete(trace_pid_, port, "packet", name, ps(head_out), ps(tail_out) - ps(head_out), args);
}

std::string Router::port_label(unsigned port) const {
    return port_names_.at(port);
}

void Router::grant_initial_credits() {
    for (unsigned p = 0; p < ports_; ++p) {
        if (inputs_[p].credit_out_if == nullptr) continue;
        for (unsigned vc = 0; vc < config_.vcs; ++vc)
            credit_message_.send(inputs_[p].credit_out_if, static_cast<std::uint8_t>(vc), vc_buffer_phits_,
                                 sc_core::SC_ZERO_TIME);
    }
}

// ---------------------------------------------------------------- arrivals

void Router::on_packet(unsigned port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t now = sim_now().value();
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    PacketInfo& info = packet_info(payload);
    const unsigned vc = info.vc;
    const std::uint32_t length = payload.get_data_length();
    const std::uint32_t phits = phits_of(length);
    if (vc >= vcs_) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": packet " + std::to_string(info.trace_id) +
                                      " arrived on input " + port_label(port) + " on VC " + std::to_string(vc) +
                                      ", but the router has " + std::to_string(vcs_) + " VCs")
                                         .c_str());
        return;
    }
    InputVc& input = input_vcs_[port * vcs_ + vc];
    if (input.occupancy + phits > vc_buffer_phits_) {
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": packet " + std::to_string(info.trace_id) + " of " +
                         std::to_string(phits) + " phits overruns input " + port_label(port) + " VC " +
                         std::to_string(vc) + " (" + std::to_string(input.occupancy) + " of " +
                         std::to_string(vc_buffer_phits_) + " phits held): the sender ignored credit flow control")
                            .c_str());
        return;
    }
    const std::uint64_t head = now + delay.value();
    const std::uint64_t tail = head + info.tail_after.value();

    if (info.destination == PacketInfo::kUnrouted) {  // first router on the path: read the header
        std::string error;
        const auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &error);
        if (!view) {
            ++drops_.malformed;
            drop_on_arrival(port, vc, phits, ticks(tail - now), info.trace_id, "it does not parse: " + error);
            return;
        }
        info.destination = view->network.destination;
    }
    const auto route = route_->route(node_, port, vc, info.destination);
    if (!route || route->port >= ports_ || route->vc >= vcs_) {
        ++drops_.misaddressed;
        drop_on_arrival(port, vc, phits, ticks(tail - now), info.trace_id,
                        "destination " + std::to_string(info.destination) + " is not a node of the network");
        return;
    }

    payload.acquire();
    input.occupancy += phits;
    BufferedPacket packet;
    packet.payload = &payload;
    packet.ready = head + pipeline_ticks_;
    packet.tail = tail;
    packet.phits = phits;
    packet.out_port = static_cast<std::uint16_t>(route->port);
    packet.out_vc = static_cast<std::uint8_t>(route->vc);
    input.push_back(packet);
    if (input.size() == 1)
        schedule(packet.ready,
                 AgendaItem{AgendaItem::HeadReady, static_cast<std::uint16_t>(port), static_cast<std::uint8_t>(vc)},
                 now);
    InputPort& statistics = inputs_[port];
    ++statistics.packets_in;
    statistics.phits_in += phits;
}

void Router::drop_on_arrival(unsigned port, unsigned vc, std::uint32_t phits, const sc_core::sc_time& credit_delay,
                             std::uint64_t trace_id, const std::string& why) {
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped packet " + std::to_string(trace_id) +
                                    " from input " + port_label(port) + " VC " + std::to_string(vc) + ": " + why)
                                       .c_str());
    if (inputs_[port].credit_out_if != nullptr)
        credit_message_.send(inputs_[port].credit_out_if, static_cast<std::uint8_t>(vc), phits, credit_delay);
}

void Router::on_credit(unsigned port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr) {
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": credit return on output " + port_label(port) +
                                      " without a CreditReturn extension")
                                         .c_str());
        return;
    }
    const std::uint64_t now = sim_now().value();
    credits_arrive(port, credit->vc, credit->phits, now + delay.value(), now);
}

void Router::credits_arrive(unsigned port, std::uint8_t vc, std::uint32_t phits, std::uint64_t arrival,
                            std::uint64_t now) {
    if (vc >= vcs_) {
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": credit return on output " + port_label(port) + " for VC " +
                         std::to_string(vc) + ", but the router has " + std::to_string(vcs_) + " VCs")
                            .c_str());
        return;
    }
    credits_to(output_vc(port, vc), port, vc, phits, arrival, now);
}

void Router::credits_to(OutputVc& output, unsigned port, std::uint8_t vc, std::uint32_t phits, std::uint64_t arrival,
                        std::uint64_t now) {
    output.pending.push(arrival, phits);
    if (output.waiting && arrival < output.wake_at) {
        output.wake_at = arrival;
        schedule(arrival, AgendaItem{AgendaItem::CreditsDue, static_cast<std::uint16_t>(port), vc}, now);
    }
}

// ---------------------------------------------------------------- agenda

void Router::schedule(std::uint64_t tick, const AgendaItem& item, std::uint64_t now) {
    agenda_.push(tick, item);
    if (tick < next_wake_) request_wake(tick, item, now);
}

void Router::wake() {
    const std::uint64_t now = sim_now().value();
    next_wake_ = kNever;
    while (!agenda_.empty() && agenda_.next_time() <= now) handle(agenda_.pop(), now);
    allocate(now);
    if (!agenda_.empty() && agenda_.next_time() < next_wake_)
        request_wake(agenda_.next_time(), agenda_.next_item(), now);
}

void Router::handle(const AgendaItem& item, std::uint64_t now) {
    switch (item.kind) {
        case AgendaItem::HeadReady: {
            const unsigned requester = item.port * vcs_ + item.vc;
            const InputVc& input = input_vcs_[requester];
            if (input.empty()) break;
            const unsigned out_port = input.front().out_port;
            add_request(out_port, requester);
            dirty_outputs_.set(out_port);
            break;
        }
        case AgendaItem::OutputFree:
            outputs_[item.port].wake_pending = false;
            dirty_outputs_.set(item.port);
            break;
        case AgendaItem::InputFree:
            inputs_[item.port].wake_pending = false;
            for (unsigned vc = 0; vc < vcs_; ++vc) {
                const InputVc& input = input_vcs_[item.port * vcs_ + vc];
                if (!input.empty()) dirty_outputs_.set(input.front().out_port);
            }
            break;
        case AgendaItem::CreditsDue: {
            OutputVc& output = output_vc(item.port, item.vc);
            output.waiting = false;
            if (output.wake_at <= now) output.wake_at = kNever;
            dirty_outputs_.set(item.port);
            break;
        }
    }
}

// ---------------------------------------------------------------- allocation

void Router::allocate(std::uint64_t now) {
    while (auto port = dirty_outputs_.first_from(allocation_start_)) {
        dirty_outputs_.reset(*port);
        allocate_output(*port, now);
    }
    allocation_start_ = allocation_start_ + 1 < ports_ ? allocation_start_ + 1 : 0;
}

void Router::fold_credits(OutputVc& vc, std::uint64_t now) {
    vc.credits += static_cast<std::int64_t>(vc.pending.pop_due(now));
    vc.capacity =
        std::max<std::uint32_t>(vc.capacity, static_cast<std::uint32_t>(std::max<std::int64_t>(vc.credits, 0)));
}

void Router::wait_for_credits(unsigned port, unsigned vc, std::uint64_t now) {
    OutputVc& output = output_vc(port, vc);
    output.waiting = true;
    if (!output.pending.empty() && output.pending.next_time() < output.wake_at) {
        output.wake_at = output.pending.next_time();
        schedule(output.wake_at,
                 AgendaItem{AgendaItem::CreditsDue, static_cast<std::uint16_t>(port), static_cast<std::uint8_t>(vc)},
                 now);
    }
}

void Router::allocate_output(unsigned port, std::uint64_t now) {
    OutputPort& output = outputs_[port];
    if (!requested(port)) return;
    if (output.free_at > now) {
        if (!output.wake_pending) {
            output.wake_pending = true;
            schedule(output.free_at, AgendaItem{AgendaItem::OutputFree, static_cast<std::uint16_t>(port), 0}, now);
        }
        return;
    }
    const unsigned vcs = vcs_;
    const std::uint32_t margin = margin_phits_;
    // Eligibility of one requester: input free and credits for packet + margin.
    auto eligible = [&](unsigned requester) {
        const unsigned in_port = requester / vcs;
        InputPort& input = inputs_[in_port];
        if (input.free_at > now) {
            if (!input.wake_pending) {
                input.wake_pending = true;
                schedule(input.free_at, AgendaItem{AgendaItem::InputFree, static_cast<std::uint16_t>(in_port), 0}, now);
            }
            return false;
        }
        const BufferedPacket& head = input_vcs_[requester].front();
        OutputVc& downstream = output_vc(port, head.out_vc);
        fold_credits(downstream, now);
        if (downstream.credits >= static_cast<std::int64_t>(head.phits + margin)) return true;
        if (downstream.capacity > 0 && head.phits + margin > downstream.capacity)
            oversized_[oversized_count_++] = requester;  // each requester once per call
        else
            wait_for_credits(port, head.out_vc, now);
        return false;
    };
    oversized_count_ = 0;

    // One requester (the common case): VA and SA have nothing to arbitrate;
    // the grant moves the round-robin pointers exactly as arbitration would.
    if (const auto only = single_request(port)) {
        if (eligible(*only)) {
            output.switch_arbiter.grant(*only);
            output_vc(port, input_vcs_[*only].front().out_vc).va_arbiter.grant(*only);
            depart(port, *only, now);
        } else if (oversized_count_ != 0) {
            drop_oversized(*only, now, output_vc(port, input_vcs_[*only].front().out_vc).capacity);
        }
        return;
    }

    for (auto& candidates : vc_candidates_) candidates.clear();
    bool any_eligible = false;
    for_each_request(port, [&](unsigned requester) {
        if (!eligible(requester)) return;
        vc_candidates_[input_vcs_[requester].front().out_vc].set(requester);
        any_eligible = true;
    });
    for (unsigned i = 0; i < oversized_count_; ++i) {
        const unsigned requester = oversized_[i];
        drop_oversized(requester, now, output_vc(port, input_vcs_[requester].front().out_vc).capacity);
    }
    if (!any_eligible) return;

    // VA: one winner per output VC; SA: one winner for the port.
    va_winners_.clear();
    for (unsigned vc = 0; vc < vcs; ++vc)
        if (auto winner = output_vc(port, vc).va_arbiter.pick(vc_candidates_[vc])) va_winners_.set(*winner);
    const auto granted = output.switch_arbiter.pick(va_winners_);
    output.switch_arbiter.grant(*granted);
    output_vc(port, input_vcs_[*granted].front().out_vc).va_arbiter.grant(*granted);
    depart(port, *granted, now);
}

void Router::depart(unsigned port, unsigned requester, std::uint64_t now) {
    const unsigned in_port = requester / vcs_;
    const unsigned in_vc = requester % vcs_;
    InputVc& input = input_vcs_[requester];
    const BufferedPacket packet = input.front();
    OutputPort& output = outputs_[port];
    // What the hand-over below reads first: the link's record (its
    // vtable pointer and timing) and the packet's PacketInfo, fetched
    // together while the counters are updated rather than one after the
    // other inside the call.
    for (const void* line : receiver_lines(output))
        if (line != nullptr) __builtin_prefetch(line);
    PacketPool::prefetch_info(*packet.payload);
    // The credit return below writes the upstream router's output VC, a
    // line of another router: fetched while the packet is handed over.
    if (const OutputVc* upstream = inputs_[in_port].credit_vcs) __builtin_prefetch(upstream + in_vc, 1);
    input.pop_front();
    input.occupancy -= packet.phits;
    withdraw_request(port, requester);

    const std::uint64_t head_out = now + cycle_;  // switch traversal
    const std::uint64_t transfer = (packet.phits + phits_per_cycle_ - 1) / phits_per_cycle_ * cycle_;
    const std::uint64_t tail_out = std::max(head_out + transfer, packet.tail + cycle_);
    output.free_at = tail_out - cycle_;
    inputs_[in_port].free_at = tail_out - cycle_;
    output_vc(port, packet.out_vc).credits -= packet.phits;

    PacketInfo& info = packet_info(*packet.payload);
    info.vc = packet.out_vc;
    info.tail_after = ticks(tail_out - head_out);
    if (!output.to_host) ++info.hops;
    ++output.packets_out;
    output.phits_out += packet.phits;
    output.stall_ticks += now - packet.ready;
    output.busy_ticks += tail_out - head_out;

    if (trace_) trace_departure(port, packet, head_out, tail_out);
    sc_core::sc_time delay = ticks(head_out - now);
    output.out_if->b_transport(*packet.payload, delay);
    if (packet.payload->get_response_status() != tlm::TLM_OK_RESPONSE)
        SC_REPORT_ERROR(kReportType,
                        (std::string(name()) + ": the receiver on output " + port_label(port) + " refused packet " +
                         std::to_string(info.trace_id) + "; receivers must accept credited packets")
                            .c_str());
    packet.payload->release();
    send_credits(in_port, in_vc, packet.phits, tail_out, now);
    advance_input(requester, now);
    if (requested(port) && !output.wake_pending) {
        output.wake_pending = true;
        schedule(output.free_at, AgendaItem{AgendaItem::OutputFree, static_cast<std::uint16_t>(port), 0}, now);
    }
}

void Router::drop_oversized(unsigned requester, std::uint64_t now, std::uint32_t downstream_phits) {
    const unsigned in_port = requester / vcs_;
    const unsigned in_vc = requester % vcs_;
    InputVc& input = input_vcs_[requester];
    const BufferedPacket packet = input.front();
    input.pop_front();
    input.occupancy -= packet.phits;
    withdraw_request(packet.out_port, requester);
    ++drops_.oversized;
    const std::uint64_t trace_id = packet_info(*packet.payload).trace_id;
    SC_REPORT_WARNING(
        kReportType,
        (std::string(name()) + ": dropped packet " + std::to_string(trace_id) + " from input " + port_label(in_port) +
         " VC " + std::to_string(in_vc) + ": its " + std::to_string(packet.phits) + " phits plus the " +
         std::to_string(config_.flow_control_margin_phits) + "-phit flow-control margin can never fit the " +
         std::to_string(downstream_phits) + "-phit VC buffer behind output " + port_label(packet.out_port))
            .c_str());
    packet.payload->release();
    send_credits(in_port, in_vc, packet.phits, std::max(now, packet.tail), now);
    advance_input(requester, now);
}

void Router::send_credits(unsigned port, unsigned vc, std::uint32_t phits, std::uint64_t at_tick, std::uint64_t now) {
    const InputPort& input = inputs_[port];
    if (input.credit_vcs != nullptr) {  // an upstream router: straight into its output VC's record
        static_cast<Router*>(input.credit_sink)
            ->credits_to(input.credit_vcs[vc], input.credit_port, static_cast<std::uint8_t>(vc), phits,
                         at_tick + input.credit_delay, now);
        return;
    }
    if (input.credit_sink != nullptr) {
        input.credit_sink->credits_arrive(input.credit_port, static_cast<std::uint8_t>(vc), phits,
                                          at_tick + input.credit_delay, now);
        return;
    }
    if (input.credit_out_if == nullptr) return;
    credit_message_.send(input.credit_out_if, static_cast<std::uint8_t>(vc), phits, ticks(at_tick - now));
}

void Router::advance_input(unsigned requester, std::uint64_t now) {
    const InputVc& input = input_vcs_[requester];
    if (input.empty()) return;
    const BufferedPacket& next = input.front();
    if (next.ready <= now) {
        add_request(next.out_port, requester);
        dirty_outputs_.set(next.out_port);
    } else {
        schedule(next.ready,
                 AgendaItem{AgendaItem::HeadReady, static_cast<std::uint16_t>(requester / vcs_),
                            static_cast<std::uint8_t>(requester % vcs_)},
                 now);
    }
}

}  // namespace isvp
