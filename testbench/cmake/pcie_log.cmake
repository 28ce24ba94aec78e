# The PCIe transaction log (trace.pcie; docs/PCIE_LOG.md) end to end: one
# 8-byte MPI_Send between two ranks (isvp run, separate guest processes),
# checked by testbench/scripts/pcie_log_checks.py: the doorbell, the decoded
# descriptor fetch and processor header, the payload read, the MSI-X, then
# the receiver's payload write, decoded completion entry and MSI-X, in time
# order on the right nodes and on Perfetto "pcie" tracks; node and register
# filters; identical logs run to run; the cap's note; unchanged simulated
# times. Needs mpi.cmake (included before: the area files are taken in name
# order).
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
isvp_mpi_program(pcie_log_send pcie_log_send.c)
add_custom_target(isvp_pcie_log_programs ALL DEPENDS ${isvp_mpi_test_binaries}/pcie_log_send)
set(pcie_log_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/pcie_log_checks.py)
set(pcie_log_tests)
foreach(check send filters deterministic truncated)
  add_test(NAME pcie_log_${check}
           COMMAND ${ISVP_PYTHON3} ${pcie_log_checks} ${check} $<TARGET_FILE:isvp>
                   ${isvp_mpi_test_binaries}/pcie_log_send ${CMAKE_CURRENT_BINARY_DIR}/pcie_log_${check})
  list(APPEND pcie_log_tests pcie_log_${check})
endforeach()
add_test(NAME pcie_log_unchanged_timing
         COMMAND ${ISVP_PYTHON3} ${pcie_log_checks} unchanged $<TARGET_FILE:isvp>
                 ${CMAKE_CURRENT_BINARY_DIR}/pcie_log_unchanged)
set_tests_properties(${pcie_log_tests} pcie_log_unchanged_timing PROPERTIES LABELS "pcie_log" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "1 passed, 0 failed")

# Bad trace.pcie* values are refused with the parameter named, before anything runs.
add_test(NAME pcie_log_node_beyond_platform_named
         COMMAND isvp bench pingpong --nodes 2 --sizes 8 --set trace.pcie=${CMAKE_CURRENT_BINARY_DIR}/unused.log
                 --set trace.pcie_nodes=0-2)
add_test(NAME pcie_log_bad_register_range_named
         COMMAND isvp bench pingpong --nodes 2 --sizes 8 --set trace.pcie=${CMAKE_CURRENT_BINARY_DIR}/unused.log
                 --set trace.pcie_registers=0x8000-0x10)
add_test(NAME pcie_log_unwritable_file_named
         COMMAND isvp bench pingpong --nodes 2 --sizes 8 --set trace.pcie=/nonexistent-dir/p.log)
set_tests_properties(pcie_log_node_beyond_platform_named PROPERTIES LABELS "pcie_log" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "trace.pcie_nodes names node 2, but the platform has 2 nodes")
set_tests_properties(pcie_log_bad_register_range_named PROPERTIES LABELS "pcie_log" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "trace.pcie_registers='0x8000-0x10': range '0x8000-0x10' ends before")
set_tests_properties(pcie_log_unwritable_file_named PROPERTIES LABELS "pcie_log" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "cannot write the PCIe transaction log '/nonexistent-dir/p.log'")

# Every register, bit and field of register_map.h has its name in the log:
# a register added to the map but not to register_names.cpp fails here.
add_test(NAME pcie_log_every_register_named
         COMMAND ${ISVP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/register_names_complete.py
                 ${CMAKE_SOURCE_DIR}/models/common/isvp/register_map.h
                 ${CMAKE_SOURCE_DIR}/models/common/register_names.cpp ${CMAKE_SOURCE_DIR}/models/qdma/qdma_formats.cpp)
set_tests_properties(pcie_log_every_register_named PROPERTIES LABELS "pcie_log" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
