#include "isvp/collective_engine.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "isvp/collective_request.h"
#include "isvp/parameter_table.h"
#include "isvp/register_map.h"
#include "isvp/sharp_resources.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/collective";
static_assert(regmap::kContextCount <= 32, "CollectiveEngine::combining_contexts_ has a bit per context");
constexpr std::uint32_t kAlgorithmsInSwitch = 0x7;  // binomial, recursive doubling, recursive halving
constexpr std::size_t kMaxAgreementsHeld = 64;      // per (context, sender); the protocol needs <= 2 collectives' worth

}  // namespace

// ---------------------------------------------------------------------------
// Config

namespace {

/// The collective.* parameters, each once (isvp/parameter_table.h).
constexpr auto kConfigTable = [](auto& self, auto&& parameter) {
    parameter(param::Real{"collective.clock_mhz", "MHz", 1.0, 5000.0, "collective engine / CGR clock"}, self.clock_mhz);
    parameter(param::Integer{"collective.packet_payload_bytes", "bytes", 16, 16384,
                             "payload of each packet the engine generates", true},
              self.packet_payload_bytes);
    parameter(param::Integer{"collective.phits_per_cycle", "phits", 1, 16, "output serialisation width per cycle"},
              self.phits_per_cycle);
    parameter(param::Integer{"collective.host_buffer_phits", "phits", 1, 1 << 20,
                             "host_in buffer: credits granted to the QDMA"},
              self.host_buffer_phits);
    parameter(param::Integer{"collective.net_buffer_phits", "phits", 1, 1 << 20,
                             "net_in buffer: credits granted to the router"},
              self.net_buffer_phits);
    parameter(param::Integer{"collective.early_buffer_bytes", "bytes", 0, 1ll << 32,
                             "memory for receive windows: each CT row reserves (peers + 1) x window_packets x "
                             "packet_payload_bytes at LOAD, or is refused"},
              self.early_buffer_bytes);
    parameter(param::Integer{"collective.window_packets", "packets", 1, 4096,
                             "step packets a sender may have unconsumed per (context, peer)"},
              self.window_packets);
    parameter(param::Integer{"collective.result_batch_packets", "packets", 1, 65536,
                             "final result chunks handed to the host DMA together (one completion notification)"},
              self.result_batch_packets);
    parameter(param::Real{"collective.credit_delay_ns", "ns", 0.0, 1e6,
                          "longest a consumed packet's window credit waits to be returned with others"},
              self.credit_delay_ns);
    parameter(param::Integer{"collective.cgr_aglus", "AgLUs", 1, 64,
                             "vectorised AgLUs in the CGR unit of a collective (its steps share them; a chunk uses "
                             "up to phits_per_cycle)"},
              self.cgr_aglus);
    parameter(param::Integer{"collective.max_buffer_bytes", "bytes", 0, 1ll << 32,
                             "largest collective buffer; larger requests complete with error 4"},
              self.max_buffer_bytes);
    parameter(param::Integer{"collective.cgr_units", "units", 1, 255,
                             "CGR units: collectives that combine at once (SA, ACCEL_CAPABILITIES); more wait, FIFO"},
              self.cgr_units);
    parameter(param::Integer{"collective.radix", "ports", 1, 255, "switch radix (ACCEL_CAPABILITIES)"}, self.radix);
    parameter(param::Choice<std::string>{"collective.placement",
                                         {{"nic", "nic"}, {"switch", "switch"}},
                                         "where collectives combine: nic = the NIC engines' hypercube schedules; "
                                         "switch = every collective along the aggregation tree in the switches' "
                                         "engines (fat trees and topology files)"},
              self.placement);
    parameter(param::Integer{"collective.switch_cgr_units", "units", 0, 255,
                             "CGR units of a switch-resident engine (placement=switch); 0 = 8 for radix <= 16, "
                             "else 4"},
              self.switch_cgr_units);
    parameter(param::Integer{"collective.switch_max_trees", "trees", 1, 4096,
                             "aggregation trees (groups) one switch-resident engine holds rows for at once "
                             "(placement=switch, mode=offload); a group that finds a switch full runs on the NIC "
                             "engines; freed communicators give theirs back"},
              self.switch_max_trees);
    parameter(
        param::Choice<std::string>{"collective.mode",
                                   {{"offload", "offload"}, {"sharp", "sharp"}},
                                   "offload = every collective the switch runs (placement decides where); "
                                   "sharp = SHArP-style aggregation nodes in the fat tree's switches: "
                                   "Allreduce/Reduce/Barrier along reserved aggregation trees, the others as nic"},
        self.mode);
    parameter(param::Integer{"collective.sharp_max_trees_per_an", "trees", 1, 64,
                             "aggregation trees (groups) one SHArP aggregation node serves at once"},
              self.sharp_max_trees_per_an);
    parameter(param::Integer{"collective.sharp_osts_per_tree", "operations", 1, 64,
                             "outstanding operation slots a SHArP group reserves: a buffer on each AN of its tree"},
              self.sharp_osts_per_tree);
    parameter(param::Integer{"collective.sharp_buffers_per_an", "buffers", 1, 4096,
                             "operation buffers of one SHArP aggregation node; a group that finds too few waits "
                             "(sharp_queue_us), then falls back"},
              self.sharp_buffers_per_an);
    parameter(param::Real{"collective.sharp_timeout_us", "us", 0.0, 1e9,
                          "an AN ends an operation no packet of which came for this long with an error to every "
                          "member (0: never)"},
              self.sharp_timeout_us);
    parameter(param::Real{"collective.sharp_queue_us", "us", 0.0, 1e9,
                          "a group the SHArP aggregation manager cannot serve waits this long for a freed "
                          "communicator's resources before it falls back (0: falls back at once)"},
              self.sharp_queue_us);
    parameter(param::Integer{"collective.sharp_fault_switch", "switch", -1, 65535,
                             "test: the AN of this switch fails at sharp_fault_at_us (-1: none)"},
              self.sharp_fault_switch);
    parameter(
        param::Real{"collective.sharp_fault_at_us", "us", 0.0, 1e9, "test: when the AN of sharp_fault_switch fails"},
        self.sharp_fault_at_us);
    parameter(param::Integer{"collective.cgra_pes", "PEs", 1, cgra::kMaxInstructions,
                             "SmartFuse CGRA: processing elements (a program has at most one instruction per PE)"},
              self.cgra_pes);
    parameter(param::Integer{"collective.cgra_lanes", "lanes", 1, 64,
                             "SmartFuse CGRA: SIMD lanes per PE (the most a program may ask)"},
              self.cgra_lanes);
    parameter(param::Integer{"collective.cgra_cycles_per_vector", "cycles", 1, 1024,
                             "SmartFuse CGRA: cycles a PE takes per vector of lanes elements"},
              self.cgra_cycles_per_vector);
    parameter(param::Integer{"collective.cgra_pe_latency_cycles", "cycles", 0, 1024,
                             "SmartFuse CGRA: pipeline latency of one PE (paid once per instruction)"},
              self.cgra_pe_latency_cycles);
};

}  // namespace

void CollectiveConfig::declare(Parameters& p) {
    param::declare_table<CollectiveConfig>(p, kConfigTable);
}

CollectiveConfig CollectiveConfig::from(const Parameters& p) {
    const CollectiveConfig c = param::read_table<CollectiveConfig>(p, kConfigTable);
    c.validate();
    return c;
}

void CollectiveConfig::validate() const {
    param::check_table(*this, kConfigTable);
    // Between parameters: input buffers hold a whole packet, the early
    // buffer at least one receive window.
    const std::uint32_t packet_phits =
        phits_of(packet_payload_bytes + static_cast<std::uint32_t>(kNetworkPacketOverhead));
    // (The packet's size may be what changed: say where it comes from.)
    const std::string one_packet =
        "an integer in [" + std::to_string(packet_phits) +
        " (one packet of collective.packet_payload_bytes=" + std::to_string(packet_payload_bytes) + "), 1048576] phits";
    if (host_buffer_phits < packet_phits)
        refuse_parameter("collective.host_buffer_phits", one_packet, host_buffer_phits);
    if (net_buffer_phits < packet_phits) refuse_parameter("collective.net_buffer_phits", one_packet, net_buffer_phits);
    if (early_buffer_bytes < row_reservation(0))
        refuse_parameter("collective.early_buffer_bytes",
                         "at least one receive window (window_packets x packet_payload_bytes = " +
                             std::to_string(row_reservation(0)) + " bytes)",
                         static_cast<double>(early_buffer_bytes));
}

// ---------------------------------------------------------------------------
// Construction

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes,
                                   const AgluConfig& aglu, const CollectiveConfig& config)
    : sc_core::sc_module(name),
      host_in("host_in"),
      host_in_credit("host_in_credit"),
      host_out("host_out"),
      host_out_credit("host_out_credit"),
      net_out("net_out"),
      net_out_credit("net_out_credit"),
      net_in("net_in"),
      net_in_credit("net_in_credit"),
      csr("csr"),
      kernel_in("kernel_in"),
      kernel_in_credit("kernel_in_credit"),
      kernel_out("kernel_out"),
      kernel_out_credit("kernel_out_credit"),
      node_(node),
      config_((config.validate(), config)),
      cgr_(config_.cgr_units, regmap::kContextCount),
      table_(nodes, config_.early_buffer_bytes,
             static_cast<std::uint64_t>(config_.window_packets) * config_.packet_payload_bytes,
             AcceleratorCapabilities{config_.cgr_units, config_.radix, kAlgorithmsInSwitch, config_.max_buffer_bytes,
                                     config_.sharp()}),
      framing_(node, config_.packet_payload_bytes),
      net_port_(std::string(this->name()), net_out, sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS),
                config_.phits_per_cycle, wake_,
                [this](const CreditedOutPort::Outgoing& o, const sc_core::sc_time& t) { packet_left(o, t); }),
      host_port_(std::string(this->name()), host_out, sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS),
                 config_.phits_per_cycle, wake_,
                 [this](const CreditedOutPort::Outgoing& o, const sc_core::sc_time& t) { packet_left(o, t); }),
      kernel_port_(std::string(this->name()), kernel_out, sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS),
                   config_.phits_per_cycle, wake_,
                   [this](const CreditedOutPort::Outgoing& o, const sc_core::sc_time& t) { packet_left(o, t); }) {
    aglu_ = make_aglu_engine(aglu);
    buffer_account_.peak = &statistics_.peak_buffer_bytes;
    cycle_ = sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS);
    credit_delay_ = sc_core::sc_time(config_.credit_delay_ns, sc_core::SC_NS);
    credit_batch_ = std::max<std::uint32_t>(1, config_.window_packets / 4);

    host_port_.set_make([this] {
        const LazyResult r = lazy_results_.front();
        lazy_results_.pop_front();
        const PacketFrame& f = r.frame;
        // Timing only (no source): the QDMA writes a result's bytes nowhere,
        // so the packet carries its headers only (PacketInfo::header_only).
        const std::uint32_t wire = NetworkFraming::wire_bytes(f.payload_bytes);
        tlm::tlm_generic_payload* packet = r.source ? pool_.allocate(wire) : pool_.allocate_header_only(wire);
        if (!r.source) ++statistics_.header_only_packets;
        framing_.write_headers(f, packet->get_data_ptr());
        packet_info(*packet).destination = f.destination;  // no router needs to parse it
        if (r.source) {  // the bytes leave: their pages go once nothing else reads them
            r.source->buffer->gather(r.source->result, f.offset, f.offset + f.payload_bytes,
                                     packet->get_data_ptr() + kNetworkPacketOverhead);
            r.source->buffer->read_done(r.source->result, f.offset, f.offset + f.payload_bytes);
        }
        return packet;
    });
    host_in.register_b_transport(this, &CollectiveEngine::on_host_in);
    net_in.register_b_transport(this, &CollectiveEngine::on_net_in);
    net_out_credit.register_b_transport(this, &CollectiveEngine::on_credit_net);
    host_out_credit.register_b_transport(this, &CollectiveEngine::on_credit_host);
    csr.register_b_transport(this, &CollectiveEngine::on_csr);
    kernel_in.register_b_transport(this, &CollectiveEngine::on_kernel_in);
    kernel_out_credit.register_b_transport(this, &CollectiveEngine::on_credit_kernel);

    SC_HAS_PROCESS(CollectiveEngine);
    SC_METHOD(grant_initial_credits);
    // One process for all of the engine's own work (see run()).
    SC_METHOD(run);
    sensitive << wake_.event() << cgr_free_event_ << cgra_event_ << ingress_event_;
    dont_initialize();
}

// Every piece of the engine's work due now, in one fixed order: chunks
// leaving the AgLUs (contexts ascending), collectives waiting for a CGR
// unit (FIFO), packets whose tail has arrived (by tail time, network before
// host, then arrival), the credit flush, then the three outputs. With one
// process per kind of work, SystemC's order of same-time processes (which
// depends on the kernel's whole event-queue history) decided which came
// first, and with it the simulated times of offloaded multi-packet
// collectives (docs/PARTITIONS.md, "Determinism"); now the engine's inputs
// (router and QDMA calls, each in its sender's order) decide alone.
//
// The outputs, the tails and the AgLUs share one timed wake-up (wake_:
// EarliestWake); each asks again below for what it still waits for.
void CollectiveEngine::run_now() {
    wake_.woken();
    on_combined();
    on_cgra_done();
    if (ingress_contexts_) on_ingress_ready();
    on_cgr_free();
    on_incoming();
    on_cgr_free();
    if (flush_pending_ && sim_now() >= flush_at_) flush_credits();
    net_port_.drain();
    host_port_.drain();
    kernel_port_.drain();
    net_port_.end_of_run();
    host_port_.end_of_run();
    kernel_port_.end_of_run();
    if (flush_pending_) wake_.at(flush_at_ - sim_now());  // the flush waits on with the rest
    wake_.rearm();
}

// On the fabric's scheduler (use_scheduler) the engine runs from two
// processes: the scheduler's (its timed wake-ups, the credit flush among
// them) and its own method (the CGR, CGRA and ingress events). A method
// runs once per delta cycle however many of its events fire, and so does
// run(): the second of the two in one delta does nothing, and if that is
// the scheduler's, the wake-up asked for meanwhile (which the scheduler,
// still holding its request, ignored) is asked for again.
//
// SystemC counts delta cycles over the whole run (sc_delta_count() grows
// after every evaluation phase in which a process ran), so the count alone
// names one.
bool CollectiveEngine::ran_in_this_delta() {
    const std::uint64_t delta = sc_core::sc_delta_count();
    if (delta == last_run_delta_) return true;
    last_run_delta_ = delta;
    return false;
}

void CollectiveEngine::wake() {
    if (ran_in_this_delta()) return wake_.repost();
    run_now();
}

void CollectiveEngine::run() {
    if (!ran_in_this_delta()) run_now();
}

// Packets still queued at shutdown are not released: they may come from
// other nodes' packet pools, destroyed before this engine; every pool frees
// its own payloads.
CollectiveEngine::~CollectiveEngine() = default;

void CollectiveEngine::grant_initial_credits() {
    host_credit_message_.send(host_in_credit, 0, config_.host_buffer_phits, sc_core::SC_ZERO_TIME);
    net_credit_message_.send(net_in_credit, 0, config_.net_buffer_phits, sc_core::SC_ZERO_TIME);
    if (kernel_in_credit.size() > 0)
        kernel_credit_message_.send(kernel_in_credit, 0, config_.host_buffer_phits, sc_core::SC_ZERO_TIME);
}

void CollectiveEngine::drop(const std::string& why) {
    ++statistics_.dropped;
    SC_REPORT_WARNING(kReportType,
                      (std::string(name()) + ": dropped a collective packet: " + why + " (ACCEL_DROPPED)").c_str());
}

void CollectiveEngine::detach_results(Active& a) {
    if (!a.result_source) return;
    if (a.result_source.use_count() > 1) {  // packets still queued: they keep the buffer
        a.result_source->kept = std::move(a.buffer);
        a.result_source->buffer = &a.result_source->kept;
    }
    a.result_source.reset();
}

std::vector<std::uint8_t> CollectiveEngine::take_buffer() {
    if (spare_buffers_.empty()) return {};
    std::vector<std::uint8_t> b = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
    return b;
}

void CollectiveEngine::note_buffer_bytes() {
    std::uint64_t others = 0;  // the collective buffers' pages are in buffer_account_
    for (const std::unique_ptr<Context>& c : contexts_) {
        if (!c) continue;
        others += c->assembly.bytes.capacity();
        for (const Request& r : c->waiting) others += r.bytes.capacity();
    }
    for (const std::vector<std::uint8_t>& b : spare_buffers_) others += b.capacity();
    buffer_account_.others = others;
    buffer_account_.note();
}

void CollectiveEngine::return_credits(CreditTo to, std::uint32_t phits, const sc_core::sc_time& delay) {
    if (to == CreditTo::HostIn) host_credit_message_.send(host_in_credit, 0, phits, delay);
    if (to == CreditTo::NetIn) net_credit_message_.send(net_in_credit, 0, phits, delay);
    if (to == CreditTo::KernelIn) kernel_credit_message_.send(kernel_in_credit, 0, phits, delay);
}

// ---------------------------------------------------------------------------
// Inputs: point-to-point packets pass straight through; every collective
// packet is taken in when its tail has arrived, and its buffer space is
// free again then (the engine never holds back net_in credits).

void CollectiveEngine::on_host_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    on_input(payload, delay, true);
}

void CollectiveEngine::on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    on_input(payload, delay, false);
}

void CollectiveEngine::on_input(tlm::tlm_generic_payload& payload, const sc_core::sc_time& delay, bool from_host) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const CreditTo from = from_host ? CreditTo::HostIn : CreditTo::NetIn;
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    const std::uint32_t phits = phits_of(length);
    const sc_core::sc_time tail = delay + packet_info(payload).tail_after;
    std::string why;
    auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &why);
    if (!view) {
        drop(std::string("malformed packet from the ") + (from_host ? "host" : "network") + ": " + why);
        return_credits(from, phits, tail);
        return;
    }
    if (view->network.opcode == Opcode::Stream) {  // SMI: network -> kernel unit (the host cannot send them)
        if (from_host || kernel_out.size() == 0) {
            drop(from_host ? "stream packet from the host (kernels' packets only)"
                           : "stream packet for a node without a kernel unit");
            return_credits(from, phits, tail);
            return;
        }
        payload.acquire();
        kernel_port_.enqueue(
            {&payload, static_cast<std::uint8_t>(from), -1, phits, framing_.vc_for(TrafficClass::of(view->network))},
            false, delay);
        return;
    }
    if (view->network.opcode == Opcode::Send) {  // point-to-point: straight through
        CreditedOutPort& to = from_host ? net_port_ : host_port_;
        payload.acquire();
        packet_info(payload).destination = view->network.destination;  // parsed here already
        to.enqueue(
            {&payload, static_cast<std::uint8_t>(from), -1, phits, framing_.vc_for(TrafficClass::of(view->network))},
            false, delay);
        ++(from_host ? statistics_.passed_to_network : statistics_.passed_to_host);
        return;
    }
    return_credits(from, phits, tail);
    payload.acquire();
    incoming_.push(Incoming{sim_now() + tail, incoming_order_++, from_host, &payload, *view});
    wake_.at(tail);  // an earlier pending wake-up stays
}

// The kernel unit's stream packets join the host's Send packets toward the
// router; its buffer's credits go back when they leave.
void CollectiveEngine::on_kernel_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto phits = phits_of(static_cast<std::uint32_t>(payload.get_data_length()));
    payload.acquire();
    // On the VC the kernel unit's framing chose (the same rule as ours).
    net_port_.enqueue({&payload, static_cast<std::uint8_t>(CreditTo::KernelIn), -1, phits, packet_info(payload).vc},
                      false, delay);
}

void CollectiveEngine::on_incoming() {
    const sc_core::sc_time now = sim_now();
    while (!incoming_.empty() && incoming_.top().at <= now) {
        const Incoming in = incoming_.top();
        incoming_.pop();
        if (in.from_host)
            host_packet(in.view);
        else
            network_packet(in.view, *in.packet);
        in.packet->release();
    }
    if (!incoming_.empty()) wake_.at(incoming_.top().at - now);
}

void CollectiveEngine::host_packet(const NetworkPacketView& v) {
    const unsigned context = v.network.context_id;
    Context& c = context_at(context);
    Active& a = c.active;
    const std::uint32_t total = v.processor.message_bytes;
    // The running collective's own request, still streaming in. While an
    // ingress kernel's output feeds it instead, the host has its whole
    // request in already: a host packet is the next request (this member's
    // block can be final before its kernel has fed the others' blocks), which
    // queues behind the running collective below.
    if (a.running && a.host_received < a.host_message && !c.feed) {
        if (v.offset != a.host_received || total != a.host_message) {
            drop("request packet at offset " + std::to_string(v.offset) + " while the request streaming on context " +
                 std::to_string(context) + " expects offset " + std::to_string(a.host_received));
            return;
        }
        a.take_contribution(v.offset, v.payload, v.payload_bytes);
        a.host_received += v.payload_bytes;
        progress(context);
        return;
    }
    if (c.discard_host > 0) {  // the rest of a request that already completed with an error
        c.discard_host -= std::min(c.discard_host, v.payload_bytes);
        return;
    }
    if (c.streaming) {  // a request waiting for its envelope [+ counts]
        if (v.offset != c.prefix.size() || total != c.head_message) {
            drop("request packet inconsistent with the request streaming on context " + std::to_string(context));
            return;
        }
        c.prefix.insert(c.prefix.end(), v.payload, v.payload + v.payload_bytes);
        start_streamed(context);
        progress(context);
        return;
    }
    Request& r = c.assembly;
    if (!r.open) {
        if (v.offset != 0) {
            drop("request packet at offset " + std::to_string(v.offset) + " without its first packet");
            return;
        }
        // The context is free: stream it (an ingress kernel needs the whole request first).
        if (!a.running && c.waiting.empty() && !ingress_armed(context, v.payload, v.payload_bytes)) {
            c.streaming = true;
            c.head = v.network;
            c.head_at = sim_now();
            c.head_message = total;
            c.prefix.assign(v.payload, v.payload + v.payload_bytes);
            start_streamed(context);
            progress(context);
            return;
        }
        r.open = true;
        r.network = v.network;
        r.first_at = sim_now();
        r.received = 0;
        if (r.bytes.capacity() == 0) r.bytes = take_buffer();
        r.bytes.assign(total, 0);
        note_buffer_bytes();
    }
    if (total != r.bytes.size() || v.network.opcode != r.network.opcode ||
        static_cast<std::uint64_t>(v.offset) + v.payload_bytes > total) {
        drop("request packet inconsistent with its message");
        return;
    }
    if (v.payload_bytes) std::memcpy(r.bytes.data() + v.offset, v.payload, v.payload_bytes);
    r.received += v.payload_bytes;
    if (r.received >= total) {
        r.open = false;
        if (ingress_armed(context, r.bytes.data(), r.bytes.size()) && run_ingress(context, r)) return;  // started
        c.waiting.push_back(std::move(r));
        r = Request{};
        progress(context);
    }
}

void CollectiveEngine::network_packet(const NetworkPacketView& v, tlm::tlm_generic_payload& packet) {
    const unsigned context = v.network.context_id;
    Context& c = context_at(context);
    const std::uint16_t sender = v.processor.rank;
    const std::uint8_t step = v.network.step;
    if (!table_.valid(context)) {
        if (c.released_row) {
            // Late packets of the collectives a RELEASE aborted: discarded,
            // a data packet's window credit still goes back to its sender.
            ++statistics_.stale;
            if (step >= 1 && step <= kMaxScheduleSteps) owe_credit(context, sender);
            return;
        }
        drop("context " + std::to_string(context) + " has no valid CT row");
        return;
    }
    if (step == kCreditStep) {
        if (v.payload_bytes != 4) return drop("credit packet with " + std::to_string(v.payload_bytes) + " bytes");
        // A peer not heard from yet starts with a full window. Never more
        // than a window: credits of packets sent before a RELEASE/LOAD
        // reset the counter may still come back.
        std::int32_t& credits = send_credits_[context].get(sender, static_cast<std::int32_t>(config_.window_packets));
        // A switch engine's credit packet carries its tree's slot in bits [31:24].
        const std::uint32_t returned = load_le32(v.payload) & (is_engine(sender) ? 0xFFFFFFu : 0xFFFFFFFFu);
        credits = static_cast<std::int32_t>(std::min<std::uint64_t>(
            config_.window_packets, static_cast<std::uint64_t>(std::max(credits, 0)) + returned));
        progress(context);
        return;
    }
    if (step == kAbortStep) {
        if (v.payload_bytes != kAbortNoticeBytes && v.payload_bytes != kLinkFaultAbortNoticeBytes)
            return drop("abort notice with " + std::to_string(v.payload_bytes) + " bytes");
        const std::uint32_t word = load_le32(v.payload);
        AbortRecord notice;
        notice.sequence = static_cast<std::uint16_t>(word & kStepSequenceMask);
        const std::uint32_t cause = (word >> kAbortCauseShift) & 0xFF;
        if (cause == static_cast<std::uint32_t>(CollectiveError::LinkFault) ||
            cause == static_cast<std::uint32_t>(CollectiveError::Sharp)) {
            if (v.payload_bytes != kLinkFaultAbortNoticeBytes)
                return drop("link-fault abort notice with " + std::to_string(v.payload_bytes) + " bytes");
            notice.cause = static_cast<CollectiveError>(cause);
            notice.fault_pair = load_le32(v.payload + 4);
            notice.fault_link = {load_le32(v.payload + 8), load_le32(v.payload + 12), load_le32(v.payload + 16)};
            if (notice.cause == CollectiveError::Sharp &&
                static_cast<SharpFailure>(notice.fault_pair & 0xFF) == SharpFailure::NodeFault)
                return sharp_notice(context, notice);
        } else if (cause != 0 && cause != static_cast<std::uint32_t>(CollectiveError::Aborted)) {
            return drop("abort notice with cause " + std::to_string(cause));
        }
        abort_notice(context, notice);
        return;
    }
    if (step == kTreeConfigStep) {
        tree_configured(context, v);
        return;
    }
    if (step == kAgreeStep) {
        if (v.payload_bytes != CollectiveArguments::kBytes)
            return drop("agreement packet with " + std::to_string(v.payload_bytes) + " bytes");
        auto& q = c.agreements.get(sender);
        if (q.size() >= kMaxAgreementsHeld)
            return drop("more than " + std::to_string(kMaxAgreementsHeld) + " agreement packets held from comm rank " +
                        std::to_string(sender) + " on context " + std::to_string(context));
        q.push_back(CollectiveArguments::read(v.payload, v.network.opcode, v.network.operation, v.network.datatype,
                                              v.network.algorithm));
        progress(context);
        return;
    }
    if (step == 0 || step > kMaxScheduleSteps)
        return drop("step packet with step " + std::to_string(step) + " (context " + std::to_string(context) + ")");
    // A packet of a collective this switch has finished (one that ended with
    // an error): its credit goes back, the data is discarded.
    const std::uint16_t sequence = step_sequence(v.processor);
    if (c.sequences.ended(sequence, running_sequence(c))) {
        ++statistics_.stale;
        owe_credit(context, sender);
        return;
    }
    if (channels_.held(static_cast<std::uint8_t>(context)) >= c.window_limit)
        return drop("step packet from comm rank " + std::to_string(sender) + " beyond the receive windows of context " +
                    std::to_string(context) + " (" + std::to_string(c.window_limit) + " packets)");
    packet.acquire();  // held in place until the step consumes it (pop_held)
    channels_.push(v, &packet);
    statistics_.peak_held_packets = std::max(statistics_.peak_held_packets, channels_.total());
    progress(context);
}

void CollectiveEngine::packet_left(const CreditedOutPort::Outgoing& o, const sc_core::sc_time& tail_after) {
    return_credits(static_cast<CreditTo>(o.credit_to), o.phits, tail_after);
    if (o.ends_call >= 0 && trace_)
        trace_result_left(static_cast<unsigned>(o.ends_call), (sim_now() + tail_after).value());
}

std::uint8_t* CollectiveEngine::emit_packet(CreditedOutPort& port, const PacketFrame& frame, bool urgent,
                                            bool header_only) {
    const std::uint32_t wire = NetworkFraming::wire_bytes(frame.payload_bytes);
    tlm::tlm_generic_payload* packet = header_only ? pool_.allocate_header_only(wire) : pool_.allocate(wire);
    statistics_.header_only_packets += header_only;
    framing_.write_headers(frame, packet->get_data_ptr());
    packet_info(*packet).destination = frame.destination;  // the first router need not parse the headers again
    port.enqueue({packet, 0, -1, NetworkFraming::wire_phits(frame.payload_bytes), framing_.vc_for(frame)}, urgent,
                 sc_core::SC_ZERO_TIME);
    return packet->get_data_ptr() + kNetworkPacketOverhead;
}

void CollectiveEngine::emit(CreditedOutPort& port, const PacketFrame& frame, const std::uint8_t* data, bool urgent) {
    std::uint8_t* payload = emit_packet(port, frame, urgent);
    if (frame.payload_bytes) std::memcpy(payload, data, frame.payload_bytes);
}

// ---------------------------------------------------------------------------
// Receive windows and their credits

std::optional<std::uint16_t> CollectiveEngine::node_of(unsigned context, std::uint16_t comm_rank) const {
    if (is_engine(comm_rank)) return comm_rank;  // a switch engine (tree): its address
    const auto& globals = context_at(context).globals;
    const auto it = globals.find(comm_rank);
    if (it == globals.end()) return std::nullopt;
    return table_.node_of_global(it->second);
}

void CollectiveEngine::owe_credit(unsigned context, std::uint16_t sender) {
    owe_credit(owed_entry(context, sender), context, sender);
}

OwedCredits& CollectiveEngine::owed_entry(unsigned context, std::uint16_t sender) {
    std::vector<OwedCredits*>& index = owed_index_[context];
    if (sender >= index.size()) index.resize(std::size_t{sender} + 1, nullptr);
    OwedCredits*& entry = index[sender];
    if (entry == nullptr) entry = &owed_[key(context, sender)];  // its address stays until purge_context erases it
    return *entry;
}

void CollectiveEngine::owe_credit(OwedCredits& owed, unsigned context, std::uint16_t sender) {
    if (owed.count == 0) ++owed_nonzero_;
    if (++owed.count < credit_batch_) {
        if (!flush_pending_) {
            flush_pending_ = true;
            flush_at_ = sim_now() + credit_delay_;
            wake_.at(credit_delay_);
        }
        return;
    }
    flush_credits_of(context, sender, owed);
    settle(owed);
}

void CollectiveEngine::flush_credits() {
    flush_pending_ = false;
    for (auto& [k, owed] : owed_) {
        if (owed_nonzero_ == 0) break;  // the rest owe nothing
        if (owed.count) {
            flush_credits_of(k >> 16, static_cast<std::uint16_t>(k & 0xFFFF), owed);
            settle(owed);
        }
    }
}

void CollectiveEngine::forget_nodes(std::optional<unsigned> context) {
    for (auto& [k, owed] : owed_)
        if (!context || (k >> 16) == *context) owed.node = -1;
}

void CollectiveEngine::flush_credits_of(unsigned context, std::uint16_t sender, OwedCredits& owed) {
    const std::uint32_t credits = owed.count;
    if (owed.node < 0)
        if (const std::optional<std::uint16_t> found = node_of(context, sender)) owed.node = *found;
    if (owed.node < 0) {
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": cannot return " + std::to_string(credits) +
                                        " window credits to comm rank " + std::to_string(sender) + " of context " +
                                        std::to_string(context) + ": its node is unknown")
                                           .c_str());
        return;
    }
    PacketFrame frame = control_frame(context, static_cast<std::uint16_t>(owed.node), kCreditStep, 4);
    // To a switch engine this NIC is its host address, and the tree's slot
    // rides in bits [31:24] (the engine keeps windows per tree).
    const bool engine = is_engine(sender);
    frame.carried.rank = engine ? node_ : static_cast<std::uint16_t>(context_at(context).own_rank);
    std::uint8_t payload[4];
    store_le32(payload, engine ? credits | std::uint32_t{context_at(context).tree.slot} << 24 : credits);
    ++statistics_.credit_packets;
    emit(net_port_, frame, payload, true);
}

void CollectiveEngine::pop_held(std::uint8_t context, std::uint16_t sender) {
    if (void* owner = channels_.pop(context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
}

void CollectiveEngine::discard_stale(unsigned context) {
    Context& c = context_at(context);
    const std::optional<std::uint16_t> known = c.sequences.current(running_sequence(c));
    if (!known) return;
    const std::uint16_t current = *known;
    const auto ctx = static_cast<std::uint8_t>(context);
    for (const std::uint16_t sender : channels_.senders(ctx))
        for (HeldPacket* p = channels_.front(ctx, sender); p && compare_sequence(p->sequence, current) < 0;
             p = channels_.front(ctx, sender)) {
            pop_held(ctx, sender);
            ++statistics_.stale;
            owe_credit(context, sender);
        }
}

void CollectiveEngine::purge_context(unsigned context, bool keep_globals) {
    Context& c = context_at(context);
    const auto ctx = static_cast<std::uint8_t>(context);
    for (const std::uint16_t sender : channels_.senders(ctx))
        while (channels_.front(ctx, sender)) pop_held(ctx, sender);
    // Entries stay (running steps point at them); the windows start full again.
    send_credits_[context].for_each(
        [&](std::uint16_t, std::int32_t& credits) { credits = static_cast<std::int32_t>(config_.window_packets); });
    for (auto it = owed_.begin(); it != owed_.end();) {
        if ((it->first >> 16) != context) {
            ++it;
            continue;
        }
        if (it->second.count) --owed_nonzero_;
        it = owed_.erase(it);
    }
    owed_index_[context].clear();
    for (StepRun& r : c.active.steps) r.owed = nullptr;  // pointed at erased entries
    c.agreements.clear();
    if (!keep_globals) c.globals.clear();
    c.sequences.reset();
    c.window_limit = 0;
    tree_leave(context);
    c.tree = TreeLink{};  // a new communicator (or none) on the row: join again
}

bool CollectiveEngine::row_busy(unsigned context) const {
    const Context& c = context_at(context);
    return c.active.running || !c.waiting.empty() || c.streaming || c.assembly.open;
}

void CollectiveEngine::release_row(unsigned context) {
    Context& c = context_at(context);
    const bool busy = row_busy(context);
    if (busy) {
        const std::uint64_t before = statistics_.aborted;
        if (c.active.running) abort_running(context);
        while (!c.waiting.empty()) {  // complete requests queued behind it
            Request r = std::move(c.waiting.front());
            c.waiting.pop_front();
            if (trace_) trace_call_begin(context, r.network, r.bytes.data(), r.bytes.size(), r.first_at);
            abort_request(context, r.network, r.bytes.data(), r.bytes.size(), table_.row(context));
            r.bytes.clear();
            spare_buffers_.push_back(std::move(r.bytes));
        }
        if (c.assembly.open) {  // a request still arriving: the rest of it is discarded
            Request& r = c.assembly;
            if (trace_) trace_call_begin(context, r.network, r.bytes.data(), r.received, r.first_at);
            abort_request(context, r.network, r.bytes.data(), r.received, table_.row(context));
            c.discard_host += static_cast<std::uint32_t>(r.bytes.size()) - r.received;
            r.open = false;
        }
        if (c.streaming) {  // a request whose envelope is not in yet
            if (trace_) trace_call_begin(context, c.head, c.prefix.data(), c.prefix.size(), c.head_at);
            abort_request(context, c.head, c.prefix.data(), c.prefix.size(), table_.row(context));
            c.discard_host += c.head_message - static_cast<std::uint32_t>(c.prefix.size());
            c.streaming = false;
            c.prefix.clear();
        }
        // Held packets are freed and their senders get the credits back now.
        const auto ctx = static_cast<std::uint8_t>(context);
        for (const std::uint16_t sender : channels_.senders(ctx))
            while (channels_.front(ctx, sender)) {
                pop_held(ctx, sender);
                ++statistics_.stale;
                owe_credit(context, sender);
            }
        for (auto& [k, owed] : owed_)
            if ((k >> 16) == context && owed.count) {
                flush_credits_of(context, static_cast<std::uint16_t>(k & 0xFFFF), owed);
                settle(owed);
            }
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": CT row " + std::to_string(context) +
                                        " released while busy: " + std::to_string(statistics_.aborted - before) +
                                        " collective(s) on it aborted (error 5)")
                                           .c_str());
    }
    // Until the next LOAD the switch remembers the row: late packets are
    // stale (their credits still returned through the comm rank -> global
    // rank map, kept), and a request that still comes for it is aborted at
    // its peers too, who would otherwise wait for this member forever.
    if (table_.valid(context)) c.released_row = table_.row(context);
    purge_context(context, c.released_row.has_value());
    table_.release(context, busy);
}

void CollectiveEngine::load_row(unsigned context) {
    Context& c = context_at(context);
    if (c.released_row)  // credits owed for late packets of the aborted collectives go back first
        for (auto& [k, owed] : owed_)
            if ((k >> 16) == context && owed.count) {
                flush_credits_of(context, static_cast<std::uint16_t>(k & 0xFFFF), owed);
                settle(owed);
            }
    purge_context(context);
    const CommunicatorTable::LoadResult load = table_.load(context);
    if (!load.loaded) {
        ++statistics_.rows_refused;
        SC_REPORT_WARNING(
            kReportType,
            (std::string(name()) + ": CT row " + std::to_string(context) + " refused: its receive windows (" +
             std::to_string(load.need) + " bytes for " + std::to_string(load.present + 1) +
             " peers) do not fit collective.early_buffer_bytes (" + std::to_string(load.free) + " of " +
             std::to_string(config_.early_buffer_bytes) + " bytes free); CT_VALID stays 0")
                .c_str());
        return;
    }
    c.released_row.reset();
    const CtRow& row = table_.row(context);
    c.window_limit = static_cast<std::size_t>(load.present + 1) * config_.window_packets;
    c.own_rank = row.own_rank().value_or(0);
    for (unsigned k = 0; k < regmap::kCtEntries; ++k)
        if (row.tag[k] == CtRow::Higher || row.tag[k] == CtRow::Lower)
            c.globals[static_cast<std::uint16_t>(c.own_rank ^ (1 << k))] = row.global[k];
}

// ---------------------------------------------------------------------------
// Collectives: start

void CollectiveEngine::fail_now(unsigned context, const NetworkHeader& request, int rank, CollectiveError code,
                                std::uint32_t mask, const std::string& why, const FaultedLink* link) {
    ++statistics_.errors;
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": collective on context " + std::to_string(context) +
                                    " completes with error " + std::to_string(static_cast<unsigned>(code)) + ": " +
                                    why + " (ACCEL_ERRORS)")
                                       .c_str());
    PacketFrame frame;
    frame.destination = node_;
    frame.traffic = TrafficClass::of(request);
    frame.step = kErrorStep;
    ProcessorHeader& processor = frame.carried;
    processor.context_id = static_cast<std::uint8_t>(context);
    processor.opcode = request.opcode;
    processor.operation = request.operation;
    processor.datatype = kErrorResultDatatype;  // what tells the driver this result is an error
    processor.algorithm = request.algorithm;
    processor.rank = static_cast<std::uint16_t>(rank);
    // Error 6 carries the cable and the count after the pair (kLinkFaultErrorResultBytes).
    const std::uint32_t result_bytes = link ? kLinkFaultErrorResultBytes : kErrorResultBytes;
    processor.message_bytes = result_bytes;
    frame.payload_bytes = result_bytes;
    std::uint8_t bytes[kLinkFaultErrorResultBytes];
    store_le32(bytes, static_cast<std::uint32_t>(code));
    store_le32(bytes + 4, mask);
    if (link) {
        store_le32(bytes + 8, link->from);
        store_le32(bytes + 12, link->to);
        store_le32(bytes + 16, link->lost);
    }
    ++statistics_.result_packets;
    emit(host_port_, frame, bytes);
    if (trace_) {
        host_port_.last_queued().ends_call = static_cast<std::int8_t>(context);
        CallTrace& call = context_at(context).calls.back();
        if (call.result_begin == kNever) call.result_begin = sim_now().value();
        call.result_bytes = result_bytes;
        trace_call_end(context, code, mask);
    }
}

void CollectiveEngine::start_streamed(unsigned context) {
    Context& c = context_at(context);
    std::size_t needed = CollectiveEnvelope::kBytes;
    if (c.prefix.size() >= CollectiveEnvelope::kBytes) {
        const CollectiveEnvelope e = CollectiveEnvelope::read(c.prefix.data());
        if (e.elements_per_block == kVariableCounts) needed += 4u * e.size;
    }
    needed = std::min<std::size_t>(needed, c.head_message);
    if (c.prefix.size() < needed) return;
    c.streaming = false;
    if (!tree_ready(context, c.head, c.prefix.data(), c.prefix.size())) {
        // It waits for its tree's configuration: reassembled whole, then queued.
        Request& r = c.assembly;
        r.open = true;
        r.network = c.head;
        r.first_at = c.head_at;
        if (r.bytes.capacity() == 0) r.bytes = take_buffer();
        r.bytes.assign(c.head_message, 0);
        std::memcpy(r.bytes.data(), c.prefix.data(), c.prefix.size());
        r.received = static_cast<std::uint32_t>(c.prefix.size());
        c.prefix.clear();
        if (r.received >= c.head_message) {
            r.open = false;
            c.waiting.push_back(std::move(r));
            r = Request{};
        }
        return;
    }
    start(context, c.head, c.prefix.data(), c.prefix.size(), c.head_message, c.head_at);
    c.prefix.clear();
}

void CollectiveEngine::start(unsigned context, const NetworkHeader& h, const std::uint8_t* prefix,
                             std::size_t prefix_bytes, std::uint32_t message_bytes, const sc_core::sc_time& arrival) {
    Context& c = context_at(context);
    Active& a = c.active;
    // Fully fused FEM: this allgather's counts table comes from the previous
    // collective's program (the host posted placeholders).
    std::vector<std::uint8_t> patched;
    if (c.fused_counts && prefix_bytes >= CollectiveEnvelope::kBytes) {
        const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
        const std::vector<std::uint32_t>& counts = c.fused_counts->counts;
        if (h.opcode == Opcode::Allgather && e.sequence == c.fused_counts->sequence &&
            e.elements_per_block == kVariableCounts && e.size == counts.size() &&
            prefix_bytes >= CollectiveEnvelope::kBytes + 4 * counts.size()) {
            patched.assign(prefix, prefix + prefix_bytes);
            for (std::size_t i = 0; i < counts.size(); ++i)
                store_le32(patched.data() + CollectiveEnvelope::kBytes + 4 * i, counts[i]);
            prefix = patched.data();
        }
        c.fused_counts.reset();  // for the very next request only
    }
    if (trace_) trace_call_begin(context, h, prefix, prefix_bytes, arrival);
    const auto lost = [&] { c.discard_host = message_bytes - static_cast<std::uint32_t>(prefix_bytes); };
    // Posted on a released row: abort it at the peers too.
    if (message_bytes >= CollectiveEnvelope::kBytes && !table_.valid(context) && c.released_row) {
        abort_request(context, h, prefix, prefix_bytes, *c.released_row);
        return lost();
    }
    if (const std::optional<RequestRefusal> refusal = refuse_request(message_bytes, prefix, table_.row(context))) {
        fail_now(context, h, refusal->rank, refusal->code, refusal->mask, refusal->why);
        return lost();
    }
    const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
    const CtRow& row = table_.row(context);
    // From here on every member can run the argument agreement (hypercube
    // peers of the row), so a local error is reported to all of them.
    detach_results(a);
    // A fresh Active that keeps the storage of the last one's step runs, AgLU
    // lanes and AgLU queue: starting a collective allocates less.
    std::vector<StepRun> steps = std::move(a.steps);
    AgluLanes aglus = std::move(a.aglus);
    auto combining = std::move(a.combining);
    a = Active{};
    steps.clear();
    while (!combining.empty()) combining.pop_front();
    a.steps = std::move(steps);
    a.aglus = std::move(aglus);
    a.combining = std::move(combining);
    a.carry_payload = !config_.timing_only;  // timing_only: no collective buffer at all
    a.chunk_bytes = config_.packet_payload_bytes;
    a.buffer_account = &buffer_account_;
    a.running = true;
    a.header = h;
    a.envelope = e;
    a.row = row;
    a.rank = *row.own_rank();
    a.sequence = static_cast<std::uint16_t>(e.sequence & kStepSequenceMask);
    a.host_message = message_bytes;
    a.host_received = static_cast<std::uint32_t>(prefix_bytes);
    a.aglus.reset(config_.cgr_aglus, sim_now().value());
    if (trace_) c.calls.back().agree_begin = sim_now().value();
    a.begin(e.size, a.rank, &schedules_);
    // Through the switches' tree: the agreement goes through the tree too
    // (the record to the member's vertex, the root's result back;
    // docs/COLLECTIVES.md, "Switch-resident engines"), peers are engine
    // addresses. (Reduce_scatter with unequal counts: the switches do not
    // know the blocks.) SHArP mode: a tree whose AN failed still takes the
    // call, which ends with error 7.
    if (switch_tree_ && tree_offloads(h.opcode) && e.elements_per_block != kVariableCounts &&
        (c.tree.state == TreeLink::State::Ready || c.tree.state == TreeLink::State::Failed)) {
        a.tree = true;
        Schedule agree;
        if (c.tree.parent != TreeConfig::kNone) {  // a group of one agrees with itself
            Step record;
            record.send = Transfer{c.tree.parent, {}};
            record.receive = Transfer{c.tree.parent, {}};
            agree.steps.push_back(record);
        }
        a.agree = std::make_shared<const Schedule>(std::move(agree));
    } else if (switch_tree_) {
        ++statistics_.tree_not_offloaded;
    }
    const auto learn = [&](std::uint16_t comm_rank, std::uint16_t global) {
        const auto [it, inserted] = c.globals.try_emplace(comm_rank, global);
        if (!inserted && it->second != global) {
            it->second = global;
            forget_nodes(context);  // credit returns look the node up again
        }
    };
    learn(0, e.global_rank0);
    if (e.root < e.size) learn(e.root, e.global_root);
    for (const Step& s : a.agree_steps())
        for (const auto* t : {&s.send, &s.receive})
            if (*t && !peer_node(a, (*t)->peer)) {
                a.running = false;
                fail_now(context, h, a.rank, CollectiveError::SizeOutsideRow, mismatch::kRow,
                         "comm rank " + std::to_string((*t)->peer) + " has no node in the forwarding table");
                return lost();
            }

    RequestPlan plan = plan_request(
        h, e, a.rank, message_bytes, prefix, prefix_bytes, SwitchLimits{config_.max_buffer_bytes, &aglu_supports},
        [&](int peer) { return peer_node(a, peer).has_value(); }, &schedules_);
    if (a.tree && plan.runs_data) {
        TreeRole role;
        role.self = node_;
        role.parent = c.tree.parent == TreeConfig::kNone ? -1 : c.tree.parent;
        role.root_vertex = c.tree.root_vertex == TreeConfig::kNone ? -1 : c.tree.root_vertex;
        // Only "am I the root" matters to a host.
        role.root_host = a.rank == e.root ? node_ : table_.node_of_global(e.global_root).value_or(0xFFFF);
        role.size = e.size;
        role.rank = a.rank;
        plan.schedule = std::make_shared<const Schedule>(make_tree_schedule(h.opcode, role));
        ++statistics_.tree_collectives;
    }
    if (const auto& armed = cgra_.armed[context]; armed && armed->sequence == e.sequence) {
        a.cgra = cgra_.slots[armed->slot];  // copied: a later LOAD of the slot does not touch it
        a.cgra_then = armed->then;
        a.cgra_counts_next = armed->counts_next;
        cgra_.armed[context].reset();
    }
    a.header_bytes = plan.header_bytes;
    a.mine = plan.mine;
    a.local = plan.local;
    a.local_why = std::move(plan.local_why);
    a.layout = std::move(plan.layout);
    a.chunk_bytes = chunk_bytes_for(a.layout);
    if (plan.runs_data) build_data_phase(context, *plan.schedule, plan.contribution);
    a.mask = a.mine.errors;
    a.take_contribution(0, prefix, prefix_bytes);
    discard_stale(context);
    // A peer aborted this collective before it started here.
    if (const auto abort = c.sequences.aborted_before_start(a.sequence); abort && !a.aborted)
        abandon(context, abort->cause, abort->fault_pair, abort->fault_link);
    // Its SHArP tree failed before: every member ends it with error 7.
    if (a.tree && c.tree.state == TreeLink::State::Failed && !a.aborted)
        abandon(context, CollectiveError::Sharp, c.tree.failure);
}

// ---------------------------------------------------------------------------
// Collectives: aborts (a RELEASE of a busy row, here or at a peer)

std::vector<std::uint16_t> CollectiveEngine::active_peer_nodes(unsigned context) const {
    const Active& a = context_at(context).active;
    std::vector<std::uint16_t> nodes;
    const auto add = [&](int peer) {
        if (peer < 0) return;
        if (const std::optional<std::uint16_t> n = peer_node(a, peer)) nodes.push_back(*n);
    };
    for (const Step& s : a.agree_steps()) {
        if (s.send) add(s.send->peer);
        if (s.receive) add(s.receive->peer);
    }
    for (const StepRun& r : a.steps) {
        add(r.send_peer);
        add(r.recv_peer);
    }
    return nodes;
}

void CollectiveEngine::send_aborts(unsigned context, const NetworkHeader& header, int rank, std::uint32_t sequence,
                                   std::vector<std::uint16_t> nodes, CollectiveError cause, std::uint32_t fault_pair,
                                   const FaultedLink& fault_link, int tree_slot) {
    const bool link_fault = cause == CollectiveError::LinkFault || cause == CollectiveError::Sharp;
    const std::uint32_t bytes = link_fault ? kLinkFaultAbortNoticeBytes : kAbortNoticeBytes;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (const std::uint16_t node : nodes) {
        if (node == node_) continue;
        PacketFrame frame;
        frame.destination = node;
        frame.traffic = TrafficClass::of(header);
        frame.traffic.context_id = static_cast<std::uint8_t>(context);
        frame.step = kAbortStep;
        frame.carried.opcode = header.opcode;
        frame.carried.context_id = frame.traffic.context_id;
        frame.carried.rank = tree_slot >= 0 ? node_ : static_cast<std::uint16_t>(rank);
        frame.carried.message_bytes = bytes;
        frame.payload_bytes = bytes;
        // To a vertex: the tree's generation, so a vertex configured for a
        // newer group on the slot ignores this (freed) group's late notice.
        if (tree_slot >= 0) frame.generation = context_at(context).tree.generation;
        std::uint8_t payload[kLinkFaultAbortNoticeBytes];
        store_le32(payload, (sequence & kStepSequenceMask) |
                                (link_fault ? static_cast<std::uint32_t>(cause) << kAbortCauseShift : 0) |
                                (tree_slot >= 0 ? static_cast<std::uint32_t>(tree_slot) << 24 : 0));
        store_le32(payload + 4, fault_pair);
        store_le32(payload + 8, fault_link.from);
        store_le32(payload + 12, fault_link.to);
        store_le32(payload + 16, fault_link.lost);
        ++statistics_.abort_packets;
        // Behind this switch's data to that node: the notice is the last
        // packet of the collective it gets from here.
        emit(net_port_, frame, payload, false);
    }
}

void CollectiveEngine::abandon(unsigned context, CollectiveError cause, std::uint32_t fault_pair,
                               const FaultedLink& fault_link) {
    Context& c = context_at(context);
    Active& a = c.active;
    a.aborted = true;
    if (cause == CollectiveError::LinkFault || cause == CollectiveError::Sharp) {
        a.mask |= cause == CollectiveError::Sharp ? mismatch::kSharp : mismatch::kLinkFault;
        a.fault_pair = fault_pair;
        a.fault_link = fault_link;
    } else {
        a.mask |= mismatch::kReleased;
    }
    send_aborts(context, a.header, a.rank, a.mine.sequence, active_peer_nodes(context), cause, fault_pair, fault_link,
                a.tree ? c.tree.slot : -1);
    for (std::size_t k = a.agree_step; k < a.agree_steps().size(); ++k) {
        const Step& s = a.agree_steps()[k];
        if (!s.send || (k == a.agree_step && a.agree_sent)) continue;
        const std::optional<std::uint16_t> to = peer_node(a, s.send->peer);
        if (!to) continue;  // the forwarding table changed under it
        send_agreement(context, a, *to);
    }
    // The records it did not take stay queued; the next collective skips them (older sequence).
    a.agree_step = a.agree_steps().size();
    a.agree_sent = false;
}

void CollectiveEngine::abort_running(unsigned context) {
    Active& a = context_at(context).active;
    if (!a.aborted) abandon(context);
    advance_agreement(context);  // nothing left to wait for: marks it agreed (trace)
    // Chunks still in the AgLUs are dropped with the rest: the row goes now.
    while (!a.combining.empty()) a.combining.pop_front();
    combining_contexts_ &= ~(1u << context);
    finish(context);
}

void CollectiveEngine::abort_request(unsigned context, const NetworkHeader& header, const std::uint8_t* prefix,
                                     std::size_t prefix_bytes, const CtRow& row) {
    int rank = 0;
    if (prefix_bytes >= CollectiveEnvelope::kBytes && row.valid) {
        const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
        const std::optional<int> own = row.own_rank();
        if (own && e.size > 0 && *own < e.size && row.consistent_with(e.size, *own)) {
            rank = *own;
            // The peers it would have exchanged with: the agreement's and the data schedule's.
            std::vector<std::uint16_t> nodes;
            const auto add = [&](const Schedule& schedule) {
                for (const Step& s : schedule.steps)
                    for (const auto* t : {&s.send, &s.receive})
                        if (*t)
                            if (const std::optional<std::uint16_t> n = table_.peer_node(row, rank, e, (*t)->peer))
                                nodes.push_back(*n);
            };
            add(make_schedule(Opcode::Allreduce, Algorithm::RecursiveDoubling, e.size, rank, 0, Fold::Hypercube));
            try {
                add(make_schedule(header.opcode, static_cast<Algorithm>(header.algorithm & 3), e.size, rank, e.root,
                                  Fold::Hypercube));
            } catch (const std::exception&) {
                // Arguments the switch would have refused: the agreement's peers are told.
            }
            send_aborts(context, header, rank, e.sequence, std::move(nodes));
        }
    }
    ++statistics_.aborted;
    fail_now(context, header, rank, CollectiveError::Aborted, mismatch::kReleased,
             "aborted: its CT row was released before it started");
}

void CollectiveEngine::abort_notice(unsigned context, const AbortRecord& notice) {
    Context& c = context_at(context);
    Active& a = c.active;
    switch (c.sequences.notice(notice, running_sequence(c), kMaxAgreementsHeld)) {
        case SequenceTracker::Notice::AbortRunning:
            if (!a.aborted) {
                abandon(context, notice.cause, notice.fault_pair, notice.fault_link);
                progress(context);
            }
            return;
        case SequenceTracker::Notice::Ended:  // that collective already ended here
            ++statistics_.stale;
            return;
        case SequenceTracker::Notice::AlreadyQueued:  // from another peer
        case SequenceTracker::Notice::Queued:
            return;
        case SequenceTracker::Notice::Flood:
            return drop("more than " + std::to_string(kMaxAgreementsHeld) + " abort notices held on context " +
                        std::to_string(context));
    }
}

void CollectiveEngine::link_fault(std::uint16_t peer, std::uint16_t source, std::uint16_t destination,
                                  const std::vector<std::uint8_t>& lost, const FaultedLink& link) {
    AbortRecord fault;
    fault.cause = CollectiveError::LinkFault;
    fault.fault_pair = static_cast<std::uint32_t>(source) << 16 | destination;
    fault.fault_link = link;
    // What the lost packet was, when its sender still had it: one collective
    // (by context and sequence), or the running one on its context (a
    // window credit carries no sequence), or nothing (point-to-point).
    std::optional<unsigned> only_context;
    bool by_sequence = false;
    if (!lost.empty()) {
        const std::optional<NetworkPacketView> v = NetworkPacketView::parse(lost.data(), lost.size(), nullptr);
        if (!v || v->network.opcode == Opcode::Send || v->network.opcode == Opcode::Stream)
            return;  // not a collective's packet
        only_context = v->network.context_id;
        const std::uint8_t step = v->network.step;
        if (step == kTreeJoinStep || step == kTreeConfigStep) {
            // A tree join or leave to the planner (placement = switch):
            // setup, no collective yet; sent again, or the group would wait
            // for it forever (a configuration lost is sent again by its switch).
            if (source == node_ && step == kTreeJoinStep) {
                ++statistics_.tree_setup_resent;
                emit(net_port_, NetworkFraming::frame_of(*v), v->payload, true);
            }
            return;
        }
        by_sequence = true;
        if (step >= 1 && step <= kMaxScheduleSteps)
            fault.sequence = step_sequence(v->processor);
        else if (step == kAbortStep && v->payload_bytes >= 4)
            fault.sequence = static_cast<std::uint16_t>(load_le32(v->payload) & kStepSequenceMask);
        else if (step == kAgreeStep && v->payload_bytes == CollectiveArguments::kBytes)
            fault.sequence = static_cast<std::uint16_t>(
                CollectiveArguments::read(v->payload, v->network.opcode, v->network.operation, v->network.datatype,
                                          v->network.algorithm)
                    .sequence &
                kStepSequenceMask);
        else
            by_sequence = false;
    }
    for (unsigned context = 0; context < contexts_.size(); ++context) {
        if (only_context && context != *only_context) continue;
        if (!table_.valid(context)) continue;
        Context& c = context_at(context);
        Active& a = c.active;
        if (by_sequence) {  // that collective: running, or still to start here (ended: nothing to do)
            if (!c.sequences.ended(fault.sequence, running_sequence(c))) abort_notice(context, fault);
            continue;
        }
        if (!a.running || a.aborted) continue;
        const std::vector<std::uint16_t> peers = active_peer_nodes(context);
        if (std::find(peers.begin(), peers.end(), peer) == peers.end()) continue;
        abandon(context, fault.cause, fault.fault_pair, fault.fault_link);
        progress(context);
    }
}

void CollectiveEngine::build_data_phase(unsigned context, const Schedule& schedule, const BlockSpan& contribution) {
    Active& a = context_at(context).active;
    // Pages of the buffer go once read for the last time; an armed CGRA
    // program reads the whole result outside the streams: it keeps them all.
    a.release_pages = !a.cgra;
    // The links capture two words: std::function holds them without allocating.
    a.build(schedule, contribution, result_span(a.header.opcode, a.envelope.size, a.rank, a.envelope.root),
            [this, context](std::size_t, const Step& s) {
                DataPhase::StepLinks link;
                if (s.send) {
                    link.send_node = *peer_node(context_at(context).active, s.send->peer);
                    link.credits = &send_credits_[context].get(static_cast<std::uint16_t>(s.send->peer),
                                                               static_cast<std::int32_t>(config_.window_packets));
                }
                if (s.receive)
                    link.channel = &channels_.channel(static_cast<std::uint8_t>(context),
                                                      static_cast<std::uint16_t>(s.receive->peer));
                return link;
            });
    note_buffer_bytes();
}

// ---------------------------------------------------------------------------
// Collectives: the argument agreement

void CollectiveEngine::send_agreement(unsigned context, const Active& a, std::uint16_t node) {
    PacketFrame frame = step_frame(a, context, node, kAgreeStep);
    ProcessorHeader& processor = frame.carried;
    processor.opcode = a.header.opcode;
    processor.context_id = frame.traffic.context_id;
    processor.rank = static_cast<std::uint16_t>(a.rank);
    processor.message_bytes = CollectiveArguments::kBytes;
    CollectiveArguments mine = a.mine;
    mine.errors = a.mask;
    std::uint8_t payload[CollectiveArguments::kBytes + 4];
    mine.write(payload);
    if (a.tree) {  // to the member's vertex: the host address, and the tree's slot after the record
        processor.rank = node_;
        processor.message_bytes += 4;
        const TreeLink& tree = context_at(context).tree;
        store_le32(payload + CollectiveArguments::kBytes, tree.slot | std::uint32_t{tree.generation} << 8);
    }
    ++statistics_.agreement_packets;
    frame.payload_bytes = processor.message_bytes;
    emit(net_port_, frame, payload, true);
}

bool CollectiveEngine::advance_agreement(unsigned context) {
    // The engine's side of the agreement: packets, the records queue, trace.
    struct Driver final : ArgumentAgreement::Driver {
        CollectiveEngine& engine;
        unsigned context;
        Context& c;
        Driver(CollectiveEngine& e, unsigned k) : engine(e), context(k), c(e.context_at(k)) {}
        void send_record(int peer) override {
            engine.send_agreement(context, c.active, *engine.peer_node(c.active, peer));
        }
        std::deque<CollectiveArguments>& records_from(int peer) override {
            return c.agreements.get(static_cast<std::uint16_t>(peer));
        }
        void stale_record() override { ++engine.statistics_.stale; }
        void agreed() override {
            if (engine.trace_) c.calls.back().agree_end = sim_now().value();
        }
    } driver(*this, context);
    Active& a = context_at(context).active;
    return a.exchange(a.sequence, a.mask, driver);
}

// ---------------------------------------------------------------------------
// Collectives: the data phase, streamed chunk by chunk

PacketFrame CollectiveEngine::step_frame(const Active& a, unsigned context, std::uint16_t destination,
                                         std::uint8_t step) const {
    PacketFrame frame;
    frame.destination = destination;
    frame.traffic = TrafficClass::of(a.header);
    frame.traffic.context_id = static_cast<std::uint8_t>(context);
    frame.step = step;
    return frame;
}

PacketFrame CollectiveEngine::control_frame(unsigned context, std::uint16_t destination, std::uint8_t step,
                                            std::uint32_t bytes) const {
    PacketFrame frame;
    frame.destination = destination;
    frame.traffic.opcode = Opcode::Barrier;
    frame.traffic.context_id = static_cast<std::uint8_t>(context);
    frame.step = step;
    frame.carried.opcode = Opcode::Barrier;
    frame.carried.context_id = frame.traffic.context_id;
    frame.carried.rank = node_;
    frame.carried.message_bytes = bytes;
    frame.payload_bytes = bytes;
    return frame;
}

std::uint32_t CollectiveEngine::chunk_bytes_for(const BlockLayout& layout) const {
    // Trains (network.flow_train_packets): as long as the collective's
    // (mean) block allows (a train is taken, combined and forwarded whole,
    // so each pipeline stage costs a train's time), hardware packets for
    // short ones. Every member derives it from the same agreed layout, so
    // sender and receiver of a step cut its stream alike.
    return train_payload_for(layout.total() / std::max<std::uint32_t>(1, layout.blocks()), config_.train_payload_bytes,
                             config_.packet_payload_bytes);
}

std::uint32_t CollectiveEngine::result_batch_chunks(const Active& a) const {
    // A batch is the host's notification granularity in bytes: trains
    // carry result_batch_packets hardware packets' worth in fewer chunks.
    const std::uint32_t hardware = config_.train_payload_bytes;
    if (hardware == 0 || a.chunk_bytes <= hardware) return config_.result_batch_packets;
    const std::uint64_t bytes = std::uint64_t{config_.result_batch_packets} * hardware;
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (bytes + a.chunk_bytes - 1) / a.chunk_bytes));
}

void CollectiveEngine::send_chunk(unsigned context, std::size_t k) {
    Active& a = context_at(context).active;
    StepRun& s = a.steps[k];
    const std::uint64_t from = a.chunk_begin(s.sent), to = a.chunk_end(s.sent, s.send.bytes());
    const auto step = static_cast<std::uint8_t>(a.tree ? context_at(context).tree.slot + 1 : k + 1);
    PacketFrame frame = step_frame(a, context, s.send_node, step);
    ProcessorHeader& processor = frame.carried;
    processor.opcode = a.header.opcode;
    // Tree: the engine knows this NIC by its host address, the tree by its slot.
    processor.rank = a.tree ? node_ : static_cast<std::uint16_t>(a.rank);
    processor.message_bytes = static_cast<std::uint32_t>(s.send.bytes());
    set_step_sequence(processor, a.sequence);
    // Tree Gather: the operation field says whether the root is below the
    // sender (the vertices send the vector toward the root only).
    if (a.tree && a.header.opcode == Opcode::Gather) frame.traffic.operation = a.rank == a.envelope.root ? 1 : 0;
    // Tree: the offset word carries the tree's generation too (its vertex
    // tells this communicator's packets from an older one's on the slot).
    frame.offset = static_cast<std::uint32_t>(from);
    if (a.tree) frame.generation = context_at(context).tree.generation;
    frame.payload_bytes = static_cast<std::uint32_t>(to - from);
    // Timing only on the flow network: nobody reads a step packet's payload
    // (the receiver skips it), so it carries its headers only.
    const bool header_only = !a.carry_payload && config_.header_only_step_packets;
    std::uint8_t* payload = emit_packet(net_port_, frame, false, header_only);
    if (a.carry_payload) {
        a.buffer.gather(s.send, from, to, payload);
        a.buffer.read_done(s.send, from, to);
    }
    a.chunk_sent(k);
    ++statistics_.step_packets_sent;
    if (trace_) trace_step(context, k);
}

void CollectiveEngine::take_chunk(unsigned context, std::size_t k, HeldPacket& p) {
    Active& a = context_at(context).active;
    StepRun& s = a.steps[k];
    const std::uint64_t from = a.chunk_begin(s.issued), to = a.chunk_end(s.issued, s.recv.bytes());
    const std::uint64_t n = to - from;
    const auto sender = static_cast<std::uint16_t>(s.recv_peer);
    const bool gather_flag = a.tree && a.header.opcode == Opcode::Gather;  // operation: "root below"
    if (p.message_bytes != s.recv.bytes() || p.offset != from || p.payload_bytes != n || p.opcode != a.header.opcode ||
        (p.operation != a.header.operation && !gather_flag) || p.datatype != a.header.datatype ||
        p.algorithm != a.header.algorithm) {
        // The agreement names the argument that differs; this only stops
        // the data phase from reading a stream it does not understand.
        SC_REPORT_WARNING(kReportType,
                          (std::string(name()) + ": context " + std::to_string(context) + ": comm rank " +
                           std::to_string(sender) + " sent " + std::to_string(p.message_bytes) + " bytes of " +
                           std::string(to_string(p.opcode)) + " (offset " + std::to_string(p.offset) + "), step " +
                           std::to_string(k + 1) + " expects " + std::to_string(s.recv.bytes()) + " bytes of " +
                           std::string(to_string(a.header.opcode)) + " (offset " + std::to_string(from) + ")")
                              .c_str());
        a.mask |= mismatch::kData;
        return;
    }
    ++s.issued;
    if (trace_ && s.trace_first_ps == kNever) s.trace_first_ps = sim_now().value();
    if (s.apply == Apply::Copy || n == 0) {
        if (n && !config_.timing_only) a.buffer.scatter(s.recv, p.payload, from, to);
        (config_.timing_only ? statistics_.bytes_skipped : statistics_.bytes_copied) += n;
        ++s.applied;
        if (trace_) trace_step(context, k);
    } else {
        // CGR: received and local operands in the schedule's order; the
        // chunk's vectors are split over the AgLUs of the unit that are
        // free first (at most phits_per_cycle of them: the datapath width).
        // With job.timing_only nothing is copied or combined; the AgLUs are
        // charged exactly as combine() would charge them.
        const bool compute = !config_.timing_only;
        const sc_core::sc_time now = sim_now();
        ChunkCombiner::Chunk chunk;
        chunk.apply = s.apply;
        chunk.op = *operation_from_code(a.header.operation);
        chunk.type = *datatype_from_code(a.header.datatype);
        chunk.received = p.payload;
        chunk.bytes = n;
        chunk.stream = &s.recv;
        chunk.from = from;
        chunk.to = to;
        chunk.buffer = &a.buffer;
        const std::uint64_t done = combiner_.combine(*aglu_, a.aglus, chunk, compute, config_.phits_per_cycle,
                                                     now.value(), cycle_.value(), statistics_.aglu_cycles);
        if (compute) a.buffer.read_done(s.recv, from, to);  // the local operand was read (and written back)
        (compute ? statistics_.bytes_combined : statistics_.bytes_skipped) += n;
        a.combining.push_back({sim_time(done), k});
        combining_contexts_ |= 1u << context;
        wake_.at(sim_time(done) - now);  // an earlier pending wake-up stays
    }
    pop_held(static_cast<std::uint8_t>(context), sender);
    if (!s.owed) s.owed = &owed_entry(context, sender);  // created when first owed, as owe_credit would
    owe_credit(*s.owed, context, sender);
}

void CollectiveEngine::return_chunk(unsigned context) {
    Active& a = context_at(context).active;
    const std::uint64_t from = a.chunk_begin(a.results_sent), to = a.chunk_end(a.results_sent, a.result.bytes());
    PacketFrame frame = step_frame(a, context, node_, 0);
    ProcessorHeader& processor = frame.carried;
    processor.context_id = frame.traffic.context_id;
    processor.opcode = a.header.opcode;
    processor.operation = a.header.operation;
    processor.datatype = a.header.datatype;
    processor.algorithm = a.header.algorithm;
    processor.rank = static_cast<std::uint16_t>(a.rank);
    processor.message_bytes = static_cast<std::uint32_t>(a.result.bytes());
    // The packet is made when it leaves (host_port_'s Make hook), its bytes
    // gathered then from the buffer (final already); timing only: no bytes.
    if (a.carry_payload && !a.result_source) {
        a.result_source = std::make_shared<ResultSource>();
        a.result_source->buffer = &a.buffer;
        a.result_source->result = a.result;
    }
    frame.offset = static_cast<std::uint32_t>(from);
    frame.payload_bytes = static_cast<std::uint32_t>(to - from);
    lazy_results_.push_back(LazyResult{frame, a.result_source});
    host_port_.enqueue({nullptr, 0, -1, NetworkFraming::wire_phits(frame.payload_bytes), framing_.vc_for(frame)}, false,
                       sc_core::SC_ZERO_TIME);
    if (trace_) {
        CallTrace& call = context_at(context).calls.back();
        if (a.results_sent == 0) call.result_begin = sim_now().value();
        call.result_bytes = a.result.bytes();
        if (a.results_sent + 1 == a.result_chunks)
            host_port_.last_queued().ends_call = static_cast<std::int8_t>(context);
    }
    ++a.results_sent;
    ++statistics_.result_packets;
}

bool CollectiveEngine::advance_data(unsigned context) {
    // The engine's side of the data phase: packets, CGR units, result batches.
    struct Driver final : DataPhase::Driver {
        CollectiveEngine& engine;
        unsigned context;
        Active& a;
        Driver(CollectiveEngine& e, unsigned c) : engine(e), context(c), a(e.context_at(c).active) {}
        bool stopped() override { return a.mask != 0; }
        void send(std::size_t k) override { engine.send_chunk(context, k); }
        bool take(std::size_t k) override {
            if (a.combines(k) && !engine.acquire_cgr(context)) return false;
            engine.take_chunk(context, k, a.steps[k].channel->front());
            if (engine.cgr_.holds(context) && a.combining.empty()) engine.release_cgr(context);  // refused (mismatch)
            return true;
        }
        bool may_return() override { return a.agreed; }
        void results_ready() override {
            if (a.cgra && !engine.cgra_ready(context)) return;  // semi-fused: the program runs first
            // Fully fused into an allgather: the output feeds it and is not
            // returned (the allgather's result holds it). Into an alltoall:
            // the output goes to the host too (it keeps only its blocks of the others').
            if (a.cgra && a.cgra_then == Opcode::Allgather) {
                a.results_sent = a.result_chunks;
                return;
            }
            // Final chunks go to the host DMA in batches (one notification each).
            if (a.results_final - a.results_sent >= engine.result_batch_chunks(a) || a.results_final == a.result_chunks)
                while (a.results_sent < a.results_final) engine.return_chunk(context);
        }
    } driver(*this, context);
    return context_at(context).active.advance(driver);
}

void CollectiveEngine::on_combined() {
    if (combining_contexts_ == 0) return;  // the common case: run() asks on every wake
    const sc_core::sc_time now = sim_now();
    // Contexts in ascending order; progress(c) touches context c only.
    for (std::uint32_t busy = combining_contexts_; busy != 0; busy &= busy - 1) {
        const auto context = static_cast<unsigned>(__builtin_ctz(busy));
        Active& a = context_at(context).active;
        bool moved = false;
        while (!a.combining.empty() && a.combining.front().first <= now) {
            ++a.steps[a.combining.front().second].applied;
            if (trace_) trace_step(context, a.combining.front().second);
            a.combining.pop_front();
            moved = true;
        }
        if (a.combining.empty()) {
            combining_contexts_ &= ~(1u << context);
            release_cgr(context);
        }
        if (moved) progress(context);
    }
    sc_core::sc_time next = sc_core::SC_ZERO_TIME;
    bool pending = false;
    for (std::uint32_t busy = combining_contexts_; busy != 0; busy &= busy - 1) {
        const Active& a = context_at(static_cast<unsigned>(__builtin_ctz(busy))).active;
        if (a.combining.empty()) continue;
        if (!pending || a.combining.front().first < next) next = a.combining.front().first;
        pending = true;
    }
    if (pending) wake_.at(next - now);
}

bool CollectiveEngine::acquire_cgr(unsigned context) {
    const bool held = cgr_.acquire(context, sim_now().value());
    statistics_.cgr_waits = cgr_.waits();
    statistics_.cgr_wait_ps = cgr_.wait_time();
    return held;
}

void CollectiveEngine::release_cgr(unsigned context) {
    cgr_.release(context, sim_now().value());
    statistics_.cgr_wait_ps = cgr_.wait_time();
    if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
}

void CollectiveEngine::on_cgr_free() {
    // Resume the oldest waiters while units are free; each takes one when
    // its progress reaches the chunk it waits to combine.
    while (cgr_.has_waiters() && cgr_.has_free_unit()) {
        const unsigned context = cgr_.first_waiter();
        progress(context);
        if (cgr_.has_waiters() && cgr_.first_waiter() == context) release_cgr(context);  // no longer needs one
    }
}

// ---------------------------------------------------------------------------
// Collectives: progress and completion

void CollectiveEngine::progress(unsigned context) {
    Context& c = context_at(context);
    Active& a = c.active;
    for (;;) {
        if (!a.running) {
            if (c.waiting.empty() || c.streaming) return;
            const Request& next = c.waiting.front();
            if (next.ready_ps > sim_now().value()) return;  // its ingress kernel still runs
            if (!tree_ready(context, next.network, next.bytes.data(), next.bytes.size())) return;
            Request request = std::move(c.waiting.front());
            c.waiting.pop_front();
            start(context, request.network, request.bytes.data(), request.bytes.size(),
                  static_cast<std::uint32_t>(request.bytes.size()), request.first_at);
            request.bytes.clear();
            spare_buffers_.push_back(std::move(request.bytes));
            continue;
        }
        // Each runs until it is blocked. The agreement waits only for peers'
        // packets, which nothing in the data phase produces, so a second
        // round would find nothing to do (it used to run one anyway).
        advance_agreement(context);
        if (a.data) advance_data(context);
        if (!a.agreed || !a.combining.empty()) return;
        if (a.mask == 0 && a.data && !a.complete()) return;
        finish(context);
    }
}

void CollectiveEngine::finish(unsigned context) {
    Context& c = context_at(context);
    Active& a = c.active;
    const std::uint32_t mask = a.mask;
    if (mask != 0) {
        const CollectiveError code = (mask & mismatch::kSharp)          ? CollectiveError::Sharp
                                     : (mask & mismatch::kLinkFault)    ? CollectiveError::LinkFault
                                     : (mask & mismatch::kReleased)     ? CollectiveError::Aborted
                                     : a.local != CollectiveError::None ? a.local
                                                                        : CollectiveError::Mismatch;
        const std::string why =
            code == CollectiveError::Sharp ? describe_sharp_error(a.fault_pair)
            : code == CollectiveError::LinkFault
                ? (a.fault_pair == 0  // learnt from a member's agreement record, which names no pair
                       ? std::string("link fault: packets between members were lost")
                       : "link fault: packets from " + endpoint_text(a.fault_pair >> 16) + " to " +
                             endpoint_text(a.fault_pair & 0xFFFF) + " were lost")
            : code == CollectiveError::Aborted ? "aborted: " + describe_mismatch(mask)
            : a.local != CollectiveError::None
                ? a.local_why + " (every member reports it: " + describe_mismatch(mask) + ")"
                : "arguments disagree across the members: " + describe_mismatch(mask);
        if (code == CollectiveError::Aborted) ++statistics_.aborted;
        if (code == CollectiveError::LinkFault) ++statistics_.link_faults;
        if (code == CollectiveError::Sharp) ++statistics_.sharp_errors;
        // Error 6's detail word names the pair of nodes that lost packets
        // (and the link), error 7's the aggregation node and what happened.
        const bool detail = code == CollectiveError::LinkFault || code == CollectiveError::Sharp;
        fail_now(context, a.header, a.rank, code, detail ? a.fault_pair : mask, why,
                 code == CollectiveError::LinkFault ? &a.fault_link : nullptr);
    } else {
        ++statistics_.collectives;
        if (trace_) trace_call_end(context, CollectiveError::None, 0);
    }
    // Fully fused: the next collective starts here, before any request queued by the host.
    std::optional<Request> chained;
    if (mask == 0 && a.cgra && a.cgra_then != Opcode::Send) chained = chained_request(context);
    // Fully fused FEM: the next request's counts are the program's output.
    if (mask == 0 && a.cgra && a.cgra_counts_next) c.fused_counts = counts_from_output(context);
    release_cgr(context);
    c.discard_host = a.host_message - a.host_received;
    c.sequences.finished(a.sequence);
    a.running = false;
    a.steps.clear();
    detach_results(a);
    a.buffer.clear();
    discard_stale(context);
    if (chained) c.waiting.push_front(std::move(*chained));
}

// ---------------------------------------------------------------------------
// Switch-resident engines (collective.placement = switch)

std::string CollectiveEngine::endpoint_text(std::uint32_t address) const {
    if (tree_network_) return tree_network_->endpoint_label(address);
    return "node " + std::to_string(address);
}

void CollectiveEngine::enable_switch_tree(std::uint16_t planner, unsigned hosts,
                                          std::shared_ptr<const NetworkTopology> network) {
    tree_network_ = std::move(network);
    switch_tree_ = true;
    tree_planner_ = planner;
    tree_hosts_ = hosts;
}

bool CollectiveEngine::tree_ready(unsigned context, const NetworkHeader& h, const std::uint8_t* prefix,
                                  std::size_t prefix_bytes) {
    if (!switch_tree_ || !tree_offloads(h.opcode) || !table_.valid(context) ||
        prefix_bytes < CollectiveEnvelope::kBytes)
        return true;
    Context& c = context_at(context);
    if (c.tree.state != TreeLink::State::None && c.tree.state != TreeLink::State::Joining) return true;
    const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
    if (e.elements_per_block == kVariableCounts) return true;  // runs on the hypercube
    const CtRow& row = table_.row(context);
    const std::optional<int> rank = row.own_rank();
    if (!rank || e.size == 0 || !row.consistent_with(e.size, *rank)) return true;  // start() refuses it
    if (c.tree.state == TreeLink::State::None) {
        TreeJoin join;
        join.size = e.size;
        join.comm_rank = static_cast<std::uint16_t>(*rank);
        join.host = node_;
        join.global_rank0 = e.global_rank0;
        PacketFrame frame = control_frame(context, tree_planner_, kTreeJoinStep, TreeJoin::kBytes);
        frame.traffic.datatype = static_cast<std::uint8_t>(c.tree_joins++ % kTreeJoinNumbers);
        std::uint8_t payload[TreeJoin::kBytes];
        join.write(payload);
        emit(net_port_, frame, payload, true);
        ++statistics_.tree_joins;
        c.tree.state = TreeLink::State::Joining;
        c.tree.joined = join;
        c.tree.join_number = frame.traffic.datatype;
    }
    return false;
}

bool CollectiveEngine::tree_offloads(Opcode collective) const {
    return config_.sharp() ? sharp_offloads(collective) : tree_supports(collective);
}

void CollectiveEngine::sharp_notice(unsigned context, const AbortRecord& notice) {
    Context& c = context_at(context);
    if (c.tree.state != TreeLink::State::Ready) return;  // told already (notices come from every vertex)
    // The group's tree is gone: the collective the AN ran (or any, when it
    // had run none) and every later one on it end with error 7.
    c.tree.state = TreeLink::State::Failed;
    c.tree.failure = notice.fault_pair & ~kSharpAnySequence;
    Active& a = c.active;
    if (a.running && a.tree && !a.aborted &&
        ((notice.fault_pair & kSharpAnySequence) || compare_sequence(a.sequence, notice.sequence) >= 0)) {
        abandon(context, CollectiveError::Sharp, c.tree.failure);
        progress(context);
    }
}

void CollectiveEngine::tree_leave(unsigned context) {
    const TreeLink& tree = context_at(context).tree;
    // Both modes: the planner gives the group's tree rows back when every
    // member has left (docs/COLLECTIVES.md, "Switch-resident engines").
    if (!switch_tree_ || tree.state == TreeLink::State::None) return;
    PacketFrame frame = control_frame(context, tree_planner_, kTreeJoinStep, TreeJoin::kBytes);
    frame.traffic.operation = kTreeLeaveOperation;
    frame.traffic.datatype = tree.join_number;
    std::uint8_t payload[TreeJoin::kBytes];
    tree.joined.write(payload);
    emit(net_port_, frame, payload, true);
}

void CollectiveEngine::tree_configured(unsigned context, const NetworkPacketView& v) {
    const std::optional<TreeConfig> config = TreeConfig::read(v.payload, v.payload_bytes);
    if (!config || !config->inputs.empty() || config->target != node_)
        return drop("tree configuration of " + std::to_string(v.payload_bytes) + " bytes for a host (context " +
                    std::to_string(context) + ")");
    Context& c = context_at(context);
    if (c.tree.state != TreeLink::State::Joining)
        return drop("tree configuration for context " + std::to_string(context) + ", which did not join a tree");
    c.tree.state = TreeLink::State::Ready;
    if (config->slot == TreeConfig::kSharpFallbackSlot) {  // the aggregation manager gave the group no tree
        c.tree.state = TreeLink::State::Fallback;
        ++statistics_.sharp_fallback_groups;
    }
    c.tree.slot = config->slot;
    c.tree.generation = config->generation;
    c.tree.parent = config->parent;
    c.tree.root_vertex = config->root_vertex;
    progress(context);
}

// ---------------------------------------------------------------------------
// Trace: collective calls and their phases (set_trace; only with a writer)

namespace {
/// "8 B", "4 KiB", "1 MiB": a size as the benchmark rows name it.
std::string size_text(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}
}  // namespace

void CollectiveEngine::set_trace(TraceWriter* writer, std::uint32_t pid) {
    trace_ = writer;
    trace_pid_ = pid;
}

void CollectiveEngine::trace_event(std::uint32_t tid, const char* category, const std::string& name,
                                   std::uint64_t begin, std::uint64_t end, const std::string& args) {
    // A phase that ended before its call's drawn start (the call was moved
    // to where the previous call on the row finished returning its result,
    // and a short agreement can finish before that) is not drawn: an
    // unsigned end - begin would wrap round.
    if (end < begin) return;
    if (!trace_->accepting()) {
        trace_->count_dropped();
        return;
    }
    trace_->complete(trace_pid_, tid, category, name, begin, end - begin, args);
}

void CollectiveEngine::trace_call_begin(unsigned context, const NetworkHeader& h, const std::uint8_t* prefix,
                                        std::size_t prefix_bytes, const sc_core::sc_time& arrival) {
    CallTrace call;
    call.begin = arrival.value();
    call.name = std::string(to_string(h.opcode));
    const auto op = operation_from_code(h.operation);
    const auto type = datatype_from_code(h.datatype);
    call.args = "\"context\":" + std::to_string(context) +
                ",\"op\":" + json_quote(op ? std::string(to_string(*op)) : std::to_string(h.operation)) +
                ",\"datatype\":" + json_quote(type ? std::string(to_string(*type)) : std::to_string(h.datatype)) +
                ",\"algorithm\":" + json_quote(std::string(to_string(static_cast<Algorithm>(h.algorithm & 3))));
    if (prefix_bytes >= CollectiveEnvelope::kBytes) {
        const CollectiveEnvelope e = CollectiveEnvelope::read(prefix);
        const bool variable = e.elements_per_block == kVariableCounts;
        if (variable)
            call.name += " unequal counts";
        else if (h.opcode != Opcode::Barrier)
            call.name += " " + size_text(block_bytes(h.opcode, e.elements_per_block, type.value_or(Datatype::UInt8)));
        call.name += " seq " + std::to_string(e.sequence);
        call.args += ",\"count\":" + (variable ? std::string("\"unequal\"") : std::to_string(e.elements_per_block)) +
                     ",\"root\":" + std::to_string(e.root) + ",\"size\":" + std::to_string(e.size) +
                     ",\"sequence\":" + std::to_string(e.sequence);
    }
    context_at(context).calls.push_back(std::move(call));
}

void CollectiveEngine::trace_call_end(unsigned context, CollectiveError code, std::uint32_t mask) {
    CallTrace& call = context_at(context).calls.back();
    call.finished = sim_now().value();
    call.args +=
        ",\"error\":" + std::to_string(static_cast<unsigned>(code)) + ",\"mismatch_mask\":" + std::to_string(mask);
    trace_write_calls(context);
}

void CollectiveEngine::trace_result_left(unsigned context, std::uint64_t tail_ps) {
    for (CallTrace& call : context_at(context).calls)
        if (call.result_end == kNever) {
            call.result_end = tail_ps;
            break;
        }
    trace_write_calls(context);
}

void CollectiveEngine::trace_write_calls(unsigned context) {
    Context& c = context_at(context);
    const std::uint32_t lane = kTraceLaneBase + context * kTraceLanesPerRow;
    while (!c.calls.empty() && c.calls.front().finished != kNever && c.calls.front().result_end != kNever) {
        const CallTrace& call = c.calls.front();
        trace_->name_thread(trace_pid_, lane, "collective row " + std::to_string(context));
        // A request that came while the previous call on its row was still
        // returning its result starts there: a lane's slices must nest.
        const std::uint64_t begin = std::max(call.begin, c.last_call_end);
        const std::uint64_t end = std::max(call.finished, call.result_end);
        trace_event(lane, "collective", call.name, begin, end, call.args);
        if (call.agree_end != kNever)
            trace_event(lane, "collective_phase", "agreement", std::max(begin, call.agree_begin), call.agree_end, {});
        if (call.result_begin != kNever)
            trace_event(lane, "collective_phase", "result to host", std::max(begin, call.result_begin), call.result_end,
                        "\"bytes\":" + std::to_string(call.result_bytes));
        c.last_call_end = end;
        c.calls.pop_front();
    }
}

void CollectiveEngine::trace_step(unsigned context, std::size_t k) {
    const Active& a = context_at(context).active;
    StepRun& s = context_at(context).active.steps[k];
    const std::uint64_t now = sim_now().value();
    if (s.trace_first_ps == kNever) s.trace_first_ps = now;
    if (!s.send_done() || !s.recv_done()) return;
    if (!trace_->accepting()) {
        trace_->count_dropped();
        return;
    }
    const auto lane = static_cast<std::uint32_t>(kTraceLaneBase + context * kTraceLanesPerRow + k + 1);
    trace_->name_thread(trace_pid_, lane,
                        "collective row " + std::to_string(context) + " step " + std::to_string(k + 1));
    std::string name = "step " + std::to_string(k + 1) + ":";
    std::string args = "\"apply\":" + json_quote(s.apply == Apply::Copy ? "copy" : "combine");
    if (s.send_peer >= 0) {
        name += " send to rank " + std::to_string(s.send_peer);
        args += ",\"send_node\":" + std::to_string(s.send_node) + ",\"send_bytes\":" + std::to_string(s.send.bytes()) +
                ",\"send_packets\":" + std::to_string(s.send_chunks);
    }
    if (s.recv_peer >= 0) {
        name += std::string(s.send_peer >= 0 ? " /" : "") + " receive from rank " + std::to_string(s.recv_peer);
        const std::optional<std::uint16_t> from = peer_node(a, s.recv_peer);
        args += ",\"receive_node\":" + (from ? std::to_string(*from) : std::string("null")) +
                ",\"receive_bytes\":" + std::to_string(s.recv.bytes()) +
                ",\"receive_packets\":" + std::to_string(s.recv_chunks);
    }
    trace_->complete(trace_pid_, lane, "collective_step", name, s.trace_first_ps, now - s.trace_first_ps, args);
}

// ---------------------------------------------------------------------------
// CSRs

void CollectiveEngine::on_csr(tlm::tlm_generic_payload& payload, sc_core::sc_time& /*delay*/) {
    const std::uint64_t address = payload.get_address();
    if (payload.get_data_length() != 4 || address % 4 != 0 || address < regmap::ACCELERATOR_BASE ||
        address >= regmap::ACCELERATOR_END) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const auto offset = static_cast<std::uint32_t>(address);
    std::uint32_t value = 0;
    const bool write = payload.is_write();
    if (write) std::memcpy(&value, payload.get_data_ptr(), 4);
    if (offset >= regmap::CGRA_BASE && offset < regmap::CGRA_END) {
        const std::uint32_t read = cgra_csr(offset, write, value);
        if (!write) std::memcpy(payload.get_data_ptr(), &read, 4);
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const CsrOutcome out = table_.access(
        offset, write, value, [this](unsigned row) { return row_busy(row); },
        AcceleratorCounters{statistics_.dropped, statistics_.errors});
    const std::uint32_t read = out.read;
    const bool mapped = out.mapped;
    switch (out.command) {
        case CsrOutcome::Command::None:
            break;
        case CsrOutcome::Command::Load:
            load_row(out.row);
            break;
        case CsrOutcome::Command::LoadRefusedBusy:
            ++statistics_.loads_refused_busy;
            SC_REPORT_WARNING(kReportType, (std::string(name()) + ": CT row " + std::to_string(out.row) +
                                            " busy (a collective runs on it or is queued): LOAD refused, the row "
                                            "is unchanged (CT_COMMAND_STATUS)")
                                               .c_str());
            break;
        case CsrOutcome::Command::Release:
            release_row(out.row);
            break;
    }
    if (out.forwarding_changed) forget_nodes(std::nullopt);
    if (!write) std::memcpy(payload.get_data_ptr(), &read, 4);
    if (!mapped && write)
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": write to unmapped accelerator CSR " +
                                        std::to_string(offset) + " ignored")
                                           .c_str());
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---------------------------------------------------------------------------
// SmartFuse CGRA (docs/FUSED.md)

std::uint32_t CollectiveEngine::cgra_csr(std::uint32_t offset, bool write, std::uint32_t value) {
    namespace rm = regmap;
    CgraState& g = cgra_;
    switch (offset) {
        case rm::CGRA_CAPABILITIES:
            return rm::cgra_capabilities::PES.make(config_.cgra_pes) |
                   rm::cgra_capabilities::LANES.make(config_.cgra_lanes) |
                   rm::cgra_capabilities::SLOTS.make(rm::kCgraSlots);
        case rm::CGRA_SLOT:
            if (write) g.slot = value & 0xFF;
            return g.slot;
        case rm::CGRA_STAGING_INDEX:
            if (write) g.staging_index = value;
            return g.staging_index;
        case rm::CGRA_STAGING_WORD:
            // Words past the staging memory are counted but not kept: LOAD refuses the length.
            if (write) {
                if (g.staging_index < cgra::kMaxWords) {
                    if (g.staging.size() <= g.staging_index) g.staging.resize(g.staging_index + 1);
                    g.staging[g.staging_index] = value;
                }
                ++g.staging_index;
            }
            return 0;
        case rm::CGRA_COMMAND:
            if (write) cgra_command(value);
            return 0;
        case rm::CGRA_STATUS:
            return g.status;
        case rm::CGRA_ARM_CONTEXT:
            if (write) g.arm_context = value & 0x1F;
            return g.arm_context;
        case rm::CGRA_ARM_SEQUENCE:
            if (write) g.arm_sequence = value;
            return g.arm_sequence;
        case rm::CGRA_ARM_SLOT:
            if (write) g.arm_slot = value & 0xFF;
            return g.arm_slot;
        case rm::CGRA_ARM_THEN:
            if (write) g.arm_then = value & 0xF;
            return g.arm_then;
        case rm::CGRA_RUNS:
            return g.runs;
        case rm::CGRA_REFUSED:
            return g.refused;
        default:
            if (write)
                SC_REPORT_WARNING(kReportType, (std::string(name()) + ": write to unmapped CGRA register " +
                                                std::to_string(offset) + " ignored")
                                                   .c_str());
            return 0xFFFFFFFFu;
    }
}

void CollectiveEngine::cgra_command(std::uint32_t command) {
    namespace rm = regmap;
    CgraState& g = cgra_;
    const auto refuse = [&](std::uint32_t error, std::uint32_t instruction, const std::string& why) {
        g.status = rm::cgra_status::RESULT.make(rm::kCgraRefused) | rm::cgra_status::ERROR.make(error) |
                   rm::cgra_status::INSTRUCTION.make(instruction & 0xFF);
        ++g.refused;
        ++statistics_.cgra_refused;
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": " + why).c_str());
    };
    if (rm::cgra_command::LOAD.get(command)) {
        if (g.slot >= rm::kCgraSlots) {
            refuse(static_cast<std::uint32_t>(cgra::LoadError::Length), 0,
                   "CGRA LOAD refused: slot " + std::to_string(g.slot) + " is not 0.." +
                       std::to_string(rm::kCgraSlots - 1));
        } else if (g.staging_index > cgra::kMaxWords) {
            refuse(static_cast<std::uint32_t>(cgra::LoadError::Length), 0,
                   "CGRA program refused: " + std::to_string(g.staging_index) +
                       " words staged, the staging memory holds " + std::to_string(cgra::kMaxWords) + " (slot " +
                       std::to_string(g.slot) + " unchanged)");
        } else {
            const std::size_t staged = g.staging_index;
            std::vector<std::uint32_t> words(staged, 0);
            std::copy_n(g.staging.begin(), std::min(staged, g.staging.size()), words.begin());
            const cgra::LoadOutcome out = cgra::decode(words, cgra::Limits{config_.cgra_pes, config_.cgra_lanes});
            if (out.program) {
                g.slots[g.slot] = *out.program;
                g.status = rm::cgra_status::RESULT.make(rm::kCgraDone);
            } else {
                refuse(static_cast<std::uint32_t>(out.error), out.instruction,
                       out.why + " (slot " + std::to_string(g.slot) + " unchanged)");
            }
        }
        g.staging.clear();
        g.staging_index = 0;
    }
    if (rm::cgra_command::ARM.get(command)) {
        if (g.arm_then != 0 && g.arm_then != static_cast<std::uint32_t>(Opcode::Allgather) &&
            g.arm_then != static_cast<std::uint32_t>(Opcode::Alltoall) && g.arm_then != rm::kCgraThenAllgathervCounts) {
            refuse(3, 0,
                   "CGRA ARM refused: the engine chains only an allgather (opcode 6) or an alltoall (opcode 10) "
                   "after a program, not " +
                       std::to_string(g.arm_then));
        } else if (g.arm_slot >= rm::kCgraSlots || !g.slots[g.arm_slot]) {
            refuse(1, 0, "CGRA ARM refused: slot " + std::to_string(g.arm_slot) + " holds no program");
        } else if (g.arm_then != 0 && cgra::is_ingress(*g.slots[g.arm_slot])) {
            refuse(3, 0, "CGRA ARM refused: an ingress kernel (GEMM, SPMV_BAND) chains no collective");
        } else if (!table_.valid(g.arm_context)) {
            refuse(2, 0, "CGRA ARM refused: context " + std::to_string(g.arm_context) + " holds no communicator");
        } else {
            const bool counts_next = g.arm_then == rm::kCgraThenAllgathervCounts;
            const Opcode then =
                g.arm_then == 0 || counts_next ? Opcode::Send : static_cast<Opcode>(g.arm_then);  // checked above
            g.armed[g.arm_context] = CgraState::Armed{g.arm_sequence, g.arm_slot, then, counts_next};
            g.status = rm::cgra_status::RESULT.make(rm::kCgraDone);
        }
    }
}

bool CollectiveEngine::cgra_ready(unsigned context) {
    Active& a = context_at(context).active;
    if (a.results_final < a.result_chunks) return false;  // the program streams over the whole result
    const std::uint64_t now = sim_now().value();
    if (a.cgra_ready_ps == kNever) {
        const std::size_t element = cgra::element_bytes(a.cgra->type);
        if (a.carry_payload && a.result.bytes() > 0) {
            std::vector<std::uint8_t> bytes(a.result.bytes());
            a.buffer.gather(a.result, 0, bytes.size(), bytes.data());
            cgra::run_program(*a.cgra, bytes.data(), bytes.size(), a.rank, a.envelope.size);
            a.buffer.scatter(a.result, bytes.data(), 0, bytes.size());
        }
        const std::uint64_t cycles = cgra::program_cycles(
            *a.cgra, a.result.bytes() / element, config_.cgra_cycles_per_vector, config_.cgra_pe_latency_cycles);
        a.cgra_ready_ps = now + cycles * static_cast<std::uint64_t>(cycle_.value());
        ++cgra_.runs;
        ++statistics_.cgra_runs;
        statistics_.cgra_elements += a.result.bytes() / element;
        statistics_.cgra_cycles += cycles;
        cgra_.running_contexts |= 1u << context;
        cgra_event_.notify(sim_time(a.cgra_ready_ps - now));
    }
    return now >= a.cgra_ready_ps;
}

void CollectiveEngine::on_cgra_done() {
    if (cgra_.running_contexts == 0) return;
    const std::uint64_t now = sim_now().value();
    for (std::uint32_t busy = cgra_.running_contexts; busy != 0; busy &= busy - 1) {
        const auto context = static_cast<unsigned>(__builtin_ctz(busy));
        Active& a = context_at(context).active;
        if (!a.running || !a.cgra) {  // ended meanwhile (an abort)
            cgra_.running_contexts &= ~(1u << context);
            continue;
        }
        if (a.cgra_ready_ps > now) continue;
        cgra_.running_contexts &= ~(1u << context);
        progress(context);
    }
    // One event for every context's program: a later program's notification
    // was overridden by an earlier one's (SystemC keeps the earliest), so
    // each still running asks again.
    for (std::uint32_t busy = cgra_.running_contexts; busy != 0; busy &= busy - 1) {
        const Active& a = context_at(static_cast<unsigned>(__builtin_ctz(busy))).active;
        if (a.running && a.cgra && a.cgra_ready_ps != kNever && a.cgra_ready_ps > now)  // kNever: not started
            cgra_event_.notify(sim_time(a.cgra_ready_ps - now));
    }
}

// Ingress kernels (higher-order collectives, docs/FUSED.md): the host's
// request carries the kernel's input (matrix and vector blocks); the CGRA
// turns it into the reduce-scatter's contribution before the collective
// starts, so the partial products are summed in transit.
bool CollectiveEngine::ingress_armed(unsigned context, const std::uint8_t* prefix, std::size_t bytes) const {
    const auto& armed = cgra_.armed[context];
    if (!armed || bytes < CollectiveEnvelope::kBytes) return false;
    const auto& program = cgra_.slots[armed->slot];
    return program && cgra::is_ingress(*program) && CollectiveEnvelope::read(prefix).sequence == armed->sequence;
}

bool CollectiveEngine::run_ingress(unsigned context, Request& r) {
    auto& armed = cgra_.armed[context];
    const cgra::Program program = *cgra_.slots[armed->slot];
    armed.reset();
    const CollectiveEnvelope e = CollectiveEnvelope::read(r.bytes.data());
    const std::optional<int> rank = table_.valid(context) ? table_.row(context).own_rank() : std::nullopt;
    const cgra::IngressShape shape = cgra::ingress_shape(program, e.size);
    const std::size_t element = cgra::element_bytes(program.type);
    const auto datatype = datatype_from_code(r.network.datatype);
    if (!rank || r.network.opcode != Opcode::ReduceScatter || e.elements_per_block == kVariableCounts || !datatype ||
        element_size(*datatype) != element || r.bytes.size() != CollectiveEnvelope::kBytes + shape.input * element ||
        shape.output != std::uint64_t{e.elements_per_block} * e.size) {
        // Left as it came: start() refuses its size, every member learns it.
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": context " + std::to_string(context) +
                                        ": the request does not fit the armed ingress kernel (a reduce-scatter of "
                                        "its output, its input after the envelope); not run")
                                           .c_str());
        return false;
    }
    std::vector<std::uint8_t> out(CollectiveEnvelope::kBytes + shape.output * element, 0);
    std::memcpy(out.data(), r.bytes.data(), CollectiveEnvelope::kBytes);
    if (!config_.timing_only)
        cgra::run_ingress(program, r.bytes.data() + CollectiveEnvelope::kBytes, out.data() + CollectiveEnvelope::kBytes,
                          *rank, e.size);
    const std::uint64_t cycles = cgra::ingress_cycles(program, e.size, config_.cgra_pes, config_.cgra_cycles_per_vector,
                                                      config_.cgra_pe_latency_cycles);
    const std::uint64_t now = sim_now().value();
    ++cgra_.runs;
    ++statistics_.cgra_runs;
    statistics_.cgra_elements += shape.output;
    statistics_.cgra_cycles += cycles;
    ingress_contexts_ |= 1u << context;
    Context& c = context_at(context);
    if (!c.active.running && c.waiting.empty() && !c.streaming &&
        tree_ready(context, r.network, out.data(), CollectiveEnvelope::kBytes)) {
        // The context is free: the collective starts now and the kernel's
        // output streams into it as it is made, the way a host's request
        // streams in (the reduce-scatter's first steps overlap the multiply).
        start(context, r.network, out.data(), CollectiveEnvelope::kBytes, static_cast<std::uint32_t>(out.size()),
              r.first_at);
        c.feed = Context::IngressFeed{std::move(out), static_cast<std::uint32_t>(CollectiveEnvelope::kBytes), now,
                                      program, element};
        spare_buffers_.push_back(std::move(r.bytes));
        r = Request{};
        feed_ingress(context);
        progress(context);
        return true;
    }
    // Busy: queued whole, ready when the kernel is done.
    r.bytes = std::move(out);
    r.received = static_cast<std::uint32_t>(r.bytes.size());
    const std::uint64_t delay = cycles * static_cast<std::uint64_t>(cycle_.value());
    r.ready_ps = now + delay;
    ingress_event_.notify(sim_time(delay));
    return false;
}

void CollectiveEngine::feed_ingress(unsigned context) {
    Context& c = context_at(context);
    Active& a = c.active;
    Context::IngressFeed& f = *c.feed;
    const std::uint64_t now = sim_now().value(), cycle = static_cast<std::uint64_t>(cycle_.value());
    if (!a.running || a.host_received != f.fed) {  // ended meanwhile (an error, an abort): the rest is not sent
        c.discard_host = 0;                        // (no host packets follow)
        c.feed.reset();
        return;
    }
    // The output streams on in element order as it becomes final
    // (cgra::ingress_ready_cycles), a packet payload at a time.
    const auto due = [&](std::uint64_t end) {
        const std::uint64_t done = (end - CollectiveEnvelope::kBytes + f.element - 1) / f.element;
        return f.begin_ps + cgra::ingress_ready_cycles(f.program, a.envelope.size, a.rank, done, config_.cgra_pes,
                                                       config_.cgra_cycles_per_vector, config_.cgra_pe_latency_cycles) *
                                cycle;
    };
    const std::uint64_t chunk = std::max<std::uint64_t>(1, config_.packet_payload_bytes);
    while (f.fed < f.bytes.size()) {
        const std::uint64_t end = std::min<std::uint64_t>(f.bytes.size(), f.fed + chunk);
        if (due(end) > now) {
            ingress_event_.notify(sim_time(due(end) - now));
            return;
        }
        a.take_contribution(f.fed, f.bytes.data() + f.fed, end - f.fed);
        a.host_received += static_cast<std::uint32_t>(end - f.fed);
        f.fed = static_cast<std::uint32_t>(end);
    }
    c.feed.reset();
}

void CollectiveEngine::on_ingress_ready() {
    const std::uint64_t now = sim_now().value();
    for (std::uint32_t held = ingress_contexts_; held != 0; held &= held - 1) {
        const auto context = static_cast<unsigned>(__builtin_ctz(held));
        Context& c = context_at(context);
        if (c.feed) {
            const std::uint32_t before = c.feed->fed;
            feed_ingress(context);
            if (!c.feed || c.feed->fed != before) progress(context);
        }
        std::uint64_t next = kNever;  // the earliest request still in its kernel
        for (const Request& r : c.waiting)
            if (r.ready_ps > now) next = std::min(next, r.ready_ps);
        if (next == kNever && !c.feed) ingress_contexts_ &= ~(1u << context);
        if (!c.waiting.empty() && c.waiting.front().ready_ps <= now) progress(context);
        // One event for every context's kernels, and SystemC keeps only the
        // earliest notification: a context still waiting asks again.
        if (next != kNever) ingress_event_.notify(sim_time(next - now));
    }
}

std::optional<CollectiveEngine::Context::FusedCounts> CollectiveEngine::counts_from_output(unsigned context) const {
    const Active& a = context_at(context).active;
    const std::uint64_t bytes = a.result.bytes();
    if (!a.carry_payload || a.cgra->type != cgra::ElementType::Int32 || bytes % 4 != 0) return std::nullopt;
    std::vector<std::uint8_t> output(bytes);
    a.buffer.gather(a.result, 0, bytes, output.data());
    Context::FusedCounts fused;
    fused.sequence = a.envelope.sequence + 1;
    std::int64_t previous = 0;
    for (std::uint64_t at = 0; at < bytes; at += 4) {
        const auto end = static_cast<std::int32_t>(load_le32(output.data() + at));
        if (end < previous) return std::nullopt;  // not block ends: the host's placeholders stand (a mismatch)
        fused.counts.push_back(static_cast<std::uint32_t>(end - previous));
        previous = end;
    }
    return fused;
}

CollectiveEngine::Request CollectiveEngine::chained_request(unsigned context) const {
    const Active& a = context_at(context).active;
    Request r;
    r.network = a.header;
    r.network.opcode = a.cgra_then;
    r.network.operation = 0;
    r.network.algorithm = static_cast<std::uint8_t>(default_algorithm(a.cgra_then));
    CollectiveEnvelope e = a.envelope;
    const std::uint64_t bytes = a.result.bytes();
    // An allgather contributes the whole output, an alltoall one block per
    // member (an output that does not split evenly is a contribution the
    // request's own check refuses on every member).
    const std::uint64_t elements = bytes / element_size(static_cast<Datatype>(a.header.datatype));
    e.elements_per_block =
        static_cast<std::uint32_t>(a.cgra_then == Opcode::Alltoall && e.size > 0 ? elements / e.size : elements);
    e.root = 0;
    e.global_root = e.global_rank0;
    e.sequence = a.envelope.sequence + 1;
    r.bytes.resize(CollectiveEnvelope::kBytes + bytes);
    e.write(r.bytes.data());
    if (a.carry_payload && bytes) a.buffer.gather(a.result, 0, bytes, r.bytes.data() + CollectiveEnvelope::kBytes);
    r.received = static_cast<std::uint32_t>(r.bytes.size());
    r.first_at = sim_now();
    return r;
}

}  // namespace isvp
