# `isvp run` follows mpirun's conventions (docs/MPI.md "Using it"): the
# program's arguments after its name without "--", bin/isvp-mpiexec,
# unlabelled output with stdout and stderr apart (-l / --tag-output label
# it), programs that are not MPI programs, SystemC warning floods held back
# on stderr, and the status of a job whose rank exits 0 without MPI_Finalize.
# Needs mpi.cmake (included before: the area files are taken in name order).
isvp_mpi_program(mpi_launcher mpi_launcher.c)
add_custom_target(isvp_mpi_launcher_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_launcher)
add_executable(launcher_guest guests/launcher_guest.cpp)
target_link_libraries(launcher_guest PRIVATE isvp_transport_guest isvp_warnings)

foreach(check program-args unknown-option mpiexec output-plain output-prepend-rank output-tag non-mpi warning-flood)
  add_test(NAME launcher_${check}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/launcher_checks.sh ${check} $<TARGET_FILE:isvp>
                   ${CMAKE_BINARY_DIR}/bin ${isvp_mpi_test_binaries}/mpi_launcher $<TARGET_FILE:launcher_guest>)
  set_tests_properties(launcher_${check} PROPERTIES TIMEOUT 120 LABELS "mpi;launcher"
                       PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
endforeach()

# The guests' last output is read until their pipes close, while it keeps
# coming: a process rank 0 left in its own session writes a line every
# 0.4 s for 2 s after the job ended; every line reaches isvp's stdout (the
# launcher used to stop reading 1 s after the job ended, fbecbc9).
add_test(NAME launcher_reads_late_output_until_the_pipe_closes
         COMMAND $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 ${isvp_mpi_test_binaries}/mpi_launcher
                 late-output)
set_tests_properties(launcher_reads_late_output_until_the_pipe_closes PROPERTIES TIMEOUT 120 LABELS "mpi;launcher"
                     PASS_REGULAR_EXPRESSION "late line 0[^\n]*\nlate line 1[^\n]*\nlate line 2[^\n]*\nlate line 3[^\n]*\nlate line 4[^\n]*\nlate line 5")

# A rank that exits 0 without MPI_Finalize while another computes: the job
# ends at once with status 1 (the launcher's SIGTERM of the computing rank,
# 143, is not the job's status).
add_test(NAME launcher_early_exit_0_ends_the_job_with_status_1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 1
                 "rank 0 ended without finishing.*MPI_Finalize" --
                 timeout 30 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300
                 ${isvp_mpi_test_binaries}/mpi_launcher early-exit)
set_tests_properties(launcher_early_exit_0_ends_the_job_with_status_1 PROPERTIES TIMEOUT 120 LABELS "mpi;launcher"
                     RUN_SERIAL TRUE)

# The README's MPI example as a user runs it: docs/examples/ring.c compiled
# with the wrapper, then run offloaded and in software (the README named a
# ring.c the repository did not have).
add_test(NAME readme_ring_example_compiles_and_runs
         COMMAND sh -c "'${CMAKE_BINARY_DIR}/bin/isvp-mpicc' -std=c11 -O2 -Wall -Wextra -Werror '${CMAKE_SOURCE_DIR}/docs/examples/ring.c' -o '${CMAKE_CURRENT_BINARY_DIR}/ring' && '$<TARGET_FILE:isvp>' run -np 8 --set topology.torus=2x2x2 --offload on '${CMAKE_CURRENT_BINARY_DIR}/ring' && '$<TARGET_FILE:isvp>' run -np 8 --set topology.torus=2x2x2 --offload off '${CMAKE_CURRENT_BINARY_DIR}/ring'")
set_tests_properties(readme_ring_example_compiles_and_runs PROPERTIES TIMEOUT 120 LABELS "mpi;launcher"
                     PASS_REGULAR_EXPRESSION "ring: 8 ranks, token 28, allreduce 28: ok[^\n]*\nring: 8 ranks, token 28, allreduce 28: ok"
                     FAIL_REGULAR_EXPRESSION "WRONG")

# A program that does not exist is refused before the platform is built, as
# mpirun does (every rank used to fail to start, each saying "cannot run",
# one of them labelled "ended by the launcher", status 127).
add_test(NAME launcher_refuses_a_program_that_is_not_executable
         COMMAND sh -c "'$<TARGET_FILE:isvp>' run -n 2 --set topology.torus=2x1x1 ./no-such-program 2>&1; echo status $?")
set_tests_properties(launcher_refuses_a_program_that_is_not_executable PROPERTIES TIMEOUT 60 LABELS "mpi;launcher"
                     PASS_REGULAR_EXPRESSION
                     "^isvp run: './no-such-program' is not an executable program \\(the program every rank runs\\)\nstatus 2"
                     FAIL_REGULAR_EXPRESSION "cannot run")
