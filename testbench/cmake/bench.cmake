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
