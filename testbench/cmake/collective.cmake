# Collective engine (models/collective): N CollectiveEngines on a torus with
# fake hosts; every collective (Reduce_scatter also with unequal counts),
# world and split communicators, sizes 1..N, error paths, Send pass-through;
# two jobs sharing switches; flow control with tiny receive windows; and
# guest scenarios (coll_guest, defined in driver.cmake) that need the engine.
isvp_systemc_testbench(collective_tb isvp_collective isvp_fabric)
foreach(shape 2x2x2 4x2x1 4x4x2)
  add_test(NAME collective_engine_${shape}_all_collectives COMMAND collective_tb --set topology.torus=${shape})
  # Two independent jobs (even and odd nodes, same context IDs, own
  # forwarding tables) whose traffic crosses each other's switches; a rogue
  # row and a corrupted host packet are dropped and counted.
  add_test(NAME collective_engine_${shape}_two_jobs_share_switches
           COMMAND collective_tb --set topology.torus=${shape} --scenario jobs)
  set_tests_properties(collective_engine_${shape}_all_collectives collective_engine_${shape}_two_jobs_share_switches
                       PROPERTIES LABELS collective)
endforeach()
foreach(shape 2x2x2 4x2x1)
  # float64 results bit-identical across two timing configurations.
  add_test(NAME collective_engine_${shape}_float_digest_timing_independent
           COMMAND sh -c "a=$($<TARGET_FILE:collective_tb> --set topology.torus=${shape} | grep digest) && b=$($<TARGET_FILE:collective_tb> --set topology.torus=${shape} --set collective.clock_mhz=97 --set collective.packet_payload_bytes=128 --set aglu.pipeline_stages=9 --set aurora.latency_ns=700 --set collective.window_packets=2 --set collective.credit_delay_ns=3000 --set collective.cgr_aglus=1 | grep digest) && echo \"$a / $b\" && test -n \"$a\" && test \"$a\" = \"$b\"")
  set_tests_properties(collective_engine_${shape}_float_digest_timing_independent PROPERTIES LABELS collective)
endforeach()
add_test(NAME collective_engine_2x2x2_rtl_aglu COMMAND collective_tb --set topology.torus=2x2x2 --set aglu.impl=rtl)
# One-packet windows in a 64 KiB pool: everything still completes.
add_test(NAME collective_engine_2x2x2_one_packet_windows
         COMMAND collective_tb --set topology.torus=2x2x2 --set collective.window_packets=1
                 --set collective.early_buffer_bytes=65536)
set_tests_properties(collective_engine_2x2x2_rtl_aglu collective_engine_2x2x2_one_packet_windows
                     PROPERTIES LABELS collective)

# The scenario that deadlocked the first engine (a 64 KiB early buffer that
# back-pressured the network): 1 MiB collectives with 4-packet windows in a
# 64 KiB pool, every result checked.
add_test(NAME collective_flow_control_small_windows_no_deadlock
         COMMAND isvp bench collectives --topology torus:2x2x2 --check --iterations 1 --warmup 0
                 --collectives allreduce,bcast,reduce,allgather,reduce_scatter --sizes 1M
                 --set collective.early_buffer_bytes=65536 --set collective.window_packets=4)
set_tests_properties(collective_flow_control_small_windows_no_deadlock
                     PROPERTIES TIMEOUT 600 LABELS collective FAIL_REGULAR_EXPRESSION "mismatch")

# Mismatched arguments across ranks: every rank gets an error naming the
# argument within 1 ms of simulated time, and the next collective works.
foreach(topology IN ITEMS "8 2x2x2" "5 5x1x1")
  separate_arguments(topology)
  list(GET topology 0 ranks)
  list(GET topology 1 torus)
  add_test(NAME collective_offload_mismatched_arguments_${torus}
           COMMAND isvp run -n ${ranks} --set topology.torus=${torus} -- $<TARGET_FILE:coll_guest> mismatch auto)
  set_tests_properties(collective_offload_mismatched_arguments_${torus} PROPERTIES TIMEOUT 300
                       LABELS "collective;platform")
endforeach()

# Test matrix (issue 4, item 8), beyond driver.cmake's and bench.cmake's runs:
# every collective at 0, 1, odd, 4 KiB counts (coll_guest world/split; 1 MiB
# in "large" and the bench checks), every supported (operation, datatype)
# pair (coll_guest ops), world, halves, odd sizes, reversed keys and
# singletons (split), on 2x2x2 and 4x4x2, with the TLM and the RTL AgLU.
# isvp_coll_guest(NAME RANKS TORUS SCENARIO MODE [--set ...])
function(isvp_coll_guest name ranks torus scenario mode)
  add_test(NAME ${name} COMMAND isvp run -n ${ranks} --set topology.torus=${torus} ${ARGN} --
                                $<TARGET_FILE:coll_guest> ${scenario} ${mode})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS "collective;platform")
endfunction()
isvp_coll_guest(collective_offload_all_operations_2x2x2 8 2x2x2 ops auto)
isvp_coll_guest(collective_offload_all_operations_rtl_aglu_2x2x2 8 2x2x2 ops auto --set aglu.impl=rtl)
isvp_coll_guest(collective_software_all_operations_2x2x2 8 2x2x2 ops software)
isvp_coll_guest(collective_offload_all_operations_4x4x2 32 4x4x2 ops auto)
isvp_coll_guest(collective_offload_world_rtl_aglu_2x2x2 8 2x2x2 world auto --set aglu.impl=rtl)
isvp_coll_guest(collective_offload_split_communicators_rtl_aglu_2x2x2 8 2x2x2 split auto --set aglu.impl=rtl)
isvp_coll_guest(collective_offload_split_communicators_2x2x2 8 2x2x2 split auto)
isvp_coll_guest(collective_offload_world_4x4x2 32 4x4x2 world auto)
isvp_coll_guest(collective_offload_world_rtl_aglu_4x4x2 32 4x4x2 world auto --set aglu.impl=rtl)
isvp_coll_guest(collective_offload_split_communicators_4x4x2 32 4x4x2 split auto)
isvp_coll_guest(collective_offload_large_1MiB_rtl_aglu_2x2x2 8 2x2x2 large auto --set aglu.impl=rtl)
add_test(NAME collective_offload_check_rtl_aglu_1MiB_2x2x2
         COMMAND isvp bench collectives --topology torus:2x2x2 --check --iterations 1 --warmup 0 --aglu rtl
                 --sizes 4,12,1M)
set_tests_properties(collective_offload_check_rtl_aglu_1MiB_2x2x2
                     PROPERTIES TIMEOUT 600 LABELS collective FAIL_REGULAR_EXPRESSION "mismatch")
isvp_coll_guest(collective_offload_split_communicators_rtl_aglu_4x4x2 32 4x4x2 split auto --set aglu.impl=rtl)
isvp_coll_guest(collective_offload_all_operations_rtl_aglu_4x4x2 32 4x4x2 ops auto --set aglu.impl=rtl)
isvp_coll_guest(collective_offload_large_1MiB_4x4x2 32 4x4x2 large auto)
# Long tier: every collective at 4 B, 12 B, 4 KiB and 1 MiB per rank on 32 nodes, checked (~40 s).
if(ISVP_LONG_TESTS)
  add_test(NAME collective_offload_check_long_1MiB_4x4x2
           COMMAND isvp bench collectives --topology torus:4x4x2 --check --iterations 1 --warmup 0 --sizes 4,12,4K,1M)
  set_tests_properties(collective_offload_check_long_1MiB_4x4x2
                       PROPERTIES TIMEOUT 1800 LABELS "collective;long" FAIL_REGULAR_EXPRESSION "mismatch")
endif()

# A CT row RELEASEd while a collective runs on it (and another queued):
# every member completes both with error 5 (aborted), Z's new LOAD and a new
# communicator on the row then work (results exact); a LOAD of a busy row is
# refused and leaves it unchanged; the concurrent communicator on the same
# switches is unaffected (int32 exact, float64 digest the same as without
# the release); nothing leaks; every call on the row is drawn in the trace.
isvp_systemc_testbench(collective_release_tb isvp_collective isvp_fabric)
foreach(shape 2x2x2 4x2x1)
  add_test(NAME collective_engine_${shape}_release_busy_row
           COMMAND collective_release_tb --set topology.torus=${shape}
                   --trace ${CMAKE_CURRENT_BINARY_DIR}/collective_release_${shape}.json)
  add_test(NAME collective_engine_${shape}_release_leaves_other_context_bit_exact
           COMMAND sh -c "a=$($<TARGET_FILE:collective_release_tb> --set topology.torus=${shape} | grep digest) && b=$($<TARGET_FILE:collective_release_tb> --set topology.torus=${shape} --no-release 1 | grep digest) && echo \"$a / $b\" && test -n \"$a\" && test \"$a\" = \"$b\"")
  set_tests_properties(collective_engine_${shape}_release_busy_row
                       collective_engine_${shape}_release_leaves_other_context_bit_exact PROPERTIES LABELS collective)
endforeach()
# The RELEASE while Z's host still streams the 256 KiB request in: its rest
# is discarded, and the next request, which comes for the released row,
# is aborted at every member too (else they would wait for Z forever).
add_test(NAME collective_engine_2x2x2_release_while_request_streams
         COMMAND collective_release_tb --set topology.torus=2x2x2 --release-at-us 5)
set_tests_properties(collective_engine_2x2x2_release_while_request_streams PROPERTIES LABELS collective)

# collective.cgr_units as a limit: two communicators combine in every switch
# at once (256 KiB Allreduce + Reduce_scatter each). One unit: results exact,
# collectives wait (counted), no deadlock; two or four: no waits. With a slow
# CGR (one AgLU at 40 MHz: combining, not the engine's port, is the
# bottleneck) B's latency with one unit is larger than with four.
isvp_systemc_testbench(collective_cgr_units_tb isvp_collective isvp_fabric)
foreach(shape 2x2x2 4x2x1)
  add_test(NAME collective_engine_${shape}_one_cgr_unit_waits
           COMMAND collective_cgr_units_tb --set topology.torus=${shape} --set collective.cgr_units=1 --expect-waits 1)
  add_test(NAME collective_engine_${shape}_two_cgr_units_no_waits
           COMMAND collective_cgr_units_tb --set topology.torus=${shape} --set collective.cgr_units=2 --expect-waits 0)
  add_test(NAME collective_engine_${shape}_one_cgr_unit_slower
           COMMAND sh -c "one=$($<TARGET_FILE:collective_cgr_units_tb> --set topology.torus=${shape} --set collective.cgr_aglus=1 --set collective.clock_mhz=40 --set collective.cgr_units=1 | sed -n 's/^latency B: //p' | cut -d' ' -f1) && four=$($<TARGET_FILE:collective_cgr_units_tb> --set topology.torus=${shape} --set collective.cgr_aglus=1 --set collective.clock_mhz=40 --set collective.cgr_units=4 | sed -n 's/^latency B: //p' | cut -d' ' -f1) && echo \"B: $one ns with one unit, $four ns with four\" && awk -v a=\"$one\" -v b=\"$four\" 'BEGIN { exit !(a > b && b > 0) }'")
  set_tests_properties(collective_engine_${shape}_one_cgr_unit_waits collective_engine_${shape}_two_cgr_units_no_waits
                       collective_engine_${shape}_one_cgr_unit_slower PROPERTIES LABELS collective)
endforeach()
