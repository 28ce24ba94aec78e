# Higher-order collectives (issue 14 item 4; docs/FUSED.md): MPIX_Pgemm and
# MPIX_Spmv_band against plain C references on 2, 8 and 16 ranks, offload on
# (the ingress kernel in the CGRA, the partial sums in the switches) and off
# (the host baseline), integer and double; the threshold's fallback; bad
# arguments refused. Named after mpi.cmake so that it is read after it.
isvp_mpi_program(hoc_collectives hoc_collectives.c)
isvp_mpi_program(hoc_bench hoc_bench.c)
add_custom_target(isvp_mpi_hoc_programs ALL DEPENDS ${isvp_mpi_test_binaries}/hoc_collectives
                                                    ${isvp_mpi_test_binaries}/hoc_bench)
isvp_mpi_test(hoc_collectives_2_ranks 2 2x1x1 hoc_collectives)
isvp_mpi_test(hoc_collectives_8_ranks 8 2x2x2 hoc_collectives)
isvp_mpi_test(hoc_collectives_16_ranks 16 4x2x2 hoc_collectives)
foreach(n 2 8 16)
  set_tests_properties(mpi_hoc_collectives_${n}_ranks_offload_on mpi_hoc_collectives_${n}_ranks_offload_off
                       PROPERTIES LABELS "mpi;fused;hoc")
endforeach()
