// The SmartFuse CGRA's registers on one CollectiveEngine (docs/FUSED.md):
// capabilities, LOAD of a good program and refusals of malformed ones (the
// slot keeps its program, CGRA_REFUSED counts), ARM refusals (empty slot,
// context without a communicator, a chained opcode other than Allgather
// or Alltoall)
// and an accepted ARM; an ingress kernel (GEMM): its LOAD, two refusals, an
// ARM chaining a collective refused and one accepted. The engine's other
// sockets are bound to sinks.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "isvp/cgra.h"
#include "isvp/collective_engine.h"
#include "isvp/register_map.h"

using namespace isvp;
namespace rm = isvp::regmap;

namespace {

/// Binds the engine's packet and credit sockets to nothing that answers, and drives its CSRs.
struct Harness : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Harness> host_in, host_out_credit, net_out_credit, net_in, csr;
    tlm_utils::simple_target_socket<Harness> host_in_credit, host_out, net_out, net_in_credit;
    explicit Harness(sc_core::sc_module_name name) : sc_core::sc_module(name) {
        for (auto* t : {&host_in_credit, &host_out, &net_out, &net_in_credit})
            t->register_b_transport(this, &Harness::sink);
    }
    void sink(tlm::tlm_generic_payload& p, sc_core::sc_time&) { p.set_response_status(tlm::TLM_OK_RESPONSE); }
    std::uint32_t access(std::uint32_t offset, bool write, std::uint32_t value = 0) {
        tlm::tlm_generic_payload p;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p.set_address(offset);
        p.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        p.set_data_length(4);
        p.set_streaming_width(4);
        csr->b_transport(p, delay);
        return value;
    }
    void write(std::uint32_t offset, std::uint32_t value) { access(offset, true, value); }
    std::uint32_t read(std::uint32_t offset) { return access(offset, false); }
};

int failures = 0;
void expect(bool ok, const std::string& what) {
    std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
    if (!ok) ++failures;
}

std::uint32_t load(Harness& h, unsigned slot, const std::vector<std::uint32_t>& words) {
    h.write(rm::CGRA_SLOT, slot);
    h.write(rm::CGRA_STAGING_INDEX, 0);
    for (const std::uint32_t w : words) h.write(rm::CGRA_STAGING_WORD, w);
    h.write(rm::CGRA_COMMAND, rm::cgra_command::LOAD.make(1));
    return h.read(rm::CGRA_STATUS);
}

std::uint32_t arm(Harness& h, unsigned context, unsigned slot, unsigned then) {
    h.write(rm::CGRA_ARM_CONTEXT, context);
    h.write(rm::CGRA_ARM_SEQUENCE, 0);
    h.write(rm::CGRA_ARM_SLOT, slot);
    h.write(rm::CGRA_ARM_THEN, then);
    h.write(rm::CGRA_COMMAND, rm::cgra_command::ARM.make(1));
    return h.read(rm::CGRA_STATUS);
}

}  // namespace

int sc_main(int, char**) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);
    CollectiveConfig config;
    CollectiveEngine engine("engine", 0, 1, AgluConfig{}, config);
    Harness h("harness");
    h.host_in.bind(engine.host_in);
    engine.host_in_credit.bind(h.host_in_credit);
    engine.host_out.bind(h.host_out);
    h.host_out_credit.bind(engine.host_out_credit);
    engine.net_out.bind(h.net_out);
    h.net_out_credit.bind(engine.net_out_credit);
    h.net_in.bind(engine.net_in);
    engine.net_in_credit.bind(h.net_in_credit);
    h.csr.bind(engine.csr);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    namespace st = rm::cgra_status;
    const std::uint32_t caps = h.read(rm::CGRA_CAPABILITIES);
    expect(rm::cgra_capabilities::PES.get(caps) == 8 && rm::cgra_capabilities::LANES.get(caps) == 8 &&
               rm::cgra_capabilities::SLOTS.get(caps) == rm::kCgraSlots,
           "CGRA_CAPABILITIES: 8 PEs, 8 lanes, 4 slots");
    const std::uint32_t head = 0xC6u << 24 | 1u << 20 | 0u << 16 | 4u << 8;
    const std::vector<std::uint32_t> good{head | 1, 1, 7, 0};
    expect(st::RESULT.get(load(h, 1, good)) == rm::kCgraDone, "a good program LOADs into slot 1");
    std::uint32_t s = load(h, 1, {head | 1, 42, 0, 0});
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 6, "unknown opcode refused (error 6)");
    s = load(h, 1, {head | 9});
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 5, "nine instructions for 8 PEs refused (5)");
    s = load(h, 2, {0xDEADBEEF});
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 2, "bad magic refused (2)");
    std::vector<std::uint32_t> flood(200, 1);
    flood[0] = head | 1;
    s = load(h, 2, flood);
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 1, "200 staged words refused (length)");
    expect(h.read(rm::CGRA_REFUSED) == 4, "CGRA_REFUSED counts the four refusals");
    expect(st::RESULT.get(arm(h, 0, 2, 0)) == rm::kCgraRefused && st::ERROR.get(h.read(rm::CGRA_STATUS)) == 1,
           "ARM of an empty slot refused (1)");
    expect(st::ERROR.get(arm(h, 0, 1, 0)) == 2, "ARM on a context without a communicator refused (2)");
    // A one-member communicator on context 0.
    const CtRow row = make_ct_row(0, {0});
    const CtRow::Dwords dwords = row.encode();
    h.write(rm::CT_SELECT, 0);
    for (unsigned i = 0; i < rm::kCtStagingDwords; ++i) h.write(rm::CT_STAGING(i), dwords[i]);
    h.write(rm::CT_COMMAND, rm::ct_command::LOAD.make(1));
    expect((h.read(rm::CT_VALID) & 1u) == 1, "context 0 holds a communicator");
    expect(st::ERROR.get(arm(h, 0, 1, 5)) == 3, "ARM chaining a gather (not an allgather) refused (3)");
    expect(st::RESULT.get(arm(h, 0, 1, 6)) == rm::kCgraDone,
           "ARM of slot 1 (still the good program) chaining an allgather");
    expect(st::RESULT.get(arm(h, 0, 1, 10)) == rm::kCgraDone, "ARM of slot 1 chaining an alltoall (opcode 10)");
    expect(st::ERROR.get(arm(h, 0, 1, 9)) == 3, "ARM chaining a stream (opcode 9) refused (3)");
    expect(st::ERROR.get(arm(h, 0, 1, 11)) == 3, "ARM chaining a reserved opcode (11) refused (3)");
    expect(st::RESULT.get(arm(h, 0, 1, 0)) == rm::kCgraDone, "ARM semi-fused");
    // An ingress kernel (GEMM 2 x 3 x 4, int32) loads alone, is armed
    // without a chained collective, and refused with one.
    const std::uint32_t one = 0xC6u << 24 | 1u << 20 | 0u << 16 | 1u << 8 | 1;
    expect(st::RESULT.get(load(h, 3, {one, 10, 2 | 3u << 16, 4})) == rm::kCgraDone, "a GEMM kernel LOADs into slot 3");
    s = load(h, 2, {one + 1, 10, 2 | 3u << 16, 4, 1, 0, 0});
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 5, "GEMM beside another instruction refused");
    s = load(h, 2, {one, 10, 0, 4});
    expect(st::RESULT.get(s) == rm::kCgraRefused && st::ERROR.get(s) == 9, "GEMM with m = 0 refused (immediate)");
    expect(st::ERROR.get(arm(h, 0, 3, 6)) == 3, "ARM of an ingress kernel chaining an allgather refused (3)");
    expect(st::ERROR.get(arm(h, 0, 3, 10)) == 3, "ARM of an ingress kernel chaining an alltoall refused (3)");
    expect(st::RESULT.get(arm(h, 0, 3, 0)) == rm::kCgraDone, "ARM of the ingress kernel");
    expect(h.read(rm::CGRA_BASE + 0x3C) == 0xFFFFFFFFu, "an unmapped CGRA register reads all ones");
    sc_core::sc_stop();
    std::cout << (failures ? "collective_cgra_registers_tb: FAILED\n" : "collective_cgra_registers_tb: passed\n");
    return failures ? 1 : 0;
}
