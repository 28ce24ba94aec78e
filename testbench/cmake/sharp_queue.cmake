# collective.mode=sharp: SHArP resources given back by freed communicators,
# groups waiting for them (collective.sharp_queue_us) and aborts through the
# aggregation trees (docs/COLLECTIVES.md, "SHArP mode"). Uses sharp_groups
# and sharp_checks.py from sharp.cmake (included before this file).

# 8 communicators created and freed one after another, 2 trees per AN (the
# world holds one): every one gets a tree, none falls back.
add_test(NAME sharp_freed_communicators_give_resources_back
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_churn.json
                 ${sharp_program} churn churn -n 12 ${sharp_job} --set collective.sharp_max_trees_per_an=2)
# A group that finds a leaf's tree slots taken waits at the manager while
# the group holding them (other ranks) is freed; it then runs offloaded,
# exact; a second run gives identical switch statistics and rank times.
add_test(NAME sharp_group_waits_for_freed_resources
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_queue.json
                 ${sharp_program} queue queue -n 12 ${sharp_job} --set collective.sharp_max_trees_per_an=2
                 --set collective.sharp_queue_us=100000)
# The same with that group freed only after the waiting group's Allreduce:
# the wait is bounded (sharp_queue_us), the group falls back, every rank
# completes.
add_test(NAME sharp_group_wait_bounded_then_falls_back
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_bounded.json
                 ${sharp_program} bounded bounded -n 12 ${sharp_job} --set collective.sharp_max_trees_per_an=2
                 --set collective.sharp_queue_us=200)
set_tests_properties(sharp_freed_communicators_give_resources_back sharp_group_waits_for_freed_resources
                     sharp_group_wait_bounded_then_falls_back
                     PROPERTIES TIMEOUT 300 LABELS "mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")

# A member's row RELEASEd under a running Allreduce of the switches' tree
# (tree_abort_guest, on the guest driver: MPI cannot release one member's
# row): its abort goes round the tree and every member's call ends with
# error 5, in SHArP mode and with placement=switch; abort_notices counted.
add_executable(tree_abort_guest guests/tree_abort_guest.cpp)
target_link_libraries(tree_abort_guest PRIVATE isvp_transport_guest isvp_driver isvp_warnings)
foreach(mode "sharp;collective.mode=sharp" "switch;collective.placement=switch")
  list(GET mode 0 name)
  list(GET mode 1 setting)
  add_test(NAME abort_goes_round_the_switch_tree_${name}
           COMMAND ${ISVP_PYTHON3} ${sharp_checks} guest $<TARGET_FILE:isvp>
                   ${CMAKE_CURRENT_BINARY_DIR}/tree_abort_${name}.json $<TARGET_FILE:tree_abort_guest> -n 12
                   --topology fattree:radix=8,hosts=12 --set ${setting})
  set_tests_properties(abort_goes_round_the_switch_tree_${name} PROPERTIES TIMEOUT 300 LABELS "collective"
                       PASS_REGULAR_EXPRESSION "PASSED")
endforeach()
