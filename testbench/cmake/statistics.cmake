# Statistics complete and in one place (issue 15 item 4): every field of every
# block's statistics struct is in its visit() table, and `isvp run --stats` /
# `isvp bench pingpong --json` write every key of every table.
isvp_systemc_testbench(statistics_tables_tb isvp_collective isvp_kernel isvp_reliable isvp_pcie isvp_qdma isvp_router isvp_aurora)
add_test(NAME stats_every_struct_field_is_in_its_table COMMAND statistics_tables_tb)

add_test(NAME stats_run_writes_stats_file
         COMMAND $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set reliable.mode=on --stats
                 ${CMAKE_CURRENT_BINARY_DIR}/stats_run.json -- $<TARGET_FILE:p2p_guest> pingpong)
set_tests_properties(stats_run_writes_stats_file PROPERTIES FIXTURES_SETUP stats_run_json TIMEOUT 120 LABELS platform)
add_test(NAME stats_run_json_has_every_counter
         COMMAND statistics_tables_tb --check-json ${CMAKE_CURRENT_BINARY_DIR}/stats_run.json)
set_tests_properties(stats_run_json_has_every_counter PROPERTIES FIXTURES_REQUIRED stats_run_json LABELS platform)

add_test(NAME stats_bench_writes_json
         COMMAND $<TARGET_FILE:isvp> bench pingpong --nodes 2 --sizes 8 --set reliable.mode=on --json
                 ${CMAKE_CURRENT_BINARY_DIR}/stats_bench.json)
set_tests_properties(stats_bench_writes_json PROPERTIES FIXTURES_SETUP stats_bench_json TIMEOUT 120 LABELS platform)
add_test(NAME stats_bench_json_has_every_counter
         COMMAND statistics_tables_tb --check-json ${CMAKE_CURRENT_BINARY_DIR}/stats_bench.json)
set_tests_properties(stats_bench_json_has_every_counter PROPERTIES FIXTURES_REQUIRED stats_bench_json LABELS platform)
