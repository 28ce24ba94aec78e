# The fully fused NAS IS pattern with the switch's own Alltoall (issue 14;
# docs/FUSED.md): MPIX_Allreduce_op_alltoall and its nonblocking form against
# the host software version (MPI_Allreduce, the program in C, MPI_Alltoall)
# bit for bit, int32 and float; path 2 (fully fused) on every size — 3, 5,
# 6, 7 and 12 ranks fold onto the hypercube of the power of two below;
# members disagreeing on the count get an error. Named after mpi.cmake so
# that it is read after it (its functions).
isvp_mpi_program(fused_alltoall fused_alltoall.c)
add_custom_target(isvp_mpi_fused_alltoall_programs ALL DEPENDS ${isvp_mpi_test_binaries}/fused_alltoall)
isvp_mpi_test(fused_alltoall_2_ranks 2 2x1x1 fused_alltoall)
isvp_mpi_test(fused_alltoall_3_ranks 3 3x1x1 fused_alltoall)
isvp_mpi_test(fused_alltoall_5_ranks 5 5x1x1 fused_alltoall)
isvp_mpi_test(fused_alltoall_6_ranks 6 3x2x1 fused_alltoall)
isvp_mpi_test(fused_alltoall_7_ranks 7 7x1x1 fused_alltoall)
isvp_mpi_test(fused_alltoall_12_ranks 12 3x2x2 fused_alltoall)
isvp_mpi_test(fused_alltoall_8_ranks 8 2x2x2 fused_alltoall)
isvp_mpi_test(fused_alltoall_16_ranks 16 4x2x2 fused_alltoall)
foreach(n 2 3 5 6 7 8 12 16)
  set_tests_properties(mpi_fused_alltoall_${n}_ranks_offload_on mpi_fused_alltoall_${n}_ranks_offload_off
                       PROPERTIES LABELS "mpi;fused")
endforeach()
