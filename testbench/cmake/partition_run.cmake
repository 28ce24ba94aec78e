# `isvp run --partitions P` (docs/PARTITIONS.md): each partition serves and
# starts the guests of its own nodes; the program's output, exit status and
# the merged --stats equal those of one process.
isvp_mpi_program(partition_run partition_run.c)
add_custom_target(isvp_partition_run_programs ALL DEPENDS ${isvp_mpi_test_binaries}/partition_run)
set(partition_run_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py)
add_test(NAME partition_run_mpi_program_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} same-run $<TARGET_FILE:isvp> 2
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_run_2 -n 8 --topology torus:4x2x1 --offload on --
                 ${isvp_mpi_test_binaries}/partition_run)
add_test(NAME partition_run_mpi_program_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} same-run $<TARGET_FILE:isvp> 3
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_run_3 -n 8 --topology torus:4x2x1 --offload on --
                 ${isvp_mpi_test_binaries}/partition_run)
# --partitions auto counts the job's ranks: 64 on 64 hosts make 2 partitions
# on 2 CPUs (8 ranks on them would make 1).
add_test(NAME partition_run_auto_mpi_program_identical
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} same-run-auto $<TARGET_FILE:isvp> 64
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_run_auto -n 64 --topology torus:4x4x4 --offload on --
                 ${isvp_mpi_test_binaries}/partition_run)
add_test(NAME partition_run_auto_few_ranks_one_process
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} same-run-auto $<TARGET_FILE:isvp> 64
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_run_auto_8 -n 8 --topology torus:4x4x4 --offload on --
                 ${isvp_mpi_test_binaries}/partition_run)
# Guest output of every partition comes out in whole lines: mpiexec forwards
# what it reads in pieces of its own size, so isvp's supervisor prints it
# (16 ranks write 200 lines of 1 KiB each at once; needs mpi_launcher.cmake).
add_test(NAME partition_run_output_lines_whole_2
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} whole-lines $<TARGET_FILE:isvp> 2 16 200
                 --topology torus:4x2x2 -- ${isvp_mpi_test_binaries}/mpi_launcher)
# The reader of the job's stdout goes away (`| head`): the supervisor keeps
# supervising (it used to die of SIGPIPE and leave its directory behind).
add_test(NAME partition_run_closed_stdout_ends_cleanly
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} closed-stdout $<TARGET_FILE:isvp> -n 16 --topology torus:4x2x2
                 -- ${isvp_mpi_test_binaries}/mpi_launcher flood 2000)
set_tests_properties(partition_run_mpi_program_identical_2 partition_run_mpi_program_identical_3
                     partition_run_closed_stdout_ends_cleanly
                     partition_run_auto_mpi_program_identical partition_run_auto_few_ranks_one_process
                     partition_run_output_lines_whole_2
                     PROPERTIES LABELS "partition;mpi" TIMEOUT 300)
# A partition killed mid-run ends the job (mpiexec names it) and leaves no
# simulator or guest process behind.
add_test(NAME partition_run_killed_partition_ends_the_job
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} killed-run $<TARGET_FILE:isvp> -n 8 --topology torus:4x2x1
                 -- ${isvp_mpi_test_binaries}/partition_run 1000000)
set_tests_properties(partition_run_killed_partition_ends_the_job PROPERTIES LABELS "partition;mpi" TIMEOUT 300)
# bench pingpong --json: the platform statistics of every partition, merged.
add_test(NAME partition_pingpong_json_merged_2
         COMMAND ${ISVP_PYTHON3} ${partition_run_checks} same-pingpong-json $<TARGET_FILE:isvp> 2
                 ${CMAKE_CURRENT_BINARY_DIR}/partition_pingpong_json --nodes 4 --hops 2 --sizes 8,4K --iterations 2)
set_tests_properties(partition_pingpong_json_merged_2 PROPERTIES LABELS partition TIMEOUT 300)
