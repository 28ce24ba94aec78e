# A tree's generation (docs/COLLECTIVES.md, "Link faults through the switch
# engines"): 20 dups of the world created, used and freed in turn while the
# links drop packets (all recovered). Every dup reuses the freed one's
# context and tree slot and its collectives' sequence numbers; a vertex
# whose configuration comes after its members' first packets must hold them
# for it instead of discarding them as the old communicator's (SHArP mode:
# before, seeds 2, 6 and 8 ended in a deadlock report). Uses mpi_link_fault
# and switch_setup_checks.py (switch_setup.cmake, included before this file).
add_test(NAME sharp_fresh_communicators_recovered_drops_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${switch_setup_checks} generations $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${CMAKE_CURRENT_BINARY_DIR}/sharp_generations_stats.json
                 collective.mode=sharp 1 9 -n 8 ${switch_setup_drops} --set aurora.bit_error_rate=1e-5)
# The same with collective.placement=switch (mode offload) on fewer seeds:
# seeds 13-15 make vertices hold packets for their configuration (9, 13, 14
# and 15 of 1-16, session 22), also with an unrelated self-notifying SystemC
# method (docs/PARTITIONS.md "Determinism"). Before the reliable endpoint
# acted only on what reached it in earlier delta cycles, SystemC's order of
# same-time processes moved which seeds did.
add_test(NAME switch_fresh_communicators_recovered_drops_seed_sweep
         COMMAND ${ISVP_PYTHON3} ${switch_setup_checks} generations $<TARGET_FILE:isvp>
                 ${isvp_mpi_test_binaries}/mpi_link_fault ${CMAKE_CURRENT_BINARY_DIR}/switch_generations_stats.json
                 collective.placement=switch 13 15 -n 8 ${switch_setup_drops} --set aurora.bit_error_rate=1e-5)
set_tests_properties(sharp_fresh_communicators_recovered_drops_seed_sweep
                     switch_fresh_communicators_recovered_drops_seed_sweep
                     PROPERTIES TIMEOUT 300 LABELS "link_fault;mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")
