// CollectiveEngine on a torus: N engines between fake hosts and a
// Fabric. Every host uploads its CT rows and a permuted forwarding
// table through csr, then posts requests on several communicators at once
// (world, even ranks reversed, and rotated prefixes of sizes 1..N-1), every
// collective with int32 SUM (checked exactly) and float64 SUM (identical on
// every rank, close to a plain sum; its digest is printed so two timing
// configurations can be compared), Reduce_scatter with unequal counts, plus
// error paths and Send pass-through.
//
// --scenario jobs: two independent jobs (even and odd nodes) with their own
// global ranks, forwarding tables and the same context IDs, whose traffic
// crosses each other's switches; plus a rogue row (one node believes it
// shares a context its peer's switch does not have) and a corrupted packet
// from a host: both dropped and counted (ACCEL_DROPPED), nothing else
// disturbed.
#include <cmath>
#include <cstring>
#include <deque>
#include <algorithm>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "isvp/collective_engine.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;

namespace {

struct Result {
    std::uint8_t context = 0;
    Opcode opcode = Opcode::Send;
    std::uint8_t step = 0;
    std::uint16_t rank = 0;
    std::vector<std::uint8_t> bytes;
};

/// A host stand-in: sends prepared packets to host_in with credits, writes
/// CSRs first, and assembles what comes back on host_out.
class FakeHost : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<FakeHost> tx;
    tlm_utils::simple_target_socket<FakeHost> tx_credit;
    tlm_utils::simple_target_socket<FakeHost> rx;
    tlm_utils::simple_initiator_socket<FakeHost> rx_credit;
    tlm_utils::simple_initiator_socket<FakeHost> csr;

    std::vector<std::pair<std::uint32_t, std::uint32_t>> csr_writes;  ///< (offset, value)
    std::deque<std::vector<std::uint8_t>> packets;                     ///< network packets to send
    std::vector<Result> results;                                       ///< completed messages
    std::uint32_t dropped = 0, errors = 0;                             ///< ACCEL_* read at the end

    explicit FakeHost(sc_core::sc_module_name name) : sc_core::sc_module(name) {
        tx_credit.register_b_transport(this, &FakeHost::on_credit);
        rx.register_b_transport(this, &FakeHost::on_rx);
        SC_HAS_PROCESS(FakeHost);
        SC_THREAD(run);
    }

    std::uint32_t read_csr(std::uint32_t offset) {
        tlm::tlm_generic_payload p;
        std::uint32_t v = 0;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        p.set_command(tlm::TLM_READ_COMMAND);
        p.set_address(offset);
        p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
        p.set_data_length(4);
        csr->b_transport(p, d);
        return v;
    }

  private:
    void write_csr(std::uint32_t offset, std::uint32_t value) {
        tlm::tlm_generic_payload p;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        p.set_command(tlm::TLM_WRITE_COMMAND);
        p.set_address(offset);
        p.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        p.set_data_length(4);
        csr->b_transport(p, d);
    }
    void run() {
        CreditMessage grant;
        grant.send(rx_credit, 0, 1u << 20, sc_core::SC_ZERO_TIME);
        for (const auto& [offset, value] : csr_writes) write_csr(offset, value);
        wait(10, sc_core::SC_NS);
        const sc_core::sc_time cycle(4, sc_core::SC_NS);
        while (!packets.empty()) {
            std::vector<std::uint8_t>& bytes = packets.front();
            const std::uint32_t phits = phits_of(static_cast<std::uint32_t>(bytes.size()));
            while (credits_ < phits) wait(credit_event_);
            tlm::tlm_generic_payload* p = pool_.allocate(static_cast<std::uint32_t>(bytes.size()));
            std::memcpy(p->get_data_ptr(), bytes.data(), bytes.size());
            packet_info(*p).tail_after = cycle * ((phits + 1) / 2 - 1);
            credits_ -= phits;
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            tx->b_transport(*p, d);
            p->release();
            packets.pop_front();
            wait(cycle * ((phits + 1) / 2));
        }
    }
    void on_credit(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
        CreditReturn* c = nullptr;
        p.get_extension(c);
        credits_ += c->phits;
        credit_event_.notify(sc_core::SC_ZERO_TIME);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void on_rx(tlm::tlm_generic_payload& p, sc_core::sc_time& d) {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        const auto length = static_cast<std::uint32_t>(p.get_data_length());
        std::string why;
        auto v = NetworkPacketView::parse(p.get_data_ptr(), length, &why);
        credit_.send(rx_credit, 0, phits_of(length), d);
        if (!v) {
            std::cout << "FAIL " << name() << " got a malformed packet: " << why << "\n";
            return;
        }
        const unsigned key = v->network.context_id << 4 | static_cast<unsigned>(v->network.opcode);
        auto& open = open_[key];
        if (open.bytes.empty() && open.received == 0) {
            open.result.context = v->network.context_id;
            open.result.opcode = v->network.opcode;
            open.result.step = v->network.step;
            open.result.rank = v->processor.rank;
            open.result.bytes.assign(v->processor.message_bytes, 0);
            open.bytes = std::vector<std::uint8_t>(1);
        }
        if (v->payload_bytes) std::memcpy(open.result.bytes.data() + v->offset, v->payload, v->payload_bytes);
        open.received += v->payload_bytes;
        if (open.received >= open.result.bytes.size()) {
            results.push_back(std::move(open.result));
            open_.erase(key);
        }
    }
    struct Open {
        Result result;
        std::vector<std::uint8_t> bytes;
        std::uint32_t received = 0;
    };
    std::map<unsigned, Open> open_;
    PacketPool pool_;
    CreditMessage credit_;
    std::uint32_t credits_ = 0;
    sc_core::sc_event credit_event_;
};

struct Communicator {
    std::uint8_t context;
    unsigned job;                   ///< which job's ranks (and forwarding table)
    std::vector<unsigned> members;  ///< comm rank -> global rank of the job
};

struct Call {  ///< one collective on one communicator
    Opcode opcode;
    Datatype type;
    Operation op;
    std::uint32_t count;  ///< elements per block
    int root;
    std::vector<std::uint32_t> counts = {};  ///< Reduce_scatter with unequal counts: per block
};

std::uint32_t rank_int(int call, int rank, std::uint32_t i) { return static_cast<std::uint32_t>(call * 1000003 + rank * 7919 + i * 31 + 1); }
double rank_double(int call, int rank, std::uint32_t i) {
    return 0.1 * (rank + 1) * (i + 1) + 1e-3 / (call + 1) + std::pow(10.0, (rank % 5) - 2) / 3.0;
}

/// Elements per block and the first element index of each block.
std::uint32_t block_count(const Call& c, std::uint32_t block) { return c.counts.empty() ? c.count : c.counts[block]; }
std::uint32_t block_first(const Call& c, std::uint32_t block) {
    if (c.counts.empty()) return block * c.count;
    std::uint32_t first = 0;
    for (std::uint32_t b = 0; b < block; ++b) first += c.counts[b];
    return first;
}

std::vector<std::uint8_t> block_of(const Call& c, int call, int rank, std::uint32_t block) {
    // the contribution of `rank` to block `block` (for per-rank data: rank's data for that block)
    const std::uint32_t count = block_count(c, block), first = block_first(c, block);
    std::vector<std::uint8_t> out(count * element_size(c.type));
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t idx = first + i;
        if (c.type == Datatype::Int32) {
            const std::uint32_t v = rank_int(call, rank, idx);
            std::memcpy(out.data() + 4 * i, &v, 4);
        } else {
            const double v = rank_double(call, rank, idx);
            std::memcpy(out.data() + 8 * i, &v, 8);
        }
    }
    return out;
}

}  // namespace

int sc_main(int argc, char** argv) {
    Parameters parameters;
    AgluConfig::declare(parameters);
    CollectiveConfig::declare(parameters);
    const auto options = testbench::parse_arguments(argc, argv, parameters);
    std::string scenario = "world";
    for (const auto& [name, value] : options)
        if (name == "scenario") scenario = value;
    if (scenario != "world" && scenario != "jobs") {
        std::cout << "collective_tb: --scenario world|jobs, got '" << scenario << "'\n";
        return 2;
    }
    const bool jobs_scenario = scenario == "jobs";
    const FabricConfig fabric_config = FabricConfig::from(parameters);
    const AgluConfig aglu = AgluConfig::from(parameters);
    const CollectiveConfig config = CollectiveConfig::from(parameters);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);

    Fabric fabric("fabric", fabric_config);
    const unsigned n = fabric.nodes();
    std::vector<std::unique_ptr<CollectiveEngine>> engines;
    std::vector<std::unique_ptr<FakeHost>> hosts;
    for (unsigned i = 0; i < n; ++i) {
        engines.push_back(std::make_unique<CollectiveEngine>(("engine" + std::to_string(i)).c_str(),
                                                             static_cast<std::uint16_t>(i), n, aglu, config));
        hosts.push_back(std::make_unique<FakeHost>(("host" + std::to_string(i)).c_str()));
        CollectiveEngine& e = *engines.back();
        FakeHost& h = *hosts.back();
        h.tx.bind(e.host_in);
        e.host_in_credit.bind(h.tx_credit);
        e.host_out.bind(h.rx);
        h.rx_credit.bind(e.host_out_credit);
        h.csr.bind(e.csr);
        e.net_out.bind(fabric.inject(i));
        fabric.inject_credit(i).bind(e.net_out_credit);
        fabric.eject(i).bind(e.net_in);
        e.net_in_credit.bind(fabric.eject_credit(i));
    }
    // Jobs: which node each global rank of a job lives on. "world": one job,
    // global rank g on node (g + 3) mod n (the forwarding table matters).
    // "jobs": two jobs on the even and the odd nodes, with their own global
    // ranks, forwarding tables and the same context IDs; their traffic
    // crosses each other's switches.
    std::vector<std::vector<unsigned>> jobs;
    if (jobs_scenario) {
        jobs.resize(2);
        for (unsigned node = 0; node < n; ++node) jobs[node % 2].push_back(node);
        std::reverse(jobs[1].begin(), jobs[1].end());  // odd job: global rank 0 on the last odd node
    } else {
        jobs.emplace_back();
        for (unsigned g = 0; g < n; ++g) jobs[0].push_back((g + 3) % n);
    }
    std::vector<unsigned> job_of_node(n);
    for (unsigned j = 0; j < jobs.size(); ++j)
        for (const unsigned node : jobs[j]) job_of_node[node] = j;

    // Communicators per job: its world, its even ranks reversed, and rotated
    // prefixes of sizes 1..size-1 (as many as context IDs allow).
    std::vector<Communicator> comms;
    for (unsigned j = 0; j < jobs.size(); ++j) {
        const unsigned size = static_cast<unsigned>(jobs[j].size());
        Communicator world{0, j, {}};
        for (unsigned g = 0; g < size; ++g) world.members.push_back(g);
        comms.push_back(world);
        Communicator even{1, j, {}};
        for (int g = static_cast<int>(size) - 1; g >= 0; --g)
            if (g % 2 == 0) even.members.push_back(static_cast<unsigned>(g));
        comms.push_back(even);
        for (unsigned s = 1; s < size && 1 + s < 30; ++s) {
            Communicator c{static_cast<std::uint8_t>(1 + s), j, {}};
            for (unsigned i = 0; i < s; ++i) c.members.push_back((i + s) % size);
            comms.push_back(c);
        }
    }
    auto node_of = [&](const Communicator& c, std::size_t comm_rank) { return jobs[c.job][c.members[comm_rank]]; };
    const std::uint8_t unknown_context = 31;
    const std::uint8_t rogue_context = 30;  // jobs: a row on one node only

    // CSR uploads: forwarding table and one row per communicator the node is in.
    for (unsigned node = 0; node < n; ++node) {
        FakeHost& h = *hosts[node];
        const std::vector<unsigned>& job = jobs[job_of_node[node]];
        h.csr_writes.emplace_back(regmap::FORWARD_INDEX, 0);
        if (!jobs_scenario && node % 2 == 0 && n >= 4) {
            // Two linear fills: ranks 0..n-4 on nodes 3..n-1, ranks n-3..n-1 on 0..2.
            namespace ff = regmap::forward_fill;
            h.csr_writes.emplace_back(regmap::FORWARD_FILL, ff::COUNT.make(n - 3) | ff::FIRST_NODE.make(3));
            h.csr_writes.emplace_back(regmap::FORWARD_FILL, ff::COUNT.make(3) | ff::FIRST_NODE.make(0));
        } else {
            for (const unsigned g_node : job) h.csr_writes.emplace_back(regmap::FORWARD_NODE, g_node);
        }
    }
    auto load_row = [&](FakeHost& h, std::uint8_t context, int rank, const std::vector<std::uint16_t>& globals) {
        const CtRow::Dwords dwords = make_ct_row(rank, globals).encode();
        for (unsigned i = 0; i < dwords.size(); ++i) h.csr_writes.emplace_back(regmap::CT_STAGING(i), dwords[i]);
        h.csr_writes.emplace_back(regmap::CT_SELECT, context);
        h.csr_writes.emplace_back(regmap::CT_COMMAND, regmap::ct_command::LOAD.make(1));
    };
    for (const Communicator& c : comms) {
        std::vector<std::uint16_t> globals(c.members.begin(), c.members.end());
        for (std::size_t r = 0; r < c.members.size(); ++r)
            load_row(*hosts[node_of(c, r)], c.context, static_cast<int>(r), globals);
    }
    // The rogue row: the first odd job's first node believes it shares
    // context 30 with global rank 1 of its job, whose switch has no such row:
    // that switch must drop the packets (unknown context) and count them.
    const unsigned rogue_node = jobs_scenario ? jobs[1][0] : 0;
    const unsigned rogue_peer = jobs_scenario ? jobs[1][1] : 0;
    if (jobs_scenario) load_row(*hosts[rogue_node], rogue_context, 0, {0, 1});

    const std::vector<Opcode> collectives = {Opcode::Allreduce, Opcode::Bcast,     Opcode::Reduce,
                                             Opcode::Barrier,   Opcode::Allgather, Opcode::Scatter,
                                             Opcode::Gather,    Opcode::ReduceScatter};
    // Per communicator, the calls in sequence order.
    std::vector<std::vector<Call>> calls(comms.size());
    for (std::size_t ci = 0; ci < comms.size(); ++ci) {
        const int size = static_cast<int>(comms[ci].members.size());
        int k = 0;
        for (Opcode o : collectives) {
            calls[ci].push_back(Call{o, Datatype::Int32, Operation::Sum, 300, (k * 3 + 1) % size});
            calls[ci].push_back(Call{o, Datatype::Float64, Operation::Sum, 77, k % size});
            ++k;
        }
        // Reduce_scatter with unequal counts (some zero, one large enough to stream).
        std::vector<std::uint32_t> counts;
        for (int r = 0; r < size; ++r) counts.push_back(static_cast<std::uint32_t>((r * 37 + ci) % 5 == 0 ? 0 : (r * 211 + ci * 13) % 700));
        calls[ci].push_back(Call{Opcode::ReduceScatter, Datatype::Int32, Operation::Sum, 0, 0, counts});
        calls[ci].push_back(Call{Opcode::ReduceScatter, Datatype::Float64, Operation::Sum, 0, 0, counts});
    }
    // Unsupported pair on each world: float64 BXOR (checked below to be unsupported).
    const bool bxor_unsupported = !aglu_supports(Operation::Bxor, Datatype::Float64);
    for (std::size_t ci = 0; ci < comms.size(); ++ci)
        if (comms[ci].context == 0) calls[ci].push_back(Call{Opcode::Allreduce, Datatype::Float64, Operation::Bxor, 8, 0});

    auto append_request = [&](FakeHost& h, unsigned node, std::uint8_t context, const Call& c, int call_id, int rank,
                              int size, const Communicator& comm, std::uint32_t sequence) {
        CollectiveEnvelope e;
        e.elements_per_block = c.opcode == Opcode::Barrier ? 0 : c.counts.empty() ? c.count : kVariableCounts;
        e.size = static_cast<std::uint16_t>(size);
        e.root = static_cast<std::uint16_t>(c.root);
        e.global_rank0 = static_cast<std::uint16_t>(comm.members.empty() ? 0 : comm.members[0]);
        e.global_root = static_cast<std::uint16_t>(comm.members.empty() ? 0 : comm.members[c.root]);
        e.sequence = sequence;
        std::vector<std::uint8_t> message(CollectiveEnvelope::kBytes);
        e.write(message.data());
        for (const std::uint32_t count : c.counts) {
            std::uint8_t bytes[4];
            store_le32(bytes, count);
            message.insert(message.end(), bytes, bytes + 4);
        }
        if (c.opcode != Opcode::Barrier) {
            const BlockSpan span = contribution_span(c.opcode, size, rank, c.root);
            for (std::uint32_t b = span.first; b < span.first + span.count; ++b) {
                const auto blk = block_of(c, call_id, rank, b);
                message.insert(message.end(), blk.begin(), blk.end());
            }
        }
        NetworkHeader nh;
        nh.opcode = c.opcode;
        nh.destination = static_cast<std::uint16_t>(node);
        nh.context_id = context;
        nh.operation = static_cast<std::uint8_t>(c.op);
        nh.datatype = static_cast<std::uint8_t>(c.type);
        nh.algorithm = static_cast<std::uint8_t>(default_algorithm(c.opcode));
        nh.size_code = *size_code_for(1024);
        ProcessorHeader ph;
        ph.message_bytes = static_cast<std::uint32_t>(message.size());
        ph.context_id = context;
        ph.operation = nh.operation;
        ph.opcode = c.opcode;
        ph.algorithm = nh.algorithm;
        ph.datatype = nh.datatype;
        ph.rank = static_cast<std::uint16_t>(c.root);
        std::uint32_t offset = 0;
        do {
            const std::uint32_t len = std::min<std::uint32_t>(1024, ph.message_bytes - offset);
            nh.last = offset + len >= ph.message_bytes;
            std::vector<std::uint8_t> packet(kNetworkPacketOverhead + len);
            write_network_packet(nh, ph, offset, message.data() + offset, len, packet.data());
            h.packets.push_back(std::move(packet));
            offset += len;
        } while (offset < ph.message_bytes);
    };

    // Interleave communicators: call k of every communicator, then k + 1.
    std::size_t longest = 0;
    for (const auto& c : calls) longest = std::max(longest, c.size());
    for (std::size_t k = 0; k < longest; ++k)
        for (std::size_t ci = 0; ci < comms.size(); ++ci) {
            if (k >= calls[ci].size()) continue;
            const Communicator& comm = comms[ci];
            const int size = static_cast<int>(comm.members.size());
            for (int r = 0; r < size; ++r) {
                const unsigned node = node_of(comm, static_cast<std::size_t>(r));
                append_request(*hosts[node], node, comm.context, calls[ci][k], static_cast<int>(ci * 100 + k), r,
                               size, comm, static_cast<std::uint32_t>(k));
            }
        }
    // Unknown context (no row anywhere): a Barrier on context 31 from every node.
    for (unsigned node = 0; node < n; ++node) {
        Communicator fake{unknown_context, 0, {0}};
        append_request(*hosts[node], node, unknown_context, Call{Opcode::Barrier, Datatype::Int32, Operation::Sum, 0, 0},
                       0, 0, 1, fake, 0);
    }
    if (jobs_scenario) {
        // The rogue collective, and a corrupted packet from node 0's host
        // (its payload runs past its message): both dropped and counted.
        Communicator rogue{rogue_context, 1, {0, 1}};
        append_request(*hosts[rogue_node], rogue_node, rogue_context,
                       Call{Opcode::Allreduce, Datatype::Int32, Operation::Sum, 4, 0}, 0, 0, 2, rogue, 0);
        NetworkHeader nh;
        nh.opcode = Opcode::Allreduce;
        nh.size_code = *size_code_for(1024);
        ProcessorHeader ph;
        ph.opcode = Opcode::Allreduce;
        ph.message_bytes = 8;
        std::vector<std::uint8_t> packet(kNetworkPacketOverhead + 16);
        write_network_packet(nh, ph, 0, nullptr, 0, packet.data());
        hosts[0]->packets.push_front(std::move(packet));
    }
    // Send pass-through: node i -> node (i + 1) mod n, 1500 bytes in two packets.
    for (unsigned node = 0; node < n; ++node) {
        NetworkHeader nh;
        nh.opcode = Opcode::Send;
        nh.destination = static_cast<std::uint16_t>((node + 1) % n);
        nh.size_code = *size_code_for(1024);
        ProcessorHeader ph;
        ph.message_bytes = 1500;
        ph.rank = static_cast<std::uint16_t>(node);
        std::vector<std::uint8_t> message(1500);
        for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<std::uint8_t>(node * 7 + i);
        for (std::uint32_t offset = 0; offset < 1500; offset += 1024) {
            const std::uint32_t len = std::min<std::uint32_t>(1024, 1500 - offset);
            nh.last = offset + len >= 1500;
            std::vector<std::uint8_t> packet(kNetworkPacketOverhead + len);
            write_network_packet(nh, ph, offset, message.data() + offset, len, packet.data());
            hosts[node]->packets.push_back(std::move(packet));
        }
    }

    sc_core::sc_start(sc_core::sc_time(50, sc_core::SC_MS));
    Checks checks;
    const sc_core::sc_time end = sc_core::sc_time_stamp();

    // ---- check results
    std::uint64_t digest = 1469598103934665603ull;
    auto mix = [&](const std::vector<std::uint8_t>& b) {
        for (std::uint8_t x : b) digest = (digest ^ x) * 1099511628211ull;
    };
    int bad = 0;
    for (std::size_t ci = 0; ci < comms.size(); ++ci) {
        const Communicator& comm = comms[ci];
        const int size = static_cast<int>(comm.members.size());
        const std::string job = jobs_scenario ? "job " + std::to_string(comm.job) + " " : "";
        std::map<std::size_t, std::vector<std::uint8_t>> float_allreduce;  // call -> rank 0's result
        for (int r = 0; r < size; ++r) {
            FakeHost& h = *hosts[node_of(comm, static_cast<std::size_t>(r))];
            std::vector<const Result*> mine;
            for (const Result& res : h.results)
                if (res.context == comm.context && res.opcode != Opcode::Send) mine.push_back(&res);
            if (!checks.expect(mine.size() == calls[ci].size(),
                               job + "context " + std::to_string(comm.context) + " rank " + std::to_string(r) + ": " +
                                   std::to_string(mine.size()) + " of " + std::to_string(calls[ci].size()) +
                                   " results"))
                continue;
            for (std::size_t k = 0; k < calls[ci].size(); ++k) {
                const Call& c = calls[ci][k];
                const Result& res = *mine[k];
                const int call_id = static_cast<int>(ci * 100 + k);
                const std::string what = job + "context " + std::to_string(comm.context) + " size " +
                                         std::to_string(size) + " rank " + std::to_string(r) + " " +
                                         std::string(to_string(c.opcode)) + (c.counts.empty() ? "" : " (unequal counts)") +
                                         " " + std::string(to_string(c.type)) + " root " + std::to_string(c.root);
                if (c.op == Operation::Bxor) {
                    std::uint32_t code = 0;
                    if (res.bytes.size() == kErrorResultBytes) std::memcpy(&code, res.bytes.data(), 4);
                    checks.expect(bxor_unsupported && res.step == kErrorStep && code == 2,
                                  what + " BXOR: error result code 2 (unsupported)");
                    continue;
                }
                // Reference, element by element over the whole buffer.
                const std::uint32_t blocks =
                    (c.opcode == Opcode::Bcast || c.opcode == Opcode::Reduce || c.opcode == Opcode::Allreduce) ? 1
                    : c.opcode == Opcode::Barrier                                                          ? 0
                                                                                       : static_cast<std::uint32_t>(size);
                const std::size_t es = element_size(c.type);
                const std::uint32_t elements = blocks == 0 ? 0 : block_first(c, blocks - 1) + block_count(c, blocks - 1);
                std::vector<std::uint8_t> full(elements * es);
                std::vector<double> approx(elements, 0.0);
                for (std::uint32_t b = 0; b < blocks; ++b) {
                    const std::uint32_t first = block_first(c, b);
                    for (int q = 0; q < size; ++q) {
                        const bool reduce = is_reduction(c.opcode);
                        int source = q;
                        if (!reduce) {
                            if (c.opcode == Opcode::Bcast || c.opcode == Opcode::Scatter) source = c.root;
                            else source = static_cast<int>(b);  // gather/allgather: block b from rank b
                            if (q != 0) continue;
                        }
                        const auto data = block_of(c, call_id, source, b);
                        for (std::uint32_t i = 0; i < block_count(c, b); ++i) {
                            std::uint8_t* at = full.data() + (first + i) * es;
                            if (!reduce) {
                                std::memcpy(at, data.data() + i * es, es);
                                if (c.type == Datatype::Float64) std::memcpy(&approx[first + i], at, 8);
                            } else if (c.type == Datatype::Int32) {
                                std::uint32_t acc, v;
                                std::memcpy(&acc, at, 4);
                                std::memcpy(&v, data.data() + 4 * i, 4);
                                acc += v;
                                std::memcpy(at, &acc, 4);
                            } else {
                                double v;
                                std::memcpy(&v, data.data() + 8 * i, 8);
                                approx[first + i] += v;
                            }
                        }
                    }
                }
                const BlockSpan span = result_span(c.opcode, size, r, c.root);
                const std::uint32_t want_first = span.count ? block_first(c, span.first) : 0;
                std::uint32_t want_elements = 0;
                for (std::uint32_t b = span.first; b < span.first + span.count; ++b) want_elements += block_count(c, b);
                const std::size_t want_bytes = c.opcode == Opcode::Barrier ? 0 : want_elements * es;
                bool ok = res.step == 0 && res.opcode == c.opcode && res.rank == r && res.bytes.size() == want_bytes;
                if (ok && c.type == Datatype::Int32)
                    ok = want_bytes == 0 || std::memcmp(res.bytes.data(), full.data() + want_first * es, want_bytes) == 0;
                if (ok && c.type == Datatype::Float64) {
                    for (std::size_t i = 0; i < want_bytes / 8; ++i) {
                        double got;
                        std::memcpy(&got, res.bytes.data() + 8 * i, 8);
                        const double want = approx[want_first + i];
                        if (std::fabs(got - want) > 1e-12 * std::max(1.0, std::fabs(want))) ok = false;
                    }
                    if (c.opcode == Opcode::Allreduce) {
                        auto [it, fresh] = float_allreduce.emplace(k, res.bytes);
                        if (!fresh && it->second != res.bytes) ok = false;  // bit-identical on every rank
                    }
                    mix(res.bytes);
                }
                if (!ok) ++bad;
                if (!ok || size == static_cast<int>(jobs[comm.job].size()) || k < 2)
                    checks.expect(ok, what + ": " + std::to_string(res.bytes.size()) + " bytes match the reference");
            }
        }
    }
    checks.expect(bad == 0, "every collective result matches its reference (" + std::to_string(bad) + " wrong)");
    std::uint64_t dropped = 0;
    for (unsigned node = 0; node < n; ++node) {
        FakeHost& h = *hosts[node];
        int unknown = 0, sends = 0, rogue = 0;
        for (const Result& res : h.results) {
            if (res.context == unknown_context && res.step == kErrorStep && res.bytes.size() == kErrorResultBytes &&
                res.bytes[0] == 1)
                ++unknown;
            if (jobs_scenario && res.context == rogue_context) ++rogue;
            if (res.opcode == Opcode::Send) {
                const unsigned from = (node + n - 1) % n;
                bool ok = res.bytes.size() == 1500 && res.rank == from;
                for (std::size_t i = 0; ok && i < res.bytes.size(); ++i)
                    ok = res.bytes[i] == static_cast<std::uint8_t>(from * 7 + i);
                sends += ok;
            }
        }
        checks.expect(unknown == 1, "node " + std::to_string(node) + ": unknown context -> error result code 1");
        checks.expect(sends == 1, "node " + std::to_string(node) + ": Send from node " +
                                      std::to_string((node + n - 1) % n) + " passed through intact");
        checks.expect(rogue == 0, "node " + std::to_string(node) + ": no result for the rogue collective");
        const auto& s = engines[node]->statistics();
        const std::uint64_t errors = 1 + (bxor_unsupported ? 1 : 0);
        const bool rogue_open = jobs_scenario && node == rogue_node;  // its collective never completes
        checks.expect(s.errors == errors && (rogue_open || engines[node]->live_packets() == 0),
                      "node " + std::to_string(node) + ": ACCEL_ERRORS " + std::to_string(s.errors) +
                          ", no packets left in flight");
        const std::uint32_t accel_dropped = hosts[node]->read_csr(regmap::ACCEL_DROPPED);
        checks.expect(accel_dropped == s.dropped, "node " + std::to_string(node) + ": ACCEL_DROPPED reads the counter");
        // The rogue's peer drops its agreement and step packets (unknown context).
        const std::uint64_t expected_drops = !jobs_scenario ? 0 : node == 0 ? 1 : 0;
        const bool peer = jobs_scenario && node == rogue_peer;
        checks.expect(peer ? s.dropped >= 2 : s.dropped == expected_drops,
                      "node " + std::to_string(node) + ": " + std::to_string(s.dropped) + " packets dropped, expected " +
                          (peer ? std::string(">= 2") : std::to_string(expected_drops)));
        dropped += s.dropped;
    }
    checks.expect(hosts[0]->read_csr(regmap::CT_SIZE_BITS) == 32 * 296, "CT_SIZE_BITS = 32 x 296");
    std::cout << "simulated " << testbench::ns(end) << ", " << dropped << " packets dropped\n";
    std::cout << "float64 digest: " << std::hex << digest << std::dec << "\n";
    return checks.finish();
}
