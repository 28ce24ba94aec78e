# Link faults under MPI: the persistent software collectives (docs/MPI.md,
# Link faults). One MPI_Allreduce_init request started 20 times (--offload
# off, so it runs in host software on tags reserved at _init): a start that
# loses a message fails with MPI_ERR_OTHER naming the cable on the members
# that wait for it (abort notices), the request is broken for good, every
# later MPI_Start of it fails and tells the others again, so every rank fails
# and none hangs (before: MPI_Wait waited for ever, the launcher's deadlock
# report). Under MPI_ERRORS_ARE_FATAL the first such error ends the job.
# Needs mpi_link_fault.cmake (the program and the checks script).
set(mpi_link_fault_persistent_job -n 8 --offload off --set topology.torus=2x2x2 --set aurora.on_crc_error=drop
                                  --set aurora.bit_error_rate=5e-6 --set reliable.max_retransmissions=1)
add_test(NAME link_fault_mpi_software_persistent_collective_errors_return
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-persistent $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_software_persistent_stats.json
                 ${mpi_link_fault_persistent_job})
add_test(NAME link_fault_mpi_software_persistent_collective_errors_are_fatal
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-fatal-persistent $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${mpi_link_fault_persistent_job})
# Three other persistent collectives (MPI_Bcast_init, MPI_Alltoall_init,
# MPI_Reduce_scatter_block_init) started in turn each iteration: each breaks
# on its own, results checked while they work.
add_test(NAME link_fault_mpi_software_persistent_mixed_errors_return
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-persistent-mixed $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_software_persistent_mixed_stats.json
                 ${mpi_link_fault_persistent_job})
set_tests_properties(link_fault_mpi_software_persistent_collective_errors_return
                     link_fault_mpi_software_persistent_mixed_errors_return
                     link_fault_mpi_software_persistent_collective_errors_are_fatal
                     PROPERTIES LABELS "link_fault;mpi" TIMEOUT 300)
# The same request offloaded (--offload on, its own switch context): each
# start is a fresh switch run, so a failed start (the switch's abort, error
# code 6 naming the cable) does not break the request; the later starts give
# the right result.
add_test(NAME link_fault_mpi_offloaded_persistent_collective_errors_return
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-offloaded-persistent $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_offloaded_persistent_stats.json ${mpi_link_fault_job})
set_tests_properties(link_fault_mpi_offloaded_persistent_collective_errors_return PROPERTIES LABELS "link_fault;mpi"
                                                                                           TIMEOUT 300)
