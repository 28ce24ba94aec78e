# Link faults under MPI (docs/MPI.md "Link faults", models/reliable/README.md):
# with Aurora bit errors in drop mode and reliable.max_retransmissions = 1,
# packets are lost for good; the job goes on. Under MPI_ERRORS_RETURN the
# affected MPI_Allreduce (in the switch) and MPI_Sendrecv calls return
# MPI_ERR_OTHER naming the link fault, the others give correct results, the
# job ends with status 0 and the platform names the link on stderr and in
# the --stats JSON; under MPI_ERRORS_ARE_FATAL the first failure ends the job
# with the link-fault message, no hang.
# Needs mpi.cmake (included before: the area files are taken in name order).
isvp_mpi_program(mpi_link_fault mpi_link_fault.cpp)
add_custom_target(isvp_mpi_link_fault_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_link_fault)
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(mpi_link_fault_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/link_fault_checks.py)
# (The error rate is one at which both kinds of call fail at least once on
# the default host path; the faults come from the seeded bit errors and the
# run's timing.)
set(mpi_link_fault_errors --set topology.torus=2x2x2 --set aurora.on_crc_error=drop
                          --set aurora.bit_error_rate=4e-6 --set reliable.max_retransmissions=1)
set(mpi_link_fault_job -n 8 --offload on ${mpi_link_fault_errors})
add_test(NAME link_fault_mpi_errors_return_job_goes_on
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_stats.json
                 ${mpi_link_fault_job})
add_test(NAME link_fault_mpi_errors_are_fatal_ends_job_with_the_fault
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-fatal $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${mpi_link_fault_job})
# The software collectives (--offload off): a member that loses a message
# gives the collective up and sends the other members abort notices; every
# affected call returns MPI_ERR_OTHER naming the fault and the cable, no rank
# hangs, the job goes on (later collectives correct) and ends with status 0;
# under MPI_ERRORS_ARE_FATAL the first such error ends the job.
# (A higher error rate than the offloaded job's: the software collectives of
# the default host path finish sooner, and at 2e-6 lose no packet.)
set(mpi_link_fault_software_job -n 8 --offload off --set topology.torus=2x2x2 --set aurora.on_crc_error=drop
                                --set aurora.bit_error_rate=5e-6 --set reliable.max_retransmissions=1)
add_test(NAME link_fault_mpi_software_collective_errors_return_job_goes_on
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_software_stats.json
                 ${mpi_link_fault_software_job})
add_test(NAME link_fault_mpi_software_collective_errors_are_fatal_ends_job
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-fatal-collectives $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${mpi_link_fault_software_job})
# MPI_Allreduce only: every failure is the software collective's (the
# members told by abort notices among them), every success correct.
add_test(NAME link_fault_mpi_software_collective_only_errors_return
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-collectives $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_software_collective_stats.json ${mpi_link_fault_software_job})
# The nonblocking ones (MPI_Iallreduce + MPI_Wait): the same abort notices,
# looked for while the request waits for a message.
add_test(NAME link_fault_mpi_software_nonblocking_collective_errors_return
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-nonblocking $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_software_nonblocking_stats.json ${mpi_link_fault_software_job})
add_test(NAME link_fault_mpi_software_nonblocking_collective_errors_are_fatal
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-fatal-nonblocking $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${mpi_link_fault_software_job})
set_tests_properties(link_fault_mpi_errors_return_job_goes_on link_fault_mpi_errors_are_fatal_ends_job_with_the_fault
                     link_fault_mpi_software_collective_errors_return_job_goes_on
                     link_fault_mpi_software_collective_errors_are_fatal_ends_job
                     link_fault_mpi_software_collective_only_errors_return
                     link_fault_mpi_software_nonblocking_collective_errors_return
                     link_fault_mpi_software_nonblocking_collective_errors_are_fatal
                     PROPERTIES LABELS "link_fault;mpi" TIMEOUT 300)
