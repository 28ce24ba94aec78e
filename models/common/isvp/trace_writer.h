// TraceWriter: a timeline of the simulation in the Chrome trace-event JSON
// format (the "JSON Array/Object" format that chrome://tracing and the
// Perfetto UI load), written as the simulation runs.
//
// Layout: one trace "process" per switch (pid = node address + 1), one
// "thread" per port or engine lane within it (tid, named once). Events are
// complete events (ph "X": start and duration) in simulated time; ts and dur
// are microseconds with picosecond digits, so nothing is rounded away.
//
// Size: at most `max_events` events are written; the rest are counted and
// the count is reported in the trace's metadata, so a long run cannot fill
// the disk. Events appear in the order the models record them (simulation
// order), which is deterministic; viewers sort by time themselves.
//
// Plain C++17, no SystemC: the models pass times in picoseconds.
#pragma once

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace isvp {

class Parameters;

/// trace.* parameters.
struct TraceConfig {
    std::string file;                     ///< trace.file: where to write; empty = no trace
    std::uint64_t max_events = 2000000;   ///< trace.max_events: events written at most
    /// trace.pcie: the PCIe transaction log (models/pcie PcieTransactionLog); empty = off.
    std::string pcie_file;
    std::string pcie_nodes;                   ///< trace.pcie_nodes: "0,2-3"; empty = all nodes
    std::string pcie_registers;               ///< trace.pcie_registers: "0x8000-0x8fff"; empty = all
    std::uint64_t pcie_max_events = 1000000;  ///< trace.pcie_max_events: transactions written at most

    static void declare(Parameters& parameters);
    static TraceConfig from(const Parameters& parameters);
};

class TraceWriter {
  public:
    /// Opens `path` for writing; throws ConfigError naming the path if it
    /// cannot. `max_events`: events written at most (metadata excluded).
    TraceWriter(const std::string& path, std::uint64_t max_events);
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;
    /// Closes the JSON (finish() if not called yet).
    ~TraceWriter();

    /// Names trace process `pid` (once per pid; later calls are ignored).
    void name_process(std::uint32_t pid, const std::string& name);
    /// Names thread `tid` of process `pid` (once per pair).
    void name_thread(std::uint32_t pid, std::uint32_t tid, const std::string& name);

    /// One complete event: `name` in `category`, from `start_ps` for
    /// `duration_ps`. `args` is empty or a JSON object's members without
    /// braces, e.g. "\"bytes\":1024,\"vc\":1" (the caller formats numbers).
    void complete(std::uint32_t pid, std::uint32_t tid, const char* category, const std::string& name,
                  std::uint64_t start_ps, std::uint64_t duration_ps, const std::string& args = {});

    /// Whether another event would still be written (callers may skip
    /// formatting names and arguments when it would not, and count_dropped()).
    bool accepting() const { return written_ < max_events_; }
    /// Counts an event the caller did not format because !accepting().
    void count_dropped() { ++dropped_; }
    std::uint64_t written() const { return written_; }
    std::uint64_t dropped() const { return dropped_; }
    const std::string& path() const { return path_; }

    /// Writes the metadata and closes the JSON document; idempotent.
    void finish();

  private:
    void separator();

    std::string path_;
    std::ofstream out_;
    std::uint64_t max_events_;
    std::uint64_t written_ = 0;   ///< events written
    std::uint64_t dropped_ = 0;   ///< events beyond max_events
    bool first_ = true;           ///< no entry written yet (no comma needed)
    bool finished_ = false;
    std::set<std::uint32_t> named_processes_;
    std::set<std::pair<std::uint32_t, std::uint32_t>> named_threads_;
};

/// A string as a JSON string literal (quotes and escapes added).
std::string json_quote(const std::string& text);

/// Picoseconds as microseconds with all six fractional digits ("12.000345"),
/// the integer part right-aligned in `width` characters (0: no padding).
std::string microseconds_text(std::uint64_t ps, int width = 0);

}  // namespace isvp
