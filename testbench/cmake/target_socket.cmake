# The light TLM target socket the blocks use instead of
# tlm_utils::simple_target_socket (models/common/isvp/target_socket.h).
isvp_systemc_testbench(target_socket_tb isvp_tlm_common)
add_test(NAME target_socket_forwards_blocking_dmi_debug_and_refuses_nb COMMAND target_socket_tb)
set_tests_properties(target_socket_forwards_blocking_dmi_debug_and_refuses_nb PROPERTIES LABELS "common" TIMEOUT 60)
