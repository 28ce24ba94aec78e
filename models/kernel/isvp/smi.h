// smi.h — Streaming Message Interface for on-FPGA kernels (docs/SMI.md).
//
// Our own implementation of the SMI programming model (De Matteis et al.,
// "Streaming Message Interface", SC'19; github.com/spcl/SMI): kernels on
// different FPGAs exchange data through transient channels, one element per
// Push/Pop, without the host. A channel is identified by its port (0..255)
// and peer rank; both ends must open it with the same count and datatype
// (and, for reduce, operation), else both kernels end with an error
// (KERNEL_STATUS error 4/6). Push and Pop block in simulated time: a push
// costs one kernel cycle, and stalls while the receiver's buffer for the
// channel is full (credit-based flow control, nothing is lost).
//
// Differences from the reference: channels are C++ values usable from
// plain C++ (no code generator; ports are run-time values); packets are
// this platform's network packets (models/common/isvp/packet_format.h,
// opcode stream) rather than SMI's 32-byte packets; collectives run as
// linear exchanges with the root like SMI's support kernels; ranks are
// node addresses and messages follow the fabric's routing tables, computed
// at start-up from the topology (no rebuild of the kernels when it changes).
//
// SystemC-free: a kernel sees the hardware only through SMI_Comm's backend.
#pragma once

#include <cstdint>

namespace isvp {
class SmiBackend;
}

/// Element types (their codes are the packet headers' datatype field, Datatype).
enum SMI_Datatype : int {
    SMI_CHAR = 0,    ///< int8
    SMI_SHORT = 1,   ///< int16
    SMI_INT = 2,     ///< int32
    SMI_LONG = 3,    ///< int64 (not in the reference SMI)
    SMI_FLOAT = 8,   ///< binary32
    SMI_DOUBLE = 9,  ///< binary64
};

/// Reduce operations.
enum SMI_Op : int { SMI_ADD = 0, SMI_MAX = 1, SMI_MIN = 2 };

/// A communicator. SMI_COMM_WORLD is every rank the host started the
/// kernels on (KERNEL_WORLD_SIZE); a kernel receives it as its argument.
struct SMI_Comm {
    isvp::SmiBackend* backend = nullptr;
};

/// A transient point-to-point channel (send or receive end).
struct SMI_Channel {
    isvp::SmiBackend* backend = nullptr;
    int id = -1;
};
/// Collective channels: bcast, reduce, scatter, gather.
struct SMI_BChannel {
    isvp::SmiBackend* backend = nullptr;
    int id = -1;
};
struct SMI_RChannel {
    isvp::SmiBackend* backend = nullptr;
    int id = -1;
};
struct SMI_ScatterChannel {
    isvp::SmiBackend* backend = nullptr;
    int id = -1;
};
struct SMI_GatherChannel {
    isvp::SmiBackend* backend = nullptr;
    int id = -1;
};

int SMI_Comm_rank(SMI_Comm comm);
int SMI_Comm_size(SMI_Comm comm);

/// Opens the sending end of a channel of `count` elements to `destination` on `port`.
SMI_Channel SMI_Open_send_channel(int count, SMI_Datatype data_type, int destination, int port, SMI_Comm comm);
/// Opens the receiving end of a channel of `count` elements from `source` on `port`.
SMI_Channel SMI_Open_recv_channel(int count, SMI_Datatype data_type, int source, int port, SMI_Comm comm);
/// The reference SMI's name for SMI_Open_recv_channel.
inline SMI_Channel SMI_Open_receive_channel(int count, SMI_Datatype data_type, int source, int port, SMI_Comm comm) {
    return SMI_Open_recv_channel(count, data_type, source, port, comm);
}
/// Sends one element (`data` points at it); one kernel cycle, more while
/// the receiver's buffer is full. Pushing past `count` is an error.
void SMI_Push(SMI_Channel* chan, void* data);
/// Receives one element into `data`; waits for it to arrive.
void SMI_Pop(SMI_Channel* chan, void* data);

/// Broadcast of `count` elements from `root`: every rank calls SMI_Bcast
/// `count` times; at the root `data` is the element sent, elsewhere it
/// receives it.
SMI_BChannel SMI_Open_bcast_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm);
void SMI_Bcast(SMI_BChannel* chan, void* data);

/// Reduce of `count` elements to `root`: every rank calls SMI_Reduce
/// `count` times with its element in `data_snd`; at the root `data_rcv`
/// gets the combined element (operands combined in rank order 0, 1, ...:
/// bit-identical floating-point results).
SMI_RChannel SMI_Open_reduce_channel(int count, SMI_Datatype data_type, SMI_Op op, int port, int root, SMI_Comm comm);
void SMI_Reduce(SMI_RChannel* chan, void* data_snd, void* data_rcv);

/// Scatter: the root calls SMI_Scatter size x `count` times, its `data_snd`
/// elements going to rank 0's `count` elements, then rank 1's, ...; every
/// rank (the root too) receives its `count` elements in `data_rcv`.
SMI_ScatterChannel SMI_Open_scatter_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm);
void SMI_Scatter(SMI_ScatterChannel* chan, void* data_snd, void* data_rcv);

/// Gather: every rank calls SMI_Gather `count` times with `data_snd`; the
/// root's calls (size x `count` of them) return rank 0's elements, then
/// rank 1's, ... in `data_rcv`.
SMI_GatherChannel SMI_Open_gather_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm);
void SMI_Gather(SMI_GatherChannel* chan, void* data_snd, void* data_rcv);
