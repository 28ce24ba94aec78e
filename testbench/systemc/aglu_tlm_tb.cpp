// AgluTlm transaction protocol: timing annotation and refusal of bad
// transactions (unsupported pair, partial beats, missing command), each
// reported through SC_REPORT_ERROR with a message naming what is wrong.
#include <cstring>
#include <iostream>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/aglu_tlm.h"

using namespace isvp;

namespace {

class Prober : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<Prober> socket;
    int failures = 0;
    int checks = 0;

    explicit Prober(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {
        SC_HAS_PROCESS(Prober);
        SC_THREAD(run);
    }

  private:
    void expect(bool ok, const std::string& what) {
        ++checks;
        if (!ok) ++failures;
        std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
    }

    // Sends a transaction; returns the SC_REPORT_ERROR message, empty if none.
    std::string send(Operation op, Datatype type, std::size_t bytes, bool with_command, sc_core::sc_time& delay,
                     tlm::tlm_response_status& status) {
        std::vector<unsigned char> data(bytes, 0);
        std::vector<Vector256> results(bytes / kAgluBeatBytes + 1);
        AgluCommand command;
        command.operation = op;
        command.datatype = type;
        command.results = results.data();
        tlm::tlm_generic_payload payload;
        payload.set_command(tlm::TLM_WRITE_COMMAND);
        payload.set_data_ptr(data.data());
        payload.set_data_length(static_cast<unsigned>(bytes));
        payload.set_streaming_width(static_cast<unsigned>(bytes));
        if (with_command) payload.set_extension(&command);
        std::string report;
        try {
            socket->b_transport(payload, delay);
        } catch (const sc_core::sc_report& error) {
            report = error.what();
        }
        if (with_command) payload.clear_extension(&command);
        status = payload.get_response_status();
        return report;
    }

    void run() {
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status status;
        std::string report = send(Operation::Sum, Datatype::Float32, 10 * kAgluBeatBytes, true, delay, status);
        expect(report.empty() && status == tlm::TLM_OK_RESPONSE, "a 10-beat burst is accepted");
        expect(delay == sc_core::sc_time(4 * (4 + 10 - 1), sc_core::SC_NS),
               "10 beats, 4 stages at 250 MHz annotate 52 ns (got " + delay.to_string() + ")");

        report = send(Operation::Band, Datatype::Float64, kAgluBeatBytes, true, delay, status);
        expect(status == tlm::TLM_COMMAND_ERROR_RESPONSE && report.find("(BAND, float64)") != std::string::npos &&
                   report.find("SUM, PROD, MIN, MAX") != std::string::npos,
               "an unsupported pair is refused naming it: " + report);

        report = send(Operation::Sum, Datatype::Int8, kAgluBeatBytes + 3, true, delay, status);
        expect(status == tlm::TLM_BURST_ERROR_RESPONSE && report.find("67 bytes") != std::string::npos,
               "a partial beat is refused naming its length: " + report);

        report = send(Operation::Sum, Datatype::Int8, kAgluBeatBytes, false, delay, status);
        expect(status == tlm::TLM_GENERIC_ERROR_RESPONSE && report.find("AgluCommand") != std::string::npos,
               "a transaction without a command is refused: " + report);
    }
};

}  // namespace

int sc_main(int, char**) {
    AgluConfig config;  // defaults: tlm, 4 stages, 250 MHz
    AgluTlm aglu("aglu", config);
    Prober prober("prober");
    prober.socket.bind(aglu.socket);
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_THROW);
    sc_core::sc_start();
    std::cout << prober.checks - prober.failures << " passed, " << prober.failures << " failed\n";
    return prober.failures == 0 && prober.checks > 0 ? 0 : 1;
}
