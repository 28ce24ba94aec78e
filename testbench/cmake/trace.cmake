# Traces (--trace FILE): a Chrome/Perfetto trace-event JSON that parses, with
# one process per switch, the collective's packets on the switch ports, and
# the collective engine's calls with their phases: on every switch one call
# per collective, and the schedule's steps nested in it.
#
# isvp_trace_test(NAME TOPOLOGY SWITCHES COLLECTIVE SIZE CALL_REGEX STEPS):
# NAME writes the trace of one COLLECTIVE of SIZE on TOPOLOGY, NAME_checked
# runs scripts/check_trace.cmake on it (STEPS: step events within one call,
# over all switches). Extra arguments go to the bench (default: one call,
# no warm-up).
function(isvp_trace_test name topology switches collective size call steps)
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${name}.json)
  set(calls --iterations 1 --warmup 0)
  if(ARGN)
    set(calls ${ARGN})
  endif()
  add_test(NAME ${name}
           COMMAND isvp bench collectives --topology torus:${topology} --collectives ${collective} --sizes ${size}
                   ${calls} --trace ${file})
  add_test(NAME ${name}_checked
           COMMAND ${CMAKE_COMMAND} -DTRACE=${file} -DSWITCHES=${switches} -DEXPECT=${collective}
                   "-DCOLLECTIVE=${call}" -DSTEPS=${steps} -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_trace.cmake)
  set_tests_properties(${name}_checked PROPERTIES DEPENDS ${name})
endfunction()

# Recursive doubling on 4 ranks: 2 steps per rank, each sending and receiving.
isvp_trace_test(trace_allreduce_2x2x1 2x2x1 4 allreduce 8 "^allreduce 8 B seq [0-9]+$" 8)
# Back to back (warm-up + 2 timed calls, barriers between): a call that comes
# while the previous one still returns its result starts where that one ends;
# its phases and steps must still lie within it.
isvp_trace_test(trace_allreduce_back_to_back_2x2x1 2x2x1 4 allreduce 16K "^allreduce 16 KiB seq [0-9]+$" 8
                --iterations 2 --warmup 1)
# Binomial Bcast on 8 ranks: 7 transfers, a send step and a receive step each.
isvp_trace_test(trace_bcast_2x2x2 2x2x2 8 bcast 4K "^bcast 4 KiB seq [0-9]+$" 14)

add_test(NAME trace_unwritable_file_is_a_clear_error
         COMMAND isvp bench collectives --topology torus:2x1x1 --sizes 8 --trace /nonexistent-dir/t.json)
set_tests_properties(trace_unwritable_file_is_a_clear_error PROPERTIES
                     PASS_REGULAR_EXPRESSION "cannot write the trace file '/nonexistent-dir/t.json'")
