# Simulator speed (issue 12): larger runs than the other goldens cover (256
# nodes, offloaded and in software) must give exactly the simulated figures
# recorded before the speed work (testbench/golden/torus_8x8x4_*.txt).
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(golden_bench ${CMAKE_SOURCE_DIR}/testbench/scripts/golden_bench.py)
add_test(NAME speed_torus_8x8x4_offload_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_8x8x4_offload.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:8x8x4 --collectives allreduce,bcast,barrier
                 --sizes 8,1K --iterations 2 --set driver.send_path=fetch --set driver.completion=msi)
add_test(NAME speed_torus_8x8x4_software_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_8x8x4_software.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:8x8x4 --collectives allreduce --sizes 8
                 --iterations 1 --offload off --set driver.send_path=fetch --set driver.completion=msi)
set_tests_properties(speed_torus_8x8x4_offload_simulated_times_unchanged
                     speed_torus_8x8x4_software_simulated_times_unchanged PROPERTIES LABELS "speed;bench" TIMEOUT 300)
# The same 256-node runs with the ranks as threads (job.ranks=threads): the
# default runs them as fibers on the simulator's thread; both must give the
# recorded figures.
add_test(NAME speed_torus_8x8x4_offload_ranks_as_threads_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_8x8x4_offload.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:8x8x4 --collectives allreduce,bcast,barrier
                 --sizes 8,1K --iterations 2 --set driver.send_path=fetch --set driver.completion=msi
                 --set job.ranks=threads)
set_tests_properties(speed_torus_8x8x4_offload_ranks_as_threads_simulated_times_unchanged
                     PROPERTIES LABELS "speed;bench" TIMEOUT 300)
# A bad job.ranks is refused before anything is built.
add_test(NAME bench_job_ranks_refused COMMAND isvp bench pingpong --set job.ranks=processes)
set_tests_properties(bench_job_ranks_refused PROPERTIES LABELS bench
  PASS_REGULAR_EXPRESSION "config: job.ranks must be one of fibers, threads, got 'processes'")
# The NIC engines run only when something of theirs is due. A credit return
# wakes an engine only while a packet waits for credits, and a packet queued
# while the engine runs waits for that run's own drain, not for another run
# in the next delta cycle (CreditedOutPort). Those idle runs were 29 % of
# the engines' runs: before, this run took 733,641 delta cycles, and
# 677,197 after. The rows are those recorded before the change.
add_test(NAME speed_engines_run_when_due_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_4x4x2_timing_only_streams.txt
                 --max-delta-cycles 700000 -- $<TARGET_FILE:isvp> bench collectives --topology torus:4x4x2
                 --collectives allreduce,reduce_scatter,bcast --sizes 64K --iterations 1 --warmup 0 --timing-only)
set_tests_properties(speed_engines_run_when_due_simulated_times_unchanged PROPERTIES LABELS "speed;bench" TIMEOUT 300)
# The hot paths' prefetches are in the binaries: GCC drops every call to a
# function that only prefetches, silently (session 31: the wake-up
# scheduler's were gone, and with them ~10 % of the 512-node bench).
set(prefetched_in_isvp _ZN4isvp15WakeupScheduler3runEv _ZN4isvp6Router6departEjjm _ZN4isvp15CreditedOutPort5drainEv)
add_test(NAME speed_prefetches_kept_in_isvp
         COMMAND ${CMAKE_SOURCE_DIR}/testbench/scripts/prefetches_kept.sh $<TARGET_FILE:isvp> ${prefetched_in_isvp})
add_test(NAME speed_prefetches_kept_in_torus_bench
         COMMAND ${CMAKE_SOURCE_DIR}/testbench/scripts/prefetches_kept.sh $<TARGET_FILE:torus_bench>
                 _ZN4isvp15WakeupScheduler3runEv _ZN4isvp6Router6departEjjm)
set_tests_properties(speed_prefetches_kept_in_isvp speed_prefetches_kept_in_torus_bench PROPERTIES
                     LABELS speed PASS_REGULAR_EXPRESSION "1 passed, 0 failed" FAIL_REGULAR_EXPRESSION "FAIL")
