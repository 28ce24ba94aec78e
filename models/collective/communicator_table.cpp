#include "isvp/communicator_table.h"

#include <algorithm>

namespace isvp {

CommunicatorTable::CommunicatorTable(unsigned nodes, std::uint64_t early_buffer_bytes,
                                     std::uint64_t window_bytes_per_peer, const AcceleratorCapabilities& capabilities)
    : nodes_(nodes),
      early_buffer_bytes_(early_buffer_bytes),
      window_bytes_per_peer_(window_bytes_per_peer),
      capabilities_(capabilities) {}

void CommunicatorTable::set_forwarding(std::uint16_t global, std::uint16_t node) {
    if (global >= forwarding_.size()) {
        if (node == global) return;  // beyond the kept prefix, entries are at their reset value already
        const std::size_t kept = forwarding_.size();
        forwarding_.resize(std::size_t{global} + 1);
        for (std::size_t r = kept; r < forwarding_.size(); ++r) forwarding_[r] = static_cast<std::uint16_t>(r);
    }
    forwarding_[global] = node;
}

std::optional<std::uint16_t> CommunicatorTable::peer_node(const CtRow& row, int rank, const CollectiveEnvelope& e,
                                                          int peer) const {
    std::optional<std::uint16_t> global = row.neighbour(rank, peer);
    if (!global && peer == 0) global = e.global_rank0;
    if (!global && peer == e.root) global = e.global_root;
    if (!global) return std::nullopt;
    return node_of_global(*global);
}

CommunicatorTable::LoadResult CommunicatorTable::load(unsigned context) {
    CtRow row = CtRow::decode(staging_);
    LoadResult result;
    for (unsigned k = 0; k < regmap::kCtEntries; ++k)
        if (row.tag[k] == CtRow::Higher || row.tag[k] == CtRow::Lower) ++result.present;
    result.need = static_cast<std::uint64_t>(result.present + 1) * window_bytes_per_peer_;
    const std::uint64_t others = reserved_bytes_ - (rows_[context].valid ? reserved_[context] : 0);
    result.free = early_buffer_bytes_ - others;
    namespace st = regmap::ct_command_status;
    if (others + result.need > early_buffer_bytes_) {
        command_status_ = st::RESULT.make(st::kLoadRefusedMemory) | st::ROW.make(context);
        rows_[context].valid = false;
        reserved_bytes_ = others;
        reserved_[context] = 0;
        return result;
    }
    command_status_ = st::RESULT.make(st::kDone) | st::ROW.make(context);
    row.valid = true;
    rows_[context] = row;
    reserved_bytes_ = others + result.need;
    reserved_[context] = result.need;
    result.loaded = true;
    return result;
}

void CommunicatorTable::release(unsigned context, bool aborted_work) {
    if (rows_[context].valid) reserved_bytes_ -= reserved_[context];
    reserved_[context] = 0;
    rows_[context].valid = false;
    namespace st = regmap::ct_command_status;
    command_status_ = st::RESULT.make(aborted_work ? st::kReleasedAborting : st::kDone) | st::ROW.make(context);
}

CsrOutcome CommunicatorTable::access(std::uint32_t offset, bool write, std::uint32_t value,
                                     const std::function<bool(unsigned)>& busy, const AcceleratorCounters& counters) {
    CsrOutcome out;
    namespace cap = regmap::accel_capabilities;
    if (offset == regmap::ACCEL_CAPABILITIES) {
        out.read = cap::CT_ROWS.make(kRows) | cap::CGR_UNITS.make(capabilities_.cgr_units) |
                   cap::RADIX.make(capabilities_.radix) | cap::ALGORITHMS.make(capabilities_.algorithms) |
                   cap::REDUCTIONS_ONLY.make(capabilities_.reductions_only ? 1 : 0);
    } else if (offset == regmap::CT_SIZE_BITS) {
        out.read = kRows * regmap::kCtRowBits;
    } else if (offset == regmap::CT_VALID) {
        out.read = 0;
        for (unsigned c = 0; c < kRows; ++c) out.read |= (rows_[c].valid ? 1u : 0u) << c;
    } else if (offset == regmap::CT_SELECT) {
        if (write) select_ = value & 0x1F;
        out.read = select_;
    } else if (offset == regmap::CT_COMMAND) {
        out.read = 0;
        out.row = select_;
        if (write && regmap::ct_command::LOAD.get(value)) {
            if (busy(select_)) {
                namespace st = regmap::ct_command_status;
                command_status_ = st::RESULT.make(st::kLoadRefusedBusy) | st::ROW.make(select_);
                out.command = CsrOutcome::Command::LoadRefusedBusy;
            } else {
                out.command = CsrOutcome::Command::Load;
            }
        } else if (write && regmap::ct_command::RELEASE.get(value)) {
            out.command = CsrOutcome::Command::Release;
        }
    } else if (offset == regmap::CT_BUSY) {
        out.read = 0;
        for (unsigned c = 0; c < kRows; ++c) out.read |= (busy(c) ? 1u : 0u) << c;
    } else if (offset == regmap::CT_COMMAND_STATUS) {
        out.read = command_status_;
    } else if (offset == regmap::ACCEL_MAX_BUFFER_BYTES) {
        out.read = static_cast<std::uint32_t>(std::min<std::uint64_t>(capabilities_.max_buffer_bytes, 0xFFFFFFFFu));
    } else if (offset >= regmap::CT_STAGING(0) && offset < regmap::CT_STAGING(regmap::kCtStagingDwords)) {
        std::uint32_t& dword = staging_[(offset - regmap::CT_STAGING_BASE) / 4];
        if (write) dword = value;
        out.read = dword;
    } else if (offset == regmap::FORWARD_INDEX) {
        if (write) forward_index_ = value & 0xFFFF;
        out.read = forward_index_;
    } else if (offset == regmap::FORWARD_NODE) {
        out.read = 0;
        if (write) {
            set_forwarding(static_cast<std::uint16_t>(forward_index_), static_cast<std::uint16_t>(value));
            forward_index_ = (forward_index_ + 1) & 0xFFFF;
            out.forwarding_changed = true;
        }
    } else if (offset == regmap::FORWARD_FILL) {
        out.read = 0;
        if (write) {
            std::uint32_t count = regmap::forward_fill::COUNT.get(value);
            if (count == 0) count = 1u << 16;
            const std::uint32_t first_node = regmap::forward_fill::FIRST_NODE.get(value);
            for (std::uint32_t k = 0; k < count; ++k) {
                set_forwarding(static_cast<std::uint16_t>(forward_index_), static_cast<std::uint16_t>(first_node + k));
                forward_index_ = (forward_index_ + 1) & 0xFFFF;
            }
            out.forwarding_changed = true;
        }
    } else if (offset == regmap::ACCEL_DROPPED) {
        out.read = static_cast<std::uint32_t>(counters.dropped);
    } else if (offset == regmap::ACCEL_ERRORS) {
        out.read = static_cast<std::uint32_t>(counters.errors);
    } else {
        out.mapped = false;
    }
    return out;
}

}  // namespace isvp
