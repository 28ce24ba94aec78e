// CommunicatorTable: the switch's communicator table (CT), forwarding table
// and the accelerator CSR window that programs them (BAR0 0x6000..0x7FFF,
// register_map.h; docs/COLLECTIVES.md). SystemC-free: it decodes one 4-byte
// register access at a time and tells its owner (CollectiveEngine, or the
// engine of any switch) what the access asks it to do beyond the tables:
// run a LOAD or a RELEASE (which touch the collectives on the row), count a
// LOAD refused because the row is busy, forget cached peer nodes after a
// forwarding-table write. No timing: register accesses take no time here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "isvp/collective_core.h"
#include "isvp/register_map.h"

namespace isvp {

/// Read-only facts the accelerator CSRs report (ACCEL_CAPABILITIES, ACCEL_MAX_BUFFER_BYTES).
struct AcceleratorCapabilities {
    unsigned cgr_units = 4;                        ///< CGR units (SA)
    unsigned radix = 7;                            ///< switch radix
    std::uint32_t algorithms = 0;                  ///< bit a: Algorithm a runs in the switch
    std::uint64_t max_buffer_bytes = 64ull << 20;  ///< largest collective buffer, bytes
    bool reductions_only = false;                  ///< REDUCTIONS_ONLY: SHArP mode
};

/// What one CSR access leaves to the table's owner.
struct CsrOutcome {
    /// The owner's part: CT_COMMAND LOAD (call load() after its own
    /// clean-up), LOAD refused because the row is busy (the table already
    /// set CT_COMMAND_STATUS; the owner counts and reports it), RELEASE
    /// (abort the row's work, then call release()).
    enum class Command : std::uint8_t { None, Load, LoadRefusedBusy, Release };
    std::uint32_t read = 0xFFFFFFFFu;  ///< what a read returns (unmapped: all ones)
    bool mapped = true;                ///< the offset is a register
    Command command = Command::None;
    unsigned row = 0;                 ///< CT_SELECT at the command
    bool forwarding_changed = false;  ///< a forwarding entry was written: cached peer nodes are stale
};

/// Counters the CSRs read from the owner (ACCEL_DROPPED, ACCEL_ERRORS).
struct AcceleratorCounters {
    std::uint64_t dropped = 0;
    std::uint64_t errors = 0;
};

class CommunicatorTable {
  public:
    static constexpr unsigned kRows = regmap::kContextCount;  ///< one row per context ID

    /// `nodes`: node addresses below this are in the network (a forwarding
    /// entry at or above it names no node); `early_buffer_bytes`: memory the
    /// rows' receive windows are reserved from; `window_bytes_per_peer`:
    /// what a row reserves per (present peer + 1).
    CommunicatorTable(unsigned nodes, std::uint64_t early_buffer_bytes, std::uint64_t window_bytes_per_peer,
                      const AcceleratorCapabilities& capabilities);

    /// One 4-byte access at BAR0 offset `offset` (4-aligned, inside the
    /// accelerator window; the caller checks that). `busy(row)`: the owner
    /// has work on the row (CT_BUSY; a LOAD of a busy row is refused).
    CsrOutcome access(std::uint32_t offset, bool write, std::uint32_t value, const std::function<bool(unsigned)>& busy,
                      const AcceleratorCounters& counters);

    /// The outcome of a LOAD: the staged row replaces the selected row if
    /// its receive windows fit the early buffer (with the other valid rows').
    struct LoadResult {
        bool loaded = false;
        unsigned present = 0;    ///< hypercube peers the row holds
        std::uint64_t need = 0;  ///< window bytes it reserves (or would)
        std::uint64_t free = 0;  ///< early-buffer bytes the other rows leave
    };
    /// CT_COMMAND LOAD of `row` from CT_STAGING (the owner checked it is not
    /// busy and dropped the row's old state); sets CT_COMMAND_STATUS.
    LoadResult load(unsigned row);
    /// CT_COMMAND RELEASE of `row`: invalid, its windows freed;
    /// CT_COMMAND_STATUS says whether work on it was aborted.
    void release(unsigned row, bool aborted_work);

    const CtRow& row(unsigned context) const { return rows_[context]; }
    bool valid(unsigned context) const { return rows_[context].valid; }
    std::uint64_t reserved(unsigned context) const { return reserved_[context]; }
    std::uint64_t reserved_total() const { return reserved_bytes_; }
    std::uint32_t command_status() const { return command_status_; }
    /// The node of global rank `global`, if the forwarding table names one.
    std::optional<std::uint16_t> node_of_global(std::uint16_t global) const {
        const std::uint16_t node = global < forwarding_.size() ? forwarding_[global] : global;
        if (node >= nodes_) return std::nullopt;
        return node;
    }
    /// The node of comm rank `peer` for rank `rank` of a collective on
    /// `row`: a hypercube neighbour of the row, else comm rank 0 or the root
    /// as the envelope names them.
    std::optional<std::uint16_t> peer_node(const CtRow& row, int rank, const CollectiveEnvelope& envelope,
                                           int peer) const;

  private:
    unsigned nodes_;                               ///< node addresses in the network
    std::uint64_t early_buffer_bytes_;             ///< receive-window memory
    std::uint64_t window_bytes_per_peer_;          ///< a row reserves (present + 1) x this
    AcceleratorCapabilities capabilities_;         ///< what ACCEL_CAPABILITIES reports
    std::array<CtRow, kRows> rows_;                ///< the communicator table
    std::array<std::uint64_t, kRows> reserved_{};  ///< window bytes each valid row reserves
    std::uint64_t reserved_bytes_ = 0;             ///< of all valid rows
    CtRow::Dwords staging_{};                      ///< CT_STAGING
    std::uint32_t select_ = 0;                     ///< CT_SELECT
    std::uint32_t command_status_ = 0;             ///< CT_COMMAND_STATUS
    /// Sets forwarding entry `global` (the table keeps only a prefix).
    void set_forwarding(std::uint16_t global, std::uint16_t node);

    /// global rank -> node: the table's first entries, up to the highest one
    /// written with a value other than its reset value; every entry beyond
    /// is at reset, the identity (the hardware's 65536 entries would cost
    /// every node 128 KiB and its bring-up a 64 Ki-entry fill).
    std::vector<std::uint16_t> forwarding_;
    std::uint32_t forward_index_ = 0;              ///< FORWARD_INDEX
};

}  // namespace isvp
