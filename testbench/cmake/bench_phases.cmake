# bench collectives --progress: the bring-up lines (platform built, first
# barrier done) with wall and CPU seconds, before the first row's line
# (docs/REPORTS.md; docs/PERFORMANCE.md, "Simulator speed at 1024 nodes").
add_test(NAME bench_collectives_progress_bringup_phases
         COMMAND isvp bench collectives --topology torus:2x2x1 --collectives allreduce --sizes 8 --iterations 1
                 --warmup 0 --progress)
set_tests_properties(bench_collectives_progress_bringup_phases PROPERTIES LABELS bench TIMEOUT 120
                     PASS_REGULAR_EXPRESSION
                     "platform built, [0-9.]+ s elapsed, [0-9.]+ CPU s.*first barrier done \\(drivers up, CT rows uploaded\\), [0-9.]+ s elapsed, [0-9.]+ CPU s.*allreduce/8/offload 1 of 1")
