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
# Which path a call takes: in the switch by default; the host baseline when
# the engine's buffer cannot hold the partial product (no offload) or the
# threshold is 0; a malformed threshold is refused naming it.
add_test(NAME mpi_hoc_default_offloads
         COMMAND sh -c "out=$($<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/hoc_bench pgemm 16) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 1'")
add_test(NAME mpi_hoc_small_engine_buffer_runs_the_host_baseline
         COMMAND sh -c "out=$($<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 --set collective.max_buffer_bytes=4096 -- ${isvp_mpi_test_binaries}/hoc_bench pgemm 64) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 0'")
add_test(NAME mpi_hoc_threshold_zero_runs_the_host_baseline
         COMMAND sh -c "out=$(ISVP_MPI_HOC_THRESHOLD=0 $<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/hoc_bench spmv 16 2) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 0'")
add_test(NAME mpi_hoc_bad_threshold_refused
         COMMAND sh -c "ISVP_MPI_HOC_THRESHOLD=abc $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- ${isvp_mpi_test_binaries}/hoc_bench spmv 16 2 2>&1")
set_tests_properties(mpi_hoc_bad_threshold_refused PROPERTIES PASS_REGULAR_EXPRESSION
                     "ISVP_MPI_HOC_THRESHOLD must be a byte count >= 0, got 'abc'")
set_tests_properties(mpi_hoc_default_offloads mpi_hoc_small_engine_buffer_runs_the_host_baseline
                     mpi_hoc_threshold_zero_runs_the_host_baseline mpi_hoc_bad_threshold_refused
                     PROPERTIES TIMEOUT 120 LABELS "mpi;fused;hoc")
