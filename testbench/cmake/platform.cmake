# The node platform end to end (issue: node platform and driver bring-up):
# guest processes under `isvp run` exchanging verified messages through
# PCIe, QDMA, routers and Aurora links.
add_executable(p2p_guest guests/p2p_guest.cpp)
target_link_libraries(p2p_guest PRIVATE isvp_transport_guest isvp_driver isvp_warnings)

function(isvp_p2p_test name ranks torus scenario)
  add_test(NAME ${name}
           COMMAND isvp run -n ${ranks} --set topology.torus=${torus} ${ARGN} -- $<TARGET_FILE:p2p_guest> ${scenario})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS platform)
endfunction()

isvp_p2p_test(p2p_pingpong_two_nodes 2 2x1x1 pingpong)
isvp_p2p_test(p2p_pingpong_far_across_every_dimension 27 3x3x3 far)
isvp_p2p_test(p2p_ring_on_a_ring_with_wraparound 5 5x1x1 ring)
isvp_p2p_test(p2p_alltoall_wildcards_2x2x2 8 2x2x2 alltoall)
isvp_p2p_test(p2p_alltoall_degenerate_4x1x2 8 4x1x2 alltoall)
isvp_p2p_test(p2p_large_64MiB 2 2x1x1 large)
isvp_p2p_test(p2p_cut_off_message_is_dropped_not_fatal 2 2x1x1 cutoff)
isvp_p2p_test(p2p_second_driver_session_starts_clean 2 2x1x1 sessions)
isvp_p2p_test(p2p_guest_cannot_shrink_its_host_memory 2 2x1x1 truncate)

# Same job twice, same output — simulated times included.
add_test(NAME p2p_deterministic_simulated_times
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_output_twice.sh
                 $<TARGET_FILE:isvp> run -n 8 --set topology.torus=2x2x2 -- $<TARGET_FILE:p2p_guest> alltoall)
add_test(NAME pingpong_bench_deterministic
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_output_twice.sh
                 bash -c "set -o pipefail; $<TARGET_FILE:isvp> bench pingpong --nodes 4 --hops 2 --sizes 8,4K,1M | grep -v wall")
# The command line overrides a --config file: its own options (--topology,
# --aglu, an explicit --nodes) once came before the file and lost to it
# (--topology torus:2x1x1 with a file naming 4x4x4 ran 64 ranks). The
# default --nodes ring is only a default: the file's topology replaces it.
# Every command takes the same platform file (isvp topology refused its
# aglu.* as unknown parameters).
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/config_torus_4x4x4_tlm.json
     "{\"topology\": {\"kind\": \"torus\", \"torus\": \"4x4x4\"}, \"aglu\": {\"impl\": \"tlm\"}}\n")
set(isvp_config_4x4x4 ${CMAKE_CURRENT_BINARY_DIR}/config_torus_4x4x4_tlm.json)
add_test(NAME config_file_yields_to_topology_option
         COMMAND isvp topology --topology torus:2x2x1 --config ${isvp_config_4x4x4})
add_test(NAME config_file_yields_to_aglu_option
         COMMAND isvp bench collectives --topology torus:2x1x1 --aglu rtl --config ${isvp_config_4x4x4}
                 --collectives allreduce --sizes 8 --iterations 1 --warmup 0)
add_test(NAME config_file_yields_to_nodes_option
         COMMAND isvp bench pingpong --nodes 2 --config ${isvp_config_4x4x4} --sizes 8 --iterations 1)
add_test(NAME config_file_replaces_the_default_nodes_ring
         COMMAND isvp bench pingpong --config ${isvp_config_4x4x4} --sizes 8 --iterations 1)
set_tests_properties(config_file_yields_to_topology_option PROPERTIES PASS_REGULAR_EXPRESSION "^# torus 2x2x1: 4 hosts")
set_tests_properties(config_file_yields_to_aglu_option PROPERTIES PASS_REGULAR_EXPRESSION
                     "^# 2 ranks on torus 2x1x1, offload on, aglu rtl")
set_tests_properties(config_file_yields_to_nodes_option PROPERTIES PASS_REGULAR_EXPRESSION
                     "^# ping-pong rank 0 <-> rank 1 \\(1 hops, torus 2x1x1\\)")
set_tests_properties(config_file_replaces_the_default_nodes_ring PROPERTIES PASS_REGULAR_EXPRESSION
                     "^# ping-pong rank 0 <-> rank 1 \\(1 hops, torus 4x4x4\\)")

# `isvp --help`: the commands' summaries in one column (they once followed
# each name after four spaces, at five different places).
add_test(NAME isvp_help_lists_commands_in_one_column COMMAND isvp --help)
set_tests_properties(isvp_help_lists_commands_in_one_column PROPERTIES PASS_REGULAR_EXPRESSION
                     "\n  aglu        reduce [^\n]*\n  bench       benchmarks [^\n]*\n  mpiexec     the same [^\n]*\n  run         run [^\n]*\n  topology    a network")
# The simulated end time in full (the rows' 2-digit precision once turned
# 330.4 us into "3.3e+02").
add_test(NAME pingpong_bench_simulated_time_in_full COMMAND isvp bench pingpong --nodes 2 --sizes 8:64)
set_tests_properties(pingpong_bench_simulated_time_in_full PROPERTIES PASS_REGULAR_EXPRESSION
                     "\n# simulated [0-9][0-9][0-9]\\.[0-9]+ us in [^\n]* s wall")

# A guest that dies mid-transfer ends the job promptly: status 128 + SIGABRT,
# a report naming the rank, no orphans, no shared memory left.
add_test(NAME p2p_guest_crash_ends_job_cleanly
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 134 "rank 1 killed by signal 6" --
                 timeout 60 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- $<TARGET_FILE:p2p_guest> crash)
# Settings each block accepts but that cannot work together: a clear error, not a deadlock.
add_test(NAME platform_packet_larger_than_router_vc_is_refused
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 2 "router VC holds at most" --
                 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 --set router.vcs=4
                 --set qdma.packet_payload_bytes=16384 -- $<TARGET_FILE:p2p_guest> pingpong)
# Result packets larger than the host's receive buffers once stopped every
# node's C2H queue at the first collective (BufferTooSmall warnings, the
# ranks failing with C2H_NO_BUFFER).
add_test(NAME platform_collective_packet_larger_than_qdma_packet_is_refused
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 2
                 "collective.packet_payload_bytes=2048 is larger than qdma.packet_payload_bytes=1024" --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:2x1x1 --collectives allreduce --sizes 4K
                 --iterations 1 --set collective.packet_payload_bytes=2048)
add_test(NAME p2p_send_outside_job_names_rank
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 2 "send to rank 7 outside 0..1" --
                 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- $<TARGET_FILE:p2p_guest> badsend)
# A guest that programs an illegal MSI vector gets a warning, not a dead simulator.
add_test(NAME p2p_illegal_msi_vector_is_dropped_with_a_warning
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/expect_job_failure.sh 0 "MSI dropped.*got vector 200" --
                 $<TARGET_FILE:isvp> run -n 2 --set topology.torus=2x1x1 -- $<TARGET_FILE:p2p_guest> badmsi)
set_tests_properties(p2p_illegal_msi_vector_is_dropped_with_a_warning PROPERTIES LABELS platform RUN_SERIAL TRUE)
set_tests_properties(p2p_guest_crash_ends_job_cleanly p2p_send_outside_job_names_rank
                     platform_packet_larger_than_router_vc_is_refused PROPERTIES RUN_SERIAL TRUE)
set_tests_properties(p2p_deterministic_simulated_times pingpong_bench_deterministic p2p_guest_crash_ends_job_cleanly
                     p2p_send_outside_job_names_rank platform_packet_larger_than_router_vc_is_refused PROPERTIES TIMEOUT 300 LABELS platform)
