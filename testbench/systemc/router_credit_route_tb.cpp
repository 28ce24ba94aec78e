// Credits between two routers across an Aurora link go straight to the
// upstream router (CreditRoute, models/router/README.md) and must give
// exactly what the TLM path gives. Two copies of one chain — a source on
// router A's local port, A's +x output over a link into router B, B's
// local port into a slow sink, so that B's input buffer fills and A waits
// for B's credits — one as built, one with a relay on the link's credit
// output that answers no to CreditRoute (the credits then go by
// b_transport). Every packet must arrive at the same head and tail time in
// both, after A has waited for credits.
#include <memory>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>

#include "isvp/aurora_link.h"
#include "isvp/packet_channel.h"
#include "isvp/router.h"
#include "isvp/torus_topology.h"
#include "torus_testbench.h"

using namespace isvp;
using isvp::testbench::Checks;

namespace {

const sc_core::sc_time kStart(1, sc_core::SC_US);

/// Passes credits on unchanged; offers no CreditRoute (the default).
class CreditRelay : public sc_core::sc_module {
  public:
    tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND> in;
    tlm_utils::simple_initiator_socket<CreditRelay> out;

    explicit CreditRelay(sc_core::sc_module_name name)
        : sc_core::sc_module(name), in("in"), out("out"), target_(*this) {
        in.bind(target_);
    }
    std::uint64_t relayed() const { return relayed_; }

  private:
    class Target final : public BlockingTransportTarget {
      public:
        explicit Target(CreditRelay& relay) : relay_(&relay) {}
        void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
            ++relay_->relayed_;
            relay_->out->b_transport(payload, delay);
        }

      private:
        CreditRelay* relay_;
    };
    Target target_;
    std::uint64_t relayed_ = 0;
};

/// Source -> router A -> link -> router B -> sink, credits back the same way.
struct Chain {
    Chain(const std::string& name, bool relay_credits)
        : topology(TorusShape{4, 1, 1}),
          routing(make_torus_routing("dor", topology, config.vcs)),
          a((name + "_a").c_str(), config, routing, 0),
          b((name + "_b").c_str(), config, routing, 1),
          link((name + "_link").c_str(), AuroraConfig{}),
          source((name + "_source").c_str(), 0, config.vcs),
          sink((name + "_sink").c_str(), 1, config.vcs, 96, 5.0) {
        const unsigned local = TorusTopology::kLocalPort;
        for (unsigned p = 0; p < local; ++p) {
            if (topology.neighbour(0, p) == 1 && a_out == local) a_out = p;
            if (topology.neighbour(1, p) == 0 && b_in == local) b_in = p;
        }
        source.out.bind(a.in(local));
        a.credit_out(local).bind(source.credit_in);
        a.out(a_out).bind(link.in);
        link.out.bind(b.in(b_in));
        b.credit_out(b_in).bind(link.credit_in);
        if (relay_credits) {
            relay = std::make_unique<CreditRelay>((name + "_relay").c_str());
            link.credit_out.bind(relay->in);
            relay->out.bind(a.credit_in(a_out));
        } else {
            link.credit_out.bind(a.credit_in(a_out));
        }
        b.out(local).bind(sink.in);
        sink.credit_out.bind(b.credit_in(local));
        sink.keep_arrivals(true);
        for (unsigned i = 0; i < 60; ++i)
            source.add(PacketRequest{kStart, 1, 33 * kPhitBytes - kNetworkPacketOverhead, 0});
    }

    RouterConfig config;
    TorusTopology topology;
    std::shared_ptr<const RoutingPolicy> routing;
    Router a;
    Router b;
    AuroraLink link;
    PacketSource source;
    PacketSink sink;
    std::unique_ptr<CreditRelay> relay;
    unsigned a_out = TorusTopology::kLocalPort;  ///< A's +x port
    unsigned b_in = TorusTopology::kLocalPort;   ///< B's -x port
};

}  // namespace

int sc_main(int, char**) {
    Chain direct("direct", false);
    Chain relayed("relayed", true);
    sc_core::sc_start(sc_core::sc_time(200, sc_core::SC_US));

    Checks checks;
    checks.expect(direct.b.credits_direct(direct.b_in), "as built, B's credits go straight to router A");
    checks.expect(!relayed.b.credits_direct(relayed.b_in) && relayed.relay->relayed() > 0,
                  "behind a relay without a CreditRoute they go by b_transport (" +
                      std::to_string(relayed.relay->relayed()) + " returns relayed)");
    checks.expect(direct.a.port_statistics(direct.a_out).stall_time > sc_core::SC_ZERO_TIME,
                  "router A waited for B's credits (stall " +
                      direct.a.port_statistics(direct.a_out).stall_time.to_string() + ")");
    const auto& got = direct.sink.arrivals();
    const auto& expected = relayed.sink.arrivals();
    bool same = got.size() == expected.size() && got.size() == 60;
    for (std::size_t i = 0; same && i < got.size(); ++i)
        same = got[i].trace_id == expected[i].trace_id && got[i].head == expected[i].head &&
               got[i].tail == expected[i].tail;
    checks.expect(same, "all 60 packets arrive at the same head and tail times both ways (last tail " +
                            (got.empty() ? std::string("-") : got.back().tail.to_string()) + ")");
    checks.expect(direct.a.output_credits(direct.a_out, 0) == relayed.a.output_credits(relayed.a_out, 0) &&
                      direct.a.output_credits(direct.a_out, 0) == direct.config.vc_buffer_phits(),
                  "every credit is back at A, both ways");
    return checks.finish();
}
