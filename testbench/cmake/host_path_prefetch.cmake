# The driver's prefetch send path (standing H2C descriptors fetched ahead of
# the doorbell, H2C_CONTROL.PREFETCH) and auto (pio up to
# driver.pio_max_bytes, prefetch above), issue 15 item 1: correct data
# (sizes across the standing slots, a burst that wraps the ring), the per-
# message choice, fewer descriptor fetches in the PCIe log, latency ordering
# fetch > prefetch > pio, determinism. The guest is built by host_path.cmake.
set(host_path_prefetch_tests)
foreach(send_path prefetch auto)
  foreach(completion msi poll hybrid)
    add_test(NAME host_path_data_${send_path}_${completion}
             COMMAND isvp run -n 2 --set topology.torus=2x1x1 --
                     $<TARGET_FILE:host_path_guest> ${send_path} ${completion} data)
    list(APPEND host_path_prefetch_tests host_path_data_${send_path}_${completion})
  endforeach()
endforeach()
set_tests_properties(${host_path_prefetch_tests} PROPERTIES LABELS "host_path" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "rank 0 ok.*rank 1 ok|rank 1 ok.*rank 0 ok"
                     FAIL_REGULAR_EXPRESSION "FAILED|error:")

set(host_path_prefetch_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/host_path_prefetch_checks.py)
foreach(check ordering fewer_fetches auto sweep_header)
  add_test(NAME host_path_prefetch_${check}
           COMMAND ${ISVP_PYTHON3} ${host_path_prefetch_checks} ${check} $<TARGET_FILE:isvp>
                   ${CMAKE_CURRENT_BINARY_DIR}/host_path_prefetch_${check})
  set_tests_properties(host_path_prefetch_${check} PROPERTIES LABELS "host_path" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
endforeach()
add_test(NAME host_path_prefetch_deterministic
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_output_twice.sh
                 bash -c "set -o pipefail; $<TARGET_FILE:isvp> bench pingpong --nodes 2 --sizes 8,256,4K,64K --set driver.send_path=auto --set driver.completion=poll | grep -v wall")
set_tests_properties(host_path_prefetch_deterministic PROPERTIES LABELS "host_path" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
# MPI point-to-point and nonblocking collectives on the auto path (programs
# built by mpi.cmake).
foreach(program mpi_point_to_point coll_nonblocking)
  add_test(NAME host_path_mpi_${program}_auto_poll
           COMMAND isvp run -n 4 --set topology.torus=2x2x1 --set driver.send_path=auto
                   --set driver.completion=poll -- ${CMAKE_CURRENT_BINARY_DIR}/mpi/${program})
  set_tests_properties(host_path_mpi_${program}_auto_poll PROPERTIES LABELS "host_path;mpi" TIMEOUT 300)
endforeach()
# The QDMA side alone: fetched before the doorbell, a descriptor round trip
# saved against the fetch path, consecutive buffers, a too-small buffer.
isvp_systemc_testbench(qdma_prefetch_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_standing_descriptors_prefetched_across_doorbells COMMAND qdma_prefetch_tb)
set_tests_properties(qdma_standing_descriptors_prefetched_across_doorbells PROPERTIES LABELS "host_path;qdma" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION " passed, 0 failed")
# Messages many times the H2C ring (64 entries of 1 KiB): a polling driver
# that waits for ring slots between two batch doorbells must post what it
# wrote first, or the device idles and the job deadlocks.
set(host_path_small_ring_tests)
foreach(send_path fetch prefetch)
  foreach(completion poll hybrid msi)
    add_test(NAME host_path_small_ring_${send_path}_${completion}
             COMMAND isvp run -n 2 --set topology.torus=2x1x1 --
                     $<TARGET_FILE:host_path_guest> ${send_path} ${completion} small_ring)
    list(APPEND host_path_small_ring_tests host_path_small_ring_${send_path}_${completion})
  endforeach()
endforeach()
set_tests_properties(${host_path_small_ring_tests} PROPERTIES LABELS "host_path" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "rank 0 ok.*rank 1 ok|rank 1 ok.*rank 0 ok"
                     FAIL_REGULAR_EXPRESSION "FAILED|error:")
