# Plain MPI_Alltoall in the switch's Alltoall (issue 14; docs/MPI.md,
# "Collectives"): results equal to the direct definition and to
# MPI_Alltoallv (the host's exchange) byte for byte, for basic, derived and
# differing types and MPI_IN_PLACE, on the world and a split communicator;
# ISVP_MPI_STATS says every call went to the switch (offload on), none did
# (off), or all but the blocks beyond collective.max_buffer_bytes. Named
# after mpi.cmake so that it is read after it (its functions).
isvp_mpi_program(coll_alltoall_offload coll_alltoall_offload.c)
add_custom_target(isvp_mpi_coll_alltoall_offload_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/coll_alltoall_offload)
foreach(shape "5;5x1x1" "6;3x2x1" "8;2x2x2")
  list(GET shape 0 n)
  list(GET shape 1 torus)
  foreach(mode "on;26" "off;0")
    list(GET mode 0 offload)
    list(GET mode 1 offloaded)
    add_test(NAME mpi_coll_alltoall_offload_${n}_ranks_offload_${offload}
             COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n ${n} --offload ${offload} --set topology.torus=${torus} -- ${isvp_mpi_test_binaries}/coll_alltoall_offload) || { echo \"$out\"; exit 1; }; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 26') -eq ${n}")
    set_tests_properties(mpi_coll_alltoall_offload_${n}_ranks_offload_${offload}
                         PROPERTIES TIMEOUT 300 LABELS "mpi;collective;fused")
  endforeach()
endforeach()
# 300 ints per block: 1200 B x 16 blocks (6 ranks) or x 8 (the 3-rank half)
# exceed 4096 B, so those two calls per communicator run in software.
add_test(NAME mpi_coll_alltoall_offload_beyond_the_switch_buffer
         COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 6 --set topology.torus=3x2x1 --set collective.max_buffer_bytes=4096 -- ${isvp_mpi_test_binaries}/coll_alltoall_offload 300) || { echo \"$out\"; exit 1; }; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded 22 of 26') -eq 6")
set_tests_properties(mpi_coll_alltoall_offload_beyond_the_switch_buffer PROPERTIES TIMEOUT 300 LABELS "mpi;collective;fused")
# isvp bench collectives --collectives alltoall (by name; not in "all"):
# every result checked against the definition, switch and host software,
# a power-of-two and a folded size, with the LogGP model's columns.
foreach(shape "8;2x2x2" "6;3x2x1")
  list(GET shape 0 n)
  list(GET shape 1 torus)
  add_test(NAME bench_collectives_alltoall_${n}_nodes_checked
           COMMAND isvp bench collectives --topology torus:${torus} --collectives alltoall --check --iterations 1
                   --warmup 0 --sizes 8,4K --offload both)
  set_tests_properties(bench_collectives_alltoall_${n}_nodes_checked PROPERTIES TIMEOUT 300 LABELS "bench;fused"
                       PASS_REGULAR_EXPRESSION "alltoall +4096 +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+ +[0-9.]+"
                       FAIL_REGULAR_EXPRESSION "mismatch")
endforeach()
