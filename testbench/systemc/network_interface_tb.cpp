// PacketNetworkInterface alone, against a scripted network: it frames a
// request (network header naming the destination's node, processor header
// naming the source), injects on VC 0 only with credits, paces its link,
// delivers arrivals to the node's receiver, returns credits when the node
// releases a packet, and drops a malformed packet with its credits back at
// its tail.
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "isvp/packet_channel.h"
#include "isvp/packet_network_interface.h"

using namespace isvp;

namespace {

sc_core::sc_time ns(double value) {
    return sc_core::sc_time(value, sc_core::SC_NS);
}

class Checker {
  public:
    bool expect(bool ok, const std::string& what) {
        ++(ok ? passed_ : failed_);
        std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
        return ok;
    }
    int finish() const {
        std::cout << passed_ << " passed, " << failed_ << " failed\n";
        return failed_ == 0 && passed_ > 0 ? 0 : 1;
    }

  private:
    int passed_ = 0;  ///< checks that held
    int failed_ = 0;  ///< checks that did not
};

/// The network side: records what the interface sends and the credits it
/// returns; the test drives credits and arrivals through it.
class ScriptedNetwork : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<ScriptedNetwork> inject;            ///< from the interface's tx
    tlm_utils::simple_initiator_socket<ScriptedNetwork> inject_credit;  ///< to its tx_credit
    tlm_utils::simple_initiator_socket<ScriptedNetwork> eject;          ///< to its rx
    tlm_utils::simple_target_socket<ScriptedNetwork> eject_credit;      ///< from its rx_credit

    struct Sent {
        sc_core::sc_time at;              ///< when it was sent
        PacketInfo info;                  ///< its side information
        std::vector<std::uint8_t> bytes;  ///< the packet
    };
    struct Credit {
        sc_core::sc_time at;      ///< when it arrives
        std::uint8_t vc = 0;      ///< its VC
        std::uint32_t phits = 0;  ///< how many
    };
    std::vector<Sent> sent;       ///< every packet the interface sent
    std::vector<Credit> credits;  ///< every credit return from the interface's rx side

    explicit ScriptedNetwork(sc_core::sc_module_name name)
        : sc_core::sc_module(name),
          inject("inject"),
          inject_credit("inject_credit"),
          eject("eject"),
          eject_credit("eject_credit") {
        inject.register_b_transport(this, &ScriptedNetwork::on_packet);
        eject_credit.register_b_transport(this, &ScriptedNetwork::on_credit);
    }

    /// Grants `phits` of inject credit on `vc`, arriving after `delay`.
    void grant(std::uint8_t vc, std::uint32_t phits, sc_core::sc_time delay) {
        grant_message_.send(inject_credit, vc, phits, delay);
    }
    /// Delivers `bytes` on VC `vc`, head after `delay`, tail `tail_after` later.
    tlm::tlm_response_status deliver(const std::vector<std::uint8_t>& bytes, std::uint8_t vc, sc_core::sc_time delay,
                                     sc_core::sc_time tail_after) {
        tlm::tlm_generic_payload* packet = pool_.allocate(static_cast<std::uint32_t>(bytes.size()));
        std::copy(bytes.begin(), bytes.end(), packet->get_data_ptr());
        PacketInfo& info = packet_info(*packet);
        info.vc = vc;
        info.tail_after = tail_after;
        eject->b_transport(*packet, delay);
        const tlm::tlm_response_status status = packet->get_response_status();
        packet->release();
        return status;
    }
    /// Delivers a header-only packet (PacketInfo::header_only) of
    /// `wire_bytes` whose headers are the first bytes of `headers`.
    tlm::tlm_response_status deliver_header_only(const std::vector<std::uint8_t>& headers, std::uint32_t wire_bytes,
                                                 sc_core::sc_time delay) {
        tlm::tlm_generic_payload* packet = pool_.allocate_header_only(wire_bytes);
        std::copy(headers.begin(), headers.begin() + kNetworkPacketOverhead, packet->get_data_ptr());
        eject->b_transport(*packet, delay);
        const tlm::tlm_response_status status = packet->get_response_status();
        packet->release();
        return status;
    }
    PacketPool& pool() { return pool_; }

  private:
    void on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        const std::uint8_t* data = payload.get_data_ptr();
        sent.push_back({sc_core::sc_time_stamp() + delay, packet_info(payload),
                        std::vector<std::uint8_t>(data, data + payload.get_data_length())});
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        CreditReturn* credit = nullptr;
        payload.get_extension(credit);
        credits.push_back({sc_core::sc_time_stamp() + delay, credit->vc, credit->phits});
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }

    CreditMessage grant_message_;  ///< reused for every grant
    PacketPool pool_;              ///< packets it delivers
};

/// The node's side: what the interface tells it.
class RecordingNode : public NetworkReceiver {
  public:
    std::vector<IncomingPacket> received;  ///< arrivals, in order
    std::vector<std::string> malformed;    ///< drops, with why
    void on_receive(const IncomingPacket& packet) override { received.push_back(packet); }
    void on_malformed(const std::string& why) override { malformed.push_back(why); }
};

NetworkRequest request_to(std::uint16_t rank, std::uint32_t payload_bytes) {
    NetworkRequest request;
    request.header.message_bytes = payload_bytes;
    request.header.opcode = Opcode::Send;
    request.header.context_id = 4;
    request.header.rank = rank;
    request.payload_bytes = payload_bytes;
    request.last = true;
    return request;
}

}  // namespace

int sc_main(int, char**) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_ABORT);
    Checker check;
    PacketInterfaceConfig config;
    config.endpoint = 1;
    config.endpoints = 4;
    config.packet_payload_bytes = 1024;
    config.receive_buffer_bytes = 4096;
    config.link_bytes_per_cycle = 64;
    config.link_clock_mhz = 250.0;
    PacketNetworkInterface network_interface("network_interface", config);
    ScriptedNetwork network("network");
    RecordingNode node;
    network_interface.set_receiver(node);
    network_interface.tx.bind(network.inject);
    network.inject_credit.bind(network_interface.tx_credit);
    network.eject.bind(network_interface.rx);
    network_interface.rx_credit.bind(network.eject_credit);

    struct Script : sc_core::sc_module {
        std::function<void()> body;
        explicit Script(sc_core::sc_module_name name) : sc_core::sc_module(name) {
            SC_HAS_PROCESS(Script);
            SC_THREAD(run);
        }
        void run() {
            body();
            sc_core::sc_stop();
        }
    } script("script");

    script.body = [&] {
        sc_core::wait(ns(1));
        check.expect(network.credits.size() == 1 && network.credits[0].at == sc_core::SC_ZERO_TIME &&
                         network.credits[0].vc == 0 && network.credits[0].phits == 4096 / kPhitBytes,
                     "the whole receive buffer (128 phits) is granted on VC 0 at time 0");
        check.expect(network_interface.endpoint() == 1 && network_interface.endpoints() == 4 &&
                         network_interface.reaches(3) && !network_interface.reaches(4),
                     "endpoint 1 of 4 reaches ranks 0..3 only");

        // Framing and sending only with credits.
        OutgoingPacket packet = network_interface.frame(request_to(2, 100));
        check.expect(packet.payload_bytes == 100 && packet.wire_bytes == kNetworkPacketOverhead + 100 &&
                         packet.payload == packet.carrier->get_data_ptr() + kNetworkPacketOverhead,
                     "a framed packet leaves the payload area behind its headers to the node");
        for (std::uint32_t i = 0; i < 100; ++i) packet.payload[i] = static_cast<std::uint8_t>(i + 1);
        check.expect(!network_interface.space_to_send(packet), "no space to send before the network grants credits");
        const std::uint32_t phits = phits_of(packet.wire_bytes);
        network.grant(0, phits, ns(10));
        check.expect(!network_interface.space_to_send(packet), "credits annotated 10 ns ahead are not there yet");
        sc_core::wait(network_interface.space_event());
        check.expect(sc_core::sc_time_stamp() == ns(11) && network_interface.space_to_send(packet),
                     "space_event fires when the credits arrive (t = 11 ns)");
        network_interface.send(packet);
        check.expect(!packet && network_interface.send_credits() == 0, "the send takes the packet's credits");
        const std::uint32_t cycles = (static_cast<std::uint32_t>(kNetworkPacketOverhead) + 100 + 63) / 64;
        check.expect(network_interface.link_free_at() == ns(11) + ns(4) * cycles,
                     "the link is busy for ceil(bytes / 64) cycles of 4 ns");
        if (check.expect(network.sent.size() == 1, "one packet reached the network")) {
            const ScriptedNetwork::Sent& sent = network.sent[0];
            std::string why;
            const auto view = NetworkPacketView::parse(sent.bytes.data(), sent.bytes.size(), &why);
            check.expect(view && view->network.destination == 2 && view->network.context_id == 4 &&
                             view->network.last && view->network.size_code == 6,
                         "its network header names node 2, context 4, last, size code 6");
            check.expect(view && view->processor.rank == 1 && view->payload_bytes == 100 && view->payload[99] == 100,
                         "its processor header names the source (1) and the payload is the node's");
            check.expect(sent.info.vc == 0 && sent.info.trace_id == (1ull << 40) && sent.info.injected == ns(11) &&
                             sent.info.tail_after == ns(4) * (cycles - 1),
                         "VC 0, trace id endpoint << 40 | 0, tail cycles - 1 after the head");
        }
        OutgoingPacket second = network_interface.frame(request_to(0, 16));
        check.expect(!network_interface.space_to_send(second), "no space for a second packet: its credits were used");
        network_interface.discard(second);
        check.expect(!second, "a discarded packet is given back");

        // Arrivals, release and credit returns.
        const PacketFraming peer(3, 4, 1024);
        NetworkRequest arrival = request_to(1, 40);
        arrival.offset = 0;
        std::vector<std::uint8_t> bytes(PacketFraming::wire_bytes(40), 0);
        peer.write_headers(arrival, bytes.data());
        bytes.back() = 0xAB;
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        check.expect(network.deliver(bytes, 0, ns(5), ns(8)) == tlm::TLM_OK_RESPONSE, "an arrival is accepted");
        const std::uint32_t arrival_phits = phits_of(static_cast<std::uint32_t>(bytes.size()));
        if (check.expect(node.received.size() == 1, "the node is told about it")) {
            const IncomingPacket& in = node.received[0];
            const auto header = ProcessorHeader::decode(in.header);
            check.expect(header && header->rank == 3 && in.context_id == 4 && in.payload_bytes == 40 && in.last &&
                             in.payload[39] == 0xAB && in.tail == now + ns(13),
                         "with the source rank, context, payload and tail time (head + 5 ns + 8 ns)");
            check.expect(network_interface.rx_buffered_phits() == arrival_phits,
                         "it holds its receive-buffer phits until released");
            const std::size_t before = network.credits.size();
            network_interface.release(in, ns(20));
            check.expect(network.credits.size() == before + 1 && network.credits.back().at == now + ns(20) &&
                             network.credits.back().phits == arrival_phits &&
                             network_interface.rx_buffered_phits() == 0,
                         "released, its phits go back to the network after the given delay");
        }

        // A header-only packet (job.timing_only): costed by its wire length,
        // its payload not carried, so the node gets no bytes to read.
        {
            tlm::tlm_generic_payload* hollow = network.pool().allocate_header_only(PacketFraming::wire_bytes(40));
            check.expect(hollow->get_data_length() == PacketFraming::wire_bytes(40) && packet_info(*hollow).header_only,
                         "a header-only packet keeps its wire length and says it is header-only");
            hollow->release();
            tlm::tlm_generic_payload* full = network.pool().allocate(PacketFraming::wire_bytes(40));
            check.expect(!packet_info(*full).header_only && full->get_data_length() == PacketFraming::wire_bytes(40),
                         "its pool slot, reused, is a whole packet again");
            full->get_data_ptr()[PacketFraming::wire_bytes(40) - 1] = 1;  // the whole length is there to write
            full->release();
            const std::size_t received = node.received.size();
            check.expect(
                network.deliver_header_only(bytes, PacketFraming::wire_bytes(40), ns(1)) == tlm::TLM_OK_RESPONSE,
                "a header-only arrival is accepted");
            if (check.expect(node.received.size() == received + 1, "the node is told about it")) {
                const IncomingPacket& in = node.received.back();
                check.expect(in.payload == nullptr && in.payload_bytes == 40,
                             "with its payload length but no bytes (nothing to read or write)");
                check.expect(network_interface.rx_buffered_phits() == arrival_phits,
                             "holding the receive-buffer phits of its whole length");
                network_interface.release(in, ns(1));
            }
        }

        // A malformed packet: dropped, the node told, credits back at its tail.
        const std::vector<std::uint8_t> runt(4, 0xFF);
        const std::size_t before = network.credits.size();
        check.expect(network.deliver(runt, 0, ns(2), ns(3)) == tlm::TLM_OK_RESPONSE, "a malformed packet is accepted");
        check.expect(node.malformed.size() == 1 && node.received.size() == 2, "and dropped, the node told why");
        check.expect(network.credits.size() == before + 1 && network.credits.back().at == now + ns(5) &&
                         network.credits.back().phits == 1 && network_interface.rx_buffered_phits() == 0,
                     "its credit returns at its tail");
    };
    sc_core::sc_start();
    return check.finish();
}
