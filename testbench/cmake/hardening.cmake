# Hardening of the launcher and its inputs (issue 16), end to end:
# testbench/scripts/launcher_hardening.py CHECK ... (each a few seconds).
#
#   config        a config nested 50,000 levels deep, --config /dev/zero: one-line errors
#   memory        64x32x32 refused before it is built, naming the estimate and the limit
#   build_signal  SIGTERM / SIGINT while 1024 nodes are built end the launcher at once
#   sigkill       launcher SIGKILLed during start-up / while building: nothing left
#   rogue         a stranger connecting to a rank's socket is refused; the rank runs
#   end_of_time   a guest clock near 2^62 ps: no answer past it, Finish accepted
if(NOT ISVP_PYTHON3)  # bench.cmake finds it too
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(isvp_hardening_script ${CMAKE_CURRENT_SOURCE_DIR}/scripts/launcher_hardening.py)
add_test(NAME hardening_config COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} config $<TARGET_FILE:isvp>)
add_test(NAME hardening_memory_estimate COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} memory $<TARGET_FILE:isvp>)
add_test(NAME hardening_signal_while_building
         COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} build-signal $<TARGET_FILE:isvp>)
add_test(NAME hardening_launcher_sigkill_leaves_nothing
         COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} sigkill $<TARGET_FILE:isvp>)
add_test(NAME hardening_rogue_client_refused
         COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} rogue $<TARGET_FILE:isvp> $<TARGET_FILE:p2p_guest>)
add_test(NAME hardening_end_of_simulated_time
         COMMAND ${ISVP_PYTHON3} ${isvp_hardening_script} end-of-time $<TARGET_FILE:transport_job_tb>
                 $<TARGET_FILE:transport_guest>)
set_tests_properties(hardening_config hardening_memory_estimate hardening_signal_while_building
                     hardening_launcher_sigkill_leaves_nothing hardening_rogue_client_refused
                     hardening_end_of_simulated_time PROPERTIES TIMEOUT 120 LABELS "transport;platform")
# Building 1024 nodes (killed after 0.8 s) and waiting on process sets: alone.
set_tests_properties(hardening_signal_while_building hardening_launcher_sigkill_leaves_nothing PROPERTIES RUN_SERIAL TRUE)
