# collective.placement=switch: collective engines in the switches of fat
# trees run all eight collectives along the communicator's
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

# All eight collectives in the switches' trees (gathered, scattered, reduced
# and scattered back), 32 hosts on four leaves, 8 B .. 64 KiB per block,
# every result checked, no call left to the NIC engines; --aglu rtl gives
# the rows of tlm.
foreach(check all-in-tree all-rtl-same)
  add_test(NAME switch_collectives_${check} COMMAND ${ISVP_PYTHON3} ${switch_checks} ${check} $<TARGET_FILE:isvp>)
  set_tests_properties(switch_collectives_${check} PROPERTIES TIMEOUT 300 LABELS collective PASS_REGULAR_EXPRESSION
                       "PASSED")
endforeach()

# Mismatched arguments in switch placement: the argument agreement runs
# through the tree, every member gets error 3 naming the argument (count,
# root, operation, datatype, collective; a streamed Gather and Allreduce; a
# split communicator) within 1 ms, and the next collective works.
add_test(NAME switch_collectives_mismatched_arguments
         COMMAND isvp run -n 8 --topology fattree:radix=8,hosts=8 --set collective.placement=switch --
                 $<TARGET_FILE:coll_guest> mismatch auto)
set_tests_properties(switch_collectives_mismatched_arguments PROPERTIES TIMEOUT 300 LABELS "collective;platform")

# Refused where it cannot run, naming the parameter.
add_test(NAME switch_collectives_refused_on_a_torus
         COMMAND isvp bench collectives --topology torus:2x2x2 --set collective.placement=switch --sizes 8)
set_tests_properties(switch_collectives_refused_on_a_torus PROPERTIES LABELS collective WILL_FAIL FALSE
                     PASS_REGULAR_EXPRESSION "collective.placement=switch needs an indirect network")
# A tree configuration larger than one packet (a leaf of 3 hosts: 36 bytes,
# collective.packet_payload_bytes=16) ends the job naming the parameter; the
# routers used to drop it and the job ended in a deadlock report.
add_test(NAME switch_collectives_configuration_larger_than_a_packet_named
         COMMAND isvp bench collectives --topology fattree:radix=4,hosts=4 --set collective.placement=switch
                 --set collective.packet_payload_bytes=16 --collectives allreduce --sizes 8 --iterations 1)
set_tests_properties(switch_collectives_configuration_larger_than_a_packet_named PROPERTIES LABELS collective
                     TIMEOUT 120 FAIL_REGULAR_EXPRESSION "deadlock" PASS_REGULAR_EXPRESSION
                     "the tree configuration for address [0-9]+ takes 36 bytes, more than one packet of collective.packet_payload_bytes=16: raise it")

# An MPI program on sub-communicators (halves: all on one leaf; rank mod 3:
# two leaves; reversed keys; rank mod 6: one member per leaf; MPI_COMM_SELF:
# disjoint groups sharing a context ID get trees of their own) with every
# collective on a fat tree (two leaves of 6 hosts) in the switches.
add_test(NAME mpi_coll_every_collective_fattree_switch
         COMMAND isvp run -n 12 --topology fattree:radix=8,hosts=12 --set collective.placement=switch
                 -- ${isvp_mpi_test_binaries}/coll_every_collective spread 6)
set_tests_properties(mpi_coll_every_collective_fattree_switch PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
