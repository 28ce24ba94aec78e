// The SMI functions of smi.h: argument plumbing to the FPGA's SmiBackend.
#include "isvp/smi.h"

#include "isvp/kernel_context.h"

namespace isvp {
namespace {
/// The backend of a channel or communicator; a default-constructed one
/// (never opened) is a kernel bug reported as such.
SmiBackend& backend_of(SmiBackend* backend, const char* call) {
    if (!backend)
        throw KernelError(regmap::kKernelErrorChannelArgs, 0,
                          std::string(call) + ": the channel or communicator was never opened");
    return *backend;
}
}  // namespace

std::string to_string(ChannelKind kind) {
    switch (kind) {
        case ChannelKind::PointToPoint:
            return "point-to-point";
        case ChannelKind::Bcast:
            return "bcast";
        case ChannelKind::Reduce:
            return "reduce";
        case ChannelKind::Scatter:
            return "scatter";
        case ChannelKind::Gather:
            return "gather";
    }
    return "kind " + std::to_string(static_cast<unsigned>(kind));
}

}  // namespace isvp

using isvp::backend_of;
using isvp::ChannelKind;

int SMI_Comm_rank(SMI_Comm comm) {
    return backend_of(comm.backend, "SMI_Comm_rank").rank();
}
int SMI_Comm_size(SMI_Comm comm) {
    return backend_of(comm.backend, "SMI_Comm_size").size();
}

SMI_Channel SMI_Open_send_channel(int count, SMI_Datatype data_type, int destination, int port, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_send_channel");
    return {&b, b.open(ChannelKind::PointToPoint, true, count, data_type, destination, port, SMI_ADD)};
}

SMI_Channel SMI_Open_recv_channel(int count, SMI_Datatype data_type, int source, int port, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_recv_channel");
    return {&b, b.open(ChannelKind::PointToPoint, false, count, data_type, source, port, SMI_ADD)};
}

void SMI_Push(SMI_Channel* chan, void* data) {
    backend_of(chan->backend, "SMI_Push").push(chan->id, data);
}
void SMI_Pop(SMI_Channel* chan, void* data) {
    backend_of(chan->backend, "SMI_Pop").pop(chan->id, data);
}

SMI_BChannel SMI_Open_bcast_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_bcast_channel");
    return {&b, b.open(ChannelKind::Bcast, b.rank() == root, count, data_type, root, port, SMI_ADD)};
}
void SMI_Bcast(SMI_BChannel* chan, void* data) {
    backend_of(chan->backend, "SMI_Bcast").bcast(chan->id, data);
}

SMI_RChannel SMI_Open_reduce_channel(int count, SMI_Datatype data_type, SMI_Op op, int port, int root, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_reduce_channel");
    return {&b, b.open(ChannelKind::Reduce, b.rank() != root, count, data_type, root, port, op)};
}
void SMI_Reduce(SMI_RChannel* chan, void* data_snd, void* data_rcv) {
    backend_of(chan->backend, "SMI_Reduce").reduce(chan->id, data_snd, data_rcv);
}

SMI_ScatterChannel SMI_Open_scatter_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_scatter_channel");
    return {&b, b.open(ChannelKind::Scatter, b.rank() == root, count, data_type, root, port, SMI_ADD)};
}
void SMI_Scatter(SMI_ScatterChannel* chan, void* data_snd, void* data_rcv) {
    backend_of(chan->backend, "SMI_Scatter").scatter(chan->id, data_snd, data_rcv);
}

SMI_GatherChannel SMI_Open_gather_channel(int count, SMI_Datatype data_type, int port, int root, SMI_Comm comm) {
    isvp::SmiBackend& b = backend_of(comm.backend, "SMI_Open_gather_channel");
    return {&b, b.open(ChannelKind::Gather, b.rank() != root, count, data_type, root, port, SMI_ADD)};
}
void SMI_Gather(SMI_GatherChannel* chan, void* data_snd, void* data_rcv) {
    backend_of(chan->backend, "SMI_Gather").gather(chan->id, data_snd, data_rcv);
}
