// A light TLM-2.0 target socket for blocks that only serve blocking
// transport (plus, where a block registers them, DMI and debug transport).
//
// tlm_utils::simple_target_socket carries an nb <-> b adapter nobody in the
// platform uses: a payload event queue (a named sc_object with an event) and
// two more events per socket. At 256 nodes those were ~24 K unnamed events,
// each given a unique name through an ostringstream and a map insert at
// construction (~220 M instructions of bring-up, docs/PERFORMANCE.md). This
// socket forwards b_transport, get_direct_mem_ptr and transport_dbg to the
// owner's registered member functions exactly as simple_target_socket does
// when a b_transport callback is registered (a direct call, no wait, no
// event), so simulated behaviour is the same; it has no events at all.
//
// Same registration API as simple_target_socket, so a block changes only the
// socket type. Differences: nb_transport_fw is refused with an error (no
// initiator in the platform calls it; simple_target_socket would have run
// b_transport in a spawned thread), and register_nb_transport_fw does not
// exist.
#pragma once

#include <string>

#include <systemc>
#include <tlm>

namespace isvp {

template <typename Module, sc_core::sc_port_policy Policy = sc_core::SC_ONE_OR_MORE_BOUND>
class BlockingTargetSocketBase : public tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, Policy> {
  public:
    using Base = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, Policy>;
    using Payload = tlm::tlm_generic_payload;
    using BTransport = void (Module::*)(Payload&, sc_core::sc_time&);
    using TransportDbg = unsigned int (Module::*)(Payload&);
    using GetDirectMemPtr = bool (Module::*)(Payload&, tlm::tlm_dmi&);

    explicit BlockingTargetSocketBase(const char* name) : Base(name), forward_(*this) { Base::bind(forward_); }

    using Base::bind;

    void register_b_transport(Module* module, BTransport callback) {
        check_registration(module, forward_.b_transport_ == nullptr, "register_b_transport");
        forward_.b_transport_ = callback;
    }
    void register_transport_dbg(Module* module, TransportDbg callback) {
        check_registration(module, forward_.transport_dbg_ == nullptr, "register_transport_dbg");
        forward_.transport_dbg_ = callback;
    }
    void register_get_direct_mem_ptr(Module* module, GetDirectMemPtr callback) {
        check_registration(module, forward_.get_direct_mem_ptr_ == nullptr, "register_get_direct_mem_ptr");
        forward_.get_direct_mem_ptr_ = callback;
    }

  private:
    /// The forward interface the socket's export is bound to: calls the
    /// owner's registered member functions.
    class Forward final : public tlm::tlm_fw_transport_if<> {
      public:
        explicit Forward(BlockingTargetSocketBase& socket) : socket_(&socket) {}

        void b_transport(Payload& payload, sc_core::sc_time& delay) override {
            if (b_transport_ == nullptr) {
                socket_->report("b_transport called but no blocking transport callback registered");
                payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
                return;
            }
            (module_->*b_transport_)(payload, delay);
        }
        tlm::tlm_sync_enum nb_transport_fw(Payload& payload, tlm::tlm_phase&, sc_core::sc_time&) override {
            socket_->report("nb_transport_fw called, but this socket serves blocking transport only");
            payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
            return tlm::TLM_COMPLETED;
        }
        bool get_direct_mem_ptr(Payload& payload, tlm::tlm_dmi& dmi) override {
            if (get_direct_mem_ptr_ == nullptr) {
                dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);  // as simple_target_socket
                return false;
            }
            return (module_->*get_direct_mem_ptr_)(payload, dmi);
        }
        unsigned int transport_dbg(Payload& payload) override {
            return transport_dbg_ == nullptr ? 0 : (module_->*transport_dbg_)(payload);
        }

        BlockingTargetSocketBase* socket_;              ///< for error messages
        Module* module_ = nullptr;                      ///< owner of the callbacks
        BTransport b_transport_ = nullptr;              ///< null: b_transport is an error
        TransportDbg transport_dbg_ = nullptr;          ///< null: debug transport moves 0 bytes
        GetDirectMemPtr get_direct_mem_ptr_ = nullptr;  ///< null: no DMI
    };

    void check_registration(Module* module, bool first, const char* what) {
        if (sc_core::sc_get_status() & (sc_core::SC_RUNNING | sc_core::SC_PAUSED))
            report(std::string(what) + " called after elaboration");
        if (!first) report(std::string(what) + ": callback already registered");
        if (forward_.module_ != nullptr && forward_.module_ != module)
            report(std::string(what) + ": callbacks registered for two different modules");
        forward_.module_ = module;
    }
    void report(const std::string& message) const {
        SC_REPORT_ERROR("isvp/target_socket", (std::string(this->name()) + ": " + message).c_str());
    }

    Forward forward_;  ///< what the export is bound to
};

/// A target socket that must be bound (simple_target_socket's policy).
template <typename Module>
class BlockingTargetSocket : public BlockingTargetSocketBase<Module> {
  public:
    explicit BlockingTargetSocket(const char* name) : BlockingTargetSocketBase<Module>(name) {}
};

/// A target socket that may stay unbound (simple_target_socket_optional's).
template <typename Module>
class OptionalBlockingTargetSocket : public BlockingTargetSocketBase<Module, sc_core::SC_ZERO_OR_MORE_BOUND> {
  public:
    explicit OptionalBlockingTargetSocket(const char* name)
        : BlockingTargetSocketBase<Module, sc_core::SC_ZERO_OR_MORE_BOUND>(name) {}
};

}  // namespace isvp
