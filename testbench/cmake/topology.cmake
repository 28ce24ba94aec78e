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
