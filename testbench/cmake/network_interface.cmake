# The QDMA's network interface (models/network_interface): the packet
# adapter alone against a scripted network.
isvp_systemc_testbench(network_interface_tb isvp_network_interface)
add_test(NAME network_interface_packet_adapter COMMAND network_interface_tb)
