// KernelUnit at register level (models/kernel/README.md): two units wired
// back to back (no engine, no router) and a host that drives their KERNEL_*
// registers and takes their interrupts. START of an unknown id is refused
// with error 1 and the interrupt; a stream kernel runs on both, a second
// START while it runs is refused without disturbing it, the done interrupt
// comes on the KERNEL_MSIX vector, the results and cycles are there, CLEAR
// returns to idle; unmapped reads read all ones.
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/kernel_unit.h"
#include "isvp/msix_interrupt.h"
#include "isvp/smi_kernels.h"

using namespace isvp;
namespace rm = isvp::regmap;
namespace ks = isvp::regmap::kernel_status;

namespace {

class Host : public sc_core::sc_module {
  public:
    tlm_utils::simple_initiator_socket<Host> csr_a, csr_b;
    tlm_utils::simple_target_socket<Host> irq_a, irq_b;
    int failures = 0;

    explicit Host(sc_core::sc_module_name name)
        : sc_core::sc_module(name), csr_a("csr_a"), csr_b("csr_b"), irq_a("irq_a"), irq_b("irq_b") {
        irq_a.register_b_transport(this, &Host::on_irq_a);
        irq_b.register_b_transport(this, &Host::on_irq_b);
        SC_HAS_PROCESS(Host);
        SC_THREAD(run);
    }

  private:
    using Socket = tlm_utils::simple_initiator_socket<Host>;
    void expect(bool ok, const std::string& what) {
        std::cout << (ok ? "  ok: " : "  FAILED: ") << what << "\n";
        if (!ok) ++failures;
    }
    void access(Socket& s, std::uint32_t offset, std::uint32_t& value, bool write) {
        tlm::tlm_generic_payload p;
        p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p.set_address(offset);
        p.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
        p.set_data_length(4);
        p.set_streaming_width(4);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        s->b_transport(p, delay);
    }
    void write(Socket& s, std::uint32_t offset, std::uint32_t value) { access(s, offset, value, true); }
    std::uint32_t read(Socket& s, std::uint32_t offset) {
        std::uint32_t value = 0;
        access(s, offset, value, false);
        return value;
    }
    void on_irq(tlm::tlm_generic_payload& p, std::vector<unsigned>& got) {
        got.push_back(*msix_vector_of(p));
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        irq_event_.notify(sc_core::SC_ZERO_TIME);
    }
    void on_irq_a(tlm::tlm_generic_payload& p, sc_core::sc_time&) { on_irq(p, vectors_a_); }
    void on_irq_b(tlm::tlm_generic_payload& p, sc_core::sc_time&) { on_irq(p, vectors_b_); }
    void launch(Socket& s, std::uint32_t id, std::uint64_t a0, std::uint64_t a1) {
        write(s, rm::KERNEL_ARG(0), static_cast<std::uint32_t>(a0));
        write(s, rm::KERNEL_ARG(1), static_cast<std::uint32_t>(a1));
        write(s, rm::KERNEL_WORLD_SIZE, 2);
        write(s, rm::KERNEL_ID, id);
        write(s, rm::KERNEL_CONTROL, rm::kernel_control::START.make(1));
    }

    void run() {
        wait(sc_core::SC_ZERO_TIME);
        const std::uint32_t caps = read(csr_a, rm::KERNEL_CAPABILITIES);
        expect(rm::kernel_capabilities::KERNELS.get(caps) == 8 && rm::kernel_capabilities::ARGS.get(caps) == 8,
               "KERNEL_CAPABILITIES: 8 kernels (stencil2d the eighth), 8 argument registers");
        expect(read(csr_a, rm::KERNEL_STATUS) == 0, "idle after reset");

        launch(csr_a, 99, 0, 0);
        wait(irq_event_);
        std::uint32_t status = read(csr_a, rm::KERNEL_STATUS);
        expect(ks::STATE.get(status) == ks::kError && ks::ERROR_CODE.get(status) == rm::kKernelErrorUnknownId &&
                   read(csr_a, rm::KERNEL_ERROR_DETAIL) == 99 && vectors_a_ == std::vector<unsigned>{3},
               "START of unknown id 99: error 1, detail 99, interrupt on the default vector 3");
        expect(ks::LAUNCHES.get(status) == 0, "a refused START is not a launch");

        write(csr_a, rm::KERNEL_MSIX, 5);
        write(csr_b, rm::KERNEL_MSIX, 6);
        launch(csr_a, kKernelStream, 200, 2);
        launch(csr_b, kKernelStream, 200, 2);
        status = read(csr_a, rm::KERNEL_STATUS);
        expect(ks::STATE.get(status) == ks::kRunning && ks::LAUNCHES.get(status) == 1, "running after START");
        wait(sc_core::sc_time(100, sc_core::SC_NS));
        write(csr_a, rm::KERNEL_ID, kKernelStencil);
        write(csr_a, rm::KERNEL_CONTROL, rm::kernel_control::START.make(1));
        status = read(csr_a, rm::KERNEL_STATUS);
        expect(ks::STATE.get(status) == ks::kRunning && ks::LAUNCHES.get(status) == 1 && vectors_a_.size() == 1,
               "START while running is refused: the running launch keeps its status, no interrupt");
        while (vectors_a_.size() < 2 || vectors_b_.empty()) wait(irq_event_);
        expect(vectors_a_.back() == 5 && vectors_b_.back() == 6, "done interrupts on the KERNEL_MSIX vectors");
        expect(ks::STATE.get(read(csr_a, rm::KERNEL_STATUS)) == ks::kDone &&
                   ks::STATE.get(read(csr_b, rm::KERNEL_STATUS)) == ks::kDone,
               "both kernels done");
        const std::uint64_t sum =
            read(csr_b, rm::KERNEL_RESULT(0)) | static_cast<std::uint64_t>(read(csr_b, rm::KERNEL_RESULT(0) + 4)) << 32;
        expect(sum == smi_examples::stream_reference(200), "the receiver's checksum of the 200 elements (no loss)");
        const std::uint32_t cycles = read(csr_b, rm::KERNEL_CYCLES_LO);
        expect(cycles >= 200 * 3, "KERNEL_CYCLES: at least 3 cycles per element popped (1 + 2 charged)");
        write(csr_a, rm::KERNEL_CONTROL, rm::kernel_control::CLEAR.make(1));
        expect(ks::STATE.get(read(csr_a, rm::KERNEL_STATUS)) == ks::kIdle, "CLEAR: idle");
        expect(read(csr_a, rm::KERNEL_BASE + 0xFC) == 0xFFFFFFFFu, "an unmapped kernel register reads all ones");
        write(csr_a, rm::KERNEL_CYCLES_LO, 7);
        expect(read(csr_a, rm::KERNEL_CYCLES_LO) != 7, "a read-only register ignores writes");
        sc_core::sc_stop();
    }

    std::vector<unsigned> vectors_a_, vectors_b_;  ///< interrupts taken, in order
    sc_core::sc_event irq_event_;                  ///< one came
};

}  // namespace

int sc_main(int, char*[]) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DISPLAY);
    KernelConfig config;
    KernelUnit a("a", 0, 2, config);
    KernelUnit b("b", 1, 2, config);
    Host host("host");
    a.to_engine.bind(b.from_engine);
    b.from_engine_credit.bind(a.to_engine_credit);
    b.to_engine.bind(a.from_engine);
    a.from_engine_credit.bind(b.to_engine_credit);
    host.csr_a.bind(a.csr);
    host.csr_b.bind(b.csr);
    a.irq.bind(host.irq_a);
    b.irq.bind(host.irq_b);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
    const bool stalled = b.statistics().elements_popped != 200;
    if (stalled) std::cout << "  FAILED: the receiver popped " << b.statistics().elements_popped << " of 200\n";
    std::cout << (host.failures || stalled ? "kernel_unit_tb: FAILED\n" : "kernel_unit_tb: passed\n");
    return host.failures || stalled ? 1 : 0;
}
