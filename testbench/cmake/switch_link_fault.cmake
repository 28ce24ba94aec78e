# Link faults through the switch-resident engines (docs/COLLECTIVES.md,
# "Link faults through the switch engines"): Aurora bit errors in drop mode
# with reliable.max_retransmissions = 1 lose packets for good on cables to
# and from the engines; the MPI_Allreduce that lost them returns the
# link-fault error naming the cable, no deadlock, the job goes on, the same
# on a second run. Uses mpi_link_fault and link_fault_checks.py
# (mpi_link_fault.cmake, included before this file).
set(switch_link_fault_errors --topology fattree:radix=4,hosts=8 --set aurora.on_crc_error=drop
                             --set aurora.bit_error_rate=8e-6 --set reliable.max_retransmissions=1)
foreach(mode "switch;collective.placement=switch" "sharp;collective.mode=sharp")
  list(GET mode 0 name)
  list(GET mode 1 setting)
  add_test(NAME link_fault_switch_engines_${name}_error_names_link
           COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-tree $<TARGET_FILE:isvp>
                   ${isvp_mpi_test_binaries}/mpi_link_fault
                   ${CMAKE_CURRENT_BINARY_DIR}/link_fault_switch_${name}_stats.json -n 8 --set ${setting}
                   ${switch_link_fault_errors})
  set_tests_properties(link_fault_switch_engines_${name}_error_names_link PROPERTIES TIMEOUT 300
                       LABELS "link_fault;mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")
endforeach()
# Each MPI_Allreduce on a fresh MPI_Comm_dup freed after it: every iteration
# joins, configures and leaves a tree while packets are lost.
add_test(NAME link_fault_switch_engines_fresh_communicators_error_names_link
         COMMAND ${ISVP_PYTHON3} ${mpi_link_fault_checks} mpi-return-tree-communicators $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault
                 ${CMAKE_CURRENT_BINARY_DIR}/link_fault_switch_communicators_stats.json -n 8
                 --set collective.placement=switch ${switch_link_fault_errors})
set_tests_properties(link_fault_switch_engines_fresh_communicators_error_names_link PROPERTIES TIMEOUT 300
                     LABELS "link_fault;mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")
# Recovered: with the default reliable.max_retransmissions every packet the
# leaf-spine cables drop (to, from and between the engines) is sent again by
# the engines' and NICs' endpoints; every result checked, nothing lost.
add_test(NAME link_fault_switch_engines_drops_recovered_check
         COMMAND isvp bench collectives --check --iterations 1 --warmup 0 --topology fattree:radix=4,hosts=8
                 --set collective.placement=switch --collectives all --sizes 8,64K
                 --set aurora.bit_error_rate=1e-5 --set aurora.on_crc_error=drop)
add_test(NAME link_fault_switch_engines_sharp_drops_recovered_check
         COMMAND isvp bench collectives --check --iterations 1 --warmup 0 --topology fattree:radix=4,hosts=8
                 --set collective.mode=sharp --collectives allreduce,reduce,barrier --sizes 8,64K
                 --set aurora.bit_error_rate=1e-5 --set aurora.on_crc_error=drop)
set_tests_properties(link_fault_switch_engines_drops_recovered_check
                     link_fault_switch_engines_sharp_drops_recovered_check PROPERTIES TIMEOUT 300
                     LABELS "link_fault;collective"
                     PASS_REGULAR_EXPRESSION "links dropped [1-9][0-9]* packets; [0-9]+ packets sent, [1-9][0-9]* retransmitted[^\n]*, 0 lost"
                     FAIL_REGULAR_EXPRESSION "mismatch")
