# The pluggable network (models/router: NetworkTopology, Fabric, TableRouting):
# the torus unchanged, fat trees and topology files running every collective
# checked against the reference, MPI programs on a fat tree, bad topologies
# refused. Routing itself (reachability, deadlock freedom) is unit-tested.
set(topology_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/topology_checks.py)

add_test(NAME topology_torus_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${topology_checks} torus-unchanged $<TARGET_FILE:isvp> ${CMAKE_SOURCE_DIR}/testbench/golden)
add_test(NAME topology_fattree_radix8_every_collective_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> fattree:radix=8,hosts=16
                 --collectives all --sizes 8,4K,64K --iterations 1)
add_test(NAME topology_fattree_radix8_three_levels_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> fattree:radix=8,hosts=60
                 --collectives allreduce,allgather,bcast --sizes 8,2K --iterations 1)
add_test(NAME topology_fattree_radix28_rtl_aglu_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> fattree:radix=28,hosts=32
                 --collectives allreduce,reduce,reduce_scatter,barrier --sizes 8,2K --iterations 1 --aglu rtl)
add_test(NAME topology_file_irregular_every_collective_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp>
                 file:${CMAKE_SOURCE_DIR}/docs/topologies/irregular.json --collectives all --sizes 8,4K --iterations 1)
add_test(NAME topology_fattree_pingpong_same_leaf
         COMMAND ${ISVP_PYTHON3} ${topology_checks} pingpong $<TARGET_FILE:isvp> fattree:radix=8,hosts=12 0)
add_test(NAME topology_fattree_pingpong_over_a_spine
         COMMAND ${ISVP_PYTHON3} ${topology_checks} pingpong $<TARGET_FILE:isvp> fattree:radix=8,hosts=12 2)
add_test(NAME topology_refuses_unknown_form
         COMMAND ${ISVP_PYTHON3} ${topology_checks} refused $<TARGET_FILE:isvp> mesh:4x4 "--topology")
add_test(NAME topology_refuses_fattree_without_uplinks
         COMMAND ${ISVP_PYTHON3} ${topology_checks} refused $<TARGET_FILE:isvp> fattree:radix=2,hosts=4,oversubscription=3
                 "topology.fattree")
# An oversubscription the leaves' whole ports cannot give is shown as built.
add_test(NAME topology_fattree_names_its_leaf_split
         COMMAND $<TARGET_FILE:isvp> topology --topology fattree:radix=8,hosts=32,oversubscription=100)
set_tests_properties(topology_fattree_names_its_leaf_split PROPERTIES
                     PASS_REGULAR_EXPRESSION "# leaves: 7 host ports and 1 uplink each \\(7:1 for oversubscription 100\\)")
add_test(NAME topology_refuses_missing_file
         COMMAND ${ISVP_PYTHON3} ${topology_checks} refused $<TARGET_FILE:isvp> file:/nonexistent/topology.json
                 "/nonexistent/topology.json")
set_tests_properties(topology_torus_simulated_times_unchanged topology_fattree_radix8_every_collective_checked
                     topology_fattree_radix8_three_levels_checked topology_fattree_radix28_rtl_aglu_checked
                     topology_file_irregular_every_collective_checked topology_fattree_pingpong_same_leaf
                     topology_fattree_pingpong_over_a_spine topology_refuses_unknown_form
                     topology_refuses_fattree_without_uplinks topology_refuses_missing_file
                     PROPERTIES LABELS topology TIMEOUT 600)

# An unmodified MPI program on a fat tree, offloaded and in software.
foreach(offload on off)
  add_test(NAME mpi_coll_every_collective_fattree_offload_${offload}
           COMMAND isvp run -n 12 --topology fattree:radix=8,hosts=12 --offload ${offload} --
                   ${isvp_mpi_test_binaries}/coll_every_collective)
  set_tests_properties(mpi_coll_every_collective_fattree_offload_${offload} PROPERTIES TIMEOUT 300 LABELS "mpi;topology")
endforeach()

# `isvp topology`: a network inspected without simulating it — routes checked,
# a route printed hop by hop, a group's aggregation tree, bad arguments refused.
add_test(NAME topology_command_fattree_route_and_tree
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --route 0,31 --tree 0-31 --tree-index 1)
set_tests_properties(topology_command_fattree_route_and_tree PROPERTIES LABELS topology PASS_REGULAR_EXPRESSION
  "no dependency cycle.*route: h0 -> leaf0 port 7 vc 0 -> spine1 port 5 vc 0 -> leaf5 port 1 vc 0 -> h31.*depth 2: spine1\\(leaf0\\(h0 h1 h2 h3 h4 h5\\) leaf1")
add_test(NAME topology_command_trims_single_member_switches
         COMMAND isvp topology --topology file:${CMAKE_SOURCE_DIR}/docs/topologies/irregular.json --tree 0,3,5)
set_tests_properties(topology_command_trims_single_member_switches PROPERTIES LABELS topology
                     PASS_REGULAR_EXPRESSION "1 combining switch, depth 1: s2\\(h0 h3 h5\\)")
add_test(NAME topology_command_refuses_a_member_outside_the_network
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --tree 0,40)
set_tests_properties(topology_command_refuses_a_member_outside_the_network PROPERTIES LABELS topology
                     PASS_REGULAR_EXPRESSION "--tree: aggregation tree: member 40 is not a host of the 32-host network"
                     FAIL_REGULAR_EXPRESSION "leaf0:")
# Host addresses are whole numbers and nothing else: stoul once read "0,1,2"
# as the route 0 -> 1, 4294967297 as host 1 and "-1" as tree index 2^32 - 1.
add_test(NAME topology_command_refuses_a_route_of_three_hosts
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --route 0,1,2)
add_test(NAME topology_command_refuses_a_host_address_beyond_32_bits
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --route 4294967297,1)
add_test(NAME topology_command_refuses_a_tree_member_beyond_32_bits
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --tree 4294967296)
add_test(NAME topology_command_refuses_a_negative_tree_index
         COMMAND isvp topology --topology fattree:radix=8,hosts=32 --tree 0-7 --tree-index -1)
set_tests_properties(topology_command_refuses_a_route_of_three_hosts PROPERTIES PASS_REGULAR_EXPRESSION
                     "--route takes two host addresses A,B, got '0,1,2'")
set_tests_properties(topology_command_refuses_a_host_address_beyond_32_bits PROPERTIES PASS_REGULAR_EXPRESSION
                     "--route takes two host addresses A,B, got '4294967297,1'")
set_tests_properties(topology_command_refuses_a_tree_member_beyond_32_bits PROPERTIES PASS_REGULAR_EXPRESSION
                     "--tree takes host addresses and ranges like 0-7,12, got '4294967296'")
set_tests_properties(topology_command_refuses_a_negative_tree_index PROPERTIES PASS_REGULAR_EXPRESSION
                     "'--tree-index' is not a whole number")
set_tests_properties(topology_command_refuses_a_route_of_three_hosts
                     topology_command_refuses_a_host_address_beyond_32_bits
                     topology_command_refuses_a_tree_member_beyond_32_bits topology_command_refuses_a_negative_tree_index
                     PROPERTIES LABELS topology FAIL_REGULAR_EXPRESSION "leaf0:")

# --tree-index without --tree used to be ignored silently.
add_test(NAME topology_tree_index_needs_tree
         COMMAND isvp topology --topology fattree:radix=8,hosts=16 --tree-index 3)
set_tests_properties(topology_tree_index_needs_tree PROPERTIES TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "--tree-index chooses among the roots of a --tree: give --tree LIST too")
