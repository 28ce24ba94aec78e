# Debugging a guest rank (docs/DEBUGGING.md): `isvp run --debug-rank R`
# starts rank R under a debugger while simulated time waits for it, and a
# rank stopped for seconds (at a breakpoint, or by SIGSTOP) ends nothing.
# testbench/scripts/debug_rank_checks.py: `gdb` runs rank 1 under gdb -batch
# with a breakpoint in the driver's send function (skipped, status 77, when
# gdb is not installed), `walkthrough` runs docs/DEBUGGING.md's gdb script,
# `interactive` drives gdb on a pseudo-terminal, `tostop` checks the
# terminal hand-over without gdb, `stopped` stops rank 1 for 4 s. Needs mpi.cmake
# (included before: the area files are taken in name order).
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
isvp_mpi_program(debug_rank debug_rank.c)
add_custom_target(isvp_debug_rank_programs ALL DEPENDS ${isvp_mpi_test_binaries}/debug_rank)
foreach(check gdb walkthrough interactive tostop stopped stopped-debug-rank)
  add_test(NAME debug_rank_${check}
           COMMAND ${ISVP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/debug_rank_checks.py ${check}
                   $<TARGET_FILE:isvp> ${isvp_mpi_test_binaries}/debug_rank)
  set_tests_properties(debug_rank_${check} PROPERTIES LABELS "mpi;debug" TIMEOUT 180 SKIP_RETURN_CODE 77
                       PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
endforeach()

# Bad input is refused with what is wrong, before anything starts.
set(debug_program ${isvp_mpi_test_binaries}/debug_rank)
add_test(NAME debug_rank_outside_the_job_refused
         COMMAND isvp run -n 4 --debug-rank 4 -- ${debug_program})
set_tests_properties(debug_rank_outside_the_job_refused PROPERTIES
                     PASS_REGULAR_EXPRESSION "--debug-rank 4 is not a rank of this job \\(-n 4: ranks 0..3\\)")
add_test(NAME debug_rank_negative_refused
         COMMAND isvp run -n 4 --debug-rank=-1 -- ${debug_program})
set_tests_properties(debug_rank_negative_refused PROPERTIES
                     PASS_REGULAR_EXPRESSION "--debug-rank -1 is not a rank of this job")
add_test(NAME debug_rank_missing_debugger_refused
         COMMAND isvp run -n 2 --debug-rank 0 --debugger "no-such-debugger --args" -- ${debug_program})
set_tests_properties(debug_rank_missing_debugger_refused PROPERTIES
                     PASS_REGULAR_EXPRESSION "'no-such-debugger' is not an executable program in PATH")
add_test(NAME debug_rank_with_labels_refused
         COMMAND isvp run -n 2 -l --debug-rank 0 -- ${debug_program})
set_tests_properties(debug_rank_with_labels_refused PROPERTIES
                     PASS_REGULAR_EXPRESSION "-l/--prepend-rank with --debug-rank: the rank under the debugger")
add_test(NAME debug_rank_debugger_alone_refused
         COMMAND isvp run -n 2 --debugger gdb -- ${debug_program})
set_tests_properties(debug_rank_debugger_alone_refused PROPERTIES
                     PASS_REGULAR_EXPRESSION "--debugger says how to start the rank given by --debug-rank")
set_tests_properties(debug_rank_outside_the_job_refused debug_rank_negative_refused
                     debug_rank_missing_debugger_refused debug_rank_with_labels_refused
                     debug_rank_debugger_alone_refused PROPERTIES LABELS "mpi;debug" TIMEOUT 60)
add_test(NAME debug_rank_unclosed_quote_refused
         COMMAND isvp run -n 2 --debug-rank 0 --debugger "gdb -ex 'break main --args" -- ${debug_program})
set_tests_properties(debug_rank_unclosed_quote_refused PROPERTIES LABELS "mpi;debug" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "--debugger 'gdb -ex 'break main --args': a quote is not closed")
