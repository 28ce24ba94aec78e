# Memory independent of message size in timing-only mode (issue 12 item 2):
# the bench's payload-memory counters and peak RSS at 64 KiB and 1 MiB
# (testbench/scripts/memory_checks.py). ISVP_PYTHON3 comes from bench.cmake.
add_test(NAME bench_timing_only_memory_independent_of_message_size
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/memory_checks.py timing-only-size-independent
                 $<TARGET_FILE:isvp> ${CMAKE_BINARY_DIR}/memory_checks)
set_tests_properties(bench_timing_only_memory_independent_of_message_size PROPERTIES LABELS bench TIMEOUT 600)
