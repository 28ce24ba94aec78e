# SmartFuse fused collectives (issue 14 item 3; docs/FUSED.md): the CGRA
# beside the collective engine and the shim's MPIX_ calls (isvp_fused.h).
# Results against plain C references for both patterns, offloaded (small op
# arrays, offload on) and in the fallback (large arrays, or offload off), on
# 4, 8 and 16 ranks; malformed programs refused, the switch still working.
isvp_mpi_program(fused_collectives fused_collectives.c)
isvp_mpi_program(fused_bench fused_bench.c)
add_custom_target(isvp_mpi_fused_programs ALL DEPENDS ${isvp_mpi_test_binaries}/fused_collectives
                                                      ${isvp_mpi_test_binaries}/fused_bench)
isvp_mpi_test(fused_collectives_4_ranks 4 2x2x1 fused_collectives)
isvp_mpi_test(fused_collectives_8_ranks 8 2x2x2 fused_collectives)
isvp_mpi_test(fused_collectives_16_ranks 16 4x2x2 fused_collectives)
foreach(n 4 8 16)
  set_tests_properties(mpi_fused_collectives_${n}_ranks_offload_on mpi_fused_collectives_${n}_ranks_offload_off
                       PROPERTIES LABELS "mpi;fused")
endforeach()
# The evaluator's threshold is a parameter: 0 bytes sends every call to the fallback.
add_test(NAME mpi_fused_threshold_zero_runs_on_the_host
         COMMAND sh -c "out=$(ISVP_MPI_FUSED_THRESHOLD=0 $<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/fused_bench is 4) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 0'")
add_test(NAME mpi_fused_default_threshold_offloads
         COMMAND sh -c "out=$($<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/fused_bench is 4) || exit 1; echo \"$out\"; echo \"$out\" | grep -q 'offloaded 2'")
set_tests_properties(mpi_fused_threshold_zero_runs_on_the_host mpi_fused_default_threshold_offloads
                     PROPERTIES TIMEOUT 300 LABELS "mpi;fused")

# The CGRA's registers on one engine: LOAD and its refusals, ARM and its refusals.
isvp_systemc_testbench(collective_cgra_registers_tb isvp_collective)
add_test(NAME fused_cgra_registers_load_and_arm COMMAND collective_cgra_registers_tb)
set_tests_properties(fused_cgra_registers_load_and_arm PROPERTIES LABELS fused TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "collective_cgra_registers_tb: passed")
