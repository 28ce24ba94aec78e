// Chrome/Perfetto trace-event JSON, streamed.
#include "isvp/trace_writer.h"

#include <cstdio>

#include "isvp/parameter_table.h"

namespace isvp {

std::string microseconds_text(std::uint64_t ps, int width) {
    char text[48];
    std::snprintf(text, sizeof text, "%*llu.%06llu", width, static_cast<unsigned long long>(ps / 1000000),
                  static_cast<unsigned long long>(ps % 1000000));
    return text;
}

namespace {

/// The trace.* parameters, each once (isvp/parameter_table.h).
constexpr auto kTraceTable = [](auto& self, auto&& parameter) {
    parameter(param::Text{"trace.file",
                          "write a Chrome/Perfetto trace (JSON) of packets per switch port and collective phases "
                          "here; empty = off"},
              self.file);
    parameter(param::Integer{"trace.max_events", "events", 1, std::int64_t{1} << 40,
                             "trace events written at most; later ones are counted only"},
              self.max_events);
    parameter(param::Text{"trace.pcie",
                          "write a text log of every PCIe transaction (MMIO with register names, DMA with its "
                          "queue/ring and decoded descriptors/completions, MSI-X) here; empty = off"},
              self.pcie_file);
    parameter(param::Text{"trace.pcie_nodes", "nodes whose PCIe transactions trace.pcie logs, e.g. 0,2-3; empty = all"},
              self.pcie_nodes);
    parameter(param::Text{"trace.pcie_registers",
                          "BAR0 offset range of the MMIO accesses trace.pcie logs, e.g. 0x8000-0x83ff; empty = all "
                          "(DMA and MSI-X are always logged)"},
              self.pcie_registers);
    parameter(param::Integer{"trace.pcie_max_events", "transactions", 1, std::int64_t{1} << 40,
                             "PCIe transactions trace.pcie writes at most; the file ends with a note of the rest"},
              self.pcie_max_events);
};

}  // namespace

void TraceConfig::declare(Parameters& parameters) {
    param::declare_table<TraceConfig>(parameters, kTraceTable);
}

TraceConfig TraceConfig::from(const Parameters& parameters) {
    const TraceConfig config = param::read_table<TraceConfig>(parameters, kTraceTable);
    param::check_table(config, kTraceTable);
    return config;
}

std::string json_quote(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                quoted += "\\\"";
                break;
            case '\\':
                quoted += "\\\\";
                break;
            case '\n':
                quoted += "\\n";
                break;
            case '\t':
                quoted += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escape[8];
                    std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
                    quoted += escape;
                } else {
                    quoted += c;
                }
        }
    }
    return quoted + "\"";
}

TraceWriter::TraceWriter(const std::string& path, std::uint64_t max_events)
    : path_(path), out_(path, std::ios::out | std::ios::trunc), max_events_(max_events) {
    if (!out_) throw ConfigError("trace: cannot write the trace file '" + path + "'");
    out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
}

TraceWriter::~TraceWriter() {
    finish();
}

void TraceWriter::separator() {
    if (!first_) out_ << ",\n";
    first_ = false;
}

void TraceWriter::name_process(std::uint32_t pid, const std::string& name) {
    if (finished_ || !named_processes_.insert(pid).second) return;
    separator();
    out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
         << ",\"tid\":0,\"args\":{\"name\":" << json_quote(name)
         << "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid
         << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
}

void TraceWriter::name_thread(std::uint32_t pid, std::uint32_t tid, const std::string& name) {
    if (finished_ || !named_threads_.insert({pid, tid}).second) return;
    separator();
    out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":" << json_quote(name)
         << "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"sort_index\":" << tid << "}}";
}

void TraceWriter::complete(std::uint32_t pid, std::uint32_t tid, const char* category, const std::string& name,
                           std::uint64_t start_ps, std::uint64_t duration_ps, const std::string& args) {
    if (finished_) return;
    if (written_ >= max_events_) {
        ++dropped_;
        return;
    }
    ++written_;
    separator();
    out_ << "{\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"cat\":\"" << category
         << "\",\"name\":" << json_quote(name) << ",\"ts\":" << microseconds_text(start_ps)
         << ",\"dur\":" << microseconds_text(duration_ps);
    if (!args.empty()) out_ << ",\"args\":{" << args << "}";
    out_ << "}";
}

void TraceWriter::finish() {
    if (finished_) return;
    finished_ = true;
    out_ << "\n],\"metadata\":{\"generator\":\"isvp\",\"events\":" << written_ << ",\"events_dropped\":" << dropped_
         << ",\"max_events\":" << max_events_ << "}}\n";
    out_.close();
    if (dropped_ > 0)
        std::fprintf(stderr, "trace: %llu events beyond trace.max_events=%llu were not written to %s\n",
                     static_cast<unsigned long long>(dropped_), static_cast<unsigned long long>(max_events_),
                     path_.c_str());
}

}  // namespace isvp
