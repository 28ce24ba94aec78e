#include "isvp/collective_engine.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "isvp/register_map.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/collective";
constexpr std::uint32_t kRows = regmap::kContextCount;
constexpr std::uint32_t kAlgorithmsInSwitch = 0x7;  // binomial, recursive doubling, recursive halving
}  // namespace

// ---------------------------------------------------------------------------
// Config

void CollectiveConfig::declare(Parameters& p) {
    const CollectiveConfig d;
    p.declare_real("collective.clock_mhz", "MHz", d.clock_mhz, 1.0, 5000.0, "collective engine / CGR clock");
    p.declare_integer("collective.packet_payload_bytes", "bytes", d.packet_payload_bytes, 16, 16384,
                      "payload of each packet the engine generates (power of two)");
    p.declare_integer("collective.phits_per_cycle", "phits", d.phits_per_cycle, 1, 16,
                      "output serialisation width per cycle");
    p.declare_integer("collective.host_buffer_phits", "phits", d.host_buffer_phits, 1, 1 << 20,
                      "host_in buffer: credits granted to the QDMA");
    p.declare_integer("collective.net_buffer_phits", "phits", d.net_buffer_phits, 1, 1 << 20,
                      "net_in buffer: credits granted to the router");
    p.declare_integer("collective.early_buffer_bytes", "bytes", static_cast<std::int64_t>(d.early_buffer_bytes), 0,
                      1ll << 32, "peers' step data held before it is consumed; beyond it net_in back-pressures");
    p.declare_integer("collective.max_buffer_bytes", "bytes", static_cast<std::int64_t>(d.max_buffer_bytes), 0,
                      1ll << 32, "largest collective buffer; larger requests complete with error 4");
    p.declare_integer("collective.cgr_units", "units", d.cgr_units, 1, 255, "CGR units (ACCEL_CAPABILITIES)");
    p.declare_integer("collective.radix", "ports", d.radix, 1, 255, "switch radix (ACCEL_CAPABILITIES)");
}

CollectiveConfig CollectiveConfig::from(const Parameters& p) {
    CollectiveConfig c;
    c.clock_mhz = p.real("collective.clock_mhz");
    c.packet_payload_bytes = static_cast<std::uint32_t>(p.integer("collective.packet_payload_bytes"));
    c.phits_per_cycle = static_cast<unsigned>(p.integer("collective.phits_per_cycle"));
    c.host_buffer_phits = static_cast<std::uint32_t>(p.integer("collective.host_buffer_phits"));
    c.net_buffer_phits = static_cast<std::uint32_t>(p.integer("collective.net_buffer_phits"));
    c.early_buffer_bytes = static_cast<std::uint64_t>(p.integer("collective.early_buffer_bytes"));
    c.max_buffer_bytes = static_cast<std::uint64_t>(p.integer("collective.max_buffer_bytes"));
    c.cgr_units = static_cast<unsigned>(p.integer("collective.cgr_units"));
    c.radix = static_cast<unsigned>(p.integer("collective.radix"));
    c.validate();
    return c;
}

void CollectiveConfig::validate() const {
    if (!(clock_mhz >= 1.0 && clock_mhz <= 5000.0))
        refuse_parameter("collective.clock_mhz", "a number in [1, 5000] MHz", clock_mhz);
    if (packet_payload_bytes < 16 || packet_payload_bytes > 16384 || !is_power_of_two(packet_payload_bytes))
        refuse_parameter("collective.packet_payload_bytes", "a power of two in [16, 16384] bytes",
                         packet_payload_bytes);
    if (phits_per_cycle < 1 || phits_per_cycle > 16)
        refuse_parameter("collective.phits_per_cycle", "an integer in [1, 16]", phits_per_cycle);
    const std::uint32_t packet_phits =
        phits_of(packet_payload_bytes + static_cast<std::uint32_t>(kNetworkPacketOverhead));
    if (host_buffer_phits < packet_phits || host_buffer_phits > (1u << 20))
        refuse_parameter("collective.host_buffer_phits",
                         "an integer in [" + std::to_string(packet_phits) + " (one packet), 1048576] phits",
                         host_buffer_phits);
    if (net_buffer_phits < packet_phits || net_buffer_phits > (1u << 20))
        refuse_parameter("collective.net_buffer_phits",
                         "an integer in [" + std::to_string(packet_phits) + " (one packet), 1048576] phits",
                         net_buffer_phits);
    if (early_buffer_bytes > (1ull << 32))
        refuse_parameter("collective.early_buffer_bytes", "an integer in [0, 2^32] bytes",
                         static_cast<double>(early_buffer_bytes));
    if (max_buffer_bytes > (1ull << 32))
        refuse_parameter("collective.max_buffer_bytes", "an integer in [0, 2^32] bytes",
                         static_cast<double>(max_buffer_bytes));
    if (cgr_units < 1 || cgr_units > 255) refuse_parameter("collective.cgr_units", "an integer in [1, 255]", cgr_units);
    if (radix < 1 || radix > 255) refuse_parameter("collective.radix", "an integer in [1, 255]", radix);
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
      node_(node),
      nodes_(nodes),
      config_(config),
      forwarding_(1u << 16) {
    config_.validate();
    aglu_ = make_aglu_engine(aglu);
    cycle_ = sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS);
    size_code_ = *size_code_for(config_.packet_payload_bytes);
    for (std::uint32_t r = 0; r < forwarding_.size(); ++r) forwarding_[r] = static_cast<std::uint16_t>(r);
    net_port_.socket = &net_out;
    host_port_.socket = &host_out;

    host_in.register_b_transport(this, &CollectiveEngine::on_host_in);
    net_in.register_b_transport(this, &CollectiveEngine::on_net_in);
    net_out_credit.register_b_transport(this, &CollectiveEngine::on_credit_net);
    host_out_credit.register_b_transport(this, &CollectiveEngine::on_credit_host);
    csr.register_b_transport(this, &CollectiveEngine::on_csr);

    SC_HAS_PROCESS(CollectiveEngine);
    SC_METHOD(grant_initial_credits);
    SC_METHOD(drain_net);
    sensitive << net_port_.wake;
    dont_initialize();
    SC_METHOD(drain_host);
    sensitive << host_port_.wake;
    dont_initialize();
    SC_METHOD(on_resume);
    sensitive << resume_;
    dont_initialize();
}

// Packets still queued at shutdown are not released: they may come from
// other nodes' packet pools, destroyed before this engine; every pool frees
// its own payloads.
CollectiveEngine::~CollectiveEngine() = default;

void CollectiveEngine::grant_initial_credits() {
    host_credit_message_.send(host_in_credit, 0, config_.host_buffer_phits, sc_core::SC_ZERO_TIME);
    net_credit_message_.send(net_in_credit, 0, config_.net_buffer_phits, sc_core::SC_ZERO_TIME);
}

void CollectiveEngine::drop(const std::string& why) {
    ++statistics_.dropped;
    SC_REPORT_WARNING(kReportType,
                      (std::string(name()) + ": dropped a collective packet: " + why + " (ACCEL_DROPPED)").c_str());
}

std::vector<std::uint8_t> CollectiveEngine::take_buffer() {
    if (spare_buffers_.empty()) return {};
    std::vector<std::uint8_t> b = std::move(spare_buffers_.back());
    spare_buffers_.pop_back();
    return b;
}

void CollectiveEngine::return_credits(CreditTo to, std::uint32_t phits, const sc_core::sc_time& delay) {
    if (to == CreditTo::HostIn) host_credit_message_.send(host_in_credit, 0, phits, delay);
    if (to == CreditTo::NetIn) net_credit_message_.send(net_in_credit, 0, phits, delay);
}

// ---------------------------------------------------------------------------
// Inputs

std::optional<CollectiveEngine::Arrived> CollectiveEngine::arrive(tlm::tlm_generic_payload& payload,
                                                                  const sc_core::sc_time& delay, CreditTo from,
                                                                  OutPort& pass_to, std::uint64_t& passed) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    Arrived in{std::nullopt, phits_of(length), delay + packet_info(payload).tail_after};
    std::string why;
    in.view = NetworkPacketView::parse(payload.get_data_ptr(), length, &why);
    if (!in.view) {
        drop(std::string("malformed packet from the ") + (from == CreditTo::HostIn ? "host" : "network") + ": " + why);
        return_credits(from, in.phits, in.tail);
        return std::nullopt;
    }
    if (in.view->network.opcode == Opcode::Send) {  // point-to-point: straight through
        payload.acquire();
        pass_to.queue.push_back(Outgoing{&payload, from});
        pass_to.wake.notify(delay);
        ++passed;
        return std::nullopt;
    }
    return in;
}

void CollectiveEngine::on_host_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const auto in = arrive(payload, delay, CreditTo::HostIn, net_port_, statistics_.passed_to_network);
    if (!in) return;
    const auto& view = in->view;
    const std::uint32_t phits = in->phits;
    const sc_core::sc_time tail = in->tail;
    Context& c = contexts_[view->network.context_id];
    Request& r = c.assembly;
    const std::uint32_t total = view->processor.message_bytes;
    if (!r.open) {
        if (view->offset != 0) {
            drop("request packet at offset " + std::to_string(view->offset) + " without its first packet");
            return_credits(CreditTo::HostIn, phits, tail);
            return;
        }
        r.open = true;
        r.network = view->network;
        r.processor = view->processor;
        r.received = 0;
        if (r.bytes.capacity() == 0) r.bytes = take_buffer();
        r.bytes.resize(total);
    }
    if (total != r.processor.message_bytes || view->network.opcode != r.network.opcode ||
        static_cast<std::uint64_t>(view->offset) + view->payload_bytes > total) {
        drop("request packet inconsistent with its message");
        return_credits(CreditTo::HostIn, phits, tail);
        return;
    }
    if (view->payload_bytes) std::memcpy(r.bytes.data() + view->offset, view->payload, view->payload_bytes);
    r.received += view->payload_bytes;
    return_credits(CreditTo::HostIn, phits, tail);
    if (r.received >= total) {
        r.open = false;
        c.waiting.push_back(std::move(r));
        r = Request{};
        progress(view->network.context_id);
    }
}

void CollectiveEngine::on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const auto in = arrive(payload, delay, CreditTo::NetIn, host_port_, statistics_.passed_to_host);
    if (!in) return;
    const auto& view = in->view;
    const std::uint32_t phits = in->phits;
    const sc_core::sc_time tail = in->tail;
    const unsigned context = view->network.context_id;
    if (!ct_[context].valid) {
        drop("context " + std::to_string(context) + " has no valid CT row");
        return_credits(CreditTo::NetIn, phits, tail);
        return;
    }
    if (view->network.step == 0 || view->network.step == kErrorStep) {
        drop("step packet with step " + std::to_string(view->network.step));
        return_credits(CreditTo::NetIn, phits, tail);
        return;
    }
    const MessageStore::AddResult added = store_.add(*view);
    if (added == MessageStore::AddResult::Inconsistent) {
        drop("step packet inconsistent with its message (context " + std::to_string(context) + ", sender " +
             std::to_string(view->processor.rank) + ")");
        return_credits(CreditTo::NetIn, phits, tail);
        return;
    }
    if (store_.stored_bytes() <= config_.early_buffer_bytes)
        return_credits(CreditTo::NetIn, phits, tail);
    else
        deferred_net_credits_ += phits;  // back-pressure until consumed
    if (added == MessageStore::AddResult::Completed) progress(context);
}

void CollectiveEngine::release_deferred_credits() {
    if (deferred_net_credits_ == 0 || store_.stored_bytes() > config_.early_buffer_bytes) return;
    return_credits(CreditTo::NetIn, deferred_net_credits_, sc_core::SC_ZERO_TIME);
    deferred_net_credits_ = 0;
}

void CollectiveEngine::on_credit(OutPort& port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    CreditReturn* credit = nullptr;
    payload.get_extension(credit);
    if (credit == nullptr) {
        payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": credit transaction without CreditReturn").c_str());
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    if (credit->vc != 0) return;  // only VC 0 is used
    if (delay == sc_core::SC_ZERO_TIME) {
        port.credits += credit->phits;
        port.wake.notify(sc_core::SC_ZERO_TIME);
    } else {
        port.arriving.emplace(sc_core::sc_time_stamp() + delay, credit->phits);
        port.wake.notify(delay);
    }
}

// ---------------------------------------------------------------------------
// Outputs

void CollectiveEngine::drain(OutPort& port) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    while (!port.arriving.empty() && port.arriving.top().first <= now) {
        port.credits += port.arriving.top().second;
        port.arriving.pop();
    }
    while (!port.queue.empty()) {
        if (now < port.free_at) {
            port.wake.notify(port.free_at - now);
            return;
        }
        Outgoing& o = port.queue.front();
        const auto bytes = static_cast<std::uint32_t>(o.packet->get_data_length());
        const std::uint32_t phits = phits_of(bytes);
        if (port.credits < phits) {
            if (!port.arriving.empty()) port.wake.notify(port.arriving.top().first - now);
            return;  // a zero-delay credit return notifies wake
        }
        const std::uint32_t cycles = (phits + config_.phits_per_cycle - 1) / config_.phits_per_cycle;
        PacketInfo& info = packet_info(*o.packet);
        info.vc = 0;
        info.tail_after = cycle_ * static_cast<double>(cycles - 1);
        if (o.credit_to == CreditTo::None) info.injected = now;
        port.credits -= phits;
        port.free_at = now + cycle_ * static_cast<double>(cycles);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        (*port.socket)->b_transport(*o.packet, delay);
        if (!o.packet->is_response_ok())
            SC_REPORT_ERROR(kReportType, (std::string(name()) + ": a receiver refused a packet it had granted "
                                                                "credits for (packet_channel.h)")
                                             .c_str());
        return_credits(o.credit_to, phits, info.tail_after);
        o.packet->release();
        port.queue.pop_front();
    }
}

void CollectiveEngine::emit(OutPort& port, NetworkHeader network, ProcessorHeader processor, const std::uint8_t* data,
                            std::uint32_t bytes) {
    network.size_code = size_code_;
    processor.message_bytes = bytes;
    std::uint32_t offset = 0;
    do {
        const std::uint32_t n = std::min(bytes - offset, config_.packet_payload_bytes);
        network.last = offset + n >= bytes;
        tlm::tlm_generic_payload* packet = pool_.allocate(static_cast<std::uint32_t>(kNetworkPacketOverhead) + n);
        write_network_packet(network, processor, offset, data ? data + offset : nullptr, n, packet->get_data_ptr());
        port.queue.push_back(Outgoing{packet, CreditTo::None});
        offset += n;
    } while (offset < bytes);
    port.wake.notify(sc_core::SC_ZERO_TIME);
}

// ---------------------------------------------------------------------------
// Collectives

std::optional<std::uint16_t> CollectiveEngine::peer_node(const Active& a, int peer) const {
    std::optional<std::uint16_t> global = a.row.neighbour(a.rank, peer);
    if (!global && peer == 0) global = a.envelope.global_rank0;
    if (!global && peer == a.envelope.root) global = a.envelope.global_root;
    if (!global) return std::nullopt;
    if (forwarding_[*global] >= nodes_) return std::nullopt;
    return forwarding_[*global];
}

void CollectiveEngine::fail(unsigned context, std::uint8_t opcode_code, const NetworkHeader& request, int rank,
                            CollectiveError code, const std::string& why) {
    ++statistics_.errors;
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": collective on context " + std::to_string(context) +
                                    " completes with error " + std::to_string(static_cast<unsigned>(code)) + ": " +
                                    why + " (ACCEL_ERRORS)")
                                       .c_str());
    NetworkHeader network = request;
    network.destination = node_;
    network.step = kErrorStep;
    ProcessorHeader processor;
    processor.context_id = static_cast<std::uint8_t>(context);
    processor.opcode = static_cast<Opcode>(opcode_code);
    processor.operation = request.operation;
    processor.datatype = kErrorResultDatatype;  // what tells the driver this result is an error
    processor.algorithm = request.algorithm;
    processor.rank = static_cast<std::uint16_t>(rank);
    std::uint8_t bytes[4];
    const auto value = static_cast<std::uint32_t>(code);
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(value >> (8 * i));
    ++statistics_.result_packets;
    emit(host_port_, network, processor, bytes, 4);
}

bool CollectiveEngine::start(unsigned context, Request& request) {
    Active& a = contexts_[context].active;
    const NetworkHeader& h = request.network;
    const std::uint8_t opcode_code = static_cast<std::uint8_t>(h.opcode);
    if (request.bytes.size() < CollectiveEnvelope::kBytes) {
        fail(context, opcode_code, h, 0, CollectiveError::Mismatch, "request shorter than its 16-byte envelope");
        return false;
    }
    a.envelope = CollectiveEnvelope::read(request.bytes.data());
    const CollectiveEnvelope& e = a.envelope;
    if (!ct_[context].valid) {
        fail(context, opcode_code, h, 0, CollectiveError::UnknownContext, "no valid CT row");
        return false;
    }
    a.row = ct_[context];
    const std::optional<int> rank = a.row.own_rank();
    const int own = rank.value_or(0);
    if (!rank || e.size == 0 || *rank >= e.size || e.root >= e.size || !a.row.consistent_with(e.size, *rank)) {
        fail(context, opcode_code, h, own, CollectiveError::SizeOutsideRow,
             "communicator size " + std::to_string(e.size) + " / root " + std::to_string(e.root) +
                 " inconsistent with the CT row");
        return false;
    }
    a.rank = *rank;
    const auto op = operation_from_code(h.operation);
    const auto type = datatype_from_code(h.datatype);
    if (is_reduction(h.opcode) && (!op || !type || !aglu_supports(*op, *type))) {
        fail(context, opcode_code, h, own, CollectiveError::Unsupported,
             "operation " + std::to_string(h.operation) + " on datatype " + std::to_string(h.datatype) +
                 " is not supported by the AgLU");
        return false;
    }
    if (!type && h.opcode != Opcode::Barrier) {
        fail(context, opcode_code, h, own, CollectiveError::Unsupported, "reserved datatype");
        return false;
    }
    const auto algorithm = static_cast<Algorithm>(h.algorithm & 3);
    try {
        a.schedule = make_schedule(h.opcode, algorithm, e.size, a.rank, e.root, Fold::Hypercube);
    } catch (const std::invalid_argument& error) {
        fail(context, opcode_code, h, own, CollectiveError::Unsupported, error.what());
        return false;
    }
    a.block_bytes = block_bytes(h.opcode, e.elements_per_block, type.value_or(Datatype::UInt8));
    const std::uint64_t total = a.block_bytes * a.schedule.blocks;
    if (total > config_.max_buffer_bytes || total > kMaxMessageBytes) {
        fail(context, opcode_code, h, own, CollectiveError::SizeOutsideRow,
             "buffer of " + std::to_string(total) + " bytes exceeds collective.max_buffer_bytes");
        return false;
    }
    for (const Step& s : a.schedule.steps)
        for (const auto* t : {&s.send, &s.receive})
            if (*t && !peer_node(a, (*t)->peer)) {
                fail(context, opcode_code, h, own, CollectiveError::SizeOutsideRow,
                     "peer comm rank " + std::to_string((*t)->peer) + " is neither in the CT row nor 0 or the root");
                return false;
            }
    const BlockSpan in = contribution_span(h.opcode, e.size, a.rank, e.root);
    const std::uint64_t expected = in.count * a.block_bytes;
    const std::uint64_t got = request.bytes.size() - CollectiveEnvelope::kBytes;
    const bool bcast_leaf = h.opcode == Opcode::Bcast && a.rank != e.root && got == 0;
    if (got != expected && !bcast_leaf) {
        fail(context, opcode_code, h, own, CollectiveError::Mismatch,
             "contribution of " + std::to_string(got) + " bytes, expected " + std::to_string(expected));
        return false;
    }
    if (a.buffer.capacity() == 0) a.buffer = take_buffer();
    a.buffer.assign(total, 0);
    if (!bcast_leaf && expected)
        std::memcpy(a.buffer.data() + in.first * a.block_bytes, request.bytes.data() + CollectiveEnvelope::kBytes,
                    expected);
    a.opcode = h.opcode;
    a.operation = h.operation;
    a.datatype = h.datatype;
    a.algorithm = h.algorithm;
    a.step = 0;
    a.sent = false;
    a.resume_at = sc_core::sc_time_stamp();
    a.running = true;
    return true;
}

std::uint64_t CollectiveEngine::apply(Active& a, const Step& s, const MessageStore::Message& m) {
    const std::uint32_t bytes = m.bytes;
    if (s.apply == Apply::Copy || bytes == 0) {
        scatter_spans(m.data.data(), s.receive->spans, a.block_bytes, a.buffer.data());
        return 0;
    }
    scratch_stream_.resize(bytes);
    gather_spans(a.buffer.data(), s.receive->spans, a.block_bytes, scratch_stream_.data());
    const std::size_t vectors = (bytes + kVectorBytes - 1) / kVectorBytes;
    scratch_a_.assign(vectors, Vector256{});
    scratch_b_.assign(vectors, Vector256{});
    const bool received_left = s.apply == Apply::CombineLeft;
    std::memcpy(scratch_a_.data(), received_left ? m.data.data() : scratch_stream_.data(), bytes);
    std::memcpy(scratch_b_.data(), received_left ? scratch_stream_.data() : m.data.data(), bytes);
    const std::uint64_t cycles = aglu_->combine(*operation_from_code(a.operation), *datatype_from_code(a.datatype),
                                                scratch_a_.data(), scratch_b_.data(), scratch_a_.data(), vectors);
    std::memcpy(scratch_stream_.data(), scratch_a_.data(), bytes);
    scatter_spans(scratch_stream_.data(), s.receive->spans, a.block_bytes, a.buffer.data());
    return cycles;
}

void CollectiveEngine::finish(unsigned context) {
    Active& a = contexts_[context].active;
    const BlockSpan out = result_span(a.opcode, a.envelope.size, a.rank, a.envelope.root);
    NetworkHeader network;
    network.opcode = a.opcode;
    network.destination = node_;
    network.context_id = static_cast<std::uint8_t>(context);
    network.operation = a.operation;
    network.datatype = a.datatype;
    network.algorithm = a.algorithm;
    network.step = 0;
    ProcessorHeader processor;
    processor.context_id = network.context_id;
    processor.opcode = a.opcode;
    processor.operation = a.operation;
    processor.datatype = a.datatype;
    processor.algorithm = a.algorithm;
    processor.rank = static_cast<std::uint16_t>(a.rank);
    const std::uint64_t bytes = out.count * a.block_bytes;
    statistics_.result_packets +=
        bytes == 0 ? 1 : (bytes + config_.packet_payload_bytes - 1) / config_.packet_payload_bytes;
    emit(host_port_, network, processor, a.buffer.data() + out.first * a.block_bytes,
         static_cast<std::uint32_t>(bytes));
    ++statistics_.collectives;
    a.running = false;
}

void CollectiveEngine::progress(unsigned context) {
    Context& c = contexts_[context];
    Active& a = c.active;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    for (;;) {
        if (!a.running) {
            if (c.waiting.empty()) return;
            Request request = std::move(c.waiting.front());
            c.waiting.pop_front();
            start(context, request);
            request.bytes.clear();
            spare_buffers_.push_back(std::move(request.bytes));
            continue;
        }
        if (now < a.resume_at) {
            resume_.notify(a.resume_at - now);
            return;
        }
        if (a.step == a.schedule.steps.size()) {
            finish(context);
            continue;
        }
        const Step& s = a.schedule.steps[a.step];
        if (!a.sent && s.send) {
            NetworkHeader network;
            network.opcode = a.opcode;
            network.destination = *peer_node(a, s.send->peer);
            network.context_id = static_cast<std::uint8_t>(context);
            network.operation = a.operation;
            network.datatype = a.datatype;
            network.algorithm = a.algorithm;
            network.step = static_cast<std::uint8_t>(a.step + 1);
            ProcessorHeader processor;
            processor.context_id = network.context_id;
            processor.opcode = a.opcode;
            processor.operation = a.operation;
            processor.datatype = a.datatype;
            processor.algorithm = a.algorithm;
            processor.rank = static_cast<std::uint16_t>(a.rank);
            const std::uint64_t bytes = transfer_bytes(s.send->spans, a.block_bytes);
            scratch_stream_.resize(bytes);
            gather_spans(a.buffer.data(), s.send->spans, a.block_bytes, scratch_stream_.data());
            const std::size_t before = net_port_.queue.size();
            emit(net_port_, network, processor, scratch_stream_.data(), static_cast<std::uint32_t>(bytes));
            statistics_.step_packets_sent += net_port_.queue.size() - before;
        }
        a.sent = true;
        if (s.receive) {
            const auto sender = static_cast<std::uint16_t>(s.receive->peer);
            MessageStore::Message* m = store_.front_complete(static_cast<std::uint8_t>(context), sender);
            if (m == nullptr) return;  // on_net_in calls again when it is complete
            const std::uint64_t expected = transfer_bytes(s.receive->spans, a.block_bytes);
            if (m->bytes != expected || m->opcode != a.opcode || m->operation != a.operation ||
                m->datatype != a.datatype || m->algorithm != a.algorithm) {
                const std::string why = "comm rank " + std::to_string(sender) + " sent " + std::to_string(m->bytes) +
                                        " bytes of " + std::string(to_string(m->opcode)) + ", expected " +
                                        std::to_string(expected) + " bytes of " + std::string(to_string(a.opcode));
                store_.pop(static_cast<std::uint8_t>(context), sender);
                release_deferred_credits();
                NetworkHeader h;
                h.opcode = a.opcode;
                h.context_id = static_cast<std::uint8_t>(context);
                h.operation = a.operation;
                h.datatype = a.datatype;
                h.algorithm = a.algorithm;
                a.running = false;
                fail(context, static_cast<std::uint8_t>(a.opcode), h, a.rank, CollectiveError::Mismatch, why);
                continue;
            }
            const std::uint64_t cycles = apply(a, s, *m);
            store_.pop(static_cast<std::uint8_t>(context), sender);
            release_deferred_credits();
            statistics_.aglu_cycles += cycles;
            a.resume_at = now + cycle_ * static_cast<double>(cycles);
        }
        ++a.step;
        a.sent = false;
    }
}

void CollectiveEngine::on_resume() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    for (unsigned c = 0; c < kRows; ++c)
        if (contexts_[c].active.running && contexts_[c].active.resume_at <= now) progress(c);
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
    std::uint32_t read = 0xFFFFFFFFu;
    bool mapped = true;
    namespace cap = regmap::accel_capabilities;
    if (offset == regmap::ACCEL_CAPABILITIES) {
        read = cap::CT_ROWS.make(kRows) | cap::CGR_UNITS.make(config_.cgr_units) | cap::RADIX.make(config_.radix) |
               cap::ALGORITHMS.make(kAlgorithmsInSwitch);
    } else if (offset == regmap::CT_SIZE_BITS) {
        read = kRows * regmap::kCtRowBits;
    } else if (offset == regmap::CT_VALID) {
        read = 0;
        for (unsigned c = 0; c < kRows; ++c) read |= (ct_[c].valid ? 1u : 0u) << c;
    } else if (offset == regmap::CT_SELECT) {
        if (write) ct_select_ = value & 0x1F;
        read = ct_select_;
    } else if (offset == regmap::CT_COMMAND) {
        read = 0;
        if (write && regmap::ct_command::LOAD.get(value)) {
            ct_[ct_select_] = CtRow::decode(staging_);
            ct_[ct_select_].valid = true;
        } else if (write && regmap::ct_command::RELEASE.get(value)) {
            ct_[ct_select_].valid = false;
        }
    } else if (offset >= regmap::CT_STAGING(0) && offset < regmap::CT_STAGING(regmap::kCtStagingDwords)) {
        std::uint32_t& dword = staging_[(offset - regmap::CT_STAGING_BASE) / 4];
        if (write) dword = value;
        read = dword;
    } else if (offset == regmap::FORWARD_INDEX) {
        if (write) forward_index_ = value & 0xFFFF;
        read = forward_index_;
    } else if (offset == regmap::FORWARD_NODE) {
        read = 0;
        if (write) {
            forwarding_[forward_index_] = static_cast<std::uint16_t>(value);
            forward_index_ = (forward_index_ + 1) & 0xFFFF;
        }
    } else if (offset == regmap::FORWARD_FILL) {
        read = 0;
        if (write) {
            std::uint32_t count = regmap::forward_fill::COUNT.get(value);
            if (count == 0) count = 1u << 16;
            const std::uint32_t first_node = regmap::forward_fill::FIRST_NODE.get(value);
            for (std::uint32_t k = 0; k < count; ++k) {
                forwarding_[forward_index_] = static_cast<std::uint16_t>(first_node + k);
                forward_index_ = (forward_index_ + 1) & 0xFFFF;
            }
        }
    } else if (offset == regmap::ACCEL_DROPPED) {
        read = static_cast<std::uint32_t>(statistics_.dropped);
    } else if (offset == regmap::ACCEL_ERRORS) {
        read = static_cast<std::uint32_t>(statistics_.errors);
    } else {
        mapped = false;
    }
    if (!write) std::memcpy(payload.get_data_ptr(), &read, 4);
    if (!mapped && write)
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": write to unmapped accelerator CSR " +
                                        std::to_string(offset) + " ignored")
                                           .c_str());
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace isvp
