# network.flow_hold = message (the default): a stream that runs dry inside a
# message keeps its flow until the message's last packet has drained, and a
# one-phit message on a stream without a flow (a window-credit return) drains
# without one, so the max-min solver runs per message, not per packet.
# 2x2x2 offloaded Allreduce + Allgather 256 KiB: 57 solves for 27,102
# packets (one per 475); with flows held but every credit return a flow 171
# (one per 158), with network.flow_hold=instant (a stream leaves the problem
# whenever it runs dry) 1,939 for 27,004 (one per 14): both fail.
set(flow_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/flow_checks.py)
add_test(NAME flow_solves_per_message_not_per_packet
         COMMAND ${ISVP_PYTHON3} ${flow_checks} solves $<TARGET_FILE:isvp> 300 --topology torus:2x2x2
                 --collectives allreduce,allgather --sizes 256K --iterations 1 --warmup 0 --offload on
                 --timing-only)
# The held flows change neither payload (--check: every rank's result
# against the reference) nor latency beyond 2 % of the packet model
# (61.9 / 235.5 us against 61.5 / 236.1).
add_test(NAME flow_held_flows_every_result_checked
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/topology_checks.py bench $<TARGET_FILE:isvp>
                 torus:2x2x2 --collectives allreduce,allgather,reduce_scatter --sizes 256K --iterations 1
                 --set network.model=flow)
add_test(NAME flow_held_flows_agree_with_packet_model
         COMMAND ${ISVP_PYTHON3} ${flow_checks} collective $<TARGET_FILE:isvp> 2 --topology torus:2x2x2
                 --collectives allreduce,allgather --sizes 256K --iterations 1 --warmup 0 --offload on --timing-only)
set_tests_properties(flow_solves_per_message_not_per_packet flow_held_flows_every_result_checked
                     flow_held_flows_agree_with_packet_model PROPERTIES LABELS flow TIMEOUT 300)
