// PcieTransactionLog: what crossed each node's PCIe link, for driver
// bring-up (trace.pcie): every MMIO read and write of BAR0 with the register
// named from the register map, every DMA the device made into host memory
// with what it was for (queue, ring, entry) and the descriptors, completion
// entries and status writebacks it carried decoded, and every MSI-X message.
//
// Text, one line per transaction, in simulated-time order (ties by node,
// then in the order the models made them), all nodes interleaved:
//
//       1.234567 us node 0 MMIO W  0x08000 H2C_PIDX[q0] = 0x00010005 (index=5 irq_arm=1)
//       2.134567 us node 0 DMA  RD 0x0000000000012340 +16 h2c q0 descriptor[4]: ... (done 3.934567 us)
//
// Times are those at the card's end of the link (where a PCIe analyser on
// the slot would see them): an MMIO access when it reaches the device; a DMA
// or MSI-X when the device issues it, with "done" when the read data is back
// at the device or the written data has landed in host memory; an MMIO read
// is done when its value is back at the host.
//
// With a TraceWriter (trace.file) each node's transactions also go to a
// "pcie" track of that node's process in the Perfetto trace.
//
// Filters: only the listed nodes; MMIO only inside a BAR0 offset range
// (DMA and MSI-X lines are kept). At most `max_events` transactions are
// written; the file ends with a note saying how many more there were.
//
// Plain C++17, no SystemC: callers pass times in picoseconds and the
// current simulated time `now_ps`, and record a transaction no later than
// it happens (at_ps >= now_ps), so a line is written as soon as simulated
// time has passed it: nothing recorded later can come before it.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace isvp {

class TraceWriter;
struct TraceConfig;

/// What a DMA of the device is for: the QDMA tags each of its DMAs.
enum class DmaPurpose : std::uint8_t {
    Unknown,             ///< untagged (another initiator)
    H2cDescriptorFetch,  ///< H2C descriptors, ring entries index .. index + n - 1
    H2cPacketHeader,     ///< processor header of the packet of H2C descriptor `index`
    H2cData,             ///< payload bytes of H2C descriptor `index`
    H2cStatus,           ///< H2C ring status writeback
    C2hDescriptorFetch,  ///< C2H descriptors (receive buffers), entries index ..
    C2hData,             ///< packet payload into the C2H buffer of descriptor `index`
    CmptEntry,           ///< completion entry `index`
    CmptStatus,          ///< CMPT ring status writeback
};

/// A DMA's purpose and where it belongs.
struct DmaTag {
    DmaPurpose purpose = DmaPurpose::Unknown;
    std::uint16_t queue = 0;  ///< QDMA queue
    std::uint32_t index = 0;  ///< ring index (see DmaPurpose)
    /// A write whose bytes nobody reads (job.timing_only: a collective
    /// result's payload, a length-only message past its envelope): the link
    /// is charged as for any write of its length, but only the first
    /// `written_bytes` reach host memory (the rest takes no memory).
    bool timing_only = false;
    std::uint32_t written_bytes = 0;  ///< with timing_only: bytes written at the start
};

/// A closed range [first, last].
struct InclusiveRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
};

/// trace.pcie_nodes / trace.pcie_registers: which transactions are logged.
struct PcieLogFilter {
    std::vector<InclusiveRange> nodes;         ///< empty = every node
    InclusiveRange registers{0, 0xFFFFFFFFu};  ///< MMIO BAR0 offsets logged

    /// Parses a node list "0,2-3" ("" or "all": every node); throws
    /// ConfigError naming `parameter` on anything else.
    static std::vector<InclusiveRange> parse_nodes(const std::string& text, const std::string& parameter);
    /// Parses an offset range "0x8000-0x8fff" or one offset ("" or "all":
    /// every offset); throws ConfigError naming `parameter` on anything else.
    static InclusiveRange parse_registers(const std::string& text, const std::string& parameter);
};

class PcieTransactionLog {
  public:
    /// Opens `path` (throws ConfigError naming it if it cannot); refuses a
    /// node filter naming a node at or beyond `node_count`. `perfetto`: a
    /// trace to add "pcie" tracks to, or null; it must outlive finish().
    PcieTransactionLog(const std::string& path, const PcieLogFilter& filter, std::uint64_t max_events,
                       std::uint32_t node_count, TraceWriter* perfetto);
    /// The log trace.* asks for (trace.pcie, its filters and cap), or null
    /// when trace.pcie is empty; throws ConfigError naming a bad parameter.
    static std::unique_ptr<PcieTransactionLog> open(const TraceConfig& config, std::uint32_t node_count,
                                                    TraceWriter* perfetto);
    PcieTransactionLog(const PcieTransactionLog&) = delete;
    PcieTransactionLog& operator=(const PcieTransactionLog&) = delete;
    ~PcieTransactionLog();

    /// Whether `node`'s transactions are logged at all.
    bool logs_node(std::uint32_t node) const;

    /// An MMIO access of 1 or 2 dwords (`values`, low address first) at BAR0
    /// `offset`, reaching the device at `at_ps`; a read's value is back at
    /// the host at `done_ps` (writes: pass at_ps). `now_ps`: current time.
    void mmio(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps, bool write,
              std::uint32_t offset, const std::uint32_t* values, unsigned dwords);
    /// An MMIO access the endpoint refused (`reason`), reaching the card at `at_ps`.
    void mmio_refused(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, bool write, std::uint64_t offset,
                      unsigned bytes, const std::string& reason);
    /// A DMA of `bytes` at host `address`, issued at `at_ps`, done at
    /// `done_ps`; `data`: the bytes moved (read: as returned), or null when
    /// the host refused the access; `ok` false for an error response.
    void dma(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps, bool write,
             std::uint64_t address, std::uint32_t bytes, const DmaTag& tag, const std::uint8_t* data, bool ok);
    /// An MSI-X message of `vector` (a write of `data` to `address`) leaving
    /// the device at `at_ps`, at the host at `done_ps`.
    void msix(std::uint32_t node, std::uint64_t now_ps, std::uint64_t at_ps, std::uint64_t done_ps, unsigned vector,
              std::uint64_t address, std::uint32_t data);

    std::uint64_t written() const { return written_; }
    std::uint64_t dropped() const { return dropped_; }
    const std::string& path() const { return path_; }

    /// Writes what is still held, the truncation note, closes; idempotent.
    void finish();

  private:
    /// One transaction, formatted, waiting for its turn.
    struct Entry {
        std::uint64_t at_ps = 0;     ///< when it happened (sort key)
        std::uint64_t sequence = 0;  ///< record order (tie-break)
        std::uint64_t done_ps = 0;   ///< when it completed
        std::uint32_t node = 0;
        std::string line;  ///< the text line, without the time
        std::string name;  ///< short name for the Perfetto slice
    };
    struct Later {
        bool operator()(const Entry& a, const Entry& b) const {
            if (a.at_ps != b.at_ps) return a.at_ps > b.at_ps;
            return a.node != b.node ? a.node > b.node : a.sequence > b.sequence;
        }
    };
    /// A Perfetto slice held until the node's next one (so slices never overlap).
    struct HeldSlice {
        bool held = false;
        std::uint64_t at_ps = 0, done_ps = 0;
        std::string name, line;
    };

    /// Queues one transaction (or counts it beyond max_events), then writes
    /// everything that can no longer be preceded.
    void record(std::uint64_t now_ps, Entry entry);
    void write_until(std::uint64_t now_ps, bool all);
    void emit_slice(std::uint32_t node, std::uint64_t until_ps);

    std::string path_;                                               ///< the text file
    std::ofstream out_;                                              ///< open until finish()
    PcieLogFilter filter_;                                           ///< which nodes and registers
    std::uint64_t max_events_;                                       ///< transactions written at most
    TraceWriter* perfetto_;                                          ///< trace.file, or null
    std::priority_queue<Entry, std::vector<Entry>, Later> pending_;  ///< recorded, not yet written
    std::vector<HeldSlice> slices_;                                  ///< per node: its latest Perfetto slice
    std::uint64_t sequence_ = 0;                                     ///< next Entry::sequence
    std::uint64_t written_ = 0;                                      ///< transactions recorded (and written or pending)
    std::uint64_t dropped_ = 0;                                      ///< transactions beyond max_events
    bool finished_ = false;
};

/// The trace thread id of a node's "pcie" track (between the router ports'
/// and the collective engine's tids).
inline constexpr std::uint32_t kPcieTraceTid = 63;

}  // namespace isvp
