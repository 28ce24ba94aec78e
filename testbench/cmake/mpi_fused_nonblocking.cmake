# Nonblocking fused collectives (issue 14 item 3; docs/FUSED.md, "Nonblocking"):
# MPIX_I... calls against their blocking forms (same bytes, same path), in
# flight with other traffic, completed by MPI_Wait / Waitall / Test, and their
# errors. Named after mpi.cmake so that it is read after it (its functions).
isvp_mpi_program(fused_nonblocking fused_nonblocking.c)
add_custom_target(isvp_mpi_fused_nonblocking_programs ALL DEPENDS ${isvp_mpi_test_binaries}/fused_nonblocking)
isvp_mpi_test(fused_nonblocking_4_ranks 4 2x2x1 fused_nonblocking)
isvp_mpi_test(fused_nonblocking_8_ranks 8 2x2x2 fused_nonblocking)
foreach(n 4 8)
  set_tests_properties(mpi_fused_nonblocking_${n}_ranks_offload_on mpi_fused_nonblocking_${n}_ranks_offload_off
                       PROPERTIES LABELS "mpi;fused")
endforeach()
# Two semi-fused calls in flight on two contexts, the later one's program
# done first: each engine's one CGRA event must still wake it for the other
# (a lost notification was a deadlock).
isvp_mpi_program(fused_two_programs fused_two_programs.c)
add_custom_target(isvp_mpi_fused_two_programs ALL DEPENDS ${isvp_mpi_test_binaries}/fused_two_programs)
isvp_mpi_test(fused_two_programs_4_ranks 4 2x2x1 fused_two_programs)
set_tests_properties(mpi_fused_two_programs_4_ranks_offload_on mpi_fused_two_programs_4_ranks_offload_off
                     PROPERTIES LABELS "mpi;fused" PASS_REGULAR_EXPRESSION "fused_two_programs: passed")

# Fully fused FEM (Allgather -> prefix sum in the CGRA -> Allgather with
# unequal counts that the engine fills from the program's output): the path
# fused_bench reports and its check against the C reference; with a switch
# buffer smaller than the blocks the switch refuses the data request on
# every member and the driver runs it in software (path 1), same results.
add_test(NAME mpi_fused_fem_fully_fused_in_the_switch
         COMMAND sh -c "out=$($<TARGET_FILE:isvp> run -n 8 --set topology.torus=2x2x2 -- ${isvp_mpi_test_binaries}/fused_bench fem 5) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 2 .*check ok'")
add_test(NAME mpi_fused_fem_blocks_beyond_the_switch_buffer_run_in_software
         COMMAND sh -c "out=$($<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 --set collective.max_buffer_bytes=256 -- ${isvp_mpi_test_binaries}/fused_bench fem 16) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 1 .*check ok'")
# Unequal counts (rank % 3 + 1, 600 + rank) on a size that is not a power of two.
isvp_mpi_test(fused_collectives_6_ranks 6 3x2x1 fused_collectives)
set_tests_properties(mpi_fused_collectives_6_ranks_offload_on mpi_fused_collectives_6_ranks_offload_off
                     PROPERTIES LABELS "mpi;fused")
set_tests_properties(mpi_fused_fem_fully_fused_in_the_switch
                     mpi_fused_fem_blocks_beyond_the_switch_buffer_run_in_software
                     PROPERTIES TIMEOUT 300 LABELS "mpi;fused")
