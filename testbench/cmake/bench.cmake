# Collective benchmark runs with --check: every result of every collective is
# compared with a plain C++ reference on every rank ('mismatch' fails the run).
function(isvp_bench_check name)
  add_test(NAME ${name} COMMAND isvp bench collectives --check --iterations 1 --warmup 0 ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS collective FAIL_REGULAR_EXPRESSION "mismatch")
endfunction()

isvp_bench_check(collective_offload_check_tlm_2x2x2 --topology torus:2x2x2 --sizes 4,12,1K,4K,1M)
isvp_bench_check(collective_offload_check_rtl_aglu_2x2x2 --topology torus:2x2x2 --sizes 4,12,4K --aglu rtl)
isvp_bench_check(collective_software_baseline_check_2x2x2 --topology torus:2x2x2 --sizes 4,4K --offload off)
isvp_bench_check(collective_offload_check_4x4x2 --topology torus:4x4x2 --sizes 4,1K,16K)

# Long tier (-DISVP_LONG_TESTS=ON): 128 nodes, every collective, checked.
if(ISVP_LONG_TESTS)
  isvp_bench_check(collective_offload_check_long_128_nodes --topology torus:8x4x4 --sizes 4,1K,16K,64K)
  isvp_bench_check(collective_software_baseline_check_long_128_nodes --topology torus:8x4x4 --sizes 4,4K --offload off)
  set_tests_properties(collective_offload_check_long_128_nodes collective_software_baseline_check_long_128_nodes
                       PROPERTIES LABELS "collective;long")
endif()

# Benchmark side (testbench/scripts/bench_checks.py): the --offload both table,
# --timing-only's identical simulated times, the AgLU waveform, and the sweep
# script on a tiny configuration. Debian's python3 (with python3-matplotlib
# from scripts/setup.sh) comes first, before any other python3 on the PATH.
find_program(ISVP_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(bench_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/bench_checks.py)
set(bench_out ${CMAKE_BINARY_DIR}/bench_checks)
add_test(NAME bench_collectives_offload_both_table COMMAND ${ISVP_PYTHON3} ${bench_checks} both-format $<TARGET_FILE:isvp>)
add_test(NAME bench_collectives_timing_only_same_simulated_times
         COMMAND ${ISVP_PYTHON3} ${bench_checks} timing-only-equal $<TARGET_FILE:isvp> ${bench_out}/timing_only)
add_test(NAME bench_collectives_timing_only_skips_copies_and_arithmetic
         COMMAND ${ISVP_PYTHON3} ${bench_checks} timing-only-skips $<TARGET_FILE:isvp> ${bench_out}/timing_only_skips)
add_test(NAME bench_collectives_timing_only_reads_envelopes_only
         COMMAND ${ISVP_PYTHON3} ${bench_checks} timing-only-reads $<TARGET_FILE:isvp> ${bench_out}/timing_only_reads)
add_test(NAME bench_collectives_vcd_has_aglu_signals
         COMMAND ${ISVP_PYTHON3} ${bench_checks} vcd $<TARGET_FILE:isvp> ${bench_out}/vcd)
add_test(NAME sweep_script_writes_csv_json_markdown
         COMMAND ${ISVP_PYTHON3} ${bench_checks} sweep-smoke $<TARGET_FILE:isvp> ${bench_out}/sweep_smoke)
add_test(NAME sweep_script_writes_plots
         COMMAND ${ISVP_PYTHON3} ${bench_checks} sweep-plots $<TARGET_FILE:isvp> ${bench_out}/sweep_plots)
add_test(NAME sweep_jobs_runs_points_concurrently_with_identical_rows
         COMMAND ${ISVP_PYTHON3} ${bench_checks} sweep-jobs $<TARGET_FILE:isvp> ${bench_out}/sweep_jobs)
add_test(NAME sweep_partitions_per_point_identical_rows
         COMMAND ${ISVP_PYTHON3} ${bench_checks} sweep-partitions $<TARGET_FILE:isvp> ${bench_out}/sweep_partitions)
add_test(NAME bench_compare_script_same_and_changed
         COMMAND ${ISVP_PYTHON3} ${bench_checks} compare $<TARGET_FILE:isvp> ${bench_out}/compare)
set_tests_properties(bench_compare_script_same_and_changed bench_collectives_offload_both_table
                     bench_collectives_timing_only_same_simulated_times
                     bench_collectives_timing_only_skips_copies_and_arithmetic
                     bench_collectives_timing_only_reads_envelopes_only
                     bench_collectives_vcd_has_aglu_signals sweep_script_writes_csv_json_markdown
                     sweep_script_writes_plots sweep_jobs_runs_points_concurrently_with_identical_rows
                     sweep_partitions_per_point_identical_rows
                     PROPERTIES LABELS bench TIMEOUT 600)
set_tests_properties(sweep_script_writes_plots PROPERTIES SKIP_RETURN_CODE 77)

# Values the benches used to accept and then fail on partway through a run
# (a protocol error, SystemC warnings per rank) are refused before it starts,
# naming the option or parameter (and, for a buffer, the packet size that
# set its minimum).
add_test(NAME bench_pingpong_window_above_limit_named
         COMMAND isvp bench pingpong --nodes 2 --sizes 8 --iterations 1 --window 150000)
set_tests_properties(bench_pingpong_window_above_limit_named PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "bench pingpong: --window takes at most 10000 messages")
add_test(NAME bench_smi_pop_cycles_above_limit_named
         COMMAND isvp bench smi --nodes 8 --test stream --pop-cycles 4294967295)
set_tests_properties(bench_smi_pop_cycles_above_limit_named PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "bench smi: --pop-cycles must be at most 100000")
add_test(NAME bench_host_memory_beyond_msi_window_named
         COMMAND isvp bench collectives --topology torus:2x2x2 --sizes 8 --set host.memory_bytes=8589934592)
set_tests_properties(bench_host_memory_beyond_msi_window_named PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "config: host.memory_bytes must be an integer in \\[4096, 4276092928\\]")
add_test(NAME bench_collective_buffer_minimum_names_the_packet_size
         COMMAND isvp bench collectives --topology torus:2x2x2 --sizes 8 --set collective.packet_payload_bytes=16384)
set_tests_properties(bench_collective_buffer_minimum_names_the_packet_size PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION
                     "collective.host_buffer_phits must be an integer in \\[513 \\(one packet of collective.packet_payload_bytes=16384\\)")
add_test(NAME bench_pingpong_nodes_above_limit_named COMMAND isvp bench pingpong --nodes 100000 --sizes 8)
set_tests_properties(bench_pingpong_nodes_above_limit_named PROPERTIES LABELS bench TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "bench pingpong: --nodes takes at most 65536 nodes")
