# Link faults end to end (models/reliable/README.md): under Aurora bit errors
# the reliable-delivery layer recovers every lost packet, in switch
# collectives and in point-to-point traffic (software collectives); with
# recovery off or exhausted the platform names the link and the calls that
# lost packets fail with a link-fault error (the benchmark then ends; under
# MPI the job goes on: mpi_link_fault.cmake).
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(link_fault_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/link_fault_checks.py)
set(link_fault_drop --set aurora.bit_error_rate=1e-5 --set aurora.on_crc_error=drop)
add_test(NAME link_fault_drop_mode_recovered_collectives_check
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} recovered $<TARGET_FILE:isvp> --sizes 8,64K ${link_fault_drop})
add_test(NAME link_fault_drop_mode_recovered_point_to_point_check
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} recovered $<TARGET_FILE:isvp> --sizes 8,4K --offload off
                 ${link_fault_drop})
add_test(NAME link_fault_retry_mode_exhausted_recovered_end_to_end
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} recovered $<TARGET_FILE:isvp> --sizes 8,4K
                 --set aurora.bit_error_rate=1e-4 --set aurora.max_retransmissions=1)
add_test(NAME link_fault_recovery_deterministic
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} deterministic $<TARGET_FILE:isvp> --sizes 8,64K
                 --collectives allreduce,allgather ${link_fault_drop})
add_test(NAME link_fault_recovery_off_names_link_on_every_rank
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} named-link $<TARGET_FILE:isvp> --sizes 8,64K ${link_fault_drop}
                 --set reliable.max_retransmissions=0)
add_test(NAME link_fault_retry_mode_exhausted_recovery_off_names_link
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} named-link $<TARGET_FILE:isvp> --sizes 8,4K
                 --set aurora.bit_error_rate=1e-4 --set aurora.max_retransmissions=1
                 --set reliable.max_retransmissions=0)
add_test(NAME link_fault_recovery_exhausted_names_link_on_every_rank
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} named-link $<TARGET_FILE:isvp> --sizes 4K
                 --set aurora.bit_error_rate=1e-4 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
set_tests_properties(link_fault_drop_mode_recovered_collectives_check
                     link_fault_drop_mode_recovered_point_to_point_check
                     link_fault_retry_mode_exhausted_recovered_end_to_end
                     link_fault_recovery_deterministic
                     link_fault_recovery_off_names_link_on_every_rank
                     link_fault_retry_mode_exhausted_recovery_off_names_link
                     link_fault_recovery_exhausted_names_link_on_every_rank
                     PROPERTIES LABELS "link_fault" TIMEOUT 300)

# A path that loses (nearly) every packet ends the job promptly with an
# error naming it (reliable.max_losses_in_a_row), in switch collectives
# (link replay), software collectives (drop mode) and detection only; the
# wall-clock TIMEOUT fails a run that hangs, as every one of these did
# before (retransmissions and stream probes kept the platform busy).
add_test(NAME link_fault_dead_link_ends_job_naming_it
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} dead-link $<TARGET_FILE:isvp> --sizes 8
                 --collectives allreduce --set aurora.bit_error_rate=0.5)
add_test(NAME link_fault_dead_link_software_collectives_end_job_naming_it
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} dead-link $<TARGET_FILE:isvp> --sizes 8,4K --offload off
                 --set aurora.bit_error_rate=0.1 --set aurora.on_crc_error=drop)
add_test(NAME link_fault_dead_link_detection_only_ends_job_naming_it
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} dead-link $<TARGET_FILE:isvp> --sizes 8
                 --set aurora.bit_error_rate=0.3 --set reliable.max_retransmissions=0)
set_tests_properties(link_fault_dead_link_ends_job_naming_it
                     link_fault_dead_link_software_collectives_end_job_naming_it
                     link_fault_dead_link_detection_only_ends_job_naming_it
                     PROPERTIES LABELS "link_fault" TIMEOUT 90)

# The dead link's error stated once (testbench/scripts/failure_output_checks.py):
# the platform's line names the model instance and simulated time, no SystemC
# "In file:" line; the ranks that stop because the job was aborted share one
# line (each used to repeat the whole text, In file: lines included: 19
# copies on 8 nodes, about 2,000 on 1,024). Under isvp bench (ranks as
# fibers) and isvp run (a process per rank; p2p_guest exits with status 2).
set(failure_output_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/failure_output_checks.py)
add_test(NAME link_fault_dead_link_failure_stated_once
         COMMAND ${ISVP_PYTHON3} ${failure_output_checks} bench-platform-failure $<TARGET_FILE:isvp> --sizes 8
                 --collectives allreduce --set aurora.bit_error_rate=0.5)
add_test(NAME link_fault_dead_link_failure_stated_once_run
         COMMAND ${ISVP_PYTHON3} ${failure_output_checks} run-platform-failure $<TARGET_FILE:isvp> 2 -n 8
                 --set topology.torus=2x2x2 --set aurora.bit_error_rate=0.5 -- $<TARGET_FILE:p2p_guest> alltoall)
# A rank whose program fails on its own (its collective lost packets for
# good: ranks as fibers) ends the job under its own name and error; it used
# to be reported as "returned without finish() ... must call MPI_Finalize".
add_test(NAME link_fault_lost_for_good_bench_names_rank_error
         COMMAND ${ISVP_PYTHON3} ${failure_output_checks} bench-own-failure $<TARGET_FILE:isvp>
                 --topology torus:2x2x2 --collectives allreduce --sizes 64K --iterations 2
                 --set aurora.bit_error_rate=1e-4 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
add_test(NAME link_fault_lost_for_good_bench_names_rank_error_threads
         COMMAND ${ISVP_PYTHON3} ${failure_output_checks} bench-own-failure $<TARGET_FILE:isvp>
                 --topology torus:2x2x2 --collectives allreduce --sizes 64K --iterations 2 --set job.ranks=threads
                 --set aurora.bit_error_rate=1e-4 --set aurora.on_crc_error=drop --set reliable.max_retransmissions=1)
set_tests_properties(link_fault_dead_link_failure_stated_once link_fault_dead_link_failure_stated_once_run
                     link_fault_lost_for_good_bench_names_rank_error
                     link_fault_lost_for_good_bench_names_rank_error_threads
                     PROPERTIES LABELS "link_fault" TIMEOUT 90)

# Bad reliable.* values are refused with the parameter named, before anything runs.
add_test(NAME link_fault_bad_ack_delay_named
         COMMAND isvp bench collectives --topology torus:2x2x2 --sizes 8 --set reliable.ack_delay_ns=40000)
add_test(NAME link_fault_retransmit_buffer_below_a_packet_named
         COMMAND isvp bench collectives --topology torus:2x2x2 --sizes 8 --set reliable.mode=on
                 --set reliable.retransmit_buffer_bytes=1024)
set_tests_properties(link_fault_bad_ack_delay_named PROPERTIES LABELS "link_fault" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "config: reliable.ack_delay_ns must be below reliable.timeout_ns")
set_tests_properties(link_fault_retransmit_buffer_below_a_packet_named PROPERTIES LABELS "link_fault" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "config: reliable.retransmit_buffer_bytes=1024 cannot hold one packet")
# (reliable.tx_buffer_phits=1 used to run and end in a deadlock report.)
add_test(NAME link_fault_tx_buffer_below_a_packet_named
         COMMAND isvp bench collectives --topology torus:2x2x2 --sizes 8 --set reliable.mode=on
                 --set reliable.tx_buffer_phits=1)
set_tests_properties(link_fault_tx_buffer_below_a_packet_named PROPERTIES LABELS "link_fault" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "config: reliable.tx_buffer_phits=1 cannot hold one packet of 33 phits")

# Separate guest processes (isvp run, remote transport) exchanging verified
# point-to-point messages under bit errors; per-node counters in --stats.
add_test(NAME link_fault_p2p_guests_recovered_with_stats
         COMMAND ${ISVP_PYTHON3} ${link_fault_checks} p2p-run $<TARGET_FILE:isvp> $<TARGET_FILE:p2p_guest>
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_p2p_stats.json -n 8 --set topology.torus=2x2x2
                 ${link_fault_drop})
set_tests_properties(link_fault_p2p_guests_recovered_with_stats PROPERTIES LABELS "link_fault;platform" TIMEOUT 300)
