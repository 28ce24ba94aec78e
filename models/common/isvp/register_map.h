// BAR0 register map of the isvp FPGA, and the in-memory formats the QDMA
// engine and the driver share: descriptors, completion entries, writeback
// status. The one definition used by the PCIe endpoint model, the QDMA model,
// the tests and the guest driver (DESIGN §3.2, §3.3). Modelled on Xilinx
// QDMA (PG302) streaming queues in internal mode, simplified where noted.
//
// Conventions: registers are 32 bits, little-endian; `RW1C` bits clear when
// written with 1. A read of an unmapped offset returns 0xFFFFFFFF (as a PCIe
// Unsupported Request does) and sets ERROR_STATUS.UNMAPPED_ACCESS; a write to
// one is dropped and flagged the same way.
#pragma once

#include <cstdint>

namespace isvp::regmap {

/// A bit field inside a 32-bit register.
struct Field {
    unsigned shift;
    unsigned width;
    constexpr std::uint32_t mask() const { return (width >= 32 ? ~0u : ((1u << width) - 1u)) << shift; }
    constexpr std::uint32_t get(std::uint32_t reg) const { return (reg & mask()) >> shift; }
    constexpr std::uint32_t make(std::uint32_t value) const { return (value << shift) & mask(); }
    constexpr std::uint32_t set(std::uint32_t reg, std::uint32_t value) const {
        return (reg & ~mask()) | make(value);
    }
};

// ---------------------------------------------------------------------------
// PCIe configuration space identity
inline constexpr std::uint16_t kVendorId = 0x10EE;  ///< Xilinx
inline constexpr std::uint16_t kDeviceId = 0x9E5F;  ///< isvp collective accelerator (QDMA PF0)
inline constexpr std::uint32_t kBar0Bytes = 0x10000;  ///< 64 KiB, memory, 64-bit, non-prefetchable

// ---------------------------------------------------------------------------
// Global registers
inline constexpr std::uint32_t ID = 0x0000;            ///< RO 'ISVP' = 0x49535650
inline constexpr std::uint32_t kIdValue = 0x49535650;
inline constexpr std::uint32_t VERSION = 0x0004;       ///< RO major << 16 | minor
inline constexpr std::uint32_t kVersionValue = 0x00010000;
inline constexpr std::uint32_t NODE_ADDRESS = 0x0008;  ///< RO this FPGA's node address (16 bits)
inline constexpr std::uint32_t NODE_COUNT = 0x000C;    ///< RO nodes in the network
inline constexpr std::uint32_t QUEUE_COUNT = 0x0010;   ///< RO queue pairs
inline constexpr std::uint32_t MSIX_VECTORS = 0x0014;  ///< RO MSI-X table entries
inline constexpr std::uint32_t SCRATCH = 0x0018;       ///< RW no effect; bring-up check
inline constexpr std::uint32_t PACKET_BYTES = 0x001C;  ///< RO network packet payload capacity

inline constexpr std::uint32_t ERROR_STATUS = 0x0020;  ///< RW1C sticky error bits, below
namespace error_status {
inline constexpr std::uint32_t UNMAPPED_ACCESS = 1u << 0;  ///< MMIO to an unmapped offset
inline constexpr std::uint32_t BAD_DOORBELL = 1u << 1;     ///< index beyond the ring, or queue disabled
inline constexpr std::uint32_t DESCRIPTOR = 1u << 2;       ///< malformed descriptor or processor packet
inline constexpr std::uint32_t DMA = 1u << 3;              ///< DMA address outside host memory
/// Reserved: a full completion ring back-pressures the network (no entry is
/// dropped, unlike Xilinx QDMA), so this bit is never set.
inline constexpr std::uint32_t CMPT_OVERFLOW = 1u << 4;
/// A queue's C2H_BUFFER_BYTES is below PACKET_BYTES, so its packets cannot
/// be delivered (QueueError::BufferTooSmall). A queue with no buffer posted
/// back-pressures instead and sets nothing.
inline constexpr std::uint32_t C2H_NO_BUFFER = 1u << 5;
inline constexpr std::uint32_t PACKET_DROPPED = 1u << 6;   ///< network packet dropped (bad header, CRC)
/// Packets between this node and another were lost for good (the reliable
/// layer gave up, models/reliable/README.md): LINK_FAULT says which node.
inline constexpr std::uint32_t LINK_FAULT = 1u << 7;
/// A PIO write refused: out of order in the window, a bad processor header,
/// or a packet longer than the window (the partial packet is discarded;
/// ERROR_QUEUE and ERROR_ADDRESS name the queue and the window offset).
inline constexpr std::uint32_t PIO = 1u << 8;
}  // namespace error_status
inline constexpr std::uint32_t ERROR_QUEUE = 0x0024;       ///< RO queue of the latest queue error
inline constexpr std::uint32_t ERROR_ADDRESS_LO = 0x0028;  ///< RO offending MMIO offset or DMA address
inline constexpr std::uint32_t ERROR_ADDRESS_HI = 0x002C;
inline constexpr std::uint32_t ERROR_MSIX = 0x0030;        ///< RW MSI-X vector of the error interrupt
inline constexpr std::uint32_t ERROR_IRQ_ENABLE = 0x0034;  ///< RW ERROR_STATUS bits that interrupt
/// RO the oldest unread link fault, fields below; a read takes it off the
/// queue (VALID 0: none left). One entry per (peer node, direction): a
/// further loss of the same pair before the read adds to LOST.
inline constexpr std::uint32_t LINK_FAULT = 0x0038;
namespace link_fault {
inline constexpr Field PEER{0, 16};    ///< the other node
inline constexpr Field LOST{16, 12};   ///< packets lost, saturating at 4095
inline constexpr Field SENDING{28, 1}; ///< 1: this node's packets to PEER were lost; 0: PEER's packets to this node
inline constexpr Field VALID{31, 1};   ///< an entry was read
}  // namespace link_fault
/// RO bytes of each queue's PIO window (PIO(q) below); 0 = no PIO send path.
inline constexpr std::uint32_t PIO_WINDOW_BYTES = 0x0080;
/// RO the cable the packets of the LINK_FAULT entry read last were dropped
/// on (the link whose CRC check dropped most of them; ties: the lowest
/// switch index, then port, where they left), one register per end, fields in link_fault_link:
/// FROM is where the lost packets left (switch and port), TO where they
/// should have entered. Latched by each read of LINK_FAULT (0: no entry).
inline constexpr std::uint32_t LINK_FAULT_FROM = 0x0084;
inline constexpr std::uint32_t LINK_FAULT_TO = 0x0088;
namespace link_fault_link {
inline constexpr Field SWITCH{0, 16};       ///< switch index (on a torus: the node's own switch = node address)
inline constexpr Field PORT{16, 8};         ///< its port
inline constexpr Field OTHER_LINKS{24, 7};  ///< LINK_FAULT_FROM only: further links that dropped some (saturating)
/// LINK_FAULT_TO only: the cable's direction on a torus, where switch i is
/// node i: 1..6 = +x, -x, +y, -y, +z, -z from the FROM end; 0: not a torus
/// link (switch and port only).
inline constexpr Field DIRECTION{24, 3};
inline constexpr Field NAMED{31, 1};        ///< 1: a link reported the drops; 0: none did (acks lost or late)
}  // namespace link_fault_link

/// QDMA's global ring-size table: RING_SIZE(i), i < 16, entries per ring.
/// Queue contexts select a ring size by index when they are enabled. Writable;
/// a value outside kMinRingSize..kMaxRingSize is ignored (the entry keeps its
/// value) and sets ERROR_STATUS.UNMAPPED_ACCESS with ERROR_ADDRESS = offset.
inline constexpr std::uint32_t RING_SIZE_BASE = 0x0040;
inline constexpr std::uint32_t kRingSizeCount = 16;
constexpr std::uint32_t RING_SIZE(unsigned index) { return RING_SIZE_BASE + 4 * index; }
/// Reset values of the table (QDMA-like: powers of two 64 .. 16384, then more).
inline constexpr std::uint32_t kRingSizeReset[kRingSizeCount] = {64,   128,  256,  512,  1024, 2048, 4096, 8192,
                                                                 16384, 32,  96,   192,  384,  768,  1536, 3072};
inline constexpr std::uint32_t kMinRingSize = 16;
inline constexpr std::uint32_t kMaxRingSize = 65536;

/// C2H steering: CONTEXT_QUEUE(c), c < 32, names the queue that receives
/// network packets whose context ID is c (reset value 0: everything to queue 0).
inline constexpr std::uint32_t CONTEXT_QUEUE_BASE = 0x0100;
inline constexpr std::uint32_t kContextCount = 32;
constexpr std::uint32_t CONTEXT_QUEUE(unsigned context) { return CONTEXT_QUEUE_BASE + 4 * context; }

// ---------------------------------------------------------------------------
// Queue contexts: QUEUE(q) + register, q < QUEUE_COUNT (64 by default)
inline constexpr std::uint32_t QUEUE_BASE = 0x1000;
inline constexpr std::uint32_t QUEUE_STRIDE = 0x40;
inline constexpr std::uint32_t kMaxQueues = 64;
constexpr std::uint32_t QUEUE(unsigned q) { return QUEUE_BASE + QUEUE_STRIDE * q; }

inline constexpr std::uint32_t H2C_BASE_LO = 0x00;  ///< RW descriptor ring address in host memory
inline constexpr std::uint32_t H2C_BASE_HI = 0x04;
inline constexpr std::uint32_t H2C_CONTROL = 0x08;  ///< RW, fields in `control`
inline constexpr std::uint32_t H2C_STATUS = 0x0C;   ///< RO, fields in `status`
inline constexpr std::uint32_t C2H_BASE_LO = 0x10;
inline constexpr std::uint32_t C2H_BASE_HI = 0x14;
inline constexpr std::uint32_t C2H_CONTROL = 0x18;
inline constexpr std::uint32_t C2H_BUFFER_BYTES = 0x1C;  ///< RW bytes per C2H buffer, >= PACKET_BYTES
inline constexpr std::uint32_t CMPT_BASE_LO = 0x20;
inline constexpr std::uint32_t CMPT_BASE_HI = 0x24;
inline constexpr std::uint32_t CMPT_CONTROL = 0x28;
inline constexpr std::uint32_t CMPT_COALESCE = 0x2C;  ///< RW, fields in `coalesce`
inline constexpr std::uint32_t C2H_STATUS = 0x30;     ///< RO
inline constexpr std::uint32_t CMPT_STATUS = 0x34;    ///< RO
inline constexpr std::uint32_t QUEUE_COMMAND = 0x38;  ///< WO, fields in `command`

namespace control {  // H2C_CONTROL, C2H_CONTROL, CMPT_CONTROL
inline constexpr Field RING_SIZE_INDEX{0, 4};  ///< index into RING_SIZE
inline constexpr Field ENABLE{8, 1};
inline constexpr Field STATUS_ENABLE{9, 1};    ///< H2C/CMPT: write status to the ring's last entry
inline constexpr Field IRQ_ENABLE{10, 1};      ///< H2C (on SDI descriptors) / CMPT interrupts
/// H2C only: standing descriptors, prefetched across doorbells. Every
/// descriptor is a buffer (address, length = capacity 8..65535, SDI
/// honoured, SOP/EOP ignored) that the driver writes before it enables the
/// ring and does not change while it is enabled; a packet fills consecutive
/// buffers from the next one on, as many bytes of each as its header's
/// 8 + message_bytes still needs. The device fetches descriptors ahead of
/// H2C_PIDX (from the enable on, qdma.descriptor_prefetch per DMA), so a
/// doorbell finds its descriptor already fetched (models/qdma/README.md).
inline constexpr Field PREFETCH{11, 1};
inline constexpr Field MSIX_VECTOR{16, 11};
}  // namespace control

namespace status {  // H2C_STATUS, C2H_STATUS, CMPT_STATUS
inline constexpr Field INDEX{0, 16};      ///< H2C/C2H: hardware CIDX; CMPT: hardware PIDX
inline constexpr Field ERROR{16, 1};      ///< queue stopped in error; QUEUE_COMMAND.RESET clears
inline constexpr Field ERROR_CODE{17, 4}; ///< QueueError
inline constexpr Field COLOR{21, 1};      ///< CMPT: colour the next entry will carry
}  // namespace status

/// Why a queue stopped (status::ERROR_CODE).
enum class QueueError : std::uint8_t {
    None = 0,
    DescriptorAddress = 1,  ///< descriptor or ring points outside host memory
    DescriptorLength = 2,   ///< zero length, or longer than kMaxDescriptorBytes
    PacketFraming = 3,      ///< SOP/EOP sequence or processor header size inconsistent
    PacketHeader = 4,       ///< reserved opcode, destination not in the network, size too large
    DoorbellRange = 5,      ///< PIDX/CIDX beyond the ring
    NotEnabled = 6,         ///< doorbell on a disabled queue
    CompletionOverflow = 7, ///< reserved: a full CMPT ring back-pressures instead
    BufferTooSmall = 8,     ///< C2H_BUFFER_BYTES below PACKET_BYTES
};

namespace coalesce {  // CMPT_COALESCE
inline constexpr Field COUNT{0, 16};   ///< interrupt after this many entries (0 = 1)
inline constexpr Field TIMER{16, 16};  ///< ... or this many 64 ns ticks after the first (0 = off)
inline constexpr unsigned kTimerTickNs = 64;
}  // namespace coalesce

namespace command {  // QUEUE_COMMAND
inline constexpr Field RESET{0, 1};  ///< clear errors, indices to 0, colour to 1
}

// ---------------------------------------------------------------------------
// MSI-X table and pending-bit array (PCIe MSI-X capability, BIR 0)
inline constexpr std::uint32_t MSIX_TABLE = 0x4000;
inline constexpr std::uint32_t MSIX_ENTRY_BYTES = 16;
inline constexpr std::uint32_t kMsixVectors = 64;
constexpr std::uint32_t MSIX_ENTRY(unsigned vector) { return MSIX_TABLE + MSIX_ENTRY_BYTES * vector; }
inline constexpr std::uint32_t MSIX_ADDRESS_LO = 0x0;
inline constexpr std::uint32_t MSIX_ADDRESS_HI = 0x4;
inline constexpr std::uint32_t MSIX_DATA = 0x8;
inline constexpr std::uint32_t MSIX_VECTOR_CONTROL = 0xC;  ///< bit 0: masked (reset value 1)
inline constexpr std::uint32_t MSIX_PBA = 0x5000;          ///< RO pending bits, 32 vectors per register
/// The host's MSI window (x86's interrupt address range): an MSI-X table
/// entry points here, and the host bridge turns writes into interrupts.
inline constexpr std::uint64_t kMsiWindowBase = 0xFEE00000;
inline constexpr std::uint64_t kMsiWindowBytes = 1u << 20;
/// Simulation only, not a device or PCIe feature: the last dword of the MSI
/// window carries "a completion entry or ring status just landed in host
/// memory" from the PCIe endpoint to the guest's CPU (the guest gateway),
/// with no link time, so a guest that polls its completion ring in host
/// memory (driver.completion=poll) wakes when the line it spins on changes
/// instead of spinning in wall time. The data is kHostUpdateData.
inline constexpr std::uint64_t kHostUpdateAddress = kMsiWindowBase + kMsiWindowBytes - 4;
inline constexpr std::uint32_t kHostUpdateData = 0xFFFFFFFFu;

// ---------------------------------------------------------------------------
// Collective accelerator CSRs, 0x6000 .. 0x7FFF (docs/COLLECTIVES.md): the
// communicator table (CT) and the forwarding table of the CCM.
inline constexpr std::uint32_t ACCELERATOR_BASE = 0x6000;
inline constexpr std::uint32_t ACCELERATOR_END = 0x8000;  ///< one past the window
inline constexpr std::uint32_t ACCEL_CAPABILITIES = 0x6000;  ///< RO, fields in `accel_capabilities`
namespace accel_capabilities {
inline constexpr Field CT_ROWS{0, 8};        ///< communicators the CT holds (32)
inline constexpr Field CGR_UNITS{8, 8};      ///< SA: simultaneous aggregations
inline constexpr Field RADIX{16, 8};         ///< switch radix R (AgLU lanes per CGR = R x 4)
inline constexpr Field ALGORITHMS{24, 4};    ///< bit a: Algorithm a runs in the switch
/// 1: the switches offload only Allreduce, Reduce and Barrier (SHArP mode,
/// collective.mode = sharp); the driver runs the others in host software.
inline constexpr Field REDUCTIONS_ONLY{28, 1};
}  // namespace accel_capabilities
inline constexpr std::uint32_t CT_SIZE_BITS = 0x6004;   ///< RO CT size in bits (rows x kCtRowBits)
inline constexpr std::uint32_t CT_VALID = 0x6008;       ///< RO bit c: row c holds a communicator
inline constexpr std::uint32_t CT_SELECT = 0x600C;      ///< RW [4:0] row (context ID) the commands act on
inline constexpr std::uint32_t CT_COMMAND = 0x6010;     ///< WO, fields in `ct_command`
/// LOAD of a busy row (CT_BUSY) is refused: the row is unchanged and
/// CT_COMMAND_STATUS says so. RELEASE of a busy row aborts the work on it:
/// the running and queued collectives complete with error 5 (aborted) on
/// this switch, their peers are told and end with error 5 too, the row is
/// invalid at once and its late packets are discarded (docs/COLLECTIVES.md).
namespace ct_command {
inline constexpr Field LOAD{0, 1};     ///< copy CT_STAGING into the selected row and mark it valid
inline constexpr Field RELEASE{1, 1};  ///< invalidate the selected row (communicator freed)
}  // namespace ct_command
/// CT_STAGING(i), i < kCtStagingDwords: the row being uploaded, little-endian
/// dwords of the kCtRowBits-bit row (layout below), padding bits zero.
inline constexpr std::uint32_t CT_STAGING_BASE = 0x6020;
inline constexpr unsigned kCtStagingDwords = 10;
constexpr std::uint32_t CT_STAGING(unsigned dword) { return CT_STAGING_BASE + 4 * dword; }
inline constexpr std::uint32_t FORWARD_INDEX = 0x6080;  ///< RW global rank the next FORWARD_NODE write sets
inline constexpr std::uint32_t FORWARD_NODE = 0x6084;   ///< WO node address of rank FORWARD_INDEX; index += 1
/// WO linear fill, for the common rank-to-node layouts in one write: ranks
/// FORWARD_INDEX + k, k < COUNT, live on node FIRST_NODE + k; index += COUNT.
/// The table's fill engine writes one entry per cycle (COUNT 0 means 65536).
inline constexpr std::uint32_t FORWARD_FILL = 0x6088;
namespace forward_fill {
inline constexpr Field COUNT{0, 16};       ///< entries to fill
inline constexpr Field FIRST_NODE{16, 16};  ///< node of rank FORWARD_INDEX
}  // namespace forward_fill
inline constexpr std::uint32_t ACCEL_DROPPED = 0x6090;  ///< RO collective packets dropped (unknown context, corrupt)
inline constexpr std::uint32_t ACCEL_ERRORS = 0x6094;   ///< RO collectives completed with an error (mismatch)
/// RO bit c: row c is busy (a collective runs on it, or requests for it are
/// queued or arriving): a LOAD of it is refused, a RELEASE aborts that work.
inline constexpr std::uint32_t CT_BUSY = 0x6098;
inline constexpr std::uint32_t CT_COMMAND_STATUS = 0x609C;  ///< RO outcome of the last CT_COMMAND, fields below
namespace ct_command_status {
inline constexpr Field RESULT{0, 4};                    ///< one of the codes below
inline constexpr Field ROW{8, 5};                       ///< the row it acted on
inline constexpr std::uint32_t kDone = 0;               ///< done (or no command yet)
inline constexpr std::uint32_t kLoadRefusedBusy = 1;    ///< LOAD refused: the row is busy; it is unchanged
inline constexpr std::uint32_t kLoadRefusedMemory = 2;  ///< LOAD refused: its receive windows do not fit; CT_VALID 0
inline constexpr std::uint32_t kReleasedAborting = 3;   ///< RELEASE of a busy row: its collectives were aborted
}  // namespace ct_command_status
/// RO the largest collective buffer one request may have (all blocks, in
/// bytes; `collective.max_buffer_bytes`), saturating at 0xFFFFFFFF. A larger
/// request ends with error 4 on every member, so the guest runs it in
/// software instead (guest::Collectives::would_offload).
inline constexpr std::uint32_t ACCEL_MAX_BUFFER_BYTES = 0x60A0;

// ---------------------------------------------------------------------------
// On-FPGA kernel unit, KERNEL_BASE .. KERNEL_END (inside the accelerator
// window; models/kernel/README.md, docs/SMI.md). The host starts a kernel
// the way an XRT host starts an HLS kernel: arguments, START, a done
// interrupt. One kernel runs at a time per FPGA.
inline constexpr std::uint32_t KERNEL_BASE = 0x7000;
inline constexpr std::uint32_t KERNEL_END = 0x7100;  ///< one past the kernel unit's registers
/// RO fields in `kernel_capabilities`.
inline constexpr std::uint32_t KERNEL_CAPABILITIES = 0x7000;
namespace kernel_capabilities {
inline constexpr Field KERNELS{0, 8};   ///< kernels compiled into the bitstream (ids 1 .. KERNELS)
inline constexpr Field ARGS{8, 8};      ///< argument registers (kKernelArgs)
inline constexpr Field RESULTS{16, 8};  ///< result registers (kKernelResults)
}  // namespace kernel_capabilities
inline constexpr std::uint32_t KERNEL_ID = 0x7004;       ///< RW the kernel START launches (1 ..)
inline constexpr std::uint32_t KERNEL_CONTROL = 0x7008;  ///< WO, fields in `kernel_control`
namespace kernel_control {
inline constexpr Field START{0, 1};  ///< launch KERNEL_ID with KERNEL_ARG(0..7); refused while running
inline constexpr Field CLEAR{1, 1};  ///< status back to idle (done or error); ignored while running
}  // namespace kernel_control
/// RO state of the last launch, fields in `kernel_status`. An error names
/// its code; KERNEL_ERROR_DETAIL says more (below).
inline constexpr std::uint32_t KERNEL_STATUS = 0x700C;
namespace kernel_status {
inline constexpr Field STATE{0, 2};       ///< kIdle, kRunning, kDone, kError
inline constexpr Field ERROR_CODE{8, 8};  ///< one of the kKernelError codes when STATE is kError
inline constexpr Field LAUNCHES{16, 16};  ///< launches accepted so far (wraps)
inline constexpr std::uint32_t kIdle = 0;
inline constexpr std::uint32_t kRunning = 1;
inline constexpr std::uint32_t kDone = 2;
inline constexpr std::uint32_t kError = 3;
}  // namespace kernel_status
/// Error codes (KERNEL_STATUS.ERROR_CODE) and what KERNEL_ERROR_DETAIL holds.
inline constexpr std::uint32_t kKernelErrorUnknownId = 1;    ///< detail: the id
inline constexpr std::uint32_t kKernelErrorBadArgument = 2;  ///< detail: argument index
inline constexpr std::uint32_t kKernelErrorBusy = 3;         ///< START while running; detail: running id
inline constexpr std::uint32_t kKernelErrorChannel = 4;      ///< SMI channel arguments disagree; detail below
inline constexpr std::uint32_t kKernelErrorChannelArgs = 5;  ///< SMI_Open_* argument out of range; detail below
inline constexpr std::uint32_t kKernelErrorPeerAborted = 6;  ///< the peer refused the channel; detail below
/// RO: for channel errors [7:0] port, [23:8] peer rank, [31:24] what
/// (kChannel* below); for others see the codes.
inline constexpr std::uint32_t KERNEL_ERROR_DETAIL = 0x7010;
namespace kernel_error_detail {
inline constexpr Field PORT{0, 8};
inline constexpr Field PEER{8, 16};
inline constexpr Field WHAT{24, 8};
inline constexpr std::uint32_t kChannelKind = 1;         ///< point-to-point vs bcast/reduce/... on one port
inline constexpr std::uint32_t kChannelDatatype = 2;     ///< datatypes differ
inline constexpr std::uint32_t kChannelCount = 3;        ///< element counts differ
inline constexpr std::uint32_t kChannelOperation = 4;    ///< reduce operations differ
inline constexpr std::uint32_t kChannelPeer = 5;         ///< peer rank outside the communicator
inline constexpr std::uint32_t kChannelPort = 6;         ///< port outside 0..255
inline constexpr std::uint32_t kChannelRoot = 7;         ///< root outside the communicator
inline constexpr std::uint32_t kChannelCountArg = 8;     ///< negative count
inline constexpr std::uint32_t kChannelDatatypeArg = 9;  ///< not an SMI datatype / op
}  // namespace kernel_error_detail
inline constexpr std::uint32_t KERNEL_MSIX =
    0x7014;  ///< RW [10:0] MSI-X vector raised when a launch ends (done or error); reset 3
inline constexpr std::uint32_t kKernelDefaultVector = 3;
inline constexpr std::uint32_t KERNEL_WORLD_SIZE =
    0x7018;  ///< RW ranks in SMI_COMM_WORLD (rank r = node r); 0 = NODE_COUNT
inline constexpr std::uint32_t KERNEL_CYCLES_LO = 0x7020;  ///< RO kernel clock cycles the last launch ran
inline constexpr std::uint32_t KERNEL_CYCLES_HI = 0x7024;
inline constexpr std::uint32_t KERNEL_ARG_BASE = 0x7040;  ///< RW 64-bit arguments, LO then HI dword
inline constexpr unsigned kKernelArgs = 8;
constexpr std::uint32_t KERNEL_ARG(unsigned index) {
    return KERNEL_ARG_BASE + 8 * index;
}
inline constexpr std::uint32_t KERNEL_RESULT_BASE = 0x7080;  ///< RO 64-bit results the kernel wrote, LO then HI
inline constexpr unsigned kKernelResults = 8;
constexpr std::uint32_t KERNEL_RESULT(unsigned index) {
    return KERNEL_RESULT_BASE + 8 * index;
}
static_assert(KERNEL_RESULT(kKernelResults) <= KERNEL_END && KERNEL_END <= ACCELERATOR_END);

// ---------------------------------------------------------------------------
// SmartFuse CGRA beside the collective engine, CGRA_BASE .. CGRA_END (inside
// the accelerator window, served by the engine; docs/FUSED.md,
// models/collective/isvp/cgra.h for the program format). The host stages a
// program word by word, LOADs it into a slot (a malformed one is refused,
// the slot and the engine unchanged), then ARMs a (context, sequence): that
// collective's result runs through the slot's program before it goes to
// the host (a semi-fused collective).
inline constexpr std::uint32_t CGRA_BASE = 0x7100;
inline constexpr std::uint32_t CGRA_END = 0x7140;  ///< one past the CGRA's registers
/// RO fields in `cgra_capabilities` (all zero: no CGRA).
inline constexpr std::uint32_t CGRA_CAPABILITIES = 0x7100;
namespace cgra_capabilities {
inline constexpr Field PES{0, 8};     ///< processing elements: most instructions per program
inline constexpr Field LANES{8, 8};   ///< SIMD lanes per PE (most a program may ask)
inline constexpr Field SLOTS{16, 8};  ///< program slots
}  // namespace cgra_capabilities
inline constexpr std::uint32_t CGRA_SLOT = 0x7104;           ///< RW [7:0] the slot LOAD writes
inline constexpr std::uint32_t CGRA_STAGING_INDEX = 0x7108;  ///< RW word index the next CGRA_STAGING_WORD write sets
inline constexpr std::uint32_t CGRA_STAGING_WORD = 0x710C;   ///< WO program word at CGRA_STAGING_INDEX; index += 1
/// WO fields in `cgra_command`.
inline constexpr std::uint32_t CGRA_COMMAND = 0x7110;
namespace cgra_command {
inline constexpr Field LOAD{0, 1};  ///< decode staged words [0, CGRA_STAGING_INDEX) into CGRA_SLOT
inline constexpr Field ARM{1, 1};   ///< the collective (CGRA_ARM_CONTEXT, CGRA_ARM_SEQUENCE) runs through CGRA_ARM_SLOT
}  // namespace cgra_command
/// RO outcome of the last CGRA_COMMAND, fields in `cgra_status`.
inline constexpr std::uint32_t CGRA_STATUS = 0x7114;
namespace cgra_status {
inline constexpr Field RESULT{0, 4};  ///< kCgraDone or kCgraRefused
inline constexpr Field ERROR{8, 8};   ///< LOAD: cgra::LoadError; ARM: 1 slot empty/out of range, 2 context, 3 ARM_THEN
inline constexpr Field INSTRUCTION{16, 8};  ///< LOAD refused: the offending instruction
}  // namespace cgra_status
inline constexpr std::uint32_t kCgraDone = 0;
inline constexpr std::uint32_t kCgraRefused = 1;
inline constexpr std::uint32_t CGRA_ARM_CONTEXT = 0x7118;   ///< RW [4:0] context of the collective ARM marks
inline constexpr std::uint32_t CGRA_ARM_SEQUENCE = 0x711C;  ///< RW its sequence (the envelope's)
inline constexpr std::uint32_t CGRA_ARM_SLOT = 0x7120;      ///< RW [7:0] the program it runs
inline constexpr std::uint32_t CGRA_RUNS = 0x7124;          ///< RO results that ran through a program
inline constexpr std::uint32_t CGRA_REFUSED = 0x7128;       ///< RO LOADs and ARMs refused
/// RW [3:0] fully fused: the collective ARM marks starts this one itself
/// (opcode; 0 none = semi-fused, 6 Allgather, 10 Alltoall: block j of the
/// output to member j, power-of-two communicators) on the program's output
/// as its contribution, sequence + 1, without the host; only its result
/// goes to the host. 0xE (kCgraThenAllgathervCounts): the fully fused FEM
/// pattern — the result goes to the host, and the next request on the
/// context (sequence + 1, an allgather with unequal counts the host posted
/// behind it) takes its counts table from the program's output read as
/// int32 block ends (count i = end i - end i-1). ARM refuses any other
/// value (error 3).
inline constexpr std::uint32_t CGRA_ARM_THEN = 0x712C;
inline constexpr std::uint32_t kCgraThenAllgathervCounts = 0xE;
inline constexpr unsigned kCgraSlots = 4;
static_assert(KERNEL_END <= CGRA_BASE && CGRA_END <= ACCELERATOR_END);

/// One CT row, DESIGN §3.5: (log2 MAX_R * (log2 MAX_R + 2) + 8) bits with
/// MAX_R = 65536 ranks: 296 bits.
///   [0]     valid (ignored on upload; LOAD sets it)
///   [7:1]   reserved, zero
///   entry k < 16 at bits [8 + 18k + 17 : 8 + 18k]:
///     [15:0]  global rank of the peer whose comm rank is (own comm rank XOR 2^k)
///     [17:16] tag: 0 absent (that comm rank >= size), 1 peer is higher,
///             2 peer is lower, 3 reserved
/// The switch recovers its own comm rank from the tags (bit k set exactly when
/// peer k is lower); the communicator size comes with every request.
inline constexpr unsigned kCtMaxRankBits = 16;
inline constexpr unsigned kCtEntries = kCtMaxRankBits;
inline constexpr unsigned kCtEntryBits = kCtMaxRankBits + 2;
inline constexpr unsigned kCtRowBits = kCtEntries * kCtEntryBits + 8;
static_assert(kCtRowBits == 296, "DESIGN 3.5 row size with MAX_R = 64K");
static_assert(kCtStagingDwords * 32 >= kCtRowBits);

// ---------------------------------------------------------------------------
// Doorbells (QDMA's direct-mapped PIDX/CIDX updates): DOORBELL(q) + register
inline constexpr std::uint32_t DOORBELL_BASE = 0x8000;
inline constexpr std::uint32_t DOORBELL_STRIDE = 0x10;
constexpr std::uint32_t DOORBELL(unsigned q) { return DOORBELL_BASE + DOORBELL_STRIDE * q; }
inline constexpr std::uint32_t H2C_PIDX = 0x0;   ///< WO descriptors posted
inline constexpr std::uint32_t C2H_PIDX = 0x4;   ///< WO receive buffers posted
inline constexpr std::uint32_t CMPT_CIDX = 0x8;  ///< WO completions consumed
namespace doorbell {
inline constexpr Field INDEX{0, 16};
inline constexpr Field IRQ_ARM{16, 1};  ///< H2C_PIDX / CMPT_CIDX: (re-)arm the queue's interrupt
}  // namespace doorbell

// ---------------------------------------------------------------------------
// PIO (inline) send windows, write-combinable: PIO(q) + byte offset, q <
// kPioQueues. The driver writes one processor packet (8-byte ProcessorHeader,
// then its message_bytes) into the window as dwords in ascending order from
// offset 0, padding the last dword; the write that completes 8 +
// message_bytes sends it, with no descriptor and no DMA read, and the next
// write at offset 0 starts the next packet. It joins the queue's H2C stream
// behind every packet already sent (the driver uses it only when the H2C
// ring is idle, so messages stay in order). Refused with ERROR_STATUS.PIO
// (packet discarded, queue keeps running): a write at any other offset than
// the next, a reserved opcode or rank >= NODE_COUNT, 8 + message_bytes larger
// than PIO_WINDOW_BYTES. Reads return 0. QUEUE_COMMAND.RESET empties it.
inline constexpr std::uint32_t PIO_BASE = 0xC000;
inline constexpr std::uint32_t PIO_STRIDE = 0x200;
inline constexpr std::uint32_t kPioQueues = 32;  ///< queues with a window (the rest of BAR0)
constexpr std::uint32_t PIO(unsigned q) { return PIO_BASE + PIO_STRIDE * q; }
static_assert(PIO_BASE + PIO_STRIDE * kPioQueues <= kBar0Bytes);

// ---------------------------------------------------------------------------
// In-memory formats. A ring of N entries uses entries 0 .. N-2; entry N-1
// holds the status writeback (QDMA's layout), so indices wrap at N-1.

/// H2C descriptor, 16 bytes. A processor packet (8-byte ProcessorHeader +
/// payload) spans the descriptors from SOP to EOP.
struct H2cDescriptor {
    std::uint64_t address;  ///< host (guest-physical) address of the data
    std::uint32_t length;   ///< bytes, 1 .. kMaxDescriptorBytes
    std::uint32_t flags;    ///< H2C_SOP | H2C_EOP | H2C_SDI
};
static_assert(sizeof(H2cDescriptor) == 16);
inline constexpr std::uint32_t H2C_SOP = 1u << 0;  ///< first descriptor of a processor packet
inline constexpr std::uint32_t H2C_EOP = 1u << 1;  ///< last descriptor of a processor packet
inline constexpr std::uint32_t H2C_SDI = 1u << 2;  ///< write status and interrupt when this one is done
inline constexpr std::uint32_t kMaxDescriptorBytes = 65535;  ///< QDMA's 64K-1

/// C2H descriptor, 8 bytes: one receive buffer of C2H_BUFFER_BYTES.
struct C2hDescriptor {
    std::uint64_t address;
};
static_assert(sizeof(C2hDescriptor) == 8);

/// Completion entry, 16 bytes: one per network packet delivered to a C2H
/// buffer (in C2H ring order). Valid when `flags` COLOR equals the colour
/// the driver expects (starts at 1, flips each time the ring wraps).
struct CompletionEntry {
    std::uint64_t header;   ///< ProcessorHeader::encode(); rank = source rank
    std::uint32_t offset;   ///< payload's byte offset in the message
    std::uint16_t length;   ///< payload bytes in the buffer
    std::uint16_t flags;    ///< CMPT_LAST | CMPT_ERROR | CMPT_COLOR
};
static_assert(sizeof(CompletionEntry) == 16);
inline constexpr std::uint16_t CMPT_LAST = 1u << 0;    ///< last packet of its message
inline constexpr std::uint16_t CMPT_ERROR = 1u << 1;   ///< data incomplete (see ERROR_STATUS)
inline constexpr std::uint16_t CMPT_COLOR = 1u << 15;

/// Status writeback in a ring's last entry (first 8 bytes; rest zero).
///   [15:0] pidx  [31:16] cidx  [32] colour (CMPT)  [33] error
struct StatusWriteback {
    std::uint16_t pidx;
    std::uint16_t cidx;
    std::uint32_t flags;  ///< bit 0: colour, bit 1: error
};
static_assert(sizeof(StatusWriteback) == 8);

}  // namespace isvp::regmap
