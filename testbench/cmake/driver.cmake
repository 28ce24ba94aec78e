# Guest driver: communicators and collectives (sw/driver). Included from
# testbench/CMakeLists.txt.
#
#   isvp_unit_tests            ct_row and split ordering (pure functions)
#   coll_guest                 every collective against a plain C++ reference
#                              under `isvp run`, in software mode (the
#                              platform has no collective engine yet)
target_link_libraries(isvp_unit_tests PRIVATE isvp_driver)

add_executable(coll_guest guests/coll_guest.cpp)
target_link_libraries(coll_guest PRIVATE isvp_transport_guest isvp_driver isvp_warnings)
target_compile_options(coll_guest PRIVATE -ffp-contract=off -fno-fast-math)

# isvp_collective_test(NAME RANKS TORUS SCENARIO [GUEST ARGS...])
function(isvp_collective_test name ranks torus scenario)
  add_test(NAME ${name}
           COMMAND isvp run -n ${ranks} --set topology.torus=${torus} -- $<TARGET_FILE:coll_guest> ${scenario} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS "collective;platform")
endfunction()

# Software collectives (offload off, the baseline): every collective on every
# kind of communicator against the reference.
foreach(topology IN ITEMS "8 2x2x2" "8 4x2x1" "5 5x1x1")
  separate_arguments(topology)
  list(GET topology 0 ranks)
  list(GET topology 1 torus)
  isvp_collective_test(collective_software_world_${torus} ${ranks} ${torus} world software)
endforeach()
isvp_collective_test(collective_software_split_communicators_2x2x2 8 2x2x2 split software)
isvp_collective_test(collective_software_split_communicators_4x2x1 8 4x2x1 split software)
isvp_collective_test(collective_software_large_1MiB_2x2x2 8 2x2x2 large software)
isvp_collective_test(collective_software_float_sum_identical_on_every_rank 8 4x2x1 determinism software)
isvp_collective_test(collective_software_dup_free_and_context_exhaustion 8 2x2x2 contexts software)
isvp_collective_test(collective_software_argument_errors 4 2x2x1 errors software)
# Float sums are the same run to run (the printed digest), simulated times included.
add_test(NAME collective_software_float_sum_same_every_run
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_output_twice.sh
                 $<TARGET_FILE:isvp> run -n 8 --set topology.torus=2x2x2 -- $<TARGET_FILE:coll_guest> determinism software)
set_tests_properties(collective_software_float_sum_same_every_run PROPERTIES TIMEOUT 300 LABELS "collective;platform")

# The same scenarios with offload on: collectives go to the switch's
# collective engine where it can run them (software otherwise), and must
# give the same results.
isvp_collective_test(collective_offload_world_2x2x2 8 2x2x2 world auto)
isvp_collective_test(collective_offload_world_5x1x1 5 5x1x1 world auto)
isvp_collective_test(collective_offload_split_communicators_4x2x1 8 4x2x1 split auto)
isvp_collective_test(collective_offload_large_1MiB_2x2x2 8 2x2x2 large auto)
isvp_collective_test(collective_offload_dup_free_and_context_exhaustion 8 2x2x2 contexts auto)
isvp_collective_test(collective_offload_float_sum_identical_on_every_rank 8 4x2x1 determinism auto)
