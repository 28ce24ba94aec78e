# MPI shim tests (sw/mpi). The programs in testbench/mpi are compiled by the
# isvp-mpicc / isvp-mpicxx wrappers of this build tree — so the wrappers are
# tested too — and run as separate guest processes by `isvp run`, with the
# collectives offloaded (--offload on) and in software (--offload off).
set(isvp_mpi_test_sources ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
set(isvp_mpi_test_binaries ${CMAKE_CURRENT_BINARY_DIR}/mpi)
file(MAKE_DIRECTORY ${isvp_mpi_test_binaries})
set(isvp_mpi_programs)

# isvp_mpi_program(NAME SOURCE [FLAGS...]): testbench/mpi/SOURCE compiled by
# the wrapper for its language; by default with warnings as errors (mpi.h
# must be clean in C and C++), else with FLAGS only (the unseen programs:
# compiled as their users would).
function(isvp_mpi_program name source)
  if(source MATCHES "\\.c$")
    set(wrapper ${CMAKE_BINARY_DIR}/bin/isvp-mpicc)
    set(flags -std=c11 -O1 -g -Wall -Wextra -Werror)
  else()
    set(wrapper ${CMAKE_BINARY_DIR}/bin/isvp-mpicxx)
    set(flags -std=c++17 -O1 -g -Wall -Wextra -Werror)
  endif()
  if(ARGN)
    set(flags ${ARGN})
  endif()
  add_custom_command(
    OUTPUT ${isvp_mpi_test_binaries}/${name}
    COMMAND ${wrapper} ${flags} ${isvp_mpi_test_sources}/${source} -o ${isvp_mpi_test_binaries}/${name}
    DEPENDS ${isvp_mpi_test_sources}/${source} ${isvp_mpi_test_sources}/mpi_check.h
            ${isvp_mpi_test_sources}/cgra_programs.h ${wrapper}
            ${CMAKE_BINARY_DIR}/lib/libisvp_mpi.a isvp_mpi_bundle
    COMMENT "${name}: ${source} with the MPI compiler wrapper"
    VERBATIM)
  set(isvp_mpi_programs ${isvp_mpi_programs} ${isvp_mpi_test_binaries}/${name} PARENT_SCOPE)
endfunction()

# isvp_mpi_test(NAME RANKS TORUS PROGRAM [ARGS...]): one test per offload mode.
function(isvp_mpi_test name ranks torus program)
  foreach(offload on off)
    add_test(NAME mpi_${name}_offload_${offload}
             COMMAND isvp run -n ${ranks} --offload ${offload} --set topology.torus=${torus} --
                     ${isvp_mpi_test_binaries}/${program} ${ARGN})
    set_tests_properties(mpi_${name}_offload_${offload} PROPERTIES TIMEOUT 300 LABELS mpi)
  endforeach()
endfunction()

# The wrappers: -show prints the command (include path, library when linking,
# the caller's flags unchanged); -c compiles only.
add_test(NAME mpi_wrapper_show_prints_the_link_command
         COMMAND ${CMAKE_BINARY_DIR}/bin/isvp-mpicc -show -O2 -DNAME=x ring.c -o ring)
set_tests_properties(mpi_wrapper_show_prints_the_link_command PROPERTIES LABELS mpi PASS_REGULAR_EXPRESSION
                     "-I[^ ]*/sw/mpi/include -O2 -DNAME=x ring.c -o ring -L[^ ]*/lib -lisvp_mpi -lstdc\\+\\+ -lm")
add_test(NAME mpi_wrapper_compile_only_does_not_link
         COMMAND ${CMAKE_BINARY_DIR}/bin/isvp-mpicxx -show -c -std=c++17 ring.cpp)
set_tests_properties(mpi_wrapper_compile_only_does_not_link PROPERTIES LABELS mpi
                     PASS_REGULAR_EXPRESSION "-I[^ ]*/sw/mpi/include -c -std=c\\+\\+17 ring.cpp"
                     FAIL_REGULAR_EXPRESSION "-lisvp_mpi")

isvp_mpi_program(mpi_environment mpi_environment.c)
isvp_mpi_program(mpi_datatypes mpi_datatypes.c)
isvp_mpi_program(mpi_operations mpi_operations.c)
isvp_mpi_program(mpi_communicators mpi_communicators.c)
isvp_mpi_program(mpi_point_to_point mpi_point_to_point.cpp)
isvp_mpi_program(mpi_failures mpi_failures.c)
isvp_mpi_program(mpi_ssend mpi_ssend.c)

isvp_mpi_test(environment_and_errors 2 2x1x1 mpi_environment)
# --compute-scale: guest CPU time is charged (1) or not (0, the default).
add_test(NAME mpi_compute_scale_charges_guest_cpu_time
         COMMAND isvp run -n 2 --compute-scale 1 --set topology.torus=2x1x1 --
                 ${isvp_mpi_test_binaries}/mpi_environment compute-charged)
add_test(NAME mpi_compute_scale_zero_charges_nothing
         COMMAND isvp run -n 2 --set topology.torus=2x1x1 -- ${isvp_mpi_test_binaries}/mpi_environment compute-free)
set_tests_properties(mpi_compute_scale_charges_guest_cpu_time mpi_compute_scale_zero_charges_nothing
                     PROPERTIES TIMEOUT 300 LABELS mpi)
isvp_mpi_test(datatypes 2 2x1x1 mpi_datatypes)
isvp_mpi_test(operations_every_type 2 2x1x1 mpi_operations)
isvp_mpi_test(communicators_and_groups 8 2x2x2 mpi_communicators)
isvp_mpi_test(point_to_point 4 2x2x1 mpi_point_to_point)
# Synchronous sends complete only once a receive matched them (not a probe);
# each outstanding Issend has its own acknowledgement; standard sends stay eager.
isvp_mpi_test(ssend 3 3x1x1 mpi_ssend)
# Two ranks that Ssend to each other before receiving block for good: the
# simulator's deadlock rule ends the job with its report.
add_test(NAME mpi_ssend_head_to_head_deadlocks
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 1
                 "MPI_Ssend: the job is ending: .*deadlock at .*every live rank waits" --
                 timeout 60 $<TARGET_FILE:isvp> run -n 3 --set topology.torus=3x1x1 --set job.kill_grace_ms=300 --
                 ${isvp_mpi_test_binaries}/mpi_ssend head-to-head)
set_tests_properties(mpi_ssend_head_to_head_deadlocks PROPERTIES TIMEOUT 120 LABELS mpi RUN_SERIAL TRUE)
# isvp run --timeout: a rank that never talks to the platform is ended at the
# wall-clock limit with exit status 124 and the limit named.
add_test(NAME run_timeout_ends_a_silent_job
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 124
                 "the wall-clock limit job.timeout_s = 1 s was reached" --
                 timeout 60 $<TARGET_FILE:isvp> run -n 1 --timeout 1 --set job.kill_grace_ms=300 -- /bin/sleep 30)
set_tests_properties(run_timeout_ends_a_silent_job PROPERTIES TIMEOUT 120 LABELS mpi RUN_SERIAL TRUE)

# The unseen-program check: programs written in the style of well-known MPI
# suites (OSU, MPICH's tests, IMB) compile unchanged and pass. They need the
# collectives; while sw/mpi/coll_placeholder.cpp stands in for them, they
# are only compiled.
isvp_mpi_program(osu_style_latency unseen/osu_style_latency.c -O2)
isvp_mpi_program(mpich_style_halo unseen/mpich_style_halo.c -O2)
isvp_mpi_program(imb_style_exchange unseen/imb_style_exchange.cpp -O2)
isvp_mpi_program(osu_style_iallreduce unseen/osu_style_iallreduce.c -O2)
if(NOT EXISTS ${CMAKE_SOURCE_DIR}/sw/mpi/coll_placeholder.cpp)
  isvp_mpi_test(unseen_osu_style_latency 2 2x1x1 osu_style_latency)
  isvp_mpi_test(unseen_mpich_style_halo 4 2x2x1 mpich_style_halo)
  isvp_mpi_test(unseen_imb_style_exchange 8 2x2x2 imb_style_exchange)
  isvp_mpi_test(unseen_osu_style_iallreduce 6 3x2x1 osu_style_iallreduce)
  set_tests_properties(mpi_unseen_osu_style_iallreduce_offload_on mpi_unseen_osu_style_iallreduce_offload_off
                       PROPERTIES PASS_REGULAR_EXPRESSION "# Validation: passed")
  set_tests_properties(mpi_unseen_mpich_style_halo_offload_on mpi_unseen_mpich_style_halo_offload_off
                       PROPERTIES FAIL_REGULAR_EXPRESSION "Found [0-9]+ errors")
endif()

# A rank that aborts, leaves without MPI_Finalize, crashes or hits a fatal
# error ends the job promptly with a report naming it; nothing is left behind.
function(isvp_mpi_failure_test name mode status pattern)
  add_test(NAME mpi_job_ends_when_a_rank_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh ${status} "${pattern}" --
                   timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                   ${isvp_mpi_test_binaries}/mpi_failures ${mode})
  set_tests_properties(mpi_job_ends_when_a_rank_${name} PROPERTIES TIMEOUT 120 LABELS mpi RUN_SERIAL TRUE)
endfunction()
isvp_mpi_failure_test(aborts abort 3 "MPI_Abort: called with error code 3 on rank 1")
isvp_mpi_failure_test(skips_finalize nofinalize 1 "rank 1 ended without finishing.*MPI_Finalize")
isvp_mpi_failure_test(crashes crash 139 "rank 1 killed by signal 11")
isvp_mpi_failure_test(aborts_while_others_compute busy 3 "rank 0 killed by signal")
isvp_mpi_failure_test(hits_a_fatal_error fatal 6 "MPI_Send: invalid destination rank 7 \\(communicator size 2\\)")
isvp_mpi_failure_test(calls_an_unsupported_function unsupported 44 "MPI_Win_create: not supported")
# Collective calls out of step (rank 1 skipped one): its MPI_Finalize fails
# with the reason, and the rank is not said to have skipped MPI_Finalize.
add_test(NAME mpi_finalize_out_of_step_says_why
         COMMAND timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                 ${isvp_mpi_test_binaries}/mpi_failures outofstep)
set_tests_properties(mpi_finalize_out_of_step_says_why PROPERTIES TIMEOUT 120 LABELS mpi
                     PASS_REGULAR_EXPRESSION "rank 1: MPI_Finalize returned class 15 \\(finalized 1\\): .*the closing barrier failed"
                     FAIL_REGULAR_EXPRESSION "must call MPI_Finalize")
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
# On 8 ranks: the rank that failed keeps its own launcher line; the ranks the
# job's abort ended share one ("[isvp] ranks 0, 2-7 exited with status 1
# after the job was aborted"), not a line each.
add_test(NAME mpi_job_failure_names_the_failed_rank_alone
         COMMAND ${ISVP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/failure_output_checks.py run-own-failure
                 $<TARGET_FILE:isvp> 139 1 "^\\[isvp\\] rank 1 killed by signal 11" -n 8 --set topology.torus=2x2x2
                 --set job.kill_grace_ms=300 -- ${isvp_mpi_test_binaries}/mpi_failures crash)
# A deadlock (rank 1 sends to rank 7, which never receives; the others wait
# in MPI_Finalize): the ranks it ended share one line for their exits.
add_test(NAME mpi_job_deadlock_ranks_share_one_line
         COMMAND ${ISVP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/failure_output_checks.py run-deadlock
                 $<TARGET_FILE:isvp> 1 -n 8 --set topology.torus=2x2x2 --set job.kill_grace_ms=300 --
                 ${isvp_mpi_test_binaries}/mpi_failures fatal)
set_tests_properties(mpi_job_failure_names_the_failed_rank_alone mpi_job_deadlock_ranks_share_one_line
                     PROPERTIES TIMEOUT 120 LABELS mpi)

add_custom_target(isvp_mpi_test_programs ALL DEPENDS ${isvp_mpi_programs})

# Review fixes (docs/MPI.md): the switch's buffer limit, ISVP_MPI_OFFLOAD set
# differently per rank, calls after MPI_Finalize or from another thread,
# MPI_STATUSES_IGNORE under -Werror.
isvp_mpi_program(mpi_switch_buffer_limit mpi_switch_buffer_limit.c)
isvp_mpi_program(mpi_offload_env mpi_offload_env.c)
isvp_mpi_program(mpi_misuse mpi_misuse.c -std=c11 -O1 -g -Wall -Wextra -Werror -pthread)
isvp_mpi_program(mpi_statuses_ignore mpi_statuses_ignore.c)
add_custom_target(isvp_mpi_review_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/mpi_switch_buffer_limit ${isvp_mpi_test_binaries}/mpi_offload_env
                          ${isvp_mpi_test_binaries}/mpi_misuse ${isvp_mpi_test_binaries}/mpi_statuses_ignore)

# A collective whose buffer exceeds the switch's (collective.max_buffer_bytes,
# read from ACCEL_MAX_BUFFER_BYTES) runs in software with the same result:
# with a 64 KiB switch buffer every offloadable collective at 64 KiB goes to
# the switch and one element more does not (7 of 14 per rank); the default
# 64 MiB switch and a 64 MiB + 1 byte MPI_Bcast.
foreach(mode "on;7" "off;0")
  list(GET mode 0 offload)
  list(GET mode 1 offloaded)
  add_test(NAME mpi_switch_buffer_limit_offload_${offload}
           COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 4 --offload ${offload} --set topology.torus=2x2x1 --set collective.max_buffer_bytes=65536 -- ${isvp_mpi_test_binaries}/mpi_switch_buffer_limit 65536) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 14') -eq 4")
  set_tests_properties(mpi_switch_buffer_limit_offload_${offload} PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
endforeach()
add_test(NAME mpi_switch_buffer_limit_bcast_over_64_MiB
         COMMAND $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --
                 ${isvp_mpi_test_binaries}/mpi_switch_buffer_limit 67108864 bcast)
set_tests_properties(mpi_switch_buffer_limit_bcast_over_64_MiB PROPERTIES TIMEOUT 300 LABELS "mpi;collective")

# A software collective's internal message longer than one packet (512 MiB -
# 17 bytes of data) goes in pieces: MPI_Bcast and MPI_Ibcast of 512 MiB + 1
# byte on 2 ranks (the binomial tree's one message), every byte checked.
isvp_mpi_program(coll_long_messages coll_long_messages.c)
add_custom_target(isvp_mpi_long_message_program ALL DEPENDS ${isvp_mpi_test_binaries}/coll_long_messages)
add_test(NAME mpi_coll_long_message_goes_in_pieces
         COMMAND $<TARGET_FILE:isvp> run -n 2 --offload off --set topology.torus=2x1x1 --
                 ${isvp_mpi_test_binaries}/coll_long_messages 536870913)
set_tests_properties(mpi_coll_long_message_goes_in_pieces PROPERTIES TIMEOUT 300 LABELS "mpi;collective")

# One rank sets ISVP_MPI_OFFLOAD=0 before MPI_Init: the ranks agree on
# software everywhere (rank 0 says why); world, dup and split collectives match.
add_test(NAME mpi_offload_env_one_rank_off_means_software_everywhere
         COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 4 --set topology.torus=4x1x1 -- ${isvp_mpi_test_binaries}/mpi_offload_env 1 2>&1) || { echo \"$out\"; exit 1; }; echo \"$out\"; echo \"$out\" | grep -q 'ISVP_MPI_OFFLOAD is 0 on 1 of 4 ranks' && test $(echo \"$out\" | grep -c 'collectives offloaded 0 of [1-9]') -eq 4")
set_tests_properties(mpi_offload_env_one_rank_off_means_software_everywhere PROPERTIES TIMEOUT 300 LABELS mpi)

# Calls after MPI_Finalize, and from a thread other than the main one under
# MPI_THREAD_SINGLE/FUNNELED, end the job with a message saying so.
function(isvp_mpi_misuse_test name mode pattern)
  add_test(NAME mpi_misuse_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 15 "${pattern}" --
                   timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                   ${isvp_mpi_test_binaries}/mpi_misuse ${mode})
  set_tests_properties(mpi_misuse_${name} PROPERTIES TIMEOUT 120 LABELS mpi RUN_SERIAL TRUE)
endfunction()
isvp_mpi_misuse_test(second_finalize_says_after_finalize double-finalize
                     "MPI_Finalize: MPI_ERR_OTHER after MPI_Finalize with MPI_ERRORS_ARE_FATAL")
isvp_mpi_misuse_test(call_after_finalize_says_after_finalize after-finalize
                     "MPI_Barrier: MPI_ERR_OTHER after MPI_Finalize with MPI_ERRORS_ARE_FATAL")
isvp_mpi_misuse_test(second_thread_under_funneled thread-funneled
                     "MPI_Send: called from a thread other than the main thread \\(thread level MPI_THREAD_FUNNELED\\)")
isvp_mpi_misuse_test(second_thread_under_single thread-single
                     "MPI_Send: called from a thread other than the main thread \\(thread level MPI_THREAD_SINGLE\\)")
# MPI_Finalize with nonblocking operations never completed: every rank names
# them on stderr (MPI requires them complete first); the job ends cleanly.
add_test(NAME mpi_misuse_finalize_names_pending_operations
         COMMAND sh -c "out=$(timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- ${isvp_mpi_test_binaries}/mpi_misuse pending-finalize 2>&1) || { echo \"$out\"; exit 1; }; echo \"$out\"; test $(echo \"$out\" | grep -c 'MPI_Finalize with 3 nonblocking operations not completed (MPI_Iallreduce on MPI_COMM_WORLD, a receive from rank [01] (tag 77) on MPI_COMM_WORLD, MPI_Comm_idup)') -eq 2")
set_tests_properties(mpi_misuse_finalize_names_pending_operations PROPERTIES TIMEOUT 120 LABELS mpi)
# Under MPI_ERRORS_RETURN the other thread's call returns MPI_ERR_OTHER; the job goes on.
add_test(NAME mpi_misuse_second_thread_error_returned
         COMMAND $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- ${isvp_mpi_test_binaries}/mpi_misuse
                 thread-return)
set_tests_properties(mpi_misuse_second_thread_error_returned PROPERTIES TIMEOUT 120 LABELS mpi)

# MPI_STATUSES_IGNORE / MPI_WEIGHTS_EMPTY where mpi.h takes arrays: no GCC
# -Wstringop-overflow warning under -Werror at -O0 and -O2; the program runs.
foreach(level 0 2)
  add_test(NAME mpi_statuses_ignore_compiles_with_werror_O${level}
           COMMAND ${CMAKE_BINARY_DIR}/bin/isvp-mpicc -std=c11 -O${level} -Wall -Wextra -Werror -c
                   ${isvp_mpi_test_sources}/mpi_statuses_ignore.c -o ${isvp_mpi_test_binaries}/mpi_statuses_ignore_O${level}.o)
  set_tests_properties(mpi_statuses_ignore_compiles_with_werror_O${level} PROPERTIES LABELS mpi)
endforeach()
isvp_mpi_test(statuses_ignore 3 3x1x1 mpi_statuses_ignore)

# MPI_Comm_free with operations pending (MPI 3.1 6.4.3): a pending Ibcast,
# Irecv/Isend/Issend complete normally; the freed communicator's ID is not
# reused while they are pending, and comes back afterwards (300 cycles).
isvp_mpi_program(mpi_comm_free_pending mpi_comm_free_pending.c)
add_custom_target(isvp_mpi_comm_free_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_comm_free_pending)
foreach(mode ibcast reuse p2p cycles)
  isvp_mpi_test(comm_free_pending_${mode} 4 2x2x1 mpi_comm_free_pending ${mode})
endforeach()
# Rank 2 sends on the freed communicator only after a new one took over its
# tag, so this one needs Comm_free local (offload off: no CT row barrier).
add_test(NAME mpi_comm_free_pending_late_offload_off
         COMMAND isvp run -n 4 --offload off --set topology.torus=2x2x1 --set job.kill_grace_ms=300 --
                 ${isvp_mpi_test_binaries}/mpi_comm_free_pending late)
set_tests_properties(mpi_comm_free_pending_late_offload_off PROPERTIES TIMEOUT 300 LABELS mpi)

# Progress while blocked in the driver (MPI 3.1 §3.7.4): a synchronous send
# acknowledged by a rank blocked in a (software or offloaded) collective or
# MPI_Comm_dup, and an Ibcast forwarded by a rank blocked in MPI_Comm_dup or
# an offloaded barrier. Valid programs; without the driver's progress hook
# each ended in the simulator's deadlock report.
isvp_mpi_program(mpi_progress_blocked mpi_progress_blocked.c)
add_custom_target(isvp_mpi_progress_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_progress_blocked)
foreach(mode ssend-barrier ssend-bcast ssend-allreduce ssend-dup ibcast-dup ibcast-barrier)
  foreach(offload on off)
    add_test(NAME mpi_progress_blocked_${mode}_offload_${offload}
             COMMAND isvp run -n 4 --offload ${offload} --set topology.torus=2x2x1 --set job.kill_grace_ms=300 --
                     ${isvp_mpi_test_binaries}/mpi_progress_blocked ${mode})
    set_tests_properties(mpi_progress_blocked_${mode}_offload_${offload} PROPERTIES TIMEOUT 300 LABELS mpi)
  endforeach()
endforeach()
# Two ranks (the reviewer's repro: only the receiver and the sender).
foreach(offload on off)
  add_test(NAME mpi_progress_blocked_ssend-barrier_2_ranks_offload_${offload}
           COMMAND isvp run -n 2 --offload ${offload} --set topology.torus=2x1x1 --set job.kill_grace_ms=300 --
                   ${isvp_mpi_test_binaries}/mpi_progress_blocked ssend-barrier)
  set_tests_properties(mpi_progress_blocked_ssend-barrier_2_ranks_offload_${offload} PROPERTIES TIMEOUT 300 LABELS mpi)
endforeach()

# Inter-communicators (docs/MPI.md): creation, queries, point-to-point,
# dup/split/create/compare/free, merge and errors; the collectives on them,
# blocking and nonblocking. 5 ranks: groups of 3 and 2 whose local, remote and world ranks differ.
isvp_mpi_program(mpi_intercomm mpi_intercomm.c)
isvp_mpi_program(coll_intercomm coll_intercomm.c)
add_custom_target(isvp_mpi_intercomm_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_intercomm
                                                          ${isvp_mpi_test_binaries}/coll_intercomm)
isvp_mpi_test(intercomm 5 5x1x1 mpi_intercomm)
isvp_mpi_test(intercomm_collectives 5 5x1x1 coll_intercomm)
isvp_mpi_test(intercomm_nonblocking_collectives 5 5x1x1 coll_intercomm nonblocking)
# The blocking inter-communicator collectives' local phases go to the switch
# when offload is on (every rank offloads all it decides, 26 calls), none off.
foreach(mode "on;26" "off;0")
  list(GET mode 0 offload)
  list(GET mode 1 offloaded)
  add_test(NAME mpi_intercomm_collectives_local_phases_offload_${offload}
           COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 5 --offload ${offload} --set topology.torus=5x1x1 -- ${isvp_mpi_test_binaries}/coll_intercomm) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 26') -eq 5")
  set_tests_properties(mpi_intercomm_collectives_local_phases_offload_${offload} PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
endforeach()
