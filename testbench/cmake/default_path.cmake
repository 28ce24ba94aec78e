# The default host path (driver.send_path=auto, driver.completion=poll; since
# 2026-11-27): its simulated figures on a fixed set of rows, recorded when it
# became the default (testbench/golden/default_path_*.txt). The older goldens
# (topology_torus_simulated_times_unchanged, speed_torus_*) pin the fetch + msi
# path they were recorded with.
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(golden_bench ${CMAKE_SOURCE_DIR}/testbench/scripts/golden_bench.py)
add_test(NAME default_path_collectives_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/default_path_torus_4x2x2_collectives.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:4x2x2 --collectives all --sizes 8,4K,64K
                 --iterations 1 --offload both)
add_test(NAME default_path_pingpong_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/default_path_ring4_pingpong.txt --
                 $<TARGET_FILE:isvp> bench pingpong --nodes 4 --hops 2 --sizes 8:64K --iterations 2)
# The routers' wake-up hints (off by default at 16 switches) forced on:
# a speed option only, the same golden rows.
add_test(NAME router_wakeup_hints_on_collectives_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/default_path_torus_4x2x2_collectives.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:4x2x2 --collectives all --sizes 8,4K,64K
                 --iterations 1 --offload both --set router.wakeup_hints=on)
set_tests_properties(router_wakeup_hints_on_collectives_simulated_times_unchanged PROPERTIES LABELS "bench" TIMEOUT 300)
# Timing-only with the prefetch path: payload-free contributions through
# standing descriptors (a null data pointer was once copied: SIGSEGV).
add_test(NAME default_path_timing_only_prefetch_runs
         COMMAND $<TARGET_FILE:isvp> bench collectives --topology torus:4x2x1 --collectives all --sizes 4,1K,64K
                 --iterations 1 --offload both --timing-only --set driver.send_path=prefetch)
set_tests_properties(default_path_collectives_simulated_times_unchanged default_path_pingpong_simulated_times_unchanged
                     default_path_timing_only_prefetch_runs PROPERTIES LABELS "bench;host_path" TIMEOUT 300)
