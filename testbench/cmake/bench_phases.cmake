# bench collectives --progress: the bring-up lines (platform built, first
# barrier done) with wall and CPU seconds, before the first row's line
# (docs/REPORTS.md; docs/PERFORMANCE.md, "Simulator speed at 1024 nodes").
add_test(NAME bench_collectives_progress_bringup_phases
         COMMAND isvp bench collectives --topology torus:2x2x1 --collectives allreduce --sizes 8 --iterations 1
                 --warmup 0 --progress)
set_tests_properties(bench_collectives_progress_bringup_phases PROPERTIES LABELS bench TIMEOUT 120
                     PASS_REGULAR_EXPRESSION
                     "platform built, [0-9.]+ s elapsed, [0-9.]+ CPU s.*first barrier done \\(drivers up, CT rows uploaded\\), [0-9.]+ s elapsed, [0-9.]+ CPU s.*allreduce/8/offload 1 of 1")

# A long row's heartbeat (--progress-every): which row runs, the simulated
# time and packet-hops so far, every S s of wall time; the rows unchanged.
add_test(NAME bench_collectives_progress_heartbeat_during_a_row
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/bench_checks.py heartbeat $<TARGET_FILE:isvp>)
set_tests_properties(bench_collectives_progress_heartbeat_during_a_row PROPERTIES LABELS bench TIMEOUT 300)
add_test(NAME bench_collectives_progress_every_refuses_negative
         COMMAND isvp bench collectives --progress-every -1)
add_test(NAME bench_collectives_progress_every_refuses_a_flood
         COMMAND isvp bench collectives --progress-every 0.001)
set_tests_properties(bench_collectives_progress_every_refuses_negative PROPERTIES LABELS bench TIMEOUT 60
                     WILL_FAIL FALSE PASS_REGULAR_EXPRESSION
                     "--progress-every takes 0 \\(off\\) or seconds from 0.01 to 86400, got -1")
set_tests_properties(bench_collectives_progress_every_refuses_a_flood PROPERTIES LABELS bench TIMEOUT 60
                     WILL_FAIL FALSE PASS_REGULAR_EXPRESSION
                     "--progress-every takes 0 \\(off\\) or seconds from 0.01 to 86400, got 0.001")
