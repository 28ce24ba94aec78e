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
