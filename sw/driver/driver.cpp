#include "isvp/driver.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "isvp/driver_parameters.h"
#include "isvp/packet_format.h"
#include "isvp/register_names.h"

namespace isvp::guest {

namespace rm = isvp::regmap;

namespace {

/// Bytes of the envelope in front of a message's data.
constexpr std::uint32_t kEnvelopeBytes = 16;
static_assert(kMaxSendBytes == kMaxMessageBytes - kEnvelopeBytes, "driver.h states the envelope size");
/// Envelope word 1 (bytes 4..7), bit 0: the data is not carried (timing
/// only, send_length_only); the receiver keeps none.
constexpr std::uint32_t kEnvelopeLengthOnly = 1u;
/// Envelope word 1, bit 1: a stream probe (send_stream_probes), no message.
constexpr std::uint32_t kEnvelopeStreamProbe = 2u;
/// Envelope word 1, bits 8..31: the message's number in its sender's stream
/// to this node (a probe: the number of the sender's next message), modulo 2^24.
constexpr unsigned kStreamNumberShift = 8;
constexpr std::uint32_t kStreamNumberMask = 0xFFFFFFu;
/// Tags a stream probe carries: those of the sender's last messages to the
/// peer (4 bytes each, oldest first), so that the peer learns the tags of
/// the messages it lost (driver.h, Link faults).
constexpr std::uint32_t kStreamHistory = 16;

/// Clears a flag when the scope ends, also by an exception.
struct ClearOnExit {
    bool& flag;
    ~ClearOnExit() { flag = false; }
};

unsigned ring_size_index(unsigned entries, const char* ring) {
    for (unsigned i = 0; i < rm::kRingSizeCount; ++i)
        if (rm::kRingSizeReset[i] == entries) return i;
    std::ostringstream message;
    message << "driver: " << ring << " ring of " << entries
            << " entries is not in the device's ring-size table (64, 128, ..., 16384)";
    throw DriverError(message.str());
}

}  // namespace

std::string describe_cable(std::uint32_t from, std::uint32_t to) {
    namespace ll = rm::link_fault_link;
    if (!ll::NAMED.get(from)) return " (no link reported dropping them: acknowledgements lost or late)";
    const std::uint32_t others = ll::OTHER_LINKS.get(from);
    const std::string ports = "switch " + std::to_string(ll::SWITCH.get(from)) + " port " +
                              std::to_string(ll::PORT.get(from)) + " -> switch " + std::to_string(ll::SWITCH.get(to)) +
                              " port " + std::to_string(ll::PORT.get(to));
    const std::string more =
        others > 0 ? " (and " + std::to_string(others) + " other link" + (others == 1 ? "" : "s") + ")" : "";
    // A torus link: switch i is node i; name it by nodes and direction.
    static constexpr const char* kDirections[] = {"+x", "-x", "+y", "-y", "+z", "-z"};
    const std::uint32_t direction = ll::DIRECTION.get(to);
    if (direction >= 1 && direction <= 6)
        return " on the link node " + std::to_string(ll::SWITCH.get(from)) + " " + kDirections[direction - 1] +
               " -> node " + std::to_string(ll::SWITCH.get(to)) + " (" + ports + ")" + more;
    return " on the link " + ports + more;
}

std::string describe(const LinkFault& fault, int own_node) {
    const int peer = fault.peer_node >= 0 ? fault.peer_node : fault.peer;
    const int from = fault.sending ? own_node : peer;
    const int to = fault.sending ? peer : own_node;
    namespace ll = rm::link_fault_link;
    const std::string link = describe_cable(
        ll::NAMED.make(fault.link_named ? 1 : 0) | ll::SWITCH.make(fault.from_switch) | ll::PORT.make(fault.from_port) |
            ll::OTHER_LINKS.make(fault.other_links),
        ll::SWITCH.make(fault.to_switch) | ll::PORT.make(fault.to_port) | ll::DIRECTION.make(fault.direction));
    const std::string count =
        fault.lost == 0 ? "packets" : std::to_string(fault.lost) + " packet" + (fault.lost == 1 ? "" : "s");
    return "link fault: " + count + " from node " + std::to_string(from) + " to node " + std::to_string(to) +
           " lost for good" + link + "; the reliable layer gave up (the platform's warning names the ports)";
}

Driver::Driver(DeviceTransport& transport, DriverConfig config)
    : transport_(transport),
      config_(config),
      memory_(transport.host_memory()),
      memory_bytes_(transport.host_memory_bytes()) {
    if (transport_.mmio_read32(rm::ID) != rm::kIdValue)
        throw DriverError("driver: BAR0 ID register does not read 'ISVP': no isvp device behind this transport");
    const std::uint32_t version = transport_.mmio_read32(rm::VERSION);
    if ((version >> 16) != (rm::kVersionValue >> 16)) {
        std::ostringstream message;
        message << "driver: device version " << (version >> 16) << "." << (version & 0xFFFF)
                << " is not supported (driver speaks " << (rm::kVersionValue >> 16) << ".x)";
        throw DriverError(message.str());
    }
    node_address_ = static_cast<std::uint16_t>(transport_.mmio_read32(rm::NODE_ADDRESS));
    node_count_ = transport_.mmio_read32(rm::NODE_COUNT);
    packet_bytes_ = transport_.mmio_read32(rm::PACKET_BYTES);
    const std::uint32_t queues = transport_.mmio_read32(rm::QUEUE_COUNT);
    if (config_.queue >= queues)
        throw DriverError("driver: queue " + std::to_string(config_.queue) + " does not exist (device has " +
                          std::to_string(queues) + ")");
    if (static_cast<std::uint32_t>(size()) > node_count_)
        throw DriverError("driver: " + std::to_string(size()) + " ranks but the network has only " +
                          std::to_string(node_count_) + " nodes");
    place_ranks();
    if (config_.descriptor_bytes == 0 || config_.descriptor_bytes > rm::kMaxDescriptorBytes)
        throw DriverError("driver: descriptor_bytes must be 1..65535");
    try {
        check_driver_parameters(config_);  // the ranges of the driver.* table, its one error format
    } catch (const ConfigError& error) {
        throw DriverError(error.what());
    }
    use_pio_ = config_.send_path == SendPath::Pio || config_.send_path == SendPath::Auto;
    standing_ = config_.send_path == SendPath::Prefetch || config_.send_path == SendPath::Auto;
    if (use_pio_) {
        pio_window_bytes_ = config_.queue < rm::kPioQueues ? transport_.mmio_read32(rm::PIO_WINDOW_BYTES) : 0;
        const bool windowless = pio_window_bytes_ == 0 || pio_window_bytes_ == 0xFFFFFFFFu;
        // auto adapts to the device it finds, as a driver probing its card
        // does: without a PIO window every message goes by descriptors.
        if (windowless && config_.send_path == SendPath::Auto) use_pio_ = false;
    }
    if (use_pio_) {
        if (config_.queue >= rm::kPioQueues || pio_window_bytes_ == 0 || pio_window_bytes_ == 0xFFFFFFFFu)
            throw DriverError("driver.send_path=" + std::string(to_string(config_.send_path)) + ": queue " +
                              std::to_string(config_.queue) + " has no PIO window on this device (PIO_WINDOW_BYTES " +
                              std::to_string(pio_window_bytes_) + ", queues below " + std::to_string(rm::kPioQueues) +
                              ")");
        const std::uint32_t room = pio_window_bytes_ - ProcessorHeader::kBytes - kEnvelopeBytes;
        if (config_.pio_max_bytes > room)
            throw DriverError("driver.pio_max_bytes=" + std::to_string(config_.pio_max_bytes) +
                              " does not fit the device's " + std::to_string(pio_window_bytes_) +
                              "-byte PIO window with header and envelope (at most " + std::to_string(room) + ")");
    }

    for (const unsigned vector : {config_.cmpt_vector, config_.h2c_vector, config_.error_vector})
        if (vector >= rm::kMsixVectors)
            throw DriverError("driver: MSI-X vector " + std::to_string(vector) + " outside the table's 0.." +
                              std::to_string(rm::kMsixVectors - 1));
    if (config_.cmpt_vector == config_.h2c_vector || config_.cmpt_vector == config_.error_vector ||
        config_.h2c_vector == config_.error_vector)
        throw DriverError("driver: the completion, H2C and error MSI-X vectors must differ");
    const unsigned h2c_index = ring_size_index(config_.h2c_ring_entries, "H2C");
    const unsigned c2h_index = ring_size_index(config_.c2h_ring_entries, "C2H");
    const unsigned cmpt_index = ring_size_index(config_.cmpt_ring_entries, "CMPT");
    c2h_buffer_bytes_ = std::max<std::uint32_t>(packet_bytes_, 64);

    h2c_ring_ = allocate(config_.h2c_ring_entries * sizeof(rm::H2cDescriptor), 4096);
    c2h_ring_ = allocate(config_.c2h_ring_entries * sizeof(rm::C2hDescriptor), 4096);
    cmpt_ring_ = allocate(config_.cmpt_ring_entries * sizeof(rm::CompletionEntry), 4096);
    c2h_buffers_ = allocate(static_cast<std::size_t>(config_.c2h_ring_entries - 1) * c2h_buffer_bytes_, 4096);
    const std::size_t remaining = memory_bytes_ - next_free_;
    config_.staging_bytes = std::min(config_.staging_bytes, remaining - remaining % 4096);
    if (config_.staging_bytes < 2 * config_.descriptor_bytes)
        throw DriverError("driver: host memory of " + std::to_string(memory_bytes_) +
                          " bytes leaves no room for a send staging area");
    staging_base_ = allocate(config_.staging_bytes, 4096);
    h2c_staging_end_.assign(config_.h2c_ring_entries, 0);
    h2c_staging_begin_.assign(config_.h2c_ring_entries, 0);
    std::memset(memory_ + h2c_ring_, 0, config_.h2c_ring_entries * sizeof(rm::H2cDescriptor));
    if (standing_) write_standing_descriptors();
    std::memset(memory_ + cmpt_ring_, 0, config_.cmpt_ring_entries * sizeof(rm::CompletionEntry));

    // Every usable C2H slot i permanently holds buffer i.
    for (unsigned slot = 0; slot + 1 < config_.c2h_ring_entries; ++slot) {
        const rm::C2hDescriptor descriptor{c2h_buffers_ + static_cast<std::uint64_t>(slot) * c2h_buffer_bytes_};
        std::memcpy(memory_ + c2h_ring_ + slot * sizeof descriptor, &descriptor, sizeof descriptor);
    }

    for (unsigned vector : {config_.cmpt_vector, config_.h2c_vector, config_.error_vector}) {
        const std::uint32_t entry = rm::MSIX_ENTRY(vector);
        transport_.mmio_write32(entry + rm::MSIX_ADDRESS_LO, static_cast<std::uint32_t>(rm::kMsiWindowBase));
        transport_.mmio_write32(entry + rm::MSIX_ADDRESS_HI, 0);
        transport_.mmio_write32(entry + rm::MSIX_DATA, vector);
        transport_.mmio_write32(entry + rm::MSIX_VECTOR_CONTROL, 0);  // unmask
    }
    // Before error interrupts are enabled: today's platform answers the
    // accelerator window with an unmapped access, which the probe clears.
    if (config_.offload) probe_accelerator();
    transport_.mmio_write32(rm::ERROR_MSIX, config_.error_vector);
    transport_.mmio_write32(rm::ERROR_IRQ_ENABLE, ~0u);

    const std::uint32_t q = rm::QUEUE(config_.queue);
    // Start from a clean queue whatever an earlier session left behind: the
    // device latches ring bases and indices only when a ring is enabled.
    for (const std::uint32_t control : {rm::H2C_CONTROL, rm::C2H_CONTROL, rm::CMPT_CONTROL})
        transport_.mmio_write32(q + control, 0);
    transport_.mmio_write32(q + rm::QUEUE_COMMAND, rm::command::RESET.make(1));
    write64(q + rm::H2C_BASE_LO, h2c_ring_);
    write64(q + rm::C2H_BASE_LO, c2h_ring_);
    write64(q + rm::CMPT_BASE_LO, cmpt_ring_);
    transport_.mmio_write32(q + rm::C2H_BUFFER_BYTES, c2h_buffer_bytes_);
    transport_.mmio_write32(q + rm::CMPT_COALESCE, rm::coalesce::COUNT.make(1));
    transport_.mmio_write32(q + rm::H2C_CONTROL, rm::control::RING_SIZE_INDEX.make(h2c_index) |
                                                     rm::control::ENABLE.make(1) | rm::control::STATUS_ENABLE.make(1) |
                                                     rm::control::IRQ_ENABLE.make(1) |
                                                     rm::control::MSIX_VECTOR.make(config_.h2c_vector) |
                                                     rm::control::PREFETCH.make(standing_ ? 1 : 0));
    transport_.mmio_write32(q + rm::C2H_CONTROL,
                            rm::control::RING_SIZE_INDEX.make(c2h_index) | rm::control::ENABLE.make(1));
    transport_.mmio_write32(q + rm::CMPT_CONTROL, rm::control::RING_SIZE_INDEX.make(cmpt_index) |
                                                      rm::control::ENABLE.make(1) | rm::control::STATUS_ENABLE.make(1) |
                                                      rm::control::IRQ_ENABLE.make(1) |
                                                      rm::control::MSIX_VECTOR.make(config_.cmpt_vector));
    if (config_.queue != 0)
        for (unsigned context = 0; context < rm::kContextCount; ++context)
            transport_.mmio_write32(rm::CONTEXT_QUEUE(context), config_.queue);

    // Post all receive buffers but one: a full ring would look empty.
    c2h_pidx_ = config_.c2h_ring_entries - 2;
    transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::C2H_PIDX, c2h_pidx_);
    // Polling never sleeps on the completion interrupt: leave it unarmed.
    transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::CMPT_CIDX,
                            rm::doorbell::IRQ_ARM.make(config_.completion == CompletionMode::Poll ? 0 : 1));

    // A polling rank says so once (a 1 ps wait for host-memory updates): the
    // transport keeps host-memory update notifications only from then on.
    if (config_.completion != CompletionMode::Msi) transport_.wait_event(0, true, transport_.now_ps() + 1);

    peer_index_.assign(node_count_, 0);
    // A bad setup value shows up as a queue error right away, not at the first message.
    check_device_errors();
}

Driver::Peer& Driver::peer(std::size_t node) {
    std::uint32_t& index = peer_index_[node];
    if (index == 0) {
        peers_.emplace_back();
        index = static_cast<std::uint32_t>(peers_.size());
    }
    return peers_[index - 1];
}

void Driver::place_ranks() {
    const std::vector<std::uint16_t>& nodes = transport_.rank_nodes();
    if (nodes.empty()) return;  // rank r on node r
    if (nodes.size() != static_cast<std::size_t>(size()))
        throw DriverError("driver: the launcher placed " + std::to_string(nodes.size()) + " ranks for a job of " +
                          std::to_string(size()));
    rank_on_node_.assign(node_count_, -1);
    for (std::size_t r = 0; r < nodes.size(); ++r) {
        if (nodes[r] >= node_count_ || rank_on_node_[nodes[r]] >= 0)
            throw DriverError("driver: the launcher placed rank " + std::to_string(r) + " on node " +
                              std::to_string(nodes[r]) +
                              (nodes[r] >= node_count_ ? ", outside the network" : ", which runs another rank"));
        rank_on_node_[nodes[r]] = static_cast<int>(r);
    }
    if (nodes[static_cast<std::size_t>(rank())] != node_address_)
        throw DriverError("driver: rank " + std::to_string(rank()) + " is placed on node " +
                          std::to_string(nodes[static_cast<std::size_t>(rank())]) + " but its device is node " +
                          std::to_string(node_address_));
    node_of_rank_ = nodes;
}

void Driver::probe_accelerator() {
    const std::uint32_t capabilities = transport_.mmio_read32(rm::ACCEL_CAPABILITIES);
    if (capabilities == 0xFFFFFFFFu) {
        // No accelerator behind BAR0 0x6000: clear the sticky bit the read set.
        if (transport_.mmio_read32(rm::ERROR_STATUS) & rm::error_status::UNMAPPED_ACCESS)
            transport_.mmio_write32(rm::ERROR_STATUS, rm::error_status::UNMAPPED_ACCESS);
        return;
    }
    accelerator_.ct_rows = std::min<unsigned>(rm::accel_capabilities::CT_ROWS.get(capabilities), rm::kContextCount);
    accelerator_.algorithms = rm::accel_capabilities::ALGORITHMS.get(capabilities);
    accelerator_.reductions_only = rm::accel_capabilities::REDUCTIONS_ONLY.get(capabilities) != 0;
    accelerator_.present = accelerator_.ct_rows > 0;
    if (!accelerator_.present) return;
    accelerator_.max_buffer_bytes = transport_.mmio_read32(rm::ACCEL_MAX_BUFFER_BYTES);
    // Forwarding table: global rank r lives on node_of(r). One linear fill
    // for rank r on node r; otherwise a fill per run of consecutive nodes.
    transport_.mmio_write32(rm::FORWARD_INDEX, 0);
    for (int first = 0; first < size();) {
        int end = first + 1;
        while (end < size() && node_of(end) == node_of(first) + (end - first)) ++end;
        transport_.mmio_write32(rm::FORWARD_FILL,
                                rm::forward_fill::COUNT.make(static_cast<std::uint32_t>(end - first) & 0xFFFF) |
                                    rm::forward_fill::FIRST_NODE.make(node_of(first)));
        first = end;
    }
}

void Driver::load_ct_row(unsigned context, const std::array<std::uint32_t, rm::kCtStagingDwords>& row) {
    if (!accelerator_.present || context >= accelerator_.ct_rows)
        throw DriverError(
            "driver: load_ct_row: context " + std::to_string(context) + " has no communicator-table row (accelerator " +
            (accelerator_.present ? "has " + std::to_string(accelerator_.ct_rows) + " rows)" : "absent)"));
    transport_.mmio_write32(rm::CT_SELECT, context);
    for (unsigned i = 0; i < rm::kCtStagingDwords; ++i) transport_.mmio_write32(rm::CT_STAGING(i), row[i]);
    transport_.mmio_write32(rm::CT_COMMAND, rm::ct_command::LOAD.make(1));
}

void Driver::release_ct_row(unsigned context) {
    if (!accelerator_.present || context >= accelerator_.ct_rows)
        throw DriverError("driver: release_ct_row: context " + std::to_string(context) +
                          " has no communicator-table row");
    transport_.mmio_write32(rm::CT_SELECT, context);
    transport_.mmio_write32(rm::CT_COMMAND, rm::ct_command::RELEASE.make(1));
    destinations_[context] = Destination{};  // a buffer posted for the communicator that held the row
}

std::uint32_t Driver::cgra_capabilities() {
    if (!accelerator_.present) return 0;
    return transport_.mmio_read32(rm::CGRA_CAPABILITIES);
}

std::uint32_t Driver::cgra_load(unsigned slot, const std::vector<std::uint32_t>& words) {
    if (!accelerator_.present) throw DriverError("driver: cgra_load: no collective accelerator");
    transport_.mmio_write32(rm::CGRA_SLOT, slot);
    transport_.mmio_write32(rm::CGRA_STAGING_INDEX, 0);
    for (const std::uint32_t w : words) transport_.mmio_write32(rm::CGRA_STAGING_WORD, w);
    transport_.mmio_write32(rm::CGRA_COMMAND, rm::cgra_command::LOAD.make(1));
    return transport_.mmio_read32(rm::CGRA_STATUS);  // the read follows the posted writes
}

void Driver::cgra_arm(unsigned context, std::uint32_t sequence, unsigned slot, unsigned then) {
    if (!accelerator_.present) throw DriverError("driver: cgra_arm: no collective accelerator");
    transport_.mmio_write32(rm::CGRA_ARM_CONTEXT, context);
    transport_.mmio_write32(rm::CGRA_ARM_SEQUENCE, sequence);
    transport_.mmio_write32(rm::CGRA_ARM_SLOT, slot);
    transport_.mmio_write32(rm::CGRA_ARM_THEN, then);
    transport_.mmio_write32(rm::CGRA_COMMAND, rm::cgra_command::ARM.make(1));
}

bool Driver::ct_row_valid(unsigned context) {
    if (!accelerator_.present || context >= accelerator_.ct_rows) return false;
    return (transport_.mmio_read32(rm::CT_VALID) >> context & 1u) != 0;
}

std::uint64_t Driver::allocate(std::size_t bytes, std::size_t alignment) {
    const std::size_t start = (next_free_ + alignment - 1) / alignment * alignment;
    if (start + bytes > memory_bytes_)
        throw DriverError("driver: host memory of " + std::to_string(memory_bytes_) + " bytes is too small (" +
                          std::to_string(start + bytes) + " needed for rings and buffers)");
    next_free_ = start + bytes;
    return start;
}

void Driver::write64(std::uint32_t offset_lo, std::uint64_t value) {
    transport_.mmio_write32(offset_lo, static_cast<std::uint32_t>(value));
    transport_.mmio_write32(offset_lo + 4, static_cast<std::uint32_t>(value >> 32));
}

void Driver::read_link_faults() {
    // Cleared first: a fault reported while the queue is read sets it again.
    transport_.mmio_write32(rm::ERROR_STATUS, rm::error_status::LINK_FAULT);
    namespace lf = rm::link_fault;
    for (;;) {
        const std::uint32_t entry = transport_.mmio_read32(rm::LINK_FAULT);
        if (!lf::VALID.get(entry)) break;
        LinkFault fault;
        fault.peer = static_cast<int>(lf::PEER.get(entry));
        fault.sending = lf::SENDING.get(entry) != 0;
        fault.lost = lf::LOST.get(entry);
        namespace ll = rm::link_fault_link;
        const std::uint32_t from = transport_.mmio_read32(rm::LINK_FAULT_FROM);
        const std::uint32_t to = transport_.mmio_read32(rm::LINK_FAULT_TO);
        fault.link_named = ll::NAMED.get(from) != 0;
        fault.from_switch = ll::SWITCH.get(from);
        fault.from_port = ll::PORT.get(from);
        fault.other_links = ll::OTHER_LINKS.get(from);
        fault.to_switch = ll::SWITCH.get(to);
        fault.to_port = ll::PORT.get(to);
        fault.direction = ll::DIRECTION.get(to);
        fault.serial = ++link_fault_count_;
        ++activity_;
        if (fault.peer < 0 || static_cast<std::uint32_t>(fault.peer) >= node_count_) continue;  // not a node of ours
        fault.peer_node = fault.peer;
        fault.peer = rank_of(static_cast<unsigned>(fault.peer_node));
        if (fault.peer < 0) continue;  // a node that runs no rank of this job
        if (!fault.sending) {
            // The stream shows which messages were lost (a gap, a message cut
            // off; the sender's probe gives their tags): nothing is failed here.
            Stream& stream = peer(static_cast<std::size_t>(fault.peer)).stream;
            ++stream.reports;
            stream.latest = fault;
            continue;
        }
        // The peer cannot tell by itself whether a message of this node was
        // the last one lost: a probe gives it the stream's end and the tags.
        if (std::find(probe_peers_.begin(), probe_peers_.end(), fault.peer) == probe_peers_.end())
            probe_peers_.push_back(fault.peer);
        const auto [it, fresh] = pending_faults_.try_emplace(fault.peer, fault);
        if (!fresh) {  // not taken yet: one fault, the packets added up
            LinkFault& kept = it->second;
            kept.lost += fault.lost;
            // The first cable named stays; another one counts as a further link.
            if (!kept.link_named && fault.link_named) {
                kept.link_named = true;
                kept.from_switch = fault.from_switch;
                kept.from_port = fault.from_port;
                kept.to_switch = fault.to_switch;
                kept.to_port = fault.to_port;
                kept.direction = fault.direction;
                kept.other_links += fault.other_links;
            } else if (fault.link_named &&
                       (kept.from_switch != fault.from_switch || kept.from_port != fault.from_port)) {
                kept.other_links += 1 + fault.other_links;
            }
            kept.serial = fault.serial;
        }
    }
}

void Driver::read_link_faults_now() {
    if (transport_.mmio_read32(rm::ERROR_STATUS) & rm::error_status::LINK_FAULT) read_link_faults();
}

void Driver::add_lost(int source, std::uint32_t number, std::uint32_t tag, bool resolved) {
    Message lost;
    lost.source = source;
    lost.tag = tag;
    lost.number = number;
    lost.lost = true;
    lost.unresolved = !resolved;
    if (!resolved) ++peer(static_cast<std::size_t>(source)).stream.unresolved;
    arrived_.push_back(std::move(lost));
    ++activity_;
}

void Driver::note_gap(int source, std::uint32_t first, std::uint32_t count) {
    // The device reported the loss before the stream went on; a gap without
    // any report is the sender's own doing (not a link fault: ignored).
    const Stream& stream = peer(static_cast<std::size_t>(source)).stream;
    if (stream.reports == 0) read_link_faults_now();
    if (stream.reports == 0) return;
    // More than the probe's history can name: one lost message stands for
    // the older ones (bounded whatever a sender's numbers say).
    if (count > kStreamHistory) {
        add_lost(source, first, 0, true);
        arrived_.back().wildcard = true;
        first = (first + count - kStreamHistory) & kStreamNumberMask;
        count = kStreamHistory;
    }
    for (std::uint32_t k = 0; k < count; ++k) add_lost(source, (first + k) & kStreamNumberMask, 0, false);
}

void Driver::resolve_lost(int source, std::uint32_t next, const std::uint8_t* history, std::size_t history_bytes) {
    Stream& stream = peer(static_cast<std::size_t>(source)).stream;
    if (stream.unresolved == 0) return;
    const std::uint32_t known = static_cast<std::uint32_t>(std::min<std::size_t>(history_bytes / 4, kStreamHistory));
    for (Message& message : arrived_) {
        if (message.source != source || !message.unresolved) continue;
        // The probe's history holds the tags of numbers next - known .. next - 1.
        const std::uint32_t back = (next - message.number) & kStreamNumberMask;
        if (back >= 1 && back <= known)
            std::memcpy(&message.tag, history + 4 * (known - back), 4);
        else
            message.wildcard = true;
        message.unresolved = false;
        --stream.unresolved;
    }
    ++activity_;
}

void Driver::send_stream_probes() {
    // A driver message (no receive takes it) carrying the number of this
    // node's next message to the peer, and the tags of its last ones: every
    // earlier one that did not arrive is then known lost, with its tag.
    sending_probes_ = true;
    const ClearOnExit clear{sending_probes_};
    while (!probe_peers_.empty()) {
        const int peer = probe_peers_.front();
        probe_peers_.erase(probe_peers_.begin());
        const Peer& to = this->peer(static_cast<std::size_t>(peer));
        const std::vector<std::uint32_t>& sent = to.sent_tags;
        const std::uint32_t next = to.next_number & kStreamNumberMask;
        // The tags of this node's last messages to the peer, oldest first.
        std::array<std::uint32_t, kStreamHistory> history{};
        if (!sent.empty())
            for (std::uint32_t k = 0; k < kStreamHistory; ++k)
                history[k] = sent[(next + k) % kStreamHistory];  // number next - kStreamHistory + k
        ProcessorHeader header;
        header.message_bytes = static_cast<std::uint32_t>(kEnvelopeBytes + sizeof history);
        header.opcode = Opcode::Send;
        header.rank = node_of(peer);  // the network header's destination: a node
        std::uint8_t envelope[kEnvelopeBytes] = {};
        const std::uint32_t flags = kEnvelopeStreamProbe | next << kStreamNumberShift;
        const std::uint64_t data_bytes = sizeof history;
        std::memcpy(envelope + 4, &flags, 4);
        std::memcpy(envelope + 8, &data_bytes, 8);
        post_packet(header, envelope, history.data(), sizeof history, sizeof history);
    }
}

std::vector<int> Driver::link_fault_peers() const {
    std::vector<int> peers;
    for (const auto& [peer, fault] : pending_faults_) peers.push_back(peer);
    return peers;
}

const LinkFault* Driver::pending_link_fault(int peer) const {
    const auto it = pending_faults_.find(peer);
    return it == pending_faults_.end() ? nullptr : &it->second;
}

bool Driver::take_link_fault(int peer, LinkFault& fault) {
    const auto it = peer == kAnySource ? pending_faults_.begin() : pending_faults_.find(peer);
    if (it == pending_faults_.end()) return false;
    fault = it->second;
    pending_faults_.erase(it);
    return true;
}

void Driver::check_device_errors() {
    std::uint32_t status = transport_.mmio_read32(rm::ERROR_STATUS);
    if (status & rm::error_status::LINK_FAULT) {
        read_link_faults();
        status &= ~rm::error_status::LINK_FAULT;
    }
    if (status == 0) return;
    const std::uint32_t queue = transport_.mmio_read32(rm::ERROR_QUEUE);
    const std::uint64_t address = transport_.mmio_read32(rm::ERROR_ADDRESS_LO) |
                                  static_cast<std::uint64_t>(transport_.mmio_read32(rm::ERROR_ADDRESS_HI)) << 32;
    const std::uint32_t h2c = transport_.mmio_read32(rm::QUEUE(config_.queue) + rm::H2C_STATUS);
    std::ostringstream message;
    message << "driver: device error " << rm::register_fields(rm::ERROR_STATUS, status) << " (queue " << queue
            << ", address 0x" << std::hex << address << std::dec << ", H2C error code "
            << rm::status::ERROR_CODE.get(h2c) << ")";
    throw DriverError(message.str());
}

unsigned Driver::poll_completions() {
    const unsigned usable = config_.cmpt_ring_entries - 1;
    const unsigned c2h_usable = config_.c2h_ring_entries - 1;
    unsigned handled = 0;
    for (;;) {
        rm::CompletionEntry entry;
        std::memcpy(&entry, memory_ + cmpt_ring_ + cmpt_cidx_ * sizeof entry, sizeof entry);
        if (((entry.flags & rm::CMPT_COLOR) != 0) != cmpt_color_) break;
        if (entry.flags & rm::CMPT_ERROR) check_device_errors();
        deliver_packet(entry, memory_ + c2h_buffers_ + static_cast<std::uint64_t>(c2h_next_) * c2h_buffer_bytes_);
        c2h_next_ = (c2h_next_ + 1) % c2h_usable;
        c2h_pidx_ = (c2h_pidx_ + 1) % c2h_usable;  // the buffer just emptied goes back
        if (++cmpt_cidx_ == usable) {
            cmpt_cidx_ = 0;
            cmpt_color_ = !cmpt_color_;
        }
        ++handled;
    }
    if (handled) {
        ++activity_;
        transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::C2H_PIDX, c2h_pidx_);
        transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::CMPT_CIDX, cmpt_cidx_);
    }
    return handled;
}

void Driver::deliver_packet(const rm::CompletionEntry& entry, const std::uint8_t* payload) {
    // What arrives was written by another rank's software through its
    // device: a malformed or cut-off message is that rank's fault, so it is
    // dropped and counted here (dropped_messages()), never allowed to end
    // this rank.
    const auto header = ProcessorHeader::decode(entry.header);
    if (!header || entry.length > c2h_buffer_bytes_) return drop_packet(-1, "malformed completion entry");
    if (header->opcode != Opcode::Send) {
        deliver_result(*header, entry, payload);
        return;
    }
    if (header->rank >= node_count_) return drop_packet(-1, "source node outside the network");
    const int sender = rank_of(header->rank);
    if (sender < 0) return drop_packet(-1, "message from a node that runs no rank of this job");
    const auto source = static_cast<unsigned>(sender);
    Peer& from = peer(source);
    Message& message = from.assembling;
    if (entry.offset == 0) {
        // A new message while one is open: the sender's queue stopped mid-message.
        if (from.assembling_active) drop_packet(static_cast<int>(source), "message cut off by a new one");
        if (header->message_bytes < kEnvelopeBytes || entry.length < kEnvelopeBytes)
            return drop_packet(-1, "message without an envelope");
        std::uint64_t data_bytes;
        std::memcpy(&data_bytes, payload + 8, 8);
        if (data_bytes + kEnvelopeBytes != header->message_bytes)
            return drop_packet(-1, "envelope disagrees with its header");
        std::uint32_t flags;
        std::memcpy(&flags, payload + 4, 4);
        // Messages of one source arrive in order: a number past the one
        // expected means the messages between never arrived (their first
        // packets were lost; their other packets were dropped as out of order).
        Stream& stream = from.stream;
        const std::uint32_t number = flags >> kStreamNumberShift & kStreamNumberMask;
        const std::uint32_t missing = (number - stream.next) & kStreamNumberMask;
        const std::uint32_t first_missing = stream.next;
        const bool probe = (flags & kEnvelopeStreamProbe) != 0;
        stream.next = probe ? number : (number + 1) & kStreamNumberMask;
        if (missing > 0 && missing <= kStreamNumberMask / 2) note_gap(static_cast<int>(source), first_missing, missing);
        stream.explained = stream.reports;  // the stream went on past what was reported: it shows any loss
        if (probe) {                        // not a message: the sender's next number and its last tags
            resolve_lost(static_cast<int>(source), number, payload + kEnvelopeBytes,
                         std::min<std::uint64_t>(data_bytes, entry.length - kEnvelopeBytes));
            return;
        }
        message = Message{};
        message.number = number;
        message.source = static_cast<int>(source);
        std::memcpy(&message.tag, payload, 4);
        message.data_bytes = data_bytes;
        message.message_bytes = header->message_bytes;
        message.length_only = (flags & kEnvelopeLengthOnly) != 0;
        PostedReceive& posted = posted_receive_;
        if (!message.length_only && data_bytes > 0 && posted.buffer && posted.source == static_cast<int>(source) &&
            posted.tag == message.tag && data_bytes <= posted.capacity && stream.unresolved == 0 &&
            first_arrived(posted.source, [&](std::uint32_t tag) { return tag == posted.tag; }) == arrived_.end()) {
            // The receive waiting for it is the one it matches: straight into its buffer.
            message.into = posted.buffer;
            posted.buffer = nullptr;
        } else if (!message.length_only) {
            message.data.resize(data_bytes);
            note_payload_buffer(data_bytes);
        }
        from.assembling_active = true;
    } else if (!from.assembling_active || entry.offset != message.received ||
               header->message_bytes != message.message_bytes ||
               static_cast<std::uint64_t>(entry.offset) + entry.length > message.message_bytes) {
        return drop_packet(static_cast<int>(source), "packet out of order or outside its message");
    }
    // Copy the part of this packet that is data (the first packet starts with the envelope).
    const std::uint32_t skip = entry.offset < kEnvelopeBytes ? kEnvelopeBytes - entry.offset : 0;
    if (entry.length > skip && !message.length_only)
        std::memcpy((message.into ? message.into : message.data.data()) + (entry.offset + skip - kEnvelopeBytes),
                    payload + skip, entry.length - skip);
    message.received += entry.length;
    if (message.received == message.message_bytes) {
        from.assembling_active = false;
        arrived_.push_back(std::move(message));
    }
}

void Driver::drop_packet(int source, const char* why) {
    Peer* const from = source >= 0 ? &peer(static_cast<std::size_t>(source)) : nullptr;
    if (from && from->assembling_active) {
        from->assembling_active = false;  // its open message is lost whole
        // Over a reported link fault it is a lost message, in its place in
        // the arrival order, with the tag its first packet gave.
        const Message& open = from->assembling;
        if (from->stream.reports == 0) read_link_faults_now();
        if (from->stream.reports > 0) add_lost(source, open.number, open.tag, true);
    }
    ++dropped_messages_;
    last_drop_reason_ = why;
}

void Driver::deliver_result(const ProcessorHeader& header, const rm::CompletionEntry& entry,
                            const std::uint8_t* payload) {
    // Result packets of one context come from the local switch, in order,
    // one result after the other; a fully fused call has two in flight.
    std::deque<Result>& queue = results_of(header.context_id);
    const auto what = [&] {  // built only for an error (not for every packet)
        return "driver: " + std::string(to_string(header.opcode)) + " result on context " +
               std::to_string(header.context_id);
    };
    if (entry.offset == 0) {
        if (!queue.empty() && queue.back().active) {
            if (header.datatype != kErrorResultDatatype)
                throw DriverError(what() + " started before the previous one had arrived");
            // The switch ended the collective whose result it was streaming
            // with an error (packets lost for good after part of an
            // Alltoall's result had gone up): the error takes its place.
            queue.pop_back();
        }
        if (queue.size() >= kMaxResultsPerContext)
            throw DriverError(what() + " started with " + std::to_string(queue.size()) +
                              " results on the context not yet taken");
        queue.emplace_back();
        Result& result = queue.back();
        result.header = header;
        result.bytes = header.message_bytes;
        // A posted destination takes this result (whatever it turns out to be).
        Destination& destination = destinations_[header.context_id];
        const Destination posted = destination;
        destination = Destination{};
        if (header.datatype == kErrorResultDatatype || (!config_.timing_only && posted.buffer == nullptr)) {
            // Staged: an error result (its code is read), or no destination
            // posted. Timing only: the size is what counts.
            result.data.resize(header.message_bytes);
            note_payload_buffer(header.message_bytes);
        } else if (!config_.timing_only) {
            result.destination = posted.buffer;  // C2H straight into the caller's buffer
            result.capacity = posted.capacity;
        }
        result.active = true;
    } else if (queue.empty() || !queue.back().active || entry.offset != queue.back().received) {
        throw DriverError(what() + ": packet at offset " + std::to_string(entry.offset) + " arrived out of order");
    }
    Result& result = queue.back();
    if (static_cast<std::uint64_t>(entry.offset) + entry.length > result.bytes)
        throw DriverError(what() + ": packet runs past the result's " + std::to_string(result.bytes) + " bytes");
    if (entry.length && !result.data.empty()) {
        std::memcpy(result.data.data() + entry.offset, payload, entry.length);
    } else if (entry.length && result.destination && entry.offset < result.capacity) {
        std::memcpy(result.destination + entry.offset, payload,
                    std::min<std::size_t>(entry.length, result.capacity - entry.offset));
    }
    result.received += entry.length;
    if (result.received == result.bytes) {
        result.active = false;
        result.complete = true;
    }
}

CollectiveResult Driver::receive_collective(unsigned context, void* buffer, std::size_t capacity,
                                            const std::function<void()>& while_waiting) {
    if (context >= rm::kContextCount)
        throw DriverError("driver: receive_collective: context " + std::to_string(context) + " outside 0..31");
    if (capacity > 0 && buffer == nullptr) throw DriverError("driver: receive_collective into a null buffer");
    std::deque<Result>& queue = results_of(context);
    while (queue.empty() || !queue.front().complete) {
        if (while_waiting) while_waiting();
        if (queue.empty() || !queue.front().complete) wait_for_progress();
    }
    const Result result = std::move(queue.front());
    queue.pop_front();
    CollectiveResult out;
    out.opcode = result.header.opcode;
    out.bytes = result.bytes;
    out.error = result.header.datatype == kErrorResultDatatype;
    if (out.error) {
        if (result.data.size() >= 4) std::memcpy(&out.error_code, result.data.data(), 4);
        if (result.data.size() >= 8) std::memcpy(&out.error_detail, result.data.data() + 4, 4);
        if (result.data.size() >= 20) {  // error 6: the cable and the count (collective_core.h)
            std::memcpy(&out.error_link_from, result.data.data() + 8, 4);
            std::memcpy(&out.error_link_to, result.data.data() + 12, 4);
            std::memcpy(&out.error_lost, result.data.data() + 16, 4);
        }
    } else if (result.destination) {
        // Already in the posted buffer; another buffer gets a copy of it.
        const std::size_t copied = std::min({capacity, result.capacity, static_cast<std::size_t>(result.bytes)});
        if (copied && buffer != result.destination) std::memmove(buffer, result.destination, copied);
    } else if (const std::size_t copied = std::min(capacity, result.data.size())) {
        std::memcpy(buffer, result.data.data(), copied);
    }
    return out;
}

bool Driver::post_collective_destination(unsigned context, void* buffer, std::size_t capacity) {
    if (context >= rm::kContextCount)
        throw DriverError("driver: post_collective_destination: context " + std::to_string(context) + " outside 0..31");
    Destination& destination = destinations_[context];
    destination = Destination{};
    // A result already started or waiting to be taken is not the next one.
    if (config_.timing_only || buffer == nullptr || capacity == 0) return false;
    if (const auto& waiting = results_.at(context); waiting && !waiting->empty()) return false;
    destination.buffer = static_cast<std::uint8_t*>(buffer);
    destination.capacity = capacity;
    return true;
}

void Driver::reclaim_h2c() {
    rm::StatusWriteback status;
    const std::uint32_t last = config_.h2c_ring_entries - 1;
    std::memcpy(&status, memory_ + h2c_ring_ + last * sizeof(rm::H2cDescriptor), sizeof status);
    DeadStaging dead;
    while (h2c_outstanding_ > 0 && h2c_cidx_ != status.cidx) {
        staging_tail_ = h2c_staging_end_[h2c_cidx_];
        // The device completes a descriptor behind its data: read.
        retire(dead, staging_base_ + h2c_staging_begin_[h2c_cidx_], staging_base_ + h2c_staging_end_[h2c_cidx_]);
        h2c_cidx_ = (h2c_cidx_ + 1) % last;
        --h2c_outstanding_;
    }
    discard(dead);
    if (h2c_outstanding_ == 0) staging_head_ = staging_tail_ = 0;
}

void Driver::retire(DeadStaging& dead, std::uint64_t begin, std::uint64_t end) {
    if (begin != dead.end) {
        discard(dead);
        dead.begin = begin;
    }
    dead.end = end;
}

void Driver::discard(DeadStaging& dead) {
    // Only whole pages go (the transport rounds inward): a small message's
    // slot keeps its one page, and costs no system call.
    if (dead.end - dead.begin >= 4096) transport_.discard_host_memory(dead.begin, dead.end - dead.begin);
    dead.begin = dead.end;
}

void Driver::wait_for_progress() {
    if (poll_completions() > 0) return;
    if (!probe_peers_.empty() && !packet_open_ && !sending_probes_) {
        // Between packets: the probes owed since a link fault go first; the
        // caller re-checks what it waits for.
        send_stream_probes();
        return;
    }
    if (progress_hook_ && !in_hook_ && !packet_open_) {
        // About to sleep: let the layer above serve what has arrived. If the
        // hook changed anything a caller may be waiting for (it handled
        // completions, sent, or slept itself and so took an interrupt), the
        // caller re-checks instead of sleeping on an event already seen.
        const std::uint64_t before = activity_;
        {
            in_hook_ = true;
            const ClearOnExit clear{in_hook_};
            progress_hook_();
        }
        if (activity_ != before || poll_completions() > 0) return;
    }
    const std::uint64_t error_mask = 1ull << config_.error_vector;
    if (config_.completion != CompletionMode::Msi) {
        // Spin on the completion ring (and the H2C status the staging ring
        // waits for) in host memory: the clock runs to the time a completion
        // or status lands, plus one turn of the poll loop.
        // Descriptors posted since the last doorbell (a full ring or staging
        // area stopped a message between its batch doorbells) must reach the
        // device, or nothing would ever land to end this wait. (An msi wait
        // posts them with the doorbell that arms the H2C interrupt.)
        if (h2c_doorbell_ != h2c_pidx_) ring_h2c_doorbell();
        const std::uint64_t deadline =
            config_.completion == CompletionMode::Hybrid
                ? transport_.now_ps() + static_cast<std::uint64_t>(config_.poll_us * 1e6 + 0.5)
                : 0;
        const unsigned woken = transport_.wait_event(error_mask, true, deadline);
        ++activity_;
        if (woken == config_.error_vector) return check_device_errors();
        if (woken == DeviceTransport::kHostUpdate) {
            ++poll_wakeups_;
            transport_.compute(static_cast<std::uint64_t>(config_.poll_interval_ns * 1e3 + 0.5));
            return;
        }
        // Hybrid: nothing within poll_us; what landed at the deadline is
        // handled, else arm the interrupt and sleep.
        if (poll_completions() > 0) return;
    }
    wait_for_interrupt();
}

void Driver::ring_h2c_doorbell() {
    transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::H2C_PIDX, h2c_pidx_);
    h2c_doorbell_ = h2c_pidx_;
}

void Driver::wait_for_interrupt() {
    // Arm both interrupts, then sleep until one fires.
    transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::CMPT_CIDX, cmpt_cidx_ | rm::doorbell::IRQ_ARM.make(1));
    transport_.mmio_write32(rm::DOORBELL(config_.queue) + rm::H2C_PIDX, h2c_pidx_ | rm::doorbell::IRQ_ARM.make(1));
    h2c_doorbell_ = h2c_pidx_;
    const std::uint64_t mask =
        (1ull << config_.cmpt_vector) | (1ull << config_.h2c_vector) | (1ull << config_.error_vector);
    const unsigned vector = transport_.wait_interrupt(mask);
    ++interrupts_;
    ++activity_;
    if (vector == config_.error_vector) check_device_errors();
}

std::uint64_t Driver::reserve_staging(std::uint32_t bytes) {
    const std::uint64_t size = config_.staging_bytes;
    for (;;) {
        reclaim_h2c();
        if (h2c_outstanding_ == 0 || staging_head_ > staging_tail_) {
            // Free: [head, size) and [0, tail). Keep head != tail while in use.
            if (staging_head_ + bytes <= size) {
                const std::uint64_t at = staging_head_;
                staging_head_ += bytes;
                return at;
            }
            if (bytes < staging_tail_) {
                staging_head_ = bytes;
                return 0;
            }
        } else if (staging_head_ + bytes < staging_tail_) {  // free: [head, tail)
            const std::uint64_t at = staging_head_;
            staging_head_ += bytes;
            return at;
        }
        wait_for_progress();
    }
}

void Driver::wait_for_h2c_slot() {
    const std::uint32_t usable = config_.h2c_ring_entries - 1;
    while (h2c_outstanding_ + 1 >= usable) {
        reclaim_h2c();
        if (h2c_outstanding_ + 1 < usable) break;
        wait_for_progress();
    }
}

void Driver::write_standing_descriptors() {
    // Slot i of the ring owns staging bytes [i * slot, (i + 1) * slot): the
    // descriptors never change, so the device may fetch them long before a
    // doorbell posts them (H2C_CONTROL.PREFETCH).
    const std::uint32_t usable = config_.h2c_ring_entries - 1;
    const std::size_t per_slot = std::min<std::size_t>(config_.descriptor_bytes, config_.staging_bytes / usable);
    slot_bytes_ = static_cast<std::uint32_t>(per_slot - per_slot % 64);
    if (slot_bytes_ < 64)
        throw DriverError("driver.send_path=" + std::string(to_string(config_.send_path)) + ": a staging area of " +
                          std::to_string(config_.staging_bytes) + " bytes gives the " + std::to_string(usable) +
                          " standing H2C descriptors less than 64 bytes each");
    for (std::uint32_t slot = 0; slot < usable; ++slot) {
        const rm::H2cDescriptor descriptor{staging_base_ + static_cast<std::uint64_t>(slot) * slot_bytes_, slot_bytes_,
                                           rm::H2C_SDI};
        std::memcpy(memory_ + h2c_ring_ + slot * sizeof descriptor, &descriptor, sizeof descriptor);
    }
}

void Driver::post_descriptor(std::uint64_t address, std::uint32_t length, std::uint32_t flags) {
    const std::uint32_t usable = config_.h2c_ring_entries - 1;
    wait_for_h2c_slot();
    // SDI on every descriptor: the status writeback is what frees staging.
    const rm::H2cDescriptor descriptor{address, length, flags | rm::H2C_SDI};
    std::memcpy(memory_ + h2c_ring_ + h2c_pidx_ * sizeof descriptor, &descriptor, sizeof descriptor);
    h2c_staging_begin_[h2c_pidx_] = address - staging_base_;
    h2c_staging_end_[h2c_pidx_] = address - staging_base_ + length;
    h2c_pidx_ = (h2c_pidx_ + 1) % usable;
    ++h2c_outstanding_;
}

void Driver::check_destination(int destination, std::size_t bytes, const void* data, bool carried) const {
    if (destination < 0 || destination >= size())
        throw DriverError("driver: send to rank " + std::to_string(destination) + " outside 0.." +
                          std::to_string(size() - 1));
    if (bytes > kMaxMessageBytes - kEnvelopeBytes)
        throw DriverError("driver: message of " + std::to_string(bytes) + " bytes exceeds the " +
                          std::to_string(kMaxMessageBytes - kEnvelopeBytes) + "-byte limit");
    if (carried && bytes > 0 && data == nullptr)
        throw DriverError("driver: send of " + std::to_string(bytes) + " bytes from null");
}

void Driver::send(int destination, std::uint32_t tag, const void* data, std::size_t bytes) {
    check_destination(destination, bytes, data);
    if (tag >= kReservedTagBase)
        throw DriverError("driver: send with tag 0x" + [tag] {
            std::ostringstream hex;
            hex << std::hex << tag;
            return hex.str();
        }() + ": tags >= 0x80000000 are reserved for collectives");
    send_reserved(destination, tag, data, bytes);
}

void Driver::send_reserved(int destination, std::uint32_t tag, const void* data, std::size_t bytes) {
    check_destination(destination, bytes, data);
    send_message(destination, tag, data, bytes, false);
}

void Driver::send_length_only(int destination, std::uint32_t tag, std::size_t bytes) {
    check_destination(destination, bytes, nullptr, false);
    send_message(destination, tag, nullptr, bytes, true);
}

void Driver::send_message(int destination, std::uint32_t tag, const void* data, std::size_t bytes, bool length_only) {
    ProcessorHeader header;
    header.message_bytes = static_cast<std::uint32_t>(kEnvelopeBytes + bytes);
    header.opcode = Opcode::Send;
    header.rank = node_of(destination);  // the network header's destination: a node
    std::uint8_t envelope[kEnvelopeBytes] = {};
    const std::uint64_t data_bytes = bytes;
    if (length_only) header.datatype = kLengthOnlyDatatype;  // the device need not write the data to host memory
    static_assert(kLengthOnlyReadBytes == kEnvelopeBytes, "a length-only message's envelope is read");
    Peer& to = peer(static_cast<std::size_t>(destination));
    const std::uint32_t number = to.next_number++ & kStreamNumberMask;
    const std::uint32_t flags = (length_only ? kEnvelopeLengthOnly : 0) | number << kStreamNumberShift;
    std::vector<std::uint32_t>& sent = to.sent_tags;
    if (sent.empty()) sent.assign(kStreamHistory, 0);
    sent[number % kStreamHistory] = tag;
    std::memcpy(envelope, &tag, 4);
    std::memcpy(envelope + 4, &flags, 4);
    std::memcpy(envelope + 8, &data_bytes, 8);
    post_packet(header, envelope, data, bytes, length_only ? 0 : bytes);
    ++messages_sent_;
}

void Driver::send_collective(const ProcessorHeader& header, const std::uint8_t (&envelope)[16], const void* data,
                             std::size_t bytes, std::size_t carried) {
    if (header.opcode == Opcode::Send) throw DriverError("driver: send_collective needs a collective opcode");
    if (bytes > kMaxMessageBytes - sizeof envelope)
        throw DriverError("driver: collective contribution of " + std::to_string(bytes) + " bytes exceeds the " +
                          std::to_string(kMaxMessageBytes - sizeof envelope) + "-byte limit");
    carried = std::min(carried, bytes);
    if (carried < bytes && !config_.timing_only)
        throw DriverError("driver: collective contribution of " + std::to_string(bytes) + " bytes carries only " +
                          std::to_string(carried) + " (payload may be left out only with DriverConfig::timing_only)");
    if (carried > 0 && data == nullptr)
        throw DriverError("driver: collective contribution of " + std::to_string(bytes) + " bytes from null");
    ProcessorHeader sized = header;
    sized.message_bytes = static_cast<std::uint32_t>(sizeof envelope + bytes);
    post_packet(sized, envelope, data, bytes, carried);
}

void Driver::post_packet(const ProcessorHeader& header, const std::uint8_t (&envelope)[16], const void* data,
                         std::size_t bytes, std::size_t carried) {
    std::array<std::uint8_t, ProcessorHeader::kBytes + sizeof envelope> prefix{};
    header.write(prefix.data());
    std::memcpy(prefix.data() + ProcessorHeader::kBytes, envelope, sizeof envelope);

    if (use_pio_ && bytes <= config_.pio_max_bytes) {
        // Behind descriptors still in flight a PIO packet could overtake
        // them: only an idle H2C ring keeps the messages in order.
        reclaim_h2c();
        if (h2c_outstanding_ == 0) {
            ++activity_;
            post_pio(prefix.data(), prefix.size(), data, bytes, carried);
            return;
        }
    }
    ++fetch_sends_;
    if (standing_) return post_standing(prefix.data(), prefix.size(), data, bytes, carried);
    // Stream header, envelope and data through the staging ring in
    // descriptor-sized chunks; the first chunk carries the prefix.
    const auto* source = static_cast<const std::uint8_t*>(data);
    const std::size_t total = prefix.size() + bytes;
    std::size_t done = 0;
    ++activity_;
    // From the first reservation to the last descriptor the staging ring and
    // the H2C ring hold a partial packet: a wait in between must not run the
    // progress hook (its sends would interleave with this packet).
    const ClearOnExit open{packet_open_};
    while (done < total) {
        const auto chunk = static_cast<std::uint32_t>(std::min<std::size_t>(config_.descriptor_bytes, total - done));
        const std::uint64_t at = reserve_staging(chunk);
        packet_open_ = true;
        stage_chunk(memory_ + staging_base_ + at, chunk, done, prefix.data(), prefix.size(), source, carried);
        std::uint32_t flags = 0;
        if (done == 0) flags |= rm::H2C_SOP;
        if (done + chunk == total) flags |= rm::H2C_EOP;
        post_descriptor(staging_base_ + at, chunk, flags);
        done += chunk;
        // Ring the doorbell per descriptor batch so the device starts early.
        if (done == total || h2c_outstanding_ % 16 == 0) ring_h2c_doorbell();
    }
}

void Driver::stage_chunk(std::uint8_t* out, std::size_t chunk, std::size_t done, const std::uint8_t* prefix,
                         std::size_t prefix_bytes, const std::uint8_t* data, std::size_t carried) {
    std::size_t filled = 0;
    if (done < prefix_bytes) {
        filled = std::min<std::size_t>(prefix_bytes - done, chunk);
        std::memcpy(out, prefix + done, filled);
    }
    // Data bytes [data_offset, data_offset + chunk - filled); only those
    // below `carried` are copied (the rest is timing only: not carried).
    const std::size_t data_offset = done + filled - prefix_bytes;
    if (chunk > filled && data_offset < carried) {
        const std::size_t n = std::min<std::size_t>(chunk - filled, carried - data_offset);
        std::memcpy(out + filled, data + data_offset, n);
        data_bytes_staged_ += n;
    }
}

void Driver::post_standing(const std::uint8_t* prefix, std::size_t prefix_bytes, const void* data, std::size_t bytes,
                           std::size_t carried) {
    // The packet fills consecutive slots; the device reads its header from
    // the first and takes as many bytes of each as the header still needs.
    const std::uint32_t usable = config_.h2c_ring_entries - 1;
    const auto* source = static_cast<const std::uint8_t*>(data);
    const std::size_t total = prefix_bytes + bytes;
    std::size_t done = 0;
    ++activity_;
    const ClearOnExit open{packet_open_};  // no progress hook between the first slot and the last
    while (done < total) {
        const auto chunk = static_cast<std::uint32_t>(std::min<std::size_t>(slot_bytes_, total - done));
        wait_for_h2c_slot();
        packet_open_ = true;
        const std::uint64_t slot = static_cast<std::uint64_t>(h2c_pidx_) * slot_bytes_;
        stage_chunk(memory_ + staging_base_ + slot, chunk, done, prefix, prefix_bytes, source, carried);
        h2c_staging_begin_[h2c_pidx_] = slot;
        h2c_staging_end_[h2c_pidx_] = slot + chunk;  // the fetch path's byte ring is unused here
        h2c_pidx_ = (h2c_pidx_ + 1) % usable;
        ++h2c_outstanding_;
        done += chunk;
        if (done == total || h2c_outstanding_ % 16 == 0) ring_h2c_doorbell();
    }
}

void Driver::post_pio(const std::uint8_t* prefix, std::size_t prefix_bytes, const void* data, std::size_t bytes,
                      std::size_t carried) {
    // Header, envelope and data as little-endian dwords, the last padded,
    // written in order into the window: write-combined, one burst per line.
    std::array<std::uint32_t, rm::PIO_STRIDE / 4> dwords{};
    auto* out = reinterpret_cast<std::uint8_t*>(dwords.data());
    std::memcpy(out, prefix, prefix_bytes);
    if (carried) std::memcpy(out + prefix_bytes, data, carried);  // the rest stays zero (timing only)
    data_bytes_staged_ += carried;
    const std::size_t count = (prefix_bytes + bytes + 3) / 4;
    transport_.mmio_write_combined(rm::PIO(config_.queue), dwords.data(), count);
    ++pio_sends_;
}

std::string Driver::describe_lost(const Message& message) const {
    const std::uint32_t index = peer_index_[static_cast<std::size_t>(message.source)];
    return describe(index > 0 ? peers_[index - 1].stream.latest : LinkFault{}, node_address_);
}

std::deque<Driver::Message>::iterator Driver::first_arrived(int source,
                                                           const std::function<bool(std::uint32_t)>& tag_matches,
                                                           bool past_unresolved, bool wildcards) {
    // A lost message whose tag is not known yet may be the one wanted: its
    // source's later messages are held back behind it (driver.h, Link faults).
    std::vector<int> held;  // few: one per source with an unresolved loss
    for (auto it = arrived_.begin(); it != arrived_.end(); ++it) {
        if (source != kAnySource && it->source != source) continue;
        if (std::find(held.begin(), held.end(), it->source) != held.end()) continue;
        if (it->unresolved) {
            if (!past_unresolved) held.push_back(it->source);
            continue;
        }
        if ((wildcards && it->wildcard) || (!it->wildcard && tag_matches(it->tag))) return it;
    }
    return arrived_.end();
}

bool Driver::has_unresolved_loss(int source) const {
    return std::any_of(arrived_.begin(), arrived_.end(),
                       [&](const Message& m) { return m.unresolved && m.source == source; });
}

bool Driver::take_matching(int source, std::int64_t tag, void* buffer, std::size_t capacity, ReceiveStatus& status,
                           bool past_unresolved) {
    const auto it = first_arrived(
        source,
        [&](std::uint32_t arrived) {
            return tag == kAnyTag ? arrived < kReservedTagBase  // not the collectives' messages
                                  : arrived == static_cast<std::uint32_t>(tag);
        },
        past_unresolved);
    if (it == arrived_.end()) return false;
    if (it->lost) {
        const std::string why =
            "driver: receive from rank " + std::to_string(it->source) + " failed: " + describe_lost(*it);
        arrived_.erase(it);
        throw LinkFaultError(why);
    }
    status.source = it->source;
    status.tag = it->tag;
    status.bytes = it->data_bytes;
    status.truncated = it->data_bytes > capacity;
    const std::size_t copied = it->length_only ? 0 : std::min<std::size_t>(it->data_bytes, capacity);
    const std::uint8_t* data = it->into ? it->into : it->data.data();
    if (copied && data != buffer) std::memmove(buffer, data, copied);  // else already there
    arrived_.erase(it);
    ++messages_received_;
    return true;
}

unsigned Driver::poll(bool round_trip) {
    if (round_trip && transport_.mmio_read32(rm::ERROR_STATUS) != 0) check_device_errors();
    return poll_completions();
}

bool Driver::take_message(int source, std::uint32_t tag_mask, std::uint32_t tag_value, ArrivedMessage& message,
                          bool wildcards) {
    const auto it =
        first_arrived(source, [&](std::uint32_t tag) { return (tag & tag_mask) == tag_value; }, false, wildcards);
    if (it == arrived_.end()) return false;
    message.source = it->source;
    message.tag = it->wildcard ? tag_value : it->tag;
    if (it->into)  // bound for a posted receive's buffer; taken by another: a copy
        message.data.assign(it->into, it->into + it->data_bytes);
    else
        message.data = std::move(it->data);
    message.lost = it->lost;
    message.wildcard = it->wildcard;
    message.why = it->lost ? describe_lost(*it) : std::string();
    if (!it->lost) ++messages_received_;
    arrived_.erase(it);
    return true;
}

class Driver::ReceiveGuard {
  public:
    ReceiveGuard(Driver& driver, int source, std::uint32_t tag, void* buffer, std::size_t capacity)
        : driver_(driver), hidden_(driver.posted_receive_), buffer_(static_cast<std::uint8_t*>(buffer)) {
        driver.posted_receive_ = PostedReceive{source, tag, buffer_, buffer_ ? capacity : 0};
    }
    ReceiveGuard(const ReceiveGuard&) = delete;
    ReceiveGuard& operator=(const ReceiveGuard&) = delete;
    ~ReceiveGuard() {
        driver_.posted_receive_ = hidden_;
        if (buffer_) driver_.unbind_messages(buffer_);
    }

  private:
    Driver& driver_;
    PostedReceive hidden_;  ///< the receive this one hid (nested in the progress hook)
    std::uint8_t* buffer_;
};

void Driver::unbind_messages(const std::uint8_t* buffer) {
    const auto unbind = [&](Message& message) {
        if (message.into != buffer) return;
        message.data.assign(message.into, message.into + message.data_bytes);
        note_payload_buffer(message.data_bytes);
        message.into = nullptr;
    };
    for (Peer& from : peers_)
        if (from.assembling_active) unbind(from.assembling);
    for (Message& message : arrived_) unbind(message);
}

ReceiveStatus Driver::receive(int source, std::int64_t tag, void* buffer, std::size_t capacity,
                              const std::function<void()>& while_waiting) {
    if (source != kAnySource && (source < 0 || source >= size()))
        throw DriverError("driver: receive from rank " + std::to_string(source) + " outside 0.." +
                          std::to_string(size() - 1));
    if (capacity > 0 && buffer == nullptr) throw DriverError("driver: receive into a null buffer");
    if (tag != kAnyTag && (tag < 0 || tag >= static_cast<std::int64_t>(kReservedTagBase)))
        throw DriverError("driver: receive with tag " + std::to_string(tag) +
                          ": user tags are 0..0x7FFFFFFF (higher ones are reserved for collectives)");
    ReceiveStatus status;
    if (take_matching(source, tag, buffer, capacity, status)) return status;
    // A wildcard receive takes whichever matching message arrives first: buffered.
    const bool post = source != kAnySource && tag != kAnyTag;
    const ReceiveGuard posted(*this, source, static_cast<std::uint32_t>(tag), post ? buffer : nullptr, capacity);
    do {
        if (while_waiting) while_waiting();
        wait_for_progress();
    } while (!take_matching(source, tag, buffer, capacity, status));
    return status;
}

ReceiveStatus Driver::receive_reserved(int source, std::uint32_t tag, void* buffer, std::size_t capacity,
                                       bool report_ends, const std::function<void()>& while_waiting) {
    if (source < 0 || source >= size())
        throw DriverError("driver: receive from rank " + std::to_string(source) + " outside 0.." +
                          std::to_string(size() - 1));
    if (capacity > 0 && buffer == nullptr) throw DriverError("driver: receive into a null buffer");
    ReceiveStatus status;
    const Stream& stream = peer(static_cast<std::size_t>(source)).stream;
    const ReceiveGuard posted(*this, source, tag, buffer, capacity);
    while (!take_matching(source, tag, buffer, capacity, status, report_ends)) {
        if (report_ends && (stream.reports > stream.explained || has_unresolved_loss(source)))
            throw LinkFaultError("driver: receive from rank " + std::to_string(source) +
                                 " failed: " + describe(stream.latest, node_address_));
        if (while_waiting) while_waiting();
        wait_for_progress();
    }
    return status;
}

}  // namespace isvp::guest
