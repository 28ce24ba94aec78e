# collective.mode=sharp: SHArP-style aggregation nodes in the fat tree's
# switch engines (docs/COLLECTIVES.md, "SHArP mode"). The SystemC-free
# resource books are unit-tested ([sharp], test_sharp_resources.cpp).
set(sharp_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/sharp_checks.py)

# Every result of Allreduce/Reduce/Barrier exact, 32 hosts on radix-8
# switches; --aglu rtl gives the rows of tlm.
add_test(NAME sharp_check_fattree_32_rtl_same COMMAND ${ISVP_PYTHON3} ${sharp_checks} rtl-same $<TARGET_FILE:isvp>)
# SHArP offloads only the reductions; the other collectives run in host software.
add_test(NAME sharp_other_collectives_in_host_software
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} reductions-only $<TARGET_FILE:isvp>)
set_tests_properties(sharp_check_fattree_32_rtl_same PROPERTIES TIMEOUT 600 LABELS collective PASS_REGULAR_EXPRESSION
                     "PASSED")
set_tests_properties(sharp_other_collectives_in_host_software PROPERTIES TIMEOUT 300 LABELS collective
                     PASS_REGULAR_EXPRESSION "PASSED")

# Refused on a torus, naming the parameter.
add_test(NAME sharp_refused_on_a_torus
         COMMAND isvp bench collectives --topology torus:2x2x2 --set collective.mode=sharp --sizes 8)
set_tests_properties(sharp_refused_on_a_torus PROPERTIES LABELS collective
                     PASS_REGULAR_EXPRESSION "collective.mode=sharp needs an indirect network")

isvp_mpi_program(sharp_groups sharp_groups.c)
add_custom_target(isvp_sharp_programs ALL DEPENDS ${isvp_mpi_test_binaries}/sharp_groups)
set(sharp_program ${isvp_mpi_test_binaries}/sharp_groups)
set(sharp_job --topology fattree:radix=8,hosts=12 --set collective.mode=sharp)

# Trimming: 7 ranks, six on leaf 0 and one alone on leaf 1: the world's
# tree leaves leaf 1 out (its width is one); leaf 0's block runs on leaf 0.
add_test(NAME sharp_trimmed_lone_leaf_left_out
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_leaf.json
                 ${sharp_program} leaf trimmed -n 7 ${sharp_job})
# Overlapping communicators with nonblocking Allreduces in flight, beyond
# 2 buffers per AN: some groups fall back, every result exact.
add_test(NAME sharp_overlapping_groups_beyond_limits
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_limits.json
                 ${sharp_program} overlap limits -n 12 ${sharp_job} --set collective.sharp_buffers_per_an=2)
# A member that does not come: the AN's timeout reaches every rank.
add_test(NAME sharp_member_timeout_reaches_every_host
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_timeout.json
                 ${sharp_program} timeout timeout -n 12 ${sharp_job} --set collective.sharp_timeout_us=50)
# The AN of leaf 1 (switch 1: leaves 0-1, spines 2-3; hosts 6-11) fails
# mid-run: every rank of the world's group gets the error, leaf 0's group
# keeps working, a new communicator of the world falls back and works.
add_test(NAME sharp_an_fault_reaches_every_host
         COMMAND ${ISVP_PYTHON3} ${sharp_checks} mpi $<TARGET_FILE:isvp> ${CMAKE_CURRENT_BINARY_DIR}/sharp_fault.json
                 ${sharp_program} fault fault -n 12 ${sharp_job} --set collective.sharp_fault_switch=1
                 --set collective.sharp_fault_at_us=250)
set_tests_properties(sharp_trimmed_lone_leaf_left_out sharp_overlapping_groups_beyond_limits
                     sharp_member_timeout_reaches_every_host sharp_an_fault_reaches_every_host
                     PROPERTIES TIMEOUT 300 LABELS "mpi;collective" PASS_REGULAR_EXPRESSION "PASSED")

# Every collective on sub-communicators (halves, rank mod 3, reversed keys,
# MPI_COMM_SELF) in SHArP mode: Allreduce/Reduce/Barrier through the trees,
# the others on the NIC engines, every result checked.
add_test(NAME mpi_coll_every_collective_fattree_sharp
         COMMAND isvp run -n 12 ${sharp_job} -- ${isvp_mpi_test_binaries}/coll_every_collective)
set_tests_properties(mpi_coll_every_collective_fattree_sharp PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
