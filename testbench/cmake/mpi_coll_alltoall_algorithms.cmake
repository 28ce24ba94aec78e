# The software MPI_Alltoall's algorithms (MPICH's choice by bytes per
# destination: Bruck's up to 256 B on 8 ranks or more, scattered up to
# 32 KiB, pairwise beyond, the in-place exchange for MPI_IN_PLACE;
# sw/mpi/coll_alltoall.cpp, docs/MPI.md "Collectives") against the direct
# definition, with basic, strided and struct types, on the world, reversed
# halves, ranks mod 3 and MPI_COMM_SELF: offload off on 1, 2, 3, 5, 8, 12
# and 16 ranks (every communicator size 1..16 meets the tiers that apply to
# it), 64 ranks (two batches of the scattered exchange), and offload on (the
# same checks through the switch). Named after mpi.cmake so that it is read
# after it (its functions).
isvp_mpi_program(coll_alltoall_algorithms coll_alltoall_algorithms.c)
add_custom_target(isvp_mpi_coll_alltoall_algorithms_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/coll_alltoall_algorithms)
foreach(shape "1;1x1x1" "2;2x1x1" "3;3x1x1" "5;5x1x1" "8;2x2x2" "12;3x2x2" "16;4x2x2" "64;4x4x4")
  list(GET shape 0 n)
  list(GET shape 1 torus)
  add_test(NAME mpi_coll_alltoall_algorithms_${n}_ranks_offload_off
           COMMAND isvp run -n ${n} --offload off --set topology.torus=${torus} --
                   ${isvp_mpi_test_binaries}/coll_alltoall_algorithms)
  set_tests_properties(mpi_coll_alltoall_algorithms_${n}_ranks_offload_off PROPERTIES TIMEOUT 600
                       LABELS "mpi;collective")
endforeach()
add_test(NAME mpi_coll_alltoall_algorithms_8_ranks_offload_on
         COMMAND isvp run -n 8 --offload on --set topology.torus=2x2x2 --
                 ${isvp_mpi_test_binaries}/coll_alltoall_algorithms)
set_tests_properties(mpi_coll_alltoall_algorithms_8_ranks_offload_on PROPERTIES TIMEOUT 300
                     LABELS "mpi;collective")
# The timing mode behind docs/PERFORMANCE.md's software MPI_Alltoall table.
add_test(NAME mpi_coll_alltoall_algorithms_time_prints_the_slowest_rank
         COMMAND isvp run -n 8 --offload off --set topology.torus=2x2x2 --
                 ${isvp_mpi_test_binaries}/coll_alltoall_algorithms time 16)
set_tests_properties(mpi_coll_alltoall_algorithms_time_prints_the_slowest_rank PROPERTIES TIMEOUT 300
                     LABELS "mpi;collective" PASS_REGULAR_EXPRESSION "alltoall 8 ranks 16 bytes per block: [0-9]+\\.[0-9]+ us"
                     FAIL_REGULAR_EXPRESSION "FAIL")
