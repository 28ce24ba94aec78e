# Distributed simulation (docs/PARTITIONS.md): `isvp bench collectives
# --partitions P` (P simulator processes under the system's mpiexec) prints
# the rows of one process; bad partitionings are refused. Kept small: each
# window makes the partitions take turns, so on a loaded machine a
# partitioned run's wall time grows with the machine's load (64 KiB rows and
# 3 partitions were checked by hand, docs/PARTITIONS.md).
set(partition_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py)

add_test(NAME partition_torus_software_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology torus:4x4x2
                 --collectives all --sizes 8,16K --check --offload off --iterations 1)
add_test(NAME partition_torus_software_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 3 --topology torus:4x4x2
                 --collectives all --sizes 8,4K --check --offload off --iterations 1)
add_test(NAME partition_torus_offload_small_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology torus:4x4x2
                 --collectives all --sizes 8 --check)
add_test(NAME partition_torus_offload_small_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 3 --topology torus:4x4x2
                 --collectives all --sizes 8 --check)
add_test(NAME partition_fattree_software_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology fattree:radix=8,hosts=32
                 --collectives all --sizes 8,1K --check --offload off --iterations 1)
add_test(NAME partition_refuses_more_partitions_than_switches
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "each partition needs at least one switch"
                 --topology torus:2x2x1 --collectives barrier --partitions 5)
add_test(NAME partition_refuses_zero_partitions
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "--partitions must be at least 1"
                 --topology torus:2x2x1 --collectives barrier --partitions 0)
add_test(NAME partition_refuses_traces
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "does not write traces"
                 --topology torus:2x2x1 --collectives barrier --partitions 2 --set trace.file=/tmp/partition_trace.json)
set_tests_properties(partition_torus_software_rows_identical_2 partition_torus_software_rows_identical_3
                     partition_torus_offload_small_rows_identical_2 partition_torus_offload_small_rows_identical_3
                     partition_fattree_software_rows_identical_2 partition_refuses_more_partitions_than_switches
                     partition_refuses_zero_partitions partition_refuses_traces
                     PROPERTIES LABELS partition TIMEOUT 600)

# bench pingpong: rank 0 and its peer two hops away in different partitions.
add_test(NAME partition_pingpong_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same-pingpong $<TARGET_FILE:isvp> 2 --nodes 4 --hops 2
                 --sizes 8,4K,64K --iterations 3 --window 4)
set_tests_properties(partition_pingpong_rows_identical_2 PROPERTIES LABELS partition TIMEOUT 600)

# A partition that dies ends the whole job (mpiexec), nothing waits for it.
add_test(NAME partition_killed_partition_ends_the_job
         COMMAND ${ISVP_PYTHON3} ${partition_checks} killed $<TARGET_FILE:isvp> --topology torus:4x4x2
                 --collectives all --sizes 8,64K --iterations 20)
set_tests_properties(partition_killed_partition_ends_the_job PROPERTIES LABELS partition TIMEOUT 300)
