# The flow network (network.model = flow, models/flow): every collective
# exact on a torus and a fat tree, an uncontended message as fast as in the
# packet model, injected bit errors refused. The max-min solver and flow
# paths are unit-tested (testbench/unit/test_flow_model.cpp).
set(topology_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/topology_checks.py)
set(flow_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/flow_checks.py)

add_test(NAME flow_torus_every_collective_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> torus:2x2x2
                 --collectives all --sizes 8,4K,64K --iterations 1 --set network.model=flow)
add_test(NAME flow_fattree_every_collective_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> fattree:radix=8,hosts=16
                 --collectives all --sizes 8,4K,64K --iterations 1 --set network.model=flow)
add_test(NAME flow_torus_one_hop_latency_equals_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} latency $<TARGET_FILE:isvp> torus:2x1x1 1 0)
add_test(NAME flow_fattree_over_a_spine_latency_equals_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} latency $<TARGET_FILE:isvp>
                 fattree:radix=8,hosts=12 2 0)
add_test(NAME flow_refuses_bit_errors
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "network.model=flow does not model link bit errors" --topology torus:2x1x1
                 --set network.model=flow --set aurora.bit_error_rate=1e-9 --collectives barrier --sizes 8)
set_tests_properties(flow_torus_every_collective_checked flow_fattree_every_collective_checked
                     flow_torus_one_hop_latency_equals_packet_model
                     flow_fattree_over_a_spine_latency_equals_packet_model flow_refuses_bit_errors
                     PROPERTIES LABELS flow TIMEOUT 600)
add_test(NAME flow_fattree_same_leaf_latency_equals_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} latency $<TARGET_FILE:isvp> fattree:radix=8,hosts=12 0 0)
set_tests_properties(flow_fattree_same_leaf_latency_equals_packet_model PROPERTIES LABELS flow TIMEOUT 600)

# What the flow network does not run with is refused by name (the switch
# engines' extra ports and partitions' cut cables exist only in the packet Fabric).
add_test(NAME flow_refuses_switch_placement
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "collective.placement=switch does not run with network.model=flow"
                 --topology fattree:radix=8,hosts=16 --set network.model=flow --set collective.placement=switch
                 --collectives allreduce --sizes 8)
add_test(NAME flow_refuses_partitions
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "--partitions does not run with network.model=flow" --topology torus:2x2x2
                 --set network.model=flow --partitions 2 --collectives allreduce --sizes 8)
set_tests_properties(flow_refuses_switch_placement flow_refuses_partitions PROPERTIES LABELS flow TIMEOUT 120)

# The flow model's cost: with network.flow_linger_round_trips=1 a stream
# keeps its flow between the packets of a collective step, so the max-min
# solver runs per flow start, not per packet (with 0: a solve per two or
# three packets).
add_test(NAME flow_solves_per_flow_not_per_packet
         COMMAND ${ISVP_PYTHON3} ${flow_checks} solves $<TARGET_FILE:isvp> 50 --topology torus:2x2x2
                 --collectives allreduce,allgather --sizes 256K --iterations 1 --warmup 0 --offload on
                 --set network.flow_linger_round_trips=1)
set_tests_properties(flow_solves_per_flow_not_per_packet PROPERTIES LABELS flow TIMEOUT 300)

# The NIC engines run on the platform's wake-up scheduler, as on a packet
# fabric: their own timed events filled SystemC's timed queue, a third of a
# 64-node 4 MiB Allreduce's CPU (docs/PERFORMANCE.md, "Session 24").
add_test(NAME flow_engines_on_the_wakeup_scheduler
         COMMAND ${ISVP_PYTHON3} ${flow_checks} wakeups $<TARGET_FILE:isvp> --topology torus:2x2x2
                 --collectives allreduce --sizes 4K --iterations 1 --warmup 0 --offload on)
set_tests_properties(flow_engines_on_the_wakeup_scheduler PROPERTIES LABELS flow TIMEOUT 300)

# Concurrent steps share a node's ports: on a 2x2x2 torus the offloaded
# Allreduce streams its three steps at once, and their window grants (22 B)
# start flows ahead of 1 KiB data. Weighed for the grant, a flow charged its
# data three times a data byte's port cost: 83.9 us against the packet
# model's 61.5 at 256 KiB (+36 %). Weighed for the largest packet it drained,
# the two models agree within 1 %.
add_test(NAME flow_torus_concurrent_steps_agree_with_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} collective $<TARGET_FILE:isvp> 3 --topology torus:2x2x2
                 --collectives allreduce --sizes 64K,256K --iterations 1 --warmup 0 --offload on --timing-only)
set_tests_properties(flow_torus_concurrent_steps_agree_with_packet_model PROPERTIES LABELS flow TIMEOUT 300)

# scripts/flow_error_table.py on a file that is not a bench output: one line
# naming it (it was a TypeError traceback; a missing file, FileNotFoundError).
add_test(NAME flow_error_table_refuses_what_is_not_a_bench_output
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/flow_error_table.py ${CMAKE_SOURCE_DIR}/README.md
                 ${CMAKE_SOURCE_DIR}/README.md)
set_tests_properties(flow_error_table_refuses_what_is_not_a_bench_output PROPERTIES LABELS flow
                     FAIL_REGULAR_EXPRESSION "Traceback" PASS_REGULAR_EXPRESSION
                     "flow_error_table: [^\n]*README.md has no '# collective' header: not an isvp bench collectives output")

# Trains (network.flow_train_packets = n): the NICs move n hardware packets of
# a message as one packet the flow network costs as the n back to back, so a
# long message costs n times fewer events (docs/PERFORMANCE.md, "Trains").
# Every result stays exact (1 MiB blocks and messages go in trains of 4,
# 64 KiB ones keep hardware packets); a 16-node 1 MiB Allreduce and Allgather move 2.9
# times fewer packets with trains of 4 (window grants do not shrink) and stay
# within 3 % of hardware packets.
add_test(NAME flow_trains_every_collective_checked
         COMMAND ${ISVP_PYTHON3} ${topology_checks} bench $<TARGET_FILE:isvp> torus:2x2x2
                 --collectives all --sizes 8,64K,1M --iterations 1 --set network.model=flow
                 --set network.flow_train_packets=4)
add_test(NAME flow_trains_cut_packets_not_latency
         COMMAND ${ISVP_PYTHON3} ${flow_checks} trains $<TARGET_FILE:isvp> 4 2.5 3 --topology torus:4x2x2
                 --collectives allreduce,allgather --sizes 1M --iterations 1 --warmup 0 --offload on --timing-only)
# A collective whose blocks are shorter than 256 trains keeps hardware
# packets in the engines (a train is taken and forwarded whole: a 64 KiB
# Allreduce in trains of 16 came out 29 % slow).
add_test(NAME flow_trains_short_messages_keep_hardware_packets
         COMMAND ${ISVP_PYTHON3} ${flow_checks} short $<TARGET_FILE:isvp> 16 --topology torus:4x2x2
                 --collectives allreduce,allgather --sizes 64K --iterations 1 --warmup 0 --offload on --timing-only)
add_test(NAME flow_trains_refused_with_the_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "network.flow_train_packets=4 applies to network.model=flow only" --topology torus:2x1x1
                 --set network.flow_train_packets=4 --collectives barrier --sizes 8)
add_test(NAME flow_trains_refused_beyond_one_packet
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "network.flow_train_packets=16 makes trains of 32768 payload bytes" --topology torus:2x1x1
                 --set network.model=flow --set network.flow_train_packets=16 --set qdma.packet_payload_bytes=2048
                 --set collective.packet_payload_bytes=2048 --collectives barrier --sizes 8)
add_test(NAME flow_trains_refused_with_two_packet_sizes
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "network.flow_train_packets=4 needs one hardware packet size" --topology torus:2x1x1
                 --set network.model=flow --set network.flow_train_packets=4 --set qdma.packet_payload_bytes=2048
                 --collectives barrier --sizes 8)
# Trains scale the QDMA's buffers by min(n, 4): one too small for a train
# is refused by the value the user set, not the scaled one.
add_test(NAME flow_trains_refused_qdma_buffer_below_a_train
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "qdma.rx_buffer_bytes=2048 cannot hold a train with network.flow_train_packets=16" --topology
                 torus:2x1x1 --set network.model=flow --set network.flow_train_packets=16
                 --set qdma.rx_buffer_bytes=2048 --collectives barrier --sizes 8)
add_test(NAME flow_trains_refused_h2c_buffer_below_a_train
         COMMAND ${ISVP_PYTHON3} ${flow_checks} refused $<TARGET_FILE:isvp>
                 "qdma.h2c_buffer_bytes=2048 cannot hold a train with network.flow_train_packets=16 (16402 B; trains scale it by 4 to 8192 B): set it to at least 4101"
                 --topology torus:2x1x1 --set network.model=flow --set network.flow_train_packets=16
                 --set qdma.h2c_buffer_bytes=2048 --collectives barrier --sizes 8)
# ... and one near the largest a QDMA has is capped there, not refused.
add_test(NAME flow_trains_large_qdma_buffer_capped
         COMMAND isvp bench collectives --topology torus:2x1x1 --set network.model=flow
                 --set network.flow_train_packets=4 --set qdma.rx_buffer_bytes=8388608
                 --set qdma.h2c_buffer_bytes=8388608 --collectives allreduce --sizes 1M --iterations 1 --warmup 0)
set_tests_properties(flow_trains_refused_with_two_packet_sizes flow_trains_refused_qdma_buffer_below_a_train
                     flow_trains_refused_h2c_buffer_below_a_train flow_trains_large_qdma_buffer_capped
                     PROPERTIES LABELS flow TIMEOUT 120)
set_tests_properties(flow_trains_every_collective_checked flow_trains_cut_packets_not_latency
                     flow_trains_short_messages_keep_hardware_packets flow_trains_refused_with_the_packet_model flow_trains_refused_beyond_one_packet
                     PROPERTIES LABELS flow TIMEOUT 600)
# Timing only, the NIC engines' packets whose payload nobody reads carry
# their headers only (PacketInfo::header_only): on the flow network every
# step and result packet, on the packet network the result packets (links,
# the reliable layer and partition boundaries copy step packets whole). This
# is what keeps a timing-only flow run's memory to the headers in flight
# (1,024-node 4 MiB Allreduce, trains of 16: 3.2 GB -> 0.65 GB).
add_test(NAME flow_timing_only_packets_carry_headers_only
         COMMAND ${ISVP_PYTHON3} ${flow_checks} header-only $<TARGET_FILE:isvp> ${CMAKE_BINARY_DIR}/flow_header_only
                 --topology torus:2x2x2 --collectives all --sizes 8,64K,1M --iterations 1 --warmup 0
                 --offload both)
set_tests_properties(flow_timing_only_packets_carry_headers_only PROPERTIES LABELS flow TIMEOUT 600)
