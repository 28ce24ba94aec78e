# isvp bench fused: a row can depend on the rows before it only through the
# ranks' entry skew the barrier keeps, never through state an offloaded
# ingress kernel leaves behind (testbench/scripts/bench_fused_entry_skew.py,
# docs/REPORTS.md): SpMV alone and after an offloaded PGEMM take the same
# time from the last rank's start to the last rank's end.
add_test(NAME bench_fused_spmv_after_pgemm_differs_only_by_entry_skew
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/bench_fused_entry_skew.py
                 $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(bench_fused_spmv_after_pgemm_differs_only_by_entry_skew PROPERTIES TIMEOUT 120
  LABELS "bench;fused;hoc" PASS_REGULAR_EXPRESSION "ok: the difference is the entry skew")
# --aligned-start: every rank enters each call at the same simulated time
# (docs/REPORTS.md): no entry skew in any way, and SpMV's figure after the
# PGEMM equals SpMV's alone, bit for bit.
add_test(NAME bench_fused_aligned_start_removes_the_entry_skew
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/bench_fused_entry_skew.py
                 $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR} --aligned-start)
set_tests_properties(bench_fused_aligned_start_removes_the_entry_skew PROPERTIES TIMEOUT 120
  LABELS "bench;fused;hoc" PASS_REGULAR_EXPRESSION "ok: with --aligned-start every rank starts together")
add_test(NAME bench_fused_aligned_start_with_compute_scale_refused
         COMMAND isvp bench fused --topology torus:2x2x2 --patterns spmv --aligned-start --set host.compute_scale=1)
set_tests_properties(bench_fused_aligned_start_with_compute_scale_refused PROPERTIES TIMEOUT 60 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "bench fused: --aligned-start needs host.compute_scale 0")
