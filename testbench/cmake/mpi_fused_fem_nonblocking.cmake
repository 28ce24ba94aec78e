# The nonblocking FEM call fully fused (issue 14; docs/FUSED.md,
# "Nonblocking"): MPIX_Iallgather_prefix_allgatherv against its blocking form
# and the host software version, in flight with other traffic, completed by
# MPI_Wait / Waitall / Test, and a datatype disagreement reported by MPI_Wait
# on every member. Named after mpi.cmake so that it is read after it.
isvp_mpi_program(fused_fem_nonblocking fused_fem_nonblocking.c)
add_custom_target(isvp_mpi_fused_fem_nonblocking_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/fused_fem_nonblocking)
isvp_mpi_test(fused_fem_nonblocking_2_ranks 2 2x1x1 fused_fem_nonblocking)
isvp_mpi_test(fused_fem_nonblocking_8_ranks 8 2x2x2 fused_fem_nonblocking)
isvp_mpi_test(fused_fem_nonblocking_16_ranks 16 4x2x2 fused_fem_nonblocking)
foreach(n 2 8 16)
  set_tests_properties(mpi_fused_fem_nonblocking_${n}_ranks_offload_on mpi_fused_fem_nonblocking_${n}_ranks_offload_off
                       PROPERTIES LABELS "mpi;fused")
endforeach()
# Blocks beyond the switch's buffer: the switch refuses the data's request on
# every member, the request gathers the blocks in software (same bytes).
add_test(NAME mpi_fused_fem_nonblocking_beyond_the_switch_buffer
         COMMAND isvp run -n 8 --offload on --set topology.torus=2x2x2 --set collective.max_buffer_bytes=2048 --
                 ${isvp_mpi_test_binaries}/fused_fem_nonblocking small)
set_tests_properties(mpi_fused_fem_nonblocking_beyond_the_switch_buffer PROPERTIES TIMEOUT 300 LABELS "mpi;fused")
