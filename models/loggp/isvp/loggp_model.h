// The LogGP model of the platform's collectives (DESIGN §7): an analytical
// cross-check printed beside the simulated latencies. Plain C++17, no
// SystemC, no simulation of packets.
//
// Parameters are derived from the platform's own parameters
// (`derive(PlatformFigures)`; docs/REPORTS.md lists every formula):
//   o_s  host send overhead, by the driver's send path (driver.send_path):
//        fetch = posted doorbell, doorbell crossing PCIe, descriptor fetch
//        and data fetch round trips (PCIe latency, not CPU time: the device
//        overlaps them for consecutive messages); prefetch = the same less
//        the descriptor fetch (the device holds standing descriptors); pio
//        (messages up to driver.pio_max_bytes) = one posted write-combined
//        store per 64-byte line of header + envelope + data, crossing PCIe
//        once; auto = pio up to the limit, prefetch above
//   g    gap between consecutive messages of one host: the guest's posted
//        doorbell write (the only host CPU time a send costs)
//   L    network latency of a small packet over h hops: router + h x (link +
//        router + serialisation)
//   G    gap per byte: the slowest stage a message's bytes stream through
//        (Aurora framing at 1 KiB packets, 90.9 Gb/s; PCIe DMA 12.96 GB/s)
//   o_r  receive overhead: completion entry written to host memory, then
//        the MSI (driver.completion=msi) or one turn of the poll loop
//        (poll, hybrid: driver.poll_interval_ns)
//
// Evaluation: the model runs the same schedules the platform runs — the host
// software path is make_schedule(..., Fold::Pairwise), the switch path
// make_schedule(..., Fold::Hypercube) — step by step under LogGP rules: a
// send leaves at max(host time, the device's previous message + max(g, kG)),
// arrives o_s + L(h) + kG + o_r later, a receive waits for its message; hop
// counts come from the torus. Latency = the last rank's finish, all ranks
// starting together. For power-of-two sizes this is the closed form of each
// algorithm (binomial tree: ⌈log P⌉·T on the longest path; recursive
// doubling: log P exchange steps; halving: log P steps of P·k/2^i bytes).
//
// The switch path charges the host once (o_s + request bytes over PCIe, then
// result bytes over PCIe + o_r) and per step only the switch: engine step
// latency + L(h), and the AgLU for reductions; no host at intermediate steps.
// Two variants: `streamed` (the design: packets pipeline through all steps,
// the bytes are paid once at the slowest port) and `store_and_forward` (each
// step's transfer is whole before the next step starts).
//
// The switch-tree path (indirect networks, engines in the switches) runs the
// same tree schedules the engines run (make_tree_schedule over the roles of
// plan_aggregation_tree's tree) with the same rules: a participant is a host
// or a switch engine, hops are cables between their switches (0 between a
// host and its own switch's engine: L(0), the router alone); a vertex's
// sends leave its output port one after another (G_engine per byte), each
// input past the first costs an AgLU pass; streamed, the bytes are paid once
// at the slowest stage (a vertex's output carries its bytes once per child
// on the way down).
//
// Link contention within a phase: transfers of one step (same from XOR to)
// whose dimension-order routes share a directed link pay their bytes that
// many times over (recursive doubling with partners 2 or 4 apart on a ring).
//
// What it leaves out (the report's explanations name them): the barrier
// before each timed call releasing ranks apart, the driver's extra interrupt
// round trip per multi-packet message, contention between different phases
// in flight at once, and the host's combine time (not charged: compute
// scale 0).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <cmath>
#include <utility>
#include <vector>

#include "isvp/collective_schedule.h"
#include "isvp/network_topology.h"
#include "isvp/packet_format.h"
#include "isvp/routing_policy.h"

namespace isvp::loggp {

/// How the host hands a message to the device [driver.send_path].
enum class SendPath : std::uint8_t { Fetch, Prefetch, Pio, Auto };

/// The platform parameters the LogGP parameters derive from (defaults: the
/// default platform). Names in brackets are the platform parameters.
struct PlatformFigures {
    SendPath send_path = SendPath::Auto;       ///< [driver.send_path]
    unsigned pio_max_bytes = 256;              ///< largest message data sent by PIO [driver.pio_max_bytes]
    bool poll = true;                          ///< completions polled, not interrupts [driver.completion]
    double poll_interval_ns = 50.0;            ///< one turn of the poll loop [driver.poll_interval_ns]
    unsigned pio_header_bytes = 24;            ///< a PIO send's 8-byte header and 16-byte envelope
    double host_post_ns = 50.0;                ///< posted MMIO write cost on the host [host.mmio_write_ns]
    double pcie_latency_ns = 900.0;            ///< one-way device <-> host memory [pcie.latency_ns]
    double pcie_dma_gbytes_per_s = 12.96;      ///< DMA payload rate, GB/s [pcie.*: TLP rate x MPS share]
    double router_clock_mhz = 250.0;           ///< [router.clock_mhz]
    unsigned router_pipeline_cycles = 4;       ///< [router.pipeline_cycles]
    double link_latency_ns = 440.0;            ///< [aurora.latency_ns]
    double link_data_rate_gbps = 100.0;        ///< lanes x lane rate x 64/66 [aurora.lanes, aurora.lane_rate_gbps]
    double link_frame_overhead_bytes = 42.41;  ///< per Aurora frame [aurora.peak_payload_gbps, max_frame_bytes]
    unsigned link_max_frame_bytes = 992;       ///< [aurora.max_frame_bytes]
    unsigned packet_payload_bytes = 1024;      ///< network packet payload [qdma.packet_payload_bytes]
    unsigned packet_header_bytes = kNetworkPacketOverhead;  ///< network + replicated processor header
    unsigned message_envelope_bytes = 16;                   ///< point-to-point and collective envelopes
    double engine_clock_mhz = 250.0;                        ///< [collective.clock_mhz]
    unsigned engine_phits_per_cycle = 2;  ///< engine output width, 32-byte phits [collective.phits_per_cycle]
    double aglu_clock_mhz = 250.0;        ///< [aglu.clock_mhz]
    unsigned aglu_pipeline_stages = 4;    ///< [aglu.pipeline_stages]
    unsigned aglu_vector_bytes = 32;      ///< one 256-bit vector per cycle
    unsigned cgr_aglus = 6;               ///< AgLUs of a collective's CGR unit [collective.cgr_aglus]
    /// Fixed device time of a message not covered by the terms above: the
    /// completion entry's and MSI's TLPs, small TLP and packet serialisation,
    /// QDMA stream beats. Calibrated once: ping-pong 8 B one-way 6.001 µs =
    /// 5.931 µs of named terms + this.
    double device_fixed_ns = 70.0;
};

/// LogGP parameters, µs and µs per byte.
struct Parameters {
    double o_s = 0;             ///< send overhead by DMA (fetch or prefetch): the call to the packet on the wire
    double o_s_pio_line = 0;    ///< PIO send: per 64-byte line of header + envelope + data (a posted store)
    double o_s_pio_fixed = 0;   ///< PIO send: the stores crossing PCIe
    double pio_max_bytes = -1;  ///< messages with at most this much data go by PIO (-1: none do)
    double pio_header_bytes = 0;  ///< bytes a PIO send writes besides the data
    double o_r = 0;             ///< receive overhead (packet at the device to the host woken)
    double g = 0;               ///< gap between consecutive messages of one host
    double L_router = 0;        ///< the source router's pipeline (the first term of L(h))
    double hop = 0;             ///< per hop: link + router + small-packet serialisation
    double G = 0;               ///< per byte through the slowest stage of a point-to-point message
    double G_link = 0;          ///< per payload byte on an Aurora link (1 KiB packets)
    double G_pcie = 0;          ///< per byte of host <-> device DMA
    double G_engine = 0;        ///< per byte through the collective engine's output port
    double G_aglu = 0;          ///< per byte of one transfer reduced (its chunks use phits_per_cycle AgLUs)
    double G_cgr = 0;           ///< per byte reduced by all of a switch's CGR AgLUs together
    double aglu_latency = 0;    ///< AgLU pipeline fill
    double device_fixed = 0;    ///< see PlatformFigures::device_fixed_ns
    double packet_bytes = 0;    ///< network packet payload
    double envelope_bytes = 0;  ///< bytes a message carries besides the data

    /// L(h): a small packet over h hops (router, then h x (link + router)).
    double L(unsigned hops) const { return L_router + hops * hop; }
    /// Whether a message of k data bytes leaves by PIO.
    bool by_pio(double bytes) const { return bytes <= pio_max_bytes; }
    /// o_s of a message of k data bytes (by PIO or by DMA, as the driver picks).
    double send_overhead(double bytes) const {
        if (!by_pio(bytes)) return o_s;
        return std::ceil((pio_header_bytes + bytes) / 64.0) * o_s_pio_line + o_s_pio_fixed;
    }
    /// o_s of a message of k bytes plus its bytes read over PCIe (none by PIO:
    /// the stores carry them), `dma_bytes` of them before the first packet.
    double send_cost(double bytes, double dma_bytes) const {
        return by_pio(bytes) ? send_overhead(bytes) : o_s + dma_bytes * G_pcie;
    }
    /// One point-to-point message of k bytes over h hops, host to host.
    double message(double bytes, unsigned hops) const {
        return send_overhead(bytes) + L(hops) + (bytes + envelope_bytes) * G + o_r + device_fixed;
    }
};

Parameters derive(const PlatformFigures& figures);

/// Which implementation of a collective.
enum class Path : std::uint8_t {
    Software,                ///< host software over point-to-point messages
    OffloadStreamed,         ///< in-switch, packets pipelined through the steps (the design)
    OffloadStoreAndForward,  ///< in-switch, each step's transfer whole before the next step
    /// Switch-resident engines of an indirect network (collective.placement
    /// = switch): the group's aggregation tree, hosts -> leaf -> ... -> root
    /// vertex and back down, packets pipelined through the levels. For the
    /// collectives the tree does not run (tree_supports), OffloadStreamed.
    OffloadTree,
};

/// The model of one platform: parameters and the network the ranks sit on
/// (rank r on host r unless a placement says otherwise). Hops between ranks are the fewest switch-to-switch
/// cables between their switches (the routes of the torus's DOR and of the
/// fat tree's up/down are minimal).
class Model {
  public:
    /// `ranks` <= the network's hosts; `routing` routes over `topology` (link
    /// sharing follows its routes). Throws std::invalid_argument otherwise.
    /// `placement`: the host of each rank (`--map-by`/`--rankfile`,
    /// RankPlacement::nodes); empty: rank r on host r.
    Model(const Parameters& parameters, const NetworkTopology& topology, std::shared_ptr<const RoutingPolicy> routing,
          int ranks, std::vector<std::uint16_t> placement = {});
    /// The same on a torus with dimension-order routing.
    Model(const Parameters& parameters, const TorusShape& shape, int ranks);

    const Parameters& parameters() const { return parameters_; }
    int ranks() const { return ranks_; }

    /// Latency in µs of `collective` with `bytes` per rank (per rank block for
    /// Scatter, Gather, Allgather, Reduce_scatter; the vector otherwise;
    /// ignored for Barrier), root 0, the bench's int32 SUM.
    double latency_us(Opcode collective, std::uint64_t bytes, Path path) const;

    /// Per rank, when `collective` (an offloaded path: OffloadStreamed,
    /// OffloadStoreAndForward or OffloadTree) ends at its host, µs: the
    /// latency is the latest of them. Ranks whose steps end earlier (a
    /// hypercube across unequal leaves) finish earlier.
    std::vector<double> rank_finish_us(Opcode collective, std::uint64_t bytes, Path path) const;

    /// The NIC engines' hypercube evaluation (OffloadStreamed) of a
    /// collective an engine starts by itself: rank r's request is in its
    /// engine at start[r] µs (no host send), its result goes to the host.
    double chained_latency_us(Opcode collective, std::uint64_t bytes, const std::vector<double>& start) const;

    /// Hops between two ranks.
    unsigned hops(int a, int b) const;

    /// Per transfer (from, to) of a collective's schedules: how many transfers
    /// of the same phase (same from XOR to: the hypercube and tree step) share
    /// the busiest directed link of its dimension-order route. Its bytes take
    /// that many times longer on the link.
    using LinkSharing = std::map<std::pair<int, int>, unsigned>;

  private:
    LinkSharing link_sharing(const std::vector<Schedule>& schedules) const;
    double software(Opcode collective, double block_bytes) const;
    /// `per_rank`: when given, each rank's finish (the latency is their max).
    /// `start`: when given, rank r's request is in its engine at start[r]
    /// (no host send: a collective the engine chains).
    double offload(Opcode collective, double block_bytes, bool streamed, std::vector<double>* per_rank = nullptr,
                   const std::vector<double>* start = nullptr) const;
    double offload_tree(Opcode collective, double block_bytes, std::vector<double>* per_rank = nullptr) const;
    /// Cables between two switches (breadth-first searches cached).
    unsigned switch_hops(unsigned from, unsigned to) const;

    Parameters parameters_;
    NetworkTopology topology_;
    std::shared_ptr<const RoutingPolicy> routing_;  ///< routes over topology_
    int ranks_;
    std::vector<std::uint16_t> placement_;  ///< host of each rank (empty: rank r on host r)
    unsigned host_of(int rank) const {
        return placement_.empty() ? static_cast<unsigned>(rank) : placement_[static_cast<std::size_t>(rank)];
    }
    /// [rank][switch]: cables from the rank's switch to every switch (one
    /// breadth-first search per rank at construction; hops() is a lookup).
    std::vector<std::vector<unsigned>> distances_;
    mutable std::map<unsigned, std::vector<unsigned>> switch_distances_;  ///< switch -> its distances
};

/// Why simulation and model differ, when they differ by more than
/// `threshold` (relative to the model); empty when they agree. Derived from
/// which of the model's assumptions the row violates (see the header
/// comment): `simulated_us` is the measured latency, `release_skew_us` how
/// far apart (on average) the barrier before each call released the ranks,
/// as measured (negative: not measured). `offload_path`: the evaluation the
/// offloaded figure is compared with (OffloadTree for switch-resident engines).
std::string explain_difference(const Model& model, Opcode collective, std::uint64_t bytes, bool offload,
                               double simulated_us, double release_skew_us = -1, double threshold = 0.25,
                               Path offload_path = Path::OffloadStreamed);

}  // namespace isvp::loggp
