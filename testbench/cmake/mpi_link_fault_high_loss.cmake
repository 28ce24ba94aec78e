# Link faults at high loss under MPI (docs/MPI.md "Link faults"): at these
# drop rates one report of the device often covers several lost messages of
# one peer (a software collective's and the next MPI_Sendrecv's); each must
# fail its own receive (the driver counts a peer's lost messages by their
# numbers, and the sender probes the stream), or a rank waits for ever and
# the job ends in a deadlock report (the defect on the default host path at
# 1e-5). Both host paths, several rates: every rank gets MPI_ERR_OTHER naming
# the link, the job goes on to MPI_Finalize (whose barrier does not stop on a
# lost message) and ends with status 0.
# Needs mpi.cmake and mpi_link_fault.cmake (included before: name order).
set(mpi_link_fault_high_loss_base -n 8 --offload off --set topology.torus=2x2x2 --set aurora.on_crc_error=drop
                                  --set reliable.max_retransmissions=1)
set(mpi_link_fault_fetch_msi --set driver.send_path=fetch --set driver.completion=msi)
foreach(case IN ITEMS "default_1e-5;1e-5;" "default_2e-5;2e-5;" "fetch_msi_1e-5;1e-5;fetch"
                      "fetch_msi_2e-5;2e-5;fetch")
  list(GET case 0 name)
  list(GET case 1 rate)
  list(GET case 2 path)
  set(options ${mpi_link_fault_high_loss_base} --set aurora.bit_error_rate=${rate})
  if(path STREQUAL "fetch")
    list(APPEND options ${mpi_link_fault_fetch_msi})
  endif()
  add_test(NAME link_fault_mpi_software_high_loss_${name}_every_rank_told
           COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-high-loss $<TARGET_FILE:isvp>
                   ${isvp_mpi_test_binaries}/mpi_link_fault
                   ${CMAKE_CURRENT_BINARY_DIR}/link_fault_mpi_high_loss_${name}_stats.json ${options})
  set_tests_properties(link_fault_mpi_software_high_loss_${name}_every_rank_told
                       PROPERTIES LABELS "link_fault;mpi" TIMEOUT 300)
endforeach()

# The same job over many seeds (the default-seed cases above once passed on
# timing luck): a lost message must fail exactly the receive that waits for
# it, in its sender's order (never a later message with the same tag: the
# MPI_ERR_TRUNCATE of an abandoned collective's next block), and no receive
# for a message that did arrive (which left another rank waiting for ever).
add_test(NAME link_fault_mpi_software_high_loss_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 30 1e-5,2e-5 ${mpi_link_fault_high_loss_base})
add_test(NAME link_fault_mpi_software_high_loss_seed_sweep_fetch_msi
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 15 1e-5,2e-5 ${mpi_link_fault_high_loss_base}
                 ${mpi_link_fault_fetch_msi})
set_tests_properties(link_fault_mpi_software_high_loss_seed_sweep link_fault_mpi_software_high_loss_seed_sweep_fetch_msi
                     PROPERTIES LABELS "link_fault;mpi" TIMEOUT 900)

# A fresh MPI_Comm_dup of the world per iteration (freed after its
# MPI_Allreduce) under the same loss: the driver's own exchanges (the ID and
# communicator-table agreements) lose messages too — a member that gives one
# up sends the others abort notices — and the new communicator reuses the
# freed one's ID, so its software collectives' sequence starts from the
# parent's (a late message of a collective the freed one gave up must not
# match the new one's receive). Before: every seed ended in MPI_ERR_TRUNCATE
# and a deadlock report. A dup that loses a message at its last step
# succeeds on the members whose part was done and fails on the others: those
# find the new communicator revoked (the failed member's abort notice for
# the creation's exchange) instead of waiting for ever in its MPI_Allreduce
# (before: seeds 1, 3 and 5 at 2e-5 ended in a deadlock report). The split
# sweep covers MPI_Comm_split's two creation exchanges: a member whose
# colours' allgather failed skips the ID agreement but takes its number, so
# the parent's next exchange matches everywhere (before: seeds 33 and 51 at
# 2e-5 read an ID agreement's 32 bytes as an allgather's 8).
add_test(NAME link_fault_mpi_software_communicators_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-communicators $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 20 1e-5,2e-5 ${mpi_link_fault_high_loss_base})
add_test(NAME link_fault_mpi_software_split_communicators_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-split-communicators $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 40 1e-5,2e-5 ${mpi_link_fault_high_loss_base})
# MPI_Iallreduce and MPI_Wait on the new communicator (the nonblocking
# schedules look for the revocation too). Seed 14 at 2e-5 found MPI_Finalize's
# barrier message of a rank held behind a lost message whose tag never came
# (its sender had finished, so its probe never came): a deadlock report. The
# barrier now looks past such a loss, and the loss ends the wait when the
# message is not there (docs/MPI.md, Link faults).
add_test(NAME link_fault_mpi_software_nonblocking_communicators_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-nonblocking-communicators $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 20 2e-5 ${mpi_link_fault_high_loss_base})
add_test(NAME link_fault_mpi_offloaded_communicators_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-communicators $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 1 10 1e-5,2e-5 -n 8 --offload on --set topology.torus=2x2x2
                 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
# Offloaded, a dup whose last exchange (the CT-row agreement) lost its last
# message: the members that finished it run their MPI_Allreduce in the
# switch, which waits for the member whose dup failed. Waiting for the
# result, they find the communicator revoked and release its CT row, which
# aborts the collective in the switch (error 5 at every member) and the
# call fails naming the revocation. Seeds found by a search (4 ranks:
# 2e-5 seed 104, 4e-5 seed 66); before, both ended in a deadlock report.
# The case is rare (about one seed in 300). Which seeds hit it moved with
# SystemC's order of same-time processes until the reliable endpoint acted
# only on what reached it in earlier delta cycles (session 22; seeds 104,
# 613 and 1075 in turn before that). Now seed 537 does (a search of 1-1200:
# 537, 905), with or without an unrelated self-notifying SystemC method
# (ISVP_TEST_KERNEL_NOISE_PS = 777, 1000, 3000).
add_test(NAME link_fault_mpi_offloaded_revoked_communicator
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-revoked-offloaded $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 537 537 2e-5 -n 4 --offload on
                 --set topology.torus=2x2x1 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
add_test(NAME link_fault_mpi_offloaded_revoked_communicator_4e-5
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-revoked-offloaded $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 66 66 4e-5 -n 4 --offload on
                 --set topology.torus=2x2x1 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
# The rare case must not depend on SystemC's order of same-time processes:
# the same seed with an unrelated self-notifying method (test only).
add_test(NAME link_fault_mpi_offloaded_revoked_communicator_kernel_noise
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-seed-sweep-revoked-offloaded $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault 537 537 2e-5 -n 4 --offload on
                 --set topology.torus=2x2x1 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
set_tests_properties(link_fault_mpi_offloaded_revoked_communicator_kernel_noise
                     PROPERTIES ENVIRONMENT ISVP_TEST_KERNEL_NOISE_PS=1000)
set_tests_properties(link_fault_mpi_software_communicators_seed_sweep
                     link_fault_mpi_software_split_communicators_seed_sweep
                     link_fault_mpi_software_nonblocking_communicators_seed_sweep
                     link_fault_mpi_offloaded_communicators_seed_sweep
                     link_fault_mpi_offloaded_revoked_communicator
                     link_fault_mpi_offloaded_revoked_communicator_4e-5
                     link_fault_mpi_offloaded_revoked_communicator_kernel_noise
                     PROPERTIES LABELS "link_fault;mpi" TIMEOUT 900)
