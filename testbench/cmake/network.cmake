# Network area: Aurora links, routers, torus fabric (models/aurora, models/router).
# Each testbench prints its checks and ends with "N passed, M failed".

isvp_systemc_testbench(aurora_link_tb isvp_aurora isvp_packet_endpoints isvp_fabric)
add_test(NAME aurora_link_latency_bandwidth_saturation COMMAND aurora_link_tb)

isvp_systemc_testbench(aurora_crc_tb isvp_aurora isvp_packet_endpoints isvp_fabric)
add_test(NAME aurora_crc_errors_retry_and_drop COMMAND aurora_crc_tb)

isvp_systemc_testbench(router_tb isvp_router isvp_packet_endpoints isvp_fabric)
add_test(NAME router_pipeline_arbitration_drops_backpressure COMMAND router_tb)

# Credits across a link handed straight to the upstream router give what
# b_transport gives (CreditRoute).
isvp_systemc_testbench(router_credit_route_tb isvp_router isvp_aurora isvp_packet_endpoints isvp_fabric)
add_test(NAME router_credits_direct_same_as_tlm COMMAND router_credit_route_tb)
# A wake-up asked for now by another process comes in the next delta cycle,
# whichever process the kernel runs first (both orders of notification).
isvp_systemc_testbench(wakeup_scheduler_tb isvp_router)
add_test(NAME wakeup_scheduler_now_from_another_process_next_delta_asker_first
         COMMAND wakeup_scheduler_tb asker-first)
add_test(NAME wakeup_scheduler_now_from_another_process_next_delta_scheduler_first
         COMMAND wakeup_scheduler_tb scheduler-first)
# The scheduler taking SystemC's time steps itself leaves every process's
# activations, delta counts and sc_start() ends as the kernel would have
# them (isvp/kernel_time_step.h).
isvp_systemc_testbench(kernel_time_step_tb isvp_router)
add_test(NAME kernel_time_steps_same_simulation_to_the_delta
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/same_with_steps_on_and_off.sh $<TARGET_FILE:kernel_time_step_tb>)
set_tests_properties(kernel_time_steps_same_simulation_to_the_delta PROPERTIES
    PASS_REGULAR_EXPRESSION "on:.*steps taken by the scheduler: [1-9].*traced:.*steps taken by the scheduler: 0.*1 passed, 0 failed" FAIL_REGULAR_EXPRESSION "FAIL")

isvp_systemc_testbench(torus_routing_tb isvp_fabric isvp_packet_endpoints)
add_test(NAME torus_routing_paths_hops_latency COMMAND torus_routing_tb)

# All-to-all, every node to every node at once, on the shapes DESIGN names
# and the degenerate ones.
isvp_systemc_testbench(torus_traffic_tb isvp_fabric isvp_packet_endpoints)
foreach(shape 4x4x4 3x3x3 2x2x2 2x1x1 4x1x1 1x1x1)
  add_test(NAME torus_all_to_all_${shape}_delivers_everything COMMAND torus_traffic_tb --set topology.torus=${shape})
endforeach()
# Deadlock freedom: 4 KB input buffers and long packets. On rings of 4 and 5
# nodes this traffic deadlocks dimension-order routing without dateline VCs
# (the *_without_dateline_deadlocks controls); with them everything arrives.
# (Rings of 2 or 3 nodes cannot deadlock: no packet takes two hops in one.)
foreach(shape 4x4x4 4x1x1 5x1x1 3x3x3 2x2x2)
  add_test(NAME torus_all_to_all_${shape}_small_buffers_no_deadlock
           COMMAND torus_traffic_tb --set topology.torus=${shape} --set router.input_buffer_bytes=4096
                   --payloads 1400,600 --rounds 3)
endforeach()
foreach(shape 4x4x4 4x1x1)
  add_test(NAME torus_all_to_all_${shape}_without_dateline_deadlocks
           COMMAND torus_traffic_tb --set topology.torus=${shape} --set router.input_buffer_bytes=4096
                   --payloads 1400,600 --rounds 3 --without-dateline 1)
endforeach()
# The same all-to-all on the indirect networks and a topology file, with
# small buffers and long packets: up*/down* tables deliver everything along
# their routes, no deadlock (check_routes proves it statically; this runs it).
foreach(tree "radix=8,hosts=16" "radix=4,hosts=24" "radix=16,hosts=40,oversubscription=1")
  string(REGEX REPLACE "[=,]" "_" tree_name "${tree}")
  add_test(NAME fattree_all_to_all_${tree_name}_small_buffers_no_deadlock
           COMMAND torus_traffic_tb --set topology.kind=fattree --set topology.fattree=${tree}
                   --set router.input_buffer_bytes=4096 --payloads 1400,600 --rounds 3)
endforeach()
add_test(NAME topology_file_all_to_all_small_buffers_no_deadlock
         COMMAND torus_traffic_tb --set topology.kind=file --set topology.file=${CMAKE_SOURCE_DIR}/docs/topologies/irregular.json
                 --set router.input_buffer_bytes=4096 --payloads 1400,600 --rounds 3)
add_test(NAME topology_file_all_to_all_shortest_paths_no_deadlock
         COMMAND torus_traffic_tb --set topology.kind=file --set topology.file=${CMAKE_SOURCE_DIR}/docs/topologies/irregular.json
                 --set topology.routing=shortest --set router.input_buffer_bytes=4096 --payloads 1400,600 --rounds 3)
add_test(NAME torus_backpressure_slow_sinks_no_loss
         COMMAND torus_traffic_tb --set topology.torus=3x3x3 --drain-gbps 5 --sink-phits 64 --payloads 200,900)

isvp_systemc_testbench(torus_determinism_tb isvp_fabric isvp_packet_endpoints)
add_test(NAME torus_determinism_same_run_same_times COMMAND torus_determinism_tb)

# Packet-hops per wall second, uniform random traffic on 8x8x8 (a short run
# in the default suite; run the program with --duration-us 200 for a figure).
isvp_systemc_testbench(torus_bench isvp_fabric isvp_packet_endpoints)
# Its simulated figures are pinned (as at 5b00d03): layout changes for speed
# must not move them. With 10 VCs a router has 70 input VCs, more than the
# one-word request sets hold: the wide path.
add_test(NAME torus_bench_8x8x8_uniform_random COMMAND torus_bench --duration-us 20)
set_tests_properties(torus_bench_8x8x8_uniform_random PROPERTIES LABELS bench
    PASS_REGULAR_EXPRESSION "delivered +93802 packets, 565310 packet-hops.*mean latency +2954\\.383 ns, mean link utilisation 23\\.291 %.*simulated +26\\.764 us.*wake-ups +853253 .*wake-up hints +on.*time steps +[1-9][0-9]* taken.*ok +every injected packet was delivered intact"
    FAIL_REGULAR_EXPRESSION "FAIL")
# The routers' prefetch hints to the scheduler (on here, by the fabric's
# size) change no simulated figure.
add_test(NAME torus_bench_8x8x8_without_hints_figures_unchanged COMMAND torus_bench --duration-us 20 --hints off)
set_tests_properties(torus_bench_8x8x8_without_hints_figures_unchanged PROPERTIES LABELS bench
    PASS_REGULAR_EXPRESSION "delivered +93802 packets, 565310 packet-hops.*mean latency +2954\\.383 ns, mean link utilisation 23\\.291 %.*simulated +26\\.764 us.*wake-ups +853253 .*wake-up hints +off.*ok +every injected packet was delivered intact"
    FAIL_REGULAR_EXPRESSION "FAIL")
# Nor does the scheduler leaving every time step to SystemC's kernel.
add_test(NAME torus_bench_8x8x8_kernel_time_steps_figures_unchanged
         COMMAND torus_bench --duration-us 20 --set router.scheduler_time_steps=false)
set_tests_properties(torus_bench_8x8x8_kernel_time_steps_figures_unchanged PROPERTIES LABELS bench
    PASS_REGULAR_EXPRESSION "delivered +93802 packets, 565310 packet-hops.*mean latency +2954\\.383 ns, mean link utilisation 23\\.291 %.*simulated +26\\.764 us.*wake-ups +853253 .*time steps +0 taken.*ok +every injected packet was delivered intact"
    FAIL_REGULAR_EXPRESSION "FAIL")
# Below Fabric::kHintedInputVcs a fabric gives no hints (its records stay
# in the caches); forced on, they change nothing there either.
add_test(NAME torus_bench_small_fabric_without_hints COMMAND torus_bench --set topology.torus=4x4x4 --duration-us 20)
add_test(NAME torus_bench_small_fabric_hints_forced_figures_unchanged
    COMMAND torus_bench --set topology.torus=4x4x4 --duration-us 20 --hints on)
foreach(test torus_bench_small_fabric_without_hints torus_bench_small_fabric_hints_forced_figures_unchanged)
    set_tests_properties(${test} PROPERTIES LABELS bench FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
set(small_figures "delivered +11774 packets, 35991 packet-hops.*mean latency +1513\\.739 ns, mean link utilisation 11\\.863 %.*simulated +23\\.856 us.*wake-ups +65895 ")
set_tests_properties(torus_bench_small_fabric_without_hints PROPERTIES
    PASS_REGULAR_EXPRESSION "${small_figures}.*wake-up hints +off.*ok +every injected packet was delivered intact")
set_tests_properties(torus_bench_small_fabric_hints_forced_figures_unchanged PROPERTIES
    PASS_REGULAR_EXPRESSION "${small_figures}.*wake-up hints +on.*ok +every injected packet was delivered intact")
# scripts/ab_bench.py (ISVP_PYTHON3 comes from bench.cmake): two builds or
# settings alternated; it compares only runs that simulated the same
# figures, and stops on any that did not.
add_test(NAME ab_bench_alternates_and_checks_figures
    COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/ab_bench.py --a $<TARGET_FILE:torus_bench> --a-args "--hints off"
            --b $<TARGET_FILE:torus_bench> --b-args "--hints on" --pairs 2 -- --set topology.torus=2x2x2 --duration-us 2)
set_tests_properties(ab_bench_alternates_and_checks_figures PROPERTIES LABELS bench
    PASS_REGULAR_EXPRESSION "2 pairs: median packet-hops per CPU second A [0-9.]+ M, B [0-9.]+ M; median ratio B/A [0-9.]+ \\([-+][0-9.]+ %\\); B ahead in [0-2] of 2; simulated figures identical")
add_test(NAME ab_bench_refuses_different_simulations
    COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/ab_bench.py --a $<TARGET_FILE:torus_bench>
            --b $<TARGET_FILE:torus_bench> --b-args "--seed 3" --pairs 1 -- --set topology.torus=2x2x2 --duration-us 2)
set_tests_properties(ab_bench_refuses_different_simulations PROPERTIES LABELS bench
    PASS_REGULAR_EXPRESSION "round 1 simulated different figures; compare like with like")
add_test(NAME torus_bench_wide_routers_figures_unchanged COMMAND torus_bench --duration-us 10 --set router.vcs=10)
set_tests_properties(torus_bench_wide_routers_figures_unchanged PROPERTIES
    PASS_REGULAR_EXPRESSION "delivered +47047 packets, 283474 packet-hops.*mean latency +2980\\.044 ns, mean link utilisation 23\\.358 %.*simulated +16\\.790 us.*wake-ups +432314 .*wake-up hints +on.*ok +every injected packet was delivered intact"
    FAIL_REGULAR_EXPRESSION "FAIL")
