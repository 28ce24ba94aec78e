// LogGP model: parameters derived from the default platform, and collective
// latencies against values computed by hand from the formulas
// (docs/REPORTS.md).
#include <catch2/catch.hpp>

#include <algorithm>

#include "isvp/loggp_model.h"
#include "isvp/table_routing.h"

using isvp::Opcode;
using isvp::TorusShape;
using namespace isvp::loggp;

namespace {

/// The default platform on the descriptor-fetch + MSI-X host path, whose
/// o_s and o_r the formulas below spell out (one o_s for every size).
PlatformFigures fetch_msi() {
    PlatformFigures figures;
    figures.send_path = SendPath::Fetch;
    figures.poll = false;
    return figures;
}

const Parameters kDefault = derive(fetch_msi());

TorusShape shape(unsigned x, unsigned y, unsigned z) {
    TorusShape s;
    s.x = x;
    s.y = y;
    s.z = z;
    return s;
}

/// Host-to-host message of `bytes` data over `hops`, written out term by term.
double message(double bytes, unsigned hops) {
    const Parameters& p = kDefault;
    return p.o_s + p.L_router + hops * p.hop + (bytes + 16) * p.G + p.o_r + p.device_fixed;
}

}  // namespace

TEST_CASE("loggp: parameters of the default platform follow from its PCIe, router and Aurora figures") {
    const Parameters& p = kDefault;
    CHECK(p.o_s == Approx(0.05 + 0.9 + 1.8 + 1.8));  // doorbell post + crossing + two read round trips
    CHECK(p.o_r == Approx(0.9));
    CHECK(p.g == Approx(0.05));
    CHECK(p.L_router == Approx(0.016));  // 4 cycles at 250 MHz
    // 440 ns link + 16 ns router + (18 + 16 + 8 + 42.41 framing) bytes at 100 Gb/s.
    CHECK(p.hop == Approx(0.440 + 0.016 + 84.41 * 8 / 100 / 1000));
    // A 1 KiB packet + 18 header bytes needs two frames: 1,126.82 line bytes per 1,024.
    CHECK(p.G_link == Approx((1042 + 2 * 42.41) * 8 / 100.0 / 1024 / 1000));
    CHECK(p.G_pcie == Approx(1 / 12.96 / 1000));
    CHECK(p.G == Approx(p.G_link));
    CHECK(p.G_aglu == Approx(1 / 16.0 / 1000));    // a chunk: 2 AgLUs x 32 bytes per cycle at 250 MHz
    CHECK(p.G_cgr == Approx(1 / 48.0 / 1000));     // the CGR's 6 AgLUs together
    CHECK(p.G_engine == Approx(1 / 16.0 / 1000));  // 2 phits of 32 bytes per cycle
    CHECK(p.aglu_latency == Approx(0.016));
}

TEST_CASE("loggp: one message reproduces the measured ping-pong latency and per-hop increment") {
    // docs/PERFORMANCE.md: 8 B one-way 6.001 µs at one hop, +0.4627 µs per hop.
    CHECK(kDefault.message(8, 1) == Approx(6.001).margin(0.002));
    CHECK(kDefault.message(8, 8) - kDefault.message(8, 1) == Approx(7 * 0.4627).margin(0.002));
    // 4 MiB: 377.1 µs measured; the model's G is the link's framing-limited rate.
    CHECK(kDefault.message(4 << 20, 1) == Approx(377.1).epsilon(0.01));
}

TEST_CASE("loggp: software bcast on two nodes is one message") {
    const Model model(kDefault, shape(2, 1, 1), 2);
    CHECK(model.latency_us(Opcode::Bcast, 8, Path::Software) == Approx(message(8, 1)));
    CHECK(model.latency_us(Opcode::Bcast, 65536, Path::Software) == Approx(message(65536, 1)));
}

TEST_CASE("loggp: software allreduce by recursive doubling is log2 P exchanges") {
    const Model model(kDefault, shape(2, 2, 2), 8);  // every partner r XOR 2^k is one hop away
    CHECK(model.latency_us(Opcode::Allreduce, 1024, Path::Software) == Approx(3 * message(1024, 1)));
    CHECK(model.latency_us(Opcode::Barrier, 0, Path::Software) == Approx(3 * message(0, 1)));
}

TEST_CASE("loggp: software allreduce of a non-power-of-two size adds the pairwise fold in and out") {
    // 6 ranks on 6x1x1: pairs (0,1), (2,3) fold; new ranks 0..3 = comm 1, 3, 4, 5.
    const Model model(kDefault, shape(6, 1, 1), 6);
    // Critical path, ending at rank 4: fold-in 0->1 (1 hop); exchange 1<->3 (2 hops); rank 1's
    // step-2 message to 4 (3 hops on a 6-ring). Rank 1 itself ends earlier: 4's message left at
    // once, and its fold-out to 0 is one hop.
    const double expected = message(8, 1) + message(8, 2) + message(8, 3);
    CHECK(model.latency_us(Opcode::Allreduce, 8, Path::Software) == Approx(expected));
}

TEST_CASE("loggp: software binomial bcast follows the longest path of the tree with its hop counts") {
    // 8-ring: rank 7 gets 0 -> 4 (4 hops), 4 -> 6 (2), 6 -> 7 (1), each its sender's first send.
    // Simulated (iteration without a preceding skewed barrier): 19.854 µs.
    const Model model(kDefault, shape(8, 1, 1), 8);
    const double expected = message(8, 4) + message(8, 2) + message(8, 1);
    CHECK(model.latency_us(Opcode::Bcast, 8, Path::Software) == Approx(expected));
    CHECK(expected == Approx(19.854).margin(0.01));
}

TEST_CASE("loggp: a host's consecutive large sends are spaced by k G") {
    // 4-ring, 64 KiB: root sends to 2 (2 hops) then to 1 (1 hop) after 2's bytes are out;
    // rank 3 gets 0 -> 2 -> 3. Rank 1: k G later than a first send.
    const Model model(kDefault, shape(4, 1, 1), 4);
    const double k = 65536;
    const double gap = (k + 16) * kDefault.G;
    const double rank1 = gap + message(k, 1);
    const double rank3 = message(k, 2) + message(k, 1);
    CHECK(model.latency_us(Opcode::Bcast, k, Path::Software) == Approx(std::max(rank1, rank3)));
}

TEST_CASE("loggp: software reduce_scatter by recursive halving sends half the remaining blocks per step") {
    // 4-ring, block b: step 1 two blocks to r XOR 1 (1 hop), step 2 one block to r XOR 2 (2 hops).
    // Step 2's four transfers all route + (a tie on a 4-ring goes +): 0->1->2, 1->2->3, 2->3->0,
    // 3->0->1, so every link carries two of them and each pays its bytes twice.
    const Model model(kDefault, shape(4, 1, 1), 4);
    const double b = 4096;
    CHECK(model.latency_us(Opcode::ReduceScatter, 4096, Path::Software) ==
          Approx(message(2 * b, 1) + message(b, 2) + (b + 16) * kDefault.G));
}

TEST_CASE("loggp: recursive doubling partners 2 and 4 apart on an 8-ring share links 2 and 4 ways") {
    // Store-and-forward allreduce, 8-ring: steps to r XOR 1, 2, 4 (1, 2, 4 hops); dimension-order
    // routes put 1, 2 and 4 transfers of the same step on the busiest link.
    const Parameters& p = kDefault;
    const Model model(kDefault, shape(8, 1, 1), 8);
    const double k = 1 << 20;
    double expected = p.o_s + k * p.G_pcie + k * p.G_pcie + p.o_r + p.device_fixed;
    const unsigned hops[] = {1, 2, 4};
    const unsigned shared[] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) expected += p.L(hops[i]) + k * p.G_link * shared[i] + p.aglu_latency + k * p.G_aglu;
    CHECK(model.latency_us(Opcode::Allreduce, 1 << 20, Path::OffloadStoreAndForward) == Approx(expected));
}

TEST_CASE("loggp: in-switch bcast pays the host once and only L(h) per step") {
    // Same 8-ring tree as above: the switches of 0, 4, 6 forward; hosts only at the ends.
    // Simulated: 8.787 µs for rank 7.
    const Parameters& p = kDefault;
    const Model model(kDefault, shape(8, 1, 1), 8);
    const double k = 8;
    const double expected =
        p.o_s + k * p.G_pcie + 3 * p.L_router + 7 * p.hop + 3 * k * p.G_link + k * p.G_pcie + p.o_r + p.device_fixed;
    CHECK(model.latency_us(Opcode::Bcast, 8, Path::OffloadStreamed) == Approx(expected));
    CHECK(expected == Approx(8.787).margin(0.05));
    // DESIGN §7: in-switch o_s + kG + L + o_r against the software ⌊log P⌋ (o_s + kG + L + o_r).
    CHECK(model.latency_us(Opcode::Bcast, 8, Path::Software) / expected > 2.0);
}

TEST_CASE("loggp: store-and-forward in-switch bcast moves the whole vector per step, sends spaced by k G_link") {
    const Parameters& p = kDefault;
    const Model model(kDefault, shape(4, 1, 1), 4);
    const double k = 65536;
    const double start = p.o_s + k * p.G_pcie;                        // root's request in its switch
    const double at2 = start + p.L(2) + k * p.G_link;                 // first send: to 2
    const double at1 = start + k * p.G_link + p.L(1) + k * p.G_link;  // second send waits for the port
    const double at3 = at2 + p.L(1) + k * p.G_link;
    const double end = p.o_r + p.device_fixed + k * p.G_pcie;  // result to the host
    CHECK(model.latency_us(Opcode::Bcast, 65536, Path::OffloadStoreAndForward) ==
          Approx(std::max({at1, at2, at3}) + end));
}

TEST_CASE("loggp: streamed in-switch allreduce pays the bytes once, at the slowest stage: the link") {
    const Parameters& p = kDefault;
    const Model model(kDefault, shape(2, 1, 1), 2);
    const double k = 1 << 20, packet = 1024;
    const double fill = p.o_s + packet * p.G_pcie + p.L(1) + packet * p.G_link + p.aglu_latency + packet * p.G_aglu +
                        packet * p.G_pcie + p.o_r + p.device_fixed;
    const double drain = k * p.G_link - packet * p.G;  // 90.9 Gb/s link < 12.96 GB/s PCIe < 16 GB/s AgLUs
    CHECK(model.latency_us(Opcode::Allreduce, 1 << 20, Path::OffloadStreamed) == Approx(fill + drain));
    // Store-and-forward pays PCIe in, the link and the AgLU one after another.
    const double whole = p.o_s + k * p.G_pcie + p.L(1) + k * p.G_link + p.aglu_latency + k * p.G_aglu + k * p.G_pcie +
                         p.o_r + p.device_fixed;
    CHECK(model.latency_us(Opcode::Allreduce, 1 << 20, Path::OffloadStoreAndForward) == Approx(whole));
}

TEST_CASE("loggp: every collective has a model on odd and power-of-two sizes") {
    for (const int ranks : {1, 3, 8, 12}) {
        const Model model(kDefault, shape(4, 3, 1), ranks);
        for (const Opcode c : {Opcode::Bcast, Opcode::Reduce, Opcode::Allreduce, Opcode::Scatter, Opcode::Gather,
                               Opcode::Allgather, Opcode::ReduceScatter, Opcode::Barrier})
            for (const Path path : {Path::Software, Path::OffloadStreamed, Path::OffloadStoreAndForward}) {
                const double us = model.latency_us(c, 4096, path);
                CHECK(us >= 0);
                if (ranks > 1) CHECK(us > kDefault.o_s);
            }
    }
}

TEST_CASE("loggp: more ranks than torus nodes are refused") {
    CHECK_THROWS_AS(Model(kDefault, shape(2, 2, 1), 5), std::invalid_argument);
}

TEST_CASE("loggp: agreement within the threshold needs no explanation, a gap names its cause") {
    const Model model(kDefault, shape(8, 1, 1), 8);
    const double modelled = model.latency_us(Opcode::Bcast, 8, Path::Software);
    CHECK(explain_difference(model, Opcode::Bcast, 8, false, modelled * 1.2).empty());
    CHECK_THAT(explain_difference(model, Opcode::Bcast, 8, false, modelled * 1.6), Catch::Contains("barrier"));
    CHECK_THAT(explain_difference(model, Opcode::Allreduce, 65536, false,
                                  model.latency_us(Opcode::Allreduce, 65536, Path::Software) * 1.5),
               Catch::Contains("interrupt"));
    // A measured release skew that covers the gap is named with its value.
    CHECK_THAT(explain_difference(model, Opcode::Bcast, 8, false, modelled + 10, 9.0),
               Catch::Contains("released the ranks apart (measured"));
    // A gap the skew does not cover says how much is left unexplained.
    CHECK_THAT(explain_difference(model, Opcode::Bcast, 8, false, modelled + 20, 1.0),
               Catch::Contains("not explained"));
    const double whole = model.latency_us(Opcode::Allreduce, 1 << 20, Path::OffloadStoreAndForward);
    CHECK_THAT(explain_difference(model, Opcode::Allreduce, 1 << 20, true, whole),
               Catch::Contains("store-and-forward"));
    // Between streamed and store-and-forward: the stream falls short of the drain rate.
    const double streamed = model.latency_us(Opcode::Allreduce, 1 << 20, Path::OffloadStreamed);
    CHECK_THAT(explain_difference(model, Opcode::Allreduce, 1 << 20, true, (streamed + whole) / 2 * 0.8, 1.0),
               Catch::Contains("between the streamed"));
}

TEST_CASE("loggp: a streamed binomial reduce is bounded by the root's eject port taking every child's stream") {
    // 8-ring: the root receives three 1 MiB streams (from 4, 2, 1) through one port at G_engine.
    const Parameters& p = kDefault;
    const Model model(kDefault, shape(8, 1, 1), 8);
    const double k = 1 << 20;
    const double us = model.latency_us(Opcode::Reduce, 1 << 20, Path::OffloadStreamed);
    CHECK(us >= 3 * k * p.G_engine);
    CHECK(us <= 3 * k * p.G_engine + p.o_s + p.o_r + 10.0);
}

TEST_CASE("loggp: switch-tree allreduce of two hosts on one leaf: up to the leaf's engine, one AgLU pass, back down") {
    isvp::FatTreeShape tree_shape;
    tree_shape.radix = 8;
    tree_shape.hosts = 2;
    const isvp::NetworkTopology network = isvp::fat_tree_network(tree_shape);
    REQUIRE(network.host(0).switch_index == network.host(1).switch_index);
    const Model model(kDefault, network, std::make_shared<isvp::TableRouting>(network, "updown", 2), 2);
    const Parameters& p = kDefault;
    const double k = 8;
    // Host: o_s, its 8 B over PCIe, L(0) to its own switch's engine; the
    // engine combines the second input; its second result leaves k G_engine
    // after the first; then L(0), PCIe, o_r.
    const double expected = p.o_s + k * p.G_pcie + p.L(0) + k * p.G_link + p.aglu_latency + k * p.G_aglu +
                            k * p.G_engine + p.L(0) + k * p.G_link + k * p.G_pcie + p.o_r + p.device_fixed;
    CHECK(model.latency_us(Opcode::Allreduce, 8, Path::OffloadTree) == Approx(expected));
}

TEST_CASE("loggp: switch trees beat the NIC engines' hypercube on a fat tree for short reductions") {
    isvp::FatTreeShape tree_shape;
    tree_shape.radix = 8;
    tree_shape.hosts = 32;
    const isvp::NetworkTopology network = isvp::fat_tree_network(tree_shape);
    const Model model(kDefault, network, std::make_shared<isvp::TableRouting>(network, "updown", 2), 32);
    for (const Opcode collective : {Opcode::Allreduce, Opcode::Reduce, Opcode::Bcast, Opcode::Barrier})
        CHECK(model.latency_us(collective, 8, Path::OffloadTree) <
              model.latency_us(collective, 8, Path::OffloadStreamed));
    // The per-rank collectives run in the tree too: their own evaluation.
    for (const Opcode collective : {Opcode::Gather, Opcode::Allgather, Opcode::Scatter, Opcode::ReduceScatter}) {
        const double tree = model.latency_us(collective, 8, Path::OffloadTree);
        CHECK(tree > 0);
        CHECK(tree != model.latency_us(collective, 8, Path::OffloadStreamed));
    }
}

TEST_CASE("loggp: a chained collective with every request in at the host's send time is the plain one") {
    // The host's send of its 32 bytes (by DMA with these parameters: o_s and the bytes over PCIe).
    const Model model(kDefault, shape(2, 2, 2), 8);
    const std::vector<double> sent(8, kDefault.send_cost(32, 32));
    CHECK(model.chained_latency_us(Opcode::Allgather, 32, sent) ==
          Approx(model.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed)));
    // A rank whose request is in later finishes later; the latency is the latest finish.
    std::vector<double> late = sent;
    late[3] += 1.0;
    CHECK(model.chained_latency_us(Opcode::Allgather, 32, late) >
          model.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed));
    CHECK_THROWS_WITH(model.chained_latency_us(Opcode::Allgather, 32, std::vector<double>(7, 0.0)),
                      "loggp: 7 start times for 8 ranks");
    const std::vector<double> ends = model.rank_finish_us(Opcode::Allgather, 32, Path::OffloadStreamed);
    CHECK(*std::max_element(ends.begin(), ends.end()) ==
          Approx(model.latency_us(Opcode::Allgather, 32, Path::OffloadStreamed)));
}

TEST_CASE("loggp: ranks placed on other hosts are modelled on those hosts' routes") {
    isvp::FatTreeShape tree_shape;
    tree_shape.radix = 4;  // leaves of 3 hosts
    tree_shape.hosts = 6;
    const isvp::NetworkTopology network = isvp::fat_tree_network(tree_shape);
    const auto routing = std::make_shared<isvp::TableRouting>(network, "updown", 2);
    const Model packed(kDefault, network, routing, 2);
    const Model apart(kDefault, network, routing, 2, {0, 3});  // rank 1 on the second leaf
    const Model swapped(kDefault, network, routing, 2, {1, 0});
    CHECK(packed.hops(0, 1) == 0);
    CHECK(apart.hops(0, 1) == 2);
    CHECK(apart.hops(1, 0) == 2);
    CHECK(apart.latency_us(Opcode::Allreduce, 8, Path::Software) >
          packed.latency_us(Opcode::Allreduce, 8, Path::Software));
    CHECK(apart.latency_us(Opcode::Allreduce, 8, Path::OffloadTree) >
          packed.latency_us(Opcode::Allreduce, 8, Path::OffloadTree));
    // Two ranks swapped on the same two hosts: the same network, the same figures.
    for (const Opcode collective : {Opcode::Bcast, Opcode::Allreduce, Opcode::Gather})
        for (const Path path : {Path::Software, Path::OffloadStreamed, Path::OffloadTree})
            CHECK(swapped.latency_us(collective, 64, path) == Approx(packed.latency_us(collective, 64, path)));
    CHECK_THROWS_WITH(Model(kDefault, network, routing, 2, {0, 7}), Catch::Contains("placement names host 7"));
    CHECK_THROWS_WITH(Model(kDefault, network, routing, 2, {0}), Catch::Contains("a placement of 1 ranks for 2"));
}

TEST_CASE("loggp: o_s and o_r follow the driver's send and completion paths") {
    // fetch + msi: doorbell, descriptor and data fetch; completion and MSI.
    CHECK(kDefault.send_overhead(8) == Approx(4.55));
    CHECK(kDefault.o_r == Approx(0.9));
    // The default, auto + poll: PIO up to 256 B (one posted store per 64-byte
    // line of 24 B header and envelope plus the data, crossing PCIe once),
    // prefetch above (no descriptor fetch); the poll loop's turn on receive.
    const Parameters p = derive(PlatformFigures{});
    CHECK(p.send_overhead(8) == Approx(0.05 + 0.9));
    CHECK(p.send_overhead(256) == Approx(5 * 0.05 + 0.9));
    CHECK(p.send_overhead(257) == Approx(0.05 + 0.9 + 1.8));
    CHECK(p.o_r == Approx(0.9 + 0.05));
    // docs/PERFORMANCE.md: 8 B one way 2.435 µs simulated on auto + poll.
    CHECK(p.message(8, 1) == Approx(2.435).margin(0.02));
    // pio alone sends large messages by fetch; prefetch never by PIO.
    PlatformFigures pio = fetch_msi();
    pio.send_path = SendPath::Pio;
    CHECK(derive(pio).send_overhead(8) == Approx(0.95));
    CHECK(derive(pio).send_overhead(4096) == Approx(4.55));
    PlatformFigures prefetch = fetch_msi();
    prefetch.send_path = SendPath::Prefetch;
    CHECK(derive(prefetch).send_overhead(8) == Approx(2.75));
    // PIO data crosses with the stores: no PCIe read of the request's bytes.
    CHECK(p.send_cost(64, 64) == Approx(p.send_overhead(64)));
    CHECK(kDefault.send_cost(64, 64) == Approx(4.55 + 64 * kDefault.G_pcie));
}
