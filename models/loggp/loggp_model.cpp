#include "isvp/loggp_model.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "isvp/aggregation_tree.h"
#include "isvp/collective_schedule.h"
#include "isvp/dimension_order_routing.h"
#include "isvp/switch_tree.h"

namespace isvp::loggp {
namespace {

constexpr double kNsPerUs = 1000.0;

bool is_reduction(Opcode collective) {
    return collective == Opcode::Reduce || collective == Opcode::Allreduce || collective == Opcode::ReduceScatter;
}

bool per_rank_blocks(Opcode collective) {
    return collective == Opcode::Scatter || collective == Opcode::Gather || collective == Opcode::Allgather ||
           collective == Opcode::ReduceScatter || collective == Opcode::Alltoall;
}

double transfer_bytes(const Transfer& transfer, double block_bytes) {
    double blocks = 0;
    for (const BlockSpan& span : transfer.spans) blocks += span.count;
    return blocks * block_bytes;
}

/// Bytes a rank hands its switch and gets back (docs/COLLECTIVES.md).
struct HostBytes {
    double in = 0;
    double out = 0;
};

HostBytes host_bytes(Opcode collective, int rank, int size, double block) {
    const bool root = rank == 0;
    const double all = block * size;
    switch (collective) {
        case Opcode::Bcast:
            return {root ? block : 0, block};
        case Opcode::Reduce:
            return {block, root ? block : 0};
        case Opcode::Allreduce:
            return {block, block};
        case Opcode::Scatter:
            return {root ? all : 0, block};
        case Opcode::Gather:
            return {block, root ? all : 0};
        case Opcode::Allgather:
            return {block, all};
        case Opcode::ReduceScatter:
            return {all, block};
        case Opcode::Alltoall:
            return {all, all};
        case Opcode::Barrier:
        case Opcode::Send:
        case Opcode::Stream:
            break;
    }
    return {};
}

/// Runs every rank's schedule under LogGP rules. `send` gives a transfer's
/// (departure -> arrival) given the sender's state; `receive` applies an
/// arrival to the receiver's clock. Ranks are processed in rounds until all
/// finish; messages between a pair arrive in order (FIFO per pair).
struct Agent {
    double clock = 0;          ///< when this rank (or switch) is ready for its next step
    double port_free = 0;      ///< when its output can take the next transfer's bytes
    std::size_t step = 0;      ///< next step
    bool sent = false;         ///< the current step's send is done
    double out_bytes = 0;      ///< bytes sent in all steps (streamed drain)
    double in_bytes = 0;       ///< bytes received in all steps (streamed drain)
    double combine_bytes = 0;  ///< bytes combined (streamed drain)
};

template <typename Send, typename Receive>
void run_schedules(const std::vector<Schedule>& schedules, std::vector<Agent>& agents, double block_bytes, Send send,
                   Receive receive) {
    std::map<std::pair<int, int>, std::deque<double>> in_flight;
    const int size = static_cast<int>(schedules.size());
    for (bool progress = true; progress;) {
        progress = false;
        for (int r = 0; r < size; ++r) {
            Agent& me = agents[static_cast<std::size_t>(r)];
            const auto& steps = schedules[static_cast<std::size_t>(r)].steps;
            while (me.step < steps.size()) {
                const Step& step = steps[me.step];
                if (step.send && !me.sent) {
                    const double bytes = transfer_bytes(*step.send, block_bytes);
                    in_flight[{r, step.send->peer}].push_back(send(r, step.send->peer, bytes, me));
                    me.out_bytes += bytes;
                    me.sent = true;
                    progress = true;
                }
                if (step.receive) {
                    auto& queue = in_flight[{step.receive->peer, r}];
                    if (queue.empty()) break;  // the peer has not sent yet
                    const double bytes = transfer_bytes(*step.receive, block_bytes);
                    receive(bytes, step.apply != Apply::Copy, queue.front(), me);
                    me.in_bytes += bytes;
                    if (step.apply != Apply::Copy) me.combine_bytes += bytes;
                    queue.pop_front();
                }
                ++me.step;
                me.sent = false;
                progress = true;
            }
        }
    }
    for (int r = 0; r < size; ++r)
        if (agents[static_cast<std::size_t>(r)].step < schedules[static_cast<std::size_t>(r)].steps.size())
            throw std::logic_error("loggp: schedules of " + std::to_string(size) + " ranks do not complete");
}

std::vector<Schedule> all_schedules(Opcode collective, int size, Fold fold) {
    std::vector<Schedule> schedules;
    schedules.reserve(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
        schedules.push_back(make_schedule(collective, default_algorithm(collective), size, r, 0, fold));
    return schedules;
}

std::string format_us(double us) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(us < 100 ? 2 : 0) << us << " µs";
    return out.str();
}

}  // namespace

Parameters derive(const PlatformFigures& f) {
    Parameters p;
    const double router_ns = f.router_pipeline_cycles * 1000.0 / f.router_clock_mhz;
    const double pcie = f.pcie_latency_ns;
    // Doorbell write posted, crossing PCIe; descriptor fetch (not with
    // standing, prefetched descriptors) and data fetch are each a read round
    // trip.
    const bool prefetched = f.send_path == SendPath::Prefetch || f.send_path == SendPath::Auto;
    p.o_s = (f.host_post_ns + pcie + (prefetched ? 0 : 2 * pcie) + 2 * pcie) / kNsPerUs;
    // PIO: header, envelope and data as posted write-combined stores, one per
    // 64-byte line, crossing PCIe once; no fetch.
    if (f.send_path == SendPath::Pio || f.send_path == SendPath::Auto) {
        p.pio_max_bytes = f.pio_max_bytes;
        p.o_s_pio_line = f.host_post_ns / kNsPerUs;
        p.o_s_pio_fixed = pcie / kNsPerUs;
        p.pio_header_bytes = f.pio_header_bytes;
    }
    // The completion entry lands, then the MSI behind it or the poll loop's
    // next turn sees it.
    p.o_r = (pcie + (f.poll ? f.poll_interval_ns : 0)) / kNsPerUs;
    p.g = f.host_post_ns / kNsPerUs;
    p.L_router = router_ns / kNsPerUs;
    // A small packet: one frame of header bytes plus a few data bytes.
    const double small_packet = f.packet_header_bytes + f.message_envelope_bytes + 8;
    const double small_serialisation_ns = (small_packet + f.link_frame_overhead_bytes) * 8 / f.link_data_rate_gbps;
    p.hop = (f.link_latency_ns + router_ns + small_serialisation_ns) / kNsPerUs;
    const double packet = f.packet_payload_bytes + f.packet_header_bytes;
    const double frames = std::ceil(packet / f.link_max_frame_bytes);
    const double line_bytes = packet + frames * f.link_frame_overhead_bytes;
    p.G_link = line_bytes * 8 / f.link_data_rate_gbps / f.packet_payload_bytes / kNsPerUs;
    p.G_pcie = 1.0 / f.pcie_dma_gbytes_per_s / kNsPerUs;
    p.G = std::max(p.G_link, p.G_pcie);
    p.G_engine = 1000.0 / (f.engine_clock_mhz * f.engine_phits_per_cycle * 32.0) / kNsPerUs;
    // A chunk is combined by up to phits_per_cycle of the CGR's AgLUs, one
    // vector per cycle each; all cgr_aglus serve the collective's steps.
    const unsigned chunk_aglus = std::max(1u, std::min(f.engine_phits_per_cycle, f.cgr_aglus));
    p.G_aglu = 1000.0 / (f.aglu_clock_mhz * f.aglu_vector_bytes * chunk_aglus) / kNsPerUs;
    p.G_cgr = 1000.0 / (f.aglu_clock_mhz * f.aglu_vector_bytes * std::max(1u, f.cgr_aglus)) / kNsPerUs;
    p.aglu_latency = f.aglu_pipeline_stages / f.aglu_clock_mhz;
    p.device_fixed = f.device_fixed_ns / kNsPerUs;
    p.packet_bytes = f.packet_payload_bytes;
    p.envelope_bytes = f.message_envelope_bytes;
    return p;
}

Model::Model(const Parameters& parameters, const NetworkTopology& topology,
             std::shared_ptr<const RoutingPolicy> routing, int ranks, std::vector<std::uint16_t> placement)
    : parameters_(parameters),
      topology_(topology),
      routing_(std::move(routing)),
      ranks_(ranks),
      placement_(std::move(placement)) {
    if (ranks < 1 || static_cast<unsigned>(ranks) > topology_.hosts())
        throw std::invalid_argument("loggp: " + std::to_string(ranks) + " ranks do not fit the " +
                                    topology_.description() + " network of " + std::to_string(topology_.hosts()) +
                                    " hosts");
    if (!placement_.empty() && placement_.size() != static_cast<std::size_t>(ranks))
        throw std::invalid_argument("loggp: a placement of " + std::to_string(placement_.size()) + " ranks for " +
                                    std::to_string(ranks));
    for (const std::uint16_t host : placement_)
        if (host >= topology_.hosts())
            throw std::invalid_argument("loggp: placement names host " + std::to_string(host) + " of " +
                                        topology_.description() + ", which has " + std::to_string(topology_.hosts()));
    std::map<unsigned, std::size_t> searched;  // switch -> rank whose row holds its distances
    distances_.resize(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        const unsigned at = topology_.host(host_of(r)).switch_index;
        const auto [known, fresh] = searched.emplace(at, static_cast<std::size_t>(r));
        distances_[static_cast<std::size_t>(r)] = fresh ? topology_.switch_distances(at) : distances_[known->second];
    }
}

Model::Model(const Parameters& parameters, const TorusShape& shape, int ranks)
    : Model(parameters, torus_network(shape), std::make_shared<DimensionOrderRouting>(TorusTopology(shape), 2), ranks) {
}

unsigned Model::hops(int a, int b) const {
    return distances_.at(static_cast<std::size_t>(a)).at(topology_.host(host_of(b)).switch_index);
}

Model::LinkSharing Model::link_sharing(const std::vector<Schedule>& schedules) const {
    // Directed links (switch, port) of the route from `from` to `to`.
    const auto route = [&](int from, int to) {
        std::vector<std::pair<std::uint32_t, unsigned>> links;
        const HostPort& start = topology_.host(host_of(from));
        std::uint32_t at = start.switch_index;
        unsigned in_port = start.port, in_vc = 0;
        for (unsigned hop = 0; hop <= topology_.switches(); ++hop) {
            const auto decision = routing_->route(at, in_port, in_vc, host_of(to));
            if (!decision || topology_.is_host_port(at, decision->port)) break;
            links.emplace_back(at, decision->port);
            const PortPeer& next = topology_.peer(at, decision->port);
            at = next.index;
            in_port = next.port;
            in_vc = decision->vc;
        }
        return links;
    };
    std::map<std::pair<int, int>, std::vector<std::pair<std::uint32_t, unsigned>>> routes;
    std::map<int, std::map<std::pair<std::uint32_t, unsigned>, unsigned>> use;  // phase -> link -> transfers
    for (std::size_t r = 0; r < schedules.size(); ++r)
        for (const Step& step : schedules[r].steps) {
            if (!step.send) continue;
            const int from = static_cast<int>(r), to = step.send->peer;
            if (!routes.count({from, to})) routes[{from, to}] = route(from, to);
            for (const auto& link : routes[{from, to}]) ++use[from ^ to][link];
        }
    LinkSharing sharing;
    for (const auto& [pair, links] : routes) {
        unsigned most = 1;
        for (const auto& link : links) most = std::max(most, use[pair.first ^ pair.second][link]);
        sharing[pair] = most;
    }
    return sharing;
}

double Model::latency_us(Opcode collective, std::uint64_t bytes, Path path) const {
    if (collective == Opcode::Send) throw std::invalid_argument("loggp: send is not a collective");
    const double block = collective == Opcode::Barrier ? 0.0 : static_cast<double>(bytes);
    switch (path) {
        case Path::Software:
            return software(collective, block);
        case Path::OffloadStreamed:
            return offload(collective, block, true);
        case Path::OffloadStoreAndForward:
            return offload(collective, block, false);
        case Path::OffloadTree:
            return tree_supports(collective) ? offload_tree(collective, block) : offload(collective, block, true);
    }
    return 0;
}

// Host software: every step is a point-to-point message. A send costs the
// host g; the device starts its bytes when the previous message's bytes are
// out (gap max(g, kG)); the receiver has it o_s + L(h) + kG + o_r after the
// departure.
double Model::software(Opcode collective, double block_bytes) const {
    const Parameters& p = parameters_;
    const auto schedules = all_schedules(collective, ranks_, Fold::Pairwise);
    const LinkSharing sharing = link_sharing(schedules);
    std::vector<Agent> agents(static_cast<std::size_t>(ranks_));
    run_schedules(
        schedules, agents, block_bytes,
        [&](int from, int to, double bytes, Agent& me) {
            const double depart = std::max(me.clock, me.port_free);
            const double wire = (bytes + p.envelope_bytes) * p.G;
            me.port_free = depart + std::max(p.g, wire);
            me.clock += p.g;
            return depart + p.message(bytes, hops(from, to)) + wire * (sharing.at({from, to}) - 1);
        },
        [&](double, bool, double arrival, Agent& me) { me.clock = std::max(me.clock, arrival); });
    double latest = 0;
    for (const Agent& agent : agents) latest = std::max(latest, agent.clock);
    return latest;
}

// In-switch: the host pays o_s and its request bytes over PCIe once, then
// result bytes over PCIe and o_r once; in between only switches work. A step
// costs L(h) plus, store-and-forward, the whole transfer at the link's G;
// reductions add the AgLU. Streamed, the steps carry one packet each (the
// pipeline fill) and the bytes are paid once at the slowest stage of the
// busiest switch: its output or input port (all steps' sends or receives:
// router inject and eject are as wide as the engine), its CGR AgLUs (all its
// combines; one transfer's chunks get phits_per_cycle of them), a link (the largest transfer times the transfers of its
// phase sharing that link) or PCIe (request or result).
std::vector<double> Model::rank_finish_us(Opcode collective, std::uint64_t bytes, Path path) const {
    const double block = collective == Opcode::Barrier ? 0.0 : static_cast<double>(bytes);
    std::vector<double> per_rank;
    if (path == Path::OffloadTree && tree_supports(collective))
        offload_tree(collective, block, &per_rank);
    else if (path == Path::OffloadStreamed || path == Path::OffloadTree)
        offload(collective, block, true, &per_rank);
    else if (path == Path::OffloadStoreAndForward)
        offload(collective, block, false, &per_rank);
    else
        throw std::invalid_argument("loggp: rank finish times of the offloaded paths only");
    return per_rank;
}

double Model::chained_latency_us(Opcode collective, std::uint64_t bytes, const std::vector<double>& start) const {
    if (start.size() != static_cast<std::size_t>(ranks_))
        throw std::invalid_argument("loggp: " + std::to_string(start.size()) + " start times for " +
                                    std::to_string(ranks_) + " ranks");
    return offload(collective, collective == Opcode::Barrier ? 0.0 : static_cast<double>(bytes), true, nullptr, &start);
}

double Model::offload(Opcode collective, double block_bytes, bool streamed, std::vector<double>* per_rank,
                      const std::vector<double>* start) const {
    const Parameters& p = parameters_;
    const auto schedules = all_schedules(collective, ranks_, Fold::Hypercube);
    const LinkSharing sharing = link_sharing(schedules);
    std::vector<Agent> agents(static_cast<std::size_t>(ranks_));
    const auto fill = [&](double bytes) { return streamed ? std::min(bytes, p.packet_bytes) : bytes; };
    double largest_transfer = 0, largest_combine = 0;
    for (int r = 0; r < ranks_; ++r) {
        const HostBytes host = host_bytes(collective, r, ranks_, block_bytes);
        agents[static_cast<std::size_t>(r)].clock =
            start ? (*start)[static_cast<std::size_t>(r)] : p.send_cost(host.in, fill(host.in));
    }
    run_schedules(
        schedules, agents, block_bytes,
        [&](int from, int to, double bytes, Agent& me) {
            const unsigned shared = sharing.at({from, to});
            largest_transfer = std::max(largest_transfer, bytes * shared);
            const double depart = std::max(me.clock, me.port_free);
            me.port_free = depart + fill(bytes) * p.G_link;
            return depart + p.L(hops(from, to)) + fill(bytes) * p.G_link * shared;
        },
        [&](double bytes, bool combine, double arrival, Agent& me) {
            me.clock = std::max(me.clock, arrival);
            if (combine) {
                me.clock += p.aglu_latency + fill(bytes) * p.G_aglu;
                largest_combine = std::max(largest_combine, bytes);
            }
        });
    double latest = 0, drain = 0;
    if (per_rank) per_rank->assign(static_cast<std::size_t>(ranks_), 0.0);
    for (int r = 0; r < ranks_; ++r) {
        const Agent& agent = agents[static_cast<std::size_t>(r)];
        const HostBytes host = host_bytes(collective, r, ranks_, block_bytes);
        const double finish = agent.clock + fill(host.out) * p.G_pcie + p.o_r + p.device_fixed;
        if (per_rank) (*per_rank)[static_cast<std::size_t>(r)] = finish;
        latest = std::max(latest, finish);
        if (streamed) {
            const double slowest = std::max({agent.out_bytes * p.G_engine, agent.in_bytes * p.G_engine,
                                             agent.combine_bytes * p.G_cgr, host.in * p.G_pcie, host.out * p.G_pcie});
            drain = std::max(drain, slowest);
        }
    }
    if (streamed) drain = std::max({drain, largest_transfer * p.G_link, largest_combine * p.G_aglu});
    // The fill already carried one packet through each stage.
    const double extra = std::max(0.0, drain - std::min(drain, p.packet_bytes * p.G));
    if (per_rank)
        for (double& finish : *per_rank) finish += extra;
    return latest + extra;
}

unsigned Model::switch_hops(unsigned from, unsigned to) const {
    auto found = switch_distances_.find(from);
    if (found == switch_distances_.end())
        found = switch_distances_.emplace(from, topology_.switch_distances(from)).first;
    return found->second.at(to);
}

// The switches' aggregation tree: participants are the member hosts (rank r
// on host_of(r)) and the combining switches' engines, each running its
// make_tree_schedule steps; see the header comment for the rules.
double Model::offload_tree(Opcode collective, double block_bytes, std::vector<double>* per_rank) const {
    const Parameters& p = parameters_;
    std::vector<unsigned> members(static_cast<std::size_t>(ranks_));
    std::map<unsigned, int> rank_of;  // member host -> its rank
    for (int r = 0; r < ranks_; ++r) {
        members[static_cast<std::size_t>(r)] = host_of(r);
        rank_of[host_of(r)] = r;
    }
    const AggregationTree tree = plan_aggregation_tree(topology_, members);
    const std::map<int, TreeRole> roles =
        tree_roles(topology_, tree,
                   collective == Opcode::Bcast || collective == Opcode::Reduce || collective == Opcode::Scatter ||
                           collective == Opcode::Gather
                       ? static_cast<int>(host_of(0))
                       : -1,
                   rank_of);
    // Participants in a dense order by address: the member hosts, then vertices.
    std::map<int, int> index_of;
    std::vector<int> address_of;
    for (const auto& [address, role] : roles) {
        (void)role;
        index_of[address] = static_cast<int>(address_of.size());
        address_of.push_back(address);
    }
    const auto switch_of = [&](int address) {
        const auto hosts = static_cast<int>(topology_.hosts());
        return address < hosts ? topology_.host(static_cast<unsigned>(address)).switch_index
                               : static_cast<unsigned>(address - hosts);
    };
    std::vector<Schedule> schedules;
    for (const int address : address_of) {
        Schedule schedule = make_tree_schedule(collective, roles.at(address));
        for (Step& step : schedule.steps) {
            if (step.send) step.send->peer = index_of.at(step.send->peer);
            if (step.receive) step.receive->peer = index_of.at(step.receive->peer);
        }
        schedules.push_back(std::move(schedule));
    }
    const auto is_host = [&](int index) {
        return address_of[static_cast<std::size_t>(index)] < static_cast<int>(topology_.hosts());
    };
    const auto rank_at = [&](std::size_t index) { return rank_of.at(static_cast<unsigned>(address_of[index])); };
    const auto fill = [&](double bytes) { return std::min(bytes, p.packet_bytes); };
    std::vector<Agent> agents(schedules.size());
    for (std::size_t i = 0; i < agents.size(); ++i)
        if (is_host(static_cast<int>(i))) {
            const double in = host_bytes(collective, rank_at(i), ranks_, block_bytes).in;
            agents[i].clock = p.send_cost(in, fill(in));
        }
    run_schedules(
        schedules, agents, block_bytes,
        [&](int from, int to, double bytes, Agent& me) {
            const unsigned hops = switch_hops(switch_of(address_of[static_cast<std::size_t>(from)]),
                                              switch_of(address_of[static_cast<std::size_t>(to)]));
            const double depart = std::max(me.clock, me.port_free);
            me.port_free = depart + fill(bytes) * (is_host(from) ? p.G_link : p.G_engine);
            return depart + p.L(hops) + fill(bytes) * p.G_link;
        },
        [&](double bytes, bool combine, double arrival, Agent& me) {
            me.clock = std::max(me.clock, arrival);
            if (combine) me.clock += p.aglu_latency + fill(bytes) * p.G_aglu;
        });
    double latest = 0, drain = 0;
    if (per_rank) per_rank->assign(static_cast<std::size_t>(ranks_), 0.0);
    for (std::size_t i = 0; i < agents.size(); ++i) {
        const Agent& agent = agents[i];
        if (is_host(static_cast<int>(i))) {
            const HostBytes host = host_bytes(collective, rank_at(i), ranks_, block_bytes);
            const double finish = agent.clock + fill(host.out) * p.G_pcie + p.o_r + p.device_fixed;
            if (per_rank) (*per_rank)[static_cast<std::size_t>(rank_at(i))] = finish;
            latest = std::max(latest, finish);
            drain = std::max({drain, host.in * p.G_pcie, host.out * p.G_pcie, agent.out_bytes * p.G_link});
        } else {
            drain = std::max({drain, agent.out_bytes * p.G_engine, agent.in_bytes * p.G_engine,
                              agent.combine_bytes * p.G_cgr, block_bytes * p.G_link});
        }
    }
    // The fill already carried one packet through each stage.
    const double extra = std::max(0.0, drain - std::min(drain, p.packet_bytes * p.G));
    if (per_rank)
        for (double& finish : *per_rank) finish += extra;
    return latest + extra;
}

std::string explain_difference(const Model& model, Opcode collective, std::uint64_t bytes, bool offload,
                               double simulated_us, double release_skew_us, double threshold, Path offload_path) {
    const Parameters& p = model.parameters();
    const double modelled = model.latency_us(collective, bytes, offload ? offload_path : Path::Software);
    if (modelled <= 0 || std::abs(simulated_us - modelled) <= threshold * modelled) return {};
    const double gap = simulated_us - modelled;
    const double block = collective == Opcode::Barrier ? 0.0 : static_cast<double>(bytes);
    const double skew = std::max(0.0, release_skew_us);
    const std::string skew_note =
        release_skew_us >= 0
            ? "the barrier before each timed call released the ranks apart (measured: the spread of their start "
              "times, release_skew_us in the CSV) and the max over ranks includes that skew (OSU method); the "
              "model starts all ranks together"
            : "the barrier before each timed call releases ranks apart (a rank leaves when its last partner's "
              "message arrives) and the max over ranks includes that skew (OSU method); the model starts all "
              "ranks together";
    // What the skew does not account for must have another cause.
    const bool skew_explains = gap > 0 && (release_skew_us < 0 || gap <= skew + threshold * modelled);
    std::ostringstream why;
    if (offload) {
        const double whole = model.latency_us(collective, bytes, Path::OffloadStoreAndForward);
        if (block > p.packet_bytes && std::abs(simulated_us - whole) <= threshold * whole + skew) {
            why << "as slow as the store-and-forward evaluation (loggp_offload_store_and_forward_us, within 25 %), "
                   "where each step's whole transfer crosses before the next step starts: the steps gain little "
                   "pipelining here, while the model assumes packets stream through all steps at the busiest "
                   "stage's rate";
            return why.str();
        }
        if (skew_explains && block <= p.packet_bytes) return skew_note;
        if (gap > 0 && simulated_us > whole) {
            why << "slower than even the store-and-forward evaluation: transfers of different steps or ranks in "
                   "flight at once on the same links or switch ports (the model charges link sharing within "
                   "one step only), or engine work per step the model does not count";
            return why.str();
        }
        if (skew_explains) return skew_note;
        if (gap > 0) {
            why << "between the streamed and the store-and-forward evaluations: the stream does not reach the "
                   "rate of the busiest stage the model charges (engine port, CGR AgLUs, link or PCIe at full "
                   "rate); per-peer receive windows and credit returns (collective.window_packets) and sharing "
                   "of stages between steps in flight are not modelled";
            return why.str();
        }
        why << "the simulation overlaps more than the model assumes (the model serialises each switch's "
               "steps)";
        return why.str();
    }
    const auto block_count = per_rank_blocks(collective) ? static_cast<double>(model.ranks()) : 1.0;
    const double largest = block * block_count + p.envelope_bytes;  // the largest message on the wire
    const std::string interrupts =
        "multi-packet messages: the driver is woken by the first packet's completion and re-arms the "
        "interrupt (a posted write, then the MSI: 2 × o_r ≈ " +
        format_us(2 * p.o_r) +
        ") while later packets still arrive, an interrupt round trip per wake-up on every step of the critical "
        "path that LogGP's single o_r per message leaves out";
    if (skew_explains && largest > p.packet_bytes) return skew_note + "; and " + interrupts;
    if (skew_explains) return skew_note;
    if (gap > 0 && largest > p.packet_bytes) {
        if (release_skew_us > 0) return interrupts + "; and " + skew_note;
        return interrupts;
    }
    if (gap > 0) {
        why << skew_note
            << "; the gap is larger than the measured skew, and the rest is not explained by "
               "the model's terms";
        return why.str();
    }
    why << "the simulation overlaps more than the model assumes";
    if (is_reduction(collective)) why << " (messages of different steps in flight at once)";
    return why.str();
}

}  // namespace isvp::loggp
