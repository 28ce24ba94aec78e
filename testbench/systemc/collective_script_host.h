// Scripted hosts for CollectiveEngine testbenches: a host stand-in that runs
// a script (post requests with credits, write/read CSRs, wait for results or
// a time) and assembles what comes back, plus int32 SUM requests and their
// exact references for communicators spanning the torus.
#pragma once

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "isvp/collective_engine.h"

namespace isvp::testbench {

struct Result {
    std::uint8_t context = 0;
    Opcode opcode = Opcode::Send;
    std::uint8_t step = 0;
    std::vector<std::uint8_t> bytes;
    sc_core::sc_time at;  ///< when it completed
};

/// One action of a host's script, run in order.
struct Action {
    enum Kind { Post, Write, Read, WaitResults, WaitUntil } kind = WaitUntil;
    std::vector<std::vector<std::uint8_t>> packets;  ///< Post: network packets
    std::uint32_t offset = 0, value = 0;             ///< Write/Read: CSR; WaitResults: context, count
    sc_core::sc_time until;                          ///< WaitUntil
    std::string label;                               ///< Read: name of the value
};

inline Action act(Action::Kind kind, std::uint32_t offset = 0, std::uint32_t value = 0) {
    Action a;
    a.kind = kind;
    a.offset = offset;
    a.value = value;
    return a;
}

/// A host stand-in that runs a script: posts requests (with credits), writes
/// and reads CSRs, waits for results or a time; assembles what comes back.
class ScriptHost : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<ScriptHost> tx;
    tlm_utils::simple_target_socket<ScriptHost> tx_credit;
    tlm_utils::simple_target_socket<ScriptHost> rx;
    tlm_utils::simple_initiator_socket<ScriptHost> rx_credit;
    tlm_utils::simple_initiator_socket<ScriptHost> csr;

    std::vector<Action> script;                  ///< what it does, in order
    std::vector<Action> side;                    ///< CSR accesses and waits run beside the script (no Post)
    std::vector<Result> results;                 ///< completed messages
    std::map<std::string, std::uint32_t> reads;  ///< Read actions' values by label

    explicit ScriptHost(sc_core::sc_module_name name) : sc_core::sc_module(name) {
        tx_credit.register_b_transport(this, &ScriptHost::on_credit);
        rx.register_b_transport(this, &ScriptHost::on_rx);
        SC_HAS_PROCESS(ScriptHost);
        SC_THREAD(run);
        SC_THREAD(run_side);
    }
    std::size_t results_on(std::uint8_t context) const {
        std::size_t n = 0;
        for (const Result& r : results) n += r.context == context;
        return n;
    }

  private:
    std::uint32_t access(bool write, std::uint32_t offset, std::uint32_t value) {
        tlm::tlm_generic_payload p;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p.set_address(offset);
        p.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        p.set_data_length(4);
        csr->b_transport(p, d);
        return value;
    }
    void run() {
        CreditMessage grant;
        grant.send(rx_credit, 0, 1u << 20, sc_core::SC_ZERO_TIME);
        for (Action& a : script) execute(a);
    }
    void run_side() {
        for (Action& a : side) execute(a);
    }
    void execute(const Action& a) {
        const sc_core::sc_time cycle(4, sc_core::SC_NS);
        switch (a.kind) {
            case Action::Post:
                for (const std::vector<std::uint8_t>& bytes : a.packets) {
                    const std::uint32_t phits = phits_of(static_cast<std::uint32_t>(bytes.size()));
                    while (credits_ < phits) wait(credit_event_);
                    tlm::tlm_generic_payload* p = pool_.allocate(static_cast<std::uint32_t>(bytes.size()));
                    std::memcpy(p->get_data_ptr(), bytes.data(), bytes.size());
                    packet_info(*p).tail_after = cycle * ((phits + 1) / 2 - 1);
                    credits_ -= phits;
                    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
                    tx->b_transport(*p, d);
                    p->release();
                    wait(cycle * ((phits + 1) / 2));
                }
                break;
            case Action::Write:
                access(true, a.offset, a.value);
                break;
            case Action::Read:
                reads[a.label] = access(false, a.offset, 0);
                break;
            case Action::WaitResults:
                while (results_on(static_cast<std::uint8_t>(a.offset)) < a.value) wait(result_event_);
                break;
            case Action::WaitUntil:
                if (sc_core::sc_time_stamp() < a.until) wait(a.until - sc_core::sc_time_stamp());
                break;
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
        auto v = NetworkPacketView::parse(p.get_data_ptr(), length, nullptr);
        credit_.send(rx_credit, 0, phits_of(length), d);
        if (!v) {
            std::cout << "FAIL " << name() << " got a malformed packet\n";
            return;
        }
        Open& open = open_[v->network.context_id];
        // A result starts at offset 0 (an error result replaces a partial one, as in the driver).
        if (v->offset == 0) {
            open = Open{};
            open.result.context = v->network.context_id;
            open.result.opcode = v->network.opcode;
            open.result.step = v->network.step;
            open.result.bytes.assign(v->processor.message_bytes, 0);
        }
        if (v->payload_bytes && v->offset + v->payload_bytes <= open.result.bytes.size())
            std::memcpy(open.result.bytes.data() + v->offset, v->payload, v->payload_bytes);
        open.received += v->payload_bytes;
        if (open.received >= open.result.bytes.size()) {
            open.result.at = sc_core::sc_time_stamp();
            results.push_back(std::move(open.result));
            open_.erase(v->network.context_id);
            result_event_.notify(sc_core::SC_ZERO_TIME);
        }
    }
    struct Open {
        Result result;
        std::uint32_t received = 0;
    };
    std::map<unsigned, Open> open_;  ///< results being assembled, per context
    PacketPool pool_;                ///< packets it sends
    CreditMessage credit_;           ///< rx credit returns
    std::uint32_t credits_ = 0;      ///< tx credits held
    sc_core::sc_event credit_event_, result_event_;
};

struct Call {
    Opcode opcode;
    Datatype type;
    std::uint32_t count;  ///< elements per block
    int root;
};

/// Rank `rank`'s element i of call `id`.
inline std::uint32_t int_value(int id, int rank, std::uint32_t i) {
    return static_cast<std::uint32_t>(id * 1000003 + rank * 7919 + i * 31 + 1);
}
inline double float_value(int id, int rank, std::uint32_t i) {
    return 0.25 * (rank + 1) + 1e-3 * i + 1.0 / (id + 3);
}

/// Rank `rank`'s data for block b of call `c` (id `id`).
inline std::vector<std::uint8_t> block_data(const Call& c, int id, int rank, std::uint32_t b) {
    const std::size_t es = element_size(c.type);
    std::vector<std::uint8_t> out(c.count * es);
    for (std::uint32_t i = 0; i < c.count; ++i) {
        const std::uint32_t index = b * c.count + i;
        if (c.type == Datatype::Int32) {
            const std::uint32_t v = int_value(id, rank, index);
            std::memcpy(out.data() + 4 * i, &v, 4);
        } else {
            const double v = float_value(id, rank, index);
            std::memcpy(out.data() + 8 * i, &v, 8);
        }
    }
    return out;
}

/// The int32 SUM reference of what comm rank `rank` gets from call `c`.
inline std::vector<std::uint8_t> reference(const Call& c, int id, int size, int rank) {
    const std::uint32_t blocks =
        (c.opcode == Opcode::Allreduce || c.opcode == Opcode::Bcast || c.opcode == Opcode::Reduce)
            ? 1u
            : static_cast<std::uint32_t>(size);
    std::vector<std::uint8_t> full;
    for (std::uint32_t b = 0; b < blocks; ++b) {
        std::vector<std::uint8_t> block;
        if (is_reduction(c.opcode)) {
            block.assign(c.count * 4, 0);
            for (int q = 0; q < size; ++q) {
                const auto data = block_data(c, id, q, b);
                for (std::uint32_t i = 0; i < c.count; ++i) {
                    std::uint32_t acc, v;
                    std::memcpy(&acc, block.data() + 4 * i, 4);
                    std::memcpy(&v, data.data() + 4 * i, 4);
                    acc += v;
                    std::memcpy(block.data() + 4 * i, &acc, 4);
                }
            }
        } else {
            const int source =
                (c.opcode == Opcode::Bcast || c.opcode == Opcode::Scatter) ? c.root : static_cast<int>(b);
            block = block_data(c, id, source, b);
        }
        full.insert(full.end(), block.begin(), block.end());
    }
    const BlockSpan span = result_span(c.opcode, size, rank, c.root);
    const std::size_t block_bytes = c.count * element_size(c.type);
    return std::vector<std::uint8_t>(
        full.begin() + static_cast<std::ptrdiff_t>(span.first * block_bytes),
        full.begin() + static_cast<std::ptrdiff_t>((span.first + span.count) * block_bytes));
}

/// The request packets of call `c` (id `id`) for comm rank `rank`.
inline std::vector<std::vector<std::uint8_t>> request(std::uint8_t context, unsigned node, const Call& c, int id,
                                                      int rank, const std::vector<std::uint16_t>& globals,
                                                      std::uint32_t sequence) {
    const int size = static_cast<int>(globals.size());
    CollectiveEnvelope e;
    e.elements_per_block = c.opcode == Opcode::Barrier ? 0 : c.count;
    e.size = static_cast<std::uint16_t>(size);
    e.root = static_cast<std::uint16_t>(c.root);
    e.global_rank0 = globals[0];
    e.global_root = globals[static_cast<std::size_t>(c.root)];
    e.sequence = sequence;
    std::vector<std::uint8_t> message(CollectiveEnvelope::kBytes);
    e.write(message.data());
    const BlockSpan span = contribution_span(c.opcode, size, rank, c.root);
    for (std::uint32_t b = span.first; b < span.first + span.count; ++b) {
        const auto data = block_data(c, id, rank, b);
        message.insert(message.end(), data.begin(), data.end());
    }
    NetworkHeader nh;
    nh.opcode = c.opcode;
    nh.destination = static_cast<std::uint16_t>(node);
    nh.context_id = context;
    nh.operation = static_cast<std::uint8_t>(Operation::Sum);
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
    std::vector<std::vector<std::uint8_t>> packets;
    std::uint32_t offset = 0;
    do {
        const std::uint32_t len = std::min<std::uint32_t>(1024, ph.message_bytes - offset);
        nh.last = offset + len >= ph.message_bytes;
        std::vector<std::uint8_t> packet(kNetworkPacketOverhead + len);
        write_network_packet(nh, ph, offset, message.data() + offset, len, packet.data());
        packets.push_back(std::move(packet));
        offset += len;
    } while (offset < ph.message_bytes);
    return packets;
}

/// A communicator: comm rank -> node, and -> global rank (global g lives on node (g + 3) mod n).
struct Communicator {
    std::uint8_t context;
    std::vector<unsigned> nodes;
    std::vector<std::uint16_t> globals;
    int rank_of(unsigned node) const {
        for (std::size_t r = 0; r < nodes.size(); ++r)
            if (nodes[r] == node) return static_cast<int>(r);
        return -1;
    }
};

}  // namespace isvp::testbench
