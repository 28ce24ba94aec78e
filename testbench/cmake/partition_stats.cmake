# Distributed simulation (docs/PARTITIONS.md): the merged --stats of
# `isvp run --partitions P` equal one process's in full — every node's,
# router's and link's counters (partition_run_mpi_program_identical_2/3 in
# partition_run.cmake compare them on the torus). Here the fat tree, whose
# spines are the last partition's and whose cut cables carry every
# inter-leaf packet, with 3 partitions.
add_test(NAME partition_run_stats_fattree_identical_3
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py same-run $<TARGET_FILE:isvp> 3
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_stats_fattree_3 -n 16 --topology fattree:radix=8,hosts=16
                 --offload on -- ${isvp_mpi_test_binaries}/partition_run)
set_tests_properties(partition_run_stats_fattree_identical_3 PROPERTIES LABELS "partition;mpi" TIMEOUT 300)

# The issue's must-show command at full size (256 nodes, every collective at
# 8 B and 64 KiB, default iterations): minutes per run, so in the long tier
# (-DISVP_LONG_TESTS=ON). The default tier runs the same command on
# torus:4x4x2 (partition_torus_offload_rows_identical_2/3, partition.cmake).
if(ISVP_LONG_TESTS)
  foreach(partitions 2 3)
    add_test(NAME partition_torus_8x8x4_rows_identical_${partitions}_long
             COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py same $<TARGET_FILE:isvp>
                     ${partitions} --topology torus:8x8x4 --collectives all --sizes 8,64K --check)
    set_tests_properties(partition_torus_8x8x4_rows_identical_${partitions}_long
                         PROPERTIES LABELS "partition;long" TIMEOUT 14400 ENVIRONMENT PARTITION_CHECKS_TIMEOUT=7000)
  endforeach()
endif()

# A partition that dies is named with the switches and hosts it owned
# (isvp's supervisor of mpiexec, docs/PARTITIONS.md "End and failures"),
# whichever it is: partition 1 in partition.cmake / partition_run.cmake,
# here partition 0 (the one that prints), for bench and for isvp run.
add_test(NAME partition_killed_partition_0_is_named
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py killed $<TARGET_FILE:isvp>
                 --victim=0 --topology torus:4x4x2 --collectives all --sizes 8,64K --iterations 20)
add_test(NAME partition_run_killed_partition_0_is_named
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py killed-run $<TARGET_FILE:isvp>
                 --victim=0 -n 8 --topology torus:4x2x1 -- ${isvp_mpi_test_binaries}/partition_run 1000000)
set_tests_properties(partition_killed_partition_0_is_named PROPERTIES LABELS partition TIMEOUT 300)
set_tests_properties(partition_run_killed_partition_0_is_named PROPERTIES LABELS "partition;mpi" TIMEOUT 300)
# SIGTERM to the isvp that supervises mpiexec ends the whole job.
add_test(NAME partition_supervisor_terminated_leaves_nothing
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py terminated $<TARGET_FILE:isvp>
                 --topology torus:4x4x2 --collectives all --sizes 8,64K --iterations 20)
set_tests_properties(partition_supervisor_terminated_leaves_nothing PROPERTIES LABELS partition TIMEOUT 300)
# A partition whose platform fails says so itself and ends the job; the
# supervisor does not name it (or another) as died.
add_test(NAME partition_failed_partition_reports_itself
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py failed $<TARGET_FILE:isvp>
                 --topology torus:4x4x2 --collectives all --sizes 8,64K --iterations 20)
set_tests_properties(partition_failed_partition_reports_itself PROPERTIES LABELS partition TIMEOUT 300)
# The same for a model's own failure (SC_REPORT_ERROR in a process, as the
# reliable layer's "no progress" or a refused packet), injected at 20 us
# (ISVP_TEST_PLATFORM_ERROR), in one process and in partition 1 of two,
# under `isvp run` of an MPI program.
add_test(NAME partition_platform_error_stated_once
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py platform-error
                 $<TARGET_FILE:isvp> -n 16 --topology torus:4x2x2 -- ${isvp_mpi_test_binaries}/mpi_launcher flood 20000)
set_tests_properties(partition_platform_error_stated_once PROPERTIES LABELS partition TIMEOUT 300)
# An mpiexec that ends the job's processes when one dies but then lingers:
# the supervisor ends it 20 s after the death (SIGTERM) and still names the
# partition that died; nothing is left.
add_test(NAME partition_killed_partition_lingering_launcher_ended
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py killed-stuck-launcher
                 $<TARGET_FILE:isvp> --topology torus:4x4x2 --collectives all --sizes 8,64K --iterations 20)
set_tests_properties(partition_killed_partition_lingering_launcher_ended PROPERTIES LABELS partition TIMEOUT 300)
# Started by the user's own mpiexec (a cluster, a hostfile), not by isvp:
# the same rows; with no supervisor to name a partition that dies, partition
# 0 maps each partition's switches and hosts to mpiexec's process rank, the
# machine and the pid on stderr (mpiexec's own message names only those).
add_test(NAME partition_own_mpiexec_rows_identical_and_mapped
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py same-own-mpiexec
                 $<TARGET_FILE:isvp> 2 --topology torus:4x2x2 --collectives all --sizes 8,4K --check --iterations 1)
set_tests_properties(partition_own_mpiexec_rows_identical_and_mapped PROPERTIES LABELS partition TIMEOUT 300)
