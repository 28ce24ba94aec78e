// TransportFakeDevice: a tiny BAR0 target for the transport tests, shared by
// every rank (one `bar` binding and one `msi` binding per rank, index =
// rank). Registers and timing: testbench/guests/transport_scenarios.h.
//
// Abstraction: LT, blocking transport. Reads annotate kReadLatencyPs, writes
// kWriteLatencyPs; SLOW wait()s inside b_transport; TRIGGER and KICK send an
// MSI (a 4-byte write of the vector, annotated kMsiLatencyPs) after
// kTriggerDelayPs; offsets from kUnmappedFrom answer with an address error.
// Every access to SHARED is logged with its time and rank.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "transport_scenarios.h"

namespace isvp::test {

class TransportFakeDevice : public sc_core::sc_module {
  public:
    tlm_utils::multi_passthrough_target_socket<TransportFakeDevice> bar;     ///< BAR0 of each rank (index = rank)
    tlm_utils::multi_passthrough_initiator_socket<TransportFakeDevice> msi;  ///< MSIs to each rank (index = rank)

    struct Access {
        std::uint64_t time_ps;  ///< when the access reached the device
        int rank;               ///< through whose binding
        bool write;             ///< write or read
        std::uint32_t value;    ///< written or returned
    };
    std::vector<Access> shared_log;  ///< every SHARED access, in execution order

    explicit TransportFakeDevice(sc_core::sc_module_name name) : sc_core::sc_module(name), bar("bar"), msi("msi") {
        bar.register_b_transport(this, &TransportFakeDevice::b_transport);
        SC_HAS_PROCESS(TransportFakeDevice);
        SC_THREAD(send_interrupts);
    }

  private:
    static sc_core::sc_time ps(std::uint64_t value) { return sc_core::sc_time::from_value(value); }

    void b_transport(int rank, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
        unsigned char* data = payload.get_data_ptr();
        const std::uint64_t offset = payload.get_address();
        if (payload.get_data_length() != 4 || offset >= fake::kUnmappedFrom) {
            payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            delay += ps(fake::kReadLatencyPs);
            return;
        }
        const std::uint64_t now_ps = sc_core::sc_time_stamp().value();
        if (payload.is_write()) {
            const std::uint32_t value = static_cast<std::uint32_t>(data[0]) | static_cast<std::uint32_t>(data[1]) << 8 |
                                        static_cast<std::uint32_t>(data[2]) << 16 |
                                        static_cast<std::uint32_t>(data[3]) << 24;
            if (offset == fake::TRIGGER) schedule(rank, value & 63u);
            if (offset == fake::KICK && static_cast<int>(value >> 8) < static_cast<int>(msi.size()))
                schedule(static_cast<int>(value >> 8), value & 63u);
            if (offset == fake::SHARED) {
                shared_ = value;
                shared_log.push_back({now_ps, rank, true, value});
            }
            delay += ps(fake::kWriteLatencyPs);
        } else {
            std::uint32_t value = 0;
            if (offset == fake::COUNTER) value = counter_++;
            if (offset == fake::TIME_NS) value = static_cast<std::uint32_t>(now_ps / 1000);
            if (offset == fake::SHARED) {
                value = shared_;
                shared_log.push_back({now_ps, rank, false, value});
            }
            if (offset == fake::SLOW) {
                wait(ps(fake::kSlowWaitPs));
                value = static_cast<std::uint32_t>(sc_core::sc_time_stamp().value() / 1000);
            }
            for (int i = 0; i < 4; ++i) data[i] = static_cast<unsigned char>(value >> (8 * i));
            delay += ps(fake::kReadLatencyPs);
        }
        payload.set_response_status(tlm::TLM_OK_RESPONSE);
    }

    void schedule(int rank, unsigned vector) {
        scheduled_.emplace(sc_core::sc_time_stamp() + ps(fake::kTriggerDelayPs), std::make_pair(rank, vector));
        wake_.notify(sc_core::SC_ZERO_TIME);
    }

    void send_interrupts() {
        for (;;) {
            if (scheduled_.empty()) {
                wait(wake_);
                continue;
            }
            const sc_core::sc_time due = scheduled_.begin()->first;
            if (due > sc_core::sc_time_stamp()) {
                wait(due - sc_core::sc_time_stamp(), wake_);
                continue;
            }
            const auto [rank, vector] = scheduled_.begin()->second;
            scheduled_.erase(scheduled_.begin());
            unsigned char data[4] = {static_cast<unsigned char>(vector), 0, 0, 0};
            tlm::tlm_generic_payload payload;
            payload.set_command(tlm::TLM_WRITE_COMMAND);
            payload.set_address(0);
            payload.set_data_ptr(data);
            payload.set_data_length(4);
            payload.set_streaming_width(4);
            payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time latency = ps(fake::kMsiLatencyPs);
            msi[rank]->b_transport(payload, latency);
        }
    }

    std::multimap<sc_core::sc_time, std::pair<int, unsigned>> scheduled_;  ///< MSIs to send: due time -> (rank, vector)
    sc_core::sc_event wake_;                                               ///< a new MSI was scheduled
    std::uint32_t counter_ = 0;                                            ///< COUNTER reads so far
    std::uint32_t shared_ = 0;                                             ///< SHARED's value
};

}  // namespace isvp::test
