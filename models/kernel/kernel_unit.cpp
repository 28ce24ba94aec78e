// sc_spawn: kernels are launched as dynamic SystemC threads.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "isvp/kernel_unit.h"

#include <algorithm>
#include <cstring>

#include "isvp/msix_interrupt.h"
#include "isvp/parameter_table.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/kernel";
namespace ks = regmap::kernel_status;
namespace ked = regmap::kernel_error_detail;

/// Stream packet kinds (the network header's algorithm bits).
constexpr std::uint8_t kData = 0;
constexpr std::uint8_t kCredit = 1;
constexpr std::uint8_t kAbort = 2;

std::uint32_t load_le32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}
void store_le32(std::uint32_t v, std::uint8_t* p) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint32_t size_of(SMI_Datatype type) {
    switch (type) {
        case SMI_CHAR:
            return 1;
        case SMI_SHORT:
            return 2;
        case SMI_INT:
        case SMI_FLOAT:
            return 4;
        case SMI_LONG:
        case SMI_DOUBLE:
            return 8;
    }
    return 0;
}

std::string type_name(unsigned type) {
    switch (type) {
        case SMI_CHAR:
            return "SMI_CHAR";
        case SMI_SHORT:
            return "SMI_SHORT";
        case SMI_INT:
            return "SMI_INT";
        case SMI_LONG:
            return "SMI_LONG";
        case SMI_FLOAT:
            return "SMI_FLOAT";
        case SMI_DOUBLE:
            return "SMI_DOUBLE";
    }
    return "datatype " + std::to_string(type);
}

std::string op_name(unsigned op) {
    return op == SMI_ADD   ? "SMI_ADD"
           : op == SMI_MAX ? "SMI_MAX"
           : op == SMI_MIN ? "SMI_MIN"
                           : "op " + std::to_string(op);
}

template <typename T>
void combine_as(SMI_Op op, std::uint8_t* acc, const std::uint8_t* in) {
    T a, b;
    std::memcpy(&a, acc, sizeof a);
    std::memcpy(&b, in, sizeof b);
    T r = a;
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        if (op == SMI_ADD) r = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));  // wraps, no UB
    } else {
        if (op == SMI_ADD) r = a + b;
    }
    if (op == SMI_MAX) r = std::max(a, b);
    if (op == SMI_MIN) r = std::min(a, b);
    std::memcpy(acc, &r, sizeof r);
}

void combine(SMI_Datatype type, SMI_Op op, std::uint8_t* acc, const std::uint8_t* in) {
    switch (type) {
        case SMI_CHAR:
            return combine_as<std::int8_t>(op, acc, in);
        case SMI_SHORT:
            return combine_as<std::int16_t>(op, acc, in);
        case SMI_INT:
            return combine_as<std::int32_t>(op, acc, in);
        case SMI_LONG:
            return combine_as<std::int64_t>(op, acc, in);
        case SMI_FLOAT:
            return combine_as<float>(op, acc, in);
        case SMI_DOUBLE:
            return combine_as<double>(op, acc, in);
    }
}
}  // namespace

// ---------------------------------------------------------------------------
// Config

namespace {

/// The kernel.* parameters, each once (isvp/parameter_table.h).
constexpr auto kConfigTable = [](auto& self, auto&& parameter) {
    parameter(param::Real{"kernel.clock_mhz", "MHz", 1.0, 5000.0,
                          "on-FPGA kernel clock: one Push/Pop/collective element per cycle"},
              self.clock_mhz);
    parameter(param::Integer{"kernel.packet_payload_bytes", "bytes", 8, 1024,
                             "data bytes per SMI stream packet (SMI's own packets carry 28)", true},
              self.packet_payload_bytes);
    parameter(param::Integer{"kernel.window_packets", "packets", 1, 4096,
                             "SMI credits: data packets a sender may have unconsumed per (receiver, port)"},
              self.window_packets);
    parameter(param::Integer{"kernel.rx_buffer_phits", "phits", 1, 1 << 20,
                             "kernel unit's input buffer: credits granted to the collective engine"},
              self.rx_buffer_phits);
    parameter(
        param::Integer{"kernel.phits_per_cycle", "phits", 1, 16, "kernel unit's output serialisation width per cycle"},
        self.phits_per_cycle);
};

}  // namespace

void KernelConfig::declare(Parameters& parameters) {
    param::declare_table<KernelConfig>(parameters, kConfigTable);
}

KernelConfig KernelConfig::from(const Parameters& parameters) {
    const KernelConfig config = param::read_table<KernelConfig>(parameters, kConfigTable);
    config.validate();
    return config;
}

void KernelConfig::validate() const {
    param::check_table(*this, kConfigTable);
    // Between parameters: the input buffer holds one whole stream packet.
    const std::uint32_t packet_phits =
        phits_of(static_cast<std::uint32_t>(kNetworkPacketOverhead) + packet_payload_bytes);
    if (rx_buffer_phits < packet_phits)
        refuse_parameter("kernel.rx_buffer_phits",
                         "at least one stream packet (" + std::to_string(packet_phits) +
                             " phits for kernel.packet_payload_bytes=" + std::to_string(packet_payload_bytes) + ")",
                         rx_buffer_phits);
}

// ---------------------------------------------------------------------------
// Construction

KernelUnit::KernelUnit(sc_core::sc_module_name name, std::uint16_t node, unsigned nodes, const KernelConfig& config)
    : sc_core::sc_module(name),
      from_engine("from_engine"),
      from_engine_credit("from_engine_credit"),
      to_engine("to_engine"),
      to_engine_credit("to_engine_credit"),
      csr("csr"),
      irq("irq"),
      node_(node),
      nodes_(nodes),
      config_((config.validate(), config)),
      cycle_(1000.0 / config_.clock_mhz, sc_core::SC_NS),
      // The header's size code names the capacity (>= 16 bytes); the payload is at most packet_payload_bytes.
      framing_(node, std::max<std::uint32_t>(16, config_.packet_payload_bytes)),
      out_(std::string(this->name()), to_engine, cycle_, config_.phits_per_cycle, out_wake_,
           [](const CreditedOutPort::Outgoing&, const sc_core::sc_time&) {}) {
    from_engine.register_b_transport(this, &KernelUnit::on_from_engine);
    to_engine_credit.register_b_transport(this, &KernelUnit::on_engine_credit);
    csr.register_b_transport(this, &KernelUnit::on_csr);
    SC_HAS_PROCESS(KernelUnit);
    SC_METHOD(grant_initial_credits);
    SC_METHOD(drain);
    sensitive << out_wake_.event();
    dont_initialize();
    SC_METHOD(on_arrivals);
    sensitive << arrivals_due_;
    dont_initialize();
}

KernelUnit::~KernelUnit() = default;

void KernelUnit::grant_initial_credits() {
    credit_message_.send(from_engine_credit, 0, config_.rx_buffer_phits, sc_core::SC_ZERO_TIME);
}

// ---------------------------------------------------------------------------
// Registers and launches

void KernelUnit::on_csr(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const std::uint64_t address = payload.get_address();
    if (payload.get_data_length() != 4 || address % 4 != 0 || address < regmap::KERNEL_BASE ||
        address >= regmap::KERNEL_END) {
        payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto offset = static_cast<std::uint32_t>(address);
    std::uint32_t value = 0;
    if (payload.is_write()) {
        std::memcpy(&value, payload.get_data_ptr(), 4);
        if (offset >= regmap::KERNEL_ARG_BASE && offset < regmap::KERNEL_ARG(regmap::kKernelArgs)) {
            const unsigned index = (offset - regmap::KERNEL_ARG_BASE) / 8;
            const unsigned shift = (offset - regmap::KERNEL_ARG_BASE) % 8 ? 32 : 0;
            args_[index] = (args_[index] & ~(0xFFFFFFFFull << shift)) | static_cast<std::uint64_t>(value) << shift;
        } else if (offset == regmap::KERNEL_ID) {
            kernel_id_ = value;
        } else if (offset == regmap::KERNEL_MSIX) {
            msix_vector_ = value & 0x7FF;
        } else if (offset == regmap::KERNEL_WORLD_SIZE) {
            world_register_ = value;
        } else if (offset == regmap::KERNEL_CONTROL) {
            if (regmap::kernel_control::CLEAR.get(value) && state_ != ks::kRunning) {
                state_ = ks::kIdle;
                error_code_ = error_detail_ = 0;
            }
            if (regmap::kernel_control::START.get(value)) start(delay);
        } else {
            SC_REPORT_WARNING(kReportType, (std::string(name()) + ": write to read-only or unmapped kernel register " +
                                            std::to_string(offset) + " ignored")
                                               .c_str());
        }
        return;
    }
    if (offset == regmap::KERNEL_CAPABILITIES) {
        value = regmap::kernel_capabilities::KERNELS.make(static_cast<std::uint32_t>(kernels_end() - kernels_begin())) |
                regmap::kernel_capabilities::ARGS.make(regmap::kKernelArgs) |
                regmap::kernel_capabilities::RESULTS.make(regmap::kKernelResults);
    } else if (offset == regmap::KERNEL_ID) {
        value = kernel_id_;
    } else if (offset == regmap::KERNEL_STATUS) {
        value = ks::STATE.make(state_) | ks::ERROR_CODE.make(error_code_) | ks::LAUNCHES.make(launches_);
    } else if (offset == regmap::KERNEL_ERROR_DETAIL) {
        value = error_detail_;
    } else if (offset == regmap::KERNEL_MSIX) {
        value = msix_vector_;
    } else if (offset == regmap::KERNEL_WORLD_SIZE) {
        value = world_register_;
    } else if (offset == regmap::KERNEL_CYCLES_LO || offset == regmap::KERNEL_CYCLES_HI) {
        value = static_cast<std::uint32_t>(cycles_ >> (offset == regmap::KERNEL_CYCLES_HI ? 32 : 0));
    } else if (offset >= regmap::KERNEL_ARG_BASE && offset < regmap::KERNEL_ARG(regmap::kKernelArgs)) {
        const unsigned at = offset - regmap::KERNEL_ARG_BASE;
        value = static_cast<std::uint32_t>(args_[at / 8] >> (at % 8 ? 32 : 0));
    } else if (offset >= regmap::KERNEL_RESULT_BASE && offset < regmap::KERNEL_RESULT(regmap::kKernelResults)) {
        const unsigned at = offset - regmap::KERNEL_RESULT_BASE;
        value = static_cast<std::uint32_t>(results_[at / 8] >> (at % 8 ? 32 : 0));
    } else {
        value = 0xFFFFFFFFu;  // as an Unsupported Request reads
    }
    std::memcpy(payload.get_data_ptr(), &value, 4);
}

void KernelUnit::start(const sc_core::sc_time& delay) {
    auto refuse = [&](std::uint32_t code, std::uint32_t detail, const std::string& why) {
        ++statistics_.errors;
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": START refused: " + why).c_str());
        if (state_ == ks::kRunning) return;  // the running launch keeps its status
        state_ = ks::kError;
        error_code_ = code;
        error_detail_ = detail;
        raise_msix(irq, msix_vector_, delay);
    };
    if (state_ == ks::kRunning) {
        refuse(regmap::kKernelErrorBusy, running_id_,
               "kernel " + std::to_string(running_id_) + " is still running (one kernel at a time)");
        return;
    }
    const KernelDescriptor* kernel = find_kernel(kernel_id_);
    if (!kernel) {
        refuse(
            regmap::kKernelErrorUnknownId, kernel_id_,
            "KERNEL_ID " + std::to_string(kernel_id_) + " is not a kernel of this bitstream (" + kernel_list() + ")");
        return;
    }
    const std::uint32_t world = world_register_ == 0 ? nodes_ : world_register_;
    if (world > nodes_ || node_ >= world) {
        refuse(regmap::kKernelErrorBadArgument, 0xFFFFFFFFu,
               "KERNEL_WORLD_SIZE " + std::to_string(world) + " must cover this node (" + std::to_string(node_) +
                   ") and be at most NODE_COUNT " + std::to_string(nodes_));
        return;
    }
    std::string why;
    const int bad = kernel->check(args_, static_cast<int>(world), &why);
    if (bad >= 0) {
        refuse(regmap::kKernelErrorBadArgument, static_cast<std::uint32_t>(bad),
               std::string("kernel ") + kernel->name + " argument " + std::to_string(bad) + " (" +
                   (kernel->arguments[bad] ? kernel->arguments[bad] : "unused") + " = " + std::to_string(args_[bad]) +
                   "): " + why);
        return;
    }
    ++launches_;
    ++statistics_.launches;
    state_ = ks::kRunning;
    error_code_ = error_detail_ = 0;
    running_id_ = kernel->id;
    world_ = static_cast<int>(world);
    results_.fill(0);
    aborted_peers_.clear();
    channels_.clear();
    next_channel_ = 0;
    for (auto& entry : streams_) entry.second.discarding = false;
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn(sc_bind(&KernelUnit::run, this, kernel, args_, delay),
                      (std::string("launch") + std::to_string(launches_)).c_str(), &options);
}

void KernelUnit::run(const KernelDescriptor* kernel, std::array<std::uint64_t, regmap::kKernelArgs> args,
                     sc_core::sc_time delay) {
    wait(delay);  // START reaches the unit a PCIe latency after the host wrote it
    const sc_core::sc_time begin = sim_now();
    KernelContext context(*this, args);
    try {
        kernel->body(context, context.world());
        results_ = context.results();
        cycles_ = static_cast<std::uint64_t>((sim_now() - begin) / cycle_);
        ++statistics_.completed;
        finish(ks::kDone, 0, 0);
    } catch (const KernelError& error) {
        results_ = context.results();
        cycles_ = static_cast<std::uint64_t>((sim_now() - begin) / cycle_);
        ++statistics_.errors;
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": kernel " + kernel->name + " on rank " +
                                        std::to_string(node_) + " failed: " + error.what())
                                           .c_str());
        finish(ks::kError, error.code(), error.detail());
    }
}

void KernelUnit::finish(std::uint32_t state, std::uint32_t code, std::uint32_t detail) {
    state_ = state;
    error_code_ = code;
    error_detail_ = detail;
    channels_.clear();
    raise_msix(irq, msix_vector_, sc_core::SC_ZERO_TIME);
}

// ---------------------------------------------------------------------------
// Channels

int KernelUnit::open(ChannelKind kind, bool send, int count, SMI_Datatype type, int peer, int port, SMI_Op op) {
    const std::string call =
        kind == ChannelKind::PointToPoint ? "SMI_Open_*_channel" : "SMI_Open_" + to_string(kind) + "_channel";
    auto refuse = [&](std::uint32_t what, const std::string& text) {
        throw KernelError(regmap::kKernelErrorChannelArgs,
                          ked::PORT.make(static_cast<std::uint32_t>(port)) |
                              ked::PEER.make(static_cast<std::uint32_t>(peer)) | ked::WHAT.make(what),
                          call + ": " + text);
    };
    const std::uint32_t element = size_of(type);
    if (element == 0) refuse(ked::kChannelDatatypeArg, type_name(type) + " is not an SMI datatype");
    if (op != SMI_ADD && op != SMI_MAX && op != SMI_MIN)
        refuse(ked::kChannelDatatypeArg, op_name(op) + " is not an SMI_Op");
    if (port < 0 || port > 255) refuse(ked::kChannelPort, "port " + std::to_string(port) + " outside 0..255");
    if (peer < 0 || peer >= world_)
        refuse(kind == ChannelKind::PointToPoint ? ked::kChannelPeer : ked::kChannelRoot,
               std::string(kind == ChannelKind::PointToPoint ? "peer " : "root ") + std::to_string(peer) +
                   " outside SMI_COMM_WORLD (size " + std::to_string(world_) + ")");
    if (count < 0 || static_cast<std::uint64_t>(count) * element >= kMaxMessageBytes)
        refuse(ked::kChannelCountArg, "count " + std::to_string(count) + " must be 0.." +
                                          std::to_string(kMaxMessageBytes / element) + " " + type_name(type));
    Channel c;
    c.kind = kind;
    c.count = static_cast<std::uint32_t>(count);
    c.type = type;
    c.element_bytes = element;
    c.op = op;
    c.port = port;
    c.root_rank = peer;
    c.root = kind != ChannelKind::PointToPoint && peer == node_;
    auto lane = [](int with, bool sends) {
        Lane l;
        l.peer = with;
        l.send = sends;
        return l;
    };
    if (kind == ChannelKind::PointToPoint) {
        c.lanes.push_back(lane(peer, send));
    } else if (c.root) {
        const bool root_sends = kind == ChannelKind::Bcast || kind == ChannelKind::Scatter;
        for (int r = 0; r < world_; ++r)
            if (r != node_) c.lanes.push_back(lane(r, root_sends));
    } else {
        const bool member_sends = kind == ChannelKind::Reduce || kind == ChannelKind::Gather;
        c.lanes.push_back(lane(peer, member_sends));
    }
    const int id = next_channel_++;
    channels_.emplace(id, std::move(c));
    return id;
}

void KernelUnit::forget_if_finished(int id) {
    const Channel& c = channels_.at(id);
    for (const Lane& lane : c.lanes)
        if (lane.done < c.count || !lane.pending.empty()) return;
    const bool root_calls = c.root && (c.kind == ChannelKind::Scatter || c.kind == ChannelKind::Gather);
    if (root_calls && c.calls < static_cast<std::uint64_t>(c.count) * world_) return;
    if (c.lanes.empty() && !root_calls) return;  // a collective on a world of one: kept until the launch ends
    channels_.erase(id);
}

KernelUnit::Channel& KernelUnit::channel(int id, ChannelKind kind, const char* call) {
    const auto it = channels_.find(id);
    if (it == channels_.end() || it->second.kind != kind)
        throw KernelError(regmap::kKernelErrorChannelArgs, 0,
                          std::string(call) + ": not an open " + to_string(kind) +
                              " channel of this launch (never opened, or all its elements have passed)");
    return it->second;
}

void KernelUnit::check_peer(int peer, int port) {
    const auto it = aborted_peers_.find(peer);
    if (it == aborted_peers_.end()) return;
    throw KernelError(regmap::kKernelErrorPeerAborted, it->second.second,
                      "rank " + std::to_string(peer) + " refused a channel (its port " +
                          std::to_string(ked::PORT.get(it->second.second)) + ") and ended; this rank waited on port " +
                          std::to_string(port));
}

void KernelUnit::refuse_channel(const Channel& c, int peer, std::uint32_t what, const std::string& detail) {
    const std::uint32_t code = regmap::kKernelErrorChannel;
    const std::uint32_t word = ked::PORT.make(static_cast<std::uint32_t>(c.port)) |
                               ked::PEER.make(static_cast<std::uint32_t>(peer)) | ked::WHAT.make(what);
    std::uint8_t body[8];
    store_le32(code, body);
    store_le32(ked::PORT.make(static_cast<std::uint32_t>(c.port)) | ked::PEER.make(node_) | ked::WHAT.make(what),
               body + 4);
    emit(peer, c.port, static_cast<std::uint8_t>(c.kind), nullptr, 0, body, 8, kAbort, true);
    ++statistics_.abort_packets;
    // The refused channel's packets go (their credits back to the sender,
    // whose later channels need them); so do its packets still to come.
    Stream& s = stream(peer, c.port);
    bool ended = false;
    std::uint32_t dropped = 0;
    while (!s.packets.empty() && !ended) {
        ended = s.packets.front().last;
        s.packets.pop_front();
        ++dropped;
    }
    s.discarding = !ended;
    return_credits(peer, c.port, static_cast<std::uint8_t>(c.kind), dropped + s.unreturned);
    s.unreturned = 0;
    throw KernelError(
        code, word, "channel on port " + std::to_string(c.port) + " from rank " + std::to_string(peer) + ": " + detail);
}

void KernelUnit::emit(int peer, int port, std::uint8_t kind, const Channel* c, std::uint32_t offset,
                      const std::uint8_t* data, std::uint32_t bytes, std::uint8_t packet_kind, bool last) {
    // SMI's fields on the packet: the channel kind as context, the packet
    // kind as algorithm, the port in the step field (docs/SMI.md).
    PacketFrame frame;
    frame.destination = static_cast<std::uint16_t>(peer);
    frame.traffic = {Opcode::Stream, kind, c ? static_cast<std::uint8_t>(c->op) : std::uint8_t{0}, packet_kind,
                     c ? static_cast<std::uint8_t>(c->type) : std::uint8_t{0}};
    frame.step = static_cast<std::uint8_t>(port);
    frame.carried.message_bytes = c ? c->count * c->element_bytes : bytes;
    frame.carried.context_id = kind;
    frame.carried.operation = frame.traffic.operation;
    frame.carried.opcode = Opcode::Stream;
    frame.carried.algorithm = packet_kind;
    frame.carried.datatype = frame.traffic.datatype;
    frame.carried.rank = node_;
    frame.offset = offset;
    frame.payload_bytes = bytes;
    frame.last = last;
    tlm::tlm_generic_payload* packet = pool_.allocate(NetworkFraming::wire_bytes(bytes));
    framing_.write_headers(frame, packet->get_data_ptr());
    if (bytes) std::memcpy(packet->get_data_ptr() + kNetworkPacketOverhead, data, bytes);
    out_.enqueue({packet, 0, -1, NetworkFraming::wire_phits(bytes), framing_.vc_for(frame)}, packet_kind != kData,
                 sc_core::SC_ZERO_TIME);
}

void KernelUnit::send_element(Channel& c, Lane& lane, const void* data) {
    if (lane.done >= c.count)
        throw KernelError(regmap::kKernelErrorChannelArgs,
                          ked::PORT.make(static_cast<std::uint32_t>(c.port)) |
                              ked::PEER.make(static_cast<std::uint32_t>(lane.peer)) |
                              ked::WHAT.make(ked::kChannelCount),
                          "push past the channel's count " + std::to_string(c.count) + " on port " +
                              std::to_string(c.port) + " to rank " + std::to_string(lane.peer));
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    lane.pending.insert(lane.pending.end(), bytes, bytes + c.element_bytes);
    ++lane.done;
    ++statistics_.elements_pushed;
    const std::uint32_t per_packet = config_.packet_payload_bytes / c.element_bytes * c.element_bytes;
    if (lane.pending.size() < per_packet && lane.done < c.count) return;
    Stream& s = stream(lane.peer, c.port);
    if (s.credits < 0) s.credits = config_.window_packets;
    while (s.credits == 0) {  // the receiver's buffer for this channel is full: stall
        check_peer(lane.peer, c.port);
        const sc_core::sc_time stalled = sim_now();
        wait(arrival_event_);
        statistics_.stall_cycles += static_cast<std::uint64_t>((sim_now() - stalled) / cycle_);
    }
    --s.credits;
    const auto size = static_cast<std::uint32_t>(lane.pending.size());
    const auto offset = static_cast<std::uint32_t>(lane.done * c.element_bytes) - size;
    emit(lane.peer, c.port, static_cast<std::uint8_t>(c.kind), &c, offset, lane.pending.data(), size, kData,
         lane.done == c.count);
    ++statistics_.data_packets_sent;
    lane.pending.clear();
}

void KernelUnit::receive_element(Channel& c, Lane& lane, void* data) {
    if (lane.done >= c.count)
        throw KernelError(regmap::kKernelErrorChannelArgs,
                          ked::PORT.make(static_cast<std::uint32_t>(c.port)) |
                              ked::PEER.make(static_cast<std::uint32_t>(lane.peer)) |
                              ked::WHAT.make(ked::kChannelCount),
                          "pop past the channel's count " + std::to_string(c.count) + " on port " +
                              std::to_string(c.port) + " from rank " + std::to_string(lane.peer));
    Stream& s = stream(lane.peer, c.port);
    while (s.packets.empty()) {
        check_peer(lane.peer, c.port);
        wait(arrival_event_);
    }
    Received& front = s.packets.front();
    if (!lane.checked) {
        const std::uint64_t want = static_cast<std::uint64_t>(c.count) * c.element_bytes;
        if (front.kind != c.kind)
            refuse_channel(c, lane.peer, ked::kChannelKind,
                           "the sender opened a " + to_string(front.kind) + " channel, this rank a " +
                               to_string(c.kind) + " channel");
        if (front.datatype != c.type)
            refuse_channel(c, lane.peer, ked::kChannelDatatype,
                           "datatypes differ: the sender's is " + type_name(front.datatype) + ", this rank's " +
                               type_name(c.type));
        if (front.message_bytes != want)
            refuse_channel(c, lane.peer, ked::kChannelCount,
                           "counts differ: the sender's is " + std::to_string(front.message_bytes / c.element_bytes) +
                               " " + type_name(c.type) + ", this rank's " + std::to_string(c.count));
        if (c.kind == ChannelKind::Reduce && front.operation != c.op)
            refuse_channel(c, lane.peer, ked::kChannelOperation,
                           "reduce operations differ: the sender's is " + op_name(front.operation) + ", this rank's " +
                               op_name(c.op));
        lane.checked = true;
    }
    std::memcpy(data, front.payload.data() + lane.position, c.element_bytes);
    lane.position += c.element_bytes;
    ++lane.done;
    ++statistics_.elements_popped;
    if (lane.position < front.payload.size()) return;
    s.packets.pop_front();
    lane.position = 0;
    ++s.unreturned;
    if (s.unreturned >= std::max<std::uint32_t>(1, config_.window_packets / 2) || lane.done == c.count) {
        return_credits(lane.peer, c.port, static_cast<std::uint8_t>(c.kind), s.unreturned);
        s.unreturned = 0;
    }
}

void KernelUnit::return_credits(int peer, int port, std::uint8_t kind, std::uint32_t packets) {
    if (packets == 0) return;
    std::uint8_t body[4];
    store_le32(packets, body);
    emit(peer, port, kind, nullptr, 0, body, 4, kCredit, true);
    ++statistics_.credit_packets;
}

void KernelUnit::push(int id, const void* data) {
    Channel& c = channel(id, ChannelKind::PointToPoint, "SMI_Push");
    if (!c.lanes[0].send)
        throw KernelError(regmap::kKernelErrorChannelArgs, ked::PORT.make(static_cast<std::uint32_t>(c.port)),
                          "SMI_Push on a receive channel (port " + std::to_string(c.port) + ")");
    tick();
    send_element(c, c.lanes[0], data);
    forget_if_finished(id);
}

void KernelUnit::pop(int id, void* data) {
    Channel& c = channel(id, ChannelKind::PointToPoint, "SMI_Pop");
    if (c.lanes[0].send)
        throw KernelError(regmap::kKernelErrorChannelArgs, ked::PORT.make(static_cast<std::uint32_t>(c.port)),
                          "SMI_Pop on a send channel (port " + std::to_string(c.port) + ")");
    tick();
    receive_element(c, c.lanes[0], data);
    forget_if_finished(id);
}

void KernelUnit::bcast(int id, void* data) {
    Channel& c = channel(id, ChannelKind::Bcast, "SMI_Bcast");
    tick();
    if (c.root)
        for (Lane& lane : c.lanes) send_element(c, lane, data);
    else
        receive_element(c, c.lanes[0], data);
    forget_if_finished(id);
}

void KernelUnit::reduce(int id, const void* data_snd, void* data_rcv) {
    Channel& c = channel(id, ChannelKind::Reduce, "SMI_Reduce");
    tick();
    if (!c.root) {
        send_element(c, c.lanes[0], data_snd);
        forget_if_finished(id);
        return;
    }
    // Operands in rank order: own element at its rank's place.
    std::uint8_t acc[8], in[8];
    bool first = true;
    std::size_t next_lane = 0;
    for (int r = 0; r < world_; ++r) {
        const std::uint8_t* operand = static_cast<const std::uint8_t*>(data_snd);
        if (r != node_) {
            receive_element(c, c.lanes[next_lane++], in);
            operand = in;
        }
        if (first)
            std::memcpy(acc, operand, c.element_bytes);
        else
            combine(c.type, c.op, acc, operand);
        first = false;
    }
    std::memcpy(data_rcv, acc, c.element_bytes);
    forget_if_finished(id);
}

void KernelUnit::scatter(int id, const void* data_snd, void* data_rcv) {
    scatter_step(id, data_snd, data_rcv);
    forget_if_finished(id);
}

void KernelUnit::scatter_step(int id, const void* data_snd, void* data_rcv) {
    Channel& c = channel(id, ChannelKind::Scatter, "SMI_Scatter");
    tick();
    if (!c.root) {
        receive_element(c, c.lanes[0], data_rcv);
        return;
    }
    const std::uint64_t total = static_cast<std::uint64_t>(c.count) * world_;
    if (c.calls >= total)
        throw KernelError(regmap::kKernelErrorChannelArgs, 0, "SMI_Scatter: more than size x count calls at the root");
    const int to = static_cast<int>(c.calls++ / std::max<std::uint32_t>(1, c.count));
    if (to == node_) {
        std::memcpy(data_rcv, data_snd, c.element_bytes);
        return;
    }
    send_element(c, c.lanes[static_cast<std::size_t>(to < node_ ? to : to - 1)], data_snd);
}

void KernelUnit::gather(int id, const void* data_snd, void* data_rcv) {
    gather_step(id, data_snd, data_rcv);
    forget_if_finished(id);
}

void KernelUnit::gather_step(int id, const void* data_snd, void* data_rcv) {
    Channel& c = channel(id, ChannelKind::Gather, "SMI_Gather");
    tick();
    if (!c.root) {
        send_element(c, c.lanes[0], data_snd);
        return;
    }
    const std::uint64_t total = static_cast<std::uint64_t>(c.count) * world_;
    if (c.calls >= total)
        throw KernelError(regmap::kKernelErrorChannelArgs, 0, "SMI_Gather: more than size x count calls at the root");
    const int from = static_cast<int>(c.calls++ / std::max<std::uint32_t>(1, c.count));
    if (from == node_) {
        std::memcpy(data_rcv, data_snd, c.element_bytes);
        return;
    }
    receive_element(c, c.lanes[static_cast<std::size_t>(from < node_ ? from : from - 1)], data_rcv);
}

void KernelUnit::compute(std::uint64_t cycles) {
    if (cycles) wait(cycle_ * static_cast<double>(cycles));
}

// ---------------------------------------------------------------------------
// Packets from the network

void KernelUnit::on_from_engine(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    const sc_core::sc_time tail = delay + packet_info(payload).tail_after;
    // Taken in at once (stream credits bound what can arrive): the buffer frees at the tail.
    credit_message_.send(from_engine_credit, 0, phits_of(length), tail);
    std::string why;
    const auto view = NetworkPacketView::parse(payload.get_data_ptr(), length, &why);
    if (!view || view->network.opcode != Opcode::Stream || view->network.algorithm > kAbort ||
        view->network.context_id > static_cast<unsigned>(ChannelKind::Gather)) {
        ++statistics_.dropped;
        SC_REPORT_WARNING(kReportType, (std::string(name()) + ": dropped a packet that is not an SMI stream packet" +
                                        (why.empty() ? std::string() : ": " + why))
                                           .c_str());
        return;
    }
    Arrival a;
    a.at = sim_now() + tail;
    a.order = arrival_order_++;
    a.peer = view->processor.rank;
    a.port = view->network.step;
    a.packet_kind = view->network.algorithm;
    a.packet.ready = a.at;
    a.packet.last = view->network.last;
    a.packet.kind = static_cast<ChannelKind>(view->network.context_id);
    a.packet.datatype = view->network.datatype;
    a.packet.operation = view->network.operation;
    a.packet.message_bytes = view->processor.message_bytes;
    a.packet.payload.assign(view->payload, view->payload + view->payload_bytes);
    arrivals_.push(std::move(a));
    arrivals_due_.notify(tail);
}

void KernelUnit::on_arrivals() {
    const sc_core::sc_time now = sim_now();
    bool any = false;
    while (!arrivals_.empty() && arrivals_.top().at <= now) {
        Arrival a = arrivals_.top();
        arrivals_.pop();
        any = true;
        Stream& s = stream(a.peer, a.port);
        if (a.packet_kind == kData && s.discarding) {  // the rest of a refused channel
            s.discarding = !a.packet.last;
            return_credits(a.peer, a.port, static_cast<std::uint8_t>(a.packet.kind), 1);
        } else if (a.packet_kind == kData) {
            ++statistics_.data_packets_received;
            s.packets.push_back(std::move(a.packet));
            statistics_.peak_buffered_packets =
                std::max<std::uint64_t>(statistics_.peak_buffered_packets, s.packets.size());
        } else if (a.packet_kind == kCredit && a.packet.payload.size() >= 4) {
            if (s.credits < 0) s.credits = config_.window_packets;
            s.credits += load_le32(a.packet.payload.data());
        } else if (a.packet_kind == kAbort && a.packet.payload.size() >= 8) {
            aborted_peers_[a.peer] = {load_le32(a.packet.payload.data()), load_le32(a.packet.payload.data() + 4)};
        }
    }
    if (any) arrival_event_.notify(sc_core::SC_ZERO_TIME);
    if (!arrivals_.empty()) arrivals_due_.notify(arrivals_.top().at - now);
}

}  // namespace isvp
