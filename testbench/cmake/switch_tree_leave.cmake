# collective.placement=switch (mode offload): a freed communicator's members
# send the planner tree leaves and its rows on the switch engines go back
# (collective.switch_max_trees; docs/COLLECTIVES.md, "Switch-resident
# engines"). Uses sharp_groups and sharp_checks.py from sharp.cmake.

# 8 communicators created, used and freed one after another, 2 trees per
# switch engine (the world holds one): every one gets a tree and runs
# through the switches, none falls back to the NIC engines.
add_test(NAME switch_freed_communicators_give_trees_back
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/switch_churn.json
                 ${sharp_program} churn switch-churn -n 12 --topology fattree:radix=8,hosts=12
                 --set collective.placement=switch --set collective.switch_max_trees=2)
# The same with room for the world's tree only: every other communicator
# falls back to the NIC engines, named in the statistics, and completes.
add_test(NAME switch_full_engine_falls_back_to_nic
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/switch_full.json
                 ${sharp_program} churn switch-full -n 12 --topology fattree:radix=8,hosts=12
                 --set collective.placement=switch --set collective.switch_max_trees=1)
set_tests_properties(switch_freed_communicators_give_trees_back switch_full_engine_falls_back_to_nic
                     PROPERTIES TIMEOUT 300 LABELS "mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")
