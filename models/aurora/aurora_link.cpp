#include "isvp/aurora_link.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "isvp/crc32.h"
#include "isvp/sim_now.h"

namespace isvp {

namespace {
constexpr const char* kReportType = "isvp/aurora";
constexpr std::size_t kCrcBytes = 4;
}  // namespace

AuroraLink::AuroraLink(sc_core::sc_module_name name, const AuroraConfig& config, std::uint64_t stream)
    : sc_core::sc_module(name),
      in("in"),
      credit_out("credit_out"),
      out("out"),
      credit_in("credit_in"),
      packet_target_(*this),
      credit_target_(*this),
      with_crc_(config.computes_crc()),
      with_errors_(false),
      timing_(config),
      errors_(config.bit_error_rate, config.seed, stream),
      config_(config),
      credit_(new CreditReturn) {
    with_errors_ = errors_.enabled();
    path_.latency = sc_core::sc_time(config.latency_ns, sc_core::SC_NS);
    path_.serialisation = sc_core::sc_time(timing_.serialisation_ns(path_.serialised_length), sc_core::SC_NS);
    path_.previous_serialisation = path_.serialisation;
    path_.link = this;
    credit_payload_.set_command(tlm::TLM_IGNORE_COMMAND);
    credit_payload_.set_data_length(0);
    credit_payload_.set_extension(credit_);
    // No frame can fail without CRC and errors: packets take Path's short way.
    if (with_crc_ || with_errors_)
        in.bind(packet_target_);
    else
        in.bind(path_);
    credit_in.bind(credit_target_);
}

void AuroraLink::start_of_simulation() {
    // Bindings are final now; keep the receivers' interfaces at hand.
    path_.out_if = out.operator->();
    credit_out_if_ = credit_out.operator->();
}

AuroraLinkStatistics AuroraLink::statistics() const {
    AuroraLinkStatistics statistics = statistics_;
    statistics.packets = path_.packets_before + path_.packets_at_length;
    statistics.bytes = path_.bytes_before + path_.packets_at_length * path_.serialised_length;
    statistics.busy_time = path_.busy_time;
    return statistics;
}

double AuroraLink::utilisation(const sc_core::sc_time& elapsed) const {
    return elapsed == sc_core::SC_ZERO_TIME ? 0.0 : path_.busy_time / elapsed;
}

void AuroraLink::Path::serialise(std::uint32_t length) {
    packets_before += packets_at_length;
    bytes_before += packets_at_length * serialised_length;
    packets_at_length = 0;
    // Packets of one or two sizes follow each other (a collective's data and
    // its window grants): the last two sizes' times are kept.
    std::swap(serialised_length, previous_length);
    std::swap(serialisation, previous_serialisation);
    if (length != serialised_length) {
        serialised_length = length;
        serialisation = sc_core::sc_time(link->timing_.serialisation_ns(length), sc_core::SC_NS);
    }
}

inline void AuroraLink::Path::hand_on(tlm::tlm_generic_payload& payload, PacketInfo& info, const sc_core::sc_time& end,
                                      const sc_core::sc_time& now) {
    ++packets_at_length;
    // The checked packet leaves the receive FIFO whole.
    info.tail_after = sc_core::SC_ZERO_TIME;
    sc_core::sc_time arrival = end + latency - now;
    out_if->b_transport(payload, arrival);
    if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) link->report_refused(info);
}

void AuroraLink::Path::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    // AuroraLink::on_packet without CRC and errors: one transmission, which
    // cannot fail.
    const sc_core::sc_time now = sim_now();
    PacketInfo& info = packet_info(payload);
    const auto length = static_cast<std::uint32_t>(payload.get_data_length());
    const sc_core::sc_time head = now + delay;
    const sc_core::sc_time tail = head + info.tail_after;
    if (length != serialised_length) serialise(length);
    const sc_core::sc_time start = std::max(head, serialiser_free);
    const sc_core::sc_time end = std::max(start + serialisation, tail);
    busy_time += end - start;
    serialiser_free = end;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    hand_on(payload, info, end, now);
}

void AuroraLink::report_refused(const PacketInfo& info) const {
    SC_REPORT_ERROR(kReportType, (std::string(name()) + ": the downstream receiver refused packet " +
                                  std::to_string(info.trace_id) + "; receivers must accept credited packets")
                                     .c_str());
}

bool AuroraLink::receiver_crc_matches(const std::uint8_t* bytes, std::size_t length, std::uint32_t sent_crc,
                                      const std::uint64_t* flipped_bit) {
    if (flipped_bit == nullptr) return crc32(bytes, length) == sent_crc;
    // The receiver's copy of the frame: packet bytes then the CRC word (LE).
    received_.resize(length + kCrcBytes);
    std::memcpy(received_.data(), bytes, length);
    for (std::size_t i = 0; i < kCrcBytes; ++i) received_[length + i] = static_cast<std::uint8_t>(sent_crc >> (8 * i));
    received_[*flipped_bit / 8] ^= static_cast<std::uint8_t>(1u << (*flipped_bit % 8));
    std::uint32_t received_crc = 0;
    for (std::size_t i = 0; i < kCrcBytes; ++i) received_crc |= std::uint32_t{received_[length + i]} << (8 * i);
    return crc32(received_.data(), length) == received_crc;
}

void AuroraLink::on_packet(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sim_now();
    PacketInfo& info = packet_info(payload);
    const std::uint8_t* bytes = payload.get_data_ptr();
    const std::size_t length = payload.get_data_length();
    const sc_core::sc_time head = now + delay;
    const sc_core::sc_time tail = head + info.tail_after;
    if (length != path_.serialised_length) path_.serialise(static_cast<std::uint32_t>(length));
    const sc_core::sc_time serialisation = path_.serialisation;
    const std::uint32_t sent_crc = with_crc_ ? crc32(bytes, length) : 0;
    const std::uint64_t frame_bits = 8 * (length + kCrcBytes);

    // Transmit, and replay while the receiver finds the CRC wrong.
    sc_core::sc_time start = std::max(head, path_.serialiser_free);
    sc_core::sc_time end;
    unsigned replays = 0;
    bool delivered = false;
    for (;;) {
        end = std::max(start + serialisation, tail);
        path_.busy_time += end - start;
        const auto flipped = with_errors_ ? errors_.corrupted_bit(frame_bits) : std::nullopt;
        if (!with_crc_ || receiver_crc_matches(bytes, length, sent_crc, flipped ? &*flipped : nullptr)) {
            delivered = true;
            break;
        }
        ++statistics_.crc_errors;
        if (config_.on_crc_error == CrcErrorPolicy::Drop || replays == config_.max_retransmissions) break;
        // The receiver sees the bad CRC one latency after the tail left; its
        // NAK needs another latency back; then the sender replays.
        ++replays;
        ++statistics_.retransmissions;
        start = end + 2 * path_.latency;
    }
    path_.serialiser_free = end;
    payload.set_response_status(tlm::TLM_OK_RESPONSE);

    if (!delivered) {
        ++statistics_.dropped;
        const std::string why = config_.on_crc_error == CrcErrorPolicy::Drop
                                    ? "a CRC error (aurora.on_crc_error=drop)"
                                    : "a CRC error on every one of " + std::to_string(replays) + " replays";
        if (statistics_.dropped <= drop_warnings_)
            SC_REPORT_WARNING(kReportType,
                              (std::string(name()) + ": dropped packet " + std::to_string(info.trace_id) + " (" +
                               std::to_string(length) + " bytes, VC " + std::to_string(info.vc) + ") after " + why +
                               "; its credits go back upstream" +
                               (statistics_.dropped == drop_warnings_ ? "; further drops on this link are counted "
                                                                        "(statistics), not reported"
                                                                      : ""))
                                  .c_str());
        if (drop_observer_) drop_observer_(info);
        // The receiver frees nothing, so the link hands the packet's credits
        // back: detected one latency after the tail, one more latency home.
        credit_->vc = info.vc;
        credit_->phits = phits_of(static_cast<std::uint32_t>(length));
        sc_core::sc_time credit_arrival = end + 2 * path_.latency - now;
        credit_out_if_->b_transport(credit_payload_, credit_arrival);
        return;
    }

    path_.hand_on(payload, info, end, now);
}

void AuroraLink::on_credit(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    sc_core::sc_time arrival = delay + path_.latency;
    credit_out_if_->b_transport(payload, arrival);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool AuroraLink::credit_route(CreditRoute& route) {
    if (credit_out.size() == 0) return false;
    if (!credit_route_of(credit_out.operator->(), route)) return false;
    route.delay += path_.latency.value();
    return true;
}

void AuroraLink::return_credits(std::uint8_t vc, std::uint32_t phits, sc_core::sc_time delay) {
    credit_->vc = vc;
    credit_->phits = phits;
    credit_payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    credit_out_if_->b_transport(credit_payload_, delay);
}

}  // namespace isvp
