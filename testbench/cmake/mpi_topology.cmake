# MPI process topologies and neighbourhood collectives (sw/mpi/topology.cpp,
# graph_topology.cpp, coll_neighbor.cpp). Programs in testbench/mpi/topo_*,
# compiled by the wrappers (isvp_mpi_program, mpi.cmake, included before this
# file: the glob is sorted) and run with offload on and off (isvp_mpi_test).
isvp_mpi_program(topo_graph topo_graph.c)
isvp_mpi_program(topo_neighbor topo_neighbor.c)
add_custom_target(isvp_mpi_topology_programs ALL DEPENDS ${isvp_mpi_test_binaries}/topo_graph
                                                         ${isvp_mpi_test_binaries}/topo_neighbor)

# Graph and distributed graph topologies: creation, queries, MPI_Comm_dup
# keeping the topology (Cartesian too), errors failing every rank alike.
isvp_mpi_test(topo_graph 4 2x2x1 topo_graph)
# Neighbourhood collectives, blocking and nonblocking, on Cartesian (ring,
# open line, periodic extents 2 and 1), graph (self loop, double edge) and
# distributed graph communicators; MPI_PROC_NULL slots untouched.
isvp_mpi_test(topo_neighbor 4 2x2x1 topo_neighbor)

# The default (fatal) handler names the call and what is wrong, and ends the
# job with the error class as the exit status: a neighbourhood collective
# without a topology (MPI_ERR_TOPOLOGY = 10), a distributed graph whose
# edge ends disagree (MPI_ERR_ARG = 12, on every rank: none is left waiting).
function(isvp_mpi_topology_fatal_test name mode status pattern)
  add_test(NAME mpi_topo_fatal_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh ${status} "${pattern}" --
                   timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                   ${isvp_mpi_test_binaries}/topo_neighbor ${mode})
  set_tests_properties(mpi_topo_fatal_${name} PROPERTIES TIMEOUT 120 LABELS mpi RUN_SERIAL TRUE)
endfunction()
isvp_mpi_topology_fatal_test(neighbor_collective_without_topology fatal-no-topology 10
                             "MPI_Ineighbor_alltoall: the communicator has no topology")
isvp_mpi_topology_fatal_test(inconsistent_dist_graph fatal-inconsistent 12
                             "MPI_Dist_graph_create_adjacent: the graph is inconsistent: rank 0 lists rank 1 0 time\\(s\\) as a destination, rank 1 lists rank 0 1 time\\(s\\) as a source")
