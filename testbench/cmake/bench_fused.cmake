# isvp bench fused (issue 14 item 5): each pattern on 8 nodes, fused,
# semi-fused (is, fem), unfused and host software, every result checked
# against the C++ reference; the row must show the fully fused path and the
# LogcN model's columns, and the check line.
set(bench_fused_number "[0-9]+\\.[0-9]+")
set(bench_fused_percent "[-+][0-9]+%")
foreach(case "is;4;[0-9]+\\.[0-9]+" "fem;4;[0-9]+\\.[0-9]+" "pgemm;64;-" "spmv;64;-")
  list(GET case 0 pattern)
  list(GET case 1 size)
  list(GET case 2 semi)
  add_test(NAME bench_fused_${pattern}_8_nodes_checked
           COMMAND isvp bench fused --topology torus:2x2x2 --patterns ${pattern} --sizes ${size} --offload both --check)
  set_tests_properties(bench_fused_${pattern}_8_nodes_checked PROPERTIES TIMEOUT 120 LABELS "bench;fused"
    PASS_REGULAR_EXPRESSION "${pattern} +8 +${size} +${bench_fused_number} +${semi} +${bench_fused_number} +${bench_fused_number} +${bench_fused_number}x +fully +${bench_fused_number} +${bench_fused_number} +${bench_fused_percent} +${bench_fused_percent}\n# simulated [^\n]*\n# check: every result equals the C\\+\\+ reference"
    FAIL_REGULAR_EXPRESSION "mismatch|job failed")
endforeach()
# --offload on: the fused call alone, its path and the model beside it.
add_test(NAME bench_fused_all_patterns_offload_on_8_nodes_checked
         COMMAND isvp bench fused --topology torus:2x2x2 --sizes 16 --offload on --check --json bench_fused.json)
set_tests_properties(bench_fused_all_patterns_offload_on_8_nodes_checked PROPERTIES TIMEOUT 120 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "is +8 +16 +${bench_fused_number} +fully +${bench_fused_number} +${bench_fused_percent}\nfem +8 +16 +${bench_fused_number} +fully [^\n]*\npgemm +8 +16 +${bench_fused_number} +fully [^\n]*\nspmv +8 +16 +${bench_fused_number} +fully [^\n]*\n# simulated [^\n]*\n# check: every result"
  FAIL_REGULAR_EXPRESSION "mismatch|job failed")
# Bad arguments: a clear error naming what is wrong.
add_test(NAME bench_fused_unknown_pattern_refused
         COMMAND isvp bench fused --topology torus:2x2x2 --patterns is,allreduce)
set_tests_properties(bench_fused_unknown_pattern_refused PROPERTIES TIMEOUT 60 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "bench fused: unknown pattern 'allreduce' \\(known: is, fem, pgemm, spmv, all\\)")
add_test(NAME bench_fused_size_over_the_switch_buffer_refused
         COMMAND isvp bench fused --topology torus:2x2x2 --patterns fem --sizes 1024
                 --set collective.max_buffer_bytes=4096)
set_tests_properties(bench_fused_size_over_the_switch_buffer_refused PROPERTIES TIMEOUT 60 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "bench fused: fem size 1024 on 8 nodes needs a 65536-byte switch buffer; collective.max_buffer_bytes is 4096")
add_test(NAME bench_fused_pgemm_size_not_a_multiple_of_the_nodes_refused
         COMMAND isvp bench fused --topology torus:2x2x2 --patterns pgemm --sizes 60)
set_tests_properties(bench_fused_pgemm_size_not_a_multiple_of_the_nodes_refused PROPERTIES TIMEOUT 60
  LABELS "bench;fused" PASS_REGULAR_EXPRESSION "bench fused: pgemm size 60: n must be a multiple of the 8 nodes")
# A member's reduce-scatter block can be final before its node's ingress
# kernel has fed the other blocks: its next request (the barrier before the
# next call) queues behind the running collective. PGEMM 128 on 16 nodes,
# three calls per way: the engine dropped that request and the job
# deadlocked before.
add_test(NAME bench_fused_pgemm_16_nodes_next_request_during_the_kernel_feed
         COMMAND isvp bench fused --topology torus:4x2x2 --patterns pgemm --sizes 128 --iterations 3 --check)
set_tests_properties(bench_fused_pgemm_16_nodes_next_request_during_the_kernel_feed PROPERTIES TIMEOUT 120
  LABELS "bench;fused;hoc"
  PASS_REGULAR_EXPRESSION "pgemm +16 +128 +${bench_fused_number} +- +${bench_fused_number} +${bench_fused_number} +${bench_fused_number}x +fully [^\n]*\n# simulated [^\n]*\n# check: every result equals"
  FAIL_REGULAR_EXPRESSION "mismatch|job failed|dropped")
# scripts/fused_sweep.py --source bench: the sweep through isvp bench fused,
# all four patterns on 4 nodes, each checked and on the fully fused path,
# the LogcN model beside the fused column.
add_test(NAME fused_sweep_bench_4_nodes_checked_with_model
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/fused_sweep.py --build ${CMAKE_BINARY_DIR} --source bench
                 --nodes 4 --model)
set_tests_properties(fused_sweep_bench_4_nodes_checked_with_model PROPERTIES LABELS "bench;fused" TIMEOUT 120
  PASS_REGULAR_EXPRESSION "\\| PGEMM [^\n]* \\| 4 \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+x \\| [0-9.]+ \\| [-+][0-9]+% \\|\n\\| SpMV [^\n]*\n# check: every run's results equal the C\\+\\+ reference")
# The semi-fused way takes the semi path (the first collective and its op in
# the switch), the unfused and software ways the fallback (the JSON's paths).
add_test(NAME bench_fused_semi_way_takes_the_semi_path
         COMMAND sh -c "$<TARGET_FILE:isvp> bench fused --topology torus:2x2x2 --patterns is,fem --check --json bench_fused_semi.json >/dev/null && test $(grep -c '\"semi_path\": \"semi\"' bench_fused_semi.json) -eq 2 && test $(grep -c '\"unfused_path\": \"fallback\"' bench_fused_semi.json) -eq 2 && test $(grep -c '\"fused_path\": \"fully\"' bench_fused_semi.json) -eq 2")
set_tests_properties(bench_fused_semi_way_takes_the_semi_path PROPERTIES TIMEOUT 120 LABELS "bench;fused")

# scripts/fused_table.sh and hoc_table.sh with a build directory that has no
# isvp, or a bad size: a message and status 1 (they printed a table of empty
# cells, or of 0.000 and -nanx for 0 elements, and exited 0).
add_test(NAME fused_table_refuses_a_build_without_isvp
         COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/fused_table.sh /nonexistent 4 2>&1; echo status $?")
add_test(NAME fused_table_refuses_zero_elements
         COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/fused_table.sh ${CMAKE_BINARY_DIR} 0 2>&1; echo status $?")
add_test(NAME hoc_table_refuses_a_build_without_isvp
         COMMAND sh -c "${CMAKE_SOURCE_DIR}/scripts/hoc_table.sh /nonexistent 2>&1; echo status $?")
set_tests_properties(fused_table_refuses_a_build_without_isvp PROPERTIES LABELS "bench;fused" PASS_REGULAR_EXPRESSION
                     "fused_table.sh: /nonexistent/platform/isvp is not an executable [^\n]*\nstatus 1")
set_tests_properties(fused_table_refuses_zero_elements PROPERTIES LABELS "bench;fused" PASS_REGULAR_EXPRESSION
                     "fused_table.sh: ELEMENTS_PER_RANK must be a positive whole number, got '0'\nstatus 1")
set_tests_properties(hoc_table_refuses_a_build_without_isvp PROPERTIES LABELS "bench;fused" PASS_REGULAR_EXPRESSION
                     "hoc_table.sh: /nonexistent/platform/isvp is not an executable [^\n]*\nstatus 1")
# scripts/fused_sweep.py: a malformed --nodes is one line, not a traceback; a
# --csv it could not write is refused before the runs, not after them.
add_test(NAME fused_sweep_refuses_malformed_nodes
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/fused_sweep.py --build ${CMAKE_BINARY_DIR} --nodes 8,x)
add_test(NAME fused_sweep_refuses_a_csv_it_cannot_write
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/fused_sweep.py --build ${CMAKE_BINARY_DIR} --nodes 8
                 --csv /dev/null/fused.csv)
set_tests_properties(fused_sweep_refuses_malformed_nodes PROPERTIES LABELS "bench;fused" FAIL_REGULAR_EXPRESSION
                     "Traceback" PASS_REGULAR_EXPRESSION "fused_sweep: --nodes 8,x: node counts separated by commas")
set_tests_properties(fused_sweep_refuses_a_csv_it_cannot_write PROPERTIES LABELS "bench;fused" FAIL_REGULAR_EXPRESSION
                     "Traceback;fused in the switch" PASS_REGULAR_EXPRESSION
                     "fused_sweep: cannot write /dev/null/fused.csv: /dev/null is not a folder it may write in")
