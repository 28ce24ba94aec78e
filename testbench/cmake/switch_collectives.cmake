# collective.placement=switch: collective engines in the switches of fat
# trees run Allreduce, Reduce, Bcast and Barrier along the communicator's
# aggregation tree (docs/COLLECTIVES.md, "Switch-resident engines"). The tree
# schedules themselves are unit-tested ([switch tree], test_switch_tree.cpp).

# Every result checked against a plain C++ reference on every rank, 16 hosts
# on radix-8 switches (three leaves, two spines), 8 B .. 64 KiB.
add_test(NAME switch_collectives_check_fattree_16
         COMMAND isvp bench collectives --check --topology fattree:radix=8,hosts=16 --set collective.placement=switch
                 --collectives allreduce,reduce,bcast,barrier --sizes 8,2K,64K)
set_tests_properties(switch_collectives_check_fattree_16 PROPERTIES TIMEOUT 300 LABELS collective
                     FAIL_REGULAR_EXPRESSION "mismatch"
                     PASS_REGULAR_EXPRESSION "# switch placement: [1-9][0-9]* rank calls through the switches' trees")

# Comparisons of two runs each (testbench/scripts/switch_collective_checks.py):
# 8 B Allreduce/Barrier faster in the switches than on the NICs; --aglu rtl
# gives the rows of tlm; two runs give identical rows.
set(switch_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/switch_collective_checks.py)
foreach(check faster rtl-same deterministic)
  add_test(NAME switch_collectives_${check} COMMAND ${ISVP_PYTHON3} ${switch_checks} ${check} $<TARGET_FILE:isvp>)
  set_tests_properties(switch_collectives_${check} PROPERTIES TIMEOUT 300 LABELS collective PASS_REGULAR_EXPRESSION
                       "PASSED")
endforeach()

# Refused where it cannot run, naming the parameter.
add_test(NAME switch_collectives_refused_on_a_torus
         COMMAND isvp bench collectives --topology torus:2x2x2 --set collective.placement=switch --sizes 8)
set_tests_properties(switch_collectives_refused_on_a_torus PROPERTIES LABELS collective WILL_FAIL FALSE
                     PASS_REGULAR_EXPRESSION "collective.placement=switch needs an indirect network")

# An MPI program on sub-communicators (halves, rank mod 3, reversed keys,
# MPI_COMM_SELF: disjoint groups sharing a context ID get trees of their own)
# with every collective on a fat tree in the switches.
add_test(NAME mpi_coll_every_collective_fattree_switch
         COMMAND isvp run -n 12 --topology fattree:radix=8,hosts=12 --set collective.placement=switch --
                 ${isvp_mpi_test_binaries}/coll_every_collective)
set_tests_properties(mpi_coll_every_collective_fattree_switch PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
