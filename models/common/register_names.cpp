// BAR0 register names and field decoding (register_names.h), derived from
// the offsets and fields of register_map.h.
#include "isvp/register_names.h"

#include <cstdio>

#include "isvp/register_map.h"

namespace isvp::regmap {

namespace {

struct Named {
    std::uint32_t offset;
    const char* name;
};

/// Registers at fixed offsets.
constexpr Named kGlobalRegisters[] = {
    {ID, "ID"},
    {VERSION, "VERSION"},
    {NODE_ADDRESS, "NODE_ADDRESS"},
    {NODE_COUNT, "NODE_COUNT"},
    {QUEUE_COUNT, "QUEUE_COUNT"},
    {MSIX_VECTORS, "MSIX_VECTORS"},
    {SCRATCH, "SCRATCH"},
    {PACKET_BYTES, "PACKET_BYTES"},
    {ERROR_STATUS, "ERROR_STATUS"},
    {ERROR_QUEUE, "ERROR_QUEUE"},
    {ERROR_ADDRESS_LO, "ERROR_ADDRESS_LO"},
    {ERROR_ADDRESS_HI, "ERROR_ADDRESS_HI"},
    {ERROR_MSIX, "ERROR_MSIX"},
    {ERROR_IRQ_ENABLE, "ERROR_IRQ_ENABLE"},
    {LINK_FAULT, "LINK_FAULT"},
    {PIO_WINDOW_BYTES, "PIO_WINDOW_BYTES"},
    {LINK_FAULT_FROM, "LINK_FAULT_FROM"},
    {LINK_FAULT_TO, "LINK_FAULT_TO"},
    {ACCEL_CAPABILITIES, "ACCEL_CAPABILITIES"},
    {CT_SIZE_BITS, "CT_SIZE_BITS"},
    {CT_VALID, "CT_VALID"},
    {CT_SELECT, "CT_SELECT"},
    {CT_COMMAND, "CT_COMMAND"},
    {FORWARD_INDEX, "FORWARD_INDEX"},
    {FORWARD_NODE, "FORWARD_NODE"},
    {FORWARD_FILL, "FORWARD_FILL"},
    {ACCEL_DROPPED, "ACCEL_DROPPED"},
    {ACCEL_ERRORS, "ACCEL_ERRORS"},
    {CT_BUSY, "CT_BUSY"},
    {CT_COMMAND_STATUS, "CT_COMMAND_STATUS"},
    {ACCEL_MAX_BUFFER_BYTES, "ACCEL_MAX_BUFFER_BYTES"},
    {KERNEL_CAPABILITIES, "KERNEL_CAPABILITIES"},
    {KERNEL_ID, "KERNEL_ID"},
    {KERNEL_CONTROL, "KERNEL_CONTROL"},
    {KERNEL_STATUS, "KERNEL_STATUS"},
    {KERNEL_ERROR_DETAIL, "KERNEL_ERROR_DETAIL"},
    {KERNEL_MSIX, "KERNEL_MSIX"},
    {KERNEL_WORLD_SIZE, "KERNEL_WORLD_SIZE"},
    {KERNEL_CYCLES_LO, "KERNEL_CYCLES_LO"},
    {KERNEL_CYCLES_HI, "KERNEL_CYCLES_HI"},
    {CGRA_CAPABILITIES, "CGRA_CAPABILITIES"},
    {CGRA_SLOT, "CGRA_SLOT"},
    {CGRA_STAGING_INDEX, "CGRA_STAGING_INDEX"},
    {CGRA_STAGING_WORD, "CGRA_STAGING_WORD"},
    {CGRA_COMMAND, "CGRA_COMMAND"},
    {CGRA_STATUS, "CGRA_STATUS"},
    {CGRA_ARM_CONTEXT, "CGRA_ARM_CONTEXT"},
    {CGRA_ARM_SEQUENCE, "CGRA_ARM_SEQUENCE"},
    {CGRA_ARM_SLOT, "CGRA_ARM_SLOT"},
    {CGRA_RUNS, "CGRA_RUNS"},
    {CGRA_REFUSED, "CGRA_REFUSED"},
    {CGRA_ARM_THEN, "CGRA_ARM_THEN"},
};

/// Registers of one queue context, at QUEUE(q) + offset.
constexpr Named kQueueRegisters[] = {
    {H2C_BASE_LO, "H2C_BASE_LO"},   {H2C_BASE_HI, "H2C_BASE_HI"},           {H2C_CONTROL, "H2C_CONTROL"},
    {H2C_STATUS, "H2C_STATUS"},     {C2H_BASE_LO, "C2H_BASE_LO"},           {C2H_BASE_HI, "C2H_BASE_HI"},
    {C2H_CONTROL, "C2H_CONTROL"},   {C2H_BUFFER_BYTES, "C2H_BUFFER_BYTES"}, {CMPT_BASE_LO, "CMPT_BASE_LO"},
    {CMPT_BASE_HI, "CMPT_BASE_HI"}, {CMPT_CONTROL, "CMPT_CONTROL"},         {CMPT_COALESCE, "CMPT_COALESCE"},
    {C2H_STATUS, "C2H_STATUS"},     {CMPT_STATUS, "CMPT_STATUS"},           {QUEUE_COMMAND, "QUEUE_COMMAND"},
};

/// Registers of one queue's doorbell block, at DOORBELL(q) + offset.
constexpr Named kDoorbellRegisters[] = {{H2C_PIDX, "H2C_PIDX"}, {C2H_PIDX, "C2H_PIDX"}, {CMPT_CIDX, "CMPT_CIDX"}};

/// Words of one MSI-X table entry, at MSIX_ENTRY(v) + offset.
constexpr Named kMsixRegisters[] = {{MSIX_ADDRESS_LO, "MSIX_ADDRESS_LO"},
                                    {MSIX_ADDRESS_HI, "MSIX_ADDRESS_HI"},
                                    {MSIX_DATA, "MSIX_DATA"},
                                    {MSIX_VECTOR_CONTROL, "MSIX_VECTOR_CONTROL"}};

template <std::size_t N>
const char* find(const Named (&table)[N], std::uint32_t offset) {
    for (const Named& entry : table)
        if (entry.offset == offset) return entry.name;
    return nullptr;
}

std::string indexed(const char* name, const char* prefix, std::uint32_t index) {
    return std::string(name) + "[" + prefix + std::to_string(index) + "]";
}

/// "name=value" for each field, space-separated.
struct FieldList {
    std::string text;
    void add(const char* name, std::uint32_t value) {
        if (!text.empty()) text += ' ';
        text += name;
        text += '=';
        text += std::to_string(value);
    }
};

/// The names of the set bits of `value` among `bits`, '|'-separated, and
/// any other set bits in hex.
template <std::size_t N>
std::string flag_names(std::uint32_t value, const Named (&bits)[N]) {
    std::string text;
    std::uint32_t rest = value;
    for (const Named& bit : bits) {
        if (!(value & bit.offset)) continue;
        if (!text.empty()) text += '|';
        text += bit.name;
        rest &= ~bit.offset;
    }
    if (rest != 0) {
        char extra[16];
        std::snprintf(extra, sizeof extra, "0x%x", rest);
        if (!text.empty()) text += '|';
        text += extra;
    }
    return text.empty() ? "none" : text;
}

constexpr Named kErrorStatusBits[] = {
    {error_status::UNMAPPED_ACCESS, "UNMAPPED_ACCESS"}, {error_status::BAD_DOORBELL, "BAD_DOORBELL"},
    {error_status::DESCRIPTOR, "DESCRIPTOR"},           {error_status::DMA, "DMA"},
    {error_status::CMPT_OVERFLOW, "CMPT_OVERFLOW"},     {error_status::C2H_NO_BUFFER, "C2H_NO_BUFFER"},
    {error_status::PACKET_DROPPED, "PACKET_DROPPED"},   {error_status::LINK_FAULT, "LINK_FAULT"},
    {error_status::PIO, "PIO"},
};

}  // namespace

std::string register_name(std::uint32_t offset) {
    if (const char* name = find(kGlobalRegisters, offset)) return name;
    if (offset >= RING_SIZE_BASE && offset < RING_SIZE(kRingSizeCount) && offset % 4 == 0)
        return indexed("RING_SIZE", "", (offset - RING_SIZE_BASE) / 4);
    if (offset >= CONTEXT_QUEUE_BASE && offset < CONTEXT_QUEUE(kContextCount) && offset % 4 == 0)
        return indexed("CONTEXT_QUEUE", "", (offset - CONTEXT_QUEUE_BASE) / 4);
    if (offset >= QUEUE_BASE && offset < QUEUE(kMaxQueues)) {
        if (const char* name = find(kQueueRegisters, (offset - QUEUE_BASE) % QUEUE_STRIDE))
            return indexed(name, "q", (offset - QUEUE_BASE) / QUEUE_STRIDE);
    }
    if (offset >= MSIX_TABLE && offset < MSIX_ENTRY(kMsixVectors)) {
        if (const char* name = find(kMsixRegisters, (offset - MSIX_TABLE) % MSIX_ENTRY_BYTES))
            return indexed(name, "v", (offset - MSIX_TABLE) / MSIX_ENTRY_BYTES);
    }
    if (offset >= MSIX_PBA && offset < MSIX_PBA + 4 * ((kMsixVectors + 31) / 32) && offset % 4 == 0)
        return indexed("MSIX_PBA", "", (offset - MSIX_PBA) / 4);
    if (offset >= CT_STAGING_BASE && offset < CT_STAGING(kCtStagingDwords) && offset % 4 == 0)
        return indexed("CT_STAGING", "", (offset - CT_STAGING_BASE) / 4);
    if (offset >= KERNEL_ARG_BASE && offset < KERNEL_RESULT(kKernelResults) && offset % 4 == 0) {
        const bool result = offset >= KERNEL_RESULT_BASE;
        const std::uint32_t at = offset - (result ? KERNEL_RESULT_BASE : KERNEL_ARG_BASE);
        return indexed(
            result ? (at % 8 ? "KERNEL_RESULT_HI" : "KERNEL_RESULT_LO") : (at % 8 ? "KERNEL_ARG_HI" : "KERNEL_ARG_LO"),
            "", at / 8);
    }
    if (offset >= DOORBELL_BASE && offset < DOORBELL(kMaxQueues)) {
        if (const char* name = find(kDoorbellRegisters, (offset - DOORBELL_BASE) % DOORBELL_STRIDE))
            return indexed(name, "q", (offset - DOORBELL_BASE) / DOORBELL_STRIDE);
    }
    if (offset >= PIO_BASE && offset < PIO(kPioQueues) && offset % 4 == 0) {
        const std::uint32_t q = (offset - PIO_BASE) / PIO_STRIDE;
        return "PIO[q" + std::to_string(q) + "]+" + std::to_string((offset - PIO_BASE) % PIO_STRIDE);
    }
    return "unmapped";
}

std::string register_fields(std::uint32_t offset, std::uint32_t value) {
    FieldList fields;
    if (offset >= QUEUE_BASE && offset < QUEUE(kMaxQueues)) {
        switch ((offset - QUEUE_BASE) % QUEUE_STRIDE) {
            case H2C_CONTROL:
            case C2H_CONTROL:
            case CMPT_CONTROL:
                fields.add("ring_size_index", control::RING_SIZE_INDEX.get(value));
                fields.add("enable", control::ENABLE.get(value));
                fields.add("status_enable", control::STATUS_ENABLE.get(value));
                fields.add("irq_enable", control::IRQ_ENABLE.get(value));
                if ((offset - QUEUE_BASE) % QUEUE_STRIDE == H2C_CONTROL && control::PREFETCH.get(value))
                    fields.add("prefetch", 1);
                fields.add("msix_vector", control::MSIX_VECTOR.get(value));
                break;
            case H2C_STATUS:
            case C2H_STATUS:
            case CMPT_STATUS:
                fields.add("index", status::INDEX.get(value));
                fields.add("error", status::ERROR.get(value));
                if (status::ERROR.get(value)) fields.add("error_code", status::ERROR_CODE.get(value));
                if ((offset - QUEUE_BASE) % QUEUE_STRIDE == CMPT_STATUS) fields.add("colour", status::COLOR.get(value));
                break;
            case CMPT_COALESCE:
                fields.add("count", coalesce::COUNT.get(value));
                fields.add("timer", coalesce::TIMER.get(value));
                break;
            case QUEUE_COMMAND:
                fields.add("reset", command::RESET.get(value));
                break;
            default:
                break;
        }
        return fields.text;
    }
    if (offset >= DOORBELL_BASE && offset < DOORBELL(kMaxQueues)) {
        const std::uint32_t reg = (offset - DOORBELL_BASE) % DOORBELL_STRIDE;
        if (reg == H2C_PIDX || reg == C2H_PIDX || reg == CMPT_CIDX) {
            fields.add("index", doorbell::INDEX.get(value));
            if (reg != C2H_PIDX) fields.add("irq_arm", doorbell::IRQ_ARM.get(value));
        }
        return fields.text;
    }
    if (offset >= MSIX_TABLE && offset < MSIX_ENTRY(kMsixVectors) &&
        (offset - MSIX_TABLE) % MSIX_ENTRY_BYTES == MSIX_VECTOR_CONTROL) {
        fields.add("masked", value & 1u);
        return fields.text;
    }
    switch (offset) {
        case ERROR_STATUS:
        case ERROR_IRQ_ENABLE:
            return flag_names(value, kErrorStatusBits);
        case LINK_FAULT:
            fields.add("peer", link_fault::PEER.get(value));
            fields.add("lost", link_fault::LOST.get(value));
            fields.add("sending", link_fault::SENDING.get(value));
            fields.add("valid", link_fault::VALID.get(value));
            break;
        case LINK_FAULT_FROM:
        case LINK_FAULT_TO:
            fields.add("switch", link_fault_link::SWITCH.get(value));
            fields.add("port", link_fault_link::PORT.get(value));
            if (offset == LINK_FAULT_FROM) fields.add("other_links", link_fault_link::OTHER_LINKS.get(value));
            if (offset == LINK_FAULT_TO) fields.add("direction", link_fault_link::DIRECTION.get(value));
            fields.add("named", link_fault_link::NAMED.get(value));
            break;
        case ACCEL_CAPABILITIES:
            fields.add("ct_rows", accel_capabilities::CT_ROWS.get(value));
            fields.add("cgr_units", accel_capabilities::CGR_UNITS.get(value));
            fields.add("radix", accel_capabilities::RADIX.get(value));
            fields.add("algorithms", accel_capabilities::ALGORITHMS.get(value));
            fields.add("reductions_only", accel_capabilities::REDUCTIONS_ONLY.get(value));
            break;
        case CT_COMMAND:
            fields.add("load", ct_command::LOAD.get(value));
            fields.add("release", ct_command::RELEASE.get(value));
            break;
        case CT_COMMAND_STATUS:
            fields.add("result", ct_command_status::RESULT.get(value));
            fields.add("row", ct_command_status::ROW.get(value));
            break;
        case FORWARD_FILL:
            fields.add("count", forward_fill::COUNT.get(value));
            fields.add("first_node", forward_fill::FIRST_NODE.get(value));
            break;
        case KERNEL_CAPABILITIES:
            fields.add("kernels", kernel_capabilities::KERNELS.get(value));
            fields.add("args", kernel_capabilities::ARGS.get(value));
            fields.add("results", kernel_capabilities::RESULTS.get(value));
            break;
        case CGRA_CAPABILITIES:
            fields.add("pes", cgra_capabilities::PES.get(value));
            fields.add("lanes", cgra_capabilities::LANES.get(value));
            fields.add("slots", cgra_capabilities::SLOTS.get(value));
            break;
        case CGRA_COMMAND:
            fields.add("load", cgra_command::LOAD.get(value));
            fields.add("arm", cgra_command::ARM.get(value));
            break;
        case CGRA_STATUS:
            fields.add("result", cgra_status::RESULT.get(value));
            fields.add("error", cgra_status::ERROR.get(value));
            fields.add("instruction", cgra_status::INSTRUCTION.get(value));
            break;
        case KERNEL_CONTROL:
            fields.add("start", kernel_control::START.get(value));
            fields.add("clear", kernel_control::CLEAR.get(value));
            break;
        case KERNEL_STATUS:
            fields.add("state", kernel_status::STATE.get(value));
            fields.add("error_code", kernel_status::ERROR_CODE.get(value));
            fields.add("launches", kernel_status::LAUNCHES.get(value));
            break;
        case KERNEL_ERROR_DETAIL:
            fields.add("port", kernel_error_detail::PORT.get(value));
            fields.add("peer", kernel_error_detail::PEER.get(value));
            fields.add("what", kernel_error_detail::WHAT.get(value));
            break;
        default:
            break;
    }
    return fields.text;
}

}  // namespace isvp::regmap
