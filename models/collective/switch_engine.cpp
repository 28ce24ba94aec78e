#include "isvp/switch_engine.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "isvp/aggregation_tree.h"
#include "isvp/sim_now.h"
#include "isvp/switch_tree.h"
#include "isvp/tree_generation.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/switch_collective";
constexpr unsigned kTreeOwners = 32 * 256;    // CGR pool owners: every (context, slot)
constexpr unsigned kMaxSlots = 0xF9;          // a tree's slot + 1 is its data packets' step field
constexpr std::size_t kMaxEarlyRecords = 64;  // agreement records held for a tree not configured yet

/// collective.switch_cgr_units, or DESIGN's reference (SA 8/8/4 for radix 8/16/28).
unsigned cgr_units_of(const CollectiveConfig& config, unsigned radix) {
    if (config.switch_cgr_units > 0) return config.switch_cgr_units;
    return radix <= 16 ? 8 : 4;
}
}  // namespace

SwitchCollectiveEngine::SwitchCollectiveEngine(sc_core::sc_module_name name,
                                               std::shared_ptr<const NetworkTopology> topology, unsigned switch_index,
                                               bool planner, const AgluConfig& aglu, const CollectiveConfig& config)
    : sc_core::sc_module(name),
      net_in("net_in"),
      net_in_credit("net_in_credit"),
      net_out("net_out"),
      net_out_credit("net_out_credit"),
      topology_(std::move(topology)),
      switch_index_(switch_index),
      address_(static_cast<std::uint16_t>(switch_engine_address(*topology_, switch_index))),
      planner_(planner),
      config_((config.validate(), config)),
      aglus_per_cgr_(topology_->switch_at(switch_index).ports),
      cgr_(cgr_units_of(config_, topology_->switch_at(switch_index).ports), kTreeOwners),
      framing_(address_, config_.packet_payload_bytes),
      port_(std::string(this->name()), net_out, sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS),
            config_.phits_per_cycle, wake_, [](const CreditedOutPort::Outgoing&, const sc_core::sc_time&) {}) {
    aglu_ = make_aglu_engine(aglu);
    cycle_ = sc_core::sc_time(1000.0 / config_.clock_mhz, sc_core::SC_NS);
    credit_delay_ = sc_core::sc_time(config_.credit_delay_ns, sc_core::SC_NS);
    credit_batch_ = std::max<std::uint32_t>(1, config_.window_packets / 4);
    net_in.register_b_transport(this, &SwitchCollectiveEngine::on_net_in);
    net_out_credit.register_b_transport(this, &SwitchCollectiveEngine::on_credit);

    SC_HAS_PROCESS(SwitchCollectiveEngine);
    SC_METHOD(grant_initial_credits);
    // One process for all of the engine's own work (see run()).
    SC_METHOD(run);
    sensitive << wake_.event() << cgr_free_event_ << flush_event_;
    dont_initialize();
    // The planner's books of every engine's trees: SHArP's aggregation
    // manager, or (mode = offload) switch_max_trees rows per engine, no buffers.
    if (planner_ && !config_.sharp())
        sharp_books_ = std::make_unique<SharpResources>(
            topology_->switches(), SharpLimits{config_.switch_max_trees, 0, 0, "collective.switch_max_trees"});
    if (config_.sharp()) {  // collective.mode = sharp (switch_engine_sharp.cpp)
        sharp_slots_ = OperationSlots(config_.sharp_buffers_per_an);
        sharp_timeout_ = sc_core::sc_time(config_.sharp_timeout_us, sc_core::SC_US);
        if (planner_)
            sharp_books_ = std::make_unique<SharpResources>(
                topology_->switches(),
                SharpLimits{config_.sharp_max_trees_per_an, config_.sharp_osts_per_tree, config_.sharp_buffers_per_an});
        SC_METHOD(on_sharp_timeout);
        sensitive << sharp_timeout_event_;
        dont_initialize();
        sharp_queue_wait_ = sc_core::sc_time(config_.sharp_queue_us, sc_core::SC_US);
        if (planner_) {
            SC_METHOD(on_sharp_queue);
            sensitive << sharp_queue_event_;
            dont_initialize();
        }
        if (config_.sharp_fault_switch == static_cast<int>(switch_index_)) SC_METHOD(on_sharp_fault);
    }
}

// Every piece of the engine's work due now, in one fixed order (as
// CollectiveEngine::run): chunks leaving the AgLUs (trees by key), trees
// waiting for a CGR unit (FIFO), packets whose tail has arrived (tail time,
// then arrival), the credit flush, then the output. SystemC's order of
// same-time processes never decides what happens first. The output, the
// tails and the AgLUs share one timed wake-up (wake_: EarliestWake).
void SwitchCollectiveEngine::run() {
    wake_.woken();
    on_combined();
    on_cgr_free();
    on_incoming();
    on_cgr_free();
    if (flush_pending_ && sim_now() >= flush_at_) flush_credits();
    port_.drain();
    port_.end_of_run();
    wake_.rearm();
}

// Packets still queued at shutdown belong to pools destroyed in any order.
SwitchCollectiveEngine::~SwitchCollectiveEngine() = default;

void SwitchCollectiveEngine::grant_initial_credits() {
    credit_message_.send(net_in_credit, 0, config_.net_buffer_phits, sc_core::SC_ZERO_TIME);
}

void SwitchCollectiveEngine::drop(const std::string& why) {
    ++statistics_.dropped;
    SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped a packet: " + why).c_str());
}

// ---------------------------------------------------------------------------
// Input: every packet is taken in when its tail has arrived (its router
// credits go back then): the engine never back-pressures the network.

void SwitchCollectiveEngine::on_net_in(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    const sc_core::sc_time tail = delay + packet_info(payload).tail_after;
    credit_message_.send(net_in_credit, 0, phits_of(length), tail);
    std::string why;
    auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &why);
    if (!view) return drop("malformed: " + why);
    if (view->network.opcode == Opcode::Send) return drop("a point-to-point packet for a switch engine");
    payload.acquire();
    incoming_.push(Incoming{sim_now() + tail, incoming_order_++, &payload, *view});
    wake_.at(tail);
}

void SwitchCollectiveEngine::on_incoming() {
    const sc_core::sc_time now = sim_now();
    while (!incoming_.empty() && incoming_.top().at <= now) {
        const Incoming in = incoming_.top();
        incoming_.pop();
        packet(in.view, *in.packet);
        in.packet->release();
    }
    if (!incoming_.empty()) wake_.at(incoming_.top().at - now);
}

SwitchCollectiveEngine::Tree& SwitchCollectiveEngine::tree(std::uint8_t context, std::uint8_t slot) {
    const std::uint16_t key = tree_key(context, slot);
    auto [it, inserted] = trees_.try_emplace(key);
    if (inserted) {
        it->second.context = context;
        it->second.slot = slot;
        it->second.owner = key;
    }
    return it->second;
}

void SwitchCollectiveEngine::packet(const NetworkPacketView& v, tlm::tlm_generic_payload& payload) {
    const std::uint8_t step = v.network.step;
    if (config_.sharp() && sharp_packet(v)) return;
    if (step == kTreeJoinStep) return v.network.operation == kTreeLeaveOperation ? leave(v) : join(v);
    if (step == kAbortStep) return abort_notice(v);
    if (step == kTreeConfigStep) return configure(v);
    const std::uint16_t sender = v.processor.rank;
    if (step == kCreditStep) {
        if (v.payload_bytes != 4) return drop("credit packet with " + std::to_string(v.payload_bytes) + " bytes");
        const std::uint32_t word = load_le32(v.payload);
        Tree& t = tree(v.network.context_id, static_cast<std::uint8_t>(word >> 24));
        std::int32_t& credits =
            send_credits_.try_emplace(peer_key(t, sender), static_cast<std::int32_t>(config_.window_packets))
                .first->second;
        credits = static_cast<std::int32_t>(std::min<std::uint64_t>(
            config_.window_packets, static_cast<std::uint64_t>(std::max(credits, 0)) + (word & 0xFFFFFF)));
        return progress(t);
    }
    if (step == kAgreeStep) return agreement_record(v, &payload);
    if (step == 0 || step > kMaxSlots)
        return drop("step " + std::to_string(step) + " on context " + std::to_string(v.network.context_id));
    Tree& t = tree(v.network.context_id, static_cast<std::uint8_t>(step - 1));
    if (!t.configured || !same_tree_generation(t.generation, v.generation)) {
        // Another generation than the configuration's: a new communicator's
        // on this (context, slot) whose configuration is still on its way
        // (the planner sent it again after the reliable layer gave it up,
        // or the planner's path is slower, while the members, configured,
        // started), or an older one's. Held until the next configuration,
        // which takes in its own and discards the others (before, a new
        // communicator's packets whose sequence repeated the old one's were
        // discarded as stale, or taken into its collective: the tree waited
        // for ever).
        if (t.early_data.size() >= 64 * std::size_t{config_.window_packets})
            return drop("data packet from " + label(sender) + " beyond the receive windows of context " +
                        std::to_string(t.context) + " slot " + std::to_string(t.slot) + " (not configured)");
        payload.acquire();
        t.early_data.emplace_back(v, &payload);
        return;
    }
    data_packet(t, v, payload);
    progress(t);
}

void SwitchCollectiveEngine::data_packet(Tree& t, const NetworkPacketView& v, tlm::tlm_generic_payload& payload) {
    // Windows: every input and the parent may have window_packets unconsumed.
    const std::size_t windows = (t.role.children.size() + 2) * config_.window_packets;
    if (t.held.held(t.context) >= windows)
        return drop("data packet from " + label(v.processor.rank) + " beyond the receive windows of context " +
                    std::to_string(t.context) + " slot " + std::to_string(t.slot));
    payload.acquire();
    t.held.push(v, &payload);
    ++held_total_;
    statistics_.peak_held_packets = std::max(statistics_.peak_held_packets, held_total_);
    if (config_.sharp()) sharp_data_arrived(t);
}

// ---------------------------------------------------------------------------
// Configuration: joins at the planner, trees planned, rows stored

void SwitchCollectiveEngine::join(const NetworkPacketView& v) {
    if (!planner_) return drop("tree join at an engine that does not plan trees");
    if (v.payload_bytes != TreeJoin::kBytes) return drop("tree join of " + std::to_string(v.payload_bytes) + " bytes");
    const TreeJoin j = TreeJoin::read(v.payload);
    const std::uint8_t context = v.network.context_id;
    if (j.size == 0 || j.comm_rank >= j.size || j.host >= topology_->hosts())
        return drop("tree join of comm rank " + std::to_string(j.comm_rank) + " of " + std::to_string(j.size) +
                    " from host " + std::to_string(j.host));
    ++statistics_.joins;
    const std::uint32_t key = static_cast<std::uint32_t>(context) << 16 | j.global_rank0;
    Group& g = groups_[key];
    const std::uint8_t number = v.network.datatype;
    // A member's leave comes before its next join (one pair's packets stay
    // in order), unless the reliable layer gave it up: an overtaken leave of
    // this member still awaited is lost, and forgotten (a resent one is
    // then known by its join number), so late_leaves_ never grows.
    if (const auto late = late_leaves_.find(key); late != late_leaves_.end()) {
        for (auto it = late->second.begin(); it != late->second.end();) {
            const auto& [size, rank, host, joined] = *it;
            if (rank == j.comm_rank && host == j.host && joined != number) {
                it = late->second.erase(it);
                ++statistics_.late_leaves_forgotten;
            } else {
                ++it;
            }
        }
        if (late->second.empty()) late_leaves_.erase(late);
    }
    const auto known = g.hosts.find(j.comm_rank);
    if (g.size == j.size && known != g.hosts.end() && known->second == j.host &&
        g.join_numbers[j.comm_rank] == number) {
        ++statistics_.setup_duplicates;  // this join again (sent again though it had come)
        return;
    }
    // A complete group joining again is a new communicator on the context
    // (one still waiting for SHArP resources leaves the queue).
    if (g.size != j.size || g.hosts.size() == g.size) {
        if (sharp_books_) sharp_books_->stop_waiting(key);
        if (g.size != 0 && g.hosts.size() == g.size) replace_group(key, g);
        g.hosts.clear();
    }
    g.size = j.size;
    g.hosts[j.comm_rank] = j.host;
    g.join_numbers[j.comm_rank] = number;
    g.left.clear();
    if (g.hosts.size() < g.size) return;
    form_group(context, key, false);
}

bool SwitchCollectiveEngine::form_group(std::uint8_t context, std::uint32_t key, bool admitted) {
    Group& g = groups_.at(key);
    // Every member is in: plan the tree and tell every participant its place.
    std::vector<unsigned> members;
    for (const auto& [rank, host] : g.hosts) members.push_back(host);
    AggregationTree plan;
    try {
        plan = plan_aggregation_tree(*topology_, members, context);
    } catch (const std::invalid_argument& e) {
        g.hosts.clear();
        drop(std::string("tree join: ") + e.what());
        return false;
    }
    if (sharp_books_ && !admitted) {  // resources on every engine of the tree, or no tree (yet)
        std::vector<unsigned> vertices;
        for (const AggregationVertex& vertex : plan.vertices) vertices.push_back(vertex.switch_index);
        if (!sharp_admit(context, key, members, vertices)) {
            g.has_slot = false;
            return false;
        }
    }
    // The group's slot on this context: the one it had unless another
    // group took it meanwhile, else the lowest free one.
    std::vector<bool> used(kMaxSlots, false);
    for (const auto& [other_key, other] : groups_)
        if ((other_key >> 16) == context && &other != &g && other.has_slot && other.hosts.size() == other.size)
            used[other.slot] = true;
    if (!g.has_slot || used[g.slot]) {
        const auto free = std::find(used.begin(), used.end(), false);
        if (free == used.end()) {  // the step field numbers no more trees: the group runs on the NIC engines
            if (sharp_books_) sharp_books_->release(key);
            sharp_fall_back(context, key,
                            "more than " + std::to_string(kMaxSlots) + " trees on context " + std::to_string(context));
            return false;
        }
        g.slot = static_cast<std::uint8_t>(free - used.begin());
        g.has_slot = true;
    }
    ++statistics_.trees_planned;
    // Every group configured on this (context, slot) gets the next
    // generation: its participants tell its packets from the last group's.
    const std::uint8_t generation = ++generations_[tree_key(context, g.slot)];
    std::map<unsigned, int> comm_ranks;
    for (const auto& [rank, host] : g.hosts) comm_ranks[host] = rank;
    const auto roles = tree_roles(*topology_, plan, -1, comm_ranks);
    // Up*/down* has no route between two switches without hosts (two
    // spines): such a configuration goes through the engine of the first
    // member's switch, which every engine reaches and which reaches every engine.
    const auto hostless = [&](unsigned address) { return topology_->hosts_on(address - topology_->hosts()).empty(); };
    const unsigned relay = switch_engine_address(*topology_, topology_->host(members.front()).switch_index);
    // Vertices first: a member starts (and sends its agreement record) as
    // soon as its own configuration is in, so its vertex must have its own.
    std::vector<std::pair<int, TreeRole>> ordered;
    for (const bool vertices : {true, false})
        for (const auto& [participant, role] : roles)
            if (role.vertex == vertices) ordered.emplace_back(participant, role);
    for (const auto& [participant, role] : ordered) {
        TreeConfig config;
        config.target = static_cast<std::uint16_t>(participant);
        config.slot = g.slot;
        config.generation = generation;
        config.parent = role.parent < 0 ? TreeConfig::kNone : static_cast<std::uint16_t>(role.parent);
        config.root_vertex = role.root_vertex < 0 ? TreeConfig::kNone : static_cast<std::uint16_t>(role.root_vertex);
        for (const int child : role.children) config.inputs.push_back(static_cast<std::uint16_t>(child));
        if (role.vertex) {  // its members' comm ranks, for the per-rank collectives
            config.size = static_cast<std::uint16_t>(role.size);
            for (const std::vector<BlockSpan>& runs : role.child_ranks) {
                config.input_ranks.emplace_back();
                for (const BlockSpan& run : runs)
                    config.input_ranks.back().push_back(
                        {static_cast<std::uint16_t>(run.first), static_cast<std::uint16_t>(run.count)});
            }
        }
        if (participant == address_) {
            store_configuration(context, config);
            continue;
        }
        const bool relayed = role.vertex && hostless(static_cast<unsigned>(participant)) && hostless(address_);
        send_configuration(context, static_cast<std::uint16_t>(relayed ? relay : participant), config);
    }
    return true;
}

void SwitchCollectiveEngine::send_configuration(std::uint8_t context, std::uint16_t destination,
                                                const TreeConfig& config) {
    // One packet carries a configuration; the routers drop a packet larger
    // than its size code says (collective.packet_payload_bytes), and the
    // tree would then wait for a participant that was never configured.
    if (config.bytes() > config_.packet_payload_bytes)
        SC_REPORT_ERROR(kReportType, (std::string(name()) + ": the tree configuration for address " +
                                      std::to_string(destination) + " takes " + std::to_string(config.bytes()) +
                                      " bytes, more than one packet of collective.packet_payload_bytes=" +
                                      std::to_string(config_.packet_payload_bytes) + ": raise it")
                                         .c_str());
    const PacketFrame frame =
        control_frame(context, destination, kTreeConfigStep, static_cast<std::uint32_t>(config.bytes()));
    std::vector<std::uint8_t> bytes(config.bytes());
    config.write(bytes.data());
    emit(frame, bytes.data(), true);
}

void SwitchCollectiveEngine::configure(const NetworkPacketView& v) {
    const std::optional<TreeConfig> config = TreeConfig::read(v.payload, v.payload_bytes);
    if (!config || config->slot >= kMaxSlots)
        return drop("tree configuration of " + std::to_string(v.payload_bytes) + " bytes");
    if (config->target != address_) {  // relayed for the planner: on to its target
        if (config->target < topology_->hosts() || config->target >= topology_->hosts() + topology_->switches())
            return drop("tree configuration to relay to " + label(config->target) + ", not a switch engine");
        PacketFrame frame = NetworkFraming::frame_of(v);
        frame.destination = config->target;
        frame.carried.rank = address_;
        frame.offset = 0;  // a configuration is one packet, of no tree generation
        frame.generation = 0;
        ++statistics_.configurations_relayed;
        return emit(frame, v.payload, true);
    }
    if (config->inputs.size() < 2)
        return drop("tree configuration with " + std::to_string(config->inputs.size()) + " inputs for a vertex");
    store_configuration(v.network.context_id, *config);
}

void SwitchCollectiveEngine::store_configuration(std::uint8_t context, const TreeConfig& config) {
    Tree& t = tree(context, config.slot);
    const std::vector<int> inputs(config.inputs.begin(), config.inputs.end());
    const int parent = config.parent == TreeConfig::kNone ? -1 : config.parent;
    if (t.configured && t.generation == config.generation && t.role.parent == parent && t.role.children == inputs) {
        // This configuration again (the planner sent it again after the
        // reliable layer gave it up, though it had come): the tree may have
        // run collectives since; nothing changes.
        ++statistics_.setup_duplicates;
        return;
    }
    ++statistics_.configurations;
    // The older generation's collective and packets end here: its members
    // have freed the communicator (a collective still running here was
    // abandoned by them).
    if (t.run.running) end_run(t);
    for (const std::uint16_t sender : t.held.senders(t.context))
        while (t.held.front(t.context, sender)) {
            if (void* owner = t.held.pop(t.context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
            --held_total_;
            ++statistics_.older_generation;
            owe_credit(t, sender);
        }
    t.configured = true;
    t.generation = config.generation;
    t.role = TreeRole{};
    t.role.vertex = true;
    t.role.self = address_;
    t.role.parent = config.parent == TreeConfig::kNone ? -1 : config.parent;
    t.role.root_vertex = config.root_vertex == TreeConfig::kNone ? -1 : config.root_vertex;
    for (const std::uint16_t input : config.inputs) t.role.children.push_back(input);
    t.role.size = config.size;
    for (const std::vector<TreeConfig::Run>& runs : config.input_ranks) {
        t.role.child_ranks.emplace_back();
        for (const TreeConfig::Run& run : runs) t.role.child_ranks.back().push_back(BlockSpan{run.first, run.count});
    }
    // A new communicator (a freed group's slot given to another): its
    // sequences start again, and nothing of the old group's ends applies.
    t.last_done.reset();
    t.failed.clear();
    t.notified.reset();
    t.agreements.clear();
    t.sharp_failed = false;
    // Data and records that came before the configuration, in their arrival
    // order: its generation's taken in, the others' (older) discarded; the
    // collective then starts as it would have with them held already.
    std::deque<std::pair<NetworkPacketView, tlm::tlm_generic_payload*>> records, data;
    records.swap(t.early_records);
    data.swap(t.early_data);
    for (const auto& [view, payload] : data) {
        if (same_tree_generation(t.generation, view.generation)) {
            ++statistics_.held_for_configuration;
            data_packet(t, view, *payload);
        } else {
            ++statistics_.older_generation;
            owe_credit(t, view.processor.rank);
        }
        payload->release();
    }
    for (const auto& [view, payload] : records) {
        if (record_generation(view) == t.generation) {
            ++statistics_.held_for_configuration;
            agreement_record(view, nullptr);
        } else {
            ++statistics_.older_generation;
        }
        payload->release();
    }
    progress(t);
}

// ---------------------------------------------------------------------------
// Collectives

// A collective's state at this vertex freed before its end (a new
// generation's configuration, a fault, an abort): its chunks in the AgLUs
// dropped with it, its SHArP slot and CGR unit given back.
void SwitchCollectiveEngine::end_run(Tree& t) {
    Run& r = t.run;
    r.running = false;
    r.combining.clear();
    r.steps.clear();
    r.buffer.clear();
    if (config_.sharp()) sharp_slots_.end(t.owner);
    cgr_.release(t.owner, sim_now().value());
    if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
}

bool SwitchCollectiveEngine::start(Tree& t) {
    // The next collective starts with the first packet of the next sequence
    // (any sender's): the oldest one held when none ran yet.
    if (config_.sharp() || t.notified) sharp_discard_stale(t);
    const HeldPacket* first = nullptr;
    std::uint16_t first_sender = 0;
    const auto consider = [&](std::uint16_t sender) {
        const HeldPacket* p = t.held.front(t.context, sender);
        if (!p) return;
        if (t.last_done && compare_sequence(p->sequence, *t.last_done) <= 0) return;
        if (!first || compare_sequence(p->sequence, first->sequence) < 0) {
            first = p;
            first_sender = sender;
        }
    };
    for (const int child : t.role.children) consider(static_cast<std::uint16_t>(child));
    if (t.role.parent >= 0) consider(static_cast<std::uint16_t>(t.role.parent));
    if (t.role.parent < 0)  // a broadcast's root sends straight to the root vertex
        for (const std::uint16_t sender : t.held.senders(t.context)) consider(sender);
    if (!first) return false;
    // SHArP: the operation's state (a buffer of the group's reservation) is
    // taken at its first packet.
    if (config_.sharp()) {
        if (!sharp_slots_.begin(t.owner)) return false;
        statistics_.sharp_operations = sharp_slots_.operations();
        statistics_.sharp_peak_buffers = sharp_slots_.peak();
    }
    Run& r = t.run;
    r = Run{};
    r.running = true;
    r.header.opcode = first->opcode;
    r.header.operation = first->operation;
    r.header.datatype = first->datatype;
    r.header.algorithm = first->algorithm;
    r.sequence = first->sequence;
    r.chunk_bytes = config_.packet_payload_bytes;
    r.aglus.reset(aglus_per_cgr_, sim_now().value());
    if (!tree_supports(first->opcode) || (config_.sharp() && !sharp_offloads(first->opcode))) {
        if (config_.sharp()) sharp_slots_.end(t.owner);
        drop(std::string(to_string(first->opcode)) + " does not run in the switches' tree");
        r.running = false;
        return false;
    }
    TreeRole role = t.role;
    if (first->opcode == Opcode::Gather) {
        // Toward the root only: the input whose packets say "root below"
        // (operation 1). It starts when every input's first packet is in.
        for (std::size_t i = 0; i < t.role.children.size(); ++i) {
            const HeldPacket* p = t.held.front(t.context, static_cast<std::uint16_t>(t.role.children[i]));
            if (!p || p->sequence != first->sequence) {
                r.running = false;
                return false;
            }
            if (p->operation == 1) role.root_input = static_cast<int>(i);
        }
        r.header.operation = role.root_input >= 0 ? 1 : 0;  // what its packets up say
    }
    const bool from_root_host = first->opcode == Opcode::Bcast || first->opcode == Opcode::Scatter;
    role.root_host = from_root_host && t.role.parent < 0 ? first_sender : t.role.parent;
    Schedule schedule;
    try {
        schedule = make_tree_schedule(first->opcode, role);
    } catch (const std::invalid_argument& e) {
        drop(e.what());
        r.running = false;
        return false;
    }
    // The block size from the first packet's transfer: its bytes over the
    // blocks the schedule takes from its sender.
    std::uint64_t blocks = 0;
    for (const Step& s : schedule.steps)
        if (s.receive && s.receive->peer == first_sender) {
            for (const BlockSpan& span : s.receive->spans) blocks += span.count;
            break;
        }
    if (blocks == 0 || first->message_bytes % blocks != 0) {
        drop("context " + std::to_string(t.context) + ": " + std::to_string(first->message_bytes) + " bytes of " +
             std::string(to_string(first->opcode)) + " from " + label(first_sender) + " do not fit the tree");
        r.running = false;
        return false;
    }
    r.layout = BlockLayout::uniform(schedule.blocks, first->message_bytes / blocks);
    r.build(schedule, BlockSpan{0, 0}, BlockSpan{0, 0}, [&](std::size_t, const Step& s) {
        DataPhase::StepLinks link;
        if (s.send) {
            link.send_node = static_cast<std::uint16_t>(s.send->peer);
            link.credits = &send_credits_
                                .try_emplace(peer_key(t, static_cast<std::uint16_t>(s.send->peer)),
                                             static_cast<std::int32_t>(config_.window_packets))
                                .first->second;
        }
        if (s.receive) link.channel = &t.held.channel(t.context, static_cast<std::uint16_t>(s.receive->peer));
        return link;
    });
    return true;
}

void SwitchCollectiveEngine::progress(Tree& t) {
    if (!t.configured) return;
    for (;;) {
        Run& r = t.run;
        discard_failed(t);
        if (r.running && failed(t, r.sequence)) {
            // Ended by the agreement: chunks in the AgLUs leave first.
            if (!r.combining.empty()) return;
            if (config_.sharp()) sharp_slots_.end(t.owner);
            cgr_.release(t.owner, sim_now().value());
            if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
            r.running = false;
            r.steps.clear();
            r.buffer.clear();
            continue;
        }
        if (!r.running && !start(t)) return;
        struct Driver final : DataPhase::Driver {
            SwitchCollectiveEngine& engine;
            Tree& t;
            Driver(SwitchCollectiveEngine& e, Tree& tree) : engine(e), t(tree) {}
            bool stopped() override { return false; }
            void send(std::size_t k) override { engine.send_chunk(t, k); }
            bool take(std::size_t k) override {
                Run& run = t.run;
                if (run.combines(k) && !engine.cgr_.acquire(t.owner, sim_now().value())) {
                    engine.statistics_.cgr_waits = engine.cgr_.waits();
                    return false;
                }
                engine.take_chunk(t, k, run.steps[k].channel->front());
                return true;
            }
            bool may_return() override { return true; }
            void results_ready() override { t.run.results_sent = t.run.results_final; }  // nothing to a host
        } driver(*this, t);
        r.advance(driver);
        if (!r.combining.empty() || !r.complete()) return;
        finish(t);
    }
}

void SwitchCollectiveEngine::send_chunk(Tree& t, std::size_t k) {
    Run& r = t.run;
    DataPhase::StepRun& s = r.steps[k];
    const std::uint64_t from = r.chunk_begin(s.sent), to = r.chunk_end(s.sent, s.send.bytes());
    PacketFrame frame;
    frame.destination = s.send_node;
    frame.traffic = TrafficClass::of(r.header);
    frame.traffic.context_id = t.context;
    frame.step = static_cast<std::uint8_t>(t.slot + 1);
    frame.carried.opcode = r.header.opcode;
    frame.carried.rank = address_;
    frame.carried.message_bytes = static_cast<std::uint32_t>(s.send.bytes());
    set_step_sequence(frame.carried, r.sequence);
    frame.offset = static_cast<std::uint32_t>(from);
    frame.generation = t.generation;  // its low bits ride the offset word
    frame.payload_bytes = static_cast<std::uint32_t>(to - from);
    std::uint8_t* payload = emit_packet(frame, false);
    r.buffer.gather(s.send, from, to, payload);
    r.chunk_sent(k);
    ++statistics_.step_packets_sent;
}

void SwitchCollectiveEngine::take_chunk(Tree& t, std::size_t k, HeldPacket& p) {
    Run& r = t.run;
    DataPhase::StepRun& s = r.steps[k];
    const std::uint64_t from = r.chunk_begin(s.issued), to = r.chunk_end(s.issued, s.recv.bytes());
    const std::uint64_t n = to - from;
    const auto sender = static_cast<std::uint16_t>(s.recv_peer);
    // (Gather: the operation field says whether the root is below the sender.)
    const bool agrees = p.message_bytes == s.recv.bytes() && p.offset == from && p.payload_bytes == n &&
                        p.opcode == r.header.opcode &&
                        (p.operation == r.header.operation || r.header.opcode == Opcode::Gather) &&
                        p.datatype == r.header.datatype && p.sequence == r.sequence;
    ++s.issued;
    if (!agrees) {
        // Members whose arguments disagree: the chunk counts as taken (so the
        // tree does not stop), its bytes are not used.
        drop("context " + std::to_string(t.context) + ": " + label(sender) + " sent " +
             std::to_string(p.message_bytes) + " bytes of " + std::string(to_string(p.opcode)) + " collective " +
             std::to_string(p.sequence) + " (offset " + std::to_string(p.offset) + "), the tree runs " +
             std::to_string(s.recv.bytes()) + " bytes of " + std::string(to_string(r.header.opcode)) + " collective " +
             std::to_string(r.sequence));
        ++s.applied;
    } else if (s.apply == Apply::Copy || n == 0) {
        if (n && !config_.timing_only) r.buffer.scatter(s.recv, p.payload, from, to);
        (config_.timing_only ? statistics_.bytes_skipped : statistics_.bytes_copied) += n;
        ++s.applied;
    } else {
        // CGR: local (the inputs before it) op received, on the AgLUs free first.
        const bool compute = !config_.timing_only;
        const sc_core::sc_time now = sim_now();
        ChunkCombiner::Chunk chunk;
        chunk.apply = s.apply;
        chunk.op = *operation_from_code(r.header.operation);
        chunk.type = *datatype_from_code(r.header.datatype);
        chunk.received = p.payload;
        chunk.bytes = n;
        chunk.stream = &s.recv;
        chunk.from = from;
        chunk.to = to;
        chunk.buffer = &r.buffer;
        const std::uint64_t done = combiner_.combine(*aglu_, r.aglus, chunk, compute, config_.phits_per_cycle,
                                                     now.value(), cycle_.value(), statistics_.aglu_cycles);
        (compute ? statistics_.bytes_combined : statistics_.bytes_skipped) += n;
        r.combining.emplace_back(sim_time(done), k);
        wake_.at(sim_time(done) - now);
    }
    if (void* owner = t.held.pop(t.context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
    --held_total_;
    owe_credit(t, sender);
}

void SwitchCollectiveEngine::on_combined() {
    const sc_core::sc_time now = sim_now();
    bool pending = false;
    sc_core::sc_time next;
    for (auto& [key, t] : trees_) {
        Run& r = t.run;
        if (r.combining.empty()) continue;
        bool moved = false;
        while (!r.combining.empty() && r.combining.front().first <= now) {
            if (!failed(t, r.sequence)) ++r.steps[r.combining.front().second].applied;
            r.combining.pop_front();
            moved = true;
        }
        if (r.combining.empty()) {
            cgr_.release(t.owner, now.value());
            if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
        }
        if (moved) progress(t);
        if (!r.combining.empty() && (!pending || r.combining.front().first < next)) {
            next = r.combining.front().first;
            pending = true;
        }
    }
    if (pending) wake_.at(next - now);
}

void SwitchCollectiveEngine::on_cgr_free() {
    while (cgr_.has_waiters() && cgr_.has_free_unit()) {
        const unsigned owner = cgr_.first_waiter();
        Tree& t = trees_.at(static_cast<std::uint16_t>(owner));
        progress(t);
        if (cgr_.has_waiters() && cgr_.first_waiter() == owner)
            cgr_.release(owner, sim_now().value());  // no longer needs one
    }
}

void SwitchCollectiveEngine::finish(Tree& t) {
    Run& r = t.run;
    ++statistics_.collectives;
    if (config_.sharp()) sharp_slots_.end(t.owner);
    cgr_.release(t.owner, sim_now().value());
    if (cgr_.has_waiters()) cgr_free_event_.notify(sc_core::SC_ZERO_TIME);
    t.last_done = r.sequence;
    r.running = false;
    r.steps.clear();
    r.buffer.clear();
}

// ---------------------------------------------------------------------------
// Argument agreement through the tree

void SwitchCollectiveEngine::agreement_record(const NetworkPacketView& v, tlm::tlm_generic_payload* payload) {
    const std::uint32_t bytes = CollectiveArguments::kBytes + 4;
    if (v.payload_bytes != bytes)
        return drop("agreement record of " + std::to_string(v.payload_bytes) + " bytes (expected " +
                    std::to_string(bytes) + ")");
    const std::uint32_t word = load_le32(v.payload + CollectiveArguments::kBytes);  // slot, generation << 8
    const std::uint32_t slot = word & 0xFF;
    if (slot >= kMaxSlots || (word >> 16) != 0)
        return drop("agreement record for context " + std::to_string(v.network.context_id) + " slot " +
                    std::to_string(slot) + ", beyond the trees a context numbers");
    Tree& t = tree(v.network.context_id, static_cast<std::uint8_t>(slot));
    if (!t.configured || record_generation(v) != t.generation) {
        // Its configuration is still on its way (the planner sent it again
        // after the reliable layer gave it up, while the members, configured,
        // started), or an older generation's: the record waits for the next
        // configuration, as data packets do, which takes it in or discards it.
        if (!payload || t.early_records.size() >= kMaxEarlyRecords)
            return drop("agreement record for context " + std::to_string(t.context) + " slot " +
                        std::to_string(t.slot) + ", which this switch has no tree for");
        payload->acquire();
        t.early_records.emplace_back(v, payload);
        return;
    }
    const std::uint16_t sender = v.processor.rank;
    const CollectiveArguments record = CollectiveArguments::read(v.payload, v.network.opcode, v.network.operation,
                                                                 v.network.datatype, v.network.algorithm);
    // A record of a collective an abort ended here (the aborting member
    // sends its records all the same): nothing waits for it any more.
    if (failed(t, static_cast<std::uint16_t>(record.sequence & kStepSequenceMask))) return;
    const auto down = [&](const CollectiveArguments& result) {
        for (const int child : t.role.children) send_record(t, static_cast<std::uint16_t>(child), result);
        t.agreements.erase(record.sequence);
        if (result.errors) fail(t, static_cast<std::uint16_t>(result.sequence & kStepSequenceMask));
    };
    if (t.role.parent >= 0 && sender == t.role.parent) return down(record);  // the root's result
    const auto input = std::find(t.role.children.begin(), t.role.children.end(), static_cast<int>(sender));
    if (input == t.role.children.end())
        return drop("agreement record from " + label(sender) + ", not an input of context " +
                    std::to_string(t.context) + " slot " + std::to_string(t.slot));
    if (t.agreements.size() >= 4 && !t.agreements.count(record.sequence))
        return drop("more than 4 agreements pending on context " + std::to_string(t.context) + " slot " +
                    std::to_string(t.slot));
    Agreement& a = t.agreements[record.sequence];
    a.inputs.resize(t.role.children.size());
    a.inputs[static_cast<std::size_t>(input - t.role.children.begin())] = record;
    for (const auto& in : a.inputs)
        if (!in) return;
    // The first input's fields; every input's bits and differences from it.
    CollectiveArguments combined = *a.inputs.front();
    for (const auto& in : a.inputs) combined.errors |= in->errors | mismatch_fields(*a.inputs.front(), *in);
    if (t.role.parent < 0) {
        if (combined.errors) ++statistics_.disagreements;
        return down(combined);
    }
    if (!a.sent_up) send_record(t, static_cast<std::uint16_t>(t.role.parent), combined);
    a.sent_up = true;
}

void SwitchCollectiveEngine::send_record(Tree& t, std::uint16_t to, const CollectiveArguments& record) {
    PacketFrame frame;
    frame.destination = to;
    frame.traffic = {record.opcode, t.context, record.operation, record.algorithm, record.datatype};
    frame.step = kAgreeStep;
    ProcessorHeader& processor = frame.carried;
    processor.opcode = record.opcode;
    processor.context_id = t.context;
    processor.rank = address_;
    // To a host: the record (it has one tree per context); to an engine: and the slot.
    const bool engine = to >= topology_->hosts();
    processor.message_bytes = CollectiveArguments::kBytes + (engine ? 4 : 0);
    frame.payload_bytes = processor.message_bytes;
    std::uint8_t payload[CollectiveArguments::kBytes + 4];
    record.write(payload);
    store_le32(payload + CollectiveArguments::kBytes, t.slot | std::uint32_t{t.generation} << 8);
    ++statistics_.agreement_packets;
    emit(frame, payload, true);
}

void SwitchCollectiveEngine::fail(Tree& t, std::uint16_t sequence) {
    if (failed(t, sequence)) return;
    t.failed.push_back(sequence);
    if (t.failed.size() > 8) t.failed.pop_front();
    progress(t);
}

bool SwitchCollectiveEngine::failed(const Tree& t, std::uint16_t sequence) const {
    return std::find(t.failed.begin(), t.failed.end(), sequence) != t.failed.end();
}

void SwitchCollectiveEngine::discard_failed(Tree& t) {
    if (t.failed.empty()) return;
    for (const std::uint16_t sender : t.held.senders(t.context)) {
        // Packets the running collective's steps hold are its own; those of
        // a failed collective are not (the steps stop taking them).
        while (const HeldPacket* p = t.held.front(t.context, sender)) {
            if (!failed(t, p->sequence)) break;
            if (void* owner = t.held.pop(t.context, sender)) static_cast<tlm::tlm_generic_payload*>(owner)->release();
            --held_total_;
            ++statistics_.stale;
            owe_credit(t, sender);
        }
    }
}

// ---------------------------------------------------------------------------
// Aborts round the tree: a member's (its row released while the collective
// ran) and, in SHArP mode, an AN's error notices (switch_engine_sharp.cpp)

void SwitchCollectiveEngine::abort_notice(const NetworkPacketView& v) {
    if (v.payload_bytes != kAbortNoticeBytes && v.payload_bytes != kLinkFaultAbortNoticeBytes)
        return drop("abort notice of " + std::to_string(v.payload_bytes) + " bytes");
    const std::uint32_t word = load_le32(v.payload);
    const auto slot = static_cast<std::uint8_t>(word >> 24);
    const auto found = trees_.find(tree_key(v.network.context_id, slot));
    if (slot >= kMaxSlots || found == trees_.end() || !found->second.configured)
        return drop("abort notice for context " + std::to_string(v.network.context_id) + " slot " +
                    std::to_string(slot) + ", which this switch has no tree for");
    Tree& t = found->second;
    const std::uint16_t from = v.processor.rank;
    const bool neighbour =
        static_cast<int>(from) == t.role.parent ||
        std::find(t.role.children.begin(), t.role.children.end(), static_cast<int>(from)) != t.role.children.end();
    if (!neighbour)
        return drop("abort notice from " + label(from) + ", not a neighbour in the tree of context " +
                    std::to_string(t.context) + " slot " + std::to_string(slot));
    // Another generation's: a freed communicator's notice, come late to the
    // group now on this (context, slot). It must not abort this group's collective.
    if (!takes_abort_notice(t.generation, v.generation)) {
        ++statistics_.older_generation;
        return;
    }
    // Every participant passes a notice on once: the echoes (members
    // abandoning the collective tell their vertex again) end here.
    const auto sequence = static_cast<std::uint16_t>(word & kStepSequenceMask);
    if (t.sharp_failed || (t.notified && compare_sequence(sequence, *t.notified) <= 0)) return;
    end_operation(t, sequence, v.payload, v.payload_bytes, from);
}

void SwitchCollectiveEngine::end_operation(Tree& t, std::uint16_t sequence, const std::uint8_t* notice,
                                           std::uint32_t bytes, int from) {
    const std::uint32_t cause = load_le32(notice) >> kAbortCauseShift & 0xFF;
    const bool sharp = cause == static_cast<std::uint32_t>(CollectiveError::Sharp);
    const bool fault = sharp && bytes == kLinkFaultAbortNoticeBytes &&
                       static_cast<SharpFailure>(load_le32(notice + 4) & 0xFF) == SharpFailure::NodeFault;
    t.notified = sequence;
    if (fault) t.sharp_failed = true;
    // Every neighbour in the tree but the one it came from: the notice goes
    // round the whole tree, each participant once, and reaches every member.
    std::vector<int> neighbours(t.role.children.begin(), t.role.children.end());
    if (t.role.parent >= 0) neighbours.push_back(t.role.parent);
    for (const int to : neighbours) {
        if (to == from) continue;
        PacketFrame frame = control_frame(t.context, static_cast<std::uint16_t>(to), kAbortStep, bytes);
        frame.generation = t.generation;  // a neighbour of a newer group on this slot ignores it
        frame.traffic.opcode = t.run.running ? t.run.header.opcode : Opcode::Allreduce;
        frame.carried.opcode = frame.traffic.opcode;  // rank: this engine's address, >= hosts
        ++(sharp ? statistics_.sharp_error_notices : statistics_.abort_notices);
        emit(frame, notice, false);
    }
    // The collective's state here: freed (chunks in the AgLUs dropped with it).
    if (t.run.running && (fault || t.run.sequence == sequence)) {
        t.last_done = t.run.sequence;
        end_run(t);
    }
    // Its packets still to come are discarded (credits returned), its
    // agreement waits for nothing.
    t.agreements.erase(sequence);
    if (!fault && !failed(t, sequence)) {
        t.failed.push_back(sequence);
        if (t.failed.size() > 8) t.failed.pop_front();
    }
    sharp_discard_stale(t);
    progress(t);
}

// ---------------------------------------------------------------------------
// Link faults (reliable delivery gave packets up; models/reliable/README.md)

void SwitchCollectiveEngine::link_fault(std::uint16_t peer, std::uint16_t source, std::uint16_t destination,
                                        const std::vector<std::uint8_t>& lost, const FaultedLink& link) {
    std::optional<NetworkPacketView> v;
    if (!lost.empty()) {
        v = NetworkPacketView::parse(lost.data(), lost.size(), nullptr);
        if (!v || v->network.opcode == Opcode::Send || v->network.opcode == Opcode::Stream) return;
    }
    const auto neighbour = [](const Tree& t, std::uint16_t node) {
        return static_cast<int>(node) == t.role.parent || std::find(t.role.children.begin(), t.role.children.end(),
                                                                    static_cast<int>(node)) != t.role.children.end();
    };
    // What was lost: one tree's collective (its slot and sequence where the
    // packet carries them), or, unknown, every running one with `peer`.
    std::vector<std::pair<Tree*, std::optional<std::uint16_t>>> ended;
    if (v) {
        const std::uint8_t step = v->network.step;
        if (step == kTreeJoinStep || step == kTreeConfigStep) {
            // Setup, no collective yet: its sender sends it again (the pair
            // is resynchronised), or the group would wait for it forever.
            const bool whole = v->offset == 0 && v->payload_bytes == v->processor.message_bytes;
            if (source == address_ && whole) {
                ++statistics_.setup_resent;
                emit(NetworkFraming::frame_of(*v), v->payload, true);
            }
            return;
        }
        const std::uint8_t context = v->network.context_id;
        std::optional<std::uint8_t> slot;
        std::optional<std::uint16_t> sequence;
        if (step >= 1 && step <= kMaxSlots) {
            slot = static_cast<std::uint8_t>(step - 1);
            sequence = step_sequence(v->processor);
        } else if ((step == kAbortStep || step == kCreditStep) && v->payload_bytes >= 4) {
            const std::uint32_t word = load_le32(v->payload);
            slot = static_cast<std::uint8_t>(word >> 24);
            if (step == kAbortStep) sequence = static_cast<std::uint16_t>(word & kStepSequenceMask);
        } else if (step == kAgreeStep && v->payload_bytes >= CollectiveArguments::kBytes) {
            sequence = static_cast<std::uint16_t>(CollectiveArguments::read(v->payload, v->network.opcode,
                                                                            v->network.operation, v->network.datatype,
                                                                            v->network.algorithm)
                                                      .sequence &
                                                  kStepSequenceMask);
            if (v->payload_bytes >= CollectiveArguments::kBytes + 4)
                slot = static_cast<std::uint8_t>(load_le32(v->payload + CollectiveArguments::kBytes) & 0xFF);
        }
        Tree* t = nullptr;
        if (slot) {
            const auto it = trees_.find(tree_key(context, *slot));
            if (it != trees_.end()) t = &it->second;
        } else {  // to a host: the one group on the context it belongs to
            for (auto& [key, tree] : trees_)
                if (tree.context == context && tree.configured && neighbour(tree, peer)) t = &tree;
        }
        if (t && t->configured) ended.emplace_back(t, sequence);
    } else {
        for (auto& [key, t] : trees_)
            if (t.configured && t.run.running && neighbour(t, peer)) ended.emplace_back(&t, std::nullopt);
    }
    for (auto& [t, known] : ended) {
        // A credit carries no sequence: the collective running now.
        if (!known && !t->run.running) continue;
        const std::uint16_t sequence = known ? *known : t->run.sequence;
        if (t->sharp_failed || (t->notified && compare_sequence(sequence, *t->notified) <= 0)) continue;
        ++statistics_.link_faults;
        SC_REPORT_INFO(kReportType,
                       (std::string(name()) + ": collective " + std::to_string(sequence) + " of context " +
                        std::to_string(t->context) + " slot " + std::to_string(t->slot) + " lost packets between " +
                        label(source) + " and " + label(destination) + ": ended with error 6 round its tree")
                           .c_str());
        // As a NIC's notice (cause 6, the node pair and the cable): every
        // member's call ends with the link-fault error naming the link.
        std::uint8_t notice[kLinkFaultAbortNoticeBytes];
        store_le32(notice, (sequence & kStepSequenceMask) |
                               static_cast<std::uint32_t>(CollectiveError::LinkFault) << kAbortCauseShift |
                               std::uint32_t{t->slot} << 24);
        store_le32(notice + 4, static_cast<std::uint32_t>(source) << 16 | destination);
        store_le32(notice + 8, link.from);
        store_le32(notice + 12, link.to);
        store_le32(notice + 16, link.lost);
        end_operation(*t, sequence, notice, kLinkFaultAbortNoticeBytes, -1);
    }
}

// ---------------------------------------------------------------------------
// Window credits and packets out

void SwitchCollectiveEngine::owe_credit(Tree& t, std::uint16_t sender) {
    std::uint32_t& owed = owed_[peer_key(t, sender)];
    if (++owed >= credit_batch_) {
        send_credits(t, sender, owed);
        owed = 0;
        return;
    }
    if (!flush_pending_) {
        flush_pending_ = true;
        flush_at_ = sim_now() + credit_delay_;
        flush_event_.notify(credit_delay_);
    }
}

void SwitchCollectiveEngine::flush_credits() {
    flush_pending_ = false;
    for (auto& [key, owed] : owed_)
        if (owed) {
            Tree& t = trees_.at(static_cast<std::uint16_t>(key >> 16));
            send_credits(t, static_cast<std::uint16_t>(key & 0xFFFF), owed);
            owed = 0;
        }
}

void SwitchCollectiveEngine::send_credits(Tree& t, std::uint16_t sender, std::uint32_t count) {
    const PacketFrame frame = control_frame(t.context, sender, kCreditStep, 4);
    std::uint8_t payload[4];
    store_le32(payload, count | std::uint32_t{t.slot} << 24);  // the tree's slot in bits [31:24]
    ++statistics_.credit_packets;
    emit(frame, payload, true);
}

PacketFrame SwitchCollectiveEngine::control_frame(std::uint8_t context, std::uint16_t destination, std::uint8_t step,
                                                  std::uint32_t bytes) const {
    PacketFrame frame;
    frame.destination = destination;
    frame.traffic.opcode = Opcode::Barrier;
    frame.traffic.context_id = context;
    frame.step = step;
    frame.carried.opcode = Opcode::Barrier;
    frame.carried.context_id = context;
    frame.carried.rank = address_;
    frame.carried.message_bytes = bytes;
    frame.payload_bytes = bytes;
    return frame;
}

std::uint8_t* SwitchCollectiveEngine::emit_packet(const PacketFrame& frame, bool urgent) {
    tlm::tlm_generic_payload* packet = pool_.allocate(NetworkFraming::wire_bytes(frame.payload_bytes));
    framing_.write_headers(frame, packet->get_data_ptr());
    packet_info(*packet).destination = frame.destination;  // the router need not parse the headers again
    port_.enqueue({packet, 0, -1, NetworkFraming::wire_phits(frame.payload_bytes), framing_.vc_for(frame)}, urgent,
                  sc_core::SC_ZERO_TIME);
    return packet->get_data_ptr() + kNetworkPacketOverhead;
}

void SwitchCollectiveEngine::emit(const PacketFrame& frame, const std::uint8_t* data, bool urgent) {
    std::uint8_t* payload = emit_packet(frame, urgent);
    if (frame.payload_bytes) std::memcpy(payload, data, frame.payload_bytes);
}

}  // namespace isvp
