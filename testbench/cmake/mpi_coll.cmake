# MPI collectives tests (sw/mpi/coll_*.cpp). The programs in
# testbench/mpi/coll_* use only the standard MPI API; they are compiled by
# the isvp-mpicc / isvp-mpicxx wrappers (isvp_mpi_program, mpi.cmake) and
# run under `isvp run` with offload on and off (isvp_mpi_test: tests
# mpi_<name>_offload_on / _off). Included after mpi.cmake (the glob is sorted).
isvp_mpi_program(coll_every_collective coll_every_collective.c)
isvp_mpi_program(coll_types coll_types.c)
isvp_mpi_program(coll_derived coll_derived.c)
isvp_mpi_program(coll_user_ops coll_user_ops.cpp)
isvp_mpi_program(coll_errors coll_errors.c)
isvp_mpi_program(coll_digest coll_digest.c)
isvp_mpi_program(coll_nonblocking coll_nonblocking.c)
isvp_mpi_program(coll_mixed_layouts coll_mixed_layouts.c)
add_custom_target(isvp_mpi_coll_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/coll_every_collective ${isvp_mpi_test_binaries}/coll_types
                          ${isvp_mpi_test_binaries}/coll_derived ${isvp_mpi_test_binaries}/coll_user_ops
                          ${isvp_mpi_test_binaries}/coll_errors ${isvp_mpi_test_binaries}/coll_digest
                          ${isvp_mpi_test_binaries}/coll_nonblocking ${isvp_mpi_test_binaries}/coll_mixed_layouts)

# Every collective x counts {0, 1, 7, 1031} x communicators (world, halves,
# rank mod 3, reversed keys, MPI_COMM_SELF), IN_PLACE, v-variants with zero
# counts; on a power-of-two and an odd-sized world.
isvp_mpi_test(coll_every_collective_8_ranks 8 2x2x2 coll_every_collective)
isvp_mpi_test(coll_every_collective_5_ranks 5 5x1x1 coll_every_collective)
# Long tier (-DISVP_LONG_TESTS=ON): the same on 27 ranks of a 3x3x3 torus
# (about 80 s per offload mode on 2 cores).
if(ISVP_LONG_TESTS)
  isvp_mpi_test(coll_every_collective_27_ranks 27 3x3x3 coll_every_collective)
  set_tests_properties(mpi_coll_every_collective_27_ranks_offload_on mpi_coll_every_collective_27_ranks_offload_off
                       PROPERTIES TIMEOUT 900 LABELS "mpi;collective;long")
endif()
# Every predefined datatype, every (op, datatype) pair the standard allows.
isvp_mpi_test(coll_every_type_world 8 2x2x2 coll_types world)
isvp_mpi_test(coll_every_type_odd_communicators 8 4x2x1 coll_types thirds)
# Derived datatypes: vector, struct, indexed, contiguous; differing send/receive types.
isvp_mpi_test(coll_derived_datatypes 6 3x2x1 coll_derived)
# One type signature in different layouts on different ranks (strided on
# even ranks, plain MPI_INT on odd ones): every rank takes the same path.
isvp_mpi_test(coll_mixed_layouts 8 2x2x2 coll_mixed_layouts)
# User ops: non-commutative 2x2 matrix product in rank order on every size 1..8.
isvp_mpi_test(coll_user_ops_rank_order 8 2x2x2 coll_user_ops)
# Argument errors: the standard's classes under MPI_ERRORS_RETURN.
isvp_mpi_test(coll_argument_errors 4 2x2x1 coll_errors)
set_tests_properties(mpi_coll_every_collective_8_ranks_offload_on mpi_coll_every_collective_8_ranks_offload_off
                     mpi_coll_every_collective_5_ranks_offload_on mpi_coll_every_collective_5_ranks_offload_off
                     mpi_coll_every_type_world_offload_on mpi_coll_every_type_world_offload_off
                     mpi_coll_every_type_odd_communicators_offload_on mpi_coll_every_type_odd_communicators_offload_off
                     mpi_coll_derived_datatypes_offload_on mpi_coll_derived_datatypes_offload_off
                     mpi_coll_mixed_layouts_offload_on mpi_coll_mixed_layouts_offload_off
                     mpi_coll_user_ops_rank_order_offload_on mpi_coll_user_ops_rank_order_offload_off
                     mpi_coll_argument_errors_offload_on mpi_coll_argument_errors_offload_off
                     PROPERTIES LABELS "mpi;collective")

# Nonblocking collectives (software schedules, sw/mpi/coll_nonblocking*.cpp):
# results against a reference on world and a split communicator, roots,
# SUM/MAX/a non-commutative user op, derived types; several outstanding at
# once completed in reverse order; Ibarrier overlapping Send/Recv; a Test
# loop; errors naming the call. Sizes 1, 3, 5, 7, 8, 27 (about 2 s).
foreach(shape "1;1x1x1" "3;3x1x1" "5;5x1x1" "7;7x1x1" "8;2x2x2" "27;3x3x3")
  list(GET shape 0 ranks)
  list(GET shape 1 torus)
  isvp_mpi_test(coll_nonblocking_${ranks}_ranks ${ranks} ${torus} coll_nonblocking)
  set_tests_properties(mpi_coll_nonblocking_${ranks}_ranks_offload_on mpi_coll_nonblocking_${ranks}_ranks_offload_off
                       PROPERTIES LABELS "mpi;collective")
endforeach()
add_test(NAME mpi_coll_fatal_nonblocking_names_the_call
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 1
                 "MPI_Iallreduce: recvbuf is MPI_IN_PLACE, which is not allowed in MPI_Iallreduce" --
                 timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                 ${isvp_mpi_test_binaries}/coll_nonblocking fatal-in-place)
set_tests_properties(mpi_coll_fatal_nonblocking_names_the_call PROPERTIES TIMEOUT 120 LABELS "mpi;collective"
                     RUN_SERIAL TRUE)

# The default (fatal) handler names the call and the argument, and ends the
# job with the error class as the exit status.
function(isvp_mpi_coll_fatal_test name mode status pattern)
  add_test(NAME mpi_coll_fatal_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh ${status} "${pattern}" --
                   timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                   ${isvp_mpi_test_binaries}/coll_errors ${mode})
  set_tests_properties(mpi_coll_fatal_${name} PROPERTIES TIMEOUT 120 LABELS "mpi;collective" RUN_SERIAL TRUE)
endfunction()
isvp_mpi_coll_fatal_test(invalid_root_names_the_call fatal-root 7 "MPI_Bcast: invalid root 7")
isvp_mpi_coll_fatal_test(in_place_receive_buffer_names_the_argument fatal-in-place 1
                         "MPI_Allreduce: recvbuf is MPI_IN_PLACE")

# Offload on and off give bit-identical results: integer ops, and floating
# point on power-of-two and odd communicators (the software path combines in
# the switch's operand order, docs/MPI.md "Collectives").
foreach(kind int float)
  add_test(NAME mpi_coll_offload_on_off_identical_${kind}
           COMMAND sh -c "a=$($<TARGET_FILE:isvp> run -n 8 --offload on --set topology.torus=2x2x2 -- ${isvp_mpi_test_binaries}/coll_digest ${kind} | grep 'coll_digest ${kind}') && b=$($<TARGET_FILE:isvp> run -n 8 --offload off --set topology.torus=2x2x2 -- ${isvp_mpi_test_binaries}/coll_digest ${kind} | grep 'coll_digest ${kind}') && echo \"on: $a / off: $b\" && test -n \"$a\" && test \"$a\" = \"$b\"")
  set_tests_properties(mpi_coll_offload_on_off_identical_${kind} PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
endforeach()

# The switch really runs them: with ISVP_MPI_STATS each rank reports at exit
# how many of the collectives that may offload went to the switch — some
# with offload on, none with offload off.
foreach(mode "on;[1-9][0-9]*" "off;0")
  list(GET mode 0 offload)
  list(GET mode 1 pattern)
  add_test(NAME mpi_coll_offload_${offload}_counted_per_rank
           COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 8 --offload ${offload} --set topology.torus=2x2x2 -- ${isvp_mpi_test_binaries}/coll_digest int) || exit 1; echo \"$out\" | grep 'isvp-mpi:'; test $(echo \"$out\" | grep -c 'collectives offloaded ${pattern} of [1-9]') -eq 8")
  set_tests_properties(mpi_coll_offload_${offload}_counted_per_rank PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
endforeach()

# isvp run --progress S: "[isvp] progress: ..." every S s of wall time (the
# simulated time and packet-hops so far) while the program runs, which
# still succeeds; a period the loop would flood with is refused.
add_test(NAME run_progress_lines_while_the_program_runs
         COMMAND isvp run -n 8 --set topology.torus=2x2x2 --progress 0.02 --
                 ${isvp_mpi_test_binaries}/coll_every_collective)
set_tests_properties(run_progress_lines_while_the_program_runs PROPERTIES TIMEOUT 300 LABELS mpi
                     PASS_REGULAR_EXPRESSION
                     "\\[isvp\\] progress: simulated time [0-9.]+ us, [0-9]+ packet-hops so far, [0-9.]+ s elapsed.*coll_every_collective ok \\(rank"
                     FAIL_REGULAR_EXPRESSION "FAIL rank")
add_test(NAME run_progress_refuses_a_flood COMMAND isvp run -n 2 --progress 0.001 -- /bin/true)
set_tests_properties(run_progress_refuses_a_flood PROPERTIES TIMEOUT 60 LABELS mpi PASS_REGULAR_EXPRESSION
                     "run: --progress takes seconds from 0.01 to 86400, got 0.001")
add_test(NAME run_progress_refused_with_debug_rank COMMAND isvp run -n 2 --progress 1 --debug-rank 0 -- /bin/true)
set_tests_properties(run_progress_refused_with_debug_rank PROPERTIES TIMEOUT 60 LABELS mpi PASS_REGULAR_EXPRESSION
                     "run: --progress with --debug-rank: the lines would stand still")
