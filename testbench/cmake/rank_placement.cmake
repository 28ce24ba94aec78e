# Where the ranks run: `isvp run --map-by host|switch` and `--rankfile FILE`
# (docs/MPI.md, "Where the ranks run"). The launcher binds each rank's guest
# to its node and tells the drivers the map; results are the ranks', paths
# the nodes'. Uses coll_digest (mpi_coll.cmake) and rank_placement_checks.py.
set(rank_placement_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/rank_placement_checks.py)
isvp_mpi_program(rank_placement rank_placement.c)
add_custom_target(isvp_rank_placement_programs ALL DEPENDS ${isvp_mpi_test_binaries}/rank_placement)

# Default, --map-by switch and a rankfile on a fat tree: each rank on its
# node, point-to-point (named and wildcard sources) and collectives right,
# ranks 0 and 1 slower apart than on one leaf. NIC engines, then the
# switch-resident engines, then software.
foreach(variant "nic;" "switch;--set;collective.placement=switch" "software;--offload;off")
  list(GET variant 0 label)
  list(SUBLIST variant 1 -1 options)
  add_test(NAME rank_placement_map_by_and_rankfile_${label}
           COMMAND ${ISVP_PYTHON3} ${rank_placement_checks} placed $<TARGET_FILE:isvp>
                   ${isvp_mpi_test_binaries}/rank_placement ${CMAKE_CURRENT_BINARY_DIR} ${options})
endforeach()
# The digest of every integer collective with the ranks reversed over the
# nodes equals rank r on node r's.
add_test(NAME rank_placement_reversed_same_results
         COMMAND ${ISVP_PYTHON3} ${rank_placement_checks} digest $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/coll_digest ${CMAKE_CURRENT_BINARY_DIR})
# bench collectives with the ranks spread over the leaves and reversed:
# checked, the placement in the header and the JSON, the LogGP model on the
# placed hosts' routes.
add_test(NAME rank_placement_bench_collectives_checked_with_model
         COMMAND ${ISVP_PYTHON3} ${rank_placement_checks} bench $<TARGET_FILE:isvp> - ${CMAKE_CURRENT_BINARY_DIR})
# Malformed rankfiles and placements are refused before any rank starts.
add_test(NAME rank_placement_bad_input_refused
         COMMAND ${ISVP_PYTHON3} ${rank_placement_checks} refused $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/rank_placement ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(rank_placement_map_by_and_rankfile_nic rank_placement_map_by_and_rankfile_switch
                     rank_placement_map_by_and_rankfile_software rank_placement_reversed_same_results
                     rank_placement_bad_input_refused rank_placement_bench_collectives_checked_with_model
                     PROPERTIES TIMEOUT 300 LABELS "mpi;placement" PASS_REGULAR_EXPRESSION "PASSED")

# More ranks than hosts without --map-by: said as such before anything is set
# up (a huge -n used to meet the launcher's "1..65536 ranks" first, status 1).
add_test(NAME rank_placement_too_many_ranks_refused_first
         COMMAND isvp run -n 1000000 --set topology.torus=2x2x2 -- /bin/true)
set_tests_properties(rank_placement_too_many_ranks_refused_first PROPERTIES TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "config: 1000000 ranks do not fit the 8-node 2x2x2 \\(one rank per node\\)")
