// CreditedOutPort: a packet leaves only with the receiver's credits (VC 0;
// credits in flight count from their arrival), urgent packets overtake the
// queue, the serialiser spaces packets by their length, and the owner's
// hook sees each packet leave with its tail delay.
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/credited_port.h"
#include "isvp/packet_channel.h"

using namespace isvp;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

class Harness : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<Harness> out;
    tlm_utils::simple_target_socket<Harness> sink;
    int failures = 0;

    explicit Harness(sc_core::sc_module_name name)
        : sc_core::sc_module(name),
          out("out"),
          sink("sink"),
          port_(std::string(this->name()), out, sc_time(4, SC_NS), 2, wake_,
                [this](const CreditedOutPort::Outgoing& o, const sc_time& tail) {
                    left_.push_back({o.packet->get_data_ptr()[0], tail});
                }) {
        out.bind(sink);
        sink.register_b_transport(this, &Harness::on_packet);
        SC_HAS_PROCESS(Harness);
        SC_METHOD(drain);
        sensitive << wake_.event();
        dont_initialize();
        SC_THREAD(run);
    }

  private:
    struct Arrived {
        int id;
        sc_time at;
    };
    struct Left {
        int id;
        sc_time tail;
    };

    void drain() {
        wake_.woken();
        port_.drain();
        port_.end_of_run();
        wake_.rearm();
    }
    void on_packet(tlm::tlm_generic_payload& p, sc_time&) {
        arrived_.push_back({p.get_data_ptr()[0], sc_core::sc_time_stamp()});
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void expect(bool ok, const std::string& what) {
        if (!ok) ++failures;
        std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
    }
    /// A packet with id `id` in its first byte, `phits` long, queued now.
    void send(int id, std::uint32_t phits, bool urgent, std::uint8_t credit_to = 0) {
        tlm::tlm_generic_payload* p = pool_.allocate(64);
        p->get_data_ptr()[0] = static_cast<unsigned char>(id);
        port_.enqueue({p, credit_to, -1, phits}, urgent, sc_core::SC_ZERO_TIME);
    }
    void credit(std::uint32_t phits, sc_time delay, std::uint8_t vc = 0) {
        tlm::tlm_generic_payload p;
        CreditReturn c;
        c.vc = vc;
        c.phits = phits;
        p.set_extension(&c);
        port_.receive_credit(p, delay);
        p.clear_extension(&c);
    }
    bool arrived_at(std::size_t i, int id, double ns) const {
        return i < arrived_.size() && arrived_[i].id == id && arrived_[i].at == sc_time(ns, SC_NS);
    }

    void run() {
        // No credits: nothing leaves.
        send(1, 8, false);
        wait(100, SC_NS);
        expect(arrived_.empty(), "a packet waits for credits");
        // 8 phits of credit now: it leaves at once; 4 cycles, tail 3 cycles after the head.
        credit(8, sc_core::SC_ZERO_TIME);
        wait(1, SC_NS);
        expect(arrived_at(0, 1, 100), "it leaves when the credits come (100 ns)");
        expect(left_.size() == 1 && left_[0].tail == sc_time(12, SC_NS), "the owner sees it leave, tail after 12 ns");
        // Credits for another VC are not usable.
        send(2, 4, false);
        credit(8, sc_core::SC_ZERO_TIME, 1);
        wait(99, SC_NS);
        expect(arrived_.size() == 1, "credits of VC 1 are ignored");
        // 6 phits arriving in 20 ns; an urgent packet queued after the
        // waiting one leaves first, the other right after its one cycle.
        send(3, 2, true);
        credit(6, sc_time(20, SC_NS));
        wait(100, SC_NS);
        expect(arrived_at(1, 3, 220), "the urgent packet leaves first, when the credits arrive (220 ns)");
        expect(arrived_at(2, 2, 224), "the queued packet follows one serialisation cycle later (224 ns)");
        // The serialiser: two 4-phit packets with ample credits leave 2 cycles apart.
        credit(100, sc_core::SC_ZERO_TIME);
        send(4, 4, false);
        send(5, 4, false, 1);
        wait(100, SC_NS);
        expect(arrived_at(3, 4, 300) && arrived_at(4, 5, 308), "back-to-back packets leave 8 ns apart");
        // A credit transaction without a CreditReturn is refused.
        tlm::tlm_generic_payload bad;
        port_.receive_credit(bad, sc_core::SC_ZERO_TIME);
        expect(bad.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE,
               "a credit without CreditReturn is refused");
        expect(pool_.live() == 0, "every packet that left was released");
        sc_core::sc_stop();
    }

    PacketPool pool_;
    EarliestWake wake_;
    CreditedOutPort port_;
    std::vector<Arrived> arrived_;
    std::vector<Left> left_;
};

}  // namespace

int sc_main(int, char*[]) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);
    Harness harness("harness");
    sc_core::sc_start();
    std::cout << (harness.failures ? "FAILED" : "PASSED") << "\n";
    return harness.failures ? 1 : 0;
}
