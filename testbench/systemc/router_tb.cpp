// One Router (node (1,1) of a 4x4x1 torus, dimension-order routing) with a
// PacketSource on each used input and a PacketSink on each used output.
// Each behaviour gets its own router: pipeline latency, datapath rate,
// round-robin arbitration, dateline VC continuation, ejection, drops of bad
// traffic (with credits returned), back-pressure with the flow-control
// margin, and statistics.
#include <map>
#include <memory>
#include <string>

#include "isvp/router.h"
#include "isvp/torus_topology.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;
using isvp::testbench::ns;

namespace {

const sc_core::sc_time kStart(1, sc_core::SC_US);
const sc_core::sc_time kCycle(4, sc_core::SC_NS);                          // 250 MHz
constexpr std::uint32_t kNode = 5;                                         // (1, 1)
constexpr std::uint32_t kPlusX = 6, kMinusX = 4, kPlusY = 9, kMinusY = 1;  // neighbours' addresses
constexpr unsigned kUsedPorts[] = {0, 1, 2, 3, TorusTopology::kLocalPort};

/// Payload bytes for a packet of `phits` phits.
std::uint32_t payload_for(std::uint32_t phits) {
    return phits * kPhitBytes - kNetworkPacketOverhead;
}

/// Warnings of the router, counted (the handler has no context argument).
unsigned router_warnings = 0;
std::string first_router_warning;
void count_router_warnings(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (report.get_severity() == sc_core::SC_WARNING && std::string(report.get_msg_type()) == "isvp/router") {
        if (router_warnings++ == 0) first_router_warning = report.get_msg();
        return;
    }
    sc_core::sc_report_handler::default_handler(report, actions);
}

struct SinkSetup {
    std::uint32_t buffer_phits = 768;  ///< credits per VC
    double drain_gbps = 0;             ///< 0 = instant
};

class RouterUnderTest {
  public:
    RouterUnderTest(const std::string& name, std::map<unsigned, SinkSetup> sinks_by_port = {},
                    const RouterConfig& config = RouterConfig{})
        : topology_(TorusShape{4, 4, 1}),
          router((name + "_router").c_str(), config, make_torus_routing("dor", topology_, config.vcs), kNode) {
        for (unsigned port : kUsedPorts) {
            const std::uint32_t far_node = port == TorusTopology::kLocalPort ? kNode : topology_.neighbour(kNode, port);
            const SinkSetup setup = sinks_by_port.count(port) ? sinks_by_port[port] : SinkSetup{};
            sources[port] =
                std::make_unique<PacketSource>((name + "_source_" + std::to_string(port)).c_str(), port, config.vcs);
            sinks[port] = std::make_unique<PacketSink>((name + "_sink_" + std::to_string(port)).c_str(), far_node,
                                                       config.vcs, setup.buffer_phits, setup.drain_gbps);
            sources[port]->out.bind(router.in(port));
            router.credit_out(port).bind(sources[port]->credit_in);
            router.out(port).bind(sinks[port]->in);
            sinks[port]->credit_out.bind(router.credit_in(port));
            sinks[port]->keep_arrivals(true);
        }
    }
    void send(unsigned from_port, std::uint32_t destination, std::uint32_t phits, unsigned count = 1,
              std::uint8_t vc = 0, const sc_core::sc_time& at = kStart, bool malformed = false) {
        for (unsigned i = 0; i < count; ++i)
            sources[from_port]->add(PacketRequest{at, destination, payload_for(phits), vc, malformed});
    }
    bool credits_restored(const RouterConfig& config = RouterConfig{}) const {
        for (unsigned port : kUsedPorts)
            for (unsigned vc = 0; vc < config.vcs; ++vc)
                if (sources.at(port)->credits(vc) != config.vc_buffer_phits()) return false;
        return true;
    }

  private:
    TorusTopology topology_;  ///< 4x4x1, for the routing policy

  public:
    Router router;                                              ///< under test
    std::map<unsigned, std::unique_ptr<PacketSource>> sources;  ///< by input port
    std::map<unsigned, std::unique_ptr<PacketSink>> sinks;      ///< by output port
};

unsigned source_of(const PacketArrival& arrival) {
    return static_cast<unsigned>(arrival.trace_id >> 40);
}

}  // namespace

int sc_main(int, char**) {
    sc_core::sc_report_handler::set_handler(count_router_warnings);
    const unsigned local = TorusTopology::kLocalPort;

    RouterUnderTest pipeline("pipeline");
    pipeline.send(local, kPlusX, 2);
    pipeline.send(local, kPlusX, 33, 1, 0, kStart + sc_core::sc_time(1, sc_core::SC_US));

    RouterUnderTest contention("contention");
    contention.send(local, kPlusX, 33, 20);
    contention.send(1, kPlusX, 33, 20);

    RouterUnderTest dateline("dateline");
    dateline.send(1, kPlusX, 4, 1, 1);  // arrived on class 1 and continues along x
    dateline.send(local, kPlusX, 4, 1, 0, kStart + sc_core::sc_time(1, sc_core::SC_US));
    dateline.send(1, kNode, 4, 1, 1, kStart + sc_core::sc_time(2, sc_core::SC_US));  // ejected here

    RouterUnderTest drops("drops");
    drops.send(local, 16, 4);  // 4x4x1 has nodes 0..15
    drops.send(local, kPlusY, 4, 1, 0, kStart, true);
    drops.send(local, kPlusY, 4);
    drops.send(1, 60000, 4);

    RouterUnderTest oversized("oversized", {{0, SinkSetup{40, 0}}});
    oversized.send(local, kPlusX, 36);  // 36 + 8 margin > 40
    oversized.send(local, kPlusX, 32);  // 32 + 8 fits exactly

    const double slow_gbps = 8.0;
    RouterUnderTest backpressure("backpressure", {{2, SinkSetup{64, slow_gbps}}});
    backpressure.send(local, kPlusY, 10, 40);
    backpressure.send(1, kPlusX, 10, 40);

    sc_core::sc_start();
    Checks checks;
    const sc_core::sc_time pipeline_latency = 4 * kCycle;

    // Pipeline latency and datapath rate.
    const auto& piped = pipeline.sinks[0]->arrivals();
    if (checks.expect(piped.size() == 2, "pipeline: both packets leave through +x")) {
        checks.expect(piped[0].head - piped[0].injected == pipeline_latency,
                      "pipeline: head in -> head out takes router.pipeline_cycles = 4 cycles, 16 ns (got " +
                          ns(piped[0].head - piped[0].injected) + ")");
        checks.expect(piped[0].tail - piped[0].head == kCycle,
                      "pipeline: a 2-phit packet's tail follows 1 cycle later at 2 phits/cycle");
        checks.expect(piped[1].tail - piped[1].head == 17 * kCycle,
                      "pipeline: a 33-phit packet's tail follows ceil(33/2) = 17 cycles later");
        checks.expect(piped[0].hops == 1, "pipeline: leaving through a network port counts a hop");
        checks.expect(piped[0].vc == 0, "pipeline: from the inject port the packet starts on VC 0");
    }

    // Two inputs share one output: back to back, alternating.
    const auto& shared = contention.sinks[0]->arrivals();
    if (checks.expect(shared.size() == 40 && contention.sinks[0]->errors() == 0,
                      "contention: 40 packets from two inputs all leave through +x intact")) {
        bool back_to_back = true;
        bool alternating = true;
        for (std::size_t i = 1; i < shared.size(); ++i) {
            back_to_back = back_to_back && shared[i].head - shared[i - 1].head == 17 * kCycle;
            alternating = alternating && source_of(shared[i]) != source_of(shared[i - 1]);
        }
        checks.expect(back_to_back, "contention: the output carries them back to back at 2 phits per cycle");
        checks.expect(alternating, "contention: round-robin arbitration alternates between the two inputs");
        const RouterPortStatistics& plus_x = contention.router.port_statistics(0);
        checks.expect(plus_x.packets_out == 40 && plus_x.phits_out == 40 * 33,
                      "statistics: +x sent 40 packets, 1320 phits");
        checks.expect(contention.router.port_statistics(local).packets_in == 20 &&
                          contention.router.port_statistics(1).packets_in == 20,
                      "statistics: each input accepted 20 packets");
        checks.expect(plus_x.busy_time == 40 * 17 * kCycle, "statistics: +x was busy 40 x 17 cycles");
        checks.expect(plus_x.stall_time > sc_core::SC_ZERO_TIME,
                      "statistics: waiting for the shared output shows as stall time (" + ns(plus_x.stall_time) + ")");
    }

    // VCs: class 1 continues along a dimension; a new dimension or the
    // inject port starts on VC 0; ejection does not count a hop.
    const auto& through = dateline.sinks[0]->arrivals();
    if (checks.expect(through.size() == 2, "dateline: both packets leave through +x")) {
        checks.expect(through[0].vc == 1, "dateline: a packet that crossed the x dateline stays on VC 1 along x");
        checks.expect(through[1].vc == 0, "dateline: a packet injected here travels on VC 0");
    }
    const auto& ejected = dateline.sinks[local]->arrivals();
    checks.expect(ejected.size() == 1 && ejected[0].hops == 0 && dateline.sinks[local]->errors() == 0,
                  "eject: a packet for this node leaves through the local port, without counting a hop");

    // Bad traffic is dropped, counted, reported, and its credits returned.
    const RouterDropStatistics& dropped = drops.router.drop_statistics();
    checks.expect(dropped.misaddressed == 2, "drops: 2 packets for nodes outside the network are dropped");
    checks.expect(dropped.malformed == 1, "drops: a packet whose header does not parse is dropped");
    checks.expect(drops.sinks[2]->packets() == 1 && drops.sinks[2]->errors() == 0,
                  "drops: the good packet behind them is delivered");
    checks.expect(drops.credits_restored(), "drops: every dropped packet's credits go back upstream");

    checks.expect(oversized.router.drop_statistics().oversized == 1,
                  "oversized: a packet larger than the downstream buffer less the margin is dropped");
    checks.expect(oversized.sinks[0]->packets() == 1 && oversized.sinks[0]->arrivals()[0].bytes == 32 * 32,
                  "oversized: the packet that fits (32 + 8 margin = 40 phits) is delivered");
    checks.expect(oversized.credits_restored(), "oversized: the dropped packet's credits go back upstream");
    checks.expect(router_warnings == 4 && first_router_warning.find("dropped packet") != std::string::npos,
                  "drops: each drop is reported with SC_REPORT_WARNING (" + std::to_string(router_warnings) +
                      "): " + first_router_warning);

    // Back-pressure: the slow consumer on +y sets the pace, nothing is lost,
    // the output stops at the margin, and other outputs keep flowing.
    PacketSink& slow = *backpressure.sinks[2];
    checks.expect(slow.packets() == 40 && slow.errors() == 0, "backpressure: all 40 packets reach the slow sink");
    checks.expect(slow.overruns() == 0, "backpressure: the sink's buffer never overflows");
    const std::uint32_t margin = RouterConfig{}.flow_control_margin_phits;
    checks.expect(slow.peak_occupancy() <= 64 - margin && slow.peak_occupancy() > 64 - margin - 10,
                  "backpressure: the output stops with the margin of " + std::to_string(margin) +
                      " phits left free (peak occupancy " + std::to_string(slow.peak_occupancy()) + " of 64)");
    const sc_core::sc_time drain_bound((40 * 320 - 64 * 32) * 8 / slow_gbps, sc_core::SC_NS);
    checks.expect(slow.last_tail() - kStart >= drain_bound,
                  "backpressure: the sink's drain rate sets the pace (last tail " + ns(slow.last_tail()) + ")");
    checks.expect(backpressure.router.port_statistics(2).stall_time > sc_core::SC_ZERO_TIME,
                  "backpressure: waiting for credits shows as stall time on +y");
    const sc_core::sc_time free_flow = kStart + 40 * 5 * kCycle + pipeline_latency + 5 * kCycle;
    checks.expect(backpressure.sinks[0]->packets() == 40 && backpressure.sinks[0]->last_tail() <= free_flow,
                  "backpressure: traffic to +x from another input is not held up (done at " +
                      ns(backpressure.sinks[0]->last_tail()) + ")");
    checks.expect(backpressure.credits_restored() && backpressure.router.buffered_packets() == 0,
                  "backpressure: at the end every buffer is empty and every credit is back");
    return checks.finish();
}
