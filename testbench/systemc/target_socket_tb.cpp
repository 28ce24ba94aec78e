// isvp::BlockingTargetSocket (models/common/isvp/target_socket.h): blocking
// transport, DMI and debug transport reach the owner's registered member
// functions directly (same delay, same payload, no wait); unregistered
// interfaces refuse as simple_target_socket does; nb_transport_fw and a
// second registration are errors naming the socket; the socket adds no
// object besides its export and port (no PEQ, no adapter events), which is
// what makes it cheaper to build than simple_target_socket.
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/target_socket.h"

using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

int failures = 0;
void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::cerr << "FAIL: " << what << "\n";
        ++failures;
    }
}

/// A target with every interface registered on `full` and only b_transport
/// on `plain`; `optional` stays unbound.
class Target : public sc_core::sc_module {
  public:
    isvp::BlockingTargetSocket<Target> full;
    isvp::BlockingTargetSocket<Target> plain;
    isvp::OptionalBlockingTargetSocket<Target> optional;
    std::vector<sc_time> delays_seen;  ///< delay argument of each b_transport
    unsigned char memory[16] = {};     ///< what DMI and debug transport expose

    explicit Target(sc_core::sc_module_name name)
        : sc_core::sc_module(name), full("full"), plain("plain"), optional("optional") {
        full.register_b_transport(this, &Target::b_transport);
        full.register_get_direct_mem_ptr(this, &Target::get_direct_mem_ptr);
        full.register_transport_dbg(this, &Target::transport_dbg);
        plain.register_b_transport(this, &Target::b_transport);
    }

    void b_transport(tlm::tlm_generic_payload& payload, sc_time& delay) {
        delays_seen.push_back(delay);
        delay += sc_time(5, SC_NS);  // the caller must see the target's annotation
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_dmi_ptr(memory);
        dmi.set_start_address(0);
        dmi.set_end_address(sizeof memory - 1);
        dmi.allow_read_write();
        return true;
    }
    unsigned int transport_dbg(tlm::tlm_generic_payload& payload) {
        payload.get_data_ptr()[0] = memory[payload.get_address()];
        return 1;
    }
};

class Initiator : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<Initiator> to_full;
    tlm_utils::simple_initiator_socket<Initiator> to_plain;

    explicit Initiator(sc_core::sc_module_name name, Target& target)
        : sc_core::sc_module(name), to_full("to_full"), to_plain("to_plain"), target_(target) {
        SC_HAS_PROCESS(Initiator);
        SC_THREAD(run);
    }

  private:
    void run() {
        tlm::tlm_generic_payload payload;
        unsigned char byte = 0;
        payload.set_data_ptr(&byte);
        payload.set_data_length(1);
        payload.set_command(tlm::TLM_WRITE_COMMAND);

        // Blocking transport: a direct call, same time, delay annotated.
        sc_time delay(3, SC_NS);
        payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        to_full->b_transport(payload, delay);
        expect(payload.is_response_ok(), "b_transport reaches the owner");
        expect(delay == sc_time(8, SC_NS), "the owner's delay annotation comes back");
        expect(target_.delays_seen.size() == 1 && target_.delays_seen[0] == sc_time(3, SC_NS),
               "the owner sees the caller's delay");
        expect(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME, "b_transport does not wait");
        delay = sc_core::SC_ZERO_TIME;
        to_plain->b_transport(payload, delay);
        expect(target_.delays_seen.size() == 2, "each socket forwards to its owner");

        // DMI and debug transport: forwarded where registered ...
        tlm::tlm_dmi dmi;
        target_.memory[2] = 0x5a;
        expect(to_full->get_direct_mem_ptr(payload, dmi) && dmi.get_dmi_ptr() == target_.memory,
               "get_direct_mem_ptr reaches the owner");
        payload.set_address(2);
        expect(to_full->transport_dbg(payload) == 1 && byte == 0x5a, "transport_dbg reaches the owner");
        // ... refused where not.
        tlm::tlm_dmi refused;
        expect(!to_plain->get_direct_mem_ptr(payload, refused), "no DMI without a callback");
        expect(refused.get_granted_access() == tlm::tlm_dmi::DMI_ACCESS_NONE, "refused DMI grants no access");
        expect(to_plain->transport_dbg(payload) == 0, "no debug transport without a callback");

        // Non-blocking transport is not served: an error naming the socket.
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        delay = sc_core::SC_ZERO_TIME;
        payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        expect(to_full->nb_transport_fw(payload, phase, delay) == tlm::TLM_COMPLETED,
               "nb_transport_fw completes at once");
        expect(payload.get_response_status() == tlm::TLM_COMMAND_ERROR_RESPONSE, "nb_transport_fw is refused");
        expect(sc_core::sc_report_handler::get_count("isvp/target_socket") == 2,
               "nb_transport_fw is reported (after the second registration in sc_main)");
    }

    Target& target_;
};

}  // namespace

int sc_main(int, char*[]) {
    // Errors of this socket are counted, not fatal, so the bench can check them.
    sc_core::sc_report_handler::set_actions("isvp/target_socket", sc_core::SC_DISPLAY);

    Target target("target");
    Initiator initiator("initiator", target);
    initiator.to_full.bind(target.full);
    initiator.to_plain.bind(target.plain);

    // No PEQ or other helper object: only each socket's export and its port.
    std::vector<std::string> children;
    for (const sc_core::sc_object* child : target.get_child_objects()) children.push_back(child->basename());
    const std::vector<std::string> expected = {"full",         "full_port_0", "plain",
                                               "plain_port_0", "optional",    "optional_port_0"};
    if (children != expected) {
        std::string seen;
        for (const std::string& c : children) seen += " " + c;
        expect(false, "the sockets add only their export and port; children:" + seen);
    }

    // A second registration of the same callback is an error naming the socket.
    target.plain.register_b_transport(&target, &Target::b_transport);
    expect(sc_core::sc_report_handler::get_count("isvp/target_socket") == 1, "a second registration is reported");

    sc_core::sc_start();  // the unbound optional socket elaborates

    if (failures == 0) std::cout << "target_socket_tb: all checks passed\n";
    return failures == 0 ? 0 : 1;
}
