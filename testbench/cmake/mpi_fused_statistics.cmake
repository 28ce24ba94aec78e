# The CGRA's counters in `isvp run --stats` (issue 14; docs/FUSED.md,
# "Statistics"): fused_collectives on 4 ranks runs programs on every node
# and has the switch refuse a nine-instruction program on every node; with
# offload off no node's CGRA runs anything.
add_test(NAME mpi_fused_cgra_statistics_in_stats_json
         COMMAND sh -c "$<TARGET_FILE:isvp> run -n 4 --offload on --set topology.torus=2x2x1 --stats ${CMAKE_CURRENT_BINARY_DIR}/fused_cgra_stats.json -- ${isvp_mpi_test_binaries}/fused_collectives && ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/check_cgra_stats.py ${CMAKE_CURRENT_BINARY_DIR}/fused_cgra_stats.json --runs 2 --refused 1")
add_test(NAME mpi_fused_cgra_statistics_zero_with_offload_off
         COMMAND sh -c "$<TARGET_FILE:isvp> run -n 4 --offload off --set topology.torus=2x2x1 --stats ${CMAKE_CURRENT_BINARY_DIR}/fused_cgra_stats_off.json -- ${isvp_mpi_test_binaries}/fused_collectives && ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/check_cgra_stats.py ${CMAKE_CURRENT_BINARY_DIR}/fused_cgra_stats_off.json --runs 0 && ! grep -q '\"cgra_runs\": *[1-9]' ${CMAKE_CURRENT_BINARY_DIR}/fused_cgra_stats_off.json")
set_tests_properties(mpi_fused_cgra_statistics_in_stats_json mpi_fused_cgra_statistics_zero_with_offload_off
                     PROPERTIES TIMEOUT 300 LABELS "mpi;fused" PASS_REGULAR_EXPRESSION "cgra statistics ok")
