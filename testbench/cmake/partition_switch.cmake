# Distributed simulation (docs/PARTITIONS.md) with switch-resident collective
# engines (collective.placement=switch, and SHArP mode which implies it): a
# switch's engine is built by the partition that owns the switch and talks to
# the others by packets over the cut cables, so the rows, the "# switch
# placement" counters (summed over the partitions) and the merged --stats
# equal one process's. The fat tree's spines, and with them the planner's
# engine, are the last partition's.
set(partition_switch_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py)
add_test(NAME partition_fattree_switch_engines_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_switch_checks} same $<TARGET_FILE:isvp> 2
                 --topology fattree:radix=8,hosts=16 --set collective.placement=switch --collectives all
                 --sizes 8,2K --check)
add_test(NAME partition_fattree_switch_engines_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_switch_checks} same $<TARGET_FILE:isvp> 3
                 --topology fattree:radix=8,hosts=16 --set collective.placement=switch --collectives all
                 --sizes 8,2K --check --iterations 2)
add_test(NAME partition_fattree_sharp_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_switch_checks} same $<TARGET_FILE:isvp> 2
                 --topology fattree:radix=8,hosts=16 --set collective.mode=sharp --collectives all --sizes 8,2K
                 --check)
set_tests_properties(partition_fattree_switch_engines_rows_identical_2
                     partition_fattree_switch_engines_rows_identical_3 partition_fattree_sharp_rows_identical_2
                     PROPERTIES LABELS partition TIMEOUT 600)
add_test(NAME partition_run_switch_engines_stats_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_switch_checks} same-run $<TARGET_FILE:isvp> 2
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_switch_run_2 -n 16 --topology fattree:radix=8,hosts=16
                 --offload on --set collective.placement=switch -- ${isvp_mpi_test_binaries}/partition_run)
set_tests_properties(partition_run_switch_engines_stats_identical_2 PROPERTIES LABELS "partition;mpi" TIMEOUT 300)
