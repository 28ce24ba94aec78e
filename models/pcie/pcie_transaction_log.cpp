// The PCIe transaction log (trace.pcie): formatting, filters, time order.
#include "isvp/pcie_transaction_log.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "isvp/packet_format.h"
#include "isvp/parameters.h"
#include "isvp/qdma_formats.h"
#include "isvp/register_names.h"
#include "isvp/trace_writer.h"

namespace isvp {

namespace {

std::string hex(std::uint64_t value, int digits) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(value));
    return text;
}

/// Data bytes shown in a DMA line at most.
constexpr std::uint32_t kShownDataBytes = 32;
/// Descriptors of one fetch decoded in its line at most.
constexpr std::uint32_t kShownDescriptors = 8;

/// "1.234567 us": picoseconds as microseconds, for "done" times.
std::string short_time(std::uint64_t ps) {
    char text[40];
    std::snprintf(text, sizeof text, "%llu.%06llu us", static_cast<unsigned long long>(ps / 1000000),
                  static_cast<unsigned long long>(ps % 1000000));
    return text;
}

/// Up to kShownDataBytes bytes of data in hex, "..." if there are more.
std::string data_bytes(const std::uint8_t* data, std::uint32_t bytes) {
    std::string text;
    const std::uint32_t shown = bytes < kShownDataBytes ? bytes : kShownDataBytes;
    for (std::uint32_t i = 0; i < shown; ++i) {
        char byte[4];
        std::snprintf(byte, sizeof byte, "%02x", data[i]);
        if (i > 0) text += ' ';
        text += byte;
    }
    if (shown < bytes) text += " ...";
    return text;
}

/// The bytes a DMA moved: with DmaTag::timing_only only its first
/// written_bytes are carried, the rest are said to be not.
std::string carried_bytes(const std::uint8_t* data, std::uint32_t bytes, const DmaTag& tag) {
    if (!tag.timing_only) return data_bytes(data, bytes);
    const std::uint32_t carried = std::min(bytes, tag.written_bytes);
    std::string text = data_bytes(data, carried);
    if (carried < bytes)
        text += (text.empty() ? "" : " ") + std::string("(timing only: ") + std::to_string(bytes - carried) +
                " bytes not carried)";
    return text;
}

/// Decimal, or hexadecimal with 0x; never octal (node "010" is ten, as
/// everywhere else in the configuration, not eight).
std::uint64_t parse_number(const std::string& text, const std::string& parameter, const std::string& whole) {
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used, hex ? 16 : 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || !std::isdigit(static_cast<unsigned char>(text[0])))
        throw ConfigError("config: " + parameter + "='" + whole + "': '" + text + "' is not a number");
    return value;
}

/// "a-b" or "a" as a range; refuses b < a.
InclusiveRange parse_range(const std::string& text, const std::string& parameter, const std::string& whole) {
    const auto dash = text.find('-');
    if (dash == 0)
        throw ConfigError("config: " + parameter + "='" + whole + "': '" + text +
                          "' is not a number or a range A-B (numbers are not negative)");
    InclusiveRange range;
    range.first = parse_number(text.substr(0, dash), parameter, whole);
    range.last = dash == std::string::npos ? range.first : parse_number(text.substr(dash + 1), parameter, whole);
    if (range.last < range.first)
        throw ConfigError("config: " + parameter + "='" + whole + "': range '" + text + "' ends before it starts");
    return range;
}

std::string strip(const std::string& text) {
    std::string out;
    for (const char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Filters

std::vector<InclusiveRange> PcieLogFilter::parse_nodes(const std::string& text, const std::string& parameter) {
    const std::string list = strip(text);
    std::vector<InclusiveRange> ranges;
    if (list.empty() || list == "all") return ranges;
    std::size_t start = 0;
    for (;;) {
        const auto comma = list.find(',', start);
        const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw ConfigError("config: " + parameter + "='" + text +
                              "': expected node numbers and ranges separated by commas, e.g. 0,2-3");
        ranges.push_back(parse_range(item, parameter, text));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return ranges;
}

InclusiveRange PcieLogFilter::parse_registers(const std::string& text, const std::string& parameter) {
    const std::string range = strip(text);
    if (range.empty() || range == "all") return InclusiveRange{0, 0xFFFFFFFFu};
    return parse_range(range, parameter, text);
}

// ---------------------------------------------------------------------------
// The log

PcieTransactionLog::PcieTransactionLog(const std::string& path, const PcieLogFilter& filter, std::uint64_t max_events,
                                       std::uint32_t node_count, TraceWriter* perfetto)
    : path_(path), filter_(filter), max_events_(max_events), perfetto_(perfetto), slices_(node_count) {
    for (const InclusiveRange& range : filter_.nodes)
        if (range.last >= node_count)
            throw ConfigError("config: trace.pcie_nodes names node " + std::to_string(range.last) +
                              ", but the platform has " + std::to_string(node_count) + " nodes (0.." +
                              std::to_string(node_count - 1) + ")");
    out_.open(path, std::ios::out | std::ios::trunc);
    if (!out_) throw ConfigError("trace: cannot write the PCIe transaction log '" + path + "' (trace.pcie)");
    out_ << "# isvp PCIe transaction log (trace.pcie): time at the card's end of the link, node, transaction\n"
         << "# MMIO W/R offset register = value (fields); DMA RD/WR host address +bytes purpose: decoded "
            "(done when complete); MSIX vector address data\n";
    if (perfetto_)
        for (std::uint32_t node = 0; node < node_count; ++node)
            if (logs_node(node)) perfetto_->name_thread(node + 1, kPcieTraceTid, "pcie");
}

std::unique_ptr<PcieTransactionLog> PcieTransactionLog::open(const TraceConfig& config, std::uint32_t node_count,
                                                             TraceWriter* perfetto) {
    if (config.pcie_file.empty()) return nullptr;
    PcieLogFilter filter;
    filter.nodes = PcieLogFilter::parse_nodes(config.pcie_nodes, "trace.pcie_nodes");
    filter.registers = PcieLogFilter::parse_registers(config.pcie_registers, "trace.pcie_registers");
    return std::make_unique<PcieTransactionLog>(config.pcie_file, filter, config.pcie_max_events, node_count, perfetto);
}

PcieTransactionLog::~PcieTransactionLog() {
    finish();
}

bool PcieTransactionLog::logs_node(std::uint32_t node) const {
    if (filter_.nodes.empty()) return true;
    for (const InclusiveRange& range : filter_.nodes)
        if (node >= range.first && node <= range.last) return true;
    return false;
}

void PcieTransactionLog::mmio(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps,
                              bool write, std::uint32_t offset, const std::uint32_t* values, unsigned dwords) {
    if (finished_ || !logs_node(node)) return;
    const std::uint64_t last_byte = offset + 4ull * dwords - 1;
    if (last_byte < filter_.registers.first || offset > filter_.registers.last) return;
    Entry entry;
    entry.node = node;
    entry.at_ps = at_ps;
    entry.done_ps = done_ps;
    std::string name = regmap::register_name(offset);
    std::string value = hex(values[0], 8);
    std::string fields = regmap::register_fields(offset, values[0]);
    if (dwords == 2) {
        name += "/" + regmap::register_name(offset + 4);
        value = hex(static_cast<std::uint64_t>(values[1]) << 32 | values[0], 16);
        const std::string high = regmap::register_fields(offset + 4, values[1]);
        if (!high.empty()) fields += (fields.empty() ? "" : "; ") + high;
    }
    entry.line = std::string("MMIO ") + (write ? "W  " : "R  ") + hex(offset, 5) + " " + name + " = " + value;
    if (!fields.empty()) entry.line += " (" + fields + ")";
    if (!write) entry.line += " (at host " + short_time(done_ps) + ")";
    entry.name = std::string(write ? "W " : "R ") + name;
    record(now_ps, std::move(entry));
}

void PcieTransactionLog::mmio_refused(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, bool write,
                                      std::uint64_t offset, unsigned bytes, const std::string& reason) {
    if (finished_ || !logs_node(node)) return;
    if (offset > filter_.registers.last || offset + (bytes > 0 ? bytes - 1 : 0) < filter_.registers.first) return;
    Entry entry;
    entry.node = node;
    entry.at_ps = at_ps;
    entry.done_ps = at_ps;
    entry.line = std::string("MMIO ") + (write ? "W  " : "R  ") + hex(offset, 5) + " " + std::to_string(bytes) +
                 " B REFUSED: " + reason;
    entry.name = std::string(write ? "W " : "R ") + "refused";
    record(now_ps, std::move(entry));
}

void PcieTransactionLog::dma(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps,
                             bool write, std::uint64_t address, std::uint32_t bytes, const DmaTag& tag,
                             const std::uint8_t* data, bool ok) {
    if (finished_ || !logs_node(node)) return;
    Entry entry;
    entry.node = node;
    entry.at_ps = at_ps;
    entry.done_ps = done_ps;
    const std::string queue = " q" + std::to_string(tag.queue);
    std::string purpose;
    std::string decoded;
    const bool have = ok && data != nullptr;
    switch (tag.purpose) {
        case DmaPurpose::H2cDescriptorFetch:
        case DmaPurpose::C2hDescriptorFetch: {
            const bool h2c = tag.purpose == DmaPurpose::H2cDescriptorFetch;
            const std::size_t size = h2c ? kH2cDescriptorBytes : kC2hDescriptorBytes;
            const std::uint32_t count = static_cast<std::uint32_t>(bytes / size);
            purpose = (h2c ? "h2c" : "c2h") + queue + " descriptor[" + std::to_string(tag.index) +
                      (count > 1 ? ".." + std::to_string(tag.index + count - 1) : "") + "]";
            // Indices follow the ring, which a fetch never wraps within.
            for (std::uint32_t i = 0; have && i < count; ++i) {
                if (i == kShownDescriptors) {
                    decoded += "; ... " + std::to_string(count - i) + " more";
                    break;
                }
                decoded += (i == 0 ? "" : "; ");
                if (count > 1) decoded += "[" + std::to_string(tag.index + i) + "] ";
                decoded += h2c ? describe(decode_h2c_descriptor(data + i * size))
                               : describe(decode_c2h_descriptor(data + i * size));
            }
            break;
        }
        case DmaPurpose::H2cPacketHeader:
            purpose = "h2c" + queue + " packet header of descriptor[" + std::to_string(tag.index) + "]";
            if (have && bytes == ProcessorHeader::kBytes) {
                std::uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits |= static_cast<std::uint64_t>(data[i]) << (8 * i);
                decoded = describe_processor_header(bits);
            } else if (have) {
                decoded = "part of the header: " + data_bytes(data, bytes);
            }
            break;
        case DmaPurpose::H2cData:
            purpose = "h2c" + queue + " data of descriptor[" + std::to_string(tag.index) + "]";
            if (ok && (data != nullptr || tag.timing_only)) decoded = carried_bytes(data, bytes, tag);
            break;
        case DmaPurpose::H2cStatus:
        case DmaPurpose::CmptStatus: {
            const bool cmpt = tag.purpose == DmaPurpose::CmptStatus;
            purpose = (cmpt ? "cmpt" : "h2c") + queue + " status writeback[" + std::to_string(tag.index) + "]";
            if (have && bytes >= kStatusWritebackBytes) decoded = describe(decode_status_writeback(data), cmpt);
            break;
        }
        case DmaPurpose::C2hData:
            purpose = "c2h" + queue + " data to buffer of descriptor[" + std::to_string(tag.index) + "]";
            if (ok && (data != nullptr || tag.timing_only)) decoded = carried_bytes(data, bytes, tag);
            break;
        case DmaPurpose::CmptEntry:
            purpose = "cmpt" + queue + " entry[" + std::to_string(tag.index) + "]";
            if (have && bytes == kCompletionEntryBytes) decoded = describe(decode_completion_entry(data));
            break;
        case DmaPurpose::Unknown:
            purpose = "untagged";
            break;
    }
    entry.line = std::string("DMA  ") + (write ? "WR " : "RD ") + hex(address, 16) + " +" + std::to_string(bytes) +
                 " " + purpose;
    if (!decoded.empty()) entry.line += ": " + decoded;
    entry.line += ok ? " (done " + short_time(done_ps) + ")" : " (REFUSED by the host: error response)";
    entry.name = std::string(write ? "DMA WR " : "DMA RD ") + purpose;
    record(now_ps, std::move(entry));
}

void PcieTransactionLog::msix(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps,
                              unsigned vector, std::uint64_t address, std::uint32_t data) {
    if (finished_ || !logs_node(node)) return;
    Entry entry;
    entry.node = node;
    entry.at_ps = at_ps;
    entry.done_ps = done_ps;
    entry.line = "MSIX vector " + std::to_string(vector) + " address " + hex(address, 8) + " data " + hex(data, 8) +
                 " (at host " + short_time(done_ps) + ")";
    entry.name = "MSI-X " + std::to_string(vector);
    record(now_ps, std::move(entry));
}

void PcieTransactionLog::record(std::uint64_t now_ps, Entry entry) {
    if (written_ >= max_events_) {
        ++dropped_;
    } else {
        ++written_;
        entry.sequence = sequence_++;
        pending_.push(std::move(entry));
    }
    write_until(now_ps, false);
}

void PcieTransactionLog::write_until(std::uint64_t now_ps, bool all) {
    // Every transaction is recorded no earlier than it happens, so nothing
    // recorded later can precede one that happened before now.
    while (!pending_.empty() && (all || pending_.top().at_ps < now_ps)) {
        const Entry& entry = pending_.top();
        out_ << microseconds_text(entry.at_ps, 7) << " us" << " node " << entry.node << " " << entry.line << "\n";
        if (perfetto_) {
            emit_slice(entry.node, entry.at_ps);
            HeldSlice& slice = slices_[entry.node];
            slice = HeldSlice{true, entry.at_ps, entry.done_ps, entry.name, entry.line};
        }
        pending_.pop();
    }
}

void PcieTransactionLog::emit_slice(std::uint32_t node, std::uint64_t until_ps) {
    HeldSlice& slice = slices_[node];
    if (!slice.held) return;
    // A slice lasts until its transaction is done, but no longer than the
    // next one on the track starts: slices on one track must not overlap.
    const std::uint64_t end = std::min(slice.done_ps, std::max(until_ps, slice.at_ps));
    perfetto_->complete(
        node + 1, kPcieTraceTid, "pcie", slice.name, slice.at_ps, end - slice.at_ps,
        "\"transaction\":" + json_quote(slice.line) + ",\"done_us\":" + json_quote(short_time(slice.done_ps)));
    slice.held = false;
}

void PcieTransactionLog::finish() {
    if (finished_) return;
    finished_ = true;
    write_until(0, true);
    if (perfetto_)
        for (std::uint32_t node = 0; node < slices_.size(); ++node) emit_slice(node, ~std::uint64_t{0});
    if (dropped_ > 0) {
        out_ << "# TRUNCATED: " << dropped_
             << " more transactions were not written (trace.pcie_max_events=" << max_events_ << ")\n";
        std::fprintf(stderr, "trace: %llu PCIe transactions beyond trace.pcie_max_events=%llu were not written to %s\n",
                     static_cast<unsigned long long>(dropped_), static_cast<unsigned long long>(max_events_),
                     path_.c_str());
    }
    out_.close();
}

}  // namespace isvp
