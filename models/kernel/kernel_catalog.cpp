// The kernels compiled into the simulator (the "bitstream"), registered by
// id and name: SMI's examples and microbenchmarks (docs/SMI.md).
//
//   1 pingpong     ping-pong latency / streamed bandwidth between rank 0 and one peer
//   2 stencil      1D 3-point stencil, halos exchanged through channels
//   3 bcast        SMI_Bcast of generated elements, checked at every rank
//   4 reduce       SMI_Reduce (add/max/min, int32 or double) to a root
//   5 stream       rank 0 streams to rank 1, which pops slowly (back-pressure)
//   6 mismatch     a channel opened with different counts/datatypes at its ends
//   7 scatter_gather  SMI_Scatter from a root, then SMI_Gather back, checked
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "isvp/kernel_context.h"
#include "isvp/smi_kernels.h"

namespace isvp {
namespace smi_examples {

std::vector<std::uint64_t> stencil_reference(unsigned ranks, std::uint64_t per_rank, std::uint64_t iterations) {
    const std::uint64_t n = ranks * per_rank;
    std::vector<double> a(n + 2, 0.0), b(n + 2, 0.0);
    for (std::uint64_t g = 0; g < n; ++g) a[g + 1] = stencil_initial(g);
    for (std::uint64_t t = 0; t < iterations; ++t) {
        for (std::uint64_t i = 1; i <= n; ++i) b[i] = stencil_point(a[i - 1], a[i], a[i + 1]);
        std::swap(a, b);
        a[0] = a[n + 1] = 0.0;
    }
    std::vector<std::uint64_t> sums(ranks, kFnvBasis);
    for (std::uint64_t g = 0; g < n; ++g) {
        std::uint64_t bits;
        std::memcpy(&bits, &a[g + 1], 8);
        sums[g / per_rank] = fnv_add(sums[g / per_rank], bits);
    }
    return sums;
}

unsigned stencil2d_ranks_x(unsigned ranks) {
    unsigned best = 1;
    for (unsigned x = 1; x * x <= ranks; ++x)
        if (ranks % x == 0) best = x;
    return best;
}

std::vector<std::uint64_t> stencil2d_reference(unsigned ranks, std::uint64_t tile, std::uint64_t iterations) {
    const std::uint64_t rx = stencil2d_ranks_x(ranks), ry = ranks / rx;
    const std::uint64_t w = rx * tile, h = ry * tile, stride = w + 2;
    std::vector<double> a((h + 2) * stride, 0.0), b((h + 2) * stride, 0.0);
    for (std::uint64_t y = 0; y < h; ++y)
        for (std::uint64_t x = 0; x < w; ++x) a[(y + 1) * stride + x + 1] = stencil_initial(y * w + x);
    for (std::uint64_t t = 0; t < iterations; ++t) {
        for (std::uint64_t y = 1; y <= h; ++y)
            for (std::uint64_t x = 1; x <= w; ++x)
                b[y * stride + x] = stencil2d_point(a[(y - 1) * stride + x], a[y * stride + x - 1],
                                                    a[y * stride + x + 1], a[(y + 1) * stride + x]);
        std::swap(a, b);
    }
    std::vector<std::uint64_t> sums(ranks, kFnvBasis);
    for (std::uint64_t y = 0; y < h; ++y)
        for (std::uint64_t x = 0; x < w; ++x) {
            std::uint64_t bits;
            std::memcpy(&bits, &a[(y + 1) * stride + x + 1], 8);
            const std::uint64_t r = (y / tile) * rx + x / tile;
            sums[r] = fnv_add(sums[r], bits);
        }
    return sums;
}

namespace {
template <typename T>
T combine(SMI_Op op, T a, T b) {
    switch (op) {
        case SMI_ADD:
            return static_cast<T>(a + b);
        case SMI_MAX:
            return std::max(a, b);
        case SMI_MIN:
            return std::min(a, b);
    }
    return a;
}
}  // namespace

std::uint64_t reduce_reference(unsigned ranks, std::uint64_t count, SMI_Op op, SMI_Datatype type) {
    std::uint64_t sum = kFnvBasis;
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t bits = 0;
        if (type == SMI_DOUBLE) {
            double v = reduce_double(0, i);
            for (unsigned r = 1; r < ranks; ++r) v = combine(op, v, reduce_double(r, i));
            std::memcpy(&bits, &v, 8);
        } else {
            std::int32_t v = reduce_int(0, i);
            for (unsigned r = 1; r < ranks; ++r)
                v = static_cast<std::int32_t>(
                    op == SMI_ADD ? static_cast<std::int32_t>(static_cast<std::uint32_t>(v) +
                                                              static_cast<std::uint32_t>(reduce_int(r, i)))
                                  : combine(op, v, reduce_int(r, i)));
            bits = static_cast<std::uint32_t>(v);
        }
        sum = fnv_add(sum, bits);
    }
    return sum;
}

std::uint64_t stream_reference(std::uint64_t count) {
    std::uint64_t sum = kFnvBasis;
    for (std::uint64_t i = 0; i < count; ++i) sum = fnv_add(sum, static_cast<std::uint32_t>(stream_value(i)));
    return sum;
}

}  // namespace smi_examples

namespace {
using Args = std::array<std::uint64_t, regmap::kKernelArgs>;
using namespace smi_examples;

int need(bool ok, int index, const std::string& text, std::string* why) {
    if (ok) return -1;
    *why = text;
    return index;
}

bool smi_type(std::uint64_t code) {
    return code == SMI_CHAR || code == SMI_SHORT || code == SMI_INT || code == SMI_LONG || code == SMI_FLOAT ||
           code == SMI_DOUBLE;
}
constexpr std::uint64_t kMaxElements = 1u << 24;
/// The 2D stencil's largest tile side: an edge (512 doubles) fits the
/// receiver's window (kernel.window_packets x 64 B by default).
constexpr std::uint64_t kMaxTile2D = 512;

// --- 1 pingpong: args responder, elements, datatype, iterations, mode (0 ping-pong, 1 stream)
int check_pingpong(const Args& a, int world, std::string* why) {
    int bad = -1;
    if ((bad = need(a[0] >= 1 && a[0] < static_cast<std::uint64_t>(world), 0,
                    "responder must be a rank 1.." + std::to_string(world - 1), why)) >= 0)
        return bad;
    if ((bad = need(a[1] >= 1 && a[1] <= kMaxElements, 1, "elements must be 1..16777216", why)) >= 0) return bad;
    if ((bad = need(smi_type(a[2]), 2, "datatype must be an SMI_Datatype code", why)) >= 0) return bad;
    if ((bad = need(a[3] >= 1 && a[3] <= 1000000, 3, "iterations must be 1..1000000", why)) >= 0) return bad;
    return need(a[4] <= 1, 4, "mode must be 0 (ping-pong) or 1 (stream)", why);
}

void pingpong(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int responder = static_cast<int>(k.arg(0));
    if (me != 0 && me != responder) return;
    const int count = static_cast<int>(k.arg(1));
    const auto type = static_cast<SMI_Datatype>(k.arg(2));
    const std::uint64_t iterations = k.arg(3);
    const bool stream = k.arg(4) == 1;
    const int peer = me == 0 ? responder : 0;
    std::uint64_t element = 0;  // contents do not matter for timing; 8 bytes hold any type
    std::uint64_t start = 0;
    if (!stream) {
        for (std::uint64_t round = 0; round < iterations + 1; ++round) {  // round 0 warms up
            if (round == 1) start = k.now_ps();
            for (int leg = 0; leg < 2; ++leg) {
                const bool sending = (leg == 0) == (me == 0);
                SMI_Channel c = sending ? SMI_Open_send_channel(count, type, peer, leg, SMI_COMM_WORLD)
                                        : SMI_Open_recv_channel(count, type, peer, leg, SMI_COMM_WORLD);
                for (int e = 0; e < count; ++e) sending ? SMI_Push(&c, &element) : SMI_Pop(&c, &element);
            }
        }
    } else {
        start = k.now_ps();
        const std::uint64_t total = static_cast<std::uint64_t>(count) * iterations;
        if (total > (1u << 28)) throw KernelError(regmap::kKernelErrorBadArgument, 1, "pingpong: stream too long");
        SMI_Channel data = me == 0 ? SMI_Open_send_channel(static_cast<int>(total), type, peer, 2, SMI_COMM_WORLD)
                                   : SMI_Open_recv_channel(static_cast<int>(total), type, peer, 2, SMI_COMM_WORLD);
        for (std::uint64_t e = 0; e < total; ++e) me == 0 ? SMI_Push(&data, &element) : SMI_Pop(&data, &element);
        SMI_Channel ack = me == 0 ? SMI_Open_recv_channel(1, SMI_INT, peer, 3, SMI_COMM_WORLD)
                                  : SMI_Open_send_channel(1, SMI_INT, peer, 3, SMI_COMM_WORLD);
        me == 0 ? SMI_Pop(&ack, &element) : SMI_Push(&ack, &element);
    }
    k.set_result(0, k.now_ps() - start);
}

// --- 2 stencil: args points per rank, iterations
int check_stencil(const Args& a, int, std::string* why) {
    int bad = -1;
    if ((bad = need(a[0] >= 1 && a[0] <= kMaxElements, 0, "points per rank must be 1..16777216", why)) >= 0) return bad;
    return need(a[1] <= 1000000, 1, "iterations must be 0..1000000", why);
}

void stencil(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int size = SMI_Comm_size(SMI_COMM_WORLD);
    const std::uint64_t n = k.arg(0);
    const int iterations = static_cast<int>(k.arg(1));
    std::vector<double> a(n + 2, 0.0), b(n + 2, 0.0);
    for (std::uint64_t i = 0; i < n; ++i) a[i + 1] = stencil_initial(me * n + i);
    const std::uint64_t start = k.now_ps();
    // Port 0 carries halos leftwards, port 1 rightwards: per step one
    // transient channel of one element per neighbour and direction (a
    // channel's packet leaves when it is full or the channel ends, as in SMI).
    const bool left = me > 0, right = me + 1 < size;
    for (int t = 0; t < iterations; ++t) {
        if (left) {
            SMI_Channel c = SMI_Open_send_channel(1, SMI_DOUBLE, me - 1, 0, SMI_COMM_WORLD);
            SMI_Push(&c, &a[1]);
        }
        if (right) {
            SMI_Channel c = SMI_Open_send_channel(1, SMI_DOUBLE, me + 1, 1, SMI_COMM_WORLD);
            SMI_Push(&c, &a[n]);
        }
        if (right) {
            SMI_Channel c = SMI_Open_recv_channel(1, SMI_DOUBLE, me + 1, 0, SMI_COMM_WORLD);
            SMI_Pop(&c, &a[n + 1]);
        }
        if (left) {
            SMI_Channel c = SMI_Open_recv_channel(1, SMI_DOUBLE, me - 1, 1, SMI_COMM_WORLD);
            SMI_Pop(&c, &a[0]);
        }
        for (std::uint64_t i = 1; i <= n; ++i) b[i] = stencil_point(a[i - 1], a[i], a[i + 1]);
        k.compute(n);  // one point per cycle
        std::swap(a, b);
        a[0] = a[n + 1] = 0.0;
    }
    std::uint64_t sum = kFnvBasis;
    for (std::uint64_t i = 1; i <= n; ++i) {
        std::uint64_t bits;
        std::memcpy(&bits, &a[i], 8);
        sum = fnv_add(sum, bits);
    }
    k.set_result(0, sum);
    k.set_result(1, k.now_ps() - start);
}

// --- 8 stencil2d: args tile (points per side), iterations
int check_stencil2d(const Args& a, int, std::string* why) {
    int bad = -1;
    if ((bad = need(a[0] >= 1 && a[0] <= kMaxTile2D, 0, "tile must be 1..512 points per side", why)) >= 0) return bad;
    return need(a[1] <= 1000000, 1, "iterations must be 0..1000000", why);
}

/// SMI's 2D stencil (examples/stencil of the reference SMI): each rank holds
/// a tile x tile block of the grid; per step it sends its edge rows and
/// columns to its four neighbours through channels (a row or column per
/// channel, ports 0 north-bound, 1 south-bound, 2 west-bound, 3 east-bound)
/// and receives theirs into its halo, then updates every point from its
/// four neighbours. The edges of the grid are 0.
void stencil2d(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int size = SMI_Comm_size(SMI_COMM_WORLD);
    const int rx = static_cast<int>(stencil2d_ranks_x(static_cast<unsigned>(size))), ry = size / rx;
    const int px = me % rx, py = me / rx;
    const std::uint64_t n = k.arg(0), stride = n + 2, width = static_cast<std::uint64_t>(rx) * n;
    const int iterations = static_cast<int>(k.arg(1));
    std::vector<double> a((n + 2) * stride, 0.0), b((n + 2) * stride, 0.0);
    for (std::uint64_t y = 0; y < n; ++y)
        for (std::uint64_t x = 0; x < n; ++x)
            a[(y + 1) * stride + x + 1] = stencil_initial((py * n + y) * width + px * n + x);
    const std::uint64_t start = k.now_ps();
    const int north = py > 0 ? me - rx : -1, south = py + 1 < ry ? me + rx : -1;
    const int west = px > 0 ? me - 1 : -1, east = px + 1 < rx ? me + 1 : -1;
    const int count = static_cast<int>(n);
    // The element (y, x) of the tile with its halo.
    auto at = [&](std::uint64_t y, std::uint64_t x) -> double& { return a[y * stride + x]; };
    for (int t = 0; t < iterations; ++t) {
        // Send the four edges (a channel's packets leave as they fill and at its end).
        auto send = [&](int peer, int port, std::uint64_t y0, std::uint64_t x0, std::uint64_t dy, std::uint64_t dx) {
            if (peer < 0) return;
            SMI_Channel c = SMI_Open_send_channel(count, SMI_DOUBLE, peer, port, SMI_COMM_WORLD);
            for (std::uint64_t i = 0; i < n; ++i) SMI_Push(&c, &at(y0 + i * dy, x0 + i * dx));
        };
        send(north, 0, 1, 1, 0, 1);  // first row
        send(south, 1, n, 1, 0, 1);  // last row
        send(west, 2, 1, 1, 1, 0);   // first column
        send(east, 3, 1, n, 1, 0);   // last column
        auto receive = [&](int peer, int port, std::uint64_t y0, std::uint64_t x0, std::uint64_t dy, std::uint64_t dx) {
            if (peer < 0) return;
            SMI_Channel c = SMI_Open_recv_channel(count, SMI_DOUBLE, peer, port, SMI_COMM_WORLD);
            for (std::uint64_t i = 0; i < n; ++i) SMI_Pop(&c, &at(y0 + i * dy, x0 + i * dx));
        };
        receive(south, 0, n + 1, 1, 0, 1);  // the south neighbour's first row, north-bound
        receive(north, 1, 0, 1, 0, 1);      // the north neighbour's last row, south-bound
        receive(east, 2, 1, n + 1, 1, 0);   // the east neighbour's first column, west-bound
        receive(west, 3, 1, 0, 1, 0);       // the west neighbour's last column, east-bound
        for (std::uint64_t y = 1; y <= n; ++y)
            for (std::uint64_t x = 1; x <= n; ++x)
                b[y * stride + x] = stencil2d_point(at(y - 1, x), at(y, x - 1), at(y, x + 1), at(y + 1, x));
        k.compute(n * n);  // one point per cycle
        std::swap(a, b);   // b's halo is still 0 where the grid ends; the rest is overwritten next step
    }
    std::uint64_t sum = kFnvBasis;
    for (std::uint64_t y = 1; y <= n; ++y)
        for (std::uint64_t x = 1; x <= n; ++x) {
            std::uint64_t bits;
            std::memcpy(&bits, &at(y, x), 8);
            sum = fnv_add(sum, bits);
        }
    k.set_result(0, sum);
    k.set_result(1, k.now_ps() - start);
}

// --- 3 bcast: args count, root
int check_root_count(const Args& a, int world, std::string* why) {
    int bad = -1;
    if ((bad = need(a[0] <= kMaxElements, 0, "count must be 0..16777216", why)) >= 0) return bad;
    return need(a[1] < static_cast<std::uint64_t>(world), 1, "root must be a rank 0.." + std::to_string(world - 1),
                why);
}

void bcast(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int count = static_cast<int>(k.arg(0));
    const int root = static_cast<int>(k.arg(1));
    const std::uint64_t start = k.now_ps();
    SMI_BChannel chan = SMI_Open_bcast_channel(count, SMI_INT, 0, root, SMI_COMM_WORLD);
    std::uint64_t wrong = 0, sum = kFnvBasis;
    for (int i = 0; i < count; ++i) {
        std::int32_t value = me == root ? bcast_value(i) : 0;
        SMI_Bcast(&chan, &value);
        wrong += value != bcast_value(i);
        sum = fnv_add(sum, static_cast<std::uint32_t>(value));
    }
    k.set_result(0, wrong);
    k.set_result(1, k.now_ps() - start);
    k.set_result(2, sum);
}

// --- 4 reduce: args count, root, op, datatype (SMI_INT or SMI_DOUBLE)
int check_reduce(const Args& a, int world, std::string* why) {
    int bad = check_root_count(a, world, why);
    if (bad >= 0) return bad;
    if ((bad = need(a[2] <= SMI_MIN, 2, "op must be 0 (SMI_ADD), 1 (SMI_MAX) or 2 (SMI_MIN)", why)) >= 0) return bad;
    return need(a[3] == SMI_INT || a[3] == SMI_DOUBLE, 3, "datatype must be SMI_INT (2) or SMI_DOUBLE (9)", why);
}

void reduce(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int count = static_cast<int>(k.arg(0));
    const int root = static_cast<int>(k.arg(1));
    const auto op = static_cast<SMI_Op>(k.arg(2));
    const auto type = static_cast<SMI_Datatype>(k.arg(3));
    const std::uint64_t start = k.now_ps();
    SMI_RChannel chan = SMI_Open_reduce_channel(count, type, op, 0, root, SMI_COMM_WORLD);
    std::uint64_t sum = kFnvBasis;
    for (int i = 0; i < count; ++i) {
        std::uint64_t bits = 0;
        if (type == SMI_DOUBLE) {
            double mine = reduce_double(me, i), result = 0;
            SMI_Reduce(&chan, &mine, &result);
            std::memcpy(&bits, &result, 8);
        } else {
            std::int32_t mine = reduce_int(me, i), result = 0;
            SMI_Reduce(&chan, &mine, &result);
            bits = static_cast<std::uint32_t>(result);
        }
        sum = fnv_add(sum, bits);
    }
    k.set_result(0, me == root ? sum : 0);
    k.set_result(1, k.now_ps() - start);
}

// --- 5 stream: args count, receiver's cycles per pop
int check_stream(const Args& a, int world, std::string* why) {
    int bad = -1;
    if ((bad = need(world >= 2, 0, "needs at least 2 ranks", why)) >= 0) return bad;
    if ((bad = need(a[0] <= kMaxElements, 0, "count must be 0..16777216", why)) >= 0) return bad;
    return need(a[1] <= 100000, 1, "cycles per pop must be 0..100000", why);
}

void stream(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    if (me > 1) return;
    const int count = static_cast<int>(k.arg(0));
    const std::uint64_t start = k.now_ps();
    SMI_Channel c = me == 0 ? SMI_Open_send_channel(count, SMI_INT, 1, 0, SMI_COMM_WORLD)
                            : SMI_Open_recv_channel(count, SMI_INT, 0, 0, SMI_COMM_WORLD);
    std::uint64_t sum = kFnvBasis;
    for (int i = 0; i < count; ++i) {
        std::int32_t value = stream_value(i);
        if (me == 0) {
            SMI_Push(&c, &value);
        } else {
            SMI_Pop(&c, &value);
            k.compute(k.arg(1));  // a slow consumer
            sum = fnv_add(sum, static_cast<std::uint32_t>(value));
        }
    }
    k.set_result(0, me == 1 ? sum : 0);
    k.set_result(1, k.now_ps() - start);
}

// --- 6 mismatch: args sender count, sender datatype, receiver count, receiver datatype
int check_mismatch(const Args& a, int world, std::string* why) {
    int bad = -1;
    if ((bad = need(world >= 2, 0, "needs at least 2 ranks", why)) >= 0) return bad;
    for (int i : {0, 2})
        if ((bad = need(a[i] <= kMaxElements, i, "counts must be 0..16777216", why)) >= 0) return bad;
    for (int i : {1, 3})
        if ((bad = need(smi_type(a[i]), i, "datatypes must be SMI_Datatype codes", why)) >= 0) return bad;
    return -1;
}

void mismatch(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    if (me > 1) return;
    std::uint64_t element = 0;
    if (me == 0) {
        SMI_Channel c = SMI_Open_send_channel(static_cast<int>(k.arg(0)), static_cast<SMI_Datatype>(k.arg(1)), 1, 0,
                                              SMI_COMM_WORLD);
        for (std::uint64_t i = 0; i < k.arg(0); ++i) SMI_Push(&c, &element);
        // Then wait for the receiver's acknowledgement: a receiver that
        // refused the channel aborts this wait instead of leaving it hanging.
        SMI_Channel ack = SMI_Open_recv_channel(1, SMI_INT, 1, 1, SMI_COMM_WORLD);
        SMI_Pop(&ack, &element);
    } else {
        SMI_Channel c = SMI_Open_recv_channel(static_cast<int>(k.arg(2)), static_cast<SMI_Datatype>(k.arg(3)), 0, 0,
                                              SMI_COMM_WORLD);
        for (std::uint64_t i = 0; i < k.arg(2); ++i) SMI_Pop(&c, &element);
        SMI_Channel ack = SMI_Open_send_channel(1, SMI_INT, 0, 1, SMI_COMM_WORLD);
        SMI_Push(&ack, &element);
    }
}

// --- 7 scatter_gather: args count per rank, root
void scatter_gather(KernelContext& k, SMI_Comm SMI_COMM_WORLD) {
    const int me = SMI_Comm_rank(SMI_COMM_WORLD);
    const int size = SMI_Comm_size(SMI_COMM_WORLD);
    const int count = static_cast<int>(k.arg(0));
    const int root = static_cast<int>(k.arg(1));
    const std::uint64_t start = k.now_ps();
    std::vector<std::int32_t> mine(count);
    std::uint64_t wrong = 0;
    SMI_ScatterChannel scatter = SMI_Open_scatter_channel(count, SMI_INT, 0, root, SMI_COMM_WORLD);
    const std::uint64_t calls = me == root ? static_cast<std::uint64_t>(count) * size : count;
    for (std::uint64_t j = 0, got = 0; j < calls; ++j) {
        std::int32_t out = me == root ? scatter_value(j) : 0, in = 0;
        const bool own = me != root || static_cast<int>(j / count) == me;
        SMI_Scatter(&scatter, &out, &in);
        if (own) mine[got++] = in;
    }
    for (int i = 0; i < count; ++i) wrong += mine[i] != scatter_value(static_cast<std::uint64_t>(me) * count + i);
    // Gather back each element plus the rank; the root checks all.
    SMI_GatherChannel gather = SMI_Open_gather_channel(count, SMI_INT, 1, root, SMI_COMM_WORLD);
    for (std::uint64_t j = 0; j < calls; ++j) {
        const int from = me == root ? static_cast<int>(j / count) : me;
        std::int32_t out = mine[me == root ? (from == me ? j % count : 0) : j] + me, in = 0;
        SMI_Gather(&gather, &out, &in);
        if (me == root && in != scatter_value(j) + from) ++wrong;
    }
    k.set_result(0, wrong);
    k.set_result(1, k.now_ps() - start);
}

int check_scatter_gather(const Args& a, int world, std::string* why) {
    int bad = check_root_count(a, world, why);
    if (bad >= 0) return bad;
    return need(a[0] * static_cast<std::uint64_t>(world) <= kMaxElements, 0, "count x ranks must be <= 16777216", why);
}

const KernelDescriptor kKernels[] = {
    {kKernelPingPong,
     "pingpong",
     {"responder", "elements", "datatype", "iterations", "mode"},
     check_pingpong,
     pingpong,
     "ping-pong latency (mode 0) or streamed bandwidth (mode 1) between rank 0 and the responder"},
    {kKernelStencil,
     "stencil",
     {"points_per_rank", "iterations"},
     check_stencil,
     stencil,
     "1D 3-point stencil on points_per_rank x ranks doubles, halos through channels"},
    {kKernelBcast, "bcast", {"count", "root"}, check_root_count, bcast, "SMI_Bcast of count int32 from root"},
    {kKernelReduce,
     "reduce",
     {"count", "root", "op", "datatype"},
     check_reduce,
     reduce,
     "SMI_Reduce of count elements to root"},
    {kKernelStream,
     "stream",
     {"count", "cycles_per_pop"},
     check_stream,
     stream,
     "rank 0 streams count int32 to rank 1, which pops one per cycles_per_pop (back-pressure)"},
    {kKernelMismatch,
     "mismatch",
     {"send_count", "send_datatype", "recv_count", "recv_datatype"},
     check_mismatch,
     mismatch,
     "a channel whose ends disagree (a test of the error path)"},
    {kKernelScatterGather,
     "scatter_gather",
     {"count", "root"},
     check_scatter_gather,
     scatter_gather,
     "SMI_Scatter of count int32 per rank from root, then SMI_Gather back"},
    {kKernelStencil2D,
     "stencil2d",
     {"tile", "iterations"},
     check_stencil2d,
     stencil2d,
     "2D 4-point Jacobi stencil on tile x tile doubles per rank, halos through channels in both dimensions"},
};

}  // namespace

const KernelDescriptor* kernels_begin() {
    return std::begin(kKernels);
}
const KernelDescriptor* kernels_end() {
    return std::end(kKernels);
}

const KernelDescriptor* find_kernel(std::uint32_t id) {
    for (const KernelDescriptor& k : kKernels)
        if (k.id == id) return &k;
    return nullptr;
}

const KernelDescriptor* find_kernel(const std::string& name) {
    for (const KernelDescriptor& k : kKernels)
        if (name == k.name) return &k;
    return nullptr;
}

std::string kernel_list() {
    std::string out;
    for (const KernelDescriptor& k : kKernels) out += (out.empty() ? "" : ", ") + std::to_string(k.id) + " " + k.name;
    return out;
}

}  // namespace isvp
