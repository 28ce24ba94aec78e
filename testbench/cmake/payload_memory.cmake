# Memory with payload bounded by what the hardware holds (issue 12 item 2):
# offloaded gathers' results go straight into the guest's buffer, the
# engines hold a window of the message (testbench/scripts/payload_memory_checks.py).
# ISVP_PYTHON3 comes from bench.cmake.
add_test(NAME bench_collectives_payload_memory_bounded
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/payload_memory_checks.py bounded
                 $<TARGET_FILE:isvp> ${CMAKE_BINARY_DIR}/payload_memory_checks)
set_tests_properties(bench_collectives_payload_memory_bounded PROPERTIES LABELS bench TIMEOUT 300)
# The driver gives back staging the device has read: a rank that stages more
# than its 32 MiB of H2C slots keeps only what is in flight resident.
add_test(NAME bench_collectives_staging_given_back
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/payload_memory_checks.py staging
                 $<TARGET_FILE:isvp> ${CMAKE_BINARY_DIR}/payload_memory_checks)
set_tests_properties(bench_collectives_staging_given_back PROPERTIES LABELS bench TIMEOUT 300)
