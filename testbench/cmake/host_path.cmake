# The driver's send paths (driver.send_path = fetch | pio) and completion
# paths (driver.completion = msi | poll | hybrid), issue 15 items 1-2:
# correct data on every pair, PIO's fallback above driver.pio_max_bytes,
# malformed PIO writes refused without harm, latency ordering and the
# targets as simulated figures, determinism.
add_executable(host_path_guest guests/host_path_guest.cpp)
target_link_libraries(host_path_guest PRIVATE isvp_transport_guest isvp_driver isvp_warnings)

set(host_path_tests)
foreach(send_path fetch pio)
  foreach(completion msi poll hybrid)
    add_test(NAME host_path_data_${send_path}_${completion}
             COMMAND isvp run -n 2 --set topology.torus=2x1x1 --
                     $<TARGET_FILE:host_path_guest> ${send_path} ${completion} data)
    list(APPEND host_path_tests host_path_data_${send_path}_${completion})
  endforeach()
endforeach()
add_test(NAME host_path_malformed_pio_refused
         COMMAND isvp run -n 2 --set topology.torus=2x1x1 -- $<TARGET_FILE:host_path_guest> pio poll malformed)
list(APPEND host_path_tests host_path_malformed_pio_refused)
set_tests_properties(${host_path_tests} PROPERTIES LABELS "host_path" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "rank 0 ok.*rank 1 ok|rank 1 ok.*rank 0 ok"
                     FAIL_REGULAR_EXPRESSION "FAILED|error:")

set(host_path_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/host_path_checks.py)
foreach(check ordering fallback hybrid no_fetch_with_pio bad_parameter)
  add_test(NAME host_path_${check} COMMAND ${ISVP_PYTHON3} ${host_path_checks} ${check} $<TARGET_FILE:isvp>
                                           ${CMAKE_CURRENT_BINARY_DIR}/host_path_${check})
  set_tests_properties(host_path_${check} PROPERTIES LABELS "host_path" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
endforeach()
add_test(NAME host_path_deterministic
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_output_twice.sh
                 bash -c "set -o pipefail; $<TARGET_FILE:isvp> bench pingpong --nodes 2 --sizes 8,256,4K,64K --set driver.send_path=pio --set driver.completion=hybrid --set driver.poll_us=1 | grep -v wall")
set_tests_properties(host_path_deterministic PROPERTIES LABELS "host_path" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "1 passed, 0 failed")

# `isvp run --set driver.*` reaches MPI programs (ISVP_MPI_DRIVER_*): the
# OSU-style latency with pio + poll is 2.4x us at 8 B (fetch + msi: 6.00).
# The program is built by mpi.cmake (isvp_mpi_test_programs).
add_test(NAME host_path_mpi_osu_latency_pio_poll
         COMMAND isvp run -n 2 --set topology.torus=2x1x1 --set driver.send_path=pio --set driver.completion=poll --
                 ${CMAKE_CURRENT_BINARY_DIR}/mpi/osu_style_latency)
set_tests_properties(host_path_mpi_osu_latency_pio_poll PROPERTIES LABELS "host_path;mpi" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "\n8 +2\\.4[0-9]\n")
add_test(NAME host_path_run_bad_driver_parameter_named
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 2 "driver.completion" --
                 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set driver.completion=spin -- true)
set_tests_properties(host_path_run_bad_driver_parameter_named PROPERTIES LABELS "host_path" TIMEOUT 60)
# MPI point-to-point (matching, probes, nonblocking, synchronous sends) and
# nonblocking collectives on the PIO send path with polled and hybrid
# completions (programs built by mpi.cmake).
foreach(completion poll hybrid)
  foreach(program mpi_point_to_point coll_nonblocking)
    add_test(NAME host_path_mpi_${program}_pio_${completion}
             COMMAND isvp run -n 4 --set topology.torus=2x2x1 --set driver.send_path=pio
                     --set driver.completion=${completion} -- ${CMAKE_CURRENT_BINARY_DIR}/mpi/${program})
    set_tests_properties(host_path_mpi_${program}_pio_${completion} PROPERTIES LABELS "host_path;mpi" TIMEOUT 300)
  endforeach()
endforeach()
