# Traces (--trace FILE): a Chrome/Perfetto trace-event JSON that parses, with
# one process per switch and the collective's packets on the switch ports.
set(trace_file ${CMAKE_CURRENT_BINARY_DIR}/trace_allreduce_2x2x1.json)
add_test(NAME trace_bench_collectives_writes_perfetto_json
         COMMAND isvp bench collectives --topology torus:2x2x1 --collectives allreduce --sizes 8 --iterations 1
                 --warmup 0 --trace ${trace_file})
add_test(NAME trace_bench_collectives_perfetto_json_is_valid
         COMMAND ${CMAKE_COMMAND} -DTRACE=${trace_file} -DSWITCHES=4 -DEXPECT=allreduce
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_trace.cmake)
set_tests_properties(trace_bench_collectives_perfetto_json_is_valid PROPERTIES
                     DEPENDS trace_bench_collectives_writes_perfetto_json)
add_test(NAME trace_unwritable_file_is_a_clear_error
         COMMAND isvp bench collectives --topology torus:2x1x1 --sizes 8 --trace /nonexistent-dir/t.json)
set_tests_properties(trace_unwritable_file_is_a_clear_error PROPERTIES
                     PASS_REGULAR_EXPRESSION "cannot write the trace file '/nonexistent-dir/t.json'")
