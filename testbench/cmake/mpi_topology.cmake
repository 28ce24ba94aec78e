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
